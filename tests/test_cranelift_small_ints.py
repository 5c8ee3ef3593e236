"""int8, int16, uint8, uint16, uint32 and uint64 on the Cranelift backend, against NumPy:
elementwise arithmetic with wraparound, floor division and modulo (by zero too), shifts,
comparisons, reductions, scans, casts to and from every dtype, and loop bodies reading and
writing small integers (a CRC over bytes, a histogram indexed by bytes)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st

SMALL = [np.int8, np.int16, np.uint8, np.uint16, np.uint32, np.uint64]
ALL = [*SMALL, np.int32, np.int64, np.float32, np.float64, np.bool_]


def _data(dtype, n, seed):
    info = np.iinfo(dtype)
    return np.random.default_rng(seed).integers(info.min, info.max, n, dtype=dtype,
                                                endpoint=True)


def arithmetic(a, b):
    return (a + b, a - b, a * b, a // b, a % b, a & b, a | b, a ^ b, ~a, -a,
            np.maximum(a, b), np.minimum(a, b), a < b, a >= b, a == b, a != b,
            np.abs(a), np.sign(a), a * 3, a + 7, b // 5, a % 3)


def shifts(a, b):
    return a >> (b % 9).astype(a.dtype), a << (b % 9).astype(a.dtype), a >> 1, a << 2


def reductions(a):
    return (a.sum(), a.max(), a.min(), a.argmax(), a.argmin(), a.prod(), np.cumsum(a),
            a.mean(), (a > 3).sum(), a.reshape(5, -1).max(axis=0), a.reshape(5, -1).sum(axis=1))


@pytest.mark.parametrize("dtype", SMALL, ids=[np.dtype(d).name for d in SMALL])
@pytest.mark.parametrize("fn", [arithmetic, shifts])
def test_binary_like_numpy(fn, dtype) -> None:
    a, b = _data(dtype, 60, 1), _data(dtype, 60, 2)
    with np.errstate(all="ignore"):
        want = fn(a, b)
        ember.reset()
        got = ember.compile(fn)(a, b)
    assert_same(got, want)
    assert not ember.stats()["backend_fallbacks"]


@pytest.mark.parametrize("dtype", SMALL, ids=[np.dtype(d).name for d in SMALL])
def test_reductions_like_numpy(dtype) -> None:
    a = _data(dtype, 60, 3)
    with np.errstate(all="ignore"):
        want = reductions(a)
        ember.reset()
        got = ember.compile(reductions)(a)
    assert_same(got, want)
    assert not ember.stats()["backend_fallbacks"]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(src=st.sampled_from(ALL), dst=st.sampled_from(ALL), seed=st.integers(0, 10))
def test_casts_like_numpy(src, dst, seed) -> None:
    r = np.random.default_rng(seed)
    if np.dtype(src).kind == "f":
        # In range of the target: out-of-range float conversions differ between NumPy's
        # own loops.
        lo, hi = (-100, 100) if np.dtype(dst).kind in "ib" else (0, 200)
        a = (r.random(40) * (hi - lo) + lo).astype(src)
    elif src is np.bool_:
        a = r.random(40) < 0.5
    else:
        a = _data(src, 40, seed)

    def f(a):
        return a.astype(dst), a.astype(dst) + a.astype(dst)

    with np.errstate(all="ignore"):
        want = f(a)
        ember.reset()
        got = ember.compile(f)(a)
    assert_same(got, want)


def promote(a, b, c):
    return a + b, a * c, b - c, a / b, a * 2.5, c + 1, a.astype(np.float32) * b


def test_promotion_with_other_dtypes() -> None:
    a, b = _data(np.uint8, 30, 4), _data(np.int16, 30, 5)
    c = _data(np.uint32, 30, 6)
    with np.errstate(all="ignore"):
        ember.reset()
        assert_same(ember.compile(promote)(a, b, c), promote(a, b, c))


def crc16(data, poly=0x8408):
    crc = 0xFFFF
    for b in data:
        cur_byte = 0xFF & b
        for _ in range(8):
            if (crc & 0x0001) ^ (cur_byte & 0x0001):
                crc = (crc >> 1) ^ poly
            else:
                crc >>= 1
            cur_byte >>= 1
    crc = (~crc & 0xFFFF)
    crc = (crc << 8) | ((crc >> 8) & 0xFF)
    return crc & 0xFFFF


def byte_histogram(data):
    counts = np.zeros(256, dtype=np.int64)
    for b in data:
        counts[b] += 1
    return counts


def saturating_add(x, y):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        s = np.int16(x[i]) + np.int16(y[i])
        out[i] = np.minimum(s, 255)
    return out


def wrapping_sum(x):
    acc = np.uint8(0)
    for i in range(x.shape[0]):
        acc = acc + x[i] * np.uint8(3)
    return acc


@pytest.mark.parametrize("fn,args", [
    (crc16, lambda: (_data(np.uint8, 300, 7),)),
    (byte_histogram, lambda: (_data(np.uint8, 500, 8),)),
    (saturating_add, lambda: (_data(np.uint8, 100, 9), _data(np.uint8, 100, 10))),
    (wrapping_sum, lambda: (_data(np.uint8, 100, 11),)),
], ids=["crc16", "byte_histogram", "saturating_add", "wrapping_sum"])
def test_loops_over_bytes_compile_natively(fn, args) -> None:
    inputs = args()
    with np.errstate(all="ignore"):
        want = fn(*[a.copy() for a in inputs])
        ember.reset()
        got = ember.compile(fn)(*[a.copy() for a in inputs])
    assert_same(got, want)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0 and stats["compiles"] == 1
    assert not stats["backend_fallbacks"] and not stats["region_recaptures"]
