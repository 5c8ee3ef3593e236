"""Probes of a sceptic: temporaries a loop body computes and never reads (`t = np.sqrt(a[i])`,
`r = 1.0 / a[i]`, `d = np.log(m[j, :])`, arithmetic on a slice with run-time bounds) still
give NumPy's warnings, as often as NumPy gives them, and raise under `errstate(...='raise')`:
dead-code elimination would drop them with their flags, so such a loop is not made a loop op.
Loops whose temporaries are all read stay one loop op. Each program is compiled on both
backends and called twice; every call must give plain NumPy's `record`."""

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


def _vector():
    return (np.tile(np.array([1.0, -1.0, 4.0, -2.0, 0.0, 3.0]), 50),)


def _rows():
    return (np.tile(np.array([1.0, -1.0, 4.0, -2.0, 0.0, 3.0]), 50).reshape(30, 10),)


DEAD = {
    "sqrt_of_an_element": ("def f(a):\n    s = 0.0\n    for i in range(len(a)):\n"
                           "        t = np.sqrt(a[i])\n        s += a[i]\n    return s\n"),
    "python_division": ("def f(a):\n    s = 0.0\n    for i in range(len(a)):\n"
                        "        r = 1.0 / a[i]\n        s += a[i]\n    return s\n"),
    "raises_under_errstate": (
        "def f(a):\n    s = 0.0\n    with np.errstate(invalid='raise'):\n"
        "        for i in range(len(a)):\n            t = np.sqrt(a[i])\n            s += a[i]\n"
        "    return s\n"),
    "rebound_before_read": ("def f(a):\n    s = 0.0\n    for i in range(len(a)):\n"
                            "        t = np.arccos(a[i] * 2)\n        t = a[i]\n        s += t\n"
                            "    return s\n"),
    "log_of_a_short_window": ("def f(a):\n    out = np.zeros_like(a)\n    for i in range(len(a)):\n"
                              "        t = np.log(a[i:i + 2])\n        out[i] = a[i] * 2\n"
                              "    return out\n"),
    "overflow_on_a_run": ("def f(a):\n    s = 0.0\n    for i in range(1, len(a)):\n"
                          "        t = a[:i] * 1e308 * 10\n        s += a[i]\n    return s\n"),
    "while_loop": ("def f(a):\n    i = 0\n    s = 0.0\n    while i < len(a):\n"
                   "        u = np.log(a[i])\n        s += a[i]\n        i += 1\n    return s\n"),
    "expression_statement": ("def f(a):\n    s = 0.0\n    for i in range(len(a)):\n"
                             "        np.log(a[i])\n        s += a[i]\n    return s\n"),
    "in_one_arm_of_an_if": ("def f(a):\n    s = 0.0\n    for i in range(len(a)):\n"
                            "        if a[i] < 3.0:\n            t = np.sqrt(a[i] - 1.0)\n"
                            "        s += a[i]\n    return s\n"),
    "in_an_arm_binding_more": ("def f(a):\n    s = 0.0\n    for i in range(len(a)):\n"
                               "        if a[i] < 3.0:\n            t = np.log(a[i])\n"
                               "            s += 1.0\n        s += a[i]\n    return s\n"),
    "frame_level_if": ("def f(a):\n    if a.sum() > 0:\n        t = np.sqrt(a)\n"
                       "    return a * 2\n"),
    "in_a_helper": ("def h(x):\n    d = 1.0 / x\n    return x * 2\n"
                    "def f(a):\n    s = 0.0\n    for i in range(len(a)):\n"
                    "        s += h(a[i])\n    return s\n"),
    "integer_scalar_division": ("def f(a):\n    s = 0\n    k = a.astype(np.int64)\n"
                                "    for i in range(len(k)):\n        q = k[i] // k[i]\n"
                                "        s += k[i]\n    return s\n"),
    "augmented_then_rebound": ("def f(a):\n    s = 0.0\n    for i in range(len(a)):\n"
                               "        t = a[i] * 1e308\n        t *= 10.0\n"
                               "        t = 0.0\n        s += a[i] + t\n    return s\n"),
}


@pytest.mark.parametrize("name", sorted(DEAD))
def test_unread_temporaries_keep_their_warnings(name):
    _same(DEAD[name], _vector)


def test_temporaries_rebound_by_an_unrolled_inner_loop_keep_their_warnings():
    # `t` of the first two trips is never read; `inf * 0` warns in NumPy all the same.
    _same("def f(x):\n    out = np.zeros(x.shape[0])\n    for i in range(x.shape[0]):\n"
          "        for j in range(3):\n            t = x[i] * j + 1.0\n        out[i] = t\n"
          "    return out\n", lambda: (np.array([1.0, np.inf, -2.0, np.inf] * 10),))


def test_unread_log_of_a_row_keeps_its_warnings():
    _same("def f(m):\n    out = np.zeros(m.shape[1])\n    for j in range(m.shape[0]):\n"
          "        d = np.log(m[j, :])\n        out += m[j]\n    return out\n", _rows)


READ = {
    "sqrt_summed": ("def f(a):\n    s = 0.0\n    for i in range(len(a)):\n"
                    "        t = np.sqrt(a[i])\n        s += t\n    return s\n"),
    "log_of_a_window_stored": ("def f(a):\n    out = np.zeros_like(a)\n"
                               "    for i in range(len(a) - 2):\n        t = np.log(a[i:i + 2])\n"
                               "        out[i] = t.sum()\n    return out\n"),
    # Capture's own values (bounds, index arithmetic, integer plumbing) are never named.
    "bits_shifted_out": ("def f(a):\n    k = a.astype(np.uint8)\n    s = 0\n"
                         "    for i in range(len(k)):\n        b = k[i]\n"
                         "        for _ in range(4):\n            s += int(b & 1)\n"
                         "            b >>= 1\n    return s\n"),
    "remainder_by_a_constant": ("def f(a):\n    k = a.astype(np.int64)\n    s = 0\n"
                                "    for i in range(len(k)):\n        r = k[i] % 7\n"
                                "        s += k[i]\n    return s\n"),
    "index_arithmetic": ("def f(a):\n    s = 0.0\n    for i in range(len(a) - 1):\n"
                         "        j = i + 1\n        s += a[j] / a[i]\n    return s\n"),
}


@pytest.mark.parametrize("name", sorted(READ))
def test_read_temporaries_stay_one_loop_op(name):
    source = READ[name]
    args = (np.abs(_vector()[0]) + 1,)
    _same(source, lambda: (args[0].copy(),))
    ember.reset()
    compiled = ember.compile(define(source))
    compiled(args[0].copy())
    stats = ember.stats()
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]
