"""`math.erf` / `math.erfc` of loop values (`capture/loops/special.py`): composed of
elementwise ops, equal to Python's within a few ulps across fdlibm's ranges (erfc where it is
far below 1 included), at the infinities, at NaN and at signed zeros, with no
NumPy warning, and compiled into one graph (a normal CDF in a Black-Scholes loop)."""

from __future__ import annotations

import math
import warnings

import ember
import numpy as np
from hypothesis import given, seed, settings
from hypothesis import strategies as st


def erf_table(x):
    out = np.empty(len(x))
    comp = np.empty(len(x))
    for i in range(len(x)):
        out[i] = math.erf(x[i])
        comp[i] = math.erfc(x[i])
    return out, comp


def norm_cdf(v):
    return 0.5 * (1.0 + math.erf(v / math.sqrt(2.0)))


def cdf_sum(x, shift):
    t = 0.0
    for v in x:
        t += norm_cdf(v - shift)
    return t


def one_erf(x):
    return math.erf(x[0]) - math.erfc(x[1])


def _close(got, want):
    """Within 1e-15 absolutely and 1e-12 relatively (erfc's exp(-x^2) carries the rounding of
    x^2); where Python's result is subnormal, within its last few bits."""
    return np.allclose(got, want, rtol=1e-12, atol=1e-300, equal_nan=True)


def _compiled(fn, *args):
    ember.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = ember.compile(fn)(*args)
    stats = ember.stats()
    assert stats["compiles"] == 1 and stats["graph_breaks"] == 0, stats["break_reasons"]
    return got


def test_erf_at_edges():
    x = np.array([0.0, -0.0, 1e-300, -5e-324, 2.5, -2.5, np.nextafter(2.5, 0), 26.0, -26.0,
                  np.inf, -np.inf, np.nan, 1e308])
    got, want = _compiled(erf_table, x), erf_table(x)
    for g, w in zip(got, want):
        assert _close(g, w)
        assert np.array_equal(np.signbit(g[~np.isnan(w)]), np.signbit(w[~np.isnan(w)]))


@seed(10)
@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-27.0, 27.0), min_size=1, max_size=40))
def test_erf_like_python(values):
    x = np.array(values)
    for g, w in zip(_compiled(erf_table, x), erf_table(x)):
        assert _close(g, w)


def test_erfc_in_ulps_where_it_is_small():
    x = np.linspace(0.5, 26.5, 4001)
    got, want = _compiled(erf_table, x)[1], erf_table(x)[1]
    assert np.max(np.abs(got - want) / np.spacing(want)) <= 4


def test_normal_cdf_in_a_helper_is_one_graph():
    x = np.linspace(-4, 4, 101)
    got = _compiled(cdf_sum, x, 0.25)
    assert type(got) is type(cdf_sum(x, 0.25)) and np.isclose(got, cdf_sum(x, 0.25), rtol=1e-13)


def test_erf_outside_loops_returns_a_python_float():
    x = np.array([0.7, -3.1])
    got = _compiled(one_erf, x)
    assert type(got) is float and np.isclose(got, one_erf(x), rtol=1e-13)


def heading_degrees(y, x):
    out = np.empty(len(y))
    for i in range(len(y)):
        out[i] = math.degrees(math.atan2(y[i], x[i])) + math.radians(float(i))
    return out


def total_degrees(v):
    t = 0.0
    for i in range(len(v)):
        t += math.degrees(v[i])
    return t


def dihedral_degrees(b):
    return math.degrees(math.atan2(b[0], b[1])), math.radians(b[2])


@seed(11)
@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-1e308, 1e308), min_size=3, max_size=12))
def test_degrees_and_radians_like_python(values):
    """CPython's `x * (180 / pi)` and `x * (pi / 180)`: in loops and at the frame's level,
    Python floats out, an infinity (no warning) past the range, one graph."""
    from probe_harness import assert_behaves_as_numpy

    v = np.array(values)
    for fn, args in ((heading_degrees, (v, v[::-1].copy())), (total_degrees, (v,)),
                     (dihedral_degrees, (v,))):
        assert_behaves_as_numpy(fn, *args)
        assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]
