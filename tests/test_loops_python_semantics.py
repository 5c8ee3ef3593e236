"""Python numbers in compiled loops keep Python's semantics where NumPy's differ
(`capture/loops/python_checks.py`): ints never overflow (`h = h * 31 + x` without a mask,
`MIN // -1`, `h << 5`), `int()` of NaN or infinity raises, `math.exp`, `math.pow` and `**`
of floats raise OverflowError rather than give infinity, a float stored into an int array
out of its range raises NumPy's error, and none of them warns first. `max()` of a Python int
and a Python float (whose type Python returns depends on the data) is not a loop op, and
`row op= x` keeps NumPy's casting rule for its `out=`, and a loop whose results are never
read still runs, for its warnings. Each failing check
runs the frame as plain Python; inputs that never fail one stay one compiled loop."""

from __future__ import annotations

import math

import ember
import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy


def polynomial_hash(a):
    h = 0
    for i in range(len(a)):
        h = h * 31 + int(a[i])
    return h


def shifted_hash(a):
    h = 1
    for i in range(len(a)):
        h = (h << 5) ^ int(a[i])
    return h


def negated_quotients(a):
    h = 0
    for i in range(len(a)):
        h += int(a[i]) // -1 - abs(int(a[i]))
    return h


def exp_sum(a):
    t = 0.0
    for i in range(len(a)):
        t += math.exp(float(a[i]))
    return t


def power_sum(a, p):
    t = 0.0
    for i in range(len(a)):
        t += float(a[i]) ** p
    return t


def math_power_sum(a):
    t = 0.0
    for i in range(len(a)):
        t += math.pow(float(a[i]), 3.0)
    return t


def int_of_floats(a):
    h = 0
    for i in range(len(a)):
        h += int(a[i]) + math.floor(a[i] / 2) + round(a[i])
    return h


def store_into_ints(a, out):
    for i in range(len(a)):
        out[i] = a[i] * 2.0
    return out


def store_at_frame_level(a, out):
    out[0] = np.exp(a[-1])
    return out


def divide_at_frame_level(a, k):
    return int(a[-1]) // k, int(a[0]) % (k - 1)


def absolute_int(a):
    c = 0
    for i in range(len(a)):
        c = c + abs(c - i)
    return c


def mixed_max(a):
    s = 0
    for i in range(len(a)):
        s = max(s, float(a[i]))
    return s


def inplace_into_bools(a, out, width):
    for i in range(len(a) - width):
        out[i:i + width] -= float(a[i])
    return out


def dead_loop(a, b):
    out = a.copy()
    for v in b:
        out[0] -= a[1:].sum()  # never read, but NumPy warns of the overflow
    return b


MIN = np.iinfo(np.int64).min
SMALL = np.arange(-10, 10, dtype=np.int64)
CASES = [
    (polynomial_hash, (SMALL,)),
    (polynomial_hash, (np.arange(12, dtype=np.int32),)),
    (shifted_hash, (SMALL,)),
    (negated_quotients, (np.full(20, MIN),)),
    (negated_quotients, (SMALL,)),
    (exp_sum, (np.full(20, 800.0),)),
    (exp_sum, (np.linspace(-5, 5, 20),)),
    (power_sum, (np.full(20, 1e200), 2.0)),
    (power_sum, (np.full(20, -8.0), 0.5)),
    (power_sum, (np.zeros(20), -1.0)),
    (power_sum, (np.linspace(-5, 5, 20), 3.0)),
    (math_power_sum, (np.full(20, 1e200),)),
    (math_power_sum, (np.linspace(-5, 5, 20),)),
    (int_of_floats, (np.array([1.5] * 10 + [np.inf] * 10),)),
    (int_of_floats, (np.array([1.5] * 10 + [np.nan] * 10),)),
    (int_of_floats, (np.array([2.5] * 10 + [1e30] * 10),)),
    (int_of_floats, (np.linspace(-9.5, 9.5, 20),)),
    (store_into_ints, (np.array([1.0] * 10 + [np.inf] * 10), np.zeros(20, np.int64))),
    (store_into_ints, (np.array([1.0] * 10 + [np.nan] * 10), np.zeros(20, np.int32))),
    (store_into_ints, (np.array([1.0] * 10 + [3e9] * 10), np.zeros(20, np.int32))),
    (store_into_ints, (np.linspace(-9.5, 9.5, 20), np.zeros(20, np.int32))),
    (store_at_frame_level, (np.array([1.0, 800.0]), np.zeros(3, np.int64))),
    (store_at_frame_level, (np.array([1.0, 2.0]), np.zeros(3, np.int64))),
    (divide_at_frame_level, (np.arange(5), 0)),
    (divide_at_frame_level, (np.arange(5), 1)),
    (divide_at_frame_level, (np.arange(5), 3)),
    (absolute_int, (SMALL,)),
    (mixed_max, (np.zeros(20),)),
    (mixed_max, (np.linspace(-1, 1, 20),)),
    (inplace_into_bools, (np.ones(20), np.zeros(20, bool), 2)),
    (inplace_into_bools, (np.ones(20), np.zeros(20, bool), 10)),
    (dead_loop, (np.array([10, 2**63 - 1, 5]), np.arange(20.0))),
]


