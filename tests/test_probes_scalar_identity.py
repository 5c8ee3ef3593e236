"""Probes of a sceptic: NumPy and Python scalars the graph computed, referenced from several
places (a list's item and a local, a dict's value, a tuple twice) and compared by identity
(`is`, `in` with a NaN, `list.count`, `list.index`) after a graph break: one object, as in
Python, and a NaN found in its own list. Each program is compiled on both backends and called
twice; every call must give plain NumPy's `record`."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, define, record


def _same(source, make, calls=2):
    def scenario(wrap):
        f = wrap(define(source))
        return [record(f, make()) for _ in range(calls)]

    assert_scenario_as_numpy(scenario, compiled_code=False)


PROGRAMS = {
    "list_item_and_local": ("def f(a):\n    out = [a[0] * 2, a[1] + 1]\n    v = out[1]\n"
                            "    print('-')\n    return v is out[1]\n"),
    "nan_found_in_its_list": ("def f(a):\n    out = [a[0] + 0.0, a[1]]\n    v = out[0]\n"
                              "    print('-')\n    return v in out, out.index(v)\n"),
    "dict_value": ("def f(a):\n    s = a.sum()\n    d = {'k': s}\n    print('-')\n"
                   "    return d['k'] is s\n"),
    "tuple_twice": ("def f(a):\n    m = a.max()\n    t = (m, m)\n    print('-')\n"
                    "    return t[0] is t[1], t[0] is m\n"),
    "appended_after_the_break": ("def f(a):\n    out = [a[0]]\n    v = out[0]\n    print('-')\n"
                                 "    out.append(v)\n"
                                 "    return out[0] is out[1], out.count(v)\n"),
    "python_float": ("def f(a):\n    x = float(a.sum())\n    xs = [x, x + 1]\n    print('-')\n"
                     "    return xs[0] is x\n"),
    "returned_twice": ("def f(a):\n    s = a.min()\n    return s, s\n"),
    "two_sums_stay_two": ("def f(a):\n    s = a.sum()\n    t = a.sum()\n    print('-')\n"
                          "    return s is t, s == t\n"),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("data", [[1.0, 2.0, 3.0], [np.nan, np.nan, 1.0]], ids=["finite", "nan"])
def test_scalars_keep_their_identity(name, data):
    _same(PROGRAMS[name], lambda: (np.array(data),))


def test_returned_twice_is_one_object():
    f = ember.compile(define(PROGRAMS["returned_twice"]))
    for _ in range(2):
        r = f(np.array([3.0, 1.0, 2.0]))
        assert r[0] is r[1]
