"""A Python int known only at run time (an argument whose value changed between calls)
meeting an integer array of a narrower dtype: NumPy 2 raises OverflowError for an int beyond
the dtype's range (`int8_array + 200`) and compares the numbers (`uint8_array < 300`), so
such a call runs in NumPy; an int within the range stays in compiled code. Each program is
called with ints inside, at the edges of and beyond int8's and uint8's ranges and must give
plain NumPy's `record` every time."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, define, record

INTS = [2, 200, -129, 5, -1, 127, 128, 255, 256]
PROGRAMS = {
    "add": "def f(a, s):\n    return a + s\n",
    "reflected_sub": "def f(a, s):\n    return s - a\n",
    "compare": "def f(a, s):\n    return a < s, s >= a, a == s, a != s\n",
    "in_place": "def f(a, s):\n    a += s\n    return a\n",
    "floor_divide": "def f(a, s):\n    return a // s if s else a\n",
    "numpy_scalar": "def f(a, s):\n    return a[0] + s, a[1] * s\n",
    "in_a_loop": ("def f(a, s):\n    out = np.empty_like(a)\n    for i in range(a.shape[0]):\n"
                  "        out[i] = a[i] + s\n    return out\n"),
    "loop_compare": ("def f(a, s):\n    c = 0\n    for v in a:\n        if v > s:\n"
                     "            c += 1\n    return c\n"),
    "bitwise": "def f(a, s):\n    return a & s, a | 1\n",
    "ufunc": "def f(a, s):\n    return np.multiply(a, s), np.maximum(a, s)\n",
    "loop_index": ("def f(a, s):\n    out = np.empty_like(a)\n    for i in range(a.shape[0]):\n"
                   "        out[i] = a[i] + (i % 7)\n    return out\n"),
}


@pytest.mark.parametrize("dtype", ["int8", "uint8", "uint16", "uint64"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_run_time_python_ints_with_narrow_arrays(name, dtype):
    f = define(PROGRAMS[name])
    a = np.arange(3, dtype=dtype)

    def scenario(wrap):
        g = wrap(f)
        return [record(g, (a, s)) for s in INTS]

    assert_scenario_as_numpy(scenario, compiled_code=False)


def test_ints_within_the_range_stay_compiled():
    f = define(PROGRAMS["in_a_loop"])
    a = np.arange(3, dtype=np.uint8)

    def scenario(wrap):
        g = wrap(f)
        return [record(g, (a, s)) for s in (2, 5, 7, 100)]

    assert_scenario_as_numpy(scenario)
