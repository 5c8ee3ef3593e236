"""np.nanmax nanmin nanargmax nanargmin nanmean nanvar nanstd nanmedian compiled, against NumPy: values,
dtypes, shapes, scalar types, and for slices without numbers NumPy's own warnings ('All-NaN
slice encountered', 'Mean of empty slice', 'Degrees of freedom <= 0 for slice.') and errors
(the arg reductions' ValueError), which the frame gives by running again as Python."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ember

REDUCTIONS = {
    "nanmax": lambda x, axis, keep: np.nanmax(x, axis=axis, keepdims=keep),
    "nanmin": lambda x, axis, keep: np.nanmin(x, axis=axis, keepdims=keep),
    "nanargmax": lambda x, axis, keep: np.nanargmax(x, axis=axis, keepdims=keep),
    "nanargmin": lambda x, axis, keep: np.nanargmin(x, axis=axis),
    "nanmean": lambda x, axis, keep: np.nanmean(x, axis=axis, keepdims=keep),
    "nanmean_f64": lambda x, axis, keep: np.nanmean(x, axis=axis, dtype=np.float64),
    "nanvar": lambda x, axis, keep: np.nanvar(x, axis=axis, keepdims=keep),
    "nanstd_ddof": lambda x, axis, keep: np.nanstd(x, axis=axis, ddof=1, keepdims=keep),
    "nanvar_correction": lambda x, axis, keep: np.nanvar(x, axis=axis, correction=0.5),
    "nanmedian": lambda x, axis, keep: np.nanmedian(x, axis=axis, keepdims=keep),
    "fused": lambda x, axis, keep: np.nanmean(x * 2.0, axis=axis) - np.nanmin(x, axis=axis),
}


def _outcome(fn, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(*args)
        except Exception as exc:  # noqa: BLE001 -- the compiled program must raise the same
            result = exc
    return result, sorted({str(w.message) for w in caught})


def _assert_same(got, want):
    if isinstance(want, Exception):
        assert type(got) is type(want) and str(got) == str(want), (got, want)
        return
    assert type(got) is type(want), (got, want)
    assert got.dtype == want.dtype and np.shape(got) == np.shape(want), (got, want)
    # Whole-array float sums of 2-d arrays may differ from NumPy's in the last digit.
    tol = 1e-5 if want.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=0, equal_nan=True)


def _assert_like_numpy(fn, x, axis, keep):
    want = _outcome(fn, x.copy(), axis, keep)
    ember.reset()
    compiled = ember.compile(fn)
    for _ in range(2):
        got = _outcome(compiled, x.copy(), axis, keep)
        _assert_same(got[0], want[0])
        assert got[1] == want[1]
    return ember.stats()


@st.composite
def _cases(draw):
    dtype = draw(st.sampled_from([np.float32, np.float64, np.int64]))
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=1, max_size=3)))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    x = (rng.standard_normal(shape) * 10).astype(dtype)
    if x.dtype.kind == "f":
        x[rng.random(shape) < draw(st.sampled_from([0.0, 0.3, 0.8]))] = np.nan
        if draw(st.booleans()) and len(shape) > 1:
            x[(0,) * (len(shape) - 1)] = np.nan  # one slice without numbers
    axis = draw(st.sampled_from([None, *range(-len(shape), len(shape))]))
    return x, axis, draw(st.booleans())


@pytest.mark.parametrize("name", REDUCTIONS)
@given(case=_cases())
def test_nan_reductions_as_numpy(name, case):
    x, axis, keep = case
    _assert_like_numpy(REDUCTIONS[name], x, axis, keep)


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_numbers_everywhere_compile_to_one_graph(name, dtype):
    x = np.random.default_rng(3).standard_normal((40, 30)).astype(dtype)
    x[::3, ::4] = np.nan
    s = _assert_like_numpy(REDUCTIONS[name], x, 1, False)
    assert s["compiles"] == 1 and s["graph_breaks"] == 0, s
    assert s["entry_fallbacks"] == 0, s


@pytest.mark.parametrize("length", [7, 600, 601])
def test_nanmedian_of_long_and_short_axes_and_in_a_loop(length):
    """A short axis is NumPy's masked median (half the sum of the middle two, a lone middle
    element too), a long one np.median of each slice's numbers."""
    x = np.random.default_rng(4).standard_normal((3, length)) * 1e307
    x[:, ::5] = np.nan
    for axis in (1, None):
        s = _assert_like_numpy(lambda x, axis, keep: np.nanmedian(x, axis=axis), x, axis, False)
        assert s["graph_breaks"] == 0 and s["entry_fallbacks"] == 0, s

    def rows(x):
        out = np.empty(x.shape[0])
        for i in range(x.shape[0]):
            out[i] = np.nanmedian(x[i])
        return out

    s = _assert_like_numpy(lambda x, axis, keep: rows(x), x, None, False)
    assert s["graph_breaks"] == 0 and s["entry_fallbacks"] == 0, s


