"""A differential harness: one program text, run by NumPy and traced into a graph.

A test program is written once as `prog(xp, *args)`, where `xp` is either NumPy itself or a
`TracingNumPy` whose functions are ember's numpy_api handlers, and whose array arguments are
`Traced` wrappers of graph values (operators, methods, attributes and indexing go through the
handlers too). `check` runs both, runs the graph with the eager backend and compares results
with NumPy's: type (array, NumPy scalar, Python scalar), dtype, shape and values bit for bit,
or the exception type and message where NumPy raises.
"""

from __future__ import annotations

import types
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from ember import numpy_api as api
from ember.backends import eager
from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.dtypes import SUPPORTED

# Errors NumPy raises from array values, which tracing cannot see before a later shape error.
DATA_DEPENDENT_ERRORS = {"Integers to negative integer powers are not allowed."}


def unwrap(x: Any) -> Any:
    if isinstance(x, Traced):
        return x.value
    if isinstance(x, list):
        return [unwrap(v) for v in x]
    if isinstance(x, tuple):
        return tuple(unwrap(v) for v in x)
    return x


def wrap(x: Any) -> Any:
    if isinstance(x, Value):
        return Traced(x)
    if isinstance(x, tuple):
        return tuple(wrap(v) for v in x)
    if isinstance(x, list):
        return [wrap(v) for v in x]
    return x


def _binary(op: str, reflected: bool = False) -> Callable[..., Any]:
    def method(self: Traced, other: Any) -> Any:
        a, b = (other, self) if reflected else (self, other)
        g = self.value.graph
        if op in api.elementwise.COMPARE_OPERATORS:
            return wrap(api.compare_op(g, op, unwrap(a), unwrap(b)))
        return wrap(api.binary_op(g, op, unwrap(a), unwrap(b)))

    return method


def _unary(op: str) -> Callable[..., Any]:
    def method(self: Traced) -> Any:
        return wrap(api.unary_op(self.value.graph, op, self.value))

    return method


class Traced:
    """An array argument during tracing: every operation becomes numpy_api calls."""

    # NumPy scalars on the left of an operator defer to the reflected method, as for arrays.
    __array_ufunc__ = None

    def __init__(self, value: Value) -> None:
        self.value = value

    def __getattr__(self, name: str) -> Any:
        handler = api.lookup_method(name)
        if handler is not None:
            def bound(*args: Any, **kwargs: Any) -> Any:
                kw = {k: unwrap(v) for k, v in kwargs.items()}
                return wrap(handler(self.value.graph, self.value, *unwrap(args), **kw))

            return bound
        return wrap(api.get_attribute(self.value, name))

    def __getitem__(self, index: Any) -> Any:
        return wrap(api.getitem(self.value.graph, self.value, unwrap(index)))

    def __bool__(self) -> bool:
        raise Unsupported("bool() of a traced array")

    __add__, __radd__ = _binary("+"), _binary("+", True)
    __sub__, __rsub__ = _binary("-"), _binary("-", True)
    __mul__, __rmul__ = _binary("*"), _binary("*", True)
    __truediv__, __rtruediv__ = _binary("/"), _binary("/", True)
    __floordiv__, __rfloordiv__ = _binary("//"), _binary("//", True)
    __mod__, __rmod__ = _binary("%"), _binary("%", True)
    __pow__, __rpow__ = _binary("**"), _binary("**", True)
    __matmul__, __rmatmul__ = _binary("@"), _binary("@", True)
    __and__, __rand__ = _binary("&"), _binary("&", True)
    __or__, __ror__ = _binary("|"), _binary("|", True)
    __xor__, __rxor__ = _binary("^"), _binary("^", True)
    __lshift__, __rlshift__ = _binary("<<"), _binary("<<", True)
    __rshift__, __rrshift__ = _binary(">>"), _binary(">>", True)
    __lt__, __le__, __gt__, __ge__ = _binary("<"), _binary("<="), _binary(">"), _binary(">=")
    __eq__, __ne__ = _binary("=="), _binary("!=")  # type: ignore[assignment]
    __neg__, __pos__, __invert__, __abs__ = _unary("-"), _unary("+"), _unary("~"), _unary("abs")
    __hash__ = None  # type: ignore[assignment]


