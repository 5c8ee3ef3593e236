"""Integer overflow of NumPy scalar math: `np.int64(2**62) * 4`, `-np.int8(-128)`,
`abs(np.int8(-128))` warn "overflow encountered in scalar multiply" (negative, absolute, add,
subtract, floor_divide) and raise under `np.errstate(over='raise')`, as NumPy's scalar math
does, while array ops, ufunc calls on scalars, `**`, `%` and shifts wrap silently. Every
program runs on both backends and is compared with plain NumPy: result (repr, so dtype and
scalar type), warnings in order with their line, exceptions; where NumPy gives no warning the
native run raised no flag either (no rerun)."""

from __future__ import annotations


import ember
import numpy as np
import pytest
from conftest import RecordingBackend
from fp_harness import observe

BACKENDS = ["cranelift", "eager"]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
ERRSTATES = [{}, {"over": "raise"}, {"all": "ignore"}, {"over": "warn", "divide": "raise"}]


def _edges(dtype) -> list[int]:
    info = np.iinfo(dtype)
    values = {info.min, info.min + 1, info.max, info.max - 1, info.max // 2, info.max // 2 + 1,
              0, 1, 2, 3, 7}
    if info.min < 0:
        values |= {-1, -2, info.min // 2, info.min // 2 - 1, -3}
    return sorted(values)


def assert_scalar_math_as_numpy(fn, args, backend, calls=2):
    """`fn` compiled on `backend` gives NumPy's outcome under each errstate of ERRSTATES."""
    ember.reset()
    compiled = ember.compile(fn, backend=backend)
    for errstate in ERRSTATES:
        want, want_warnings = observe(fn, args, **errstate)
        for _ in range(calls):
            before = ember.stats()["fp_reruns"]
            got, got_warnings = observe(compiled, args, **errstate)
            assert got_warnings == want_warnings, (errstate, got_warnings, want_warnings)
            assert type(got) is type(want) and repr(got) == repr(want), (errstate, got, want)
            if backend == "cranelift" and not want_warnings and errstate == {} \
                    and not isinstance(want, FloatingPointError):
                assert ember.stats()["fp_reruns"] == before, "a flag raised where none was due"
    stats = ember.stats()
    # (an entry whose graph raised FloatingPointError reruns the frame: an entry fallback)
    assert stats["compiles"] >= 1 and not stats["graph_breaks"], stats
    assert not stats["backend_fallbacks"], stats


def _add(x, y):
    return x[0] + y[0], x[1] + y[1], x[2] + y[2]


def _sub(x, y):
    return x[0] - y[0], x[1] - y[1], x[2] - y[2]


def _mul(x, y):
    return x[0] * y[0], x[1] * y[1], x[2] * y[2]


def _floordiv(x, y):
    return x[0] // y[0], x[1] // y[1], x[2] // y[2]


_BINARY = {"add": _add, "sub": _sub, "mul": _mul, "floordiv": _floordiv}


def _pairs(dtype, count=3):
    """Rows of `count` operand pairs over the edge values, as two arrays per row."""
    edges = _edges(dtype)
    pairs = [(a, b) for a in edges for b in edges]
    rows = []
    for start in range(0, len(pairs), count):
        chunk = pairs[start:start + count]
        chunk += pairs[:count - len(chunk)]
        rows.append((np.array([a for a, _ in chunk], dtype), np.array([b for _, b in chunk],
                                                                       dtype)))
    return rows


def _compare(program, compiled, args, backend):
    """One call compiled and plain: the same repr and warnings, and on the native backend no
    NumPy rerun where NumPy gives no warning (a flag raised without cause). NumPy's warnings."""
    want, want_warnings = observe(program, args)
    before = ember.stats()["fp_reruns"]
    got, got_warnings = observe(compiled, args)
    assert got_warnings == want_warnings, (args, got_warnings, want_warnings)
    assert repr(got) == repr(want), (args, got, want)
    if backend == "cranelift" and not want_warnings:
        assert ember.stats()["fp_reruns"] == before, (args, "a flag raised without cause")
    return want_warnings


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", INTS, ids=lambda d: d.__name__)
@pytest.mark.parametrize("name", ["add", "sub", "mul", "floordiv"])
def test_binary_operators_on_scalars_warn_on_overflow(name, dtype, backend):
    program = _BINARY[name]
    ember.reset()
    compiled = ember.compile(program, backend=backend)
    for x, y in _pairs(dtype):
        _compare(program, compiled, (x, y), backend)
    stats = ember.stats()
    assert stats["compiles"] == 1 and not stats["graph_breaks"], stats
    assert not stats["backend_fallbacks"] and not stats["entry_fallbacks"], stats


def _near_overflow_products(dtype, count=120):
    """Operand rows whose products lie just inside and just outside the dtype's range."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(8)
    xs, ys = [], []
    for _ in range(count):
        x = int(rng.integers(2, max(3, info.max // 2), dtype=np.uint64))
        y = info.max // x + int(rng.integers(-1, 2))
        sx, sy = (1, 1) if info.min == 0 else tuple(int(v) for v in rng.choice([-1, 1], 2))
        x, y = sx * x, sy * y
        if info.min <= x <= info.max and info.min <= y <= info.max:
            xs.append(x)
            ys.append(y)
    return [(np.array([x], dtype), np.array([y], dtype)) for x, y in zip(xs, ys, strict=True)]


def _product(x, y):
    return x[0] * y[0]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", INTS, ids=lambda d: d.__name__)
def test_products_at_the_edge_of_the_range(dtype, backend):
    ember.reset()
    compiled = ember.compile(_product, backend=backend)
    seen = set()
    for x, y in _near_overflow_products(dtype):
        seen.add(bool(_compare(_product, compiled, (x, y), backend)))
    assert seen == {False, True}  # rows on both sides of the edge


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", INTS, ids=lambda d: d.__name__)
def test_unary_operators_on_scalars_warn_on_overflow(dtype, backend):
    n = len(_edges(dtype))

    def program(x):
        out = []
        for i in range(n):
            out.append((-x[i], abs(x[i]), +x[i]))
        return out

    assert_scalar_math_as_numpy(program, (np.array(_edges(dtype), dtype),), backend)


def mixed_python_ints(x):
    s = x.sum()
    return s * 4, 4 * s, s + 1, 1 - s, s - 1, -s


def mixed_widths(a, b):
    return a[0] * b[0], a[0] + b[0], b[0] - a[0]


def scalar_with_bool(x, m):
    return x[0] + m[0], x[0] * m[0]


def in_place(x):
    s = x[0]
    s += np.int64(1)
    s *= 3
    return s


def converted(x):
    return np.int8(x[0]) * np.int8(2), np.int32(x[1]) + np.int32(1)


def chain(x):
    return (x[0] * x[1] + x[2]) * x[3]


def loop_product(x):
    s = np.int64(1)
    for v in x:
        s = s * v
    return s


def loop_sum(x):
    s = x[0]
    for i in range(1, len(x)):
        s += x[i]
    return s


def silent(x, y):
    # ufunc calls on scalars, array ops, **, % and shifts wrap without a warning
    a, b = x[0], y[0]
    return np.add(a, b), np.multiply(a, b), x * y, x + 1, -x, np.abs(x), a ** 3, a % -1, \
        a << 70, np.negative(a)


def scalar_then_array(x):
    return x * (x[0] * x[1])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("fn", "args"), [
    (mixed_python_ints, (np.array([2**62, 0]),)),
    (mixed_python_ints, (np.array([2**63 - 1, 0]),)),
    (mixed_python_ints, (np.array([-2**63, 0]),)),
    (mixed_python_ints, (np.array([200, 55], np.uint8),)),
    (mixed_python_ints, (np.array([5, 6], np.int32),)),
    (mixed_widths, (np.array([100], np.int8), np.array([30000], np.int16))),
    (mixed_widths, (np.array([-128], np.int8), np.array([-32768], np.int16))),
    (mixed_widths, (np.array([200], np.uint8), np.array([-3], np.int16))),
    (mixed_widths, (np.array([3], np.uint32), np.array([2**31], np.uint32))),
    (scalar_with_bool, (np.array([127], np.int8), np.array([True]))),
    (scalar_with_bool, (np.array([255], np.uint8), np.array([False]))),
    (in_place, (np.array([2**63 - 1]),)),
    (in_place, (np.array([2**62]),)),
    (in_place, (np.array([5]),)),
    (converted, (np.array([100, 2**31 - 1]),)),
    (converted, (np.array([-128, 5]),)),
    (chain, (np.array([2**32, 2**31, 1, 1]),)),
    (chain, (np.array([3, 5, 2**62, 2]),)),
    (chain, (np.array([3, 5, 7, 2]),)),
    (loop_product, (np.array([2**40, 2**40, 3]),)),
    (loop_product, (np.array([2, 3, 5]),)),
    (loop_product, (np.array([200, 2], np.uint8),)),
    (loop_sum, (np.array([2**62, 2**62, -5]),)),
    (loop_sum, (np.array([120, 7, 1], np.int8),)),
    (silent, (np.array([2**62, 3]), np.array([2**62, 4]))),
    (silent, (np.array([-128, 3], np.int8), np.array([-1, 4], np.int8))),
    (scalar_then_array, (np.array([2**62, 8]),)),
    (scalar_then_array, (np.array([2**31, 2**31], np.int64),)),
    (scalar_then_array, (np.array([200, 2], np.uint8),)),
], ids=lambda v: getattr(v, "__name__", None))
def test_programs_with_scalar_math(fn, args, backend):
    assert_scalar_math_as_numpy(fn, args, backend)


def test_errstate_call_gets_numpy_arguments():
    calls_numpy, calls_compiled = [], []
    x = np.array([2**62, 4])
    with np.errstate(over="call", call=lambda kind, flag: calls_numpy.append(kind)):
        want = x[0] * x[1]
    compiled = ember.compile(lambda x: x[0] * x[1])
    with np.errstate(over="call", call=lambda kind, flag: calls_compiled.append(kind)):
        got = compiled(x)
    assert repr(got) == repr(want) and calls_compiled == calls_numpy == ["overflow"]


K = np.int8(127)


def _constant_int_sum(x):
    return x + (np.int8(127) + np.int8(1))


def _constant_negation(x):
    return x, -K - np.int8(2)


def _constant_float_product(x):
    return x + np.float64(1e308) * 10


def _constant_ufunc(x):
    return x + np.exp(1000.0)


def _constant_invalid(x):
    return x + np.sqrt(np.float64(-1.0))


def _constant_underflow(x):
    return x * (np.float64(1e-300) * 1e-300)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("fn", "x"), [
    (_constant_int_sum, np.ones(2, np.int8)), (_constant_negation, np.ones(2, np.int8)),
    (_constant_float_product, np.ones(2)), (_constant_ufunc, np.ones(2)),
    (_constant_invalid, np.ones(2)), (_constant_underflow, np.ones(2)),
], ids=lambda v: getattr(v, "__name__", None))
def test_numpy_math_on_constants_warns_on_every_call(fn, x, backend):
    # Capture does not fold NumPy math that sets a floating-point flag into a constant (it
    # would warn once, from ember's own line, and then never): it runs in Python each call.
    ember.reset()
    compiled = ember.compile(fn, backend=backend)
    for errstate in ERRSTATES + [{"under": "warn"}]:
        want = observe(fn, (x,), **errstate)
        for _ in range(2):
            assert repr(observe(compiled, (x,), **errstate)) == repr(want), errstate
    assert ember.stats()["compiles"] >= 1


# Loop ops: native code defers a loop's overflow conditions into one flag raised on the way
# out; the run's outcome (values, warnings, errors) stays NumPy's.


def long_sum(x):
    s = x[0]
    for i in range(1, x.shape[0]):
        s += x[i]
    return s


def running_sums(x):
    out = np.zeros_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = out[i - 1] + x[i]
    return out


def branchy_products(x):
    s = x[0]
    for i in range(1, x.shape[0]):
        if x[i] > 2:
            s = s * x[i]
        else:
            s = s - x[i]
    return s


def pair_minima(d):
    # floyd's relaxation: the wrapped sum is compared, then stored
    n = d.shape[0]
    for i in range(n):
        for j in range(n):
            if d[i, 0] + d[0, j] < d[i, j]:
                d[i, j] = d[i, 0] + d[0, j]
    return d


def _long(values, dtype, n=40):
    return np.resize(np.array(values, dtype), n)


@pytest.mark.parametrize(("fn", "args"), [
    (long_sum, (_long([1, 2, 3], np.int64),)),
    (long_sum, (_long([2**61, 2**60, -5], np.int64),)),
    (long_sum, (_long([1, 2, 3], np.int8),)),
    (long_sum, (_long([100, -90, 3], np.int8),)),
    (long_sum, (_long([7, 9], np.uint16),)),
    (long_sum, (_long([7000, 9], np.uint16),)),
    (running_sums, (_long([1, -2, 3], np.int32),)),
    (running_sums, (_long([2**29, 2**28, 5], np.int32),)),
    (branchy_products, (_long([1, 2, 3], np.int64),)),
    (branchy_products, (_long([3, 3, 3, 1], np.int64),)),
    (branchy_products, (_long([3, 1, 5, 1], np.int16),)),
    (pair_minima, (np.arange(144, dtype=np.int64).reshape(12, 12),)),
], ids=lambda v: getattr(v, "__name__", None))
def test_loop_ops_warn_on_overflow_as_numpy(fn, args):
    recorder = RecordingBackend("cranelift")
    ember.compile(fn, backend=recorder)(*[a.copy() for a in args])
    assert any(n.op == "loop" for g in recorder.graphs for n in g.nodes), "no loop op"
    assert_scalar_math_as_numpy(fn, args, "cranelift")
