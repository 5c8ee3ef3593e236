"""Locals first assigned in a loop body and read after the loop (`loops/first_assigned.py`):
arrays, NumPy scalars and Python numbers, tuples, both paths of a branch, inner loops, loops
over an int argument; against plain NumPy (values, Python type, dtype, warnings, the
arguments afterwards), compiled to one native graph without a break. A call whose loop makes
no trip raises Python's `UnboundLocalError`; a local assigned on one path only, or read in the
body before it is assigned, still gives Python's answer."""

from __future__ import annotations

import warnings

import ember
import numpy as np
import pytest
from conftest import assert_same


def _run(fn, *args):
    """The result (or the exception's type) and the warnings of one call."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(*args)
        except Exception as exc:  # noqa: BLE001 - compared with Python's own
            result = type(exc)
    return result, sorted(str(w.message) for w in caught)


def check(fn, calls, *, native=True):
    """Each call as plain Python gives it; with `native`, no break, no fallback."""
    compiled = ember.compile(fn)
    for args in calls:
        want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        want, want_warnings = _run(fn, *want_args)
        got, got_warnings = _run(compiled, *got_args)
        if isinstance(want, type):
            assert got is want
        else:
            assert_same(got, want)
        assert got_warnings == want_warnings
        for g, w in zip(got_args, want_args, strict=True):
            if isinstance(w, np.ndarray):
                assert_same(g, w, path="argument")
    stats = ember.stats()
    if native:
        assert stats["compiles"] >= 1 and stats["graph_breaks"] == 0, stats["break_reasons"]
        assert stats["region_recaptures"] == 0 and not stats["backend_fallbacks"]
    return stats


def newton_nodes(x0):
    x = x0.copy()
    for _ in range(30):
        p0 = np.ones_like(x)
        p1 = x.copy()
        for k in range(2, 6):
            p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
        dp = 5 * (x * p1 - p0) / (x * x - 1)
        x = x - p1 / dp
    return x, 2 / ((1 - x * x) * dp * dp)


def last_scaled(x):
    for i in range(x.shape[0]):
        last = x[i] * 2.0
    return last


def last_index_times(m, x):
    total = x * 0.0
    for i in range(m):
        q = i * 3
        total = total + q
    return total, q


def float32_blend(a, b):
    for k in range(20):
        y = a * np.float32(0.5) + b * np.float32(k)
        a = y - b
    return y


def pair_after(x):
    s = x.sum()
    for _ in range(12):
        lo, hi = s - 1.0, s + 1.0
        s = s * 0.5 + x[0]
    return lo, hi, s


def branch_both(x):
    acc = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            v = x[i]
        else:
            v = -x[i] * 0.5
        acc += v
    return acc, v


def inner_loop(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        for j in range(3):
            t = x[i] * j + 1.0
            out[i] += t  # each trip's `t` read (one never read refuses: its warnings)
        out[i] = t
    return out


def writes_argument(x, n):
    for i in range(n):
        x[i] = x[i] * 2.0
        r = x[: i + 1].sum()
    return r


def divides(x, n):
    for i in range(n):
        d = 1.0 / x[i]
    return d


def one_path_only(x):
    for i in range(x.shape[0]):
        if x[i] > 0:
            v = x[i]
    return v


def read_before_assigned(x):
    for i in range(x.shape[0]):
        if i > 0:
            x[i] = x[i] + prev  # noqa: F821 - unbound on the first trip: Python raises
        prev = x[i] * 0.5
    return prev


def _data(seed, *shape, dtype=np.float64):
    return np.random.default_rng(seed).uniform(-1.0, 1.0, shape).astype(dtype)


def test_newton_nodes_array_first_assigned():
    check(newton_nodes, [(np.cos(np.pi * (np.arange(1, 6) - 0.25) / 5.5),)])


def test_scalar_over_an_array_axis():
    check(last_scaled, [(_data(0, 40),), (_data(1, 40),)])


def test_python_int_over_an_int_argument():
    check(last_index_times, [(17, _data(2, 3)), (40, _data(3, 3))])


def test_float32_arrays():
    check(float32_blend, [(_data(4, 8, dtype=np.float32), _data(5, 8, dtype=np.float32))])


def test_tuple_assigned_in_the_body():
    check(pair_after, [(_data(6, 5),)])


def test_both_paths_of_a_branch():
    x = _data(7, 30)
    check(branch_both, [(x,), (np.abs(x),), (-np.abs(x),)])


def test_inner_loop_inside_a_loop_op():
    check(inner_loop, [(_data(8, 25),)])


def test_argument_written_in_the_body():
    check(writes_argument, [(_data(9, 30), 30), (_data(10, 30), 12)])


def test_warnings_of_the_body():
    x = _data(11, 20)
    x[19] = 0.0
    check(divides, [(x, 20), (x, 10)])


@pytest.mark.parametrize("fn,args", [(last_index_times, (0, _data(12, 3))),
                                     (writes_argument, (_data(13, 30), 0)),
                                     (divides, (_data(14, 5), 0))])
def test_no_trip_raises_unbound_local_error(fn, args):
    check(fn, [args], native=False)
    check(fn, [(args[1], 5) if fn is not last_index_times else (5, args[1]), args],
          native=False)


def test_no_trip_after_trips_keeps_the_compiled_entry_correct():
    stats = check(last_index_times, [(7, _data(15, 3)), (0, _data(15, 3)), (9, _data(15, 3))],
                  native=False)
    assert stats["compiles"] >= 1


def test_assigned_on_one_path_only_is_python():
    check(one_path_only, [(np.abs(_data(16, 20)),), (-np.abs(_data(16, 20)),)], native=False)


def test_read_in_the_body_before_assigned_is_python():
    check(read_before_assigned, [(_data(17, 20),), (_data(17, 1),)], native=False)