class TracingNumPy:
    """`np` during tracing: `xp.sum(...)` calls the numpy_api handler for `np.sum`."""

    def __init__(self, graph: Graph, namespace: Any = np) -> None:
        self.graph = graph
        self.namespace = namespace

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self.namespace, name)
        if isinstance(fn, types.ModuleType):  # np.linalg
            return TracingNumPy(self.graph, fn)
        handler = api.lookup_function(fn)
        if handler is None:
            if isinstance(fn, (type, np.dtype)) or not callable(fn):
                return fn
            raise Unsupported(f"np.{name} has no handler")

        def call(*args: Any, **kwargs: Any) -> Any:
            kw = {k: unwrap(v) for k, v in kwargs.items()}
            return wrap(handler(self.graph, *unwrap(args), **kw))

        return call


def _quiet(fn: Callable[..., Any], *args: Any) -> Any:
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


def symbolic_shape(shape: tuple[int, ...], symbols: dict[int, str]) -> tuple[int | str, ...]:
    """Sizes 0 and 1 stay static; each other size becomes one symbol (as dynamic capture
    does), so equal sizes share a symbol."""
    return tuple(d if d < 2 else symbols.setdefault(d, f"s{len(symbols)}") for d in shape)


def trace(prog: Callable[..., Any], args: tuple[Any, ...], weak_inputs: bool = False,
          symbols: dict[int, str] | None = None) -> tuple[Graph, Any, list[Any]]:
    """Trace `prog` over `args`: arrays and NumPy scalars become graph inputs, Python scalars
    stay constants (or weak inputs with `weak_inputs`); with `symbols`, array dims become
    symbolic. Returns the graph, the traced result and the runtime arguments of the inputs."""
    g = Graph(getattr(prog, "__name__", "prog"))
    traced: list[Any] = []
    runtime: list[Any] = []
    for a in args:
        if isinstance(a, np.ndarray):
            shape = a.shape if symbols is None else symbolic_shape(a.shape, symbols)
            traced.append(Traced(g.add_input(a.dtype, shape)))
        elif isinstance(a, np.generic):
            traced.append(Traced(g.add_input(a.dtype, (), scalar=True)))
        elif weak_inputs and isinstance(a, (bool, int, float)):
            traced.append(Traced(g.add_input(type(a), (), weak=True)))
        else:
            traced.append(a)
            continue
        runtime.append(a)
    result = prog(TracingNumPy(g), *traced)
    return g, result, runtime


def assert_same(got: Any, expected: Any, where: str = "") -> None:
    assert type(got) is type(expected), f"{where}: type {type(got)} != {type(expected)}"
    if isinstance(expected, (np.ndarray, np.generic)):
        assert got.dtype == expected.dtype, f"{where}: dtype {got.dtype} != {expected.dtype}"
        assert got.shape == expected.shape, f"{where}: shape {got.shape} != {expected.shape}"
    np.testing.assert_array_equal(got, expected, err_msg=where, strict=True)


def check(prog: Callable[..., Any], *args: Any, weak_inputs: bool = False,
          allow_unsupported: bool = False, dynamic: bool = False) -> Graph | None:
    """Run `prog` with NumPy and traced + eager; assert they agree (see the module doc).
    With `allow_unsupported`, tracing may refuse (a graph break: NumPy would then run it);
    with `dynamic`, array dims of 2 and more are symbolic. NumPy math on constants alone
    that sets a floating-point flag (`np.log(0.0)`) is always refused: NumPy warns on every
    call, so capture breaks the graph there rather than fold a constant."""
    try:
        return _check(prog, *args, weak_inputs=weak_inputs, allow_unsupported=allow_unsupported,
                      dynamic=dynamic)
    except Unsupported as exc:
        if "of constants sets a floating-point flag" not in str(exc):
            raise
        return None


