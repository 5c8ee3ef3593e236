"""Programs a stranger would write to catch a compiler out, each run compiled and under plain
NumPy and compared as one record: the result (repr: values to the last digit, dtype, shape,
scalar type), what it printed, its warnings (category and message), the exception it raised
(type and message), the arguments afterwards, and which results share memory with which
arguments (`np.shares_memory`, `is`). Guards: closures, defaults, class attributes,
`functools.partial`, bound methods, globals and modules changed between calls; error state as
context manager and decorator; every array layout and flavour; integer and float corner cases;
generators, exceptions caught inside compiled code, recursion and printing."""

from __future__ import annotations

import contextlib
import functools
import types
import warnings
from collections.abc import Callable
from typing import Any

import ember
import numpy as np
import pytest
from probe_harness import record

BACKENDS = ["cranelift", "eager"]


def same_as_numpy(fn: Callable[..., Any], *args: Any, backend: str = "cranelift",
                  context: Callable[[], Any] = contextlib.nullcontext, calls: int = 2,
                  compiled_code: bool = False) -> None:
    """`fn` compiled behaves as under NumPy on each of `calls` calls; with `compiled_code`,
    it also ran as compiled graphs (no frame left to plain Python by an entry fallback)."""
    want = record(fn, args, context)
    ember.reset()
    compiled = ember.compile(fn, backend=backend)
    for call in range(calls):
        got = record(compiled, args, context)
        assert got == want, f"call {call}:\n  compiled {got}\n  NumPy    {want}"
    if compiled_code:
        stats = ember.stats()
        assert stats["compiles"] >= 1 and stats["entry_fallbacks"] == 0, stats


def compiled_graphs() -> int:
    return ember.stats()["compiles"]


# --- guards ------------------------------------------------------------------------------

def _closure_reading(scale: float) -> tuple[Callable, Callable[[float], None]]:
    def f(x):
        return x * scale + 1

    def set_scale(v: float) -> None:
        nonlocal scale
        scale = v

    return f, set_scale


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_closure_cell_changed_between_calls(backend):
    f, set_scale = _closure_reading(2.0)
    compiled = ember.compile(f, backend=backend)
    x = np.arange(4.0)
    for scale in (2.0, 3.0, np.float32(0.5), 7, np.arange(4.0)):
        set_scale(scale)
        np.testing.assert_array_equal(compiled(x), f(x))
        assert compiled(x).dtype == f(x).dtype


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_mutable_default_argument_mutated_between_calls(backend):
    def f(x, opts={"k": 2.0, "w": [1.0]}):  # noqa: B006 -- the point of the test
        return x * opts["k"] + opts["w"][0]

    compiled = ember.compile(f, backend=backend)
    x = np.arange(3.0)
    for k, w in ((2.0, 1.0), (5.0, 1.0), (5.0, -4.0)):
        f.__defaults__[0]["k"] = k
        f.__defaults__[0]["w"][0] = w
        np.testing.assert_array_equal(compiled(x), x * k + w)
    f.__defaults__ = ({"k": 10.0, "w": [0.0]},)
    np.testing.assert_array_equal(compiled(x), x * 10.0)


class Scaler:
    factor = 2.0

    def __init__(self, shift: float) -> None:
        self.shift = shift

    def apply(self, x):
        return x * self.factor + self.shift


@pytest.mark.parametrize("backend", BACKENDS)
def test_class_attribute_changed_after_compile_and_methods_compiled_on_instances(backend):
    a, b = Scaler(1.0), Scaler(-1.0)
    ca, cb = ember.compile(a.apply, backend=backend), ember.compile(b.apply, backend=backend)
    x = np.arange(3.0)
    try:
        for factor in (2.0, 4.0):
            Scaler.factor = factor
            np.testing.assert_array_equal(ca(x), a.apply(x))
            np.testing.assert_array_equal(cb(x), b.apply(x))
        a.factor = -3.0  # an instance attribute shadowing the class's
        np.testing.assert_array_equal(ca(x), x * -3.0 + 1.0)
        np.testing.assert_array_equal(cb(x), x * 4.0 - 1.0)
        b.shift = 100.0
        np.testing.assert_array_equal(cb(x), x * 4.0 + 100.0)
    finally:
        Scaler.factor = 2.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_functools_partial(backend):
    def f(x, k, *, shift):
        return x * k + shift

    x = np.arange(4.0)
    for k, shift in ((2.0, 1.0), (2.0, 5.0), (np.float32(3.0), 0.0)):
        p = functools.partial(f, k=k, shift=shift)
        compiled = ember.compile(p, backend=backend)
        assert repr(compiled(x)) == repr(p(x))
    # A partial whose keywords dict changes in place.
    p = functools.partial(f, k=2.0, shift=1.0)
    compiled = ember.compile(p, backend=backend)
    compiled(x)
    p.keywords["shift"] = -10.0
    assert repr(compiled(x)) == repr(p(x))


