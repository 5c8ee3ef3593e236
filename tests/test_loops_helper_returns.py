"""Functions called from a loop body that branch on a loop value and return on each path
(`capture/loops/returns.py`): each path runs to its RETURN_VALUE and the returned values
merge as an `if` op's result. Several returns, early returns, branches that meet before one
return, nested calls; against NumPy over data taking every path, compiled to one native
graph without a break. A function whose paths return values of different types refuses and
still gives NumPy's result."""

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
