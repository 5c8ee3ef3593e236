"""Numerics, scalar types and warnings probed by a sceptic: each small program runs compiled
and under plain NumPy on the same arguments and is compared as a `record` (result repr, so
every digit, dtype, shape and the type of each scalar: `np.float64` vs `float` vs `int`,
`np.bool_`; printed output; each warning as often as it came; exceptions; arguments after).
Integer overflow in NumPy scalars and arrays against Python ints, NaN and inf, 0-d and empty
arrays, float16 and complex inputs, NEP 50 promotion of Python scalars, `np.errstate`."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, called_twice, define, record

F = np.array([0.5, -1.25, 3.0, 1e-300, 7.5])
I = np.array([3, -7, 0, 2**62, 5])


def scalar_types(x):
    s = x.sum()
    return s, float(s), int(x[0]), x[1], x[1].item(), s > 0, bool(s > 0), len(x), x.shape[0] * 1.5


def python_and_numpy_int_overflow(a):
    big = int(a[3]) * 4  # a Python int: exact
    wrapped = a[3] * 4  # a NumPy int64 scalar: wraps with a warning
    return big, wrapped, a * 4, a.sum() * 2, -a[3] - a[3] - a[3]


def nan_and_inf(x):
    y = x / 0.0
    return y, np.isnan(y).sum(), np.isinf(y), y - y, np.nansum(y), 0.0 * y


def zero_d(x):
    y = x + 1
    return y, type(y).__name__, x[()], x * np.float32(2), np.sqrt(x), x.reshape(1), x.sum()


def empty_reductions(x):
    return x.sum(), x.prod(), x.sum(axis=0), x.mean(), x.any(), x.all(), x.min(axis=1)


def empty_max(x):
    return x.max()


def weak_python_scalars(x):
    return x * 2.5, x + 1, x / 3, x * np.float64(2.5), 2**40 + x * 0, x ** 2, x // 2


def mixed_dtypes(a, b):
    return a + b, a * b, a / b, (a > b).dtype, np.maximum(a, b), np.where(a > 0, a, b)


def bool_arithmetic(b):
    return b.sum(), b + b, b * 2, ~b, b & ~b, -(b.astype(int)), b.mean(), np.cumsum(b)


def uint_wraparound(u):
    return u + 200, u - 1, u * u, u.sum(), u.astype(np.int8), u // 0


def divisions(a, b):
    return a / b, a // b, a % b, np.fmod(a, b), divmod(a[0], b[0]), np.divmod(a, b)


def printed(x):
    print(x, x.dtype, x.sum(), repr(x[0]), f"{x.mean():.3f}")
    print(x.reshape(-1, 1)[:2], np.float32(x[1]), x > 0)
    return x.sum()


def float32_accumulation(x):
    return x.sum(), x.mean(), np.cumsum(x)[-1], x.prod(), (x * x).sum(), np.dot(x, x)


def float16_input(x):
    return x * 2 + 1, x.sum(), np.exp(x), x.astype(np.float32)


def complex_input(z):
    return z * z, abs(z), z.real + z.imag, np.conj(z), z.sum()


def casts_that_warn(x):
    return x.astype(np.int32), x.astype(np.uint8), np.int64(x[0]) if x.size else 0


def warnings_counted(x):
    a = np.log(x)
    b = np.log(x) + 1
    c = np.sqrt(x - 10)
    return a, b, c, np.exp(x * 1000)


def scalar_float_errors(x):
    s = x.sum()
    return s / 0, s * 1e308 * 10, np.float64(0.0) / np.float64(0.0), np.log(s - s)


def errstate_inside(x):
    with np.errstate(divide="raise"):
        try:
            y = 1 / x
        except FloatingPointError as e:
            y = str(e)
    with np.errstate(all="ignore"):
        z = np.log(x) - np.log(-x)
    return y, z, 1 / x


def integer_powers_and_shifts(a):
    return a ** 2, a << 3, a >> 1, np.left_shift(a, 63), a ** 0, 2 ** np.abs(a % 8)


def rounding(x):
    return np.round(x), np.round(x, 1), round(x[0]), round(float(x[1]), 1), np.floor(x), np.rint(x)


def reductions_keepdims_and_axes(m):
    return (m.sum(axis=(0, 1)), m.max(axis=-1, keepdims=True), m.argmin(axis=0), m.std(ddof=1),
            m.var(axis=1), np.median(m), m.cumprod(axis=1))


def comparisons_and_any(x, y):
    return x == y, (x < y).any(), (x == y).all(), np.array_equal(x, y), x.tolist() == y.tolist()


def ints_in_python_loops(a):
    total = 0
    for v in a:
        total += int(v) * 3
    return total, type(total).__name__


def numpy_scalars_in_python_loops(a):
    total = np.int64(0)
    for v in a:
        total = total + v
    return total


def clamp_loop(x, hi):
    out = np.empty_like(x)
    for i in range(len(x)):
        out[i] = min(max(x[i], 0.0), hi)
    return out


F32 = (np.random.default_rng(3).random(1000) * 100).astype(np.float32)
CASES = [
    (scalar_types, (F,)), (scalar_types, (I,)), (scalar_types, (F.astype(np.float32),)),
    (python_and_numpy_int_overflow, (I,)), (nan_and_inf, (F,)),
    (nan_and_inf, (np.array([0.0, -1.0, np.inf, np.nan]),)),
    (zero_d, (np.array(2.5),)), (zero_d, (np.array(3, np.int32),)),
    (empty_reductions, (np.empty((0, 3)),)), (empty_reductions, (np.empty((0, 3), np.int32),)),
    (empty_max, (np.empty(0),)), (empty_max, (np.empty((2, 0)),)),
    (weak_python_scalars, (F.astype(np.float32),)), (weak_python_scalars, (I.astype(np.int8),)),
    (weak_python_scalars, (I.astype(np.uint16),)),
    (mixed_dtypes, (I.astype(np.int32), F.astype(np.float32))),
    (mixed_dtypes, (I.astype(np.uint8), I.astype(np.int8))),
    (bool_arithmetic, (np.array([True, False, True]),)),
    (uint_wraparound, (np.array([100, 0, 255, 17], np.uint8),)),
    (divisions, (np.array([7, -7, 0, 5]), np.array([2, 2, 0, -3]))),
    (divisions, (np.array([7.5, -7.5, 0.0, 5.0]), np.array([2.0, -0.0, 0.0, np.inf]))),
    (printed, (F,)), (printed, (I.astype(np.float32),)),
    (float32_accumulation, (F32,)), (float32_accumulation, (F32 * np.float32(1e36),)),
    (float16_input, (F.astype(np.float16),)), (complex_input, (F + 1j * F[::-1],)),
    (casts_that_warn, (np.array([1e20, np.nan, -3.7, np.inf]),)),
    (warnings_counted, (np.array([0.0, 1.0, -2.0]),)),
    (scalar_float_errors, (F,)), (errstate_inside, (np.array([0.0, 2.0]),)),
    (integer_powers_and_shifts, (np.array([-3, 0, 7, 2**40]),)),
    (rounding, (np.array([0.5, 1.5, 2.45, -0.5, -2.5]),)),
    (reductions_keepdims_and_axes, (np.arange(12.0).reshape(3, 4) ** 1.5,)),
    (comparisons_and_any, (F, F.copy())), (comparisons_and_any, (F, F[::-1])),
    (ints_in_python_loops, (I,)), (numpy_scalars_in_python_loops, (I,)),
    (clamp_loop, (np.linspace(-2, 3, 11), 2.0)), (clamp_loop, (np.linspace(-2, 3, 11), 2)),
]
# Programs that do not run wholly as compiled graphs, by design: float16 and complex inputs
# are refused (plain Python runs them), `np.errstate` inside breaks the graph, as does
# `type(v).__name__` and a reduction that raises; a NumPy scalar that overflows in a graph
# reruns the frame in Python, for NumPy's scalar warnings.
NOT_WHOLLY_COMPILED = {float16_input, complex_input, errstate_inside, ints_in_python_loops,
                       empty_max, python_and_numpy_int_overflow}


@pytest.mark.parametrize(("fn", "args"), CASES,
                         ids=[f"{fn.__name__}-{k}" for k, (fn, _) in enumerate(CASES)])
def test_numerics_and_scalar_types_are_numpys(fn, args):
    assert_scenario_as_numpy(called_twice(fn, args), compiled_code=fn not in NOT_WHOLLY_COMPILED)


def test_seterr_raise_from_numpy_scalar_arithmetic():
    f = define("def f(x):\n    s = x[0] * x[1]\n    return s, s * 1e300\n")
    big = np.array([1e200, 1e200])

    def run(wrap):
        compiled = wrap(f)
        old = np.seterr(over="raise")
        try:
            return [record(compiled, (big,)), record(compiled, (big * 0,))]
        finally:
            np.seterr(**old)

    assert_scenario_as_numpy(run, falls_back=True)


def weak_floats_out_of_float32_range(x):
    s = x[0]  # NumPy's scalar math casts the Python float first: "overflow ... in cast"
    return x + 1e300, x * 1e-300, x - 3.5e38, s + 1e300, s * 1e300, s - 1e-300


@pytest.mark.parametrize("errstate", [{}, {"over": "raise"}, {"under": "raise"},
                                      {"all": "ignore"}])
def test_python_floats_cast_out_of_float32_range(errstate):
    """NumPy casts the Python float to float32 first, and warns of that cast's overflow
    (the kernel narrowed the constant at compile time, raising no flag)."""
    x = np.array([1.0, -2.0], np.float32)

    def run(wrap):
        compiled = wrap(weak_floats_out_of_float32_range)
        with np.errstate(**errstate):
            return [record(compiled, (x,)), record(compiled, (x,))]

    assert_scenario_as_numpy(run, falls_back=bool(errstate) and "all" not in errstate)


def elementwise_and_reductions(x):
    return x + 1, -x, x.max(), x.mean()


def indexed(x):
    return x * 2, x.sum(), x[0], x[::-1]


# Inputs ember refuses (plain Python runs them) or must get right: every dtype it does not
# compile, subclasses, byte order, promotions of Python ints out of an array's range.
REFUSED_OR_RIGHT = [
    (indexed, (np.array([1, "a", None], dtype=object),)), (indexed, (np.array(["ab", "cd"]),)),
    (indexed, (np.zeros(3, dtype=[("a", "f8"), ("b", "i4")]),)),
    (indexed, (np.arange(3).astype("datetime64[D]"),)),
    (elementwise_and_reductions, (np.array([1.5, 2], np.longdouble),)),
    (elementwise_and_reductions, (np.array([1 + 2j, 3j], np.complex64),)),
    (elementwise_and_reductions, (np.ma.masked_invalid([1.0, np.nan, 3.0]),)),
    (elementwise_and_reductions, (np.matrix([[1.0, 2.0]]),)),
    (elementwise_and_reductions, (np.arange(6.0).reshape(2, 3).astype(">f8"),)),
    (elementwise_and_reductions, (np.array([2**63, 5], np.uint64),)),
    (mixed_dtypes, (np.array([1, 2], np.uint64), np.array([1, -2], np.int64))),
    (weak_python_scalars, (np.array([1, 2], np.int8) * 0 + np.int8(127),)),
    (lambda x, k: (x + k, x / k), (np.array([1, 2], np.int8), 300)),
    (lambda x, k: x + k, (np.array([1, 2], np.uint8), -1)),
    (lambda x, k: x * k, (np.array([1, 2], np.int64), 2**64)),
    (lambda x: x.astype(np.int32), (np.array([np.nan, 1e10, -1e10]),)),
    (lambda x: np.int8(x.sum()), (np.array([100, 100]),)),
    (lambda x: (int(x), float(x[:1]), bool(x)), (np.ones(3),)),
]


@pytest.mark.parametrize(("fn", "args"), REFUSED_OR_RIGHT,
                         ids=[f"{getattr(fn, '__name__', 'f')}-{k}"
                              for k, (fn, _) in enumerate(REFUSED_OR_RIGHT)])
def test_inputs_refused_cleanly_or_right(fn, args):
    assert_scenario_as_numpy(called_twice(fn, args), compiled_code=False)