THRESHOLD = 0.5


def _uses_global(x):
    return np.where(x > THRESHOLD, x, -x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_global_rebound_and_a_module_patched(backend, monkeypatch):
    compiled = ember.compile(_uses_global, backend=backend)
    x = np.linspace(-1, 1, 9)
    for value in (0.5, -0.25, 2, np.float32(0.0)):
        monkeypatch.setitem(globals(), "THRESHOLD", value)
        assert repr(compiled(x)) == repr(_uses_global(x))
    fake = types.ModuleType("fake_numpy")
    fake.where = lambda c, a, b, real=np: real.where(c, b, a)
    monkeypatch.setitem(globals(), "np", fake)
    assert repr(compiled(x)) == repr(_uses_global(x))


WEIGHTS = np.arange(3.0)


def _reads_global_array(x):
    return x + WEIGHTS


class Holder:
    w = np.ones(3)

    def scaled(self, x):
        return x * self.w


@pytest.mark.parametrize("backend", BACKENDS)
def test_arrays_reached_through_globals_classes_defaults_and_cells_updated_in_place(backend,
                                                                                 monkeypatch):
    """Array contents are not guarded, by design: a graph reads them on every call."""
    x = np.ones(3)
    compiled = ember.compile(_reads_global_array, backend=backend)
    compiled(x)
    WEIGHTS[1] = 10.0
    try:
        np.testing.assert_array_equal(compiled(x), x + WEIGHTS)
    finally:
        WEIGHTS[1] = 1.0
    monkeypatch.setitem(globals(), "WEIGHTS", np.zeros(3))
    np.testing.assert_array_equal(compiled(x), x)
    h = Holder()
    method = ember.compile(h.scaled, backend=backend)
    method(x)
    Holder.w[0] = 5.0
    try:
        np.testing.assert_array_equal(method(x), x * Holder.w)
    finally:
        Holder.w[0] = 1.0

    def with_default(x, w=np.ones(3)):  # noqa: B008 -- the point of the test
        return x - w

    compiled = ember.compile(with_default, backend=backend)
    compiled(x)
    with_default.__defaults__[0][2] = -4.0
    np.testing.assert_array_equal(compiled(x), with_default(x))


def _random_and_side_effects(x, log):
    log.append(float(x.sum()))
    return x + np.random.rand(*x.shape)


@pytest.mark.parametrize("backend", BACKENDS)
def test_random_numbers_and_side_effects_happen_on_every_call(backend):
    x = np.ones(3)
    want_log: list[float] = []
    np.random.seed(7)
    want = [_random_and_side_effects(x * k, want_log) for k in range(3)]
    got_log: list[float] = []
    compiled = ember.compile(_random_and_side_effects, backend=backend)
    np.random.seed(7)
    got = [compiled(x * k, got_log) for k in range(3)]
    assert repr(got) == repr(want) and got_log == want_log


def _doubled(x):
    return x * 2 + 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_results_of_later_calls_never_share_memory_with_earlier_ones(backend):
    """Recycled output buffers: a result still referenced (itself, a view of it, a memoryview
    of it) is never handed out again."""
    compiled = ember.compile(_doubled, backend=backend)
    x = np.arange(6.0)
    first, view, exported = compiled(x), compiled(x)[::2], memoryview(compiled(x))
    kept = first.copy(), view.copy(), bytes(exported)
    later = [compiled(x + k) for k in range(4)]
    np.testing.assert_array_equal(first, kept[0])
    np.testing.assert_array_equal(view, kept[1])
    assert bytes(exported) == kept[2]
    for result in later:
        assert not np.shares_memory(result, first) and not np.shares_memory(result, view)


# --- error state and warnings ----------------------------------------------------------------

def _divide(a, b):
    return a / b, np.log(a)


@np.errstate(divide="raise")
def _divide_raising(a, b):
    return a / b


@pytest.mark.parametrize("backend", BACKENDS)
def test_errstate_as_context_manager_and_decorator(backend):
    a, b = np.array([1.0, 0.0, -1.0]), np.array([0.0, 0.0, 2.0])
    for state in ({}, {"all": "raise"}, {"divide": "ignore"}, {"invalid": "raise"},
                  {"all": "ignore"}):
        same_as_numpy(_divide, a, b, backend=backend,
                      context=lambda state=state: np.errstate(**state))
    same_as_numpy(_divide_raising, a, b, backend=backend)
    same_as_numpy(_divide_raising, a, np.ones(3), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_seterr_between_calls_and_warnings_as_errors(backend):
    a, b = np.array([1.0, 0.0]), np.array([0.0, 0.0])
    old = np.seterr(all="ignore")
    try:
        same_as_numpy(_divide, a, b, backend=backend)
        np.seterr(divide="raise")
        same_as_numpy(_divide, a, b, backend=backend)
    finally:
        np.seterr(**old)

    @contextlib.contextmanager
    def warnings_are_errors():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            yield

    same_as_numpy(_divide, a, b, backend=backend, context=warnings_are_errors)


# --- arrays of every flavour -------------------------------------------------------------------

def _elementwise(x):
    return x * 2 + 1, np.sqrt(np.abs(x)), x.sum(), x.T, x[::-1]


def _flavours() -> dict[str, np.ndarray]:
    base = np.arange(12.0).reshape(3, 4) - 5
    readonly = base.copy()
    readonly.flags.writeable = False
    unaligned = np.frombuffer(b"\0" + base.tobytes(), dtype=np.float64, offset=1,
                              count=12).reshape(3, 4)
    return {
        "strided": base[:, ::2], "negative": base[::-1, ::-2], "fortran": np.asfortranarray(base),
        "zero_d": np.array(3.5), "empty": np.zeros((0, 4)), "empty_cols": np.zeros((3, 0)),
        "readonly": readonly, "byteswapped": base.astype(">f8"), "unaligned": unaligned,
        "broadcast": np.broadcast_to(base[0], (3, 4)), "int8": base.astype(np.int8),
        "bool": base > 0, "float32": base.astype(np.float32),
        "uint16": (base + 5).astype(np.uint16),
    }


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(_flavours()))
def test_array_flavours(name, backend):
    # Byte-swapped data has a dtype the graphs do not take: it runs as NumPy.
    same_as_numpy(_elementwise, _flavours()[name], backend=backend,
                  compiled_code=name != "byteswapped")


def _update(x):
    x += 1
    return x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["readonly", "broadcast", "byteswapped", "unaligned"])
