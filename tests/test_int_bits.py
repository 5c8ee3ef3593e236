"""`n.bit_length()` and `n.bit_count()` of Python ints the graph computes (loop indices,
bitmasks of subset DPs, `int(x[i])`) and `x[i].bit_count()` of NumPy integer scalars
(`capture/variables/int_bits.py`), against Python and NumPy: values, the Python int result,
one compiled graph whose loops are loop ops (no graph break), on both backends."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy, assert_compiles_whole


def subset_sums(values):
    n = len(values)
    sums = np.zeros(1 << n, dtype=values.dtype)
    for mask in range(1, 1 << n):
        low = mask & -mask
        bit = low.bit_length() - 1
        sums[mask] = sums[mask ^ low] + values[bit]
    return sums


def popcounts(n):
    out = np.zeros(1 << n, dtype=np.int64)
    for mask in range(1 << n):
        out[mask] = mask.bit_count() * 10 + (mask - 3).bit_length() + (-mask).bit_count()
    return out


def data_bits(x):
    out = np.zeros(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        out[i] = x[i].bit_count() + int(x[i]).bit_length()
    return out


def gray_parity(n):
    total = 0
    for k in range(n):
        g = k ^ (k >> 1)
        total += (g.bit_count() & 1) * k
    return np.int64(total)


def best_bits(x):
    best = 0
    for i in range(x.shape[0]):
        best = max(best, x[i].bit_count())
    return best, int(x[0]).bit_length()


EDGES = np.array([0, 1, -1, 2**63 - 1, -2**63, 255, -256, 2**32, -(2**32) - 1] * 4)


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
@pytest.mark.parametrize("fn,args", [
    (subset_sums, (np.random.default_rng(0).random(10),)),
    (popcounts, (9,)),
    (data_bits, (EDGES,)),
    (data_bits, (np.random.default_rng(1).integers(0, 256, 40, dtype=np.uint8),)),
    (data_bits, (np.arange(2**62, 2**62 + 40, dtype=np.uint64)[::-1],)),
    (gray_parity, (300,)),
    (best_bits, (EDGES,)),
], ids=["subset_sums", "popcounts", "int64_edges", "uint8", "uint64", "gray_parity",
        "best_bits"])
def test_bit_methods_behave_as_python(fn, args, backend):
    want = fn(*args)
    got = ember.compile(fn, backend=backend)(*args)
    assert repr(got) == repr(want)
    if backend == "cranelift":
        assert_compiles_whole(fn, args)


@seed(20261207)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(-2**63, 2**63 - 1), min_size=1, max_size=20))
def test_bit_methods_of_any_int64(values):
    assert_behaves_as_numpy(data_bits, np.array(values, dtype=np.int64))


def test_a_zero_d_array_has_no_bit_count():
    def f(x):
        return np.sum(x).reshape(()).view(np.ndarray).bit_count()

    assert_behaves_as_numpy(f, np.arange(3), compiled_code=False)


def wide_ints(x):
    out = np.zeros(x.shape[0], dtype=np.int64)
    total = 0
    for i in range(x.shape[0]):
        v = int(x[i])
        out[i] = v % 1000
        total = (total + v // 3) % 1000003
    return out, total


@pytest.mark.parametrize("x", [np.arange(2**64 - 40, 2**64, dtype=np.uint64)[::-1],
                               np.arange(2**63 - 5, 2**63 + 5, dtype=np.uint64),
                               np.arange(40, dtype=np.uint64)],
                         ids=["past_int64", "across_int64", "small"])
def test_int_of_a_uint64_past_int64_is_pythons(x):
    """`int(x[i])` of a uint64 is a Python int wider than int64 where the value is: the
    frame runs as Python there, never a wrapped negative."""
    assert_behaves_as_numpy(wide_ints, x, compiled_code=False)
    if x.max() < 2**63:
        assert_compiles_whole(wide_ints, (x,))
