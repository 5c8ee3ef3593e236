"""`np.median`, `np.percentile` and `np.quantile` (`numpy_api/order_statistics.py`) against
NumPy on random data: values, dtype, shape and NumPy scalar or array, NaN slices, every axis,
and one graph; the forms ember does not compile still run, as NumPy."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st


def _check(fn, a, compiled=True):
    ember.reset()
    want = fn(a.copy())
    got = ember.compile(fn)(a.copy())
    assert type(got) is type(want)
    assert np.asarray(got).dtype == np.asarray(want).dtype and np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0, equal_nan=True)
    stats = ember.stats()
    assert (stats["compiles"] == 1 and stats["graph_breaks"] == 0) == compiled, stats


def _data(draw_seed, shape, dtype, nans):
    r = np.random.default_rng(draw_seed)
    a = (r.standard_normal(shape) * 10).round(1).astype(dtype)
    if nans and a.dtype.kind == "f":
        a[r.random(shape) < 0.1] = np.nan
    return a


@seed(10)
@settings(max_examples=40, deadline=None)
@given(data_seed=st.integers(0, 2**16), shape=st.sampled_from([(7,), (8,), (5, 6), (4, 3, 5)]),
       dtype=st.sampled_from([np.float64, np.float32, np.int64, np.int32]),
       nans=st.booleans(), axis=st.sampled_from([None, 0, -1]), keepdims=st.booleans())
def test_median_like_numpy(data_seed, shape, dtype, nans, axis, keepdims):
    a = _data(data_seed, shape, dtype, nans)
    _check(lambda x: np.median(x, axis=axis, keepdims=keepdims), a)


@seed(11)
@settings(max_examples=40, deadline=None)
@given(data_seed=st.integers(0, 2**16), shape=st.sampled_from([(1,), (7,), (8,), (5, 6)]),
       nans=st.booleans(), axis=st.sampled_from([None, 0, -1]),
       q=st.one_of(st.floats(0, 100), st.lists(st.floats(0, 100), min_size=1, max_size=4),
                   st.sampled_from([0, 100, 50, [25, 75]])))
def test_percentile_and_quantile_like_numpy(data_seed, shape, nans, axis, q):
    a = _data(data_seed, shape, np.float64, nans)
    _check(lambda x: np.percentile(x, q, axis=axis), a)
    fractions = [v / 100 for v in q] if isinstance(q, list) else q / 100
    _check(lambda x: np.quantile(x, fractions, axis=axis), a)


@seed(12)
@settings(max_examples=60, deadline=None)
@given(data_seed=st.integers(0, 2**16), shape=st.sampled_from([(1,), (7,), (8,), (5, 6)]),
       dtype=st.sampled_from([np.float64, np.float32, np.int64, np.int32]),
       nans=st.booleans(), axis=st.sampled_from([None, 0, -1]),
       method=st.sampled_from(["lower", "higher", "nearest", "midpoint"]),
       q=st.one_of(st.floats(0, 1), st.lists(st.floats(0, 1), min_size=1, max_size=4),
                   st.sampled_from([0, 1, 0.5, [0.25, 0.75], 0.125, 0.375])))
def test_the_discrete_and_midpoint_methods(data_seed, shape, dtype, nans, axis, method, q):
    """lower, higher and nearest pick an element of any dtype; midpoint of float64 data."""
    a = _data(data_seed, shape, dtype, nans)
    compiled = method != "midpoint" or dtype == np.float64
    _check(lambda x: np.quantile(x, q, axis=axis, method=method), a, compiled)
    percents = [v * 100 for v in q] if isinstance(q, list) else q * 100
    _check(lambda x: np.percentile(x, percents, axis=axis, method=method), a, compiled)


def test_an_integer_quantile_picks_an_element():
    a = _data(0, (9,), np.float64, False)
    _check(lambda x: np.quantile(x, 1), a)
    _check(lambda x: np.quantile(x, [0, 1]), a)


@pytest.mark.parametrize("fn", [
    lambda x: np.percentile(x, 50.0),  # float32 data: NumPy keeps float32 for a Python q
    lambda x: np.percentile(x, [10, 90], method="weibull"),
    lambda x: np.median(x, overwrite_input=True),  # NumPy partitions `x` in place
])
def test_other_forms_run_as_numpy(fn):
    _check(fn, _data(3, (12,), np.float32, False), compiled=False)


def test_a_quantile_out_of_range_raises_numpys_error():
    a = _data(0, (9,), np.float64, False)
    for fn in (lambda x: np.percentile(x, 101), lambda x: np.quantile(x, [0.5, -0.1])):
        with pytest.raises(ValueError) as want:
            fn(a)
        with pytest.raises(ValueError, match=str(want.value).replace("[", r"\[")):
            ember.compile(fn)(a)