def test_updating_special_arrays_in_place(name, backend):
    same_as_numpy(_update, _flavours()[name], backend=backend)


def _subclass_math(x):
    return x * 2, x + x, (x * x).sum(), x.T


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x", [
    np.matrix([[1.0, 2.0], [3.0, 4.0]]),
    np.ma.masked_array([1.0, 2.0, 3.0], mask=[False, True, False]),
    np.ma.masked_invalid([1.0, np.nan, 3.0]),
], ids=["matrix", "masked", "masked_invalid"])
def test_array_subclasses_stay_correct(x, backend):
    want = _subclass_math(x)
    compiled = ember.compile(_subclass_math, backend=backend)
    for _ in range(2):
        got = compiled(x)
        for g, w in zip(got, want, strict=True):
            assert type(g) is type(w)
            assert repr(g) == repr(w)


# --- numbers --------------------------------------------------------------------------------

def _big_int(x, k):
    return x + k, k * 2


def _bools(a, b):
    return a + b, a * b, a - 1, a & b, ~a, a.sum(), np.mean(a), a * 1.5


def _integer_corners(a, b):
    return a // b, a % b, np.floor_divide(a, b), np.remainder(a, b), np.fmod(a, b)


def _negative_powers(a, b):
    return a ** b


@pytest.mark.parametrize("backend", BACKENDS)
def test_python_ints_beyond_int64(backend):
    x = np.arange(3)
    for k in (2**62, 2**63, -(2**63) - 1, 2**70):
        same_as_numpy(_big_int, x, k, backend=backend)
    same_as_numpy(lambda x: x + 2**64, np.arange(3), backend=backend)
    same_as_numpy(lambda x: x * 2**40 * 2**40, np.arange(3), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_bool_arithmetic(backend):
    a, b = np.array([True, False, True]), np.array([True, True, False])
    same_as_numpy(_bools, a, b, backend=backend, compiled_code=True)
    same_as_numpy(lambda a, b: a - b, a, b, backend=backend)
    same_as_numpy(lambda a: -a, a, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8, np.uint64])
