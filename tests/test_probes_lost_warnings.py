"""Probes of a sceptic: conditions a loop computes that decide nothing (`if c: pass`, `c or
True`, `c and False` before a `break`, `x if c else x`) still give NumPy's warnings about
what they compute, once per element as NumPy's scalar loop gives them, and `np.clip` keeps the
zero NumPy keeps where a bound is a zero of the other sign. Each program is compiled on both
backends and called twice; every call must give plain NumPy's `record`."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, define, record


def _same(source, args):
    def scenario(wrap):
        f = wrap(define(source))
        return [record(f, args) for _ in range(2)]

    assert_scenario_as_numpy(scenario, compiled_code=False)


LENGTHS = [4, 40]
UNUSED = {
    "if_with_an_empty_arm": ("def f(a):\n    c = 0\n    for i in range(len(a)):\n"
                             "        if np.sqrt(a[i]) > 1:\n            pass\n"
                             "        c += 1\n    return c\n"),
    "condition_or_true": ("def f(a):\n    c = 0\n    for i in range(len(a)):\n"
                          "        if np.log(a[i]) > 1 or True:\n            c += 1\n"
                          "    return c\n"),
    "condition_and_false_before_a_break": (
        "def f(a):\n    h = 0\n    for i in range(len(a)):\n"
        "        if np.sqrt(a[i]) < a[i] and 0 % 3 == 1:\n            break\n"
        "        h = h * 31 + 1\n    return h\n"),
    "same_value_either_way": ("def f(a):\n    s = 0.0\n    for i in range(len(a)):\n"
                              "        s += 1.0 if np.sqrt(a[i]) > 0 else 1.0\n    return s\n"),
}


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", ["float64", "int32"])
@pytest.mark.parametrize("name", sorted(UNUSED))
def test_conditions_that_decide_nothing_still_warn(name, dtype, n):
    a = np.resize(np.array([3, -1, 4, -2, 0]), n).astype(dtype)
    _same(UNUSED[name], (a,))


@pytest.mark.parametrize("name", sorted(UNUSED))
def test_conditions_that_decide_nothing_without_warnings(name):
    _same(UNUSED[name], (np.arange(1.0, 41.0),))


CLIPS = {
    "python_float_bounds": ("def f(a):\n    return (np.clip(a, -0.0, 1.0), np.clip(a, 0.0, 0.5),"
                            " np.clip(a, -1.0, -0.0), np.clip(a, -1, 0.0))\n"),
    "method_and_one_bound": ("def f(a):\n    return (a.clip(-0.0, 1.0), a.clip(min=-0.0),"
                             " a.clip(max=0.0), a.clip(0.0, None))\n"),
    "array_bounds": ("def f(a):\n    lo = np.zeros_like(a) * -1\n    return (np.clip(a, lo, 1.0),"
                     " np.clip(a, -0.0, lo + 1), np.clip(a, lo[:1], 1.0))\n"),
    "two_dimensions": ("def f(a):\n    m = a.reshape(2, -1)\n    return (np.clip(m, -0.0, 1.0),"
                       " np.clip(m, np.zeros((2, 1)) * -1, 1.0),"
                       " np.clip(m.T, np.float64(-0.0), np.array(0.5)))\n"),
    "elements_in_a_loop": ("def f(a):\n    out = np.empty_like(a)\n"
                           "    for i in range(len(a)):\n"
                           "        out[i] = np.clip(a[i], -0.0, 1.0)\n    return out\n"),
    "rows_in_a_loop": ("def f(a):\n    m = a.reshape(2, -1).copy()\n    for i in range(2):\n"
                       "        m[i] = np.clip(m[i], -0.0, 0.0)\n    return m\n"),
    "maximum_then_minimum": ("def f(a):\n    return (np.minimum(np.maximum(a, -0.0), 0.0),"
                             " np.minimum(0.0, np.maximum(-0.0, a)))\n"),
    "float32": ("def f(a):\n    b = a.astype(np.float32)\n"
                "    return np.clip(b, -0.0, 1.0), np.clip(b, np.float32(-0.0), 2)\n"),
    "integers_with_float_bounds": ("def f(a):\n    b = a.astype(np.int64)\n"
                                   "    return np.clip(b, -0.0, 1.0), np.clip(b, 0, 1)\n"),
}


@pytest.mark.parametrize("n", [8, 40])
@pytest.mark.parametrize("name", sorted(CLIPS))
def test_clip_keeps_numpys_zero(name, n):
    a = np.resize(np.array([0.0, -0.0, 2.0, -3.0, np.nan, 0.5, -0.0, 0.0]), n)
    _same(CLIPS[name], (a,))
