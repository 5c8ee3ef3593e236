"""Loop-carried locals whose type the data decide, merged by branches of loop bodies.

- `best = 1`, then `best = total` (an int32) under `if total > best:`: after the first trip
  `best` is a choice of a Python int and an int32, and the branch merges that choice with
  an int32 as a choice again (`loops/choice_merge.py`), so the loop is one loop op and
  the result keeps the type Python's run gives it.
- `h = 0.9 * h * (tol / max(err, 1e-16)) ** 0.2`: a Python float or a NumPy float64 as
  `max()` picks; dividing a Python number by it cannot tell them apart where the divisor is
  never zero, and `h = t_end - t` on a branch's path keeps the flag of `t`
  (`loops/mixed_picks.py`)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st
from test_loops_returns import run_calls


def running_best(x, steps):
    best = 1
    best_at = 0
    for i in range(x.shape[0]):
        total = steps + x[i]
        if total > best:
            best = total
            best_at = i
    return best, best_at


def running_best_both_paths(x):
    best = 0.5
    for i in range(x.shape[0]):
        if x[i] > best:
            best = x[i]
        else:
            best = best * 1.0 if x[i] < -1 else best
    return best


def window_min(img, k):
    out = np.zeros_like(img)
    for i in range(img.shape[0]):
        v = 255
        for j in range(max(0, i - k), min(img.shape[0], i + k + 1)):
            if img[j] > 0:
                v = min(v, img[j])
            else:
                v = 0
        out[i] = v
    return out, v


def local_alignment(a, b, gap):
    H = np.zeros((a.shape[0] + 1, b.shape[0] + 1), dtype=np.int32)
    best = 0
    for i in range(1, a.shape[0] + 1):
        for j in range(1, b.shape[0] + 1):
            s = 2 if a[i - 1] == b[j - 1] else -1
            v = max(0, H[i - 1, j - 1] + s, H[i - 1, j] - gap, H[i, j - 1] - gap)
            H[i, j] = v
            if v > best:
                best = v
    return best, H


def picked_sum(x):
    best = 0
    total = 0
    for i in range(x.shape[0]):
        v = max(0, x[i] - 1)
        if v > best:
            best = v
        total = total + v * 3
    return best, total


def closest_active_pairs(D, active):
    n = D.shape[0]
    out = np.zeros(n - 1)
    for step in range(n - 1):
        best = np.inf
        for i in range(n):
            if not active[i]:
                continue
            for j in range(i + 1, n):
                if active[j] and D[i, j] < best:
                    best = D[i, j]
        out[step] = best
        active[step] = not active[step]
    return out, active


def min_in_a_branch(x):
    out = np.zeros(x.shape[0])
    b = np.inf
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            b = min(b, x[i])
        out[i] = b
    return out


def nearest_other_cluster(D, labels, k):
    out = np.zeros(D.shape[0])
    for i in range(D.shape[0]):
        b = np.inf
        for c in range(k):
            if c == labels[i]:
                continue
            b = min(b, D[i, c])
        out[i] = b
    return out


def step_control(errs, tol, t_end):
    t = 0.0
    h = 0.25
    n = 0
    while t < t_end:
        if t + h > t_end:
            h = t_end - t
        err = errs[n % errs.shape[0]] * h
        if err <= tol:
            t += h
        n += 1
        h = 0.9 * h * (tol / max(err, 1e-16)) ** 0.2
    return n


def step_control_returned(errs, tol, t_end):
    t = 0.0
    h = 0.25
    n = 0
    while t < t_end and n < 100:
        if t + h > t_end:
            h = t_end - t
        err = errs[n % errs.shape[0]] * h
        if err <= tol:
            t += h
        n += 1
        h = 0.9 * h * (tol / max(err, 1e-16)) ** 0.2
    return n, h, t


def divide_by_negative_picks(x, c):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = c / min(x[i], -0.5) + c / min(-0.25, x[i])
    return out


def divide_by_a_pick_that_may_be_zero(x, c):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = c / max(x[i], 0.0)
    return out


@settings(max_examples=25)
@given(st.lists(st.integers(-3, 3), min_size=12, max_size=12), st.integers(-2, 2))
def test_a_running_best_of_python_int_or_int32(values, steps) -> None:
    ember.reset()
    run_calls(running_best, [(np.array(values, dtype=np.int32), steps)])


@pytest.mark.parametrize("dtype", [np.int32, np.int16, np.uint8, np.float32, np.int64])
def test_a_running_best_by_dtype(dtype) -> None:
    ember.reset()
    rng = np.random.default_rng(7)
    run_calls(running_best, [(rng.integers(0, 5, 20).astype(dtype), 0),
                             (np.zeros(20, dtype=dtype), 0),
                             (np.ones(20, dtype=dtype), 0)])


@settings(max_examples=25)
@given(st.lists(st.floats(-3, 3, width=32), min_size=10, max_size=10))
def test_a_choice_on_both_paths(values) -> None:
    ember.reset()
    x = np.array(values, dtype=np.float32)
    assert_same(ember.compile(running_best_both_paths)(x), running_best_both_paths(x))


@settings(max_examples=20)
@given(st.lists(st.integers(0, 3), min_size=9, max_size=9),
       st.lists(st.integers(0, 3), min_size=7, max_size=7))
def test_a_max_pick_of_python_zero_or_int32_kept_as_a_choice(a, b) -> None:
    """`v = max(0, ...)` is the Python 0 or an int32; `best = v` keeps which."""
    ember.reset()
    run_calls(local_alignment, [(np.array(a, dtype=np.int8), np.array(b, dtype=np.int8), 1)])


@pytest.mark.parametrize("x", [np.array([0, 3, -2, 7, 1], dtype=np.int16),
                               np.array([-1, -5, 0, 1], dtype=np.int16),
                               np.array([30000, 2, 30000], dtype=np.int16)])
def test_a_pick_in_arithmetic_with_python_ints_runs_as_python(x) -> None:
    """`v * 3` of a Python int grows where the int16 wraps: a use that tells."""
    ember.reset()
    run_calls(picked_sum, [(x,)], native=False)


@settings(max_examples=20)
@given(st.lists(st.integers(0, 255), min_size=16, max_size=16), st.integers(0, 3))
def test_a_window_min_of_uint8_or_python_int(values, k) -> None:
    ember.reset()
    img = np.array(values, dtype=np.uint8)
    run_calls(window_min, [(img, k)], native=False)


def _python_float_calls(fn, calls, *, native=True, reruns=0):
    """`run_calls` with the Python floats passed as they are (constants of the capture);
    `reruns`: the frames that may run as Python after the loop op (where `h` ends the loop
    still the Python float, every trip having picked it)."""
    compiled = ember.compile(fn)
    for args in calls:
        want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        assert_same(compiled(*[a.copy() if isinstance(a, np.ndarray) else a for a in args]),
                    want)
    stats = ember.stats()
    if native:
        assert stats["graph_breaks"] == 0, stats["break_reasons"]
        assert stats["region_recaptures"] == 0 and not stats["backend_fallbacks"]
        assert stats["entry_fallbacks"] <= reruns


@settings(max_examples=20)
@given(st.lists(st.floats(0, 9), min_size=25, max_size=25),
       st.lists(st.booleans(), min_size=5, max_size=5))
def test_nested_branches_on_a_python_float_or_a_numpy_element(d, active) -> None:
    """`best = np.inf`, then `best = D[i, j]` in branches nested in unrolled loops: where
    the data leave `best` the Python float, the frame reruns as Python."""
    ember.reset()
    run_calls(closest_active_pairs, [(np.array(d).reshape(5, 5), np.array(active)),
                                     (np.arange(25.0).reshape(5, 5), np.zeros(5, bool))],
              native=False)


@settings(max_examples=20)
@given(st.lists(st.floats(0, 1), min_size=8, max_size=8))
def test_a_min_in_a_branch_of_a_carried_python_float(x) -> None:
    """`b = np.inf` carried, `b = min(b, x[i])` on one path (not yet a loop op: the path
    does not know where its stand-in for `b` is still the Python float)."""
    ember.reset()
    run_calls(min_in_a_branch, [(np.array(x),), (np.zeros(8),)], native=False)


@settings(max_examples=20)
@given(st.lists(st.floats(0, 5), min_size=12, max_size=12),
       st.lists(st.integers(0, 2), min_size=4, max_size=4))
def test_a_min_after_a_continue(d, labels) -> None:
    ember.reset()
    run_calls(nearest_other_cluster, [(np.array(d).reshape(4, 3), np.array(labels), 3)],
              native=False)


@settings(max_examples=20)
@given(st.lists(st.floats(0.05, 4), min_size=5, max_size=5), st.floats(1e-3, 1.0),
       st.floats(0.5, 3.0))
def test_step_control_with_a_picked_divisor(errs, tol, t_end) -> None:
    ember.reset()
    _python_float_calls(step_control, [(np.array(errs), tol, t_end)])


def test_step_control_of_zero_errors() -> None:
    """Every error zero: every trip picks the Python float 1e-16, and the frame reruns as
    Python, which leaves `h` Python's float; some zero: compiled."""
    ember.reset()
    _python_float_calls(step_control, [(np.zeros(5), 0.01, 2.0),
                                       (np.array([0.0, 1.0, 0.0, 0.0, 3.0]), 0.01, 2.0)],
                        reruns=1)


