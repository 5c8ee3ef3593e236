"""Loads hoisted out of native loops (`rust/codegen/src/native/invariant.rs`): an element of
an array the loop does not carry, at indices computed from loop-invariant ints (`values[k]`
in a loop over `c`, `s[i - 1]` in a loop over `j`), is loaded once before the loop. Against
plain Python with NumPy: the values, the arrays updated in place, `IndexError` raised at the
same iteration (after the same stores) where the index is out of bounds, no error where the
loop makes no trip or the access is never reached, negative indices, bool and narrow dtypes;
and the overflow warnings of integer scalar math in such loops (their deferred flag now lives
in memory). Every kernel runs as compiled native code (no break, no fallback)."""

from __future__ import annotations

import copy

import ember
import numpy as np
import pytest
from fp_harness import observe
from hypothesis import given, settings
from hypothesis import strategies as st


def _outcome(fn, args):
    """`(result or exception type, the arguments after the call)`."""
    args = copy.deepcopy(args)
    try:
        result = fn(*args)
    except IndexError as exc:
        result = type(exc)
    return result, args


def _same(got, want):
    if isinstance(want, type):
        assert got is want
        return
    if isinstance(want, (tuple, list)):
        assert isinstance(got, type(want)) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray) and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        return
    assert type(got) is type(want), (type(got), type(want))
    assert got == want or (got != got and want != want)


def check(fn, *args, native=True):
    """`fn` compiled gives plain Python's outcome on a first and a second call; with
    `native`, the second call ran the compiled code (no break, no rerun as Python)."""
    ember.reset()
    compiled = ember.compile(fn)
    want = _outcome(fn, args)
    got = _outcome(compiled, args)
    _same(got, want)
    first = ember.stats()
    got = _outcome(compiled, args)
    _same(got, want)
    stats = ember.stats()
    if native:
        assert stats["graph_breaks"] == 0, stats["break_reasons"]
        assert stats["backend_fallbacks"] == {}, stats["backend_fallbacks"]
        if not isinstance(want[0], type):
            assert stats["entry_fallbacks"] == first["entry_fallbacks"]


def knapsack(weights, values, capacity):
    best = np.zeros(capacity + 1)
    for k in range(len(weights)):
        wk = weights[k]
        for c in range(capacity, wk - 1, -1):
            cand = best[c - wk] + values[k]
            if cand > best[c]:
                best[c] = cand
    return best


def edit_distance(s, t):
    n, m = len(s), len(t)
    d = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        d[i, 0] = i
    for j in range(m + 1):
        d[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if s[i - 1] == t[j - 1] else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
    return d


def test_knapsack_values_invariant_in_inner_loop():
    rng = np.random.default_rng(1)
    check(knapsack, rng.integers(1, 10, 40), rng.random(40), 90)


def test_edit_distance_row_element_invariant_in_inner_loop():
    rng = np.random.default_rng(2)
    check(edit_distance, rng.integers(0, 4, 30), rng.integers(0, 4, 25))


def offset_rows(a, rows, ks):
    """`a[k]` and `a[k - 1]` invariant in the loop over `j`; `k`, read from the data (so
    capture cannot see it), may be out of bounds."""
    k = ks[0]
    out = np.zeros((rows, a.shape[0]))
    for i in range(rows):
        for j in range(a.shape[0]):
            out[i, j] = a[j] * a[k] + a[k - 1] * i
    return out


@pytest.mark.parametrize("k", [0, 1, 7, 19, -1, -20, 20, 25, -21])
def test_index_in_and_out_of_bounds(k):
    a = np.linspace(-1.0, 2.0, 20)
    check(offset_rows, a, 6, np.array([k]))


def reached_late(out, b, ks):
    """The invariant load stands behind a branch taken from the fourth trip on: an index out
    of bounds raises there, after three stores into `out`."""
    k = ks[0]
    for i in range(out.shape[0]):
        if i >= 3:
            out[i] = b[k] + i
        else:
            out[i] = -i
    return out


@pytest.mark.parametrize("k", [0, 4, -5, 5, 9, -6])
def test_error_at_the_iteration_that_reaches_the_access(k):
    check(reached_late, np.zeros(12), np.arange(5.0), np.array([k]))


def never_reached(b, ks, n):
    """No trip, or a branch never taken: the out-of-bounds element is never read."""
    k = ks[0]
    out = np.zeros(3)
    for i in range(n):
        if i < 0:
            out[0] += b[k]
        out[1] += i
    for j in range(n - 10):
        out[2] += b[k]
    return out


@pytest.mark.parametrize("k", [0, 3, 50, -50])
def test_no_error_where_the_access_never_runs(k):
    check(never_reached, np.arange(4.0), np.array([k]), 9)


def flags_and_narrow(mask, x, ks):
    k = ks[0]
    count = 0
    total = np.int32(0)
    for i in range(x.shape[0]):
        if mask[k]:
            count += 1
        total = total + x[k - 1] * x[i]
    return count, total


@pytest.mark.parametrize("k", [0, 3, 9, -10, 10])
def test_bool_and_int32_arrays(k):
    mask = np.arange(10) % 3 == 0
    x = np.arange(-5, 5, dtype=np.int32)
    check(flags_and_narrow, mask, x, np.array([k]))


def strided_rows(A, rs):
    """Loads from a transposed (strided) view, the row invariant in the inner loop."""
    r = rs[0]
    B = A.T
    out = np.zeros(B.shape[1])
    for j in range(B.shape[1]):
        acc = 0.0
        for q in range(B.shape[1]):
            acc += B[r, q] * B[r, j]
        out[j] = acc
    return out


@pytest.mark.parametrize("r", [0, 2, -1, 3, 4, -5])
def test_strided_view(r):
    A = np.arange(20.0).reshape(5, 4)
    check(strided_rows, A, np.array([r]))


def steps(x, n):
    """`x[i] + 1` on NumPy int64 scalars in a loop over the invariant `x[0]`: NumPy warns of
    the overflow, once per overflowing add."""
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        out[i] = x[0] + 1 + x[i % 2]
    return out


@pytest.mark.parametrize("errstate", [{}, {"over": "raise"}, {"all": "ignore"}])
@pytest.mark.parametrize("first", [0, 2**62, np.iinfo(np.int64).max])
def test_overflow_warnings_as_numpy(first, errstate):
    x = np.array([first, 5], dtype=np.int64)
    ember.reset()
    compiled = ember.compile(steps)
    for _ in range(2):
        want, want_warnings = observe(steps, (x, 40), **errstate)
        got, got_warnings = observe(compiled, (x, 40), **errstate)
        assert got_warnings == want_warnings
        if isinstance(want, Exception):
            assert type(got) is type(want)
        else:
            np.testing.assert_array_equal(got, want)


def dp_table(a, b, ks, m):
    """A DP table whose inner loop reads `a[i - 1]`, `b[k]` and the row above."""
    k = ks[0]
    n = a.shape[0]
    T = np.zeros((n + 1, m + 1))
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            T[i, j] = max(T[i - 1, j], T[i, j - 1] + a[i - 1] * b[k] - j)
    return T


@settings(derandomize=True, deadline=None, max_examples=30)
@given(n=st.integers(0, 12), m=st.integers(0, 12), k=st.integers(-8, 8),
       seed=st.integers(0, 2**16))
def test_dp_table_random(n, m, k, seed):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=n), rng.normal(size=5)
    check(dp_table, a, b, np.array([k]), m, native=False)
