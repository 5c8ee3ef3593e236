"""A Python number carried through a loop that only some paths make a NumPy scalar
(`s = 0.0`, then `s = a[i] * 2` on one path and `return s` or nothing on the other): where
no path that converts it ran, the frame returns the Python number itself, as plain Python
does (a loop op carried it as the NumPy scalar, which prints and promotes differently).
Each program is compiled and called twice on inputs that take each path."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, define, record

PROGRAMS = {
    "return_before_the_first_conversion": (
        "def f(a, t):\n    s = 0.0\n    for i in range(a.shape[0]):\n        if a[i] > t:\n"
        "            return s\n        s += a[i]\n    return s * 2.0\n"),
    "return_on_the_else_path": (
        "def f(a, t):\n    s = 0.0\n    for i in range(len(a)):\n        if a[i] < t:\n"
        "            s = a[i] * 2\n        else:\n            return s\n    return a\n"),
    "converted_in_a_nested_loop_never_taken": (
        "def f(a, t):\n    s = 0.0\n    for i in range(len(a)):\n        for j in range(i):\n"
        "            if j < 0:\n                s = np.exp(a[j])\n    return s\n"),
    "converted_in_a_nested_loop_or_returned": (
        "def f(a, t):\n    s = 0.0\n    for i in range(len(a)):\n        for j in range(i):\n"
        "            if a[j] > t:\n                s *= np.exp(a[j])\n            else:\n"
        "                return s\n    return a\n"),
    "python_int_counter_or_element": (
        "def f(a, t):\n    k = 0\n    for i in range(len(a)):\n        for j in range(2):\n"
        "            if a[i] > t:\n                k = a[i]\n    return k, type(k).__name__\n"),
    "nonzero_start_in_float32": (
        "def f(a, t):\n    s = 0.1\n    for i in range(len(a)):\n        if a[i] < t:\n"
        "            s = a[i] * 2\n        else:\n            return s\n    return s\n"),
}
INPUTS = [(np.array([4.0, -0.5, 1.5], np.float32), 0.5), (np.linspace(0.1, 1, 12), 0.05),
          (np.linspace(0.1, 1, 12), 2.0), (np.arange(200.0, 210.0), 100.0)]


@pytest.mark.parametrize("inputs", range(len(INPUTS)))
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_python_number_a_loop_may_leave_alone(name, inputs):
    a, t = INPUTS[inputs]

    def scenario(wrap):
        f = wrap(define(PROGRAMS[name]))
        return [record(f, (a.copy(), np.float64(t))) for _ in range(2)]

    assert_scenario_as_numpy(scenario, compiled_code=False)
