"""Functions called from a loop body that branch on a loop value and return on each path
(`capture/loops/returns.py`): each path runs to its RETURN_VALUE and the returned values
merge as an `if` op's result. Several returns, early returns, branches that meet before one
return, nested calls; against NumPy over data taking every path, compiled to one native
graph without a break. A function whose paths return values of different types refuses and
still gives NumPy's result, except a Python number on one path and a NumPy scalar of its dtype
on the other: a choice that an operator with an array or NumPy scalar settles where NumPy's
result is the same for both."""

from __future__ import annotations

import numpy as np
import pytest
from test_loops_returns import run_calls


def pair_score(b1, b2):
    if b1 + b2 == 3:
        return 1
    else:
        return 0


def sign(v):
    if v > 0:
        return 1
    if v < 0:
        return -1
    return 0


def gap(a, b):
    if a > b:
        return a - b
    d = b - a
    return d * 0.5


def magnitude(v):
    if v >= 0.0:
        r = v
    else:
        r = -v
    return r


def scaled_gap(a, b):
    return gap(a, b) * 2.0 + magnitude(a - 0.5)


def banded(v, lo, hi):
    if v < lo:
        return lo
    elif v > hi:
        if v > 2.0 * hi:
            return 2.0 * hi
        return hi
    return v


def pair_table(seq):
    n = seq.shape[0]
    table = np.zeros((n, n), np.int32)
    for i in range(n):
        for j in range(n):
            table[i, j] = table[i, j] + pair_score(seq[i], seq[j])
    return table


def sign_counts(x):
    total = 0
    for i in range(x.shape[0]):
        total += sign(x[i])
    return total


def gaps(x, y):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = scaled_gap(x[i], y[i])
    return out


def clipped(x, lo, hi):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = banded(x[i], lo, hi)
    return out


def mixed_kinds(v):
    if v > 0.5:
        return 1
    return v


def mixed_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += mixed_kinds(x[i])
    return s


def soft_threshold(z, t):
    if z > t:
        return z - t
    if z < -t:
        return z + t
    return 0.0


def shrunk(x, scale, t):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = soft_threshold(x[i], t) / scale[i]
    return out


def shrunk_f32(x, y, t):
    out = np.zeros(y.shape[0])
    for i in range(x.shape[0]):
        out += (soft_threshold(x[i], t) * y).astype(np.float64)
    return out


def shrunk_sum(x, t):
    return soft_threshold(x.sum(), t)


def clamp_index(k):
    if k > 0:
        return k - 1
    return 0


def shifted(idx, w):
    out = np.zeros(idx.shape[0], np.int64)
    for i in range(idx.shape[0]):
        out[i] = clamp_index(idx[i]) * w[i]
    return out


RNG = np.random.default_rng(7)


def test_both_returns_of_a_function_in_a_nested_loop() -> None:
    run_calls(pair_table, [(RNG.integers(0, 4, 14).astype(np.int32),)
                           for _ in range(3)])


def test_early_returns_of_python_ints() -> None:
    x = RNG.integers(-3, 4, 30)
    run_calls(sign_counts, [(x,), (np.abs(x) + 1,), (-np.abs(x) - 1,), (np.zeros(30, int),)])


def test_nested_calls_and_a_branch_that_meets_before_its_return() -> None:
    run_calls(gaps, [(RNG.random(20), RNG.random(20)) for _ in range(3)])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_returns_of_arguments_of_the_function_nested(dtype) -> None:
    lo, hi = dtype(0.25), dtype(0.6)
    run_calls(clipped, [((RNG.random(24) * 1.5).astype(dtype), lo, hi) for _ in range(3)])


def test_a_python_number_or_a_numpy_scalar_returned_is_refused_and_right() -> None:
    run_calls(mixed_sum, [(RNG.random(20),), (RNG.random(20) * 0.4,)], native=False)


def test_a_python_number_or_a_numpy_scalar_settled_by_an_array_operand() -> None:
    """`soft_threshold(x[i], t) / scale[i]`: the NumPy scalar operand makes `0.0 / s` and
    `np.float64(0.0) / s` one result, so the returns merge and the loop stays native."""
    calls = [(RNG.standard_normal(30), RNG.random(30) + 0.5, 0.4) for _ in range(3)]
    run_calls(shrunk, calls + [(np.zeros(30), np.ones(30), 0.4)])


def test_a_python_int_or_a_numpy_int_settled_by_an_array_operand() -> None:
    run_calls(shifted, [(RNG.integers(-3, 4, 25), RNG.integers(-5, 5, 25)) for _ in range(3)])


def test_a_choice_a_float32_operand_cannot_settle_is_refused_and_right() -> None:
    """`0.0 * y32` is float32 where `np.float64(0.0) * y32` is float64: no merge."""
    x = np.array([0.1, 2.0, -3.0, 0.2])
    stats = run_calls(shrunk_f32, [(x, RNG.random(5).astype(np.float32), 0.5)], native=False)
    assert stats["graph_breaks"] >= 1


@pytest.mark.parametrize("data", [[0.1, 0.2], [3.0, 1.0], [-4.0, 0.5]])
def test_a_choice_returned_by_the_frame_keeps_each_sides_type(data) -> None:
    run_calls(shrunk_sum, [(np.array(data), 1.0)], native=False)