def _check(prog: Callable[..., Any], *args: Any, weak_inputs: bool = False,
           allow_unsupported: bool = False, dynamic: bool = False) -> Graph | None:
    if allow_unsupported:
        try:
            return _check(prog, *args, weak_inputs=weak_inputs, dynamic=dynamic)
        except Unsupported:
            return None
    symbols: dict[int, str] | None = {} if dynamic else None
    try:
        expected = _quiet(prog, np, *args)
    except Exception as exc:  # noqa: BLE001 -- NumPy raises: tracing must raise the same
        try:
            g, result, runtime = _quiet(trace, prog, args, weak_inputs, symbols)
            outs = result if isinstance(result, tuple) else (result,)
            g.set_outputs([t.value for t in outs if isinstance(t, Traced)])
            _quiet(eager.compile(g, runtime), *runtime)
        except Exception as got:
            if isinstance(got, Unsupported) and not isinstance(exc, Unsupported):
                raise  # a refusal, not a wrong answer: allow_unsupported decides
            if str(exc) in DATA_DEPENDENT_ERRORS and str(got) != str(exc):
                # NumPy met bad data before the error tracing found later in the program;
                # ember would break the graph at that error and NumPy would raise its own.
                return None
            assert type(got) is type(exc), f"raised {got!r} where NumPy raises {exc!r}"
            assert str(got) == str(exc)
        else:
            raise AssertionError(f"NumPy raises {exc!r}, the traced program does not")
        return None
    expects = expected if isinstance(expected, tuple) else (expected,)
    if any(isinstance(e, (np.ndarray, np.generic)) and e.dtype not in SUPPORTED
           for e in expects):
        try:
            _, folded, _ = _quiet(trace, prog, args, weak_inputs, symbols)
        except Unsupported as exc:
            if "which ember does not support" not in str(exc):
                raise
        else:  # computed at trace time from Python scalars: NumPy's own result
            assert_same(folded, expected)
        return None
    g, result, runtime = _quiet(trace, prog, args, weak_inputs, symbols)
    results = result if isinstance(result, tuple) else (result,)
    assert len(results) == len(expects)
    values = [r.value for r in results if isinstance(r, Traced)]
    for r, e in zip(results, expects, strict=True):
        if isinstance(r, Traced):  # inference must agree with NumPy before anything runs
            assert r.value.dtype == np.asarray(e).dtype, f"inferred {r.value} for {e.dtype}"
            sizes = {sym: size for size, sym in (symbols or {}).items()}
            shape = tuple(eager._bound(d, sizes) for d in r.value.shape)  # `2*s0` too
            assert shape == np.shape(e), f"inferred {r.value} for shape {np.shape(e)}"
    g.set_outputs(values)
    g.to_ir()
    outputs = iter(eager.as_python_results(values, _quiet(eager.compile(g, runtime), *runtime)))
    for i, (r, e) in enumerate(zip(results, expects, strict=True)):
        assert_same(next(outputs) if isinstance(r, Traced) else r, e, f"result {i}")
    return g


# ---- the harness itself must catch disagreements --------------------------------------------


def test_harness_agrees_with_numpy_on_a_small_program() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    g = check(lambda xp, x: (xp.sum(x * 2, axis=0), x.T, x[1, 2], x.shape), x)
    assert g is not None and len(g.nodes) >= 4


def test_harness_notices_a_wrong_dtype() -> None:
    with pytest.raises(AssertionError):
        assert_same(np.float32(1), np.float64(1))
    with pytest.raises(AssertionError):
        assert_same(np.zeros(2), np.zeros(3))
    with pytest.raises(AssertionError):
        assert_same(np.zeros(()), np.float64(0))
    with pytest.raises(AssertionError):
        assert_same(np.array([1.0, np.nan]), np.array([1.0, 2.0]))


def test_harness_compares_exceptions() -> None:
    x = np.zeros((2, 3))
    check(lambda xp, x: x.reshape(4, 2), x)
    with pytest.raises(AssertionError):
        check(lambda xp, x: x.reshape(4, 2) if xp is np else x.reshape(3, 2), x)
