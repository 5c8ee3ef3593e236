"""A Python int that changes between calls, passed to a ufunc beside an array
(`np.add(a, n)`, `np.maximum(n, a)`): it enters the graph as data, as `a + n` takes it, so one
graph serves every value; a value beyond the range of a narrow integer array raises NumPy's
OverflowError (or compares as NumPy compares the numbers) on every call."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, define, record

VALUES = [1, 2, 3, 200, -1, 127, 128, -129, 300, 2**40, 2**63 - 1, 2**63, 2**70, -2**70, 0,
          True]
ARRAYS = {"int8": np.array([1, -2, 100], np.int8), "uint8": np.array([1, 2, 250], np.uint8),
          "int64": np.array([1, -2, 3]), "float32": np.array([1.5, -2, 3], np.float32),
          "bool": np.array([True, False, True]),
          "uint64": np.array([1, 2, 2**63], np.uint64)}
PROGRAMS = {
    "add": "def f(a, s):\n    return np.add(a, s)\n",
    "add_reflected": "def f(a, s):\n    return np.add(s, a)\n",
    "subtract_multiply": "def f(a, s):\n    return np.subtract(a, s), np.multiply(s, a)\n",
    "true_divide": "def f(a, s):\n    return np.true_divide(a, s)\n",
    "maximum_fmin": "def f(a, s):\n    return np.maximum(a, s), np.fmin(s, a)\n",
    "comparisons": ("def f(a, s):\n"
                    "    return np.less(a, s), np.equal(s, a), np.not_equal(a, s)\n"),
    "element_in_a_loop": ("def f(a, s):\n    out = np.zeros_like(a)\n"
                          "    for i in range(len(a)):\n        out[i] = np.add(a[i], s)\n"
                          "    return out\n"),
    "computed_int": "def f(a, s):\n    return np.add(a, s * 2 - 1)\n",
}


@pytest.mark.parametrize("array", sorted(ARRAYS))
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_changing_python_int_operand_of_a_ufunc(name, array):
    def scenario(wrap):
        f = wrap(define(PROGRAMS[name]))
        return [record(f, (ARRAYS[array].copy(), v)) for v in VALUES]

    assert_scenario_as_numpy(scenario, compiled_code=False)


@pytest.mark.parametrize("name", ["add", "add_reflected", "maximum_fmin", "comparisons",
                                  "element_in_a_loop"])
def test_one_graph_for_every_value(name):
    f = define(PROGRAMS[name])
    ember.reset()
    compiled = ember.compile(f)
    for s in range(1, 9):
        got, want = compiled(np.arange(4.0), s), f(np.arange(4.0), s)
        assert repr(got) == repr(want)
    # the first graph specialises on the value, the one after a change takes any value
    assert ember.stats()["compiles"] <= 2, ember.stats()["recompile_reasons"]
