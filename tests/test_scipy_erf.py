"""scipy.special's `erf` and `erfc` in compiled and differentiated functions (composed of
elementwise ops, `numpy_api/scipy_erf.py`): within two ulps of the C library's `math.erf` /
`math.erfc` and of scipy's, signed zeros, infinities and NaN as scipy gives them, scipy's
dtypes, no warnings, and gradients equal to autograd's and to central differences (exact
GELU, a probit loss)."""

from __future__ import annotations

import math
import warnings

import autograd
import autograd.numpy as anp
import autograd.scipy.special as asp
import ember
import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from scipy import special
from test_autodiff_rules import numeric_grad

RNG = np.random.default_rng(31)
# Each range's edges, both sides of each, and the ranges themselves.
_EDGES = np.array([0.84375, 1.25, 1 / 0.35, 6.0, 26.5, 28.0, 0.25, 2.0 ** -28])
GRID = np.concatenate([np.linspace(-30, 30, 6001), np.linspace(-3, 3, 6001), _EDGES,
                       -_EDGES, np.nextafter(_EDGES, 0), np.nextafter(_EDGES, 99)])


def _ulps(got, want):
    """The largest distance in ulps of `want`, where `want` is a normal number."""
    normal = np.abs(want) >= np.finfo(want.dtype).tiny
    diff = np.abs(got.astype(np.float64) - want) / np.spacing(np.abs(want)).astype(np.float64)
    return float(np.max(np.where(normal & (got != want), diff, 0.0)))


def _both(x):
    return special.erf(x), special.erfc(x)


def _libm(x):
    return (np.array([math.erf(v) for v in x.ravel()]).reshape(x.shape),
            np.array([math.erfc(v) for v in x.ravel()]).reshape(x.shape))


def test_values_within_two_ulps_of_libm_and_scipy():
    erf, erfc = ember.compile(_both, fullgraph=True)(GRID)
    libm_erf, libm_erfc = _libm(GRID)
    assert _ulps(erf, libm_erf) <= 2 and _ulps(erfc, libm_erfc) <= 4
    assert _ulps(erf, special.erf(GRID)) <= 2
    # scipy's erfc (cephes) is itself up to hundreds of ulps from libm's in its tail, and
    # flushes near its underflow: within its own distance to libm's, where it is normal.
    near = np.abs(GRID) < 20
    scipy_erfc = special.erfc(GRID[near])
    assert _ulps(erfc[near], scipy_erfc) <= _ulps(scipy_erfc, libm_erfc[near]) + 4


@seed(17)
@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-40, 40, allow_nan=False), min_size=1, max_size=16))
def test_random_values_within_ulps_of_libm(values):
    x = np.array(values)
    erf, erfc = ember.compile(_both, fullgraph=True)(x)
    libm_erf, libm_erfc = _libm(x)
    assert _ulps(erf, libm_erf) <= 2 and _ulps(erfc, libm_erfc) <= 4


def test_special_values_and_signs():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 40.0, -40.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        erf, erfc = ember.compile(_both, fullgraph=True)(x)
    want_erf, want_erfc = _both(x)
    np.testing.assert_array_equal(erf, want_erf)
    np.testing.assert_array_equal(np.signbit(erf), np.signbit(want_erf))
    np.testing.assert_array_equal(erfc, want_erfc)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int64", "uint16", "bool"])
def test_dtypes_as_scipy(dtype):
    x = (RNG.standard_normal(7) * 3).astype(dtype)
    erf, erfc = ember.compile(_both, fullgraph=True)(x)
    want_erf, want_erfc = _both(x)
    assert erf.dtype == want_erf.dtype and erfc.dtype == want_erfc.dtype
    tol = 2e-7 if dtype == "float32" else 1e-15
    np.testing.assert_allclose(erf, want_erf, rtol=tol, atol=tol)
    np.testing.assert_allclose(erfc, want_erfc, rtol=tol, atol=tol)


@pytest.mark.parametrize("x", [0.3, np.float64(-1.1), np.float32(2.0), 3])
def test_scalars_as_scipy(x):
    got = ember.compile(lambda v: special.erf(v) + special.erfc(v / 2), fullgraph=True)(x)
    want = special.erf(x) + special.erfc(x / 2)
    assert type(got) is type(want)
    np.testing.assert_allclose(got, want, rtol=1e-6 if isinstance(x, np.float32) else 1e-15)


def _gelu(np, erf):
    def loss(w, x):
        h = x @ w
        g = 0.5 * h * (1.0 + erf(h / np.sqrt(2.0)))
        return np.mean(g ** 2)
    return loss


def _probit(np, erfc):
    def loss(w, x, y):
        z = x @ w
        p = 0.5 * erfc(-z / np.sqrt(2.0))
        return -np.mean(y * np.log(p) + (1 - y) * np.log1p(-p))
    return loss


def _erf_of_products(np, erf, erfc):
    def loss(w, x):
        return np.sum(erf(w * x[:3]) * erfc(w[::-1])) + np.sum(erf(w) ** 2)
    return loss


def test_gelu_gradient_equals_autograd_and_differences():
    w, x = RNG.standard_normal((6, 4)), RNG.standard_normal((10, 6)) * 2
    loss = _gelu(np, special.erf)
    value, got = ember.value_and_grad(loss)(w, x)
    np.testing.assert_allclose(value, loss(w, x), rtol=1e-14)
    np.testing.assert_allclose(got, autograd.grad(_gelu(anp, asp.erf))(w, x), rtol=1e-10,
                               atol=1e-13)
    np.testing.assert_allclose(got, numeric_grad(loss, (w, x), 0), rtol=1e-5, atol=1e-7)


def test_probit_gradient_equals_autograd():
    w, x = RNG.standard_normal(5), RNG.standard_normal((20, 5))
    y = (RNG.random(20) < 0.5).astype(np.float64)
    got = ember.compile(ember.grad(_probit(np, special.erfc)))(w, x, y)
    np.testing.assert_allclose(got, autograd.grad(_probit(anp, asp.erfc))(w, x, y),
                               rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("scale", [0.3, 1.0, 4.0])
def test_erf_erfc_gradients_across_their_ranges(scale):
    w, x = RNG.standard_normal(3) * scale, RNG.standard_normal(3) * scale
    loss = _erf_of_products(np, special.erf, special.erfc)
    got = ember.grad(loss)(w, x)
    np.testing.assert_allclose(got, autograd.grad(_erf_of_products(anp, asp.erf, asp.erfc))(
        w, x), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(got, numeric_grad(loss, (w, x), 0), rtol=1e-5, atol=1e-7)


def test_float32_gradient_is_float32_and_close():
    w, x = RNG.standard_normal((6, 4)), RNG.standard_normal((10, 6))
    loss = _gelu(np, special.erf)
    got = ember.grad(loss)(w.astype(np.float32), x.astype(np.float32))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, ember.grad(loss)(w, x), rtol=1e-4, atol=1e-5)
