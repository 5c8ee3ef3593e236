"""Bool, integer and conversion ops compiled on their own, on the vector paths that replaced
their scalar loops (benches/lone_ops.py): stages of bools alone in byte lanes, integer `abs`,
`sign` and class tests, `i32` floor division and modulo through `f64`, casts between 4- and
8-byte lanes, `any`/`all` and integer `max`/`min` along rows. Values, dtypes and warnings are
NumPy's bit for bit, in every length (vector tails), step and layout."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_lone_ops import exactly, values

INTS = [np.int32, np.int64]
LENGTHS = [0, 1, 2, 15, 16, 17, 31, 33, 129, 1000, 4099]


def masks(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two random bool arrays and one whose true bytes are not all 1 (a view of uint8)."""
    rng = np.random.default_rng(seed)
    odd = rng.integers(0, 3, n).astype(np.uint8).view(np.bool_)
    return rng.random(n) < 0.5, rng.random(n) < 0.3, odd


BOOL_PROGRAMS = [lambda a, b: a & b, lambda a, b: a | b, lambda a, b: a ^ b,
                 lambda a, b: a == b, lambda a, b: a != b, lambda a, b: ~a,
                 lambda a, b: np.logical_and(a, b), lambda a, b: np.logical_or(a, ~b),
                 lambda a, b: np.logical_xor(a, b), lambda a, b: np.logical_not(a),
                 lambda a, b: a + b, lambda a, b: a * b, lambda a, b: np.maximum(a, b),
                 lambda a, b: np.minimum(a, b), lambda a, b: a < b, lambda a, b: a >= b,
                 lambda a, b: np.where(a, ~b, True), lambda a, b: a & True]


@pytest.mark.parametrize("n", LENGTHS)
def test_bool_stages_in_byte_lanes(n):
    a, b, odd = masks(n, n)
    for f in BOOL_PROGRAMS:
        exactly(f, a, b)
        exactly(f, odd, b)
        exactly(f, b, odd)


def test_bool_stages_in_every_layout():
    a, b, _ = masks(4000, 1)
    layouts = [lambda x: x[::-1], lambda x: x[::3], lambda x: x.reshape(40, 100).T,
               lambda x: x.reshape(40, 100)[:, 1:], lambda x: x[:1].reshape(()),
               lambda x: x.reshape(40, 100)[:1]]
    for view in layouts:
        for f in (BOOL_PROGRAMS[0], BOOL_PROGRAMS[3], BOOL_PROGRAMS[5]):
            exactly(f, view(a), view(b))
    # Broadcast against a row and a 0-d array.
    exactly(lambda x, y: x.reshape(40, 100) & y[:100], a, b)
    exactly(lambda x, y: x ^ y, a, b[:1].reshape(()))


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("n", LENGTHS)
def test_integer_unary_ops(dtype, n):
    x = values(n, dtype, n) * 7
    if n:
        x[0] = np.iinfo(dtype).min
    for f in (lambda v: np.abs(v), lambda v: np.sign(v), lambda v: np.signbit(v),
              lambda v: np.logical_not(v), lambda v: np.isnan(v), lambda v: np.isinf(v),
              lambda v: np.isfinite(v), lambda v: np.abs(v[::-1]),
              lambda v: np.isnan(v) | (v > 0)):
        exactly(f, x)