def test_integer_division_and_modulo_by_zero(dtype, backend):
    info = np.iinfo(dtype)
    a = np.array([7, 0, info.max, info.min, 3], dtype)
    b = np.array([0, 0, 2, 0, 3], dtype)
    same_as_numpy(_integer_corners, a, b, backend=backend, compiled_code=True)
    if info.min < 0:
        same_as_numpy(_integer_corners, a, np.array([-1] * 5, dtype), backend=backend)
    same_as_numpy(lambda a: (a // 0, a % 0), a, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_powers_of_negative_integers(backend):
    a = np.array([-2, -1, 0, 3])
    same_as_numpy(_negative_powers, a, np.array([3, 2, 5, 0]), backend=backend)
    same_as_numpy(_negative_powers, a, np.array([1, -1, 2, 2]), backend=backend)
    same_as_numpy(lambda a: a ** -1, a, backend=backend)
    same_as_numpy(lambda a: a ** 2.0, a, backend=backend)
    same_as_numpy(lambda a: a ** 63, a, backend=backend)
    same_as_numpy(lambda a: np.power(a, -2.5), a.astype(float), backend=backend)


def _power_operators(a):
    b = a.copy()
    b **= 0.5
    c = a.copy()
    c **= -1
    return a ** 0.5, a ** -1, a ** 2, a ** 0.5 + a ** -1.0, b, c, a ** 3, a ** -0.5


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.bool_])
def test_power_operators_take_numpys_shortcuts(dtype, backend):
    """`x ** 0.5` is np.sqrt and `x ** -1` np.reciprocal of a float array (their values,
    `sqrt(-0.0)` is -0.0, and warnings naming them), `x ** 2` np.square of any array."""
    with np.errstate(all="ignore"):
        a = np.array([-0.0, 0.0, -4.0, 4.0, -np.inf, np.inf, np.nan, 2.0]).astype(dtype)
    if dtype in (np.int64, np.bool_):
        same_as_numpy(lambda a: (a ** 2, a ** 0.5, a ** 2.0), a, backend=backend)
        same_as_numpy(lambda a: a ** -1, a, backend=backend)
        return
    same_as_numpy(_power_operators, a, backend=backend, compiled_code=True)
    same_as_numpy(_power_operators, a[::-2], backend=backend)


