"""Indices picked by a search whose loops capture unrolls (a pivot search over a small
matrix): each trip's `if` passes the index on or replaces it, so the value that reaches the
next loop is a chain of dozens of `if`s. Native code works out the range of such an index
(`rust/codegen/src/native/carried.rs`) following each `if` operand once: against NumPy, with
compile time and memory that grow with the chain, not with its number of paths."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_behaves_as_numpy
from user_kernels_ported import gaussj_inverse


def full_pivot_rows(a):
    """Gauss-Jordan with full pivoting, C style: irow/icol set in nested ifs of a search."""
    a = a.copy()
    n = a.shape[0]
    used = np.zeros(n, dtype=np.int64)
    order = np.zeros(n, dtype=np.int64)
    irow = icol = 0
    for i in range(n):
        big = 0.0
        for j in range(n):
            if used[j] == 0:
                for k in range(n):
                    if used[k] == 0 and abs(a[j, k]) >= big:
                        big = abs(a[j, k])
                        irow = j
                        icol = k
        used[icol] = 1
        order[i] = irow * n + icol
        a[irow, :] = a[irow, :] / a[irow, icol]
    return a, order


def largest_entry(a):
    """The row and column of the largest entry, then a read at them."""
    best = a[0, 0]
    r = c = 0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] > best:
                best = a[i, j]
                r = i
                c = j
    return r, c, a[r, c] - a[r, :].mean()


def two_runners_up(x):
    """Two indices updated on either side of an if/elif chain, read after the search."""
    first = second = 0
    for k in range(x.shape[0]):
        if x[k] > x[first]:
            second = first
            first = k
        elif x[k] > x[second] or second == first:
            second = k
    return first, second, x[first] - x[second]


@pytest.mark.parametrize("n", [6, 9])
def test_full_pivot_search_chain(n):
    rng = np.random.default_rng(n)
    assert_behaves_as_numpy(full_pivot_rows, rng.random((n, n)) + np.eye(n))


@pytest.mark.parametrize("shape", [(7, 7), (4, 12)])
def test_largest_entry_chain(shape):
    assert_behaves_as_numpy(largest_entry, np.random.default_rng(1).standard_normal(shape))


def test_two_runners_up_chain():
    assert_behaves_as_numpy(two_runners_up, np.random.default_rng(2).random(40))


def test_gaussj_full_pivoting_on_one_based_arrays():
    """Numerical Recipes' gaussj (took 2^36 steps and all memory to compile on 6x6)."""
    rng = np.random.default_rng(3)
    assert_behaves_as_numpy(gaussj_inverse, rng.random((6, 6)), rng.random((6, 2)),
                            compiled_code=False)
