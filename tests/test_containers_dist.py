"""`math.dist` of two points (1-d rows of a static length, tuples of numbers) computed in
the graph, in loop bodies and at the frame's level: the differences in float64, then their
norm as chained `hypot`s. CPython's `vector_norm` rounds its own way, so values agree to
within a few ulps (not bit for bit); infinities and NaN among the differences, huge and tiny
coordinates (no overflow or underflow where the norm has none), integer and float32 rows
must give what Python gives. Points Python refuses (different lengths) still raise
Python's error."""

from __future__ import annotations

import math

import ember
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from probe_harness import assert_compiles_whole


def path_length(points):
    total = 0.0
    for i in range(1, points.shape[0]):
        total += math.dist(points[i - 1], points[i])
    return total


def nearest_distance(points, q):
    best = math.inf
    for i in range(points.shape[0]):
        d = math.dist(points[i], q)
        if d < best:
            best = d
    return best


def tuple_dist(a):
    return math.dist((a[0], a[1]), (a[2], 0.5))


def _close(got, want) -> bool:
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want):
        return got == want
    return type(got) is float and math.isclose(got, want, rel_tol=4e-16 * 4, abs_tol=0.0)


_coords = st.one_of(
    st.floats(-1e3, 1e3, allow_nan=False),
    st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan, 1e300, -1e300, 1e-310, 5e-324]))


@settings(derandomize=True, deadline=None, max_examples=60)
@given(st.integers(1, 5), st.integers(2, 6), st.data())
def test_path_length_like_python(dims, rows, data):
    points = np.array(data.draw(st.lists(_coords, min_size=dims * rows, max_size=dims * rows)),
                      dtype=np.float64).reshape(rows, dims)
    want = path_length(points)
    ember.reset()
    got = ember.compile(path_length)(points.copy())
    assert _close(got, want), (got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int16, np.float64])
def test_rows_of_other_dtypes(dtype):
    rng = np.random.default_rng(3)
    points = (rng.standard_normal((40, 3)) * 50).astype(dtype)
    q = (rng.standard_normal(3) * 50).astype(dtype)
    want = nearest_distance(points, q)
    ember.reset()
    compiled = ember.compile(nearest_distance)
    for _ in range(2):
        got = compiled(points, q)
        assert _close(got, want), (got, want)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]


def test_loop_compiles_whole():
    points = np.random.default_rng(0).random((50, 3))
    assert_compiles_whole(path_length, (points,))


@settings(derandomize=True, deadline=None, max_examples=40)
@given(st.lists(_coords, min_size=3, max_size=3))
def test_tuples_at_frame_level(values):
    a = np.array(values)
    want = tuple_dist(a)
    ember.reset()
    got = ember.compile(tuple_dist)(a)
    assert _close(got, want), (got, want)


def different_lengths(points):
    total = 0.0
    for i in range(1, points.shape[0]):
        total += math.dist(points[i - 1], points[i, :2])
    return total


def test_different_lengths_raise_as_python():
    points = np.random.default_rng(1).random((6, 3))
    with pytest.raises(ValueError) as want:
        different_lengths(points)
    ember.reset()
    with pytest.raises(ValueError) as got:
        ember.compile(different_lengths)(points)
    assert str(got.value) == str(want.value)
