"""Loop bodies whose branches or inner loops update arrays, compiled into one native function:
a row swap through a scratch copy under `if p != k` (partial pivoting), a row's dot product
feeding a branch that updates the vector in place (a Hopfield sweep), a short array carried
through an inner loop of run-time trips. Each is checked against NumPy at edge sizes (0, 1,
2 and odd trips, rows of more elements than are written out one by one, reversed ranges),
and the loop must run as native code, not as a graph per trip
(no whole-array statement left in its regions)."""

from __future__ import annotations

import re

import ember
import ember._core as _core
import numpy as np
import pytest
from probe_harness import assert_behaves_as_numpy


def lu_partial_pivot(A):
    A = A.copy()
    n = A.shape[0]
    perm = np.arange(n)
    for k in range(n - 1):
        p = k + np.argmax(np.abs(A[k:, k]))
        if p != k:
            tmp = A[k].copy()
            A[k] = A[p]
            A[p] = tmp
            perm[k], perm[p] = perm[p], perm[k]
        for i in range(k + 1, n):
            A[i, k] /= A[k, k]
            for j in range(k + 1, n):
                A[i, j] -= A[i, k] * A[k, j]
    return A, perm


def swap_rows_backwards(M, keys):
    M = M.copy()
    for i in range(M.shape[0] - 1, 0, -1):
        if keys[i] < keys[i - 1]:
            row = M[i].copy()
            M[i] = M[i - 1]
            M[i - 1] = row
            keys[i], keys[i - 1] = keys[i - 1], keys[i]
    return M, keys


def hopfield_sweeps(W, s, sweeps):
    s = s.copy()
    n = s.shape[0]
    for _ in range(sweeps):
        changed = 0
        for i in range(n):
            h = W[i] @ s
            new = 1.0 if h >= 0 else -1.0
            if new != s[i]:
                s[i] = new
                changed += 1
        if changed == 0:
            break
    return s


def carried_window(x, reps):
    w = np.zeros(4)
    total = 0.0
    for i in range(x.shape[0]):
        for _ in range(reps[i]):
            w[i % 4] += x[i]
        total += w.sum()
    return total, w


def _array_ops_in_regions(fn, *args) -> list[str]:
    """The whole-array statements (`full`, `copy`, `matmul`) left inside loop and branch
    regions of `fn`'s graph once optimised: none when every trip runs as native code."""
    text = str(ember.explain(fn, *args)).split("graph 0:\n", 1)[1]
    lines = []
    for line in text.splitlines():
        if not line.startswith("  "):
            break
        lines.append(line[2:])
    optimised = _core.pipeline_stages("\n".join(lines) + "\n")[-1][1]
    found, region = [], False
    for line in optimised.splitlines():
        if line.startswith("func @"):
            region = line.split("(")[0] != f"func @{fn.__name__}"
        elif region and re.search(r"= (full|copy|matmul)\(", line):
            found.append(line.strip())
    return found


RNG = np.random.default_rng(7)


@pytest.mark.parametrize("n", [1, 2, 3, 8, 13, 130])
def test_row_swaps_under_a_branch_match_numpy(n):
    A = RNG.standard_normal((n, n))
    assert_behaves_as_numpy(lu_partial_pivot, A)
    keys = RNG.integers(0, 5, n)
    assert_behaves_as_numpy(swap_rows_backwards, RNG.standard_normal((n, 5)), keys)


def test_pivoting_with_no_swap_and_ties():
    A = np.eye(6) * 3.0 + np.tril(np.ones((6, 6)))
    assert_behaves_as_numpy(lu_partial_pivot, A)
    assert_behaves_as_numpy(lu_partial_pivot, np.ones((5, 5)))  # zero pivots: inf/nan warnings


@pytest.mark.parametrize("n", [1, 2, 9, 72, 129])
def test_row_dot_feeding_an_in_place_branch_matches_numpy(n):
    pats = np.where(RNG.random((3, n)) < 0.5, -1.0, 1.0)
    W = pats.T @ pats / n
    np.fill_diagonal(W, 0.0)
    probe = pats[0].copy()
    probe[RNG.integers(0, n, max(1, n // 8))] *= -1
    assert_behaves_as_numpy(hopfield_sweeps, W, probe, 4)


def test_short_array_carried_through_run_time_inner_loops():
    x = RNG.standard_normal(11)
    for reps in (np.zeros(11, dtype=np.int64), RNG.integers(0, 4, 11)):
        assert_behaves_as_numpy(carried_window, x, reps)
    assert_behaves_as_numpy(carried_window, x[:0], np.zeros(0, dtype=np.int64))


def test_out_of_bounds_row_inside_the_branch_raises_as_numpy():
    keys = np.array([3, 1, 2])
    assert_behaves_as_numpy(swap_rows_backwards, RNG.standard_normal((4, 2)), keys)


@pytest.mark.parametrize("fn,args", [
    (lu_partial_pivot, (RNG.standard_normal((12, 12)),)),
    (hopfield_sweeps, (np.ones((40, 40)) - np.eye(40), -np.ones(40), 3)),
    (swap_rows_backwards, (RNG.standard_normal((9, 3)), RNG.integers(0, 5, 9))),
])
def test_the_loop_is_one_native_function(fn, args):
    assert _array_ops_in_regions(fn, *args) == []
