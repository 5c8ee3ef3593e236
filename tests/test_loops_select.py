"""Branches inside native loops that run as straight-line code (both sides computed, results
picked, stores made with the element's new or old value): the same values, stores and errors
as NumPy on data that takes both sides, stores in one side only, stores to elements the other
side also touches, floats with NaNs, and branches that must stay branches (a division that
would warn, an index that needs its bounds check)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st


def run_both(fn, *args):
    want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = fn(*want_args)
    ember.reset()
    got = ember.compile(fn)(*got_args)
    assert_same(got, want)
    for g, w in zip(got_args, want_args, strict=True):
        if isinstance(w, np.ndarray):
            np.testing.assert_array_equal(g, w)
    assert ember.stats()["graph_breaks"] == 0
    return got


def lcs_table(a, b, dtype):
    n, m = a.shape[0], b.shape[0]
    T = np.zeros((n + 1, m + 1), dtype=dtype)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                T[i, j] = T[i - 1, j - 1] + 1
            else:
                T[i, j] = max(T[i - 1, j], T[i, j - 1])
    return T


def keep_positive(x):
    out = np.full(x.shape[0], -1.0)
    for i in range(x.shape[0]):
        if x[i] > 0:
            out[i] = x[i]
    return out


def mirror_stores(flags):
    n = flags.shape[0]
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        if flags[i]:
            out[i] = out[n - 1 - i] + 1
        else:
            out[n - 1 - i] = out[i] + 2
    return out


def larger_or_nan(x, y):
    s = 0.0
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        if x[i] > y[i]:
            v = x[i]
        else:
            v = y[i]
        out[i] = v
        s += v
    return out, s


def mark(x):
    flags = np.zeros(x.shape[0], dtype=np.bool_)
    count = 0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            flags[i] = True
            count += 1
        else:
            count -= 1
    return flags, count


def safe_ratio(x, y):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        if y[i] != 0:
            out[i] = x[i] / y[i]
    return out


def gather_where(mask, idx, x):
    s = 0.0
    for i in range(mask.shape[0]):
        if mask[i]:
            s += x[idx[i]]
    return s


def both_sides_store_twice(x):
    out = np.zeros((2, x.shape[0]))
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            out[0, i] = x[i]
            out[1, i] = 1.0
        else:
            out[1, i] = 2.0
            out[0, i] = -x[i]
    return out


@settings(max_examples=12, deadline=None, derandomize=True)
@given(n=st.integers(9, 30), m=st.integers(9, 30), k=st.integers(1, 4),
       dtype=st.sampled_from([np.int32, np.int64]), seed=st.integers(0, 2**16))
def test_dp_table_with_a_data_branch(n, m, k, dtype, seed) -> None:
    rng = np.random.default_rng(seed)
    run_both(lcs_table, rng.integers(0, k, n), rng.integers(0, k, m), dtype)


@pytest.mark.parametrize("n", [9, 17])
def test_a_store_in_one_side_keeps_the_old_element_otherwise(n) -> None:
    run_both(keep_positive, np.random.default_rng(n).standard_normal(n))


@settings(max_examples=10, deadline=None, derandomize=True)
@given(flags=st.lists(st.booleans(), min_size=9, max_size=25))
def test_each_side_stores_an_element_the_other_reads(flags) -> None:
    run_both(mirror_stores, np.array(flags))


def test_float_picks_follow_python_comparisons_with_nans() -> None:
    x = np.array([1.0, np.nan, 3.0, -0.0, np.inf, 2.0, 5.0, -1.0, 0.0, 7.0])
    y = np.array([2.0, 1.0, np.nan, 0.0, np.nan, -np.inf, 5.0, 1.0, -0.0, np.nan])
    run_both(larger_or_nan, x, y)


def test_bool_stores_and_an_int_count() -> None:
    run_both(mark, np.random.default_rng(3).random(40))


def test_stores_in_different_orders_on_each_side() -> None:
    run_both(both_sides_store_twice, np.random.default_rng(4).random(30))


def test_a_division_guarded_by_the_branch_sets_no_flag() -> None:
    x = np.array([1.0, 2.0, 0.0, 4.0, 1.0, -1.0, 0.0, 3.0, 5.0, 6.0])
    y = np.array([2.0, 0.0, 0.0, 8.0, 0.0, 0.0, 1.0, 2.0, 0.0, 3.0])
    with np.errstate(all="raise"):
        run_both(safe_ratio, x, y)


def test_an_index_checked_only_on_the_side_taken() -> None:
    x = np.arange(5.0)
    mask = np.array([True, False, True, False] * 3)
    run_both(gather_where, mask, np.array([1, 99, 4, -99, -5, 5, 0, 10, 2, 7, -1, -6]), x)


def test_an_out_of_bounds_index_on_the_side_taken_raises_numpys_error() -> None:
    x = np.arange(5.0)
    mask = np.ones(12, dtype=np.bool_)
    idx = np.array([1, 2, 3, 4, 0, -1, -2, -3, -4, -5, 2, 7])
    with pytest.raises(IndexError) as want:
        gather_where(mask, idx, x)
    ember.reset()
    with pytest.raises(IndexError) as got:
        ember.compile(gather_where)(mask, idx, x)
    assert str(got.value) == str(want.value)


def two_stores_one_side(a, b):
    # two stores of one side whose elements meet in the middle (j == n - 1 - j)
    n = a.shape[0]
    for j in range(n):
        if a[j] > b[j]:
            a[j] = b[j]
            a[n - 1 - j] = b[n - 1 - j]
    return a


def paired_and_aliased(a, b, c):
    # the then-side stores a[j] (as the else side does) and a[n - 1 - j], which meets a[j]
    n = a.shape[0]
    for j in range(n):
        if a[j] > b[j]:
            a[j] = b[j]
            a[n - 1 - j] = b[n - 1 - j]
        else:
            a[j] = c[j]
    return a


@pytest.mark.parametrize(("fn", "arrays"), [(two_stores_one_side, 2), (paired_and_aliased, 3)])
@settings(max_examples=12, deadline=None, derandomize=True)
@given(n=st.integers(9, 30), seed=st.integers(0, 2**16))
def test_stores_of_a_side_that_meet_at_run_time(fn, arrays, n, seed) -> None:
    rng = np.random.default_rng(seed)
    run_both(fn, *(rng.random(n) for _ in range(arrays)))
