"""Probes of a sceptic: loops that raise part-way (the writes before the error, its type and
message, the warnings before it given once), exceptions caught inside the compiled function,
attributes of a Python number passed where an array is expected, and diagonals (np.diagonal,
np.einsum('ii->i')) of arguments that are not C-contiguous, which NumPy hands out as views.
Each program is compiled on both backends and called twice; every call must give plain
NumPy's `record`."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, define, record


def _same(source, make, calls=2):
    def scenario(wrap):
        f = wrap(define(source))
        return [record(f, make()) for _ in range(calls)]

    assert_scenario_as_numpy(scenario, compiled_code=False)


def _vector():
    return (np.arange(1.0, 9.0),)


def _square():
    return (np.arange(16.0).reshape(4, 4),)


PARTWAY = {
    "index_past_the_end": ("def f(a):\n    for i in range(10):\n        a[i] = i * 2.0\n"
                           "    return a\n"),
    "negative_index_past_the_start": ("def f(a):\n    for i in range(len(a)):\n"
                                      "        a[-i - 5] = i\n    return a\n"),
    "python_float_division": ("def f(a):\n    for i in range(len(a)):\n"
                              "        a[i] = 1.0 / (i - 3)\n    return a\n"),
    "python_int_floor_division": ("def f(a):\n    for i in range(len(a)):\n"
                                  "        a[i] = 10 // (i - 3)\n    return a\n"),
    "value_error_in_a_data_branch": (
        "def f(a):\n    for i in range(len(a)):\n        if a[i] > 4:\n"
        "            raise ValueError('too big %d' % i)\n        a[i] = -a[i]\n    return a\n"),
    "assert_on_an_element": ("def f(a):\n    for i in range(len(a)):\n"
                             "        assert a[i] < 5, i\n        a[i] += 1\n    return a\n"),
    "while_true_runs_off_the_end": ("def f(a):\n    i = 0\n    while True:\n"
                                    "        a[i] += 1\n        i += 2\n"),
    "nested_rows_past_the_end": ("def f(a):\n    m = a.reshape(2, 4)\n    for i in range(2):\n"
                                 "        for j in range(5):\n            m[i, j] = i + j\n"
                                 "    return m\n"),
    "helper_raises": ("def g(x):\n    if x > 3:\n        raise KeyError(x)\n    return x * 2\n"
                      "def f(a):\n    for i in range(len(a)):\n        a[i] = g(a[i])\n"
                      "    return a\n"),
    "helper_raises_caught": (
        "def g(x):\n    if x > 3:\n        raise KeyError(x)\n    return x * 2\n"
        "def f(a):\n    for i in range(len(a)):\n        try:\n            a[i] = g(a[i])\n"
        "        except KeyError:\n            a[i] = 0\n    return a\n"),
    "index_error_caught_in_the_loop": (
        "def f(a):\n    for i in range(12):\n        try:\n            a[i] = a[i] * 3\n"
        "        except IndexError as e:\n            a[0] = len(str(e))\n    return a\n"),
    "finally_after_a_return": (
        "def f(a):\n    try:\n        for i in range(len(a)):\n            a[i] = i\n"
        "            if i == 5:\n                return a.sum()\n    finally:\n"
        "        a[0] = 99\n"),
    "finally_after_a_raise": ("def f(a):\n    try:\n        a[:] = a * 2\n        a[100] = 1\n"
                              "    finally:\n        a[1] = -1\n"),
    "suppressed_in_a_with_block": (
        "import contextlib\ndef f(a):\n    with contextlib.suppress(ZeroDivisionError):\n"
        "        a[0] = 5\n        x = 1 // 0\n        a[1] = 7\n    return a\n"),
    "errstate_raise": ("def f(a):\n    a[0] = 3\n    with np.errstate(divide='raise'):\n"
                       "        b = a / (a - 1)\n    return b\n"),
    "fancy_index_out_of_bounds_after_writes": (
        "def f(a):\n    a[:4] = 1\n    a[np.array([0, 3, 20])] = 5\n    return a\n"),
    "runtime_error_from_a_running_count": (
        "def f(a):\n    n = 0\n    for i in range(len(a)):\n        n += int(a[i])\n"
        "        a[i] = n\n        if n > 10:\n            raise RuntimeError(f'n={n}')\n"
        "    return a\n"),
    "warned_then_index_past_the_end": (
        "def f(a):\n    b = np.log(a - 2)\n    for i in range(10):\n        a[i] = b[i % 8]\n"
        "    return a\n"),
    "warned_then_value_error": (
        "def f(a):\n    b = np.sqrt(a - 4)\n    for i in range(len(a)):\n"
        "        if b[i] > 1:\n            raise ValueError('big')\n        a[i] = b[i]\n"
        "    return a\n"),
    "warned_then_assert": ("def f(a):\n    b = a / (a - 1)\n    c = b * 2\n"
                           "    for i in range(len(a)):\n        assert c[i] > 2.2, i\n"
                           "    return c\n"),
}


@pytest.mark.parametrize("name", sorted(PARTWAY))
def test_raising_part_way_leaves_numpys_writes(name):
    _same(PARTWAY[name], _vector)


# ---- a Python number where the program expects an array: its attributes ---------------

NUMBERS = [5, -5, 2**80, 2.5, True, 3j, np.int8(-3), None]
ATTRIBUTES = {
    "method_missing": "def f(a):\n    return a.sum()\n",
    "method_then_arrays": "def f(a):\n    return np.arange(3.0) + a.bit_length()\n",
    "attribute_beside_an_array": "def f(a):\n    return np.ones(3) * 2, a.real, a.imag\n",
}


@pytest.mark.parametrize("number", NUMBERS, ids=repr)
@pytest.mark.parametrize("name", sorted(ATTRIBUTES))
def test_attributes_of_a_python_number(name, number):
    _same(ATTRIBUTES[name], lambda: (number,))


# ---- diagonal views of arguments of any layout -------------------------------------------

DIAGONALS = {
    "diagonal_of_the_transpose": "def f(a):\n    return np.diagonal(a.T)\n",
    "diagonal_method_of_a_stride": "def f(a):\n    return a[::2, ::2].diagonal()\n",
    "diagonal_of_a_corner": "def f(a):\n    return a[1:, 1:].diagonal()\n",
    "diagonal_of_the_rows_flipped": ("def f(a):\n"
                                     "    return a[::-1].diagonal(), a[::-1].diagonal(1)\n"),
    "diagonal_of_a_3d_stride": ("def f(a):\n"
                                "    return a.reshape(2, 2, 4)[:, :, ::2].diagonal(0, 0, 1)\n"),
    "diag_of_the_transpose": "def f(a):\n    return np.trace(a.T[::-1]), np.diag(a.T, 1)\n",
    "diagonal_then_the_base_written": ("def f(a):\n    d = a.T.diagonal()\n    a[0, 0] = 50\n"
                                       "    return d\n"),
    "diagonal_written": "def f(a):\n    d = a.T.diagonal()\n    d[0] = 50\n    return d\n",
    "einsum_diagonal_of_the_transpose": "def f(a):\n    return np.einsum('ii->i', a.T)\n",
    "einsum_diagonal_written": ("def f(a):\n    d = np.einsum('ii->i', a[::-1])\n    d[1] = -1\n"
                                "    return d, d.flags.writeable\n"),
    "einsum_diagonal_updated": ("def f(a):\n    d = np.einsum('ii->i', a.T)\n    d += 100\n"
                                "    return a.sum()\n"),
    "einsum_diagonal_3d": ("def f(a):\n    b = np.arange(27.0).reshape(3, 3, 3)[:, ::-1]\n"
                           "    d = np.einsum('iji->ji', b)\n    return d, b.sum() + a[0, 0]\n"),
}


@pytest.mark.parametrize("name", sorted(DIAGONALS))
def test_diagonals_are_views_of_any_layout(name):
    _same(DIAGONALS[name], _square)
