"""Operators and ufuncs against NumPy for every dtype pair, weak Python scalars included."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from ember.graph import OPS
from test_ops_harness import check

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint32, np.uint64,
          np.float32, np.float64]
WEAK = [True, 3, -2, 2.5]


def sample(dtype: type, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """Small values with the interesting cases: zero, negatives (signed), fractions, nan."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(dt)
    if dt.kind == "u":
        return rng.integers(0, 6, shape).astype(dt)
    if dt.kind == "i":
        return rng.integers(-3, 5, shape).astype(dt)
    x = rng.choice(np.array([0.0, -1.5, 2.0, 0.25, 3.75, -0.0, np.nan, 7.0]), shape)
    return x.astype(dt)


def operands() -> list[object]:
    return [*(sample(dt, (2, 3)) for dt in DTYPES), *WEAK]


BINARY = {name: op.numpy for name, op in OPS.items()
          if op.kind == "elementwise" and op.arity == 2}
# NumPy's ufuncs (scipy's `erf`/`erfc` ops: tests/test_scipy_erf.py).
UNARY = {name: op.numpy for name, op in OPS.items()
         if op.kind == "elementwise" and op.arity == 1 and op.numpy is not None
         and getattr(np, op.numpy.__name__, None) is op.numpy}
SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "//", "mod": "%",
           "pow": "**", "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^",
           "left_shift": "<<", "right_shift": ">>", "eq": "==", "ne": "!=", "lt": "<",
           "le": "<=", "gt": ">", "ge": ">="}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_ufunc_every_dtype_pair(name: str) -> None:
    fn = BINARY[name]
    for a, b in itertools.product(operands(), repeat=2):
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            check(lambda xp, a, b: getattr(xp, fn.__name__)(a, b), a, b)


@pytest.mark.parametrize("name", sorted(SYMBOLS))
def test_binary_operator_every_dtype_pair(name: str) -> None:
    code = compile(f"lambda xp, a, b: a {SYMBOLS[name]} b", name, "eval")
    prog = eval(code)
    for a, b in itertools.product(operands(), repeat=2):
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            check(prog, a, b)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_ufunc_every_dtype(name: str) -> None:
    fn = UNARY[name]
    for x in operands():
        check(lambda xp, x: getattr(xp, fn.__name__)(x), x)
        check(lambda xp, x: getattr(xp, fn.__name__)(x), x, weak_inputs=True)


@pytest.mark.parametrize("symbol", ["-", "+", "~", "abs"])
def test_unary_operators(symbol: str) -> None:
    prog = (lambda xp, x: abs(x)) if symbol == "abs" else eval(f"lambda xp, x: {symbol}x")
    for x in operands():
        if isinstance(x, np.ndarray):
            check(prog, x)


@pytest.mark.parametrize(
    ("xs", "ys"),
    [((2, 3), (3,)), ((2, 1, 4), (3, 1)), ((), (2, 2)), ((), ()), ((0, 3), (1, 3)), ((0,), ()),
     ((4, 1), (0,)), ((2, 3), (4,)), ((2, 3), (3, 2))],
)
def test_broadcasting_shapes_and_errors(xs: tuple[int, ...], ys: tuple[int, ...]) -> None:
    for dx, dy in [(np.float32, np.float64), (np.int32, np.float32), (np.int64, np.int64)]:
        x, y = sample(dx, xs), sample(dy, ys, 1)
        check(lambda xp, x, y: x * y + xp.maximum(x, y), x, y)
        check(lambda xp, x, y: xp.add(x, y) < y, x, y)


def test_zero_d_arrays_and_numpy_scalars_give_numpy_scalars() -> None:
    for a in [np.array(2.5, np.float32), np.float32(2.5), np.int64(-3), np.array(True)]:
        check(lambda xp, a: a + 1, a)
        check(lambda xp, a: xp.sqrt(a), a)
        check(lambda xp, a: -a, a)
        check(lambda xp, a: xp.where(a > 0, a, 0), a)


