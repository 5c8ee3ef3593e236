"""`return` inside loop ops (`capture/loops/returns.py`): an early return on a loop value,
in the loop's body or an inner loop's, of Python numbers, NumPy scalars and arrays, taken on
the first trip, a later one or never; checked against NumPy (value, Python type, dtype, the
arguments afterwards) over calls whose data take each outcome, and that the frame compiled
to one native graph without a break or a recapture."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same


def run_calls(fn, calls, *, native=True):
    """Each call's result and arguments as NumPy's; with `native`, one graph for them all
    (same shapes: one compile), no break, nothing recaptured or run eagerly."""
    compiled = ember.compile(fn)
    for args in calls:
        # Thresholds as NumPy scalars: run-time values, where a Python float is a constant.
        args = [np.float64(a) if type(a) is float else a for a in args]
        want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        want = fn(*want_args)
        got = compiled(*got_args)
        assert_same(got, want)
        for g, w in zip(got_args, want_args, strict=True):
            if isinstance(w, np.ndarray):
                np.testing.assert_array_equal(g, w)
    stats = ember.stats()
    if native:
        assert stats["graph_breaks"] == 0, stats["break_reasons"]
        assert stats["compiles"] == 1, stats["recompile_reasons"]
        assert stats["region_recaptures"] == 0 and not stats["backend_fallbacks"]
    return stats


def first_above(x, t):
    for i in range(x.shape[0]):
        if x[i] > t:
            return i
    return -1


def first_value_above(x, t):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i]
        if x[i] > t:
            return x[i]
    return total


def position_in_matrix(A, t):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            if A[i, j] > t:
                return i * 100 + j
    return -1


def counted_then_returned(x, out, t):
    count = 0
    for i in range(x.shape[0]):
        out[i] = x[i] * 2.0
        count += 1
        if out[i] > t:
            return count
    return count + 1000


def bounded_steps(x, limit):
    s = np.float32(0.0)
    for i in range(x.shape[0]):
        s = s + x[i]
        if s > limit:
            return s
    return s * np.float32(2.0)


def scaled_on_negative(x):
    for i in range(x.shape[0]):
        if x[i] < 0.0:
            return x * 2.0
    return x


def _helper_search(x, t):
    for i in range(x.shape[0]):
        if x[i] > t:
            return i
    return x.shape[0]


def calls_a_returning_loop(x, t):
    return _helper_search(x, t) + 1


def row_sums_until(A, t):
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        acc = 0.0
        for j in range(A.shape[1]):
            acc += A[i, j]
        out[i] = acc
        if acc > t:
            return out
    return out


def halved_unless_found(A, t):
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        out[i] = A[i, 0] + A[i, 1]
        if out[i] > t:
            return out
    return out * 0.5


def fill_until_negative(x, out):
    for i in range(x.shape[0]):
        if x[i] < 0.0:
            return out
        out[i] = x[i] * 3.0
    return x


def halving_until(x, tol):
    for i in range(x.shape[0]):
        v = x[i] * 1.0
        while v > tol:
            v = v * 0.5
            if v < 0.01:
                return i
    return -1


def two_returning_loops(x, t):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > t:
            return s
        s += x[i]
    for i in range(x.shape[0]):
        if x[i] < -t:
            return -s
    return s * 2.0


def return_in_else_last(x, t):
    acc = 0
    for i in range(x.shape[0]):
        if x[i] < t:
            acc += 1
        else:
            return acc
    return acc


def return_in_a_nested_branch(x, t):
    n = 0
    for i in range(x.shape[0]):
        if x[i] > t:
            if x[i] > 2 * t:
                return n * 10
            n += 2
        n += 1
    return n


def continue_break_and_return(A, t):
    best = 0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            if A[i, j] < 0.2:
                continue
            if A[i, j] > t:
                break
            if A[i, j] < 0.201:
                return -1
            best += 1
    return best


def return_of_a_tuple(x, t):
    for i in range(x.shape[0]):
        if x[i] > t:
            return i, x[i]
    return -1, 0.0


def tuple_from_inner_loop(A, out, t):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            out[i] += A[i, j]
            if A[i, j] > t:
                return out, i, A[i, j] * 2.0
    return out, -1, 0.0


def _vec(values):
    return np.array(values, dtype=np.float64)


X = np.random.default_rng(0).random(20)


@pytest.mark.parametrize("t", [-1.0, 0.5, 2.0])  # first trip, a later one, never
def test_return_of_a_python_int(t) -> None:
    run_calls(first_above, [(X, t), (X, 0.9), (X, 5.0), (X, -3.0)])


def test_return_of_a_numpy_scalar_or_a_python_float_after() -> None:
    run_calls(first_value_above, [(X, 0.95), (X, 2.0), (X, -1.0), (X, 0.7)])


def test_return_in_an_inner_loop() -> None:
    A = np.random.default_rng(1).random((12, 10))
    run_calls(position_in_matrix, [(A, 0.99), (A, 2.0), (A, -1.0), (A, 0.9)])


def test_updates_before_the_return_reach_the_argument() -> None:
    x = np.random.default_rng(2).random(16)
    run_calls(counted_then_returned,
              [(x, np.zeros(16), 1.5), (x, np.zeros(16), 9.0), (x, np.zeros(16), -1.0)])


def test_return_of_a_float32_scalar() -> None:
    x = np.random.default_rng(3).random(24).astype(np.float32)
    run_calls(bounded_steps, [(x, np.float32(3.0)), (x, np.float32(100.0)),
                              (x, np.float32(-1.0))])


def test_return_from_a_loop_in_a_called_function() -> None:
    run_calls(calls_a_returning_loop, [(X, 0.9), (X, 5.0), (X, -1.0)])


def test_return_of_the_frames_array_after_inner_loops() -> None:
    A = np.random.default_rng(4).random((10, 12))
    run_calls(row_sums_until, [(A, 6.5), (A, 100.0), (A, -1.0)])


def test_return_of_an_argument_or_another_array() -> None:
    x = np.random.default_rng(5).random(14)
    y = x.copy()
    y[5] = -1.0
    run_calls(fill_until_negative, [(x, np.zeros(14)), (y, np.zeros(14)), (-x, np.ones(14))])
    # The object itself, as Python returns it.
    compiled, out = ember.compile(fill_until_negative), np.zeros(14)
    assert compiled(y, out) is out and compiled(x, out) is x


def test_array_arithmetic_after_the_loop_is_correct() -> None:
    # The rest of the frame is an `if` holding array ops, which the native core does not
    # compile in a branch: captured again without loop ops, NumPy's result all the same.
    A = np.random.default_rng(6).random((12, 3))
    run_calls(halved_unless_found, [(A, 1.5), (A, 9.0), (A, -1.0)], native=False)


def test_return_in_a_while_loop_in_a_loop_body() -> None:
    x = X * 3.0
    run_calls(halving_until, [(x, 0.05), (X, 0.5), (X * 0.0 + 0.5, 0.3)])


def test_two_loops_that_may_return() -> None:
    # The first trip may return `s` while it is still the Python float 0.0 (X[0] > 0.1):
    # no loop op keeps the two apart, so the frame steps through its loops in Python.
    run_calls(two_returning_loops, [(X, 0.9), (X, 2.0), (X - 0.5, 0.45), (X - 0.5, 0.6),
                                    (X, 0.1)], native=False)


def test_return_on_the_else_path_last_in_the_body() -> None:
    run_calls(return_in_else_last, [(X, 0.95), (X, 2.0), (X, 0.0)])


def test_return_in_a_nested_branch() -> None:
    run_calls(return_in_a_nested_branch, [(X, 0.3), (X, 0.6), (X, 2.0)])


def test_return_with_continue_and_break_in_the_same_body() -> None:
    A = np.random.default_rng(8).random((10, 12))
    A[6, 3] = 0.2005
    run_calls(continue_break_and_return, [(A, 0.9), (A, 2.0), (A * 0.5 + 0.1, 0.95)])


def test_return_of_a_tuple() -> None:
    run_calls(return_of_a_tuple, [(X, 0.9), (X, 2.0), (X, -1.0)])


def test_return_of_a_tuple_of_arrays_and_numbers_in_an_inner_loop() -> None:
    A = np.random.default_rng(9).random((8, 9))
    run_calls(tuple_from_inner_loop, [(A, np.zeros(8), 0.97), (A, np.zeros(8), 2.0)])


def test_return_of_an_array_or_the_argument_itself() -> None:
    # Returns a new array on one path, the argument object on the other: never one graph
    # value, refused as a loop op, NumPy's result all the same (identity included).
    x = _vec(np.linspace(1.0, 2.0, 12))
    y = x.copy()
    y[7] = -1.0
    compiled = ember.compile(scaled_on_negative)
    assert compiled(x) is x
    assert_same(compiled(y), scaled_on_negative(y))


def return_in_a_while_of_an_and_test(a, b, m):
    k = 0
    while k < len(a) and b[k] > 0:
        k += 1
        if a[k - 1] != 0:
            return m, a
    return (1,)


@pytest.mark.parametrize("a, b", [
    (np.zeros(20), np.ones(20)),                      # runs to the end, returns after it
    (np.arange(20.0), np.ones(20)),                   # returns on the first trip
    (np.zeros(20), np.zeros(20)),                     # never enters
    (np.r_[0.0, 0, 0, 1, np.zeros(16)], np.r_[1.0, 1, 1, 1, 0, np.ones(15)]),
    (np.r_[0.0, 0, 0, 1, np.zeros(16)], np.r_[1.0, 1, 1, 0, 0, np.ones(15)]),
])
def test_a_return_in_a_while_of_an_and_test(a, b):
    # The loop op that may return is on a path of the frame-level branch of the first test:
    # the rest of the frame, traced after it to its return, ends that path at the return.
    m = np.ones((3, 4))
    want = return_in_a_while_of_an_and_test(a, b, m)
    ember.reset()
    got = ember.compile(return_in_a_while_of_an_and_test)(a, b, m)
    assert_same(got, want)
    if len(want) == 2:
        assert got[0] is m and got[1] is a
