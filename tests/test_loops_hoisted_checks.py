"""Loops whose bounds are read from data (segments of a CSR-like layout), where native code
tests once at loop entry that every index `k + c` stays in bounds and otherwise runs the
loop with a check per access: NumPy's values, mutations and `IndexError` (same message, same
stores made before it) for bounds inside, at the edge of and past the arrays, negative
bounds (NumPy's wrap-around), descending loops, empty segments and strided arrays."""

from __future__ import annotations

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
    want_args = [a.copy() for a in args]
    got_args = [a.copy() for a in args]
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
