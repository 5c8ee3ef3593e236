"""The converter: capture one frame (function + argument slots) into a guarded entry."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import FunctionType
from typing import Any

from ember import logging as ember_logging
from ember import stats
from ember.capture.breaks import graph_break
from ember.capture.bytecode import argument_names, is_generator_like
from ember.capture.codegen import EntryCodegen, make_fallback
from ember.capture.interpreter import Interpreter, annotate
from ember.capture.sources import ClosureSource, LocalSource
from ember.capture.tracer import Tracer
from ember.capture.variables.base import CellVariable
from ember.errors import Unsupported
from ember.graph import Graph


@dataclass
class Capture:
    """What converting one frame produced (kept for `explain` and the logs)."""

    guards: list
    entry: FunctionType
    graph: Graph | None  # None when the frame computed no array
    guard_lines: list[str]
    entry_source: str
    op_count: int
    seconds: dict[str, float] = field(default_factory=dict)
    dynamic: bool = False  # captured with symbolic sizes


def _disable_hook(on: bool) -> bool:
    from ember import _core

    return _core.enable(on)


def capture_frame(func: FunctionType, args: tuple[Any, ...], *,
                  dynamic: bool | None = None) -> tuple[Tracer, Any]:
    """Run the frame's bytecode symbolically; returns the tracer and the return tracker."""
    code = func.__code__
    if is_generator_like(code):
        raise graph_break("generator", name=code.co_qualname)
    tracer = Tracer(func, dynamic=dynamic)
    f_locals = {
        name: tracer.wrap(args[i], LocalSource(name, i))
        for i, name in enumerate(argument_names(code))
    }
    cells: dict[str, CellVariable] = {}
    for i, name in enumerate(code.co_freevars):
        cell = func.__closure__[i]
        try:
            contents = cell.cell_contents
        except ValueError:
            contents = None
        cv = CellVariable(None, ClosureSource(name, i, contents), name)
        cv.raw = cell  # type: ignore[attr-defined]
        cells[name] = cv
    root = Interpreter(tracer, code, f_locals, cells, func.__globals__, None)
    try:
        result = root.run()
    except Unsupported as exc:
        annotate(exc, code.co_filename, root.lineno)
        raise
    return tracer, result


def convert(func: FunctionType, args: tuple[Any, ...], *, backend: Any = None,
            dynamic: bool | None = None, options: dict[str, Any] | None = None) -> Capture:
    """Capture `func` called with the argument slots `args` and compile its graph with
    `backend(graph, example_inputs, **options)`; raises `Unsupported` with the user's
    location on a graph break."""
    from ember.backends import lookup_backend

    compile_graph = lookup_backend(backend if backend is not None else "eager")
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    with stats.stage("capture"):
        try:
            tracer, result = capture_frame(func, args, dynamic=dynamic)
        except Unsupported as exc:
            if not dynamic or exc.kind == "user_error":
                raise
            # Something needs a static size (a shape read in Python, an op ember only
            # compiles for static shapes): specialise instead.
            ember_logging.log("recompiles", f"{func.__code__.co_qualname}: symbolic capture "
                                            f"failed ({exc.reason}); capturing static shapes")
            tracer, result = capture_frame(func, args, dynamic=False)
    seconds["capture"] = time.perf_counter() - start

    codegen = EntryCodegen(tracer)
    result_expr = codegen.expr(result)
    graph: Graph | None = tracer.graph if codegen.outputs else None
    compiled = None
    if graph is not None:
        graph.set_outputs(codegen.outputs)
        if ember_logging.enabled("graph"):
            ember_logging.log("graph", f"{func.__code__.co_qualname}:\n{graph.to_ir()}")
        start = time.perf_counter()
        with stats.stage("backend"):
            compiled = compile_graph(graph, [i.example for i in tracer.inputs],
                                     **(options or {}))
        seconds["backend"] = time.perf_counter() - start
        stats.count("compiles")
    start = time.perf_counter()
    with stats.stage("codegen"):
        fallback = make_fallback(func, _disable_hook)
        entry, source = codegen.build(result_expr, compiled, fallback,
                                      func.__code__.co_name)
        guards = tracer.guards.build()
    seconds["codegen"] = time.perf_counter() - start
    guard_lines = tracer.guards.describe()
    if ember_logging.enabled("guards"):
        ember_logging.log("guards",
                          f"{func.__code__.co_qualname}:\n  " + "\n  ".join(guard_lines))
    ember_logging.log("code", source)
    op_count = len(graph.nodes) if graph is not None else 0
    return Capture(guards, entry, graph, guard_lines, source, op_count, seconds,
                   tracer.dynamic)
