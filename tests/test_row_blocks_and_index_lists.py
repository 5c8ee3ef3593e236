"""Two things hand-written linear algebra does, against NumPy: lists of indices holding
integers the graph computes (`U[[k, p], k:] = U[[p, k], k:]`, a row swap at a pivot found by
argmax), and, inside loop bodies, 2-d slices whose rows have run-time bounds and whose columns
are the whole axis (`X[j + 1:] -= np.outer(L[j + 1:, j], X[j])`, `A[:j] -= A[j]`), with a
row of static length broadcast along them."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


def _check(fn, make, calls=2):
    """`fn` compiled against plain NumPy on `calls` inputs: results and arguments after."""
    ember.reset()
    compiled = ember.compile(fn)
    for call in range(calls):
        plain, traced = make(call), make(call)
        want = fn(*plain)
        got = compiled(*traced)
        for w, g in zip(want if isinstance(want, tuple) else (want,),
                        got if isinstance(got, tuple) else (got,), strict=True):
            assert np.asarray(g).dtype == np.asarray(w).dtype
            assert np.shape(g) == np.shape(w)
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
        for w, g in zip(plain, traced, strict=True):
            if isinstance(w, np.ndarray):
                np.testing.assert_array_equal(g, w)
    return ember.stats()


# --- index lists holding computed integers --------------------------------------------------

def swap_at_pivot(U, k):
    p = k + np.argmax(np.abs(U[k:, k]))
    U[[k, p], k:] = U[[p, k], k:]
    return U[[p, k]], p


def pick_rows(a, w):
    i = np.argmin(w)
    j = np.argmax(w)
    return a[[i, 0, j, i]].sum(axis=1), a[:, [j, i]]


def list_index_out_of_bounds(a, offsets):
    i = offsets.sum()
    return a[[0, i]]


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.integers(2, 7), st.integers(1, 6), st.integers(0, 5))
def test_row_swap_by_a_list_at_a_computed_pivot(n, m, k):
    k = min(k, n - 1)

    def make(call):
        r = np.random.default_rng([n, m, k, call])
        return r.standard_normal((n, m + k)), k

    stats = _check(swap_at_pivot, make)
    assert stats["graph_breaks"] == 0, stats["break_reasons"]


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.integers(1, 8), st.integers(1, 5))
def test_rows_and_columns_at_lists_of_computed_indices(n, m):
    def make(call):
        r = np.random.default_rng([n, m, call])
        return r.standard_normal((max(n, m), max(n, m))), r.standard_normal(max(n, m))

    stats = _check(pick_rows, make)
    assert stats["graph_breaks"] == 0, stats["break_reasons"]


@pytest.mark.parametrize("offsets", [[2, 3], [-4, -3], [1, 1]])
def test_list_index_out_of_bounds_raises_like_numpy(offsets):
    a = np.arange(12.0).reshape(6, 2)
    offsets = np.array(offsets)
    compiled = ember.compile(list_index_out_of_bounds)
    try:
        want = list_index_out_of_bounds(a, offsets)
    except IndexError:
        with pytest.raises(IndexError):
            compiled(a, offsets)
        return
    np.testing.assert_array_equal(compiled(a, offsets), want)


def test_list_of_computed_floats_or_bools_is_left_to_numpy():
    def floats(a, w):
        return a[[0, w.sum()]]

    def bools(a, w):
        return a[[w[0] > 0, w[1] > 0]]

    a, w = np.arange(6.0).reshape(3, 2), np.array([0.5, -1.5])
    for fn in (floats, bools):
        compiled = ember.compile(fn)
        try:
            want = fn(a, w)
        except IndexError as exc:
            with pytest.raises(type(exc)):
                compiled(a, w)
            continue
        np.testing.assert_array_equal(compiled(a, w), want)


# --- rows with run-time bounds of a 2-d array inside loop bodies ----------------------------

def lower_solve_many(L, B):
    X = B.copy()
    for j in range(L.shape[0]):
        X[j] /= L[j, j]
        X[j + 1:] -= np.outer(L[j + 1:, j], X[j])
    return X


def tails_with_rows(A, v):
    A = A.copy()
    for j in range(A.shape[0]):
        A[j:] *= 0.5
        A[j + 1:] += v
        A[:j] -= A[j]
        A[j:] -= A[j]
        A[j + 1:] = A[j] * 2 + A[j + 1:]
    return A


def row_tail_sums(A):
    out = np.zeros(A.shape[0])
    for j in range(A.shape[0]):
        out[j] = A[j:].sum() + A[:j].sum(axis=0)[-1]
    return out


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.sampled_from([0, 1, 2, 3, 40]), st.integers(1, 5))
def test_row_blocks_in_loop_bodies(n, m):
    def make_solve(call):
        r = np.random.default_rng([n, m, call])
        return np.tril(r.standard_normal((n, n))) + (n + 1) * np.eye(n), r.standard_normal((n, m))

    def make_tails(call):
        r = np.random.default_rng([n, m, call, 1])
        return r.standard_normal((n, m)), r.standard_normal(m)

    for fn, make in [(lower_solve_many, make_solve), (tails_with_rows, make_tails),
                     (row_tail_sums, lambda call: make_tails(call)[:1])]:
        stats = _check(fn, make)
        assert stats["graph_breaks"] == 0, (fn.__name__, stats["break_reasons"])


def test_row_of_another_length_is_not_broadcast():
    """`A[j + 1:] += v` with `v` of a length other than the columns': NumPy raises (or
    broadcasts a length-1 row); the compiled function does the same."""
    def add_row(A, v):
        A = A.copy()
        for j in range(A.shape[0]):
            A[j + 1:] += v
        return A

    A = np.ones((40, 3))
    for v in (np.arange(1.0), np.arange(3.0)):
        np.testing.assert_array_equal(ember.compile(add_row)(A, v), add_row(A, v))
    with pytest.raises(ValueError):
        add_row(A, np.arange(2.0))
    with pytest.raises(ValueError):
        ember.compile(add_row)(A, np.arange(2.0))


# --- rows at a list of loop values with run-time bounds, inside loop bodies -----------------

def pivoted_elimination(A, b):
    n = A.shape[0]
    U = A.copy()
    L = np.eye(n)
    perm = np.arange(n)
    for k in range(n - 1):
        p = k + np.argmax(np.abs(U[k:, k]))
        if p != k:
            U[[k, p], k:] = U[[p, k], k:]
            L[[k, p], :k] = L[[p, k], :k]
            perm[[k, p]] = perm[[p, k]]
        for i in range(k + 1, n):
            L[i, k] = U[i, k] / U[k, k]
            U[i, k:] -= L[i, k] * U[k, k:]
    return L, U, perm, b[perm]


def swaps_without_test(A):
    """Every trip swaps, `p == k` included (NumPy assigns the same row twice)."""
    A = A.copy()
    n = A.shape[0]
    for k in range(n):
        p = k + np.argmax(A[k:, 0])
        A[[k, p], k:] = A[[p, k], k:]
        A[k:, [0, 1]] = A[k:, [1, 0]]
        A[[p, k, p], :k] = A[[k, p, k], :k]
    return A


def swap_past_the_end(A, shift):
    A = A.copy()
    for k in range(A.shape[0]):
        p = k + shift
        A[[k, p], k:] = A[[p, k], k:]
    return A


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.sampled_from([2, 3, 5, 30]))
def test_row_swaps_at_pivots_in_loop_bodies(n):
    def make_lu(call):
        r = np.random.default_rng([n, call])
        return r.standard_normal((n, n)), r.standard_normal(n)

    def make_swaps(call):
        r = np.random.default_rng([n, call, 2])
        return (r.standard_normal((n, 3)),)

    for fn, make in [(pivoted_elimination, make_lu), (swaps_without_test, make_swaps)]:
        stats = _check(fn, make)
        # Short loops unroll (the cost rule), where a constant list assigned to is a break.
        if n >= 30 or fn is pivoted_elimination:
            assert stats["graph_breaks"] == 0, (fn.__name__, stats["break_reasons"])


@pytest.mark.parametrize("shift", [0, 1, -1, 40, -100])
def test_row_swap_out_of_bounds_raises_like_numpy(shift):
    A = np.arange(60.0).reshape(30, 2)
    compiled = ember.compile(swap_past_the_end)
    try:
        want = swap_past_the_end(A, shift)
    except IndexError:
        with pytest.raises(IndexError):
            compiled(A, shift)
        return
    np.testing.assert_array_equal(compiled(A, shift), want)
