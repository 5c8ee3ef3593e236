"""User-style NumPy code (numerical recipes, statistics, signal, finance) compiled with each
backend and compared with plain NumPy: result values, dtypes, shapes, scalar-ness, printed
output and mutation of the inputs."""

from __future__ import annotations

import copy
import io
import math
from contextlib import redirect_stdout

import ember
import numpy as np
import pytest
from conftest import assert_same, assert_same_aliasing
from ember import _core

BACKENDS = ["eager", "cranelift"]


def run_like_numpy(fn, backend, *args, rtol=1e-6, atol=1e-12, calls=2, **kwargs):
    """Call `fn` plainly and compiled (twice: capture, then the cached entry) on copies of
    the arguments; everything observable must agree, and the compiled calls must really
    have run compiled code (an entry stored for `fn`, cache hits after the first call, no
    entry falling back to plain Python)."""
    for call in range(calls):
        want_args = copy.deepcopy(args)
        with redirect_stdout(io.StringIO()) as want_out:
            want = fn(*want_args, **kwargs)
        got_args = copy.deepcopy(args)
        before = ember.stats()
        with redirect_stdout(io.StringIO()) as got_out:
            got = ember.compile(fn, backend=backend)(*got_args, **kwargs)
        after = ember.stats()
        assert_same(got, want, rtol=rtol, atol=atol)
        assert_same(got_args, want_args, rtol=rtol, atol=atol, path="arguments")
        assert_same_aliasing(got, got_args, want, want_args)
        assert got_out.getvalue() == want_out.getvalue()
        assert_compiled(fn, before, after, first=call == 0)


def assert_compiled(fn, before, after, *, first):
    """`fn`'s call between the `ember.stats()` snapshots `before` and `after` ran compiled."""
    assert _core.cache_size(fn.__code__) > 0, f"{fn.__name__} ran as plain Python"
    assert after["entry_fallbacks"] == before["entry_fallbacks"], (
        f"{fn.__name__}: a compiled entry fell back to plain Python")
    if first:
        # Not necessarily a graph: a function returning a view of its argument, or computing
        # on Python floats, has an entry and no graph.
        assert after["captures"] > before["captures"], f"{fn.__name__}: nothing captured"
    else:
        assert after["cache_hits"] > before["cache_hits"], f"{fn.__name__}: no cache hit"


RNG = np.random.default_rng(0)


# --- numerical recipes -------------------------------------------------------------------


def horner(coeffs, x):
    result = np.zeros_like(x)
    for c in coeffs:
        result = result * x + c
    return result


def newton_sqrt_step(a, x, steps=4):
    for _ in range(steps):
        x = 0.5 * (x + a / x)
    return x


def central_difference(f_values, h):
    d = np.empty_like(f_values)
    d[1:-1] = (f_values[2:] - f_values[:-2]) / (2 * h)
    d[0] = (f_values[1] - f_values[0]) / h
    d[-1] = (f_values[-1] - f_values[-2]) / h
    return d


def _deriv(y, t):
    return -0.5 * y + np.sin(t)


def rk4_step(y, t, dt):
    k1 = _deriv(y, t)
    k2 = _deriv(y + dt / 2 * k1, t + dt / 2)
    k3 = _deriv(y + dt / 2 * k2, t + dt / 2)
    k4 = _deriv(y + dt * k3, t + dt)
    return y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)


def trapezoid(y, dx=1.0):
    return dx * (y[1:] + y[:-1]).sum() / 2.0


def simpson_weights_integral(y, h):
    n = y.shape[0]
    if n % 2 == 0:
        raise ValueError("need an odd number of samples")
    return h / 3 * (y[0] + 4 * y[1:-1:2].sum() + 2 * y[2:-1:2].sum() + y[-1])


def polyval_np(x):
    return np.polyval([1.0, -2.0, 0.5], x)


# --- statistics ---------------------------------------------------------------------------


def zscore(x, axis=0, ddof=0):
    mean = x.mean(axis=axis, keepdims=True)
    std = x.std(axis=axis, ddof=ddof, keepdims=True)
    return (x - mean) / std


def covariance(x):
    xc = x - x.mean(axis=0)
    return xc.T @ xc / (x.shape[0] - 1)


def correlation(x, y):
    xm = x - np.mean(x)
    ym = y - np.mean(y)
    return np.sum(xm * ym) / math.sqrt(np.sum(xm**2) * np.sum(ym**2))


def moments(x):
    mu = x.mean()
    d = x - mu
    var = (d**2).mean()
    skew = (d**3).mean() / var**1.5
    kurt = (d**4).mean() / var**2 - 3.0
    return {"mean": mu, "var": var, "skew": skew, "kurtosis": kurt}


def weighted_mean(x, w=None):
    if w is None:
        return x.mean()
    return (x * w).sum() / w.sum()


def minmax_scale(x, lo=0.0, hi=1.0):
    xmin, xmax = x.min(), x.max()
    return lo + (x - xmin) * (hi - lo) / (xmax - xmin)


def column_stats(table):
    return table.mean(0), table.std(0), np.median(table, axis=0)


def clip_outliers(x, k=2.0):
    m, s = x.mean(), x.std()
    return np.clip(x, m - k * s, m + k * s)


# --- signal -------------------------------------------------------------------------------


def moving_average(x, window=3):
    out = x[: len(x) - window + 1].copy()
    for i in range(1, window):
        out += x[i : len(x) - window + 1 + i]
    return out / window


