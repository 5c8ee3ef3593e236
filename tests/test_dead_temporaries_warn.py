"""Temporaries the program names or drops and never reads still give NumPy's warnings:
a 0-d temporary on a path of a frame-level branch (`t = np.log(x[0])`, `x[0] / x[1]` as a
statement), and NumPy integer scalar math that overflows (`q = b * np.int64(2**62)`) in a
loop body, on a path or at the frame's level. Dead-code elimination would drop them; the
branch or loop runs another way instead. `modpow_all`, whose integer scalar products are
all read, stays native."""

from __future__ import annotations

import warnings

import ember
import numpy as np
import pytest
from user_kernels_scalar import modpow_all


def _run(fn, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value, error = fn(*args), None
        except Exception as exc:  # noqa: BLE001 - raising is an outcome to compare
            value, error = None, exc
    return value, repr(error), [(w.category, str(w.message)) for w in caught]


def log_on_a_path(x, y):
    a = x.sum()
    if a > 0:
        t = np.log(y[0])  # noqa: F841 - never read
        a = a + 1
    return a


def divide_as_a_statement_on_a_path(x, y):
    a = x.sum()
    if a > 0:
        y[0] / y[1]
        a = a + 1
    else:
        a = a - 1
    return a


def sqrt_rebound_on_a_path(x, y):
    a = x.max()
    if a > 1:
        t = np.sqrt(y[1] - 5.0)
        t = a * 2
        a = t + 1
    return a


def int_overflow_in_a_loop(bases, e):
    r = 0
    for b in bases:
        q = b * np.int64(2**62)  # noqa: F841 - never read
        r += int(b) % e
    return r


def int_overflow_as_a_statement_in_a_loop(x):
    s = 0
    for i in range(len(x)):
        x[i] + np.int32(2**31 - 1)
        s += i
    return s


def int_overflow_at_frame_level(x):
    q = x.sum() * np.int64(2**62)  # noqa: F841 - never read
    return x[0]


def int_overflow_on_a_path(x, y):
    a = x.sum()
    if a > 0:
        q = y[0] * np.int64(2**62)  # noqa: F841 - never read
        a = a + 1
    return a


def negation_of_min_in_a_loop(x):
    n = 0
    for v in x:
        -v
        n += 1
    return n


CASES = [
    (log_on_a_path, lambda: (np.ones(3), np.zeros(3))),
    (log_on_a_path, lambda: (np.ones(3), np.ones(3))),
    (log_on_a_path, lambda: (-np.ones(3), np.zeros(3))),
    (divide_as_a_statement_on_a_path, lambda: (np.ones(3), np.zeros(3))),
    (divide_as_a_statement_on_a_path, lambda: (np.ones(3), np.array([1.0, 0.0, 2.0]))),
    (sqrt_rebound_on_a_path, lambda: (np.full(3, 2.0), np.zeros(3))),
    (int_overflow_in_a_loop, lambda: (np.arange(3, 30), 7)),
    (int_overflow_in_a_loop, lambda: (np.zeros(20, np.int64), 7)),
    (int_overflow_as_a_statement_in_a_loop, lambda: (np.arange(-3, 30, dtype=np.int32),)),
    (int_overflow_at_frame_level, lambda: (np.arange(3, 6),)),
    (int_overflow_at_frame_level, lambda: (np.zeros(3, np.int64),)),
    (int_overflow_on_a_path, lambda: (np.ones(3), np.arange(3, 6))),
    (negation_of_min_in_a_loop, lambda: (np.array([1, -128, 5] * 7, np.int8),)),
]


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_dead_temporaries_keep_their_warnings(backend, case):
    fn, make = CASES[case]
    want = _run(fn, *make())
    ember.reset()
    compiled = ember.compile(fn, backend=backend)
    for _ in range(3):  # the first call, and the cached code
        got = _run(compiled, *make())
        assert got[1:] == want[1:]
        assert type(got[0]) is type(want[0]) and got[0] == want[0]


@pytest.mark.parametrize("errstate", [{"over": "raise"}, {"all": "ignore"}])
def test_dead_integer_overflow_under_errstate(errstate):
    with np.errstate(**errstate):
        want = _run(int_overflow_in_a_loop, np.arange(3, 30), 7)
        ember.reset()
        compiled = ember.compile(int_overflow_in_a_loop)
        got = _run(compiled, np.arange(3, 30), 7)
    assert got == want


def test_modpow_all_stays_native():
    """Its products are all read (the carried `b` too): no loop refused, no rerun."""
    rng = np.random.default_rng(0)
    bases = rng.integers(2, 10**4, 50)
    ember.reset()
    compiled = ember.compile(modpow_all)
    want = modpow_all(bases, 65537, 1000003)
    np.testing.assert_array_equal(compiled(bases, 65537, 1000003), want)
    np.testing.assert_array_equal(compiled(bases, 65537, 1000003), want)
    stats = ember.stats()
    assert stats["compiles"] >= 1 and stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["entry_fallbacks"] == 0 and stats["fp_reruns"] == 0
    assert not stats["backend_fallbacks"]
