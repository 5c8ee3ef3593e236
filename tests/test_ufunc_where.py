"""Ufuncs with `out=` and `where=` (`np.divide(a, b, out=np.zeros_like(a), where=b != 0)`):
the output keeps its values where the mask is false, no warning comes from the places left
out, NumPy's casting errors; against NumPy on random data (fixed seed), without a break."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy


def safe_ratio(num, den):
    return np.divide(num, den, out=np.zeros_like(num), where=den != 0)


def log_or_minus_one(x):
    out = np.full(x.shape, -1.0)
    np.log(x, out=out, where=x > 0)
    return out


def sqrt_in_place(x, m):
    np.sqrt(x, out=x, where=m)
    return x


def normalise_rows(img):
    lum = img.sum(axis=-1)
    ratio = np.divide(1.0, lum, out=np.zeros_like(lum), where=lum != 0)
    return img * ratio[:, :, None]


def into_float32(a, b):
    out = np.zeros(a.shape, dtype=np.float32)
    np.power(a, b, out=out, where=a > 0)
    return out


def _check(fn, *args):
    assert_behaves_as_numpy(fn, *args)
    assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]


@seed(20261207)
@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**16), st.integers(1, 9), st.floats(0.0, 0.7))
def test_out_keeps_its_values_where_the_mask_is_false(salt, n, p_zero):
    rng = np.random.default_rng(salt)
    x = np.where(rng.random(n) < p_zero, 0.0, rng.standard_normal(n))
    y = np.where(rng.random(n) < p_zero, 0.0, rng.standard_normal(n))
    _check(safe_ratio, x, y)
    _check(log_or_minus_one, x)
    _check(sqrt_in_place, np.abs(x), y > 0)
    _check(into_float32, x, y)
    _check(normalise_rows, np.abs(rng.standard_normal((2, n, 3))) * (rng.random((2, n, 1)) > p_zero))


@pytest.mark.parametrize("num", [np.arange(6), np.arange(6.0)])
def test_out_of_another_kind_raises_numpys_error(num):
    assert_behaves_as_numpy(safe_ratio, num, np.array([0, 1, 2, 0, 3, 4]))
