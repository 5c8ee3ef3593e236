"""`np.logaddexp`, an op added through the core's op table alone: values, warnings and
gradients against NumPy and autograd, on special-value pairs, every layout and both backends."""

from __future__ import annotations

import itertools

import autograd
import autograd.numpy as anp
import ember
import numpy as np
import pytest
from fp_harness import assert_same_fp_behaviour
from test_cranelift_harness import ULPS, check

SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, 30.0, -30.0, 88.0, -745.0, 710.0, 1e300, -1e300,
            1e-310, np.inf, -np.inf, np.nan]


def pairs(dtype):
    """Every ordered pair of special values, contiguous (long enough for SIMD and its tail)."""
    a, b = zip(*itertools.product(SPECIALS, repeat=2), strict=True)
    with np.errstate(all="ignore"):
        return np.array(a, dtype), np.array(b, dtype)


def f(x, y):
    return np.logaddexp(x, y)


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_value_pairs_match_numpy_with_its_warnings(dtype, backend):
    a, b = pairs(dtype)
    assert_same_fp_behaviour(f, (a, b), backend)
    assert_same_fp_behaviour(f, (a[::-3], b[::-3]), backend)
    for x, y in zip(a, b, strict=True):
        # One pair filling a whole array: a NaN warns, equal infinities do not.
        assert_same_fp_behaviour(f, (np.full(9, x), np.full(9, y)), backend)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_within_ulps_of_numpy(dtype):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(300) * np.exp(rng.uniform(-5, 5, 300))).astype(dtype)
    y = (rng.standard_normal(300) * 20).astype(dtype)
    check(lambda xp, x, y: xp.logaddexp(x, y), x, y, ulps=ULPS)
    check(lambda xp, x, y: xp.logaddexp(x[::2], y[1::2]) * 2, x, y, ulps=ULPS)
    check(lambda xp, x: xp.logaddexp(x.reshape(20, 15), x[:15]), x, ulps=ULPS)
    check(lambda xp, x: xp.logaddexp(x, 0.0) - xp.logaddexp(-3, x), x, ulps=ULPS)


def test_integer_operands_take_numpys_float_loop():
    for dt in (np.int16, np.int32, np.int64, np.uint32, np.bool_, np.int8):
        x = np.arange(-3, 5).astype(dt)
        check(lambda xp, x: xp.logaddexp(x, x[::-1]), x, ulps=ULPS)


def test_gradient_equals_autograd_also_far_apart():
    w = np.array([0.5, -1.0, 40.0, -40.0, 3.0])
    v = np.array([0.5, 2.0, -40.0, 40.0, 700.0])

    def loss(xp, a, b):
        return (xp.logaddexp(a, b) * xp.arange(1.0, 6.0)).sum()

    want = autograd.grad(lambda a, b: loss(anp, a, b), argnum=(0, 1))(w, v)
    got = ember.grad(lambda a, b: loss(np, a, b), argnums=(0, 1))(w, v)
    compiled = ember.compile(lambda a, b: ember.grad(lambda a, b: loss(np, a, b),
                                                     argnums=(0, 1))(a, b))(w, v)
    for g, c, e in zip(got, compiled, want, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(c, e, rtol=1e-12, atol=1e-300)