@pytest.mark.parametrize("fn, args", CASES, ids=[f"{fn.__name__}-{k}" for k, (fn, _) in
                                                   enumerate(CASES)])
def test_python_numbers_in_loops_behave_as_python(fn, args):
    assert_behaves_as_numpy(fn, *args, compiled_code=False)


@pytest.mark.parametrize("fn, args", [
    (polynomial_hash, (np.arange(10, dtype=np.int32),)),
    (exp_sum, (np.linspace(-5, 5, 20),)),
    (int_of_floats, (np.linspace(-9.5, 9.5, 20),)),
    (store_into_ints, (np.linspace(-9.5, 9.5, 20), np.zeros(20, np.int32))),
])
def test_checks_that_pass_keep_one_compiled_loop(fn, args):
    ember.reset()
    compiled = ember.compile(fn)
    compiled(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    stats = ember.stats()
    assert stats["graph_breaks"] == 0 and stats["compiles"] == 1, stats
    assert stats["entry_fallbacks"] == 0, stats


@seed(20261206)
@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.integers(-2**63, 2**63 - 1), min_size=9, max_size=12),
       multiplier=st.sampled_from([1, 31, 2**20, 2**40, -3]),
       shift=st.integers(0, 70))
def test_python_int_arithmetic_is_exact(values, multiplier, shift):
    def mix(a, m, k):
        h = 0
        for i in range(len(a)):
            h = (h * m + int(a[i]) - (int(a[i]) << k)) ^ (h >> 3)
        return h

    a = np.array(values, dtype=np.int64)
    ember.reset()
    assert ember.compile(mix)(a, multiplier, shift) == mix(a, multiplier, shift)


def zero_trip_inner(a):
    s = 0
    for i in range(len(a)):
        for j in range(int(a[i])):
            s += 0.5
    return s


def zero_trip_inner_triangle(a):
    s = 0
    for i in range(len(a)):
        for j in range(i):
            s += a[j]
    return s


@pytest.mark.parametrize("a, compiled_code", [
    (np.zeros(20), False),                          # no inner trip at all: `s` stays 0
    (np.ones(20), True),
    (np.r_[0.0, 0.0, 2.0, np.zeros(17)], True),     # trips only in the third
    (np.r_[np.zeros(19), 1.0], True),               # trips only in the last
])
def test_a_zero_trip_inner_loop_leaves_an_int(a, compiled_code):
    # The outer loop op carries `s` as a float, and a flag of whether an inner loop made a
    # trip: where none did, the frame runs as plain Python (an entry fallback).
    assert_behaves_as_numpy(zero_trip_inner, a, compiled_code=compiled_code)


@pytest.mark.parametrize("n", [2, 3, 6])
def test_a_first_inner_loop_of_no_trips_leaves_no_int(n):
    assert_behaves_as_numpy(zero_trip_inner_triangle, np.linspace(0.5, 2.0, n))


def test_a_single_inner_loop_of_no_trips_leaves_an_int():
    assert_behaves_as_numpy(zero_trip_inner_triangle, np.ones(1), compiled_code=False)


def test_zero_trip_inner_loops_then_trips_on_the_same_compiled_code():
    compiled = ember.compile(zero_trip_inner)
    ember.reset()
    for a in (np.ones(20), np.zeros(20), np.ones(20)):
        got, want = compiled(a), zero_trip_inner(a)
        assert type(got) is type(want) and got == want


def numpy_scalar_or_python_float(a):
    s = np.float32(1)
    for i in range(len(a)):
        s = max(s, float(a[i]))
    return s


def test_max_of_a_numpy_scalar_and_a_greater_python_float_is_the_float():
    # The result leaves the loop: where the Python float was picked the frame runs as Python.
    assert_behaves_as_numpy(numpy_scalar_or_python_float, np.linspace(0, 3, 20),
                            compiled_code=False)
    assert_behaves_as_numpy(numpy_scalar_or_python_float, np.linspace(0, 0.5, 20))


