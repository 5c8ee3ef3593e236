"""Inner loops whose bounds are known only as wide intervals (`for k in range(i, j)` with
`j = i + length - 1`, `range(i, i + w)`): interval arithmetic puts `k` past the arrays' ends,
so the loop is compiled twice, one version without bounds checks for the trips whose first
and last `k` keep every access inside (tested once at loop entry), and one with every check,
which raises NumPy's `IndexError` at the same trip after the same stores. Checked against
NumPy on triangular DP tables (0, 1, 2 and odd sizes), descending inner loops, windows that
run off either end part-way through, and negative offsets that wrap."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_behaves_as_numpy


def chain_order(dims):
    n = len(dims) - 1
    cost = np.zeros((n, n), dtype=np.int64)
    split = np.zeros((n, n), dtype=np.int32)
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            cost[i, j] = np.iinfo(np.int64).max
            for k in range(i, j):
                c = cost[i, k] + cost[k + 1, j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i, j]:
                    cost[i, j] = c
                    split[i, j] = k
    return cost, split


def windowed_sums(a, out, w):
    n = a.shape[0]
    for i in range(n):
        for k in range(i, i + w):
            out[i] += a[k + 1]
    return out


def backwards_windows(a, out, w):
    n = a.shape[0]
    for i in range(n):
        for k in range(i + w, i - 1, -1):
            out[i] = out[i] * 0.5 + a[k - 2]
    return out


RNG = np.random.default_rng(3)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 9, 24])
def test_triangular_tables_match_numpy(n):
    assert_behaves_as_numpy(chain_order, RNG.integers(5, 50, n + 1), compiled_code=n >= 3)


@pytest.mark.parametrize("n,w", [(6, 0), (6, 1), (6, 4), (9, 8), (9, 9), (9, 30), (1, 3)])
def test_windows_running_off_the_end_raise_as_numpy(n, w):
    # From the trip where `i + w` passes the end, the checked version raises at that `k`.
    assert_behaves_as_numpy(windowed_sums, RNG.standard_normal(n), np.zeros(n), w,
                            compiled_code=w > 0)


@pytest.mark.parametrize("n,w", [(7, 0), (7, 2), (7, 5), (7, 7), (3, 12)])
def test_descending_windows_and_negative_offsets_match_numpy(n, w):
    # `a[k - 2]` wraps for k < 2 and runs off the end for k > n + 1.
    assert_behaves_as_numpy(backwards_windows, RNG.standard_normal(n), np.zeros(n), w)
