"""The native fast path of compiled functions (`rust/py/src/dispatch.rs`) against the path
through the frame hook (`CompiledFunction.__call__`) and plain NumPy: the same results,
dtypes, shapes, aliasing, output recycling, floating-point reruns, warnings and exceptions;
and which calls it answers (`ember.stats()["native_calls"]`: keyword arguments, defaults,
methods, attributes of arguments) and which it leaves to the hook (entries with Python around
their graph, attributes only Python code can read, tracing, misses).
"""

from __future__ import annotations

import sys
import threading
import warnings

import ember
import numpy as np
import pytest
from conftest import aliasing, assert_same
from fuzz_programs import Program, make_args, programs, run
from hypothesis import HealthCheck, Phase, given, settings
from test_fuzz_programs import assert_same_outcome

SCALE = 2.0


def native_calls() -> int:
    return ember.stats()["native_calls"]


def through_hook(compiled, *args, **kwargs):
    """The call as it runs without the fast path: the Python `__call__`, the frame hook."""
    return type(compiled).__call__(compiled, *args, **kwargs)


def answered_natively(compiled, *args, **kwargs) -> tuple[object, bool]:
    before = native_calls()
    result = compiled(*args, **kwargs)
    return result, native_calls() == before + 1


@pytest.fixture(autouse=True)
def _fresh():
    ember.reset()
    yield
    ember.reset()


def multiply_add(x, y):
    return x * y + 1


def two_results(x, y):
    return x + y, x * y


def total(x):
    return (x * x).sum()


def scaled(x):
    return x * SCALE


def absolute(x):
    return abs(x) + 1.0


def mean_rows(x):
    return x.mean(axis=1)


def with_default(x, y=2.0):
    return x * y


def listed(x, y):
    return [x * y]


def keyed(x, y):
    return {"sum": x + y}


CASES = [
    (multiply_add, lambda: (np.linspace(0.0, 1.0, 8), np.linspace(1.0, 2.0, 8))),
    (multiply_add, lambda: (np.arange(6, dtype=np.int32), np.arange(6, dtype=np.int64))),
    (multiply_add, lambda: (np.ones((3, 4), np.float32)[:, ::2], np.float32(3.0) * np.ones(2,
                                                                                          np.float32))),
    (two_results, lambda: (np.linspace(-1.0, 1.0, 5), np.linspace(1.0, 2.0, 5))),
    (total, lambda: (np.linspace(0.0, 1.0, 10),)),
    (scaled, lambda: (np.arange(4.0),)),
    (absolute, lambda: (np.linspace(-2.0, 2.0, 7),)),
    (mean_rows, lambda: (np.arange(12.0).reshape(3, 4).T,)),
]


