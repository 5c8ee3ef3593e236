"""Probes of a sceptic: arrays of every layout and flag as arguments (Fortran order, reversed
and strided views, transposes, zero-stride broadcasts, read-only, byte-swapped, unaligned,
`np.frombuffer` of bytes), writes into NumPy's broadcast views made inside the function
(`np.broadcast_to`, read-only: NumPy raises; `np.broadcast_arrays`, writable with a warning:
NumPy warns and writes through), and `np.mean(where=)` that leaves a slice empty. Each program
is compiled on both backends and called twice; every call must give plain NumPy's `record`
(result, printed output, warnings, arguments afterwards, memory shared)."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, define, record


def _same(source, make, calls=2):
    def scenario(wrap):
        f = wrap(define(source))
        return [record(f, make()) for _ in range(calls)]

    assert_scenario_as_numpy(scenario, compiled_code=False)


def _base():
    return np.arange(60, dtype=np.float64).reshape(6, 10) / 7 - 3


def _read_only():
    a = _base()
    a.flags.writeable = False
    return a


def _unaligned():
    buf = np.zeros(8 * 20 + 1, np.uint8)
    a = np.ndarray((20,), np.float64, buf, 1)
    a[:] = np.linspace(-1, 1, 20)
    return a


LAYOUTS = {
    "fortran": lambda: np.asfortranarray(_base()),
    "strided_reversed": lambda: _base()[::2, ::-3],
    "transposed": lambda: _base().T,
    "zero_strides": lambda: np.broadcast_to(np.arange(10.0), (6, 10)),
    "read_only": _read_only,
    "big_endian": lambda: _base().astype(">f8"),
    "big_endian_int": lambda: (np.arange(12) - 5).astype(">i4"),
    "unaligned": _unaligned,
    "from_bytes": lambda: np.frombuffer(np.linspace(0, 1, 16).tobytes(), dtype=np.float64),
}

PROGRAMS = {
    "elementwise": "def f(a):\n    return np.sin(a) * 2 + a.sum(axis=0)\n",
    "in_place": "def f(a):\n    a += 1\n    return a\n",
    "item_store": "def f(a):\n    a[0] = 5\n    return a[-1]\n",
    "loop_reads": ("def f(a):\n    s = 0.0\n    for i in range(a.shape[0]):\n"
                   "        s += np.sqrt(abs(a[i])).max() * i\n    return s\n"),
    "loop_writes": ("def f(a):\n    for i in range(1, a.shape[0]):\n"
                    "        a[i] = a[i - 1] * 0.5 + a[i]\n    return a\n"),
    "break_between": ("def f(a):\n    b = a * 2\n    print(b.dtype, b.flags.c_contiguous)\n"
                      "    b += a\n    return b, a.flags.writeable\n"),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_arguments_of_every_layout_and_flag(program, layout):
    _same(PROGRAMS[program], lambda: (LAYOUTS[layout](),))


def _two():
    rng = np.random.default_rng(2)
    return rng.standard_normal((4, 6)), rng.standard_normal((4, 6))


BROADCAST_WRITES = {
    "out_into_broadcast_to_of_a_new_array": (
        "def f(a, b):\n    v = np.broadcast_to(np.zeros(6), (4, 6))\n"
        "    np.multiply(a, 2, out=v)\n    return v\n"),
    "item_store_into_broadcast_to_of_a_new_array": (
        "def f(a, b):\n    v = np.broadcast_to(a[0] + 1, (4, 6))\n    v[1, 2] = 5.0\n"
        "    return v\n"),
    "in_place_on_broadcast_to_of_a_new_array": (
        "def f(a, b):\n    v = np.broadcast_to((a * 2)[:1], (4, 6))\n    v += 1\n    return v\n"),
    "store_into_a_view_of_broadcast_to": (
        "def f(a, b):\n    v = np.broadcast_to(np.ones(6), (4, 6)).T[1:]\n    v[0] = 1.0\n"
        "    return v\n"),
    "rows_updated_in_a_loop": (
        "def f(a, b):\n    v = np.broadcast_to(b[:1], (4, 6))\n    for i in range(4):\n"
        "        v[i] += a[i]\n    return b\n"),
    "rows_of_a_new_array_updated_in_a_loop": (
        "def f(a, b):\n    v = np.broadcast_to(np.zeros((1, 6)), (4, 6))\n"
        "    for i in range(4):\n        v[i] += a[i]\n    return v\n"),
    "broadcast_arrays_written_through": (
        "def f(a, b):\n    x, y = np.broadcast_arrays(a[:, :1], b)\n    x[0, 0] = 1.0\n"
        "    return a, x.sum()\n"),
    "broadcast_arrays_of_new_arrays_written": (
        "def f(a, b):\n    x, y = np.broadcast_arrays(np.zeros(6), b * 2)\n    x[1, 1] = 3.0\n"
        "    return x, y\n"),
    "broadcast_arrays_read_only": (
        "def f(a, b):\n    x, y = np.broadcast_arrays(a[:, :1], b)\n"
        "    return x * y, x.flags.writeable\n"),
    "broadcast_to_copied_then_written": (
        "def f(a, b):\n    v = np.broadcast_to(b[0], (4, 6)).copy()\n    v[0] = 1.0\n"
        "    return v\n"),
}


@pytest.mark.parametrize("name", sorted(BROADCAST_WRITES))
def test_writes_into_broadcast_views(name):
    _same(BROADCAST_WRITES[name], _two)


MASKED_MEANS = {
    "row_left_empty": "def f(a, b):\n    return np.mean(a, where=a > 1.5, axis=1)\n",
    "all_left_empty": "def f(a, b):\n    return a.mean(where=a > 100)\n",
    "column_left_empty_keepdims": (
        "def f(a, b):\n    return np.mean(a, axis=0, where=b > 1.2, keepdims=True)\n"),
    "in_a_loop": ("def f(a, b):\n    s = 0.0\n    for i in range(a.shape[0]):\n"
                  "        s += a[i].mean(where=a[i] > 1.0)\n    return s\n"),
    "none_empty": "def f(a, b):\n    return a.mean(where=a > -100, axis=0)\n",
}


@pytest.mark.parametrize("name", sorted(MASKED_MEANS))
def test_mean_where_a_slice_is_empty(name):
    _same(MASKED_MEANS[name], _two)