def test_weak_scalar_inputs_follow_nep_50() -> None:
    for x in [sample(np.float32, (3,)), sample(np.int8, (3,)), sample(np.uint8, (3,)),
              sample(np.bool_, (3,))]:
        for w in WEAK:
            check(lambda xp, x, w: x * w + w, x, w, weak_inputs=True)
            check(lambda xp, x, w: xp.power(w, x), x, w, weak_inputs=True)


def test_python_int_out_of_range_raises_overflow_error() -> None:
    check(lambda xp, x: x + 1000, sample(np.int8, (3,)))
    check(lambda xp, x: x + (-1), sample(np.uint8, (3,)))
    check(lambda xp, x: x < 1000, sample(np.int8, (3,)))


def test_power_operator_fast_paths() -> None:
    for x in operands()[:10] + [np.array(True), np.True_, np.float32(2.0)]:
        for e in (2, 2.0, -1, 0.5, 1, 0, 3):
            check(lambda xp, x, e=e: x ** e, x)


def test_integer_negative_powers_raise() -> None:
    check(lambda xp, x: x ** -1, sample(np.int32, (3,)))
    check(lambda xp, x: x ** -1, sample(np.float32, (3,)))


def test_functions_of_python_scalars_are_computed_at_once() -> None:
    check(lambda xp: xp.sqrt(2.0))
    check(lambda xp: xp.maximum(3, 2.5))
    check(lambda xp: xp.float32(1.5))


@pytest.mark.parametrize("dtype", DTYPES)
def test_where_and_clip(dtype: type) -> None:
    x = sample(dtype, (2, 3))
    c = sample(np.bool_, (3,), 2)
    check(lambda xp, c, x: xp.where(c, x, 0), c, x)
    check(lambda xp, c, x: xp.where(c, 1.5, x), c, x)
    check(lambda xp, x: xp.where(x, x, x[0]), x)
    check(lambda xp, x: xp.where(True, x, 2), x)
    check(lambda xp, x: xp.clip(x, 0, 2), x)
    check(lambda xp, x: xp.clip(x, None, 1.5), x)
    check(lambda xp, x: x.clip(min=1), x)
    check(lambda xp, x: xp.clip(x, x[0], x[1]), x)


def test_ufunc_keywords_ember_does_not_trace_are_refused() -> None:
    from ember.errors import Unsupported
    from ember.graph import Graph
    from ember.numpy_api import lookup_function

    g = Graph()
    x = g.add_input(np.float64, (3,))
    with pytest.raises(Unsupported, match=r"np.add with out="):
        lookup_function(np.add)(g, x, x, out=x)
    with pytest.raises(Unsupported, match=r"np.where with one argument"):
        lookup_function(np.where)(g, x)


@pytest.mark.parametrize("decimals", [0, 1, 2, -1])
def test_round(decimals: int) -> None:
    for x in operands()[:10] + [np.array(2.5), np.float32(1.25), np.array(7)]:
        check(lambda xp, x: xp.round(x, decimals), x)
        check(lambda xp, x: xp.around(x, decimals=decimals), x, allow_unsupported=True)
        check(lambda xp, x: x.round(decimals), x, allow_unsupported=True)
    check(lambda xp, x: xp.round(x), np.array([0.5, 1.5, 2.5, -0.5, 1e300, np.inf]))


def test_fabs_and_float_power() -> None:
    for x in operands():
        check(lambda xp, x: xp.fabs(x), x)
        check(lambda xp, x: (xp.float_power(x, 2), xp.float_power(2, x)), x)


def test_clip_edge_cases_found_by_random_programs() -> None:
    u8 = np.array([0, 2, 255], np.uint8)
    for lo, hi in [(-1, 2), (1, 300), (-5, -1), (300, 400), (None, -1), (-1, None), (2.5, 300),
                   (-1, 300)]:
        check(lambda xp, x, lo=lo, hi=hi: xp.clip(x, lo, hi), u8)
    check(lambda xp, x: xp.clip(2, x, 2), np.array(0, np.int32))
    check(lambda xp, x: xp.clip(2.5, x, 2), sample(np.float32, (3,)))
    check(lambda xp, x: x @ -1, np.array(2, np.uint8))
