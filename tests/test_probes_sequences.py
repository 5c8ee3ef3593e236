"""Python sequences meeting arrays and NumPy scalars in operators, probed by a sceptic:
`lst *= n` repeats the list in place (its aliases and the caller see it), `lst += array` is
NumPy's add (the number protocol comes before the sequence's own concatenation) and leaves the
list alone, and `seq * x` of a list or tuple and a NumPy scalar repeats the sequence by an
integer and raises TypeError for any other number, as Python does. Each program is compiled on
both backends and called twice; every call must give plain NumPy's `record`."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, define, record


def _same(source, calls):
    def scenario(wrap):
        f = wrap(define(source))
        return [record(f, args) for args in calls]

    assert_scenario_as_numpy(scenario, compiled_code=False)


def _a():
    return np.arange(3.0)


IN_PLACE = {
    "repeat_argument": "def f(a, l):\n    l *= 2\n    return a * len(l), l\n",
    "repeat_into_an_array": "def f(a, l):\n    l *= 2\n    return np.array(l) + a[0]\n",
    "repeat_by_zero": "def f(a, l):\n    l *= 0\n    return np.zeros(3), l\n",
    "repeat_through_an_alias": ("def f(a, l):\n    m = l\n    m *= 3\n"
                                "    return a * len(l), m is l\n"),
    "repeat_an_own_list_of_arrays": (
        "def f(a, l):\n    k = [a]\n    m = k\n    m *= 3\n    k[0] = k[0] + 1\n"
        "    return k, m is k, [x is a for x in k]\n"),
    "repeat_in_a_loop": ("def f(a, l):\n    for i in range(2):\n        l *= 2\n"
                         "        a = a + len(l)\n    return a, l\n"),
    "plus_an_array": "def f(a, l):\n    l += a[:2]\n    return l\n",
    "plus_a_numpy_scalar": "def f(a, l):\n    l += a[1]\n    return l\n",
    "plus_a_masked_array": ("def f(a, l):\n    l += np.ma.masked_array(a[:2], mask=[0, 1])\n"
                            "    return l, type(l).__name__\n"),
    "plus_a_list_of_elements": ("def f(a, l):\n    for i in range(3):\n"
                                "        l += [a[i] * 2]\n    return np.array(l)\n"),
    "plus_a_string": "def f(a, l):\n    l += 'ab'\n    return a, l\n",
    "repeat_by_a_float": "def f(a, l):\n    l *= 2.5\n    return a\n",
    "repeat_by_a_numpy_int": "def f(a, l):\n    l *= np.int64(2)\n    return a, l\n",
    "repeat_by_an_element": "def f(a, l):\n    l *= a[2]\n    return l\n",
}


@pytest.mark.parametrize("lst", [[1.0, 2.0], [[1, 2], [3, 4]]], ids=["flat", "nested"])
@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_in_place_operators_on_a_list(name, lst):
    _same(IN_PLACE[name], [(_a(), list(lst)), (_a(), list(lst))])


def test_list_repeated_by_a_python_int_that_changes():
    _same("def f(a, l, n):\n    l *= n\n    return a * len(l), l\n",
          [(_a(), [1, 2], n) for n in (1, 2, 3, 0, -1, 4, True)])


REPEATS = {
    "list_times_element": "def f(a):\n    return [1, 2] * a[2]\n",
    "element_times_list": "def f(a):\n    return a[2] * [1, 2]\n",
    "list_times_a_sum": "def f(a):\n    return [1, 2] * a.sum()\n",
    "tuple_times_element": "def f(a):\n    return (1, 2) * a[1]\n",
    "list_times_a_comparison": "def f(a):\n    return [1, 2] * (a[2] > 1)\n",
    "list_times_a_0d_array": "def f(a):\n    return [1, 2] * np.array(a[2])\n",
    "list_plus_element": "def f(a):\n    return [1, 2] + a[1]\n",
    "own_list_repeated_in_place": "def f(a):\n    l = [1, 2]\n    l *= a[2]\n    return l\n",
}


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.uint8, np.complex64])
@pytest.mark.parametrize("name", sorted(REPEATS))
def test_sequence_times_a_numpy_scalar(name, dtype):
    _same(REPEATS[name], [(np.arange(3).astype(dtype),)] * 2)
