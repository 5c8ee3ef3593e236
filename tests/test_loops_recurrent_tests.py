"""Branches inside native loops whose test reads a value the branch itself carries to the next
iteration (a running minimum, an argmin scan, a best-so-far with its index): they stay
branches rather than selects, and must give NumPy's values, stores and errors on every trip
count, ties, NaNs, negative steps, several carried values, and an index that leaves the
array at the same iteration as in Python, after the same stores."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st

SIZES = [1, 2, 3, 7, 8, 31, 64]


def outcome(fn, args):
    try:
        return fn(*args), None
    except Exception as e:  # noqa: BLE001 - the exception itself is compared
        return None, e


def run_both(fn, *args):
    """`fn` compiled to one graph gives what it gives in Python: result or exception (type and
    message), and the same contents of every array argument afterwards."""
    want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want, want_error = outcome(fn, want_args)
    ember.reset()
    got, got_error = outcome(ember.compile(fn), got_args)
    if want_error is not None:
        assert type(got_error) is type(want_error) and str(got_error) == str(want_error)
    else:
        assert got_error is None, got_error
        assert_same(got, want)
    for g, w in zip(got_args, want_args, strict=True):
        if isinstance(w, np.ndarray):
            np.testing.assert_array_equal(g, w)
    stats = ember.stats()
    assert not stats["backend_fallbacks"], stats
    if want_error is None:
        assert stats["graph_breaks"] == 0, stats["break_reasons"]
    return got


def argmin_scan(a):
    best = 0
    for j in range(1, a.shape[0]):
        if a[j] < a[best]:
            best = j
    return best


def min_with_index(a):
    m = a[0]
    k = 0
    for j in range(a.shape[0]):
        if a[j] <= m:
            m = a[j]
            k = j
    return m, k


def argmax_backwards(a):
    n = len(a)
    best = n - 1
    for j in range(n - 2, -1, -1):
        if a[j] > a[best]:
            best = j
    return best


def selection_sort_desc(a):
    n = len(a)
    for i in range(n):
        top = i
        for j in range(n - 1, i, -1):
            if a[j] > a[top]:
                top = j
        a[i], a[top] = a[top], a[i]
    return a


def nearest_unvisited(dist, visited):
    order = np.zeros(dist.shape[0], dtype=np.int64)
    for step in range(dist.shape[0]):
        u = -1
        low = np.inf
        for v in range(dist.shape[0]):
            if not visited[v] and dist[v] < low:
                low = dist[v]
                u = v
        if u == -1:
            break
        visited[u] = True
        order[step] = u
    return order


def bouncing_walk(a):
    # A recurrence the data does not make predictable: correct either way.
    x = 0
    for i in range(a.shape[0]):
        if x < a[i]:
            x = x + a[i]
        else:
            x = x - 3
    return x


def jumping_argmax(a, shift, out):
    best = 0
    for j in range(a.shape[0]):
        out[j] = a[best]
        if a[j] > a[best]:
            best = j + shift
    return best


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64])
def test_scans_match_numpy(n, dtype):
    rng = np.random.default_rng(n)
    a = (rng.random(n) * 20 - 10).astype(dtype)
    for fn in (argmin_scan, min_with_index, argmax_backwards, selection_sort_desc):
        run_both(fn, a)
    # Ties: the first (or last, scanning down) of equal values wins, as in Python.
    ties = np.repeat(np.array([3, 1, 1, 5], dtype=dtype), n)
    for fn in (argmin_scan, min_with_index, argmax_backwards, selection_sort_desc):
        run_both(fn, ties)


@pytest.mark.parametrize("fn", [argmin_scan, min_with_index, argmax_backwards,
                                selection_sort_desc])
def test_scans_with_nans(fn):
    a = np.array([2.0, np.nan, -1.0, np.nan, -1.0, 4.0, -3.5])
    run_both(fn, a)
    run_both(fn, a[::-1].copy())
    run_both(fn, np.array([np.nan, 1.0, 0.0]))


def test_empty_input_raises_as_numpy():
    run_both(min_with_index, np.zeros(0))
    run_both(argmin_scan, np.zeros(0))


@pytest.mark.parametrize("n", [0, 1, 5, 16])
def test_nearest_unvisited_with_break(n):
    rng = np.random.default_rng(n)
    dist = rng.random(n)
    dist[::3] = np.inf
    visited = rng.random(n) < 0.3
    run_both(nearest_unvisited, dist, visited)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.integers(-50, 50), min_size=0, max_size=40))
def test_bouncing_walk(values):
    run_both(bouncing_walk, np.array(values, dtype=np.int64))


@pytest.mark.parametrize("shift", [0, 1, 2, 5, -1, -9])
@pytest.mark.parametrize("data", [[1, 5, 2, 8, 3, 0, 9], [9, 1, 0], [0, 1, 2, 3, 4, 5, 6]])
def test_index_leaving_the_array_raises_at_the_same_iteration(shift, data):
    a = np.array(data, dtype=np.float64)
    out = np.full(a.shape[0], -1.0)
    run_both(jumping_argmax, a, shift, out)


def lower_bound(a, x):
    lo, hi = 0, a.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def row_argmins(m):
    out = np.zeros(m.shape[0], dtype=np.int64)
    for r in range(m.shape[0]):
        best = 0
        for c in range(1, m.shape[1]):
            if m[r, c] < m[r, best]:
                best = c
        out[r] = best
    return out


@pytest.mark.parametrize("n", [0, 1, 2, 9, 64])
def test_binary_search_on_a_while(n):
    a = np.sort(np.random.default_rng(n).integers(-20, 20, n))
    for x in (-30, -3, 0, 7, 30):
        run_both(lower_bound, a, x)


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (8, 2), (5, 33)])
def test_row_argmins_in_every_layout(shape):
    m = np.random.default_rng(shape[1]).integers(-9, 9, shape).astype(np.int32)
    run_both(row_argmins, m)
    run_both(row_argmins, np.asfortranarray(m))
    wide = np.random.default_rng(1).random((shape[0], 2 * shape[1]))
    run_both(row_argmins, wide[:, ::2])
    run_both(row_argmins, wide[::-1, 1::2])
