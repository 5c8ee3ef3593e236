"""Float scalar arithmetic native loop code computes without a libm call or a division, bit
for bit as Python and NumPy: `x ** 3` as libm's `pow` gives it (`native/cube.rs`), and a
division by a constant power of two as a multiplication; and integer shifts in a loop's
branches (collatz)."""

from __future__ import annotations

import math

import ember
import numpy as np
import pytest
from conftest import assert_same

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 2.0**-300, -(2.0**-300),
           2.0**-300 * (1 - 2**-53), 2.0**300, 2.0**300 * (1 + 2**-52), 1e308, -1e308, 2.0, 0.5,
           3.0, 1.0 + 2**-52, 1.0 - 2**-53, 2.2250738585072014e-308, 1e-103, 1e103]


def python_cubes(x):
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        m = float(x[i])
        out[i] = m ** 3
    return out


def numpy_cubes(x):
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = x[i] ** 3
    return out


def float_exponent_cubes(x):
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = x[i] ** 3.0
    return out


def halvings(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] / 2 + x[i] / 0.25 - x[i] / 1024.0 + x[i] / -8
    return out


def collatz(n):
    lengths = np.zeros(n, dtype=np.int64)
    for start in range(1, n + 1):
        m = start
        steps = 0
        while m != 1:
            if m & 1:
                m = 3 * m + 1
            else:
                m >>= 1
            steps += 1
        lengths[start - 1] = steps
    return lengths


def shifted(x, k):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        v = x[i]
        if v & 1:
            v = (v << k) ^ (v >> 3)
        else:
            v = v >> k
        out[i] = v
    return out


def samples(seed: int) -> list[np.ndarray]:
    """Random doubles of every scale and sign, and doubles of few bits (exact cubes and
    midpoints, where `pow` itself may round either way)."""
    rng = np.random.default_rng(seed)
    n = 200_000
    return [rng.random(n) * 20,
            np.ldexp(rng.random(n) + 1, rng.integers(-330, 330, n)) * rng.choice([-1, 1], n),
            rng.integers(1, 2**18, n) * 2.0 ** rng.integers(-40, 40, n),
            rng.random(n) * 2 - 1,
            np.array(SPECIAL * 3)]


def bits(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, dtype=np.float64).view(np.int64)


@pytest.mark.parametrize("seed", [0, 1])
def test_cubes_are_libm_pow_bit_for_bit(seed) -> None:
    fast_python, fast_numpy = ember.compile(python_cubes), ember.compile(numpy_cubes)
    fast_float = ember.compile(float_exponent_cubes)
    for x in samples(seed):
        with np.errstate(all="ignore"):
            want = np.array([math.pow(v, 3) if abs(v) < 1e100 or not math.isfinite(v)
                             else float(np.float64(v) ** 3) for v in x.tolist()])
            got_numpy, got_float = fast_numpy(x), fast_float(x)
        np.testing.assert_array_equal(bits(got_numpy), bits(want))
        np.testing.assert_array_equal(bits(got_float), bits(want))
        finite = np.abs(x) < 1e100
        np.testing.assert_array_equal(bits(fast_python(x[finite])), bits(want[finite]))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_divisions_by_powers_of_two_match_numpy(dtype) -> None:
    x = np.concatenate([np.array(SPECIAL), np.random.default_rng(2).standard_normal(40),
                        np.array([3e-45, 1.2e-38, 3.4e38, 1e-310])]).astype(dtype)
    with np.errstate(all="ignore"):
        want = halvings(x.copy())
        got = ember.compile(halvings)(x.copy())
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.int64 if dtype == np.float64 else np.int32),
                                  want.view(np.int64 if dtype == np.float64 else np.int32))


def test_integer_shifts_in_branches_match_python() -> None:
    assert_same(ember.compile(collatz)(300), collatz(300))
    x = np.random.default_rng(3).integers(-(2**40), 2**40, 64)
    for k in (0, 1, 5, 63, 64, 70):
        with np.errstate(all="ignore"):
            assert_same(ember.compile(shifted)(x, k), shifted(x, k))
