"""What a program does under plain NumPy and compiled, as one comparable record: its result
(repr, so dtype, shape, scalar type and values down to the last digit), the exception it
raised, the warnings it gave (category and message) and its arguments afterwards. `record`
adds what it printed, how often each warning came and which results share memory with which
arguments; `assert_scenario_as_numpy` compares whole scenarios of calls and changes between
them."""

from __future__ import annotations

import contextlib
import copy
import io
import sys
import warnings
from collections.abc import Callable
from typing import Any

import ember
import numpy as np


def outcome(fn: Callable[..., Any], args: tuple[Any, ...],
            context: Callable[[], Any] = contextlib.nullcontext) -> tuple:
    inputs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with context():
                result = repr(fn(*inputs))
        except Exception as exc:  # noqa: BLE001 -- the compiled program must raise the same
            result = f"raised {type(exc).__name__}: {exc}"
    messages = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
    return result, messages, [repr(a) for a in inputs]


def assert_behaves_as_numpy(fn: Callable[..., Any], *args: Any,
                            context: Callable[[], Any] = contextlib.nullcontext,
                            calls: int = 2, compiled_code: bool = True) -> None:
    """`fn` compiled gives NumPy's outcome on every one of `calls` calls, and, where it
    takes arrays, NumPy did not raise and `compiled_code`, ran compiled code (a graph, no
    entry fallback). `compiled_code=False` is for programs that break the graph by design
    (a `warnings` filter set inside, an empty mean that NumPy warns about)."""
    want = outcome(fn, args, context)
    ember.reset()
    compiled = ember.compile(fn)
    for call in range(calls):
        got = outcome(compiled, args, context)
        assert got == want, f"call {call}:\n  compiled {got}\n  NumPy    {want}"
    stats = ember.stats()
    takes_arrays = any(isinstance(a, np.ndarray) and a.ndim for a in args)
    if compiled_code and takes_arrays and not want[0].startswith("raised "):
        assert stats["compiles"] >= 1, stats
        assert stats["entry_fallbacks"] == 0, stats


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _flatten(v)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _flatten(v)]
    return [value]


def record(fn: Callable[..., Any], args: tuple[Any, ...],
           context: Callable[[], Any] = contextlib.nullcontext) -> tuple:
    """What running `fn(*args)` did, on copies of the (exact `np.ndarray`) array arguments:
    result or exception, printed output, each warning as often as it came, the arguments
    afterwards and, for each array result, whether it shares memory with or is each array
    argument and each array result."""
    inputs = [_fresh(a) for a in args]
    out = io.StringIO()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        stdout, sys.stdout = sys.stdout, out
        try:
            with context():
                value = fn(*inputs)
            result = repr(value)
        except Exception as exc:  # noqa: BLE001 -- the compiled program must raise the same
            value, result = None, f"raised {type(exc).__name__}: {exc}"
        finally:
            sys.stdout = stdout
    leaves = [v for v in _flatten(value) if isinstance(v, np.ndarray)]
    arrays = [a for a in inputs if isinstance(a, np.ndarray)]
    sharing = [[np.shares_memory(v, a) for a in arrays] + [v is a for a in arrays]
               + [np.shares_memory(v, w) for w in leaves] + [v is w for w in leaves]
               for v in leaves]
    warned = sorted(f"{w.category.__name__}: {w.message}" for w in caught)
    return result, out.getvalue(), warned, [_shown(a) for a in inputs], sharing


def _fresh(value: Any) -> Any:
    """A copy of an argument the program may change: an exact `np.ndarray` with its layout
    (strides, offset into its base, writeable flag), lists and dicts deeply."""
    if isinstance(value, (list, dict)):
        return copy.deepcopy(value)
    if type(value) is not np.ndarray:
        return value
    base = value
    while isinstance(base.base, np.ndarray):
        base = base.base
    if base.base is not None or base is value:  # not over a NumPy array of its own
        return value.copy(order="K")
    twin = base.copy(order="K")
    offset = value.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    fresh = np.ndarray(value.shape, value.dtype, twin, offset, value.strides)
    fresh.flags.writeable = value.flags.writeable
    return fresh


def _shown(value: Any) -> str:
    """An argument as it compares: its repr, but the type of an object whose repr is an
    address."""
    return type(value).__name__ if type(value).__repr__ is object.__repr__ else repr(value)


def assert_scenario_as_numpy(scenario: Callable[[Callable], list], *,
                             backends: tuple[str, ...] = ("cranelift", "eager"),
                             compiled_code: bool = True, falls_back: bool = False) -> None:
    """`scenario(wrap)` builds its own functions and state, wraps the function under test
    with `wrap`, calls it, changes things between calls and returns what it saw (`record`s).
    Wrapped by `ember.compile` on each backend it must see what it sees unwrapped; with
    `compiled_code`, graphs were compiled and, unless the scenario `falls_back` by design (a
    graph that raises, or arguments that overlap, leave their frame to Python), no frame
    fell back to Python at entry."""
    want = scenario(lambda fn: fn)
    for backend in backends:
        ember.reset()
        got = scenario(lambda fn, backend=backend: ember.compile(fn, backend=backend))
        for step, (g, w) in enumerate(zip(got, want, strict=True)):
            assert g == w, f"{backend}, step {step}:\n  compiled {g}\n  NumPy    {w}"
        stats = ember.stats()
        if compiled_code:
            assert stats["compiles"] >= 1, (backend, stats)
            assert falls_back or stats["entry_fallbacks"] == 0, (backend, stats)


def called_twice(fn: Callable[..., Any], args: tuple[Any, ...]) -> Callable[[Callable], list]:
    """The scenario of `fn` (wrapped) called twice on `args`: what each call saw."""
    def run(wrap: Callable) -> list:
        compiled = wrap(fn)
        return [record(compiled, args), record(compiled, args)]
    return run


def define(source: str, name: str = "f", **namespace: Any) -> Callable[..., Any]:
    """The function `name` of `source`, run in a fresh module namespace holding `np` and
    `namespace` (so each scenario gets code, globals and cells of its own)."""
    module = {"np": np, "__name__": "probe", **namespace}
    exec(compile(source, "<probe>", "exec"), module)  # noqa: S102 -- the program under test
    return module[name]


def assert_compiles_whole(fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """`fn` compiled and called twice on fresh copies of `args` runs as compiled graphs
    only: no graph break, no entry fallback, no backend fallback."""
    ember.reset()
    compiled = ember.compile(fn)
    for _ in range(2):
        compiled(*(a.copy() if isinstance(a, np.ndarray) else a for a in args))
    stats = ember.stats()
    assert stats["compiles"] >= 1 and stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["entry_fallbacks"] == 0 and not stats["backend_fallbacks"], stats