def test_step_control_with_numpy_thresholds() -> None:
    """`t_end` a NumPy float64 makes `h = t_end - t` one: still Python's results."""
    ember.reset()
    _python_float_calls(step_control, [(np.zeros(5), np.float64(0.01), np.float64(2.0)),
                                       (np.ones(5), np.float64(0.01), np.float64(2.0))],
                        native=False)


@pytest.mark.parametrize("errs", [np.zeros(4), np.array([0.5, 0.0, 2.0, 1.0]),
                                  np.array([1.0, 2.0, 3.0, 4.0])])
def test_step_control_returning_the_picked_types(errs) -> None:
    """`h` and `t` returned: their types are the data's (Python floats or NumPy float64)."""
    ember.reset()
    compiled = ember.compile(step_control_returned)
    for tol, t_end in ((0.01, 2.0), (0.5, 0.75)):
        assert_same(compiled(errs.copy(), tol, t_end), step_control_returned(errs, tol, t_end))


def test_a_divisor_that_may_be_zero_raises_as_python() -> None:
    ember.reset()
    compiled = ember.compile(divide_by_a_pick_that_may_be_zero)
    x = np.array([1.0, 2.0, 4.0])
    assert_same(compiled(x, 2.0), divide_by_a_pick_that_may_be_zero(x, 2.0))
    zero = np.array([1.0, 0.0, 4.0])  # NumPy's 0.0 picked: inf, with NumPy's warning
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        want = divide_by_a_pick_that_may_be_zero(zero, 2.0)
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        assert_same(compiled(zero, 2.0), want)
    for y in (np.array([1.0, -1.0]), np.array([-2.0])):  # Python's 0.0 picked
        with pytest.raises(ZeroDivisionError):
            divide_by_a_pick_that_may_be_zero(y, 2.0)
        with pytest.raises(ZeroDivisionError):
            compiled(y, 2.0)


@settings(max_examples=15)
@given(st.lists(st.sampled_from([-3.0, -0.5, -0.25, 0.0, 1.0, np.nan, -np.inf]), min_size=6,
                max_size=6))
def test_a_python_float_divided_by_a_min_of_a_negative_constant(x) -> None:
    ember.reset()
    _python_float_calls(divide_by_negative_picks, [(np.array(x), 2.0)])
