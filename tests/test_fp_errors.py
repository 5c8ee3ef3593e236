"""NumPy's floating-point error handling in compiled code: the same RuntimeWarnings under the
default errstate, FloatingPointError under `raise`, silence under `ignore`, handlers under
`call`, for float and integer ops, reductions, SIMD and strided paths, on both backends."""

from __future__ import annotations

import warnings

import ember
import numpy as np
import pytest
from fp_harness import assert_same_fp_behaviour, observe

BACKENDS = ["cranelift", "eager"]

# Every input class that makes some op below warn, plus ordinary values around it.
SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 1e3, -1e3, 1e300, -1e300, 1e-310, np.inf,
            -np.inf, np.nan, 89.0, 710.0, 3.0, 2.0]

# Tiny inputs, where NumPy raises underflow in some ops that return a value near 1 or near x:
# float64 and float32 subnormals, and a float32 whose square underflows.
TINY = [1e-310, -1e-310, 1e-40, -1e-40, 3e-39, 1e-20, -1e-20, 2e-19, 0.0]

UNARY = {
    "log": np.log, "log1p": np.log1p, "log2": np.log2, "log10": np.log10, "sqrt": np.sqrt,
    "exp": np.exp, "expm1": np.expm1, "exp2": np.exp2, "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "tanh": np.tanh, "arcsin": np.arcsin, "arccos": np.arccos,
    "arctanh": np.arctanh, "arccosh": np.arccosh, "sinh": np.sinh, "cosh": np.cosh,
    "reciprocal": np.reciprocal, "square": np.square, "cbrt": np.cbrt,
}


def _layouts(values, dtype):
    """The same values contiguous (long enough for the SIMD path), strided and reversed."""
    base = np.array(values * 4, dtype=dtype)
    return {"contiguous": base, "strided": np.repeat(base, 2)[::2], "reversed": base[::-1]}


def _each_unary(test):
    """Run `test(f, dtype, backend)` for every op of UNARY, as `f(x) = op(x)`."""
    for mark in (pytest.mark.parametrize("backend", BACKENDS),
                 pytest.mark.parametrize("dtype", [np.float32, np.float64]),
                 pytest.mark.parametrize("name", sorted(UNARY))):
        test = mark(test)
    return test


def _calling(name):
    fn = UNARY[name]

    def f(x):
        return fn(x)

    return f


@_each_unary
def test_unary_special_values_warn_as_numpy(name, dtype, backend):
    f = _calling(name)
    with np.errstate(all="ignore"):
        layouts = _layouts(SPECIALS, dtype)
    for layout, x in layouts.items():
        for value in SPECIALS:
            with np.errstate(all="ignore"):
                single = np.full(9, value, dtype=dtype)
            assert_same_fp_behaviour(f, (single,), backend)
        assert_same_fp_behaviour(f, (x,), backend), layout


@_each_unary
def test_tiny_inputs_underflow_as_numpy(name, dtype, backend):
    f = _calling(name)
    for value in TINY:
        for n in (1, 9):  # a scalar loop and the SIMD loop
            with np.errstate(all="ignore"):
                x = np.full(n, value, dtype=dtype)
            x[0] = 0.5
            for mode in ("raise", "warn"):
                assert_same_fp_behaviour(f, (x,), backend, under=mode)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("mode", ["raise", "ignore", "warn"])
def test_errstate_modes(mode, backend):
    def f(x, y):
        return np.log(x) + x / y

    x = np.array([0.0, 1.0, 2.0, -1.0] * 3)
    y = np.array([0.0, 1.0, 0.0, 2.0] * 3)
    assert_same_fp_behaviour(f, (x, y), backend, all=mode)
    assert_same_fp_behaviour(f, (x, y), backend, divide=mode, invalid="ignore")
    assert_same_fp_behaviour(f, (x, y), backend, divide="ignore", invalid=mode)


@pytest.mark.parametrize("backend", BACKENDS)
def test_errstate_call_handler_sees_numpy_calls(backend):
    def f(x):
        return np.sqrt(x) * 2

    x = np.array([-1.0, 4.0, 9.0])
    calls, expected_calls = [], []
    with np.errstate(all="call", call=lambda kind, flag: calls.append(kind)):
        got = ember.compile(f, backend=backend)(x)
    with np.errstate(all="call", call=lambda kind, flag: expected_calls.append(kind)):
        expected = f(x)
    assert calls == expected_calls == ["invalid value"]
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("backend", BACKENDS)
def test_seterr_is_honoured(backend):
    def f(x):
        return 1.0 / x

    old = np.seterr(divide="raise")
    try:
        with pytest.raises(FloatingPointError, match="divide by zero encountered in divide"):
            ember.compile(f, backend=backend)(np.zeros(5))
    finally:
        np.seterr(**old)


