"""Frame-level branches on data around `while` loops, and `bool()` of 0-d values outside loop
bodies. An early return on data (`if x[0] == v: return 0`) whose other path runs a `while`
whose tests are Python values, that branches on the data inside: that `while` is one loop op
inside the path (`frame_branches.retry_while_on_path`), not unrolled trip by trip. And
`np.allclose`/`np.array_equal` at the frame's level (NumPy's source ends in `bool(...)`) are
Python bools computed at run time, so a branch on them is an `if` op and returning one gives
the Python bool. Against plain NumPy (values, Python types, the arguments afterwards),
compiled without a break."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_loops_first_assigned import check


def first_above(x, v):
    if x[0] == v:
        return 0
    i = 0
    while i < x.shape[0]:
        if x[i] > v:
            break
        i += 1
    return i


def count_until_zero(a, start):
    if a[start] == 0:
        return start, 0
    k = start
    total = 0
    while k < a.shape[0]:
        k += 1
        if a[k - 1] < 0:
            continue
        if a[k - 1] == 0:
            return k, total
        total += a[k - 1]
    return k, total


def walk_chain(nxt, head, limit):
    if nxt[head] < 0:
        return -1, nxt
    steps = 0
    node = head
    while node >= 0 and steps < limit:
        nxt[node] = -2 - nxt[node]
        node = -2 - nxt[node]
        steps += 1
    return steps, nxt


def fill_from(img, r0, c0, new):
    img = img.copy()
    H, W = img.shape
    old = img[r0, c0]
    if old == new:
        return img, 0
    stack = np.empty((H * W * 4 + 1, 2), dtype=np.int64)
    stack[0, 0], stack[0, 1] = r0, c0
    top = 1
    filled = 0
    while top > 0:
        top -= 1
        r, c = stack[top, 0], stack[top, 1]
        if r < 0 or r >= H or c < 0 or c >= W or img[r, c] != old:
            continue
        img[r, c] = new
        filled += 1
        stack[top] = (r + 1, c)
        stack[top + 1] = (r - 1, c)
        stack[top + 2] = (r, c + 1)
        stack[top + 3] = (r, c - 1)
        top += 4
    return img, filled


def prefix_until(x, stop):
    if x[0] == stop:
        return 0.0
    sums = np.zeros(x.shape[0] + 1)
    i = 0
    while i < x.shape[0] and x[i] != stop:
        sums[i + 1] = sums[i] + x[i]
        i += 1
    return sums[i]


def marked_count(x, lo):
    if x.min() >= lo:
        return -1, x
    seen = np.full(x.shape[0], False)
    k = 0
    while k < x.shape[0]:
        if x[k] < lo:
            seen[k] = True
        k += 1
    n = 0
    for j in range(x.shape[0]):
        if seen[j]:
            n += 1
    return n, x


def diagonal_dot(x, n):
    if x[0] > 0.5:
        return -1
    e = np.eye(n)
    r = np.arange(n)
    s = 0.0
    for i in range(n):
        s += e[i, r[i]] * x[i]
    return s


def close_enough(x, y):
    return np.allclose(x, y, atol=0.25)


def same_arrays(x, y):
    return np.array_equal(x, y), np.array_equal(x, x)


def tolerance_code(x, y, tol):
    close = np.allclose(x, y, atol=tol)
    same_side = np.array_equal(x > 0.5, y > 0.5)
    if close:
        return 1
    elif same_side:
        return 2
    return 3


def truth_of_values(x):
    return bool(x[0]), bool(x.sum() > 1.0)


def _data(seed, n, dtype=np.float64):
    return (np.random.default_rng(seed).random(n) * 4).astype(dtype)


def _ir(fn, *args) -> str:
    return "\n".join(ember.explain(fn, *args).graphs)


def test_an_early_return_before_a_while_with_a_break():
    x = _data(0, 50)
    check(first_above, [(x, 3.9), (x, x[0]), (x, 5.0)])
    assert " = loop(" in _ir(first_above, x, 3.9)


def test_an_early_return_before_a_while_with_continue_and_return():
    a = np.random.default_rng(1).integers(-3, 6, 60)
    b = a.copy()
    b[2] = 0
    # `total` may be returned while still the Python int 0 (a negative, then a zero): no
    # loop op keeps the two apart, so the while runs in Python.
    c = np.abs(a) + 1
    c[2:4] = (-2, 0)
    check(count_until_zero, [(a, 2), (b, 2), (np.abs(a) + 1, 2), (c, 2)], native=False)


def test_an_early_return_before_a_while_that_writes_its_argument():
    nxt = np.array([3, -1, 5, 1, 0, 2])
    ends_at_once = nxt.copy()
    ends_at_once[4] = -1
    check(walk_chain, [(nxt, 4, 3), (ends_at_once, 4, 3), (np.array([1, 2, 3, 4, 5, 0]), 4, 3)])


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
def test_a_work_array_made_after_an_early_return(backend):
    """`np.empty`/`np.zeros`/`np.full` on the path past the early return are made before
    the `if` op (`frame_branches.hoist_allocations`): the path holds element work only."""
    img = np.random.default_rng(5).integers(0, 3, (9, 11))
    already = img.copy()
    already[4, 5] = 7
    calls = [(img, 4, 5, 7), (already, 4, 5, 7), (np.zeros((9, 11), int), 4, 5, 7)]
    compiled = ember.compile(fill_from, backend=backend)
    for args in calls:
        got, want = compiled(*args), fill_from(*args)
        assert type(got[1]) is type(want[1]) and got[1] == want[1]
        np.testing.assert_array_equal(got[0], want[0])
    stats = ember.stats()
    assert stats["graph_breaks"] == 0 and stats["region_recaptures"] == 0
    assert " = if(" in _ir(fill_from, *calls[0])


def test_work_arrays_of_other_makers_after_an_early_return():
    x = _data(6, 40)
    check(prefix_until, [(x, x[7]), (x, x[0]), (x, -1.0)])
    check(marked_count, [(x, 1.0), (x + 2.0, 1.0), (x - 1.0, 1.0)])
    y = np.random.default_rng(7).random(12)
    y[0] = 0.25
    check(diagonal_dot, [(y, 12), (1 - y, 12)])


def scaled_pick(x, lo):
    if x[0] > 0.5:
        return x[1] * lo
    return x[2] - lo


def test_paths_read_python_numbers_known_at_run_time():
    """After a call with another `lo` the number is a run-time value (a weak input), which
    the paths read as a loop body does, whatever the branch holds."""
    x = _data(8, 40)
    check(marked_count, [(x, 1.0), (x, -1.0), (x, 3.0)])
    check(scaled_pick, [(np.array([0.7, 2.0, 3.0]), lo) for lo in (1.0, 2.5, -3.0)]
          + [(np.array([0.2, 2.0, 3.0]), lo) for lo in (1.0, 4.0)])


def test_allclose_and_array_equal_returned_as_python_bools():
    x = _data(2, 30)
    check(close_enough, [(x, x + 0.1), (x, x + 0.5)])
    check(same_arrays, [(x, x.copy()), (x, x + 1)])
    assert ember.explain(close_enough, x, x).graph_count == 1


def test_branches_on_allclose_and_array_equal():
    x = _data(3, 30)
    check(tolerance_code, [(x, x + 0.1, 0.2), (x, x + 0.3, 0.2), (x, 4 - x, 0.2)])


def test_bool_of_a_zero_d_value():
    check(truth_of_values, [(_data(4, 5),), (np.zeros(3),), (np.array([0.0, 2.0]),)])


def test_bool_of_a_1d_array_keeps_numpys_error():
    def f(x):
        return bool(x > 0)

    with pytest.raises(ValueError):
        f(np.ones(3))
    with pytest.raises(ValueError):
        ember.compile(f)(np.ones(3))


@settings(max_examples=25)
@given(st.integers(0, 2**32 - 1), st.integers(2, 40),
       st.sampled_from([np.float64, np.float32, np.int64, np.int32]))
def test_random_early_returns_match_numpy(seed, n, dtype):
    x = _data(seed, n, dtype)
    ember.reset()
    check(first_above, [(x, x[0]), (x, x.max()), (x, x[n // 2])])