def divisions(dtype, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Dividends over the whole range (extremes included) and divisors with zeros, -1, 1 and
    the extremes among them."""
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    x[: n // 3] = rng.integers(-100, 100, n // 3)
    y = rng.integers(-9, 10, n).astype(dtype)
    specials = np.array([info.min, info.max, -1, 1, 0, 7], dtype)
    if n:
        x[rng.integers(0, n, min(n, 6))] = specials[: min(n, 6)]
        y[rng.integers(0, n, min(n, 6))] = specials[: min(n, 6)]
    return x, y


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("n", [1, 3, 4, 17, 100, 4099])
def test_integer_floor_division_and_modulo(dtype, n):
    x, y = divisions(dtype, n, n)
    safe = np.where((y == 0) | (y == -1), 3, y).astype(dtype)
    for f in (lambda x, y: x // y, lambda x, y: x % y, lambda x, y: np.floor_divide(x, y) + 1):
        exactly(f, x, safe)
        exactly(f, x, y)  # zero divisors and MIN // -1: NumPy's values and warnings
    for d in (7, -7, 1, -1, 2, 1000003):
        exactly(lambda x, y, d=d: x // d, x, y)
        exactly(lambda x, y, d=d: x % d, x, y)
    exactly(lambda x, y: x[::-1] // y[::-1], x, safe)
    exactly(lambda x, y: x // 0, x, y)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(0, 2000), st.sampled_from(INTS), st.sampled_from([1, 2, -1]),
       st.integers(-20, 20))
def test_random_floor_divisions(n, dtype, step, d):
    x, y = divisions(dtype, n, n)
    exactly(lambda x, y: (x // y, x % y), x[::step], y[::step])
    exactly(lambda x, y, d=d: (x // d, x % d), x[::step], y[::step])


CASTS = [(np.int32, np.float64), (np.float32, np.float64), (np.int32, np.int64),
         (np.float64, np.float32), (np.float64, np.int32), (np.int64, np.int32),
         (np.int64, np.float64), (np.float64, np.int64)]


def cast_values(dtype, n: int, seed: int) -> np.ndarray:
    """Values of `dtype` that test a cast's edges: out of range of the narrower types, NaN,
    infinities, subnormal results, signed zeros, extremes."""
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        x = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 12, n)).astype(dtype)
        edges = [np.nan, np.inf, -np.inf, -0.0, 2.0**31, -2.0**31 - 1, 3.5e38, 1e300, 1e-310,
                 1e-40, -2.0**31, 2.0**51 - 0.5, -(2.0**51) + 0.5, 2.0**51, -(2.0**51),
                 2.0**63, -(2.0**63), 2.0**62 + 2048, -0.75]
        # float32 takes the edges it can hold (a float64 beyond its range would warn here).
        edges = np.array(edges if dtype == np.float64 else edges[:7], dtype)
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        edges = np.array([info.min, info.max, 0, -1, 2**31, -(2**31) - 1, 2**53 + 1,
                          -(2**53) - 3, 2**32 - 1, -(2**32), 2**62 + 2**10 + 1]
                         if dtype == np.int64 else [info.min, info.max, 0, -1], dtype)
    if n:
        x[rng.integers(0, n, min(n, 20))] = np.resize(edges, min(n, 20))
    return x


@pytest.mark.parametrize(("src", "dst"), CASTS)
@pytest.mark.parametrize("n", [1, 2, 3, 16, 17, 1000, 4099])
def test_casts_between_lane_widths(src, dst, n):
    x = cast_values(src, n, n)
    exactly(lambda v: v.astype(dst), x)
    exactly(lambda v: v[::-2].astype(dst), x)
    exactly(lambda v: v.astype(dst) * 2, x)
    exactly(lambda v: v.reshape(1, -1).T.astype(dst), x)
    if np.dtype(src).itemsize == 4:
        # A widened load feeding arithmetic in the wide lanes.
        exactly(lambda v: (v.astype(dst) + 1 > 0), x)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(0, 3000), st.sampled_from(CASTS), st.sampled_from([1, 2, -1]))
def test_random_casts(n, cast, step):
    src, dst = cast
    exactly(lambda v: v.astype(dst), cast_values(src, n, n)[::step])


@pytest.mark.parametrize("shape", [(7, 33), (64, 64), (3, 1000), (1, 5), (5, 0)])
def test_reductions_of_masks_and_integers_along_rows(shape):
    rng = np.random.default_rng(shape[1])
    m = rng.random(shape) < 0.1
    ones = rng.random(shape) < 0.95
    programs = [lambda m: m.any(axis=1), lambda m: m.all(axis=1), lambda m: m.any(),
                lambda m: np.logical_or.reduce(m, axis=-1), lambda m: m.sum(axis=1),
                lambda m: m[:, ::-1].any(axis=1), lambda m: m.T.all(axis=0)]
    for f in programs:
        exactly(f, m)
        exactly(f, ones)
        exactly(f, np.zeros(shape, bool))
    for dtype in INTS:
        x = values(shape[0] * shape[1], dtype, 3).reshape(shape) * 1000
        if x.size:
            x.flat[0] = np.iinfo(dtype).min
            x.flat[-1] = np.iinfo(dtype).max
        exactly(lambda v: (v > 0).any(axis=1), x)
        if x.size:  # NumPy raises for the extremes of an empty row
            for f in (lambda v: v.max(axis=1), lambda v: v.min(axis=1),
                      lambda v: v.max(axis=0), lambda v: v[:, ::-1].min(axis=1),
                      lambda v: (v.max(), v.min())):
                exactly(f, x)