def normalise_signal(sig):
    sig = sig - sig.mean()
    peak = np.abs(sig).max()
    if peak > 0:
        sig = sig / peak
    return sig


def rms(x):
    return np.sqrt(np.mean(np.square(x)))


def first_difference(x):
    return np.diff(x)


def ema(x, alpha=0.3):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out


def hann_window_apply(x):
    n = x.shape[-1]
    k = np.arange(n)
    w = 0.5 - 0.5 * np.cos(2 * math.pi * k / (n - 1))
    return x * w


# --- finance ------------------------------------------------------------------------------


def _norm_cdf(x):
    return 0.5 * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def black_scholes_call(s, k, t, r=0.01, sigma=0.2):
    d1 = (np.log(s / k) + (r + 0.5 * sigma**2) * t) / (sigma * np.sqrt(t))
    d2 = d1 - sigma * np.sqrt(t)
    return s * _norm_cdf(d1) - k * np.exp(-r * t) * _norm_cdf(d2)


def log_returns(prices):
    return np.log(prices[1:] / prices[:-1])


def annualised_volatility(prices, periods=252):
    r = log_returns(prices)
    return r.std(ddof=1) * np.sqrt(periods)


def sharpe(returns, rf=0.0):
    excess = returns - rf
    return excess.mean() / excess.std() * math.sqrt(252)


def drawdown(prices):
    peak = np.maximum.accumulate(prices)
    return (prices - peak) / peak


def compound(principal, rate, years: int):
    value = principal
    for _ in range(years):
        value = value * (1 + rate)
    return value


CASES = {
    "horner": (horner, ([1.0, -3.0, 2.0, 0.5], RNG.standard_normal(16)), {}),
    "horner_f32": (horner, ((2.0, 1.0, -1.0), RNG.standard_normal(9).astype(np.float32)), {}),
    "newton_sqrt": (newton_sqrt_step, (np.linspace(1, 9, 7), np.ones(7)), {"steps": 6}),
    "central_difference": (central_difference, (np.sin(np.linspace(0, 3, 12)), 0.25), {}),
    "rk4_step": (rk4_step, (RNG.standard_normal(5), 0.3, 0.01), {}),
    "trapezoid": (trapezoid, (np.linspace(0, 1, 11) ** 2,), {"dx": 0.1}),
    "simpson": (simpson_weights_integral, (np.linspace(0, 1, 9) ** 3, 0.125), {}),
    "polyval": (polyval_np, (RNG.standard_normal(6),), {}),
    "zscore": (zscore, (RNG.standard_normal((8, 3)),), {}),
    "zscore_axis1_ddof": (zscore, (RNG.standard_normal((4, 6)),), {"axis": 1, "ddof": 1}),
    "covariance": (covariance, (RNG.standard_normal((10, 3)),), {}),
    "correlation": (correlation, (RNG.standard_normal(20), RNG.standard_normal(20)), {}),
    "moments": (moments, (RNG.standard_normal(50),), {}),
    "weighted_mean_none": (weighted_mean, (RNG.standard_normal(5),), {}),
    "weighted_mean": (weighted_mean, (RNG.standard_normal(5), RNG.random(5)), {}),
    "minmax_scale_int": (minmax_scale, (np.array([3, 9, 1, 4, 7]),), {"hi": 10.0}),
    "column_stats": (column_stats, (RNG.standard_normal((7, 4)),), {}),
    "clip_outliers": (clip_outliers, (RNG.standard_normal(30),), {"k": 1.5}),
    "moving_average": (moving_average, (RNG.standard_normal(12),), {"window": 4}),
    "normalise_signal": (normalise_signal, (RNG.standard_normal(16).astype(np.float32),), {}),
    "normalise_zero": (normalise_signal, (np.zeros(4),), {}),
    "rms": (rms, (RNG.standard_normal(10),), {}),
    "first_difference_int": (first_difference, (np.array([1, 4, 9, 16, 25]),), {}),
    "ema": (ema, (RNG.standard_normal(6),), {}),
    "hann": (hann_window_apply, (RNG.standard_normal((2, 8)),), {}),
    "black_scholes": (black_scholes_call, (np.array([90.0, 100.0, 110.0]), 100.0, 0.5), {}),
    "black_scholes_kw": (black_scholes_call, (np.array([95.0, 105.0]), 100.0, 1.0),
                         {"sigma": 0.3, "r": 0.05}),
    "annualised_volatility": (annualised_volatility, (100 + RNG.random(30).cumsum(),), {}),
    "sharpe": (sharpe, (RNG.standard_normal(40) * 0.01,), {"rf": 0.0001}),
    "drawdown": (drawdown, (np.array([1.0, 1.2, 0.9, 1.3, 1.1]),), {}),
    "compound_scalar": (compound, (1000.0, 0.05, 3), {}),
    "compound_array": (compound, (np.array([100.0, 200.0]), 0.1, 2), {}),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(CASES))
def test_numerics_like_numpy(name, backend):
    fn, args, kwargs = CASES[name]
    run_like_numpy(fn, backend, *args, rtol=1e-5, atol=1e-6, **kwargs)


def test_simpson_raises_like_numpy():
    compiled = ember.compile(simpson_weights_integral, backend="eager")
    with pytest.raises(ValueError, match="odd number"):
        compiled(np.ones(4), 0.1)