def _row_stats(x):
    out = np.empty((x.shape[0], 4))
    for i in range(x.shape[0]):
        out[i, 0] = np.nanmean(x[i])
        out[i, 1] = np.nanmax(x[i]) - np.nanmin(x[i])
        out[i, 2] = np.nanstd(x[i])
        out[i, 3] = np.nanargmax(x[i])
    return out


@pytest.mark.parametrize("empty_row", [None, 0, 17])
def test_in_a_loop_body(empty_row):
    """A loop op over rows; a row without numbers reruns the frame as Python: NumPy's warnings
    (or its ValueError from nanargmax) from the row where NumPy gives them."""
    x = np.random.default_rng(4).standard_normal((30, 12))
    x[np.random.default_rng(5).random(x.shape) < 0.2] = np.nan
    if empty_row is not None:
        x[empty_row] = np.nan
    want = _outcome(_row_stats, x.copy())
    ember.reset()
    compiled = ember.compile(_row_stats)
    for _ in range(2):
        got = _outcome(compiled, x.copy())
        if isinstance(want[0], Exception):
            _assert_same(got[0], want[0])
        else:
            np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1]
    s = ember.stats()
    assert s["compiles"] >= 1 and s["graph_breaks"] == 0, s


def test_under_errstate_ignore_numpy_still_warns():
    """NumPy's slice warnings come from `warnings.warn`, not from the floating-point error
    state: np.errstate(all='ignore') leaves them, and so does the compiled function."""
    def fn(x):
        with np.errstate(all="ignore"):
            return np.nanmax(x, axis=1), np.nanmean(x, axis=0)

    x = np.array([[np.nan, np.nan], [1.0, np.nan]])
    want = _outcome(fn, x.copy())
    ember.reset()
    got = _outcome(ember.compile(fn), x.copy())
    assert got[1] == want[1] == ["All-NaN slice encountered", "Mean of empty slice"]
    for g, w in zip(got[0], want[0]):
        _assert_same(g, w)


@pytest.mark.parametrize("x, reruns", [
    ([1.0, np.nan, 3.0], False), ([np.inf, -np.inf, np.nan, 0.0], False), ([np.inf, 1.0], False),
    ([np.nan, np.nan], True),  # no number: NumPy's NaN and warning
    ([-0.0, 0.0], True), ([0.0, np.nan, -0.0], True),  # which zero np.fmax.reduce keeps
    ([-0.0, -1.0, 0.5], False), ([0.0, -0.0, 2.0, -3.0], False),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nanmax_and_nanmin_corners(x, reruns, dtype):
    """Slices NumPy answers itself run the frame as Python (an entry fallback); the others
    stay compiled."""
    def fn(v):
        return np.nanmax(v), np.nanmin(v), np.nanmax(-v)

    v = np.array(x, dtype)
    want = _outcome(fn, v.copy())
    ember.reset()
    got = _outcome(ember.compile(fn), v.copy())
    assert repr(got[0]) == repr(want[0]) and got[1] == want[1]
    assert (ember.stats()["entry_fallbacks"] > 0) == reruns


@pytest.mark.parametrize("fn", [
    lambda x: np.nanmean(x ** 2), lambda x: np.nanvar(x) + np.nanstd(x, ddof=1),
    lambda x: np.nanmax(x * x) - np.nanmin(np.sin(x)),
    lambda x: np.sum(np.nanmean(x, axis=0) * np.nanmax(x, axis=0)),
])
def test_gradients_at_the_numbers_are_central_differences(fn):
    x = np.random.default_rng(6).standard_normal((4, 5))
    x[1, 2] = x[3, 0] = np.nan
    grad = ember.grad(fn)(x.copy())
    numbers = ~np.isnan(x)
    for i, j in zip(*np.nonzero(numbers)):
        step = np.zeros_like(x)
        step[i, j] = 1e-6
        want = (fn(x + step) - fn(x - step)) / 2e-6
        np.testing.assert_allclose(grad[i, j], want, rtol=1e-5, atol=1e-7)
