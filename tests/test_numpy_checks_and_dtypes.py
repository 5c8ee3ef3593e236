"""NumPy code that validates its data before computing, as NumPy's own functions and users'
do (`if np.any(w < 0): raise ValueError(...)`): the path that only raises becomes a run-time
check that runs the frame as Python, and the rest is one graph. Also ufuncs with `dtype=`
(`np.multiply(a, w, dtype=np.float64)` inside `np.average`) and axis orders NumPy computes
from constants (`np.rot90`, `x.transpose(np.argsort(axes))`). Against NumPy: results (repr:
dtype, shape, scalar type, every digit), exceptions and warnings."""

from __future__ import annotations

import warnings

import ember
import numpy as np
import pytest


def _outcome(fn, args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = repr(fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args]))
        except Exception as exc:  # noqa: BLE001 -- compared with NumPy's
            result = f"{type(exc).__name__}: {exc}"
    return result, sorted(str(w.message) for w in caught)


def _assert_as_numpy(fn, *args, graphs=True):
    want = _outcome(fn, args)
    ember.reset()
    compiled = ember.compile(fn)
    for _ in range(2):
        assert _outcome(compiled, args) == want
    stats = ember.stats()
    if graphs:
        assert stats["graph_breaks"] == 0 and stats["compiles"] >= 1, stats["break_reasons"]
    return stats


def weighted(x, w):
    if np.any(w < 0):
        raise ValueError(f"negative weight {w.min()}")
    return (x * w[:, None]).sum(axis=0) / w.sum()


def rows_checked(x):
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        total = x[i].sum()
        if total < 0:
            raise ValueError("a row sums below zero")
        out[i] = np.sqrt(total)
    return out


def handled(x):
    try:
        if np.isnan(x).any():
            raise FloatingPointError("NaN in the data")
        return np.sqrt(x).sum()
    except FloatingPointError:
        return -1.0


RNG = np.random.default_rng(0)
X = RNG.random((6, 5))


@pytest.mark.parametrize("fn,args,raises", [
    (weighted, (X, RNG.random(6)), False),
    (weighted, (X, RNG.random(6) - 0.5), True),
    (rows_checked, (X,), False),
    (rows_checked, (X - 0.5,), True),
    (handled, (X[0],), False),
    (handled, (np.array([1.0, np.nan]),), True),
])
def test_a_path_that_only_raises_is_a_check(fn, args, raises):
    stats = _assert_as_numpy(fn, *args)
    if not raises:  # data that passes the check runs compiled code only
        assert stats["entry_fallbacks"] == 0, stats


@pytest.mark.parametrize("fn", [
    lambda x, w: np.average(x, axis=0, weights=w),
    lambda x, w: np.average(x, axis=1, weights=np.arange(1.0, 6.0), returned=True),
    lambda x, w: np.average(x.astype(np.int32), axis=0, weights=(w * 10).astype(np.int64)),
    lambda x, w: np.average(x.astype(np.float32), weights=np.ones_like(x)),
])
def test_weighted_averages(fn):
    _assert_as_numpy(fn, X, RNG.random(6))


def test_weights_summing_to_zero_raise_numpys_error():
    _assert_as_numpy(lambda x, w: np.average(x, axis=0, weights=w), X, np.zeros(6))


@pytest.mark.parametrize("fn", [
    lambda x: np.multiply(x.astype(np.int32), 3, dtype=np.float32),
    lambda x: np.add(x, 1e300, dtype=np.float32),  # NumPy's overflow in the cast
    lambda x: np.subtract(x.astype(np.float32), x, dtype=np.float64),
    lambda x: np.maximum(x, 0.5, dtype=np.float32),
    lambda x: np.add(x.astype(np.uint8), 2, dtype=np.int16),
    lambda x: np.sqrt(x, dtype=np.float32) * 2,
])
def test_ufuncs_with_dtype(fn):
    _assert_as_numpy(fn, X * 10)


@pytest.mark.parametrize("fn", [
    lambda x: np.add(x, 1, dtype=np.int64),  # float64 -> int64 is not same_kind: NumPy raises
    lambda x: np.less(x, 0.5, dtype=np.float64),
])
def test_ufuncs_with_dtype_numpy_answers(fn):
    _assert_as_numpy(fn, X, graphs=False)


@pytest.mark.parametrize("fn", [
    lambda x: np.rot90(x) * 2,
    lambda x: np.rot90(x, 3, axes=(1, 0)) + 1,
    lambda x: x[None].transpose(np.argsort((2, 0, 1))) * 2,
    lambda x: np.transpose(x[None], np.array([1, 2, 0])) - 1,
    lambda x: x.reshape(np.array([3, 10])) * 2,
])
def test_axes_computed_from_constants(fn):
    _assert_as_numpy(fn, X)
