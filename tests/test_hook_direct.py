"""Direct entries reached through the frame hook (a resume function after a graph break, a
call through `CompiledFunction.__call__`) run their graph natively, without the entry's
Python code (`ember.stats()["hook_direct_calls"]`), and fall back as the entry does when a
guard fails; and the native continuations and trampoline of graph breaks
(`rust/py/src/continuation.rs`) follow resume functions as the Python ones did.
"""

from __future__ import annotations

import sys
import warnings

import ember
import numpy as np
import pytest
from conftest import assert_same
from ember.capture.resume import Continuation, trampoline

SCALE = 2.0


def opaque(v):
    return v


opaque_call = ember.disable(opaque)


def broken_once(x, y):
    a = x * y + 1.0
    b = opaque_call(a)
    return b * x - y * SCALE


def broken_power(x, y):
    a = x + 0
    b = opaque_call(a)
    return b**y


def broken_tuple(x, y):
    a = np.sqrt(np.abs(x)) + y
    b = opaque_call(a)
    return b.sum(), b * y


@pytest.fixture(autouse=True)
def _fresh():
    ember.reset()
    yield
    ember.reset()


def direct_calls() -> int:
    return ember.stats()["hook_direct_calls"]


def compiled_matches(fn, *args):
    compiled = ember.compile(fn)
    for _ in range(3):
        assert_same(compiled(*args), fn(*args))
    return compiled


@pytest.mark.parametrize("fn", [broken_once, broken_tuple])
def test_resume_runs_natively(fn):
    x, y = np.linspace(-1.0, 1.0, 8), np.linspace(1.0, 2.0, 8)
    compiled = compiled_matches(fn, x, y)
    before = direct_calls()
    assert_same(compiled(x, y), fn(x, y))
    assert direct_calls() == before + 1
    assert ember.stats()["entry_fallbacks"] == 0


def assert_same_subclassed(got, want):
    """`assert_same` where NumPy gave ndarray subclasses: same types, then same arrays."""
    assert type(got) is type(want)
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_same_subclassed(g, w)
    elif isinstance(want, np.ndarray):
        assert_same(got.view(np.ndarray), want.view(np.ndarray))
    else:
        assert_same(got, want)


def changed_inputs():
    x, y = np.linspace(-1.0, 1.0, 8), np.linspace(1.0, 2.0, 8)

    class Sub(np.ndarray):
        pass

    return {
        "dtype": (x.astype(np.float32), y.astype(np.float32)),
        "shape": (np.linspace(-1.0, 1.0, 5), np.linspace(1.0, 2.0, 5)),
        "ndim": (np.linspace(-1.0, 1.0, 16).reshape(2, 8), y),
        "layout": (np.linspace(-1.0, 1.0, 16)[::2], y),
        "subclass": (x.view(Sub), y),
        "int": (np.arange(8), np.arange(1, 9)),
    }


@pytest.mark.parametrize("change", list(changed_inputs()))
@pytest.mark.parametrize("fn", [broken_once, broken_tuple])
def test_resume_guard_failures_fall_back(fn, change):
    x, y = np.linspace(-1.0, 1.0, 8), np.linspace(1.0, 2.0, 8)
    compiled = compiled_matches(fn, x, y)
    args = changed_inputs()[change]
    for _ in range(2):
        got, want = compiled(*args), fn(*args)
        assert_same_subclassed(got, want)
    assert_same(compiled(x, y), fn(x, y))  # the first entry still answers


def test_resume_sees_a_rebound_global():
    global SCALE
    x, y = np.linspace(-1.0, 1.0, 8), np.linspace(1.0, 2.0, 8)
    compiled = compiled_matches(broken_once, x, y)
    try:
        SCALE = 3.0
        assert_same(compiled(x, y), broken_once(x, y))
        SCALE = np.float32(0.5)
        assert_same(compiled(x, y), broken_once(x, y))
    finally:
        SCALE = 2.0
    assert_same(compiled(x, y), broken_once(x, y))


def test_resume_by_keyword_and_through_call():
    x, y = np.linspace(-1.0, 1.0, 8), np.linspace(1.0, 2.0, 8)
    compiled = compiled_matches(broken_once, x, y)
    assert_same(compiled(x, y=y), broken_once(x, y=y))
    assert_same(type(compiled).__call__(compiled, x, y), broken_once(x, y))
    assert_same(compiled(y=y, x=x), broken_once(x, y))


