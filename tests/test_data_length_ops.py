"""Arrays whose length only the data knows, computed on in the graph (`capture/variables/
prefixes.py`), against NumPy on random inputs (fixed seed): arithmetic, ufuncs, comparisons
and reductions of `np.unique`'s results and of slices the graph bounds (`x[:k]`, `k`
negative or past the end too); `np.bincount` of `np.unique`'s inverse without `minlength`
(with weights); `np.sort` of `return_index`; gathers at such arrays; `np.searchsorted` of
the distinct values. Values, dtypes, shapes, warnings, and no graph break."""

from __future__ import annotations

import warnings

import ember
import numpy as np
import pytest
from conftest import assert_same
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def _same_no_break(fn, *args, **same):
    """Compiled (capture, then the cached entry) against NumPy: the same result, the same
    warnings, no graph break and no fallback to Python."""
    with warnings.catch_warnings(record=True) as wanted:
        warnings.simplefilter("always")
        want = fn(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
    ember.reset()
    compiled = ember.compile(fn)
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = compiled(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
        assert [str(w.message) for w in caught] == [str(w.message) for w in wanted]
        assert_same(got, want, **same)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["compiles"] >= 1 and not stats["backend_fallbacks"]
    return got


def group_sums(keys, values):
    uniq, inv = np.unique(keys, return_inverse=True)
    sums = np.bincount(inv, weights=values)
    counts = np.bincount(inv)
    return uniq, sums, counts, sums / counts


def group_moments(keys, values):
    uniq, inv, counts = np.unique(keys, return_inverse=True, return_counts=True)
    mean = np.bincount(inv, values) / counts
    var = np.bincount(inv, weights=values * values) / counts - mean ** 2
    return uniq, mean, np.sqrt(np.maximum(var, 0.0)), counts * 2 - 1, uniq > 0


def reductions_of_unique(x):
    uniq, counts = np.unique(x, return_counts=True)
    return uniq.sum(), np.max(counts), counts.mean(), -uniq, abs(uniq), len(uniq)


def first_rows(ids, values):
    _, first = np.unique(ids, return_index=True)
    first = np.sort(first)
    return ids[first], values[first], first


def unique_index_gather(ids, values):
    _, first = np.unique(ids, return_index=True)
    return values[first] + 1.0


def key_ranges(keys, values):
    order = np.argsort(keys, kind="mergesort")
    sk, sv = keys[order], values[order]
    uniq = np.unique(sk)
    lo = np.searchsorted(sk, uniq, side="left")
    hi = np.searchsorted(sk, uniq, side="right")
    return uniq, sv[lo], sv[hi - 1], hi - lo


def counted_head(x, shift):
    k = np.count_nonzero(x > 0) + shift
    head = x[:k]
    return head * 2.0, head.sum(), np.exp(head), head - x[1:k + 1].sum()


def selected_positions(x):
    chosen = np.extract(x > 0, x)
    rows = np.argwhere(x > 0.5)
    return chosen / 2, rows + 1


def grid_positions(m, t):
    return np.argwhere(m > t) + 1, 2 * np.argwhere(m < -t) - 3


def run_lengths(data):
    change = np.flatnonzero(data[1:] != data[:-1]) + 1
    starts = np.concatenate(([0], change))
    lengths = np.diff(np.concatenate((starts, [len(data)])))
    return data[starts], lengths.astype(np.uint8), np.diff(data[data > 1]), change.sum()


def nonzero_columns(m):
    rows, cols = np.nonzero(m > 0)
    return rows * 10 + cols, np.concatenate((cols, rows - 1)), (cols + 0.5).astype(np.float32)


_keys = st.lists(st.integers(-4, 6), min_size=1, max_size=40)


@SETTINGS
@given(keys=_keys, seed=st.integers(0, 2**16))
def test_bincount_of_the_inverse(keys, seed):
    keys = np.array(keys, dtype=np.int64)
    values = np.random.default_rng(seed).normal(size=len(keys))
    _same_no_break(group_sums, keys, values)
    _same_no_break(group_moments, keys, values)
    _same_no_break(group_moments, keys.astype(np.int32), values.astype(np.float32), rtol=1e-5)


@SETTINGS
@given(keys=_keys)
def test_arithmetic_and_reductions_of_unique(keys):
    _same_no_break(reductions_of_unique, np.array(keys, dtype=np.int64))
    _same_no_break(reductions_of_unique, np.array(keys, dtype=np.float64) / 4)


@SETTINGS
@given(keys=_keys, seed=st.integers(0, 2**16))
def test_sorted_first_indices_and_gathers(keys, seed):
    ids = np.array(keys, dtype=np.int64)
    values = np.random.default_rng(seed).normal(size=len(ids))
    _same_no_break(first_rows, ids, values)
    _same_no_break(unique_index_gather, ids, values)
    _same_no_break(key_ranges, ids, values)


@SETTINGS
@given(x=st.lists(st.floats(-3, 3), min_size=2, max_size=30), shift=st.integers(-40, 5))
def test_slices_the_graph_bounds(x, shift):
    _same_no_break(counted_head, np.array(x), shift)


@SETTINGS
@given(x=st.lists(st.floats(-3, 3), min_size=1, max_size=30))
def test_chosen_elements(x):
    _same_no_break(selected_positions, np.array(x))


@SETTINGS
@given(shape=st.tuples(st.integers(1, 6), st.integers(1, 6)), seed=st.integers(0, 2**16))
def test_argwhere_and_nonzero_arithmetic(shape, seed):
    m = np.random.default_rng(seed).normal(size=shape)
    _same_no_break(grid_positions, m, 0.5)
    _same_no_break(nonzero_columns, m)


@SETTINGS
@given(data=st.lists(st.integers(0, 3), min_size=2, max_size=40))
def test_run_lengths(data):
    _same_no_break(run_lengths, np.array(data, dtype=np.uint8))
    _same_no_break(run_lengths, np.array(data, dtype=np.int64) * 1.5)


def test_run_lengths_of_new_lengths():
    """New lengths recompile (a symbolic one, then `len(data)` in a list is specialised),
    still without a break."""
    ember.reset()
    compiled = ember.compile(run_lengths)
    rng = np.random.default_rng(5)
    for n in (30, 41, 57):
        data = np.repeat(rng.integers(0, 4, n, dtype=np.uint8), rng.integers(1, 5, n))
        assert_same(compiled(data), run_lengths(data))
    assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]
    assert ember.stats()["compiles"] == 3


def segment_sums(keys, v):
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    sums = np.add.reduceat(v, starts)
    counts = np.diff(np.r_[starts, len(keys)])
    return keys[starts], sums, counts, sums / counts


def scattered_segments(v, m):
    idx = np.flatnonzero(m) * 3 % len(v)
    return np.add.reduceat(v, idx)


def shifted_segments(v, m):
    return np.add.reduceat(v, np.flatnonzero(m) + 2)


@SETTINGS
@given(keys=st.lists(st.integers(0, 3), min_size=2, max_size=40), seed=st.integers(0, 2**16))
def test_reduceat_at_selected_indices(keys, seed):
    keys = np.sort(np.array(keys))
    rng = np.random.default_rng(seed)
    _same_no_break(segment_sums, keys, rng.normal(size=len(keys)))
    _same_no_break(segment_sums, keys, rng.integers(-9, 9, len(keys)))
    _same_no_break(segment_sums, keys, rng.normal(size=len(keys)).astype(np.float32), rtol=1e-5)
    m = rng.random(len(keys)) < 0.5
    _same_no_break(scattered_segments, rng.normal(size=len(keys)), m)


def test_reduceat_past_the_end_raises_as_numpy():
    v, m = np.arange(6.0), np.array([True, False, False, True, False, True])
    with pytest.raises(IndexError) as want:
        shifted_segments(v, m)
    with pytest.raises(IndexError) as got:
        ember.compile(shifted_segments)(v, m)
    assert str(got.value) == str(want.value)
    m[5] = False
    assert_same(ember.compile(shifted_segments)(v, m), shifted_segments(v, m))


def test_selections_of_different_lengths_run_as_numpy():
    """Two selections whose counts differ: NumPy broadcasts a length of 1, or raises."""
    def ratio(a, b):
        return np.flatnonzero(a) / (np.flatnonzero(b) + 1)

    a, b = np.array([0, 1, 0, 1]), np.array([1, 0, 0, 0])
    assert_same(ember.compile(ratio)(a, b), ratio(a, b))
    b[2] = 1
    assert_same(ember.compile(ratio)(a, b), ratio(a, b))
    b[3] = 1
    with pytest.raises(ValueError):
        ember.compile(ratio)(a, b)


def binned_means(labels, w):
    return np.bincount(labels, w) / np.bincount(labels), np.bincount(labels > 2)


@SETTINGS
@given(labels=st.lists(st.integers(0, 1500), min_size=1, max_size=30),
       seed=st.integers(0, 2**16))
def test_bincount_without_minlength(labels, seed):
    """Values past the bins made (1,024 here) run the frame as Python."""
    labels = np.array(labels, dtype=np.int64)
    w = np.random.default_rng(seed).normal(size=len(labels))
    _same_no_break(binned_means, labels, w)
    _same_no_break(binned_means, (labels % 7).astype(np.uint8), w)


def test_bincount_of_a_negative_value_raises_as_numpy():
    labels, w = np.array([1, -1, 2]), np.ones(3)
    with pytest.raises(ValueError) as want:
        binned_means(labels, w)
    with pytest.raises(ValueError) as got:
        ember.compile(binned_means)(labels, w)
    assert str(got.value) == str(want.value)


def fill_hits(f, xq, xj):
    vals = np.zeros(len(xq))
    exact = xq[:, None] == xj[None, :]
    rows, cols = np.nonzero(exact)
    vals[rows] = f[cols]
    return vals


def set_at_positions(x, m, v):
    x[np.flatnonzero(m) - 3] = v
    y = np.zeros(4, dtype=np.int32)
    y[np.flatnonzero(m) % 4] = 7
    return x, y


@SETTINGS
@given(xq=st.lists(st.integers(0, 6), min_size=1, max_size=12),
       xj=st.lists(st.integers(0, 6), min_size=1, max_size=8))
def test_assignment_at_selected_indices(xq, xj):
    xq, xj = np.array(xq, dtype=float), np.array(xj, dtype=float)
    _same_no_break(fill_hits, np.arange(len(xj)) * 1.5, xq, xj)


@SETTINGS
@given(m=st.lists(st.booleans(), min_size=3, max_size=12), v=st.floats(-5, 5))
def test_assignment_at_negative_and_repeated_indices(m, v):
    m = np.array(m)
    _same_no_break(set_at_positions, np.arange(len(m), dtype=float), m, v)


def test_assignment_past_the_end_raises_as_numpy():
    m = np.array([True, False, True])
    with pytest.raises(IndexError) as want:
        set_at_positions(np.arange(2.0), m, 1.0)
    with pytest.raises(IndexError) as got:
        ember.compile(set_at_positions)(np.arange(2.0), m, 1.0)
    assert str(got.value) == str(want.value)


def shell_counts(pos, r_max, n_bins):
    hist = np.zeros(n_bins, dtype=np.int64)
    r = np.sqrt((pos * pos).sum(axis=1))
    r = r[r < r_max]
    np.add.at(hist, (r / (r_max / n_bins)).astype(np.int64), 1)
    weights = np.zeros(n_bins)
    np.add.at(weights, np.flatnonzero(hist) % 3, hist[hist > 0] * 0.5)
    np.maximum.at(weights, np.flatnonzero(hist > 1), 2.0)
    return hist, weights


def cast_selection(x):
    return (x[x > 0] * 1e300).astype(np.int32), x[x < 0].astype(np.float32)


@SETTINGS
@given(n=st.integers(1, 30), seed=st.integers(0, 2**16))
def test_ufunc_at_selected_indices(n, seed):
    pos = np.random.default_rng(seed).normal(size=(n, 3))
    _same_no_break(shell_counts, pos, 1.5, 6)


def test_ufunc_at_casts_as_numpy():
    """NumPy's ufunc.at casts a float result back into an integer array (its casting check
    run on stand-ins, `take._check_casting`)."""
    def float_into_ints(h, x):
        np.add.at(h, np.flatnonzero(x), 1.5)
        return h

    def floats_into_ints(h, x):
        np.add.at(h, np.flatnonzero(x), x[x != 0] * 1.5)
        return h

    args = np.zeros(3, dtype=np.int64), np.array([0, 1, 1])
    _same_no_break(float_into_ints, *args)
    _same_no_break(floats_into_ints, *args)


def test_cast_of_a_selection_warns_as_numpy():
    """Only selected values past int32 warn; the unselected places hold 1."""
    _same_no_break(cast_selection, np.array([-1.0, 2.0, -3.0, 0.0]))
    _same_no_break(cast_selection, np.array([-1.0, -2.0]))


def test_division_by_a_zero_count_warns_as_numpy():
    """The unselected places hold 1: only the selected ones can warn."""
    def ratio(keys):
        uniq, counts = np.unique(keys, return_counts=True)
        return counts / (uniq - 2)

    _same_no_break(ratio, np.array([0, 1, 1, 2, 2, 2, 5]))
    _same_no_break(ratio, np.array([0, 1, 1, 3]))


@pytest.mark.parametrize("keys", [np.arange(0), np.zeros((2, 3), dtype=np.int64)])
def test_other_forms_keep_numpy_results(keys):
    """An empty array and a 2-d inverse (NumPy's inverse has the keys' shape, and
    np.bincount of it raises) run as NumPy runs them."""
    def counts(k):
        _, inv = np.unique(k, return_inverse=True)
        return np.bincount(inv.ravel()) if inv.ndim > 1 else np.bincount(inv)

    want = counts(keys)
    got = ember.compile(counts)(keys)
    assert_same(got, want)
