"""Elementwise ops compiled natively against NumPy: every binary and unary op of the IR for
every dtype pair it allows, weak Python scalars, broadcasting, edge values (±0, ±inf, nan,
integer extremes), non-contiguous and 0-d inputs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from ember.graph import OPS
from test_cranelift_harness import APPROXIMATE, ULPS, check
from test_ops_elementwise import SYMBOLS, sample

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.int64, np.uint32,
          np.uint64, np.float32, np.float64]
# Pairs covering every kind combination without the full 11 x 11 product.
PAIRS = sorted({*itertools.product([np.bool_, np.int32, np.float32, np.float64], repeat=2),
                *((d, d) for d in DTYPES), (np.int8, np.uint8), (np.int64, np.uint64),
                (np.uint8, np.float32), (np.int16, np.float32), (np.int64, np.float32),
                (np.uint32, np.int32)}, key=str)
WEAK = [True, 3, -2, 2.5]

BINARY = {name: op.numpy for name, op in OPS.items()
          if op.kind == "elementwise" and op.arity == 2}
# NumPy's ufuncs (scipy's `erf`/`erfc` ops: tests/test_scipy_erf.py).
UNARY = {name: op.numpy for name, op in OPS.items()
         if op.kind == "elementwise" and op.arity == 1 and op.numpy is not None
         and getattr(np, op.numpy.__name__, None) is op.numpy}


def ulps(name: str) -> int:
    return ULPS if name in APPROXIMATE else 0


def edge_values(dtype: type, n: int = 64, seed: int = 0) -> np.ndarray:
    """A 1-d sample with each dtype's edge values and random ones across its range."""
    dt = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        edges = np.array([0, 1, 2, 7, info.max, info.max - 1, info.min, info.min + 1],
                         dtype=dt)
        return np.concatenate([edges, rng.integers(info.min, info.max, n - len(edges),
                                                   dtype=dt, endpoint=True)])
    edges = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, np.inf, -np.inf, np.nan, 1e-30,
                      -3.75, 88.5, -100.0, 700.0, 1e30, np.finfo(dt).tiny], dtype=dt)
    spread = rng.standard_normal(n - len(edges)) * np.exp(rng.uniform(-6, 6, n - len(edges)))
    return np.concatenate([edges, spread.astype(dt)])


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_op_dtype_pairs(name: str) -> None:
    fn = BINARY[name]
    compiled = 0
    for da, db in PAIRS:
        a, b = sample(da, (2, 3)), sample(db, (3,), 1)
        compiled += check(lambda xp, a, b: getattr(xp, fn.__name__)(a, b), a, b,
                          ulps=ulps(fn.__name__)) is not None
    for d in (np.int8, np.float32, np.float64, np.bool_):
        for w in WEAK:
            x = sample(d, (4,), 2)
            compiled += check(lambda xp, x, w=w: getattr(xp, fn.__name__)(x, w), x,
                              ulps=ulps(fn.__name__)) is not None
            compiled += check(lambda xp, x, w: getattr(xp, fn.__name__)(w, x), x, w,
                              weak_inputs=True, ulps=ulps(fn.__name__)) is not None
    assert compiled >= 8, f"{name}: only {compiled} graphs reached the backend"


@pytest.mark.parametrize("name", sorted(SYMBOLS))
def test_binary_operators_on_edge_values(name: str) -> None:
    prog = eval(f"lambda xp, a, b: a {SYMBOLS[name]} b")
    for dt in DTYPES:
        a = edge_values(dt)
        b = edge_values(dt, seed=1)[::-1].copy()
        if name in ("left_shift", "right_shift") and np.dtype(dt).kind in "iu":
            b = (np.abs(b.astype(np.int64)) % (8 * np.dtype(dt).itemsize)).astype(dt)
        if name == "pow" and np.dtype(dt).kind in "iu":
            b = (np.abs(b.astype(np.int64)) % 5).astype(dt)
        check(prog, a, b, ulps=ULPS if name == "pow" else 0)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_op_every_dtype(name: str) -> None:
    fn = UNARY[name]
    compiled = 0
    for dt in DTYPES:
        x = edge_values(dt)
        if name == "reciprocal" and np.dtype(dt).kind in "iu":
            # NumPy computes 1 / 0 in C for integers: undefined, x86 gives INT_MIN.
            x = np.where(x == 0, 1, x).astype(dt)
        compiled += check(lambda xp, x: getattr(xp, fn.__name__)(x), x,
                          ulps=ulps(name)) is not None
    assert compiled >= 4, f"{name}: only {compiled} graphs reached the backend"


@pytest.mark.parametrize("name", sorted(n for n in UNARY if n in APPROXIMATE))
def test_transcendentals_across_their_domain(name: str) -> None:
    fn = UNARY[name]
    rng = np.random.default_rng(3)
    for dt in (np.float32, np.float64):
        wide = (rng.standard_normal(2000) * np.exp(rng.uniform(-10, 6, 2000))).astype(dt)
        unit = rng.uniform(-1, 1, 2000).astype(dt)
        for x in (wide, unit, unit * 30):
            check(lambda xp, x: getattr(xp, fn.__name__)(x), x, ulps=ULPS)