def test_resume_graph_error_is_numpys():
    x, y = np.arange(1, 4), np.array([1, 2, 3])
    compiled = compiled_matches(broken_power, x, y)
    with pytest.raises(ValueError, match="negative integer powers"):
        broken_power(x, np.array([1, -1, 2]))
    with pytest.raises(ValueError, match="negative integer powers"):
        compiled(x, np.array([1, -1, 2]))
    assert_same(compiled(x, y), broken_power(x, y))


def test_tracing_runs_the_python_entry():
    x, y = np.linspace(-1.0, 1.0, 8), np.linspace(1.0, 2.0, 8)
    compiled = compiled_matches(broken_once, x, y)
    before = direct_calls()
    seen = []

    def tracer(frame, event, arg):
        seen.append(frame.f_code.co_name)
        return None

    sys.settrace(tracer)
    try:
        got = compiled(x, y)
    finally:
        sys.settrace(None)
    assert_same(got, broken_once(x, y))
    assert direct_calls() == before
    assert seen


def halve_until_small(x):
    while x.max() > 1.0:
        x = opaque_call(x * 0.5)
    return x


def test_a_break_per_trip_runs_in_constant_depth():
    start = np.full(4, 2.0**40)
    compiled = ember.compile(halve_until_small)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        for _ in range(2):
            assert_same(compiled(start), halve_until_small(start))
    finally:
        sys.setrecursionlimit(limit)


def resume_target(a, b):
    return a * 10 + b


def hop(a):
    return Continuation(resume_target.__code__, None, a, 1)


def closure_target():
    k = 7

    def inner(a):
        return a + k

    return inner


def test_trampoline_follows_continuations():
    code = resume_target.__code__
    assert trampoline(Continuation(code, None, 1, 2), globals()) == 12
    assert trampoline(5, globals()) == 5
    # A resume function that hands back another continuation is followed on.
    assert trampoline(Continuation(hop.__code__, None, 4), globals()) == 41
    inner = closure_target()
    cont = Continuation(inner.__code__, inner.__closure__, 5)
    assert (cont.resume_code, cont.closure, cont.values) == (inner.__code__, inner.__closure__,
                                                              (5,))
    assert trampoline(cont, globals()) == 12
    assert "inner" in repr(cont)


def test_trampoline_rejects_bad_closures_and_raises_through():
    inner = closure_target()
    with pytest.raises(ValueError):
        trampoline(Continuation(inner.__code__, None, 5), globals())
    with pytest.raises(TypeError):
        trampoline(Continuation(inner.__code__, (1,), 5), globals())
    with pytest.raises(TypeError):
        trampoline(Continuation(resume_target.__code__, None, 1), globals())
    with pytest.raises(TypeError):
        Continuation("not code", None)


def as_python_float(x):
    return float((x * 2).sum())


def as_python_int(x):
    return int((x * 2).sum())


def as_python_bool(x):
    return bool((x > 1).any())


def as_item(x):
    return (x * 2).sum().item()


def as_numpy_scalar(x):
    return (x * 2).max()


def as_mixed_tuple(x):
    return (x * 2).sum(), float(x.max()), x + 1


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32, np.uint8,
                                   np.bool_, np.float16, np.complex128])
@pytest.mark.parametrize("fn", [as_python_float, as_python_int, as_python_bool, as_item,
                                as_numpy_scalar, as_mixed_tuple])
def test_scalar_results_built_natively_are_numpys(fn, dtype):
    """0-d outputs returned as Python scalars (`float(...)`, `.item()`) and NumPy scalars are
    built from the array's data on the fast path: the same types and values as NumPy's."""
    x = np.arange(5).astype(dtype)
    with np.errstate(all="ignore"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = fn(x)
            compiled = ember.compile(fn)
            for _ in range(3):
                got = compiled(x)
                if isinstance(want, tuple):
                    assert [type(g) for g in got] == [type(w) for w in want]
                    for g, w in zip(got, want):
                        assert_same(g, w)
                else:
                    assert type(got) is type(want)
                    assert_same(got, want)
    if dtype in (np.float64, np.float32, np.int64, np.int32, np.bool_):
        assert ember.stats()["native_calls"] >= 1  # the others do not compile to native code
