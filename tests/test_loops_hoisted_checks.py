"""Loops whose bounds are read from data (segments of a CSR-like layout), where native code
tests once at loop entry that every index `k + c` stays in bounds and otherwise runs the
loop with a check per access: NumPy's values, mutations and `IndexError` (same message, same
stores made before it) for bounds inside, at the edge of and past the arrays, negative
bounds (NumPy's wrap-around), descending loops, empty segments and strided arrays."""

from __future__ import annotations

import re

import ember
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


def scale_segments(out, bounds, data):
    for i in range(bounds.shape[0] - 1):
        for k in range(bounds[i], bounds[i + 1]):
            out[k] = data[k] * 2.0 + out[k - 1]


def segment_sums(bounds, data):
    sums = np.zeros(bounds.shape[0] - 1)
    for i in range(bounds.shape[0] - 1):
        s = 0.0
        for k in range(bounds[i], bounds[i + 1]):
            s += data[k] * data[k + 1]
        sums[i] = s
    return sums


def descending(out, bounds, data):
    for i in range(bounds.shape[0] - 1):
        for k in range(bounds[i + 1], bounds[i], -1):
            out[k] = out[k] + data[k - 1]


def mirrored(out, bounds, data):
    n = data.shape[0]
    for i in range(bounds.shape[0] - 1):
        for k in range(bounds[i], bounds[i + 1]):
            out[k] = data[n - 1 - k]


def every_third(out, bounds, data):
    for i in range(bounds.shape[0] - 1):
        for k in range(bounds[i], bounds[i + 1], 3):
            out[k + 1] = data[k] - out[k]


def compare(fn, *args):
    """`fn` plain and compiled on copies: the same error (or none) and the same arrays after."""
    want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want_error = got_error = None
    want = got = None
    try:
        want = fn(*want_args)
    except IndexError as e:
        want_error = str(e)
    ember.reset()
    try:
        got = ember.compile(fn)(*got_args)
    except IndexError as e:
        got_error = str(e)
    assert got_error == want_error
    if want is not None:
        np.testing.assert_array_equal(got, want)
    for g, w in zip(got_args, want_args, strict=True):
        np.testing.assert_array_equal(g, w)
    assert ember.stats()["graph_breaks"] == 0


BOUNDS = np.array([0, 3, 5, 9, 12, 12, 15, 18, 20, 24, 29])


@pytest.mark.parametrize("fn", [scale_segments, descending, mirrored, every_third])
def test_bounds_inside(fn) -> None:
    compare(fn, np.zeros(31), BOUNDS, np.arange(30.0))


def test_reads_one_past_the_last_segment() -> None:
    compare(segment_sums, BOUNDS, np.arange(30.0))
    edge = BOUNDS.copy()
    edge[-1] = 30
    compare(segment_sums, edge, np.arange(30.0))


@pytest.mark.parametrize("fn", [scale_segments, descending, mirrored, every_third])
@pytest.mark.parametrize("last", [30, 31, 32, 40])
def test_an_index_out_of_range_in_the_last_iteration(fn, last) -> None:
    bounds = BOUNDS.copy()
    bounds[-1] = last
    compare(fn, np.zeros(31), bounds, np.arange(30.0))


@pytest.mark.parametrize("fn", [scale_segments, descending, mirrored])
def test_negative_bounds_wrap_around(fn) -> None:
    bounds = np.array([-12, -9, -9, -4, 0, 2, 5, 7, 9, 11, 12])
    compare(fn, np.zeros(31), bounds, np.arange(30.0))
    bounds[0] = -40
    compare(fn, np.zeros(31), bounds, np.arange(30.0))


def test_strided_and_reversed_arrays() -> None:
    big = np.arange(90.0)
    compare(scale_segments, np.zeros(93)[::3], BOUNDS, big[::3])
    compare(scale_segments, np.zeros(31)[::-1], BOUNDS, big[:30][::-1])


@settings(max_examples=25, deadline=None, derandomize=True)
@given(bounds=st.lists(st.integers(-35, 35), min_size=10, max_size=14),
       fn=st.sampled_from([scale_segments, descending, mirrored, every_third]))
def test_arbitrary_bounds(bounds, fn) -> None:
    compare(fn, np.zeros(31), np.array(bounds), np.arange(30.0))