@pytest.mark.parametrize("backend", BACKENDS)
def test_default_warning_text_and_category(backend):
    def f(x):
        return np.exp(x)

    _, caught = observe(ember.compile(f, backend=backend), (np.array([1e4, 0.0]),))
    line = f.__code__.co_firstlineno + 1
    assert caught == [(RuntimeWarning, "overflow encountered in exp", __file__, line)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_division_and_reciprocal(dtype, backend):
    info = np.iinfo(dtype)
    x = np.array([7, -7, info.min, info.min, 0, 5, info.max, 1, -1] * 3, dtype=dtype)
    y = np.array([0, 2, -1, 1, 0, -3, -1, 0, 3] * 3, dtype=dtype)
    for fn in (lambda a, b: a // b, lambda a, b: a % b, lambda a, b: np.floor_divide(a, b),
               lambda a, b: np.remainder(a, b)):
        def f(a, b, fn=fn):
            return fn(a, b)

        assert_same_fp_behaviour(f, (x, y), backend)
        assert_same_fp_behaviour(f, (x[::2], y[::2]), backend)
        assert_same_fp_behaviour(f, (x, y), backend, all="raise")
        assert_same_fp_behaviour(f, (x, np.where(y == 0, 1, y).astype(dtype)), backend)

    def recip(a):
        return np.reciprocal(a)

    assert_same_fp_behaviour(recip, (x,), backend)
    assert_same_fp_behaviour(recip, (x[::-3],), backend)
    assert_same_fp_behaviour(recip, (np.array([1, -1, 2, 3] * 4, dtype=dtype),), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_casts_warn_as_numpy(backend):
    def to_int(x):
        return x.astype(np.int32)

    def to_f32(x):
        return x.astype(np.float32)

    x = np.array([np.nan, 1e300, -3.5, 2.0, np.inf] * 3)
    assert_same_fp_behaviour(to_int, (x,), backend)
    assert_same_fp_behaviour(to_f32, (x,), backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_reductions_overflow_and_warn(axis, backend):
    def total(x):
        return x.sum(axis=axis)

    def product(x):
        return x.prod(axis=axis)

    def mean(x):
        return x.mean(axis=axis)

    big = np.full((4, 40), 3e38, np.float32)
    for x in (big, big.T, big[:, ::-2], np.array([[1e30, 1e30, 1e-30, 1e-30]] * 3, np.float32)):
        for fn in (total, product, mean):
            assert_same_fp_behaviour(fn, (x,), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_nothing_is_written_back_before_an_error(backend):
    def f(x):
        x += 1.0
        x /= 0.0
        return x

    x = np.arange(6.0)
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        ember.compile(f, backend=backend)(x)
    expected = np.arange(6.0)
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        f(expected)
    np.testing.assert_array_equal(x, expected)


def test_ordinary_inputs_raise_no_flag_in_fast_paths():
    """The vectorised math and reductions raise no flag on ordinary data, so no call pays
    for a NumPy rerun (which `raise` would turn into an error)."""

    def f(x, y):
        s = np.exp(x) + np.log(y) + np.tanh(x) + np.sin(x) * np.cos(x) + np.expm1(x)
        return s + np.log1p(y) / y, (x - x.max(axis=-1, keepdims=True)).sum(axis=-1)

    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        x = rng.standard_normal((64, 67)).astype(dtype) * 10
        y = rng.uniform(1e-3, 1e3, (64, 67)).astype(dtype)
        with np.errstate(all="raise"):
            got = ember.compile(f)(x, y)
            expected = f(x, y)
        assert ember.stats()["fp_reruns"] == 0
        for a, b in zip(got, expected, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-4 if dtype == np.float32 else 1e-9)


def test_warning_once_per_call_under_default_filters():
    def f(x):
        return np.log(x)

    compiled = ember.compile(f)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            compiled(np.zeros(4))
    assert [str(w.message) for w in caught] == ["divide by zero encountered in log"] * 3
    assert ember.stats()["fp_reruns"] == 3
    assert ember.stats()["entry_fallbacks"] == 0  # rerun inside the graph call, not as Python


@pytest.mark.parametrize("backend", BACKENDS)
def test_unused_results_still_warn(backend):
    def statement(x):
        np.log(x)
        return x * 2

    def through_a_view(x):
        t = x / x
        u = t.T  # noqa: F841 - unused, as the program has it
        return x + 1

    for fn in (statement, through_a_view):
        assert_same_fp_behaviour(fn, (np.zeros((2, 3)),), backend)
        assert_same_fp_behaviour(fn, (np.zeros((2, 3)),), backend, all="raise")


@pytest.mark.parametrize("threads", [0, 1])
@pytest.mark.parametrize("n", [4, 96])
def test_matmul_overflow_warns_on_every_thread_count(n, threads):
    def f(a, b):
        return a @ b

    a = np.full((n, n), 1e200)
    ember.config.num_threads = threads
    try:
        assert_same_fp_behaviour(f, (a, a), "cranelift")
        assert_same_fp_behaviour(f, (a, a), "cranelift", over="raise")
        assert_same_fp_behaviour(f, (a / 1e200, a / 1e200), "cranelift", all="raise")
    finally:
        ember.config.num_threads = 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_simplified_away_operands_still_warn(backend):
    def constant_condition(x):
        return np.where(True, x, np.log(x))

    x = np.array([np.inf, 0.0, 1.0, -1.0])
    assert_same_fp_behaviour(constant_condition, (x,), backend)
    assert_same_fp_behaviour(constant_condition, (x,), backend, all="raise")


@pytest.mark.parametrize("backend", BACKENDS)
def test_sums_with_nan_and_opposite_infinities_warn_as_numpy(backend):
    """NumPy's summation order meets `inf + -inf` before the NaN here; the compiled order
    meets the NaN first, so a NaN sum is rerun for NumPy's warning."""

    def f(x):
        return np.sum(x), x.sum(axis=-1), np.prod(x, axis=-1)

    x = np.array([[-np.inf, -1e30, 100, 0.5, 2.5, 0, -0.0, 0],
                  [1, np.inf, np.inf, 1e-40, 100, -1e30, 89.5, np.nan]], np.float32)
    for arr in (x, x[:, ::-1], np.asfortranarray(x)):
        assert_same_fp_behaviour(f, (arr,), backend)
        assert_same_fp_behaviour(f, (arr.astype(np.float64),), backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("errstate", [{}, {"over": "raise"}, {"invalid": "raise"},
                                      {"all": "warn"}, {"over": "raise", "under": "raise"}])
def test_in_place_cast_reports_flags_in_numpys_order(errstate, backend):
    """`a *= c` with float32 `a` and int32 `c` is one NumPy loop (float64 multiply, cast to
    float32): its flags are checked together, divide, over, under, invalid, and a raise stops
    the rest (`inf * 0` is invalid, `-1e30 * 2**31` overflows the cast)."""

    def f(a, c):
        a *= c
        return a

    a = np.array([np.inf, -1e30, 1.0, 2.0] * 3, dtype=np.float32)
    c = np.array([0, -(2**31), 3, 4] * 3, dtype=np.int32)
    assert_same_fp_behaviour(f, (a, c), backend, **errstate)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("errstate", [{}, {"all": "raise"}, {"divide": "ignore"}])
def test_operators_on_numpy_scalars_warn_as_scalar_math(errstate, backend):
    """An operator on NumPy scalars is NumPy's scalar math, whose messages say "scalar
    divide"; the same op on a 0-d or larger array, or np.divide itself, is the ufunc's."""

    def f(x):
        s, z, big = x[0], x[1], x[2]
        return (s / z, z / z, s // z, s % z, big * big, big + big, (big * 0 + np.inf) - np.inf,
                big ** 2.0, np.divide(s, z), x[:1] / z)

    x = np.array([2.0, 0.0, 1e300])
    assert_same_fp_behaviour(f, (x,), backend, **errstate)
    assert_same_fp_behaviour(f, (x.astype(np.float32),), backend, **errstate)


def test_errstate_changes_are_seen_between_calls_of_one_graph():
    """The errstate's verdict is kept with NumPy's errstate object: `np.seterr`, a context and
    leaving it are each seen by the next call."""
    def product(a, b):
        return a @ b

    a, b = np.array([[1e-300, 1.0]]), np.array([1e-300, 0.0])  # underflows
    ember.reset()
    compiled = ember.compile(product)
    np.testing.assert_array_equal(compiled(a, b), product(a, b))  # ignored by default
    old = np.seterr(under="raise")
    try:
        with pytest.raises(FloatingPointError, match="underflow"):
            compiled(a, b)
        with np.errstate(under="ignore"):
            np.testing.assert_array_equal(compiled(a, b), product(a, b))
        with pytest.raises(FloatingPointError, match="underflow"):
            compiled(a, b)
    finally:
        np.seterr(**old)
    np.testing.assert_array_equal(compiled(a, b), product(a, b))


# Bases and exponents around the cases where NumPy's `power` raises a flag C's `pow` does
# not: `x ** inf` of a large finite `x`, `0 ** -inf`.
POWER_VALUES = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.0, 1e19, 2.0**64, -(2.0**64), 1e30, 3e38,
                1e300, -1e300, 2.0**512, np.inf, -np.inf, np.nan, 1e-40]


def _power(x, y):
    return x ** y


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_power_of_special_values_warns_as_numpy(dtype, backend):
    with np.errstate(all="ignore"):
        values = np.array(POWER_VALUES, dtype)
    x, y = np.meshgrid(values, values)
    for mode in ("warn", "raise"):
        assert_same_fp_behaviour(_power, (x, y), backend, all=mode)
        for i in range(len(values)):  # one pair at a time: the first flag raised decides
            assert_same_fp_behaviour(_power, (x[i], y[i]), backend, all=mode)


def _power_in_place(a, b):
    t = np.log2(a)
    a += a
    a **= t
    b **= t
    return a, b


def _same_layout_copy(x):
    flips = tuple(slice(None, None, -1) if s < 0 else slice(None) for s in x.strides)
    out = np.empty_like(x)[flips]
    out[...] = x
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_power_flags_follow_the_layout_of_arrays_updated_in_place(dtype, backend):
    """NumPy's `power` raises no flag for `0 ** -inf` on operands with negative strides (its
    scalar loop), unlike its vector loop: a graph rerun with NumPy keeps the layout the
    program gave the arrays it updated in place (found by the fuzzer)."""
    with np.errstate(all="ignore"):
        values = np.array([[-0.0, np.inf, 0.0, 2.0], [1e30, 0.5, -0.0, 3.0]], dtype)
    for a in (values, values[::-1, ::-1], values.T.copy().T, values[:, ::-1]):
        for b in (values, values[::-1]):
            args = (_same_layout_copy(a), _same_layout_copy(b))
            assert [s < 0 for s in args[0].strides] == [s < 0 for s in a.strides]
            want = observe(_power_in_place, args)
            ember.reset()
            args = (_same_layout_copy(a), _same_layout_copy(b))
            got = observe(ember.compile(_power_in_place, backend=backend), args)
            assert sorted(got[1], key=str) == sorted(want[1], key=str)
            assert repr(got[0]) == repr(want[0])


def _cos(x):
    return np.cos(x)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [1, 3, 17])
def test_float32_cos_of_tiny_values_underflows_in_every_length(n, backend):
    """NumPy's float32 `cos` raises underflow for `|x|` below about 2.66e-19 in every layout
    and length; a kernel's scalar elements (a single one, a vector loop's tail) compute with
    libm's `cosf`, which raises none, so they raise it themselves (found by the fuzzer)."""
    for value in (1e-40, 1e-20, 2e-19, 3e-19):
        x = np.full(n, value, np.float32)
        for mode in ("raise", "warn"):
            assert_same_fp_behaviour(_cos, (x,), backend, under=mode)
            assert_same_fp_behaviour(_cos, (x[::-1],), backend, under=mode)


def _warning_loop(x, n):
    acc = np.zeros_like(x)
    for _ in range(n):
        acc = acc + np.log(x) * 0.5
    return acc


def _ignoring_loop(x, n):
    with np.errstate(all="ignore"):
        acc = np.zeros_like(x)
        for _ in range(n):
            acc = acc + np.log(x) * 0.5
    return acc


def _scalar_loop(x, n):
    s = 0.0
    for i in range(n):
        s += x[i] / x[i % 3]
    return s


@pytest.mark.parametrize("fn, args", [(_warning_loop, (np.linspace(0, 3, 16), 5)),
                                      (_warning_loop, (np.linspace(0, 3, 16), 40)),
                                      (_scalar_loop, (np.linspace(0, 3, 50), 50))])
def test_a_loop_that_warns_runs_its_frame_as_python(fn, args):
    """A graph with loops whose run raised a flag NumPy warns about runs the frame as Python:
    NumPy's own warnings at the user's line, NumPy's values, one rerun per call; under
    `errstate(all="ignore")`, around the call or inside the function, no rerun at all."""
    compiled = ember.compile(fn)
    for _ in range(2):
        with warnings.catch_warnings(record=True) as want:
            warnings.simplefilter("always")
            expected = fn(*args)
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            result = compiled(*args)
        np.testing.assert_array_equal(result, expected)
        assert [(str(w.message), w.filename, w.lineno) for w in got] == \
            [(str(w.message), w.filename, w.lineno) for w in want]
    stats = ember.stats()
    assert stats["fp_reruns"] == 2 and stats["entry_fallbacks"] == 0, stats
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(compiled(*args), fn(*args), rtol=1e-13)
    assert ember.stats()["fp_reruns"] == 2
    if fn is _warning_loop:
        quiet = ember.compile(_ignoring_loop)
        expected = _ignoring_loop(*args)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            np.testing.assert_allclose(quiet(*args), expected, rtol=1e-13)
        assert ember.stats()["fp_reruns"] == 2


def _masked_softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_exp_far_below_its_range_underflows_as_numpy(dtype, backend):
    """A fused `exp` of arguments whose result is +0 (a masked softmax's -1e9) gives 0 and
    NumPy's underflow, wherever such lanes lie in the kernel's vectors and its tail."""
    for n in (1, 3, 8, 13):
        for masked in ([0], [n - 1], list(range(0, n, 2)), list(range(n))):
            s = np.linspace(-3.0, 2.0, 2 * n).reshape(2, n).astype(dtype)
            s[0, masked] = -1e9
            s[1, masked] = -1e4
            for mode in ("raise", "warn", "ignore"):
                assert_same_fp_behaviour(_masked_softmax, (s,), backend, under=mode)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_exp_of_minus_inf_raises_no_underflow(dtype):
    """`exp(-inf)` is exactly +0 and raises no flag (a softmax masked with `-inf`): the native
    kernel runs to the end under `under="raise"`, no rerun with NumPy, wherever the -inf lanes
    lie; a lane that really underflows next to them still raises NumPy's error. (Each row
    keeps a finite value: a row all -inf gives `-inf - -inf`, NumPy's invalid.)"""
    for n in (3, 8, 13):
        for masked in ([0], [n - 1], list(range(0, n, 2)), list(range(n - 1))):
            s = np.linspace(-3.0, 2.0, 2 * n).reshape(2, n).astype(dtype)
            s[:, masked] = -np.inf
            ember.reset()
            compiled = ember.compile(_masked_softmax)
            with np.errstate(under="raise"):
                got, want = compiled(s), _masked_softmax(s)
            np.testing.assert_allclose(got, want, rtol=1e-6)
            assert ember.stats()["fp_reruns"] == 0, (n, masked)
            s[1, 0] = -1e9
            for mode in ("raise", "warn", "ignore"):
                assert_same_fp_behaviour(_masked_softmax, (s,), "cranelift", under=mode)


def _squared_gaps(x):
    total = 0
    for i in range(x.shape[0]):
        total += (x[i] - x[0]) ** 2 + (x[i] - 3) ** 3
    return total, (x - x[0]) ** 3


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_integer_powers_of_zero_raise_no_flag(dtype):
    """NumPy's integer power of 0 warns of nothing, so the native graph (array kernels and a
    loop body) runs to the end: no rerun with NumPy, no frame rerun as Python."""
    x = np.array([3, 1, 3, 0, 2, 3], dtype)
    ember.reset()
    compiled = ember.compile(_squared_gaps)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = compiled(x)
    want = _squared_gaps(x)
    assert type(got[0]) is type(want[0]) and got[0] == want[0]
    np.testing.assert_array_equal(got[1], want[1], strict=True)
    stats = ember.stats()
    assert stats["fp_reruns"] == 0 and stats["entry_fallbacks"] == 0, stats
