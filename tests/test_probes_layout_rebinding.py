"""Probes of a sceptic: Fortran-ordered and transposed arrays rebound in loops and branches
(`a = a + 1`, `a = np.exp(a) - 1`, `if c: a = a * 2`) rather than stored into. NumPy's
elementwise results follow their operands' layout (order K), so the array comes back in the
order it went in; mixing it with a C-ordered operand makes it C order. Each program is
compiled on both backends and called twice; every call must give plain NumPy's `record`
and its result's strides."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, define, record


def _same(source, make, calls=2):
    def scenario(wrap):
        f = wrap(define(source))

        def strided(*args):
            value = f(*args)
            leaves = value if isinstance(value, tuple) else (value,)
            return value, [v.strides for v in leaves if isinstance(v, np.ndarray)]

        return [record(strided, make()) for _ in range(calls)]

    assert_scenario_as_numpy(scenario, compiled_code=False)


def _fortran():
    return (np.asfortranarray(np.arange(60.0).reshape(6, 10) / 7 - 3),)


def _fortran_3d():
    return (np.asfortranarray(np.arange(120.0).reshape(4, 5, 6) / 11 - 2),)


def _transposed():
    return (np.arange(60.0).reshape(10, 6).T / 5 - 1,)


def _with_signs():
    a = _fortran()[0]
    return a, np.where(np.arange(a.shape[1]) % 3 == 0, -1.0, 1.0)


PROGRAMS = {
    "rebound_each_column": ("def f(a):\n    for j in range(a.shape[1]):\n"
                            "        a = a + 1\n    return a\n"),
    "rebound_through_a_ufunc": ("def f(a):\n    for j in range(a.shape[1]):\n"
                                "        a = np.tanh(a) * 0.5 - a\n    return a\n"),
    "rebound_on_a_branch": ("def f(a, s):\n    for j in range(s.shape[0]):\n"
                            "        if s[j] > 0:\n            a = a * 2\n    return a\n"),
    "rebound_by_a_while": ("def f(a):\n    n = 0\n    while n < a.shape[1]:\n"
                           "        a = np.abs(a) + n\n        n += 1\n    return a\n"),
    "with_a_column_stored": ("def f(a):\n    for j in range(a.shape[1]):\n"
                             "        a = a * 0.5\n        a[:, j] = j\n    return a\n"),
    "two_carried": ("def f(a):\n    b = a * 0\n    for j in range(a.shape[1]):\n"
                    "        b = b + a\n        a = a - 1\n    return a, b\n"),
    "mixed_with_c_order": ("def f(a):\n    c = np.ones(a.shape)\n"
                           "    for j in range(a.shape[1]):\n        a = a + c\n    return a\n"),
}

ARGS = {"rebound_on_a_branch": _with_signs}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_rebound_arrays_keep_their_layout(name):
    _same(PROGRAMS[name], ARGS.get(name, _fortran))


@pytest.mark.parametrize("make", [_fortran_3d, _transposed], ids=["fortran_3d", "transposed"])
def test_rebound_arrays_of_other_layouts(make):
    _same(PROGRAMS["rebound_each_column"].replace("a.shape[1]", "a.shape[-1]"), make)
    _same(PROGRAMS["rebound_through_a_ufunc"].replace("a.shape[1]", "a.shape[-1]"), make)
