"""`continue` on a loop value inside a `while c:` loop that is a loop op (`body.
_in_while_test`, `whiles.first_test_again`): CPython jumps back to the first test, which the
path runs again as the trip's `go`. Loops of the frame whose first test is a Python value
(`while row >= 0`), `while` loops inside `for` loop ops, `and` tests, a `break` beside the
`continue`, nested `continue`s, loops of no trips; int and float data; against plain NumPy
(values, types, warnings, the arguments afterwards), compiled without a break."""

from __future__ import annotations

import numpy as np
import pytest
from test_loops_first_assigned import check
from user_kernels_bits import n_queens


def skip_nans(x):
    i = 0
    total = 0.0
    count = 0
    while i < x.shape[0]:
        v = x[i]
        i += 1
        if np.isnan(v):
            continue
        total += v
        count += 1
    return total, count


def skip_negative_rows(X, limits):
    out = np.zeros(X.shape[0])
    for r in range(X.shape[0]):
        j = 0
        acc = 0.0
        while j < limits[r]:
            j += 1
            if X[r, j - 1] < 0:
                continue
            acc += X[r, j - 1]
        out[r] = acc
    return out


def until_budget(x, budget):
    k = 0
    spent = 0.0
    kept = 0
    while k < x.shape[0] and spent < budget:
        k += 1
        if x[k - 1] > 0.5:
            continue
        if x[k - 1] < -0.9:
            break
        spent += abs(x[k - 1])
        kept += 1
    return spent, kept, k


def two_continues(a):
    i = 0
    evens = 0
    big = 0
    while i < a.shape[0]:
        v = a[i]
        i += 1
        if v % 2 == 0:
            evens += 1
            continue
        if v > 50:
            big += 1
            continue
        a[i - 1] = -v
    return evens, big


def countdown(x, start):
    t = start
    hits = 0
    while t > 0:
        t -= 1
        if x[t % x.shape[0]] < 0:
            continue
        hits += 1
    return hits, t


def _data(seed, *shape):
    return np.random.default_rng(seed).uniform(-1.0, 1.0, shape)


@pytest.mark.parametrize("n", [4, 6, 7])
def test_queens_backtracking(n):
    check(n_queens, [(n,)])


def test_continue_past_nans():
    x = _data(0, 40)
    x[::3] = np.nan
    check(skip_nans, [(x,), (np.full(5, np.nan),), (np.zeros(0),)])


def test_while_in_a_for_loop_op():
    X = _data(1, 6, 10)
    check(skip_negative_rows, [(X, np.array([10, 0, 3, 7, 10, 1]))])


def test_and_test_with_a_break():
    x = _data(2, 50)
    check(until_budget, [(x, 3.0), (x, 0.0), (np.full(4, 0.9), 1.0)])


def test_two_continues_and_an_argument_written():
    a = np.random.default_rng(3).integers(0, 100, 40)
    check(two_continues, [(a,), (a[:0],)])


def test_countdown_from_an_int_argument():
    x = _data(4, 13)
    check(countdown, [(x, 30), (x, 0), (x, -3)])
