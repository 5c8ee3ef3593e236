"""Floating-point warnings and errors probed as a new user would: NumPy's default warnings,
`np.errstate`, `np.seterr` and `warnings` filters inside and around compiled code, and
NumPy's exceptions for integer powers; category and message must be NumPy's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from probe_harness import assert_behaves_as_numpy


def in_place_power(b):
    b **= b
    return b


def log(x):
    return np.log(x)


def divisions(x, y):
    return x / y, x // y, x % y


def _reciprocal(x):
    return np.reciprocal(x)


@pytest.mark.parametrize(("fn", "args"), [
    (in_place_power, (np.array([-1, 2, 3]),)),
    (in_place_power, (np.array([-1.5, 2.0]),)),
    (in_place_power, (np.array([0, 2]),)),
    (log, (np.array([0.0, 1.0]),)),
    (log, (np.array([-1.0, 1.0]),)),
    (divisions, (np.array([1, 0, -3]), np.array([0, 0, 2]))),
    (divisions, (np.array([1.0, 0.0, -3.0]), np.array([0.0, 0.0, 2.0]))),
    (lambda x: np.exp(x), (np.array([100.0], np.float32),)),
    (lambda x: np.sqrt(x), (np.array([-1.0]),)),
    (lambda x: x * np.float32(1e30), (np.array([1e30], np.float32),)),
    (_reciprocal, (np.array([0, 1, 2, -1]),)),
    (_reciprocal, (np.array([0, 1, 2, -1], np.int32),)),
    (_reciprocal, (np.array([0, 1, 2, -1], np.int8),)),
    (_reciprocal, (np.array([0, 1, 2], np.uint16),)),
    (_reciprocal, (np.arange(-3, 20)[::-2],)),
    (_reciprocal, (np.array([1, -1, 7]),)),
])
@pytest.mark.parametrize("errstate", [None, {"all": "raise"}, {"divide": "ignore"},
                                      {"all": "warn"}, {"invalid": "raise"}])
def test_warnings_and_errors_under_errstate(fn, args, errstate):
    context = (lambda: np.errstate(**errstate)) if errstate else None
    if context is None:
        assert_behaves_as_numpy(fn, *args)
    else:
        assert_behaves_as_numpy(fn, *args, context=context)


def errstate_inside(x):
    with np.errstate(all="raise"):
        return x / 0.0


def seterr_inside(x):
    old = np.seterr(divide="raise")
    try:
        return np.log(x)
    finally:
        np.seterr(**old)


def filter_inside(x):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return np.log(x)


def ignore_filter_inside(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.log(x) + 1


@pytest.mark.parametrize("fn", [errstate_inside, seterr_inside, filter_inside,
                                ignore_filter_inside])
def test_error_handling_set_inside_the_function(fn):
    # A `warnings` filter set inside the function is Python around the graphs.
    assert_behaves_as_numpy(fn, np.array([0.0, 2.0]),
                            compiled_code=fn not in (filter_inside, ignore_filter_inside))


class _ErrorFilter:
    def __enter__(self):
        self.filters = warnings.catch_warnings()
        self.filters.__enter__()
        warnings.simplefilter("error", RuntimeWarning)

    def __exit__(self, *exc):
        return self.filters.__exit__(*exc)


def test_a_warnings_filter_around_the_call_turns_the_warning_into_an_error():
    assert_behaves_as_numpy(log, np.array([0.0, 3.0]), context=_ErrorFilter)


def test_float32_exp_of_a_subnormal_under_underflow_raise():
    assert_behaves_as_numpy(lambda a: np.exp(a), np.array([1e-40], np.float32),
                            context=lambda: np.errstate(all="raise"))


def _cast_then_cancelled(a):
    t0 = a.astype(np.int32)
    return t0 - t0


def _cast_then_cancelled_in_place(a):
    t0 = a.astype(np.int64) + 1
    t0 -= t0
    return t0, (a.astype(np.int32) * 0) ^ 1, a.astype(np.int32) % 1


def _cast_then_folded(a):
    t = a.astype(np.int32)
    return ((t << 0) - t, (t + 1) - (t + 1), np.where(t > 0, 1, 1), np.maximum(t, t) - t,
            np.abs(t) - np.abs(t))


@pytest.mark.parametrize("errstate", [{}, {"all": "raise"}, {"invalid": "ignore"}])
@pytest.mark.parametrize("fn", [_cast_then_cancelled, _cast_then_cancelled_in_place,
                                _cast_then_folded])
@pytest.mark.parametrize("backend", ["cranelift", "eager"])
def test_a_cast_whose_result_cancels_still_warns(backend, fn, errstate):
    """Cranelift folds `t0 - t0` (`t0 * 0`, `t0 % 1`, `np.maximum(t, t) - t`...) of integers
    to a constant, which would drop the float-to-int conversion and the invalid flag NumPy's
    cast raises: capture keeps such a cast as an extra output."""
    from fp_harness import assert_same_fp_behaviour

    for a in (np.array([[np.nan, 1.0]], np.float32), np.array([[3.0, 1e30]]),
              np.array([[3.0, 1.0]])):
        assert_same_fp_behaviour(fn, (a,), backend, **errstate)


def _read_only_by_empty_results(a, c):
    t = np.sqrt(c)
    return a + t, (a * np.log(c)).sum(), a[:0] * np.exp(c * 1000)


@pytest.mark.parametrize("errstate", [{}, {"all": "raise"}])
@pytest.mark.parametrize("backend", ["cranelift", "eager"])
def test_values_read_only_by_empty_results_still_warn(backend, errstate):
    """NumPy computes `np.sqrt(c)` before adding it to an array with no elements; fused into
    that empty addition it would never run, so capture keeps it as an extra output (found by
    the fuzzer)."""
    from fp_harness import assert_same_fp_behaviour

    assert_same_fp_behaviour(_read_only_by_empty_results,
                             (np.zeros((0, 1), bool), np.array([[-1, 4]], np.int32)),
                             backend, **errstate)
