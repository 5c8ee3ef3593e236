"""Integer `//` and `%` by a divisor known when the kernel is compiled (a literal, or an int
argument guarded by value): the kernels divide by the literal, which the code generator turns
into a multiplication, and keep NumPy's floor semantics for every sign of either operand,
the extremes of each dtype included. Differential against NumPy, element loops as well."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

SIGNED = [np.int8, np.int16, np.int32, np.int64]
UNSIGNED = [np.uint8, np.uint16, np.uint32, np.uint64]


def _operands(dtype) -> np.ndarray:
    info = np.iinfo(dtype)
    edges = [info.min, info.min + 1, -7, -3, -2, -1, 0, 1, 2, 3, 7, info.max - 1, info.max]
    edges = [v for v in edges if info.min <= v <= info.max]
    rng = np.random.default_rng(5)
    drawn = rng.integers(info.min, info.max, 200, dtype=dtype, endpoint=True)
    return np.concatenate([np.array(edges, dtype=dtype), drawn])


def _divisors(dtype) -> list[int]:
    info = np.iinfo(dtype)
    ds = [1, 2, 3, 7, 8, 10, 100, 255, 1000003, 2**31 - 1, 2**40 + 5, info.max]
    if info.min < 0:
        ds += [-2, -3, -7, -8, -100, -1000003, info.min + 1, info.min]
    # Python ints past int64 (uint64's max) break the graph: not a compiled division.
    return [d for d in ds if info.min <= d <= min(info.max, 2**63 - 1)]


def _check(fn, *args):
    want = fn(*args)
    ember.reset()
    got = ember.compile(fn)(*args)
    assert ember.stats()["compiles"] >= 1
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def _by(d: int):
    """`x // d` and `x % d` with `d` a literal of the compiled function."""
    namespace: dict = {}
    exec(f"def by(x):\n    return x // ({d}), x % ({d})\n", namespace)
    return namespace["by"]


@pytest.mark.parametrize("dtype", SIGNED + UNSIGNED)
def test_literal_divisors_match_numpy(dtype):
    x = _operands(dtype)
    for d in _divisors(dtype):
        _check(_by(d), x)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint64])
def test_guarded_int_argument_divisor(dtype):
    def modpow(bases, e, m):
        result = np.ones_like(bases)
        b = bases % m
        while e > 0:
            if e & 1:
                result = (result * b) % m
            b = (b * b) % m
            e >>= 1
        return result, b // m

    x = _operands(dtype)
    x = x[(x >= 0) & (x < 2**20)] if dtype != np.uint64 else x % np.uint64(2**20)
    for m in (1_000_003, 97, 1 << 16):
        _check(modpow, x, 65537, m)


def test_element_loop_divides_by_literal():
    def digits(a):
        out = np.empty_like(a)
        for i in range(a.shape[0]):
            out[i] = a[i] % -9 + a[i] // 13
        return (out,)

    _check(digits, _operands(np.int64))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(d=st.integers(-(2**63), 2**63 - 1).filter(lambda v: v not in (0,)),
       xs=st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=20))
def test_random_int64_divisors(d, xs):
    with np.errstate(all="ignore"):
        _check(_by(d), np.array(xs, dtype=np.int64))
