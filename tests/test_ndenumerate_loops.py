"""Loops over `np.ndenumerate(a)`: `(index, a[index])` in C order, each element read when its
trip starts; unrolled when short, one loop op when long."""

from __future__ import annotations

import ember
import numpy as np
from conftest import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st


def weighted(a):
    s = 0.0
    for idx, v in np.ndenumerate(a):
        w = 1
        for k in idx:
            w = w * (k + 1)
        s += v * w
    return s


def weighted_2d(a):
    s = 0.0
    for (i, j), v in np.ndenumerate(a):
        s += v * (i + 1) - j
    return s


def writes_ahead(a):
    n = a.shape[1]
    for (i, j), v in np.ndenumerate(a):
        if j + 1 < n:
            a[i, j + 1] += v * 0.5
    return a


def argmax_by_hand(a):
    best, where = a.flat[0], (0, 0)
    for (i, j), v in np.ndenumerate(a):
        if v > best:
            best, where = v, (i, j)
    return best, where


def collect(a):
    out = []
    for idx, v in np.ndenumerate(a):
        out.append((idx, v))
    return out


def last_bound(a):
    for (i, j), v in np.ndenumerate(a):
        pass
    return i, j, v


_dtypes = st.sampled_from([np.float64, np.float32, np.int32, np.int64, np.bool_])


@settings(derandomize=True, deadline=None, max_examples=30)
@given(st.lists(st.integers(1, 7), min_size=1, max_size=3), _dtypes, st.booleans())
def test_any_shape_like_numpy(shape, dtype, transposed):
    a = (np.random.default_rng(len(shape)).standard_normal(shape) * 4).astype(dtype)
    if transposed:
        a = a.T
    assert_same(ember.compile(weighted)(a), weighted(a))
    assert_same(ember.compile(collect)(a), collect(a))


@settings(derandomize=True, deadline=None, max_examples=20)
@given(st.integers(1, 40), st.integers(1, 40), st.sampled_from(
    [weighted_2d, writes_ahead, argmax_by_hand, last_bound]))
def test_2d_like_numpy(n, m, fn):
    a = np.round(np.random.default_rng(n * m).standard_normal((n, m)), 1)
    want_arg, got_arg = a.copy(), a.copy()
    want = fn(want_arg)
    got = ember.compile(fn)(got_arg)
    assert_same(got, want)
    assert_same(got_arg, want_arg)


def test_zero_d_and_empty():
    for a in (np.array(2.5), np.zeros((0, 3)), np.zeros((3, 0))):
        assert_same(ember.compile(collect)(a), collect(a))


def test_long_loop_is_one_loop_op(recorder):
    a = np.random.default_rng(0).standard_normal((40, 30))
    assert_same(ember.compile(weighted_2d, backend=recorder)(a), weighted_2d(a))
    assert ember.stats()["graph_breaks"] == 0
    assert "loop" in recorder.ops()