@pytest.mark.parametrize(
    ("xs", "ys"),
    [((2, 3), (3,)), ((2, 1, 4), (3, 1)), ((), (2, 2)), ((), ()), ((0, 3), (1, 3)), ((0,), ()),
     ((4, 1), (0,)), ((5, 1, 1), (1, 6, 7))],
)
def test_broadcasting(xs: tuple[int, ...], ys: tuple[int, ...]) -> None:
    for dx, dy in [(np.float32, np.float64), (np.int32, np.float32), (np.int64, np.int64)]:
        x, y = sample(dx, xs), sample(dy, ys, 1)
        assert check(lambda xp, x, y: x * y + xp.maximum(x, y), x, y) is not None
        assert check(lambda xp, x, y: (xp.add(x, y) < y, xp.where(x > 0, x, y)), x, y)


def test_non_contiguous_inputs() -> None:
    base = edge_values(np.float64, 96).reshape(8, 12)
    views = [base.T, base[::2, 1::3], base[::-1], base[:, ::-2], base.T[1:5, ::3],
             np.broadcast_to(base[0], (4, 12))]
    for v in views:
        assert check(lambda xp, v: xp.sqrt(xp.abs(v)) * 2 - v, v) is not None
        assert check(lambda xp, v, w: v + w, v, np.ascontiguousarray(v)) is not None
    f32 = base.astype(np.float32)
    assert check(lambda xp, a, b: a * b.T, f32, f32.T.copy().T.T) is not None


def test_zero_d_arrays_and_numpy_scalars() -> None:
    for a in [np.array(2.5, np.float32), np.float32(2.5), np.int64(-3), np.array(True),
              np.float64(-0.0)]:
        assert check(lambda xp, a: (a + 1, xp.where(a > 0, a, 0)), a) is not None
        if a.dtype != np.bool_:  # NumPy's sqrt of bool is float16
            assert check(lambda xp, a: (xp.sqrt(a), -a), a) is not None


def test_empty_arrays() -> None:
    for shape in [(0,), (0, 3), (3, 0, 2)]:
        for dt in (np.float32, np.int64, np.bool_):
            x = np.zeros(shape, dt)
            assert check(lambda xp, x: (x + 1, x == x[::-1], xp.logical_not(x)), x) is not None


@pytest.mark.parametrize("dt", DTYPES)
def test_where_astype_clip(dt: type) -> None:
    x = edge_values(dt, 40)
    c = sample(np.bool_, (40,), 2)
    assert check(lambda xp, c, x: xp.where(c, x, 0), c, x) is not None
    assert check(lambda xp, c, x: xp.where(c, 1.5, x), c, x) is not None
    assert check(lambda xp, x: xp.clip(x, 0, 2), x) is not None
    for to in DTYPES:
        if np.dtype(dt).kind == "f" and np.dtype(to).kind in "iu":
            # Out-of-range float -> int casts are undefined in C and differ across NumPy
            # builds: cast only values every integer type holds.
            x = np.where(np.isfinite(x) & (np.abs(x) < 100), x, 3).astype(dt)
            x = np.abs(x) if np.dtype(to).kind == "u" else x
        assert check(lambda xp, x, to=to: x.astype(to), x) is not None


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_integer_extremes_in_vector_lanes(op, dtype):
    """Integer maximum/minimum run in vector lanes (a compare and a blend for 64-bit ones):
    signed order at the type's extremes, odd lengths (a scalar tail), strided operands."""
    info = np.iinfo(dtype)
    x = np.array([info.min, -1, 0, 1, info.max, -7, 3, info.min + 1, 5], dtype=dtype)
    y = np.array([info.max, 0, -1, 1, info.min, 7, -3, info.min, 5], dtype=dtype)
    if op == "maximum":
        progs = [lambda xp, a, b: xp.maximum(a, b), lambda xp, a, b: xp.maximum(a[::2], b[::-2])]
    else:
        progs = [lambda xp, a, b: xp.minimum(a, b), lambda xp, a, b: xp.minimum(a[::2], b[::-2])]
    for prog in progs:
        assert check(prog, x, y) is not None


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sign_in_vectors_keeps_nan_infinities_and_signed_zeros(dtype):
    # `np.sign` runs in 128-bit vectors (compare masks and bit selects, no branches): NaN
    # stays NaN, -0.0 stays -0.0, on every lane and in the scalar tail.
    import ember

    x = np.random.default_rng(0).normal(size=1003).astype(dtype)
    x[[5, 7, 9, 11, 13, 1002]] = [np.nan, -0.0, 0.0, np.inf, -np.inf, -0.0]
    for a in (x, x[::-1], x[::2]):
        got, want = ember.compile(lambda v: np.sign(v))(a), np.sign(a)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
