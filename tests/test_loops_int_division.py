"""Integer `//` and `%` in native loop code against plain Python and NumPy: operands of every
sign, zero divisors, INT64_MIN, values on both sides of 2^32 (the 32-bit division's limit),
ranges that prove operands non-negative (unsigned division, a remainder bounding an index),
and loops whose break test stays a branch (`native/divide.rs`, `branch.rs: exit_test`)."""

from __future__ import annotations

import warnings

import ember
import numpy as np
import pytest
from conftest import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st

MIN, MAX = np.iinfo(np.int64).min, np.iinfo(np.int64).max
EDGES = [0, 1, -1, 2, -2, 3, -3, 7, -7, 10, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1,
         -(2**32), 2**40 + 3, MAX, MAX - 1, MIN, MIN + 1]
ints = st.one_of(st.sampled_from(EDGES), st.integers(MIN, MAX), st.integers(-1000, 1000))


def numpy_divmod(a, b):
    q = np.zeros(a.shape[0], dtype=np.int64)
    r = np.zeros(a.shape[0], dtype=np.int64)
    for i in range(a.shape[0]):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
    return q, r


def python_divmod(a, b):
    q = np.zeros(a.shape[0], dtype=np.int64)
    r = np.zeros(a.shape[0], dtype=np.int64)
    for i in range(a.shape[0]):
        x, y = int(a[i]), int(b[i])
        q[i] = x // y
        r[i] = x % y
    return q, r


def gcds(a, b):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        x, y = a[i], b[i]
        while y:
            x, y = y, x % y
        out[i] = x
    return out


def digits(a, base):
    out = np.zeros(a.shape[0], dtype=np.int64)
    for i in range(a.shape[0]):
        n = int(a[i])
        s = 0
        while n > 0:
            s += n % base
            n //= base
        out[i] = s
    return out


def negative_thirds(a):
    out = np.zeros(a.shape[0], dtype=np.int64)
    for i in range(a.shape[0]):
        n = int(a[i])
        s = 0
        while n < -5:
            s += n % 7 + n // 3
            n = n // 3
        out[i] = s
    return out


def ranged(out, n, m):
    total = 0
    for x in range(-n, n):
        for y in range(1, m):
            total += x // y * 3 + x % y
    for x in range(0, n):
        for y in range(1, m):
            total += x // y + x % y * 5
    out[0] = total
    return out


def wrapped_reads(x, step):
    out = np.zeros(x.shape[0])
    n = x.shape[0]
    for i in range(n):
        out[i] = x[(i * step) % n] + x[(i * 7 + 3) % 5]
    return out


def first_divisors(limit):
    out = np.zeros(limit, dtype=np.int64)
    for k in range(2, limit):
        d = 2
        found = k
        while d * d <= k:
            if k % d == 0:
                found = d
                break
            d += 1
        out[k] = found
    return out


def first_negative(x, start):
    pos = -1
    acc = start
    for i in range(x.shape[0]):
        acc = acc * 3 % 1000003 - x[i]
        if acc < 0:
            pos = i
            break
        acc += 1
    return pos, acc


def operands(pairs):
    """The pairs' operands as two arrays of at least 16 (a loop that short stays a loop op)."""
    pairs = pairs * (16 // len(pairs) + 1)
    return (np.array([p[0] for p in pairs], dtype=np.int64),
            np.array([p[1] for p in pairs], dtype=np.int64))


def run(fn, *args):
    want = fn(*args)
    ember.reset()
    got = ember.compile(fn)(*args)
    assert_same(got, want)
    stats = ember.stats()
    # Compiled as one graph on the Cranelift backend, not run as Python.
    assert stats["graph_breaks"] == 0 and not stats["backend_fallbacks"], stats
    return got


@settings(max_examples=60, deadline=None, derandomize=True)
@given(pairs=st.lists(st.tuples(ints, ints), min_size=1, max_size=12))
def test_numpy_int64_floor_division_and_modulo_match_numpy(pairs) -> None:
    a, b = operands(pairs)
    with np.errstate(all="ignore"):
        run(numpy_divmod, a, b)
        run(gcds, np.abs(a), b)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(pairs=st.lists(st.tuples(ints, ints.filter(lambda y: y != 0)), min_size=1, max_size=12))
def test_python_int_floor_division_and_modulo_match_python(pairs) -> None:
    # MIN // -1 is 2**63, which no int64 array holds: Python raises storing it.
    pairs = [(x, y) for x, y in pairs if (x, y) != (MIN, -1)] or [(7, -2)]
    a, b = operands(pairs)
    run(python_divmod, a, b)


def test_zero_divisors_and_min_over_minus_one_warn_as_numpy() -> None:
    a = np.array([MIN, 5, -5, 3, MIN, 2**33], dtype=np.int64)
    b = np.array([-1, 0, 0, 2, 3, -1], dtype=np.int64)
    fast = ember.compile(numpy_divmod)
    with warnings.catch_warnings(record=True) as want_w:
        warnings.simplefilter("always")
        want = numpy_divmod(a, b)
    with warnings.catch_warnings(record=True) as got_w:
        warnings.simplefilter("always")
        got = fast(a, b)
    assert_same(got, want)
    assert sorted(str(w.message) for w in got_w) == sorted(str(w.message) for w in want_w)


@pytest.mark.parametrize("base", [10, 7, 2**32 + 5])
def test_carried_values_tested_by_the_loop_divide_as_python(base) -> None:
    a = np.array([0, 9, 10, 123456789, MAX, -1, -6, -7, -1000, MIN, 2**32 + 7] * 3,
                 dtype=np.int64)
    run(digits, a, base)
    run(negative_thirds, a)


@pytest.mark.parametrize("n, m", [(1, 2), (7, 5), (40, 33)])
def test_operands_of_known_range_divide_as_python(n, m) -> None:
    run(ranged, np.zeros(1, dtype=np.int64), n, m)


def test_a_remainder_bounds_an_index() -> None:
    x = np.random.default_rng(0).random(13)
    for step in (1, 5, 12, 2**40 + 1):
        run(wrapped_reads, x, step)
    with pytest.raises(IndexError):
        ember.compile(wrapped_reads)(x[:4], 3)


def test_a_break_out_of_a_loop_keeps_its_values() -> None:
    run(first_divisors, 300)
    x = np.random.default_rng(1).integers(0, 10**6, 50)
    for start in (0, 5, 999_999):
        run(first_negative, x, start)