@pytest.mark.parametrize("fn, make", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_fast_path_matches_hook_path_and_numpy(fn, make):
    compiled = ember.compile(fn)
    want = fn(*make())
    first = compiled(*make())
    fast, native = answered_natively(compiled, *make())
    hooked = through_hook(compiled, *make())
    assert native, f"{fn.__name__}: the fast path did not answer the cache hit"
    for got in (first, fast, hooked):
        assert type(got) is type(want)
        assert_same(got, want, rtol=1e-6, atol=0)
    args = make()
    assert aliasing(compiled(*args), args) == aliasing(fn(*args), args)


@pytest.fixture
def python_calls(monkeypatch) -> list[tuple]:
    """The calls that reach `CompiledFunction.__call__` (the slot did not answer them)."""
    calls = []
    original = ember.api.CompiledFunction.__call__

    def counted(self, *args, **kwargs):
        calls.append(args)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(ember.api.CompiledFunction, "__call__", counted)
    return calls


@pytest.mark.parametrize("fn, args", [
    (listed, (np.arange(3.0), np.arange(3.0))),
    (keyed, (np.arange(3.0), np.arange(3.0))),
])
def test_entries_with_python_around_the_graph_are_called_from_the_slot(fn, args, python_calls):
    compiled = ember.compile(fn)
    compiled(*args)
    assert len(python_calls) == 1  # the miss: capture and compile
    hits = ember.stats()["cache_hits"]
    result, native = answered_natively(compiled, *args)
    assert not native  # the entry ran, not the graph alone
    assert len(python_calls) == 1
    assert ember.stats()["cache_hits"] == hits + 1
    assert_same(result, fn(*args), rtol=0, atol=0)
    assert aliasing(result, args) == aliasing(fn(*args), args)


def opaque(v):
    return v


opaque_call = ember.disable(opaque)
OFFSET = 1.0


def broken_with_global(x):
    a = x * 2.0
    b = opaque_call(a)
    return b + OFFSET  # read by the resume function, guarded there


def test_captures_inside_an_entry_called_from_the_slot_use_the_compile_options(
        python_calls, monkeypatch):
    graphs = []

    def recording(graph, example_inputs):
        graphs.append(graph)
        return ember.backends.lookup_backend("eager")(graph, example_inputs)

    compiled = ember.compile(broken_with_global, backend=recording)
    x = np.arange(4.0)
    compiled(x)
    assert len(graphs) == 2  # before the break, and the resume function's
    monkeypatch.setattr(sys.modules[__name__], "OFFSET", 2.0)
    assert_same(compiled(x), broken_with_global(x), rtol=0, atol=0)
    assert len(python_calls) == 1  # the second call was answered from the slot
    assert len(graphs) == 3  # the resume function recompiled with the compile's backend


def add_into(x, y):
    x += y


def update_rows(c, a, alpha):
    c[:] = alpha * a @ a.T + c
    return c.sum()


def two_updates(x, y):
    x *= 2.0
    y[1:] += x[:-1]
    return x[0]


@pytest.mark.parametrize("fn, make", [
    (add_into, lambda: (np.arange(6.0), np.linspace(0.0, 1.0, 6))),
    (add_into, lambda: (np.arange(12.0).reshape(3, 4)[:, ::2], np.ones(2))),
    (add_into, lambda: (np.arange(12.0).reshape(3, 4).T, np.arange(3.0))),
    (update_rows, lambda: (np.ones((3, 3)), np.arange(6.0).reshape(3, 2), 0.5)),
    (two_updates, lambda: (np.arange(5.0), np.arange(5.0, 10.0))),
], ids=["add", "strided", "transposed", "rows", "two"])
def test_arguments_updated_in_place_are_written_back_natively(fn, make):
    compiled = ember.compile(fn)
    want_args = make()
    want = fn(*want_args)
    compiled(*make())
    for native_path in (True, False):
        args = make()
        if native_path:
            got, native = answered_natively(compiled, *args)
            assert native, f"{fn.__name__}: the fast path did not answer the cache hit"
        else:
            got = through_hook(compiled, *args)
        assert_same(got, want, rtol=1e-12, atol=0)
        for arg, expected in zip(args, want_args, strict=True):
            assert_same(arg, expected, rtol=1e-12, atol=0)


def test_updates_of_arguments_sharing_memory_or_read_only_run_as_numpy():
    compiled = ember.compile(add_into)
    compiled(np.arange(4.0), np.ones(4))
    a = np.arange(4.0)
    compiled(a, a)  # the graph read y before x changed: NumPy reads the updated x
    np.testing.assert_array_equal(a, np.arange(4.0) * 2)
    a = np.arange(5.0)
    compiled(a[1:], a[:-1])
    want = np.arange(5.0)
    add_into(want[1:], want[:-1])
    np.testing.assert_array_equal(a, want)
    fallbacks = ember.stats()["entry_fallbacks"]
    frozen = np.arange(4.0)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        compiled(frozen, np.ones(4))
    np.testing.assert_array_equal(frozen, np.arange(4.0))
    assert ember.stats()["entry_fallbacks"] > fallbacks


def test_python_scalar_arguments_go_in_natively():
    def scaled_by(x, s, n):
        return x * s + n

    compiled = ember.compile(scaled_by)
    x = np.arange(4.0)
    compiled(x, 2.0, 1)
    compiled(x, 3.0, 2)  # another value: scalars become run-time inputs (one recompile)
    compiles = ember.stats()["compiles"]
    for s, n in [(4.0, 3), (-0.5, -7), (1e300, 2**62)]:
        result, native = answered_natively(compiled, x, s, n)
        assert native
        assert_same(result, scaled_by(x, s, n), rtol=0, atol=0)
    assert ember.stats()["compiles"] == compiles
    result, native = answered_natively(compiled, x, 2.0, 2**70)  # beyond int64: NumPy's way
    assert native and type(result) is type(scaled_by(x, 2.0, 2**70))
    assert_same(result, scaled_by(x, 2.0, 2**70), rtol=0, atol=0)
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        compiled(x, 1e308, 1)
    for call in (compiled, lambda *a: through_hook(compiled, *a)):
        assert_same(call(np.arange(4.0), np.float64(2.0), 1), scaled_by(x, np.float64(2.0), 1),
                    rtol=0, atol=0)


@pytest.mark.parametrize("scalar_type", [np.float64, np.float32, np.int64, np.int32, np.int16,
                                         np.int8, np.uint8, np.uint16, np.uint32, np.bool_])
@pytest.mark.parametrize("array_dtype", [np.float64, np.float32, np.int64, np.uint8])
def test_numpy_scalar_arguments_go_in_natively(scalar_type, array_dtype):
    def scaled_by(x, s):
        return x * s + s

    compiled = ember.compile(scaled_by)
    x = np.arange(1, 6).astype(array_dtype)
    values = [scalar_type(v) for v in (3, 1, 0, 2)]
    compiled(x, values[0])
    compiled(x, values[1])  # another value: the scalar becomes a run-time input
    compiles = ember.stats()["compiles"]
    for v in values:
        want = scaled_by(x, v)
        got, native = answered_natively(compiled, x, v)
        assert native, f"{scalar_type.__name__} with {array_dtype.__name__} arrays"
        assert type(got) is type(want)
        assert_same(got, want, rtol=0, atol=0)
    assert ember.stats()["compiles"] == compiles
    # Another type than the guards saw: not the fast path's to answer, and still NumPy's.
    for other in (np.asarray(values[2]), float(values[3]), np.longlong(2)):
        assert_same(compiled(x, other), scaled_by(x, other), rtol=0, atol=0)


def test_keyword_arguments_and_defaults_bind_natively():
    compiled = ember.compile(multiply_add)
    x, y = np.arange(3.0), np.arange(3.0) + 1.0
    compiled(x, y)
    for args, kwargs in [((x,), {"y": y}), ((), {"y": y, "x": x}), ((), {"x": x, "y": y})]:
        result, native = answered_natively(compiled, *args, **kwargs)
        assert native
        assert_same(result, multiply_add(x, y), rtol=0, atol=0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        compiled(x, z=y)
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        compiled(x, x=y)

    defaulted = ember.compile(with_default)
    defaulted(x)
    for args, kwargs, want in [((x,), {}, with_default(x)), ((x, 3.0), {}, with_default(x, 3.0)),
                               ((), {"x": x}, with_default(x)), ((x,), {"y": 2.0}, x * 2.0)]:
        defaulted(*args, **kwargs)  # a new value of `y` is a guard failure: a recompile
        result, native = answered_natively(defaulted, *args, **kwargs)
        assert_same(result, want, rtol=0, atol=0)
        assert native

    def ordered(x, /, y, *, z=1.0):
        return x * y + z

    special = ember.compile(ordered)  # positional-only and keyword-only: the hook binds them
    special(x, y)
    for args, kwargs in [((x, y), {}), ((x,), {"y": y}), ((x, y), {"z": 2.0})]:
        result, native = answered_natively(special, *args, **kwargs)
        assert not native
        assert_same(result, ordered(*args, **kwargs), rtol=0, atol=0)
    with pytest.raises(TypeError, match="positional-only"):
        special(x=x, y=y)


def test_defaults_are_read_at_each_call():
    compiled = ember.compile(with_default)
    x = np.arange(4.0)
    compiled(x)
    assert answered_natively(compiled, x)[1]
    with_default.__defaults__ = (5.0,)
    try:
        assert_same(compiled(x), x * 5.0, rtol=0, atol=0)
    finally:
        with_default.__defaults__ = (2.0,)
    assert_same(compiled(x), x * 2.0, rtol=0, atol=0)


def test_wrong_argument_count_raises_pythons_error():
    compiled = ember.compile(multiply_add)
    compiled(np.arange(3.0), np.arange(3.0))
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'y'"):
        compiled(np.arange(3.0))
    with pytest.raises(TypeError, match="takes 2 positional arguments but 3 were given"):
        compiled(np.arange(3.0), np.arange(3.0), 1)


def test_guard_failures_recompile_and_entries_are_tried_newest_first():
    compiled = ember.compile(multiply_add, dynamic=False)
    a = np.arange(3.0), np.arange(3.0)
    b = np.arange(5.0), np.arange(5.0)
    compiled(*a)
    compiled(*b)  # a miss: recompiled through the hook
    assert ember.stats()["compiles"] == 2
    failures = ember.stats()["guard_failures"]
    _, native = answered_natively(compiled, *b)
    assert native and ember.stats()["guard_failures"] == failures  # the newest entry first
    result, native = answered_natively(compiled, *a)
    assert native and ember.stats()["guard_failures"] == failures + 1
    assert_same(result, multiply_add(*a), rtol=0, atol=0)


def test_changed_global_closure_and_builtin_are_seen():
    global SCALE
    compiled = ember.compile(scaled)
    x = np.arange(4.0)
    compiled(x)
    assert answered_natively(compiled, x)[1]
    SCALE = 3.0
    try:
        assert_same(compiled(x), x * 3.0, rtol=0, atol=0)
    finally:
        SCALE = 2.0
    assert_same(compiled(x), x * 2.0, rtol=0, atol=0)

    factor = 2.0

    def closure(v):
        return v * factor

    compiled_closure = ember.compile(closure)
    compiled_closure(x)
    assert answered_natively(compiled_closure, x)[1]
    factor = 5.0
    assert_same(compiled_closure(x), x * 5.0, rtol=0, atol=0)

    namespace = {"np": np}
    exec("def shadowed(v):\n    return abs(v) * 2.0\n", namespace)  # noqa: S102
    compiled_shadowed = ember.compile(namespace["shadowed"])
    compiled_shadowed(-x)
    assert answered_natively(compiled_shadowed, -x)[1]
    namespace["abs"] = lambda v: v
    assert_same(compiled_shadowed(-x), -x * 2.0, rtol=0, atol=0)


def test_outputs_are_recycled_alike_on_both_paths():
    compiled = ember.compile(multiply_add)
    x, y = np.linspace(0.0, 1.0, 64), np.linspace(1.0, 2.0, 64)
    compiled(x, y)
    for call in (compiled, lambda *a: through_hook(compiled, *a)):
        kept = call(x, y)
        address = kept.ctypes.data
        del kept
        again = call(x, y)
        assert again.ctypes.data == address  # the dropped output's memory, written again
        held = call(x, y)
        assert held.ctypes.data != again.ctypes.data  # one still held is never written
        assert_same(held, multiply_add(x, y), rtol=0, atol=0)


# 8 elements: a light graph, run with the GIL held; 100 000: the GIL released around the
# kernel, so that the threads' calls overlap in native code.
@pytest.mark.parametrize("n", [8, 100_000])
def test_threads_calling_one_compiled_function(n):
    compiled = ember.compile(multiply_add)
    base = np.linspace(0.0, 1.0, n)
    compiled(base, base)
    calls, threads, errors = 200, 4, []
    before = native_calls()

    def worker(k):
        try:
            x, y = base + k, base * (k + 1)
            expected = multiply_add(x, y)
            kept = []
            for i in range(calls):
                out = compiled(x, y) if i % 2 else through_hook(compiled, x, y)
                if i % 3 == 0:
                    kept.append(out)  # held: no other call may write it again
                else:
                    assert_same(out, expected, rtol=0, atol=0)
            for out in kept:
                assert_same(out, expected, rtol=0, atol=0)
            assert len({out.ctypes.data for out in kept}) == len(kept)
        except BaseException as exc:  # noqa: BLE001 - reported to the main thread
            errors.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # the threads take turns within calls
    try:
        pool = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []
    assert native_calls() - before == threads * calls // 2


@pytest.mark.parametrize("mode", ["raise", "warn", "ignore"])
def test_floating_point_errors_rerun_alike(mode):
    def log_of(x):
        return np.log(x) + 1.0

    compiled = ember.compile(log_of)
    x = np.array([1.0, 0.0, 2.0])
    with np.errstate(all="ignore"):
        compiled(x)
    outcomes = []
    for call in (log_of, compiled, lambda v: through_hook(compiled, v)):
        reruns = ember.stats()["fp_reruns"]
        with np.errstate(divide=mode), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                value, error = call(x), None
            except FloatingPointError as exc:
                value, error = None, str(exc)
        outcomes.append((value, error, [str(w.message) for w in caught],
                         ember.stats()["fp_reruns"] - reruns))
    want, fast, hooked = outcomes
    assert fast[1] == hooked[1] == want[1]
    assert fast[2] == hooked[2] == want[2]
    assert fast[3] == hooked[3] == (0 if mode == "ignore" else 1)
    if want[0] is not None:
        assert_same(fast[0], want[0], rtol=0, atol=0)
        assert_same(hooked[0], want[0], rtol=0, atol=0)


def test_a_graph_that_raises_falls_back_to_python():
    compiled = ember.compile(multiply_add)
    x, y = np.arange(8.0), np.arange(8.0)
    compiled(x, y)
    raw = np.zeros(8 * 8 + 1, np.uint8)
    unaligned = raw[1:].view(np.float64)  # the graph refuses misaligned data
    assert not unaligned.flags.aligned
    unaligned[:] = np.arange(8.0)
    fallbacks = ember.stats()["entry_fallbacks"]
    result, native = answered_natively(compiled, unaligned, y)
    assert native and ember.stats()["entry_fallbacks"] == fallbacks + 1
    assert_same(result, multiply_add(unaligned, y), rtol=0, atol=0)


def test_numpy_errors_keep_their_type_and_message():
    compiled = ember.compile(multiply_add)
    compiled(np.arange(3.0), np.arange(3.0))
    with pytest.raises(ValueError) as want:
        multiply_add(np.arange(3.0), np.arange(4.0))
    with pytest.raises(ValueError) as got:
        compiled(np.arange(3.0), np.arange(4.0))
    assert str(got.value) == str(want.value)


def test_methods_and_tracing():
    class Layer:
        @ember.compile
        def forward(self, x):
            return x * 2.0 + 1.0

    layer, x = Layer(), np.arange(5.0)
    layer.forward(x)
    result, native = answered_natively(layer.forward, x)
    assert_same(result, x * 2.0 + 1.0, rtol=0, atol=0)
    assert native

    compiled = ember.compile(multiply_add)
    compiled(x, x)
    seen = []
    sys.setprofile(lambda frame, event, arg: seen.append(frame.f_code.co_name))
    try:
        result, native = answered_natively(compiled, x, x)
    finally:
        sys.setprofile(None)
    assert not native and "__call__" in seen
    assert_same(result, multiply_add(x, x), rtol=0, atol=0)

    inside = []

    def profiler(frame, event, arg):
        if event == "call" and frame.f_code.co_name == "trigger" and not inside:
            before = native_calls()
            inside.append((compiled(x, x), native_calls() - before))

    def trigger():
        return None

    sys.setprofile(profiler)
    try:
        trigger()
    finally:
        sys.setprofile(None)
    (value, native_delta), = inside
    assert native_delta == 0  # inside a profile function: the hook's path, as always
    assert_same(value, multiply_add(x, x), rtol=0, atol=0)


def test_methods_reading_instance_attributes_go_native():
    class Model:
        def __init__(self):
            self.w = np.arange(3.0)
            self.scale = 2.0

        @ember.compile
        def forward(self, x):
            return x * self.w + self.scale

    model, x = Model(), np.ones(3)
    model.forward(x)
    result, native = answered_natively(model.forward, x)
    assert native  # `self.w` and `self.scale` live in the instance's dict: read natively
    assert_same(result, x * model.w + 2.0, rtol=0, atol=0)
    model.w = np.arange(3.0) + 1  # a new array of the same layout: the same entry
    result, native = answered_natively(model.forward, x)
    assert native
    assert_same(result, x * model.w + 2.0, rtol=0, atol=0)
    model.scale = 3.0  # a guarded constant: recompiled, then native again
    assert_same(model.forward(x), x * model.w + 3.0, rtol=0, atol=0)
    result, native = answered_natively(model.forward, x)
    assert native and np.array_equal(result, x * model.w + 3.0)
    other = Model()
    del other.w
    with pytest.raises(AttributeError, match="'w'"):
        other.forward(x)


def test_attributes_only_python_can_read_stay_on_the_hook():
    class WithProperty:
        calls = 0

        @property
        def w(self):
            type(self).calls += 1
            return np.arange(3.0)

        @ember.compile
        def forward(self, x):
            return x * self.w

    class WithGetattr:
        def __getattr__(self, name):
            return np.arange(3.0) + 1

        @ember.compile
        def forward(self, x):
            return x * self.w

    x = np.ones(3)
    for model in (WithProperty(), WithGetattr()):
        want = x * (np.arange(3.0) + (1 if isinstance(model, WithGetattr) else 0))
        model.forward(x)
        result, native = answered_natively(model.forward, x)
        assert not native  # reading `self.w` runs Python code: the hook's guards do it
        assert_same(result, want, rtol=0, atol=0)
    assert WithProperty.calls >= 2  # the property ran on every call, as in plain Python


def test_pickled_compiled_functions_go_native_on_the_other_side():
    import pickle

    import cloudpickle
    import travel_module

    offset = 0.5

    def shifted(v):
        return v * 2.0 + offset

    args = (np.arange(4.0),)
    by_reference = pickle.loads(pickle.dumps(travel_module.affine))
    by_value = pickle.loads(cloudpickle.dumps(ember.compile(shifted)))
    for restored, plain in [(by_reference, travel_module.affine.__ember_original__),
                            (by_value, shifted)]:
        restored(*args)
        result, native = answered_natively(restored, *args)
        assert native
        assert_same(result, plain(*args), rtol=0, atol=0)


def test_disabled_hook_and_reset():
    compiled = ember.compile(multiply_add)
    x = np.arange(3.0)
    compiled(x, x)
    ember.reset()
    result, native = answered_natively(compiled, x, x)
    assert not native and ember.stats()["compiles"] == 1
    assert answered_natively(compiled, x, x)[1]
    assert_same(result, multiply_add(x, x), rtol=0, atol=0)


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck), phases=[Phase.generate])
@given(program=programs())
def test_fuzzed_programs_alike_on_both_paths(program: Program) -> None:
    namespace = {"np": np}
    exec(compile(program.source, "<fuzzed program>", "exec"), namespace)  # noqa: S102
    fn = namespace["program"]
    want = run(fn, make_args(program.args), program.errstate)
    ember.reset()
    compiled = ember.compile(fn)
    run(compiled, make_args(program.args), program.errstate)
    before = native_calls()
    fast = run(compiled, make_args(program.args), program.errstate)
    native = native_calls() > before
    hooked = run(lambda *a: through_hook(compiled, *a), make_args(program.args),
                 program.errstate)
    assert_same_outcome(fast, hooked, program)
    if native:
        assert_same_outcome(fast, want, program)


def tripled(x):
    return x * 3.0


def calls_tripled(x):
    return tripled(x) + 1.0


def test_misses_past_the_recompile_limit_run_as_python_from_the_slot(python_calls, monkeypatch):
    monkeypatch.setattr(ember.config, "recompile_limit", 1)
    compiled = ember.compile(calls_tripled)
    compiled(np.arange(4.0))
    stats = ember.stats()
    for n in (5, 6, 6):  # 5: a recompile refused; 6: past the limit, at once
        assert_same(compiled(np.arange(float(n))), calls_tripled(np.arange(float(n))),
                    rtol=0, atol=0)
    assert len(python_calls) == 2  # the first call and the refused recompile
    after = ember.stats()
    assert after["cache_misses"] - stats["cache_misses"] == 3 + 3  # each frame, each call
    assert after["captures"] - stats["captures"] == 1  # `tripled` on its own, through the hook