def _conversions(x, k):
    return (complex(x[0]), complex(k), complex(k, 2), int(x[2]), float(x[1]), x.tolist(),
            x.item(0), bool(x[0]), round(x[1]), abs(x[2]), divmod(x[0], 2.0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_python_number_conversions(backend):
    """`complex(v)` of an array element or a run-time Python number (which once reached an
    internal error), `int`, `float`, `round`, `divmod`: as Python and NumPy give them."""
    x = np.array([3.5, 2.5, -2.7])
    ember.reset()
    compiled = ember.compile(_conversions, backend=backend)
    for k in (1.5, 2.5, 3, -0.5):  # a changing scalar becomes a run-time value
        assert repr(compiled(x, k)) == repr(_conversions(x, k))


def _nan_order(x):
    return (x.max(), x.min(), np.argmax(x), np.argmin(x), np.sort(x), np.argsort(x),
            np.maximum.reduce(x), np.fmax.reduce(x))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x", [
    [1.0, np.nan, 3.0], [np.nan, np.nan], [np.inf, -np.inf, np.nan, 0.0], [-0.0, 0.0],
    [np.inf, 1.0], [2.0, np.nan, -np.inf, np.nan, 5.0, 0.5, -1.0, 7.0, 9.0, np.inf],
])
def test_nan_and_inf_in_max_min_argmax_and_sort(x, backend):
    for dtype in (np.float64, np.float32):
        same_as_numpy(_nan_order, np.array(x, dtype), backend=backend, compiled_code=True)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [
    lambda x: x.max(), lambda x: np.min(x), lambda x: x.argmax(), lambda x: x.sum(),
    lambda x: x.prod(), lambda x: x.mean(), lambda x: x.std(), lambda x: x.max(axis=1),
    lambda x: x.max(axis=0), lambda x: np.argmin(x, axis=0), lambda x: x.any(), lambda x: x.all(),
    lambda x: x.max(initial=-1.0), lambda x: np.ptp(x),
])
@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0)])
def test_reductions_of_empty_arrays(fn, shape, backend):
    same_as_numpy(fn, np.zeros(shape), backend=backend)


# --- errors ------------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [
    lambda x: x[5], lambda x: x[-6], lambda x: x[1, 2], lambda x: x[np.array([0, 7])],
    lambda x: np.take(x, 9), lambda x: x[[1, -9]],
])
def test_out_of_bounds_indices_raise_index_error(fn, backend):
    same_as_numpy(fn, np.arange(5.0), backend=backend)


def _store_out_of_bounds(x):
    x[7] = 1.0
    return x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [
    lambda a, b: a + b, lambda a, b: a @ b, lambda a, b: np.dot(a, b),
    lambda a, b: np.concatenate([a, b], axis=1), lambda a, b: a.reshape(4, 4) + b,
    lambda a, b: np.where(a > 0, a, b),
])
def test_shape_mismatches_raise_value_error(fn, backend):
    same_as_numpy(fn, np.ones((2, 3)), np.ones((4, 5)), backend=backend)
    same_as_numpy(_store_out_of_bounds, np.zeros(3), backend=backend)


def _catches(x):
    w = np.sqrt(x * 2 + 1)
    try:
        y = w[10]
    except IndexError as exc:
        print("caught", type(exc).__name__)
        y = x.sum()
    try:
        z = np.ones(3) + x
    except ValueError:
        z = -x
    return y, z, w - 1


def _raises_itself(x):
    total = x.sum()
    if total > 3:
        raise ValueError(f"too large: {total}")
    return total


def _generator_user(x):
    def rows():
        for i in range(x.shape[0]):
            yield x[i] * 2

    return sum(rows()), [r.sum() for r in rows()], list(r.max() for r in rows())


def _factorial(n, x):
    if n <= 1:
        return x
    return x * _factorial(n - 1, x + 1)


def _prints(x):
    print(x)
    print("sum", x.sum(), x.dtype, x.shape)
    y = x * 2
    print(repr(y), y[0])
    return y


@pytest.mark.parametrize("backend", BACKENDS)
def test_exceptions_caught_inside_compiled_code(backend):
    same_as_numpy(_catches, np.arange(4.0), backend=backend, compiled_code=True)
    same_as_numpy(_raises_itself, np.arange(4.0), backend=backend)
    same_as_numpy(_raises_itself, np.zeros(4), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_generators_recursion_and_printing(backend):
    same_as_numpy(_generator_user, np.arange(12.0).reshape(3, 4), backend=backend)
    same_as_numpy(_factorial, 5, np.arange(3.0), backend=backend)
    same_as_numpy(_prints, np.arange(5.0), backend=backend, compiled_code=True)
    same_as_numpy(_prints, np.arange(6, dtype=np.int16).reshape(2, 3)[:, ::-1], backend=backend)


def test_the_programs_above_run_compiled():
    """The differential cases are not plain Python in disguise: the common ones compile."""
    ember.reset()
    compiled = ember.compile(_elementwise)
    compiled(np.arange(6.0).reshape(2, 3))
    compiled(np.arange(6.0).reshape(2, 3))
    stats = ember.stats()
    assert compiled_graphs() >= 1 and stats["entry_fallbacks"] == 0, stats
