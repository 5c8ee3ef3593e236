"""Warnings and floating-point error handling as an outsider probes them: `np.errstate`
nested inside the compiled function (inner settings win, outer ones come back), as a
decorator of the compiled function and of a helper it calls, `np.seterr` called inside and
undone, `warnings.catch_warnings` with `error` filters (all, by message, by category), NumPy
scalar integer overflow warnings, underflow, casts that overflow, warnings inside loops
(counted per iteration), a `FloatingPointError` caught inside the function, and the caller's
errstate changed between calls. Each program runs unwrapped and compiled on both backends and
is compared as a `record` (results, every warning with its count, exceptions with messages)."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, define, record

X = np.array([0.0, 1.0, -1.0, 4.0, np.inf])
Z = np.array([0.0, -0.0, 2.0])

PROGRAMS = {
    "errstate_nested_inner_wins":
        ("def f(x):\n    with np.errstate(divide='ignore'):\n        a = np.log(x)\n"
         "        with np.errstate(divide='raise'):\n            try:\n"
         "                b = np.log(x)\n            except FloatingPointError as e:\n"
         "                b = str(e)\n        c = 1.0 / x\n    return a, b, c\n", X),
    "errstate_nested_outer_restored":
        ("def f(x):\n    with np.errstate(invalid='raise'):\n"
         "        with np.errstate(invalid='ignore'):\n            a = np.sqrt(x)\n"
         "        b = np.sqrt(x)\n    return a, b\n", X),
    "errstate_warn_inside_ignore_outside":
        ("def f(x):\n    with np.errstate(all='ignore'):\n        a = x / 0\n"
         "    with np.errstate(all='warn'):\n        b = x / 0\n    return a, b\n", X),
    "errstate_call_and_print_modes":
        ("def f(x):\n    with np.errstate(divide='print'):\n        a = np.log(x[:1])\n"
         "    return a\n", X),
    "seterr_inside_then_restored":
        ("def f(x):\n    old = np.seterr(divide='raise')\n    try:\n        return np.log(x)\n"
         "    finally:\n        np.seterr(**old)\n", X),
    "seterr_inside_and_returned":
        ("def f(x):\n    old = np.seterr(all='ignore')\n    r = x / 0, np.geterr()['divide']\n"
         "    np.seterr(**old)\n    return r, np.geterr()['divide']\n", X),
    "catch_warnings_error_filter":
        ("import warnings\n"
         "def f(x):\n    with warnings.catch_warnings():\n        warnings.simplefilter('error')\n"
         "        try:\n            return np.log(x)\n        except RuntimeWarning as w:\n"
         "            return 'caught ' + str(w)\n", X),
    "catch_warnings_error_by_message":
        ("import warnings\n"
         "def f(x):\n    with warnings.catch_warnings():\n"
         "        warnings.filterwarnings('error', message='invalid')\n        a = np.log(x)\n"
         "        try:\n            b = np.sqrt(x - 2)\n        except RuntimeWarning as w:\n"
         "            b = str(w)\n    return a, b\n", X),
    "catch_warnings_ignore_category":
        ("import warnings\n"
         "def f(x):\n    with warnings.catch_warnings():\n"
         "        warnings.simplefilter('ignore', RuntimeWarning)\n        a = np.log(x)\n"
         "    b = np.log(x)\n    return a, b\n", X),
    "catch_warnings_record_inside":
        ("import warnings\n"
         "def f(x):\n    with warnings.catch_warnings(record=True) as w:\n"
         "        warnings.simplefilter('always')\n        a = np.log(x) + np.sqrt(x)\n"
         "    return a, sorted(str(m.message) for m in w)\n", X),
    "scalar_int8_overflow_warns":
        ("def f(a):\n    s = a[0]\n    return s + s, s * np.int8(2), a + a\n",
         np.array([127, 1], np.int8)),
    "scalar_int64_overflow_warns":
        ("def f(a):\n    s = a[0]\n    return s * 4, s + s, -a[1]\n",
         np.array([2**62, -2**63], np.int64)),
    "scalar_uint_subtract_warns":
        ("def f(u):\n    return u[0] - u[1], u - u[::-1]\n", np.array([1, 2], np.uint32)),
    "scalar_int_overflow_under_errstate_raise":
        ("def f(a):\n    with np.errstate(over='raise'):\n        try:\n"
         "            return a[0] + a[0]\n        except FloatingPointError as e:\n"
         "            return str(e)\n", np.array([127], np.int8)),
    "array_int_overflow_is_silent_under_raise":
        ("def f(a):\n    with np.errstate(all='raise'):\n        return a + a, a * 100\n",
         np.array([127, -128], np.int8)),
    "float32_scalar_overflow_and_underflow":
        ("def f(x):\n    s = x[0]\n    with np.errstate(under='warn'):\n"
         "        t = x[1] * np.float32(1e-30)\n    return s * np.float32(10), t\n",
         np.array([3e38, 1e-20], np.float32)),
    "array_underflow_warns_only_when_asked":
        ("def f(x):\n    a = x * 1e-300\n    with np.errstate(under='warn'):\n"
         "        b = x * 1e-300\n    return a, b\n", np.array([1e-20, 1.0])),
    "float16_cast_overflow_warns":
        ("def f(x):\n    return x.astype(np.float16), (x * 2).astype(np.float32)\n",
         np.array([1e5, 1.0, 1e300])),
    "int_cast_of_nan_and_huge_warns":
        ("def f(x):\n    return x.astype(np.int32), x.astype(np.int8)\n",
         np.array([np.nan, 1e10, 3.7, -200.0])),
    "warnings_counted_per_loop_iteration":
        ("def f(x):\n    out = []\n    for i in range(3):\n        out.append(np.log(x - i))\n"
         "    return out\n", X),
    "warning_raised_as_error_mid_loop_keeps_writes":
        ("import warnings\n"
         "def f(x):\n    with warnings.catch_warnings():\n        warnings.simplefilter('error')\n"
         "        for i in range(len(x)):\n            x[i] = x[i] * 2\n"
         "            if i == 2:\n                np.log(x[:1] * 0)\n    return x\n", X),
    "floating_point_error_caught_inside":
        ("def f(x):\n    try:\n        with np.errstate(invalid='raise'):\n"
         "            return np.sqrt(x)\n    except FloatingPointError:\n"
         "        return np.sqrt(np.abs(x))\n", X),
    "user_warning_from_the_function":
        ("import warnings\n"
         "def f(x):\n    if (x < 0).any():\n        warnings.warn('negative input', UserWarning)\n"
         "    return np.abs(x)\n", X),
    "divide_warning_once_per_ufunc_call":
        ("def f(x, z):\n    a = x / z[0]\n    b = np.divide(x, z[1])\n    c = x % z[0]\n"
         "    return a, b, c\n", X, Z),
    "mean_of_empty_warns":
        ("def f(x):\n    return x[:0].mean(), np.nanmean(np.full(2, np.nan))\n", X),
    "invalid_from_inf_minus_inf":
        ("def f(x):\n    y = x[-1:] - x[-1:]\n    return y, x * 0, np.inf * 0 + x[:1]\n", X),
}

# Programs that break the graph by design (`warnings` and `np.seterr` calls, Python's
# exceptions of NumPy scalar math, a warning or FloatingPointError caught inside, empty means
# NumPy warns about): compared all the same.
BREAKS = {"seterr_inside_then_restored", "seterr_inside_and_returned",
          "catch_warnings_error_filter", "catch_warnings_error_by_message",
          "catch_warnings_ignore_category", "catch_warnings_record_inside",
          "warning_raised_as_error_mid_loop_keeps_writes", "user_warning_from_the_function",
          "mean_of_empty_warns", "scalar_int_overflow_under_errstate_raise",
          "floating_point_error_caught_inside", "errstate_nested_inner_wins",
          "errstate_nested_outer_restored",  # NumPy raises FloatingPointError
          "float16_cast_overflow_warns"}  # float16 is not supported


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_outsider_warnings_as_numpy(name):
    source, *args = PROGRAMS[name]
    fn = define(source)
    assert_scenario_as_numpy(lambda wrap: [record(wrap(fn), tuple(args)),
                                           record(wrap(fn), tuple(args))],
                             compiled_code=name not in BREAKS, falls_back=name in BREAKS)


@np.errstate(divide="raise", invalid="ignore")
def _decorated(x):
    return np.sqrt(x), np.log(x)


@np.errstate(all="ignore")
def _quiet_helper(x):
    return 1.0 / x


def _calls_quiet_helper(x):
    return _quiet_helper(x) + np.log(x)


def _errstate_decorators(wrap):
    seen = []
    for fn in (_decorated, _calls_quiet_helper):
        f = wrap(fn)
        seen += [record(f, (X,)), record(f, (X[1:4],))]
    return seen


def test_errstate_as_a_decorator_of_the_function_and_of_a_helper():
    assert_scenario_as_numpy(_errstate_decorators, compiled_code=False)


def _caller_errstate_changes(wrap):
    f = wrap(define("def f(x):\n    return np.log(x) * 2, x / x\n"))
    seen = []
    for settings in ({}, {"divide": "raise"}, {"all": "ignore"}, {"invalid": "raise"}, {}):
        with np.errstate(**settings):
            seen.append(record(f, (X,)))
        seen.append(record(f, (X[:2],), context=_warnings_as_errors))
    return seen


@contextlib.contextmanager
def _warnings_as_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def test_the_callers_errstate_and_warning_filters_change_between_calls():
    assert_scenario_as_numpy(_caller_errstate_changes, falls_back=True)