@settings(max_examples=15, deadline=None, derandomize=True)
@given(bounds=st.lists(st.integers(-32, 32), min_size=10, max_size=14))
def test_arbitrary_bounds_of_a_reduction(bounds) -> None:
    compare(segment_sums, np.array(bounds), np.arange(30.0))


# Indices a branch's test narrows (`native/refine.rs`): inside the region the access skips
# the checks (or the wrap) the test proves needless, and keeps the others.


def in_range_only(out, idx):
    n = out.shape[0]
    for i in range(idx.shape[0]):
        k = idx[i]
        if 0 <= k < n:
            out[k] += 1.0


def non_negative_only(out, idx):
    for i in range(idx.shape[0]):
        k = idx[i]
        if k >= 0:
            out[k] += i  # the upper bound is still checked


def negative_only(out, idx):
    for i in range(idx.shape[0]):
        k = idx[i]
        if k < 0:
            out[k] = out[k] * 0.5 + i  # wrapped; below -n still raises
        else:
            out[k - 1] += 1.0  # k - 1 may be -1: wraps


def negated_test(out, idx):
    n = out.shape[0]
    for i in range(idx.shape[0]):
        k = idx[i]
        if not k < n:
            out[n - 1] -= 1.0
        elif not -n > k:
            out[k] += 2.0


def shifted_while(out, idx):
    # a `while` test on a loop value narrows its body's first access
    for i in range(idx.shape[0]):
        j = idx[i]
        while j >= 1 and out[j - 1] < 5.0:
            out[j - 1] += 1.0
            j -= 2


REFINED = [in_range_only, non_negative_only, negative_only, negated_test, shifted_while]


@settings(max_examples=30, deadline=None, derandomize=True)
@given(idx=st.lists(st.integers(-25, 25), min_size=17, max_size=24),
       fn=st.sampled_from(REFINED))
def test_indices_narrowed_by_a_branch(idx, fn) -> None:
    compare(fn, np.zeros(12), np.array(idx))


@pytest.mark.parametrize("fn", REFINED)
@pytest.mark.parametrize("bad", [12, 13, -13, -40, 40])
def test_a_narrowed_index_out_of_range_raises_as_numpy(fn, bad) -> None:
    idx = np.arange(-11, 11) % 12
    idx[-3] = bad
    compare(fn, np.zeros(12), idx)


# Carried indices that only ever take the induction variable's, invariants' or constants'
# values (`native/carried.rs`): their accesses are checked against the hull of those.


def argmin_from(x, start):
    best = start
    for j in range(x.shape[0]):
        if x[j] < x[best]:
            best = j
    return best, x[best]


def last_big(x, fallback):
    # the index is one of j, `fallback` (possibly out of bounds) or 99
    idx = fallback
    for j in range(x.shape[0]):
        if x[j] > 0.9:
            idx = j
        elif x[j] < -0.99:
            idx = 99
        x[idx] = x[idx] * 0.5
    return x


def follows_data(x, k):
    # the index comes from the data: every access keeps its check
    idx = 0
    for j in range(x.shape[0]):
        if x[j] > 0.0:
            idx = k[j]
        x[idx] += 1.0
    return x


def pick_mix(x, a, b):
    idx = a
    for j in range(x.shape[0]):
        if x[j] > 0.5:
            idx = max(idx, min(j, b))
        x[idx] -= 1.0
    return x


@pytest.mark.parametrize("start", [0, 5, 11, -1, -12, 12, -13])
def test_a_carried_argmin_index(start) -> None:
    x = np.random.default_rng(3).standard_normal(12)
    try:
        want = argmin_from(x, start)
    except IndexError as e:
        with pytest.raises(IndexError, match=re.escape(str(e))):
            ember.compile(argmin_from)(x, start)
        return
    assert ember.compile(argmin_from)(x, start) == want


@settings(max_examples=25, deadline=None, derandomize=True)
@given(values=st.lists(st.floats(-1.0, 1.0), min_size=12, max_size=12),
       a=st.integers(-14, 14), b=st.integers(-2, 16), seed=st.integers(0, 2**16))
def test_carried_indices_of_known_and_unknown_values(values, a, b, seed) -> None:
    x = np.array(values)
    k = np.random.default_rng(seed).integers(-14, 14, 12)
    for fn, args in [(last_big, (x, a)), (follows_data, (x, k)), (pick_mix, (x, a, b))]:
        compare(fn, *args)
