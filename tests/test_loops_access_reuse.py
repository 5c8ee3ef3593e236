"""Native loop code reuses what it already knows about an element access: an index checked
against an axis length is not checked again against that length where the check dominates
(`cols[row]`, `d1[row]`, `d2[row]` of one length), and a load of an element stored earlier on
the same path, with no other store into that array between, is the stored value (as memory
would give it back: cast to the array's dtype, a bool normalised). Checked against plain
Python/NumPy: values, dtypes, the arrays mutated, and `IndexError` where an index is out of
range for one array but not for another of the same index."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st


def copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def run_both(fn, *args):
    want_args, got_args = copies(args), copies(args)
    try:
        want = fn(*want_args)
    except IndexError:
        want = IndexError
    ember.reset()
    compiled = ember.compile(fn)
    if want is IndexError:
        with pytest.raises(IndexError):
            compiled(*got_args)
    else:
        got = compiled(*got_args)
        assert_same(got, want, rtol=0, atol=0)
    for g, w in zip(got_args, want_args, strict=True):
        if isinstance(w, np.ndarray):
            np.testing.assert_array_equal(g, w)
    assert ember.stats()["graph_breaks"] == 0


def n_queens(n):
    cols = np.zeros(n + 1, dtype=np.int64)
    d1 = np.zeros(n + 1, dtype=np.int64)
    d2 = np.zeros(n + 1, dtype=np.int64)
    avail = np.zeros(n + 1, dtype=np.int64)
    full = (1 << n) - 1
    row = 0
    avail[0] = full
    count = 0
    while row >= 0:
        if avail[row] == 0:
            row -= 1
            continue
        bit = avail[row] & -avail[row]
        avail[row] ^= bit
        if row == n - 1:
            count += 1
            continue
        cols[row + 1] = cols[row] | bit
        d1[row + 1] = ((d1[row] | bit) << 1) & full
        d2[row + 1] = (d2[row] | bit) >> 1
        avail[row + 1] = full & ~(cols[row + 1] | d1[row + 1] | d2[row + 1])
        row += 1
    return count


@pytest.mark.parametrize("n", [1, 4, 5, 6, 8])
def test_one_index_into_several_arrays_counts_queens(n):
    run_both(n_queens, n)


def gather_two(a, b, idx):
    s = 0.0
    out = np.zeros(idx.shape[0])
    for k in range(idx.shape[0]):
        i = idx[k]
        out[k] = a[i] * 2.0
        s += a[i] + b[i]
    return s, out


def gather_two_lengths(a, b, idx):
    out = np.zeros(idx.shape[0])
    for k in range(idx.shape[0]):
        i = idx[k]
        out[k] = a[i]
        out[k] += b[i]
    return out


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.lists(st.integers(-8, 7), min_size=1, max_size=12))
def test_an_index_checked_for_one_array_is_checked_for_another_of_that_length(indices):
    rng = np.random.default_rng(len(indices))
    a, b = rng.standard_normal(8), rng.standard_normal(8)
    run_both(gather_two, a, b, np.array(indices, dtype=np.int64))


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.lists(st.integers(-8, 7), min_size=1, max_size=12))
def test_an_index_in_range_of_one_length_is_still_checked_against_another(indices):
    # b is shorter: an index past its end raises IndexError after the stores before it.
    rng = np.random.default_rng(len(indices))
    a, b = rng.standard_normal(8), rng.standard_normal(5)
    run_both(gather_two_lengths, a, b, np.array(indices, dtype=np.int64))


def table_neighbours(t, rows, cols):
    s = 0
    for k in range(rows.shape[0]):
        i, j = rows[k], cols[k]
        s += t[i, j] + t[i, j - 1] + t[i - 1, j] + t[i - 1, j - 1]
    return s


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(-6, 6), st.integers(-7, 7)), min_size=1, max_size=10))
def test_neighbours_in_a_table_share_their_axis_checks(pairs):
    t = np.arange(6 * 7, dtype=np.int64).reshape(6, 7) * 3 - 50
    rows = np.array([p[0] for p in pairs], dtype=np.int64)
    cols = np.array([p[1] for p in pairs], dtype=np.int64)
    run_both(table_neighbours, t, rows, cols)


def store_then_read(x, idx, y):
    t = 0.0
    for k in range(idx.shape[0]):
        i = idx[k]
        y[i] = x[k] * 3.5 + 1.25
        t += y[i]
        y[i - 1] = y[i] + 1
        t -= y[i]
    return y, t


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32, np.uint8,
                                   np.int16, np.bool_])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_stored_element_reads_back_as_memory_holds_it(dtype, seed):
    rng = np.random.default_rng(seed)
    n = 9
    x = rng.uniform(0, 60, 14).round(2)
    x[::4] = 0.0  # zeros stored into a bool array read back False
    idx = rng.integers(-n + 1, n, 14)
    run_both(store_then_read, x, idx, np.zeros(n, dtype=dtype))


def store_read_other_index(y, idx, jdx, v):
    acc = 0.0
    for k in range(idx.shape[0]):
        y[idx[k]] = v[k]
        acc = acc * 0.5 + y[jdx[k]]
        y[jdx[k]] = acc
        acc += y[idx[k]]
    return acc


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=12))
def test_a_store_is_seen_through_another_index_naming_the_same_element(pairs):
    # idx[k] and jdx[k] are equal on some trips: the loads must see the last store.
    idx = np.array([p[0] for p in pairs], dtype=np.int64)
    jdx = np.array([p[1] for p in pairs], dtype=np.int64)
    v = np.linspace(-1.0, 2.0, len(pairs))
    run_both(store_read_other_index, np.zeros(6), idx, jdx, v)


def store_in_branch_then_read(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            y[i] = x[i] * 2.0
        s += y[i]
        y[i] = s
        s += y[i] * 0.25
    return s


@pytest.mark.parametrize("seed", [0, 1])
def test_a_store_on_one_side_of_a_branch_is_read_back_after_it(seed):
    x = np.random.default_rng(seed).random(30)
    run_both(store_in_branch_then_read, x, np.full(30, -1.0))


def two_tables(a, b, idx):
    for k in range(idx.shape[0]):
        i = idx[k]
        a[i] = a[i] + k
        b[i] = a[i] * 2
        a[i] = b[i] - a[i]
    return a.sum() + b.sum()


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.lists(st.integers(-7, 6), min_size=1, max_size=15))
def test_stores_into_two_arrays_at_one_index(indices):
    a = np.arange(7, dtype=np.int64)
    b = np.zeros(7, dtype=np.int64)
    run_both(two_tables, a, b, np.array(indices, dtype=np.int64))