def numpy_int_or_python_int(a):
    s = a[0]
    for _ in range(len(a)):
        s = max(s, 0)
    return s


# Found by tests/fuzz_loops.py (seed 15): max() of a negative np.int32 and 0 is the int 0.
def test_max_of_a_negative_numpy_int_and_a_python_int_is_the_int():
    assert_behaves_as_numpy(numpy_int_or_python_int, np.array([-3, 1, 2], np.int32),
                            compiled_code=False)
    assert_behaves_as_numpy(numpy_int_or_python_int, np.array([3, 1, 2], np.int32))


def clamp_into(x, hi):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = min(max(x[i], 0.0), hi)
        if max(x[i], 0.0) > 1.0:
            out[i] += -min(x[i], hi)
    return out


def clamp_total(x, lo, hi):
    total = 0.0
    for i in range(len(x)):
        total += abs(min(max(x[i], lo), hi))
    return total


def clamp_carried(x):
    v = 0.0
    for i in range(len(x)):
        v = max(x[i], 0.0)
    return v


def clamp_float32(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = max(x[i], 0.1)  # 0.1 is no float32: the Python float's own value is stored
    return out


def clamp_scaled(x):
    lst = []
    for i in range(len(x)):
        lst.append(max(x[i], 0.0) * 2.0)  # a Python float where 0.0 was picked
    return lst


def max_in_a_branch(a):
    s = 0.0
    for i in range(len(a)):
        if a[i] >= 0:
            s = max(s, a[i])  # ties keep the Python float
    return s


@pytest.mark.parametrize("x", [np.zeros(3), np.array([-1.0, 0.0, 2.0]), np.array([-1.0])])
def test_max_of_a_carried_python_float_in_a_branch(x):
    assert_behaves_as_numpy(max_in_a_branch, x, compiled_code=False)


def test_clamps_stored_or_compared_stay_compiled():
    # The same value as NumPy scalar or Python float: no use here can tell them apart.
    assert_behaves_as_numpy(clamp_into, np.linspace(-2, 3, 11), 2.0)


@pytest.mark.parametrize("x", [np.linspace(-2, 3, 11), np.linspace(0, 0.5, 4)])
def test_a_total_of_clamps_is_a_numpy_float_once_one_was(x):
    assert_behaves_as_numpy(clamp_total, x, -1.0, 1.5)


@pytest.mark.parametrize("x", [np.full(4, 9.0), np.full(4, -9.0), np.linspace(-1, 1, 5)])
def test_a_total_of_clamps_that_all_picked_the_python_float_is_a_python_float(x):
    assert_behaves_as_numpy(clamp_total, x, -1.0, 1.5, compiled_code=False)
    assert_behaves_as_numpy(clamp_carried, x, compiled_code=False)


def clamp_powered(x, lo, k):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = max(x[i], lo) ** k  # a Python float's power where `lo` was picked
    return out


def root_total(x, hi):
    total = 0.0
    for i in range(len(x)):
        total += min(x[i], hi) ** 0.5
    return total


@pytest.mark.parametrize("fn, args", [
    (clamp_powered, (np.linspace(-2, 3, 11), 0.0, 16)),
    (clamp_powered, (np.linspace(-2, 3, 11), 0.5, 3.5)),
    (root_total, (np.linspace(0, 3, 7), 1.0)),
], ids=["int-power", "float-power", "root-total"])
def test_powers_of_clamps_stay_compiled(fn, args):
    # A NumPy float64's power and a Python float's are of one value where neither raises.
    assert_behaves_as_numpy(fn, *args)


@pytest.mark.parametrize("fn, args", [
    (clamp_powered, (np.linspace(-2, 3, 5), 1e200, 3)),  # Python's OverflowError
    (clamp_powered, (np.linspace(-2, 3, 5), 0.0, -1)),  # Python's ZeroDivisionError
    (clamp_powered, (np.linspace(-2, 3, 5) * 1e200, 0.0, 3)),  # NumPy's overflow warnings
    (root_total, (np.linspace(-2, 3, 5), -1.0)),  # Python's complex number
    (root_total, (np.linspace(-2, 3, 5), 1.0)),  # NumPy's NaN and warning
], ids=["overflow", "zero-division", "numpy-overflow", "complex", "numpy-nan"])
def test_powers_of_clamps_where_python_or_numpy_raise_or_warn(fn, args):
    assert_behaves_as_numpy(fn, *args, compiled_code=False)


@pytest.mark.parametrize("fn, x", [(clamp_float32, np.linspace(-1, 1, 5, dtype=np.float32)),
                                   (clamp_scaled, np.linspace(-1, 1, 5))])
def test_clamps_whose_type_tells_run_as_python(fn, x):
    assert_behaves_as_numpy(fn, x, compiled_code=False)



def carried_takes_an_invariant(a, M):
    h = 0
    c = 0
    for i in range(M.shape[0]):
        for _ in range(3):
            k = len(a)
            while k > 0:
                k -= 1
                h += int(a[(int(a[0]) << 1) % len(a)])
            for _ in range(len(a)):
                h = c  # carried, ending each trip as an operand the body never changes
            h = i
    return c, h


def test_a_carried_local_bound_to_an_invariant_one():
    # The invariant operand is passed to the loop op though no op of its body reads it
    # (found by tests/fuzz_loops.py: an internal KeyError printing the graph).
    a = np.arange(12) % 2 == 0
    assert_behaves_as_numpy(carried_takes_an_invariant, a, np.zeros((11, 7)))


def zero_trip_while_of_an_and_test(a):
    s = 0
    for _ in range(len(a)):
        for _ in range(3):
            k = 0
            while k < len(a) and a[k] > 0:
                k += 1
                s += a[0]
    return s


def sum_of_the_positive(x):
    s = 0
    for i in range(len(x)):
        if x[i] > 0:
            s += x[i]
    return s


@pytest.mark.parametrize("a, compiled_code", [
    (np.zeros(3, bool), False),                     # the while never runs: `s` stays 0
    (np.ones(3, bool), True),
    (np.array([True, False, True]), True),
])
def test_a_while_that_never_runs_leaves_an_int(a, compiled_code):
    # The path of the `if` on the while's first test makes `s` a NumPy int: or-ed into the
    # loop op's flag of whether `s` changed type (found by tests/fuzz_loops.py).
    assert_behaves_as_numpy(zero_trip_while_of_an_and_test, a, compiled_code=compiled_code)


@pytest.mark.parametrize("x, compiled_code", [
    (-np.ones(10), False),                          # no path that adds: `s` stays 0
    (np.linspace(-1.0, 1.0, 10), True),
    (np.r_[-np.ones(9), 2.0], True),                # only the last trip adds
])
def test_a_branch_never_taken_leaves_an_int(x, compiled_code):
    assert_behaves_as_numpy(sum_of_the_positive, x, compiled_code=compiled_code)


def floor_of_python_floats(a):
    t = 0.0
    u = 0.0
    for i in range(1, len(a)):
        t += float(a[i]) // i
        u += float(a[i]) % 3
    return t, u


@pytest.mark.parametrize("a", [
    np.r_[1.0, np.inf, 2.0, 5.0],                   # Python gives NaN and no warning
    np.r_[1.0, -np.inf, np.nan, 5.0],
    np.r_[1.0, 7.0, -2.5, 5.0],
])
def test_floor_division_of_an_infinite_python_float_is_nan_without_a_warning(a):
    # (found by tests/fuzz_loops.py: NumPy's floor_divide warns of an invalid value)
    assert_behaves_as_numpy(floor_of_python_floats, a)


def masked_hash(a, m, k):
    h = 2166136261
    for i in range(len(a)):
        h = ((h ^ int(a[i])) * m) & 0xFFFFFFFF
        h = 0xFFFFFFFFFFFF & (h << k)
        h = (h - (int(a[i]) * m & 0xFFFF)) & 0x7FFFFFFFFFFFFFFF
    return h


@seed(20261207)
@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.integers(-2**63, 2**63 - 1), min_size=9, max_size=12),
       multiplier=st.sampled_from([16777619, 0xCC9E2D51, 2**40 + 1, -3, 2**62]),
       shift=st.integers(0, 63))
def test_products_masked_right_away_need_no_exact_int(values, multiplier, shift):
    """`(h * m) & 0xFFFFFFFF`: the low bits of int64's wrapped product are Python's, so the
    masked op keeps one compiled loop that never falls back to Python."""
    a = np.array(values, dtype=np.int64)
    ember.reset()
    assert ember.compile(masked_hash)(a, multiplier, shift) == masked_hash(a, multiplier, shift)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats


def masked_then_reused(a, m):
    h = 1
    total = 0
    for i in range(len(a)):
        p = h * m  # read again below: its overflow must still send the frame to Python
        h = p & 0xFFFF
        total += p
    return h, total


def test_a_product_read_again_keeps_its_exact_int():
    a = np.arange(12)
    for m in (3, 2**62):
        ember.reset()
        assert ember.compile(masked_then_reused)(a, m) == masked_then_reused(a, m)
