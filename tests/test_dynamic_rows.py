"""Loops over the rows of arrays whose first axis changes from call to call: `for row in x`,
`for v in x`, `for i, row in enumerate(x)`, `for a, b in zip(x, y)` and `x[i]` of a 2-d `x`
in `for i in range(len(x))`. Once the size changed, each is one loop op over the symbolic
size (`loops/ranges.py: ArrayRows`, `loops/windows.py`), so the function compiles twice for
every size from 2 up (0 and 1 are specialised, as NumPy's broadcasting rules make them), and
every call equals NumPy: results, the arguments afterwards, and the exception of an empty
loop whose variable is read after it."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same


def squares_by_element(x):
    t = 0.0
    for v in x:
        t += v * v
    return t


def row_sums(x):
    t = np.zeros(x.shape[1])
    for row in x:
        t += row * row
    return t


def rows_by_index(x):
    t = np.zeros(x.shape[1])
    for i in range(x.shape[0]):
        t += x[i] * x[i]
    return t


def rows_until(x):
    t = np.zeros(x.shape[1])
    for row in x:
        if row[0] > 0.9:
            break
        t += row
    return t


def weighted_by_position(x):
    t = np.zeros(x.shape[1])
    for i, row in enumerate(x, start=1):
        t += row / i
    return t


def dot_by_zip(x, y):
    s = 0.0
    for a, b in zip(x, y):
        s += a * b
    return s


def rows_times_weights(x, w):
    out = np.zeros(x.shape[1])
    for row, wi in zip(x, w):
        out += wi * row
    return out


def rows_rewritten(x):
    y = x.copy()
    for i, row in enumerate(y):
        y[i] = row * 2 + 1
    return y


def count_above(x):
    c = 0
    for v in x:
        if v > 0.5:
            c += 1
    return c


def nested_elements(x):
    t = 0.0
    for row in x:
        for v in row:
            t += v
    return t


def row_totals_list(x):
    out = []
    for row in x:
        out.append(row.sum())
    return np.array(out)


def running_max_rows(x):
    best = x[0].copy()
    for row in x[1:]:
        best = np.maximum(best, row)
    return best


def int_rows(x):
    acc = np.zeros(x.shape[1], dtype=np.int64)
    for row in x:
        acc += row % 7
    return acc


def float32_rows(x):
    t = np.zeros(x.shape[1], dtype=np.float32)
    for row in x:
        t = t * np.float32(0.5) + row
    return t


def _m(*cols, dtype=np.float64):
    def make(n, rng):
        out = []
        for c in cols:
            shape = (n,) if c is None else (n, c)
            a = rng.random(shape)
            if dtype is np.int64:
                a = (a * 100).astype(np.int64)
            out.append(a.astype(dtype))
        return tuple(out)
    return make


ROWS = [(squares_by_element, _m(None)), (row_sums, _m(3)), (rows_by_index, _m(3)),
        (rows_until, _m(3)), (weighted_by_position, _m(3)), (dot_by_zip, _m(None, None)),
        (rows_times_weights, _m(4, None)), (rows_rewritten, _m(2)), (count_above, _m(None)),
        (nested_elements, _m(3)), (row_totals_list, _m(3)),
        # `x[1:]` has a size of its own below 2 at two rows: one row more
        (running_max_rows, lambda n, rng: _m(5)(n + 1, rng)),
        (int_rows, _m(3, dtype=np.int64)), (float32_rows, _m(4, dtype=np.float32))]
SIZES = (3, 4, 5, 2, 7, 30, 11, 2, 64)


def check_sizes(fn, make, sizes, backend="cranelift", rtol=1e-6):
    """`fn` compiled, called at each size against NumPy (results, arguments afterwards, the
    exception type where NumPy raises); `ember.stats()` afterwards."""
    compiled = ember.compile(fn, backend=backend)
    for n in sizes:
        args = make(n, np.random.default_rng(n))
        plain = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        try:
            want = fn(*plain)
        except Exception as exc:  # an empty loop whose variable is read after it
            with pytest.raises(type(exc)):
                compiled(*args)
            continue
        assert_same(compiled(*args), want, rtol=rtol, path=f"{fn.__name__} at {n}")
        for got, was in zip(args, plain):
            assert_same(got, was, rtol=0, path=f"{fn.__name__} at {n}: an argument")
    return ember.stats()


@pytest.mark.parametrize("fn, make", ROWS, ids=[f.__name__ for f, _ in ROWS])
def test_loops_over_rows_compile_twice_for_every_size(fn, make):
    stats = check_sizes(fn, make, SIZES)
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]


@pytest.mark.parametrize("fn, make", ROWS, ids=[f.__name__ for f, _ in ROWS])
def test_loops_over_rows_equal_numpy_at_sizes_zero_and_one(fn, make):
    check_sizes(fn, make, (4, 5, 0, 1, 6, 1, 0))


@pytest.mark.parametrize("fn, make", ROWS[:6], ids=[f.__name__ for f, _ in ROWS[:6]])
def test_loops_over_rows_on_the_eager_backend(fn, make):
    check_sizes(fn, make, (4, 5, 0, 1, 9), backend="eager")


def last_row_kept(x):
    t = np.zeros(x.shape[1])
    for row in x:
        t += row
    return t, row


def rows_of_different_lengths(x, y):
    s = 0.0
    for a, b in zip(x, y):
        s += a - b
    return s


def rows_updated_through_the_view(x):
    for row in x:
        row *= 2
    return x


@pytest.mark.parametrize("fn, make", [
    (last_row_kept, _m(3)), (rows_updated_through_the_view, _m(2)),
    (rows_of_different_lengths, lambda n, rng: (rng.random(n), rng.random(n + 2)))],
    ids=lambda c: getattr(c, "__name__", ""))
def test_loops_that_are_not_row_loops_stay_right(fn, make):
    """A loop variable read after the loop (unbound after no trip), rows updated in place
    through their views, `zip` of two sizes: captured per size as before, always right."""
    check_sizes(fn, make, (3, 4, 0, 1, 5, 2))
