"""The converter: capture one frame (function + argument slots) into a guarded entry."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import FunctionType
from typing import Any

import numpy as np

from ember import logging as ember_logging
from ember import stats
from ember.capture.breaks import WHOLE_FRAME_KINDS, graph_break
from ember.capture.bytecode import argument_names, decode, is_generator_like
from ember.capture.codegen import EntryCodegen, StepTail, make_fallback
from ember.capture.interpreter import FrameState, Interpreter, StopCapture, annotate
from ember.capture.loops.frame_branches import BranchRefused
from ember.capture.loops.inputs import InputInLoop, preload
from ember.capture.variables.draws import DrawInLoop
from ember.capture.loops import sizes as loop_sizes
from ember.capture.loops.region import LoopRefused, LoopTooLong
from ember.capture.loops.sizes import SizeInLoop
from ember.capture.resume import (
    frame_cell_name,
    live_locals_at,
    make_step,
    reexecute_offset,
    resume_origin,
    stack_argname,
)
from ember.capture.sources import ClosureSource, LocalSource, Source
from ember.capture.tracer import Tracer
from ember.capture.variables.base import NULL, CellVariable, VariableTracker
from ember.errors import RegionsRejected, Unsupported
from ember.graph import OPS, Graph, Value
from ember.numpy_api.scalars import numbers_in_graph


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
    # Captured with symbolic sizes, or static only because this call's sizes are below what
    # the graph's slices of a symbol need (`Graph.require_size`): later calls try symbols again.
    dynamic: bool = False
    # The graph break the entry steps over in Python (None: the whole frame was captured).
    refusal: Unsupported | None = None
    # The shapes of the graph's example inputs (a graph with symbolic dims plans for them).
    example_shapes: list[tuple[int, ...]] = field(default_factory=list)


def disable_hook(token: int) -> int:
    from ember import _core

    return _core.enable(token)


@dataclass
class LoopChoices:
    """What capturing a frame learned about its loops and branches (keyed by code and
    offset): loops refused as loop ops (True: a carried array changes shape), short loops
    past the unrolling budget, and how each branch of the frame is captured. A capture of
    the same frame with the same settings (the one that stops before a graph break) starts
    from them rather than learning each again, a whole trace at a time. `preloads`: the
    arrays loop bodies read from globals or attributes, read when the function starts
    (capture/loops/inputs.py)."""

    unrolled: dict[tuple[Any, int], bool] = field(default_factory=dict)
    long: set[tuple[Any, int]] = field(default_factory=set)
    branch_modes: dict[tuple[Any, int], str] = field(default_factory=dict)
    preloads: dict[Source, Any] = field(default_factory=dict)
    sizes: set[str] = field(default_factory=set)
    # The int arguments given as sizes in earlier attempts (`Tracer.int_symbol`), by symbol.
    int_symbols: dict[str, Source] = field(default_factory=dict)
    draw_loops: dict[tuple[Any, int], Any] = field(default_factory=dict)
    # Int arguments whose symbol is an array dim's (`Tracer.tied_sizes`).
    tied_ints: set[Source] = field(default_factory=set)
    tied_views: dict[int, Any] = field(default_factory=dict)


class TieSizes(Exception):
    """Capture again with these int arguments' symbols tied to the array dims of their
    size, and these views' sliced axes to the dims they met (`Tracer.tied_sizes`)."""

    def __init__(self, ints: set[Source], views: dict[int, Any]) -> None:
        super().__init__(f"tie {sorted(s.name() for s in ints)} and views {views} to sizes")
        self.ints, self.views = ints, views


def capture_frame(func: FunctionType, args: tuple[Any, ...], *, dynamic: bool | None = None,
                  stop_at: tuple[int, int] | None = None, scalars: bool | None = False,
                  loop_ops: bool = True, choices: LoopChoices | None = None
                  ) -> tuple[Tracer, VariableTracker | None, FrameState | None]:
    """`_capture_once`, again without the loop op for each loop that refuses to be one
    (capture/loops/region.py); `loop_ops`: whether the backend runs loop ops; `choices`:
    what an earlier capture with the same settings learned, added to by this one."""
    choices = choices or LoopChoices()
    unrolled, long, branch_modes = choices.unrolled, choices.long, choices.branch_modes
    preloads = choices.preloads
    while True:
        try:
            return _capture_once(func, args, dynamic, stop_at, scalars, loop_ops, unrolled,
                                 long, branch_modes, preloads, choices.sizes,
                                 choices.int_symbols, choices.draw_loops, choices.tied_ints,
                                 choices.tied_views)
        except InputInLoop as first_read:
            preloads[first_read.source] = first_read.value
        except DrawInLoop as drawn:
            choices.draw_loops[drawn.key] = drawn.plan
        except TieSizes as tie:
            choices.tied_ints |= tie.ints
            choices.tied_views.update(tie.views)
        except SizeInLoop as first_needed:
            choices.sizes.add(first_needed.symbol)
            choices.int_symbols.update(first_needed.int_symbols)
        except BranchRefused as refused:
            ember_logging.log("breaks", f"{func.__code__.co_qualname}: the branch at offset "
                                        f"{refused.key[1]} is captured as '{refused.mode}' "
                                        f"({refused.reason})")
            branch_modes[refused.key] = refused.mode
        except LoopTooLong as too_long:
            long.add(too_long.key)
        except LoopRefused as refused:
            ember_logging.log("breaks", f"{func.__code__.co_qualname}: the loop at offset "
                                        f"{refused.key[1]} is not one loop op "
                                        f"({refused.reason})")
            unrolled[refused.key] = refused.reshaping


def _capture_once(func: FunctionType, args: tuple[Any, ...], dynamic: bool | None,
                  stop_at: tuple[int, int] | None, scalars: bool | None, loop_ops: bool,
                  unrolled: dict[tuple[Any, int], bool], long: set[tuple[Any, int]],
                  branch_modes: dict[tuple[Any, int], str], preloads: dict[Source, Any],
                  sizes: set[str] = frozenset(),  # type: ignore[assignment]
                  int_symbols: dict[str, Source] | None = None,
                  draw_loops: dict[tuple[Any, int], Any] | None = None,
                  tied_ints: set[Source] = frozenset(),  # type: ignore[assignment]
                  tied_views: dict[int, Any] | None = None,
                  ) -> tuple[Tracer, VariableTracker | None, FrameState | None]:
    """Run the frame's bytecode symbolically: the tracer, and the return tracker or, when
    `stop_at` (instruction index, visit) is reached, the frame's state there.

    A resume function's frame is run as its original code from the offset it resumes at,
    with its arguments as the stack and the live locals (so offsets, breaks and resume
    functions are always the original's). `dynamic`: symbolic sizes. `scalars`: Python ints
    and floats read from the frame are run-time values rather than constants; None: so for
    a resume function that continues inside a loop (they change on every trip round it,
    and its loop's iterator is taken as it is), and as `dynamic` otherwise."""
    code = func.__code__
    origin = resume_origin(code)
    if origin is None and is_generator_like(code):
        raise graph_break("generator", name=code.co_qualname)
    if scalars is None:
        scalars = bool(dynamic) or (origin is not None and origin.in_loop)
    tracer = Tracer(func, dynamic=dynamic, scalars=scalars)
    tracer.loop_resume = origin is not None and origin.in_loop
    tracer.loop_ops = tracer.graph.loop_ops = loop_ops
    tracer.unrolled_loops = unrolled
    tracer.long_loops = long
    tracer.branch_modes = branch_modes
    tracer.tied_ints = set(tied_ints)
    tracer.tied_views = dict(tied_views or {})
    tracer.draw_loops = {} if draw_loops is None else draw_loops
    slots = {
        name: tracer.wrap(args[i], LocalSource(name, i))
        for i, name in enumerate(argument_names(code))
    }
    cells: dict[str, CellVariable] = {}
    for i, free in enumerate(code.co_freevars):
        name = frame_cell_name(free)
        cell = func.__closure__[i]
        try:
            contents = cell.cell_contents
        except ValueError:
            contents = None
        cells[name] = tracer.cell_for(cell, ClosureSource(name, i, contents), name)
    preload(tracer, preloads)
    for symbol, source in (int_symbols or {}).items():
        slot = slots.get(source.local)  # type: ignore[attr-defined]
        if symbol in sizes and slot is not None and slot.source == source:
            tracer.named_int_symbols[source] = symbol
            tracer.int_symbol(slot)
    if origin is None:
        root = Interpreter(tracer, code, slots, cells, func.__globals__, None)
    else:
        target = origin.code
        if target is None:  # the function it resumes is gone: run it as plain Python
            raise graph_break("bytecode", opname=f"a resume of a freed {code.co_qualname}")
        root = Interpreter(tracer, target, {n: slots[n] for n in origin.live_locals}, cells,
                           func.__globals__, None)
        root.stack = [NULL if s in origin.null_slots else slots[stack_argname(target, s)]
                      for s in range(origin.stack_depth)]
        root.ip = next(i.index for i in root.instructions if i.offset == origin.offset)
    loop_sizes.preload(root, set(sizes))
    root.stop_at = stop_at
    try:
        result = root.run()
    except StopCapture as stop:
        return tracer, None, stop.state
    except SizeInLoop as first_needed:
        first_needed.int_symbols = {s: v.source for s, v in tracer.int_symbols.items()}
        raise
    except Unsupported as exc:
        ints, views = tracer.tied_sizes(exc)
        if ints or (views and not views.keys() <= tracer.tied_views.keys()):
            raise TieSizes(ints, views) from exc
        annotate(exc, root.code.co_filename, root.lineno)
        exc.symbolic_sizes_read = tracer.symbolic_sizes_read
        raise
    finally:
        stats.count("capture_attempts")
        stats.count("traced_ops", tracer.graph.nodes_made)
    return tracer, result, None


def _symbolic(exc: Unsupported) -> bool:
    """Whether a refusal comes from symbolic sizes (or came after one was read as a Python
    int, which static shapes make a constant)."""
    return (exc.kind == "dynamic_shape" or "symbolic" in exc.reason
            or getattr(exc, "symbolic_sizes_read", False))


def _where(exc: Unsupported) -> tuple[int, int] | None:
    """Where in the captured frame a refusal happened (offset, visit)."""
    states = getattr(exc, "frame_states", None)
    return (states[-1].offset, states[-1].visits) if states else None


def _capture(func: FunctionType, args: tuple[Any, ...], dynamic: bool | None,
             allow_breaks: bool, scalars: bool | None = False, loop_ops: bool = True
             ) -> tuple[Tracer, VariableTracker | None, FrameState | None, Unsupported | None]:
    """Capture the frame whole, or up to the instruction that breaks the graph: then the
    second tracer holds just what comes before it, and the state there (a second capture
    that stops before that instruction, so nothing an inlined call did before refusing
    leaks into the graph, the guards or the state)."""
    choices = LoopChoices()
    try:
        tracer, result, _ = capture_frame(func, args, dynamic=dynamic, scalars=scalars,
                                          loop_ops=loop_ops, choices=choices)
        return tracer, result, None, None
    except Unsupported as exc:
        if exc.kind in WHOLE_FRAME_KINDS:
            if dynamic or scalars:
                # Symbolic sizes or run-time scalars can make a loop refuse to be one loop op
                # (its body indexes an array of symbolic shape, reads a float computed at run
                # time) where constants would not: the frame is captured with them static
                # rather than run as plain Python.
                ember_logging.log("recompiles", f"{func.__code__.co_qualname}: capture with "
                                                f"run-time sizes or scalars refused "
                                                f"({exc.reason}); capturing them static")
                return _capture(func, args, False, allow_breaks, False, loop_ops)
            raise
        # Under automatic shapes (None) only arrays marked dynamic carry symbols.
        symbolic = dynamic or (dynamic is None and _symbolic(exc))
        if symbolic and exc.kind != "user_error" and (_symbolic(exc) or not allow_breaks):
            # Something needs a static size (a shape read in Python, an op ember compiles for
            # static shapes only): static capture may get further. A break on a Python scalar
            # passed in stays dynamic: one more break beats a recompile on every new value.
            ember_logging.log("recompiles", f"{func.__code__.co_qualname}: symbolic capture "
                                            f"stopped ({exc.reason}); capturing static shapes")
            try:
                static = _capture(func, args, False, allow_breaks, scalars, loop_ops)
            except Unsupported:
                if not allow_breaks:
                    raise
            else:
                if static[3] is None or _where(static[3]) != _where(exc):
                    static[0].symbolic_later = getattr(exc, "below_minimum", False)
                    return static
        if not allow_breaks:
            raise
        tracer, _, state = capture_frame(func, args, dynamic=dynamic, stop_at=_stop_point(exc),
                                         scalars=scalars, loop_ops=loop_ops, choices=choices)
        if state is None:
            raise exc from None
        return tracer, None, state, exc


def _stop_point(exc: Unsupported) -> tuple[int, int]:
    """Where the frame must stop so that a step can run the refused instruction: the start of
    the instruction (a call's `[KW_NAMES] PRECALL`) in the captured frame, and which visit."""
    states = getattr(exc, "frame_states", None)
    if not states:
        raise exc
    root = states[-1]
    start = reexecute_offset(root.code, root.offset)
    index = next(i.index for i in decode(root.code) if i.offset == start)
    return index, root.visits


def _step_tail(codegen: EntryCodegen, state: FrameState, func: FunctionType) -> StepTail:
    """The entry's end at a graph break: the step of the refused instruction, with the live
    stack, locals and cells rebuilt."""
    from ember import _core

    code = state.code
    live = [name for name in live_locals_at(code, state.offset) if name in state.locals]
    step = make_step(code, state.offset, len(state.stack), live, null_slots=state.null_slots)
    _core.mark_skip(step)
    values = {stack_argname(code, slot): codegen.expr(vt)
              for slot, vt in enumerate(state.stack) if vt is not NULL}
    values.update((name, codegen.expr(state.locals[name])) for name in live)
    args = [values[name] for name in step.co_varnames[: step.co_argcount]]
    names = list(code.co_freevars) + list(code.co_cellvars)
    closure = None
    if names:
        cells = [codegen.expr(state.cells.get(name) or CellVariable(None, None, name))
                 for name in names]
        closure = "(" + "".join(f"{c}, " for c in cells) + ")"
    return StepTail(step, args, closure, trampoline=resume_origin(func.__code__) is None)


def unused_results(graph: Graph, outputs: list[Value]) -> list[Value]:
    """Results the program computes and never uses (`np.log(x)` as a statement, a temporary
    left unread, a loop updating an array never read, the part of an array an assignment
    overwrites), or uses only in empty
    results (`zero_rows + np.sqrt(c)`: a fused kernel over no elements computes nothing).
    NumPy still computes them, and their floating-point warnings and errors are part of the
    program's behaviour, so the graph keeps them as extra outputs, after those the entry
    reads, instead of letting dead-code elimination drop them."""
    live = {id(v) for v in outputs}
    for node in reversed(graph.nodes):
        if any(id(v) in live for v in (node.out, *node.extra)):
            live.update(id(v) for v in node.inputs)
    # A loop or `if` op whose results are all unused still runs in NumPy: its body's
    # warnings and errors too.
    producers = {id(node.out): node for node in graph.nodes}
    unused = [node.out for node in graph.nodes
              if not any(id(v) in live for v in (node.out, *node.extra))
              and (OPS[node.op].kind in ("elementwise", "reduction", "region")
                   or _may_raise_index_error(node, producers))]
    for extra in (cancelled_casts(graph), read_only_by_empty_results(graph)):
        kept = {id(v) for v in (*outputs, *unused)}
        unused += [v for v in extra if id(v) not in kept]
    # The regions of computed arrays an assignment overwrote (`Graph.overwritten`).
    return unused + [v for v in graph.overwritten if id(v) not in live]


def _may_raise_index_error(node: Any, producers: dict[int, Any]) -> bool:
    """An element read or write (`x[i]`, `seen[k] = j` of an array never read again) or a
    gather or scatter whose index may lie outside the array: NumPy raises IndexError there,
    so the op is kept though its result is unused. A constant index within a static size
    cannot raise."""
    if node.op in ("gather", "scatter_add"):
        return True
    if node.op not in ("load", "store"):
        return False
    array = node.inputs[0]
    made = producers.get(id(array))
    if node.op == "load" and made is not None and made.op in ("full", "arange", "eye"):
        # A read of a constant array capture made: a run-time check of its own
        # (`numpy_api.convert.rerun_unless`), which the core keeps as it may raise.
        return False
    indices = node.inputs[1:] if node.op == "load" else node.inputs[2:]
    for axis, index in enumerate(indices):
        made = producers.get(id(index))
        size = array.shape[axis] if axis < array.ndim else None
        if made is None or made.op != "const" or not isinstance(size, int):
            return True
        k = made.attrs.get("value")
        if not isinstance(k, int) or not -size <= k < size:
            return True
    return False


def read_only_by_empty_results(graph: Graph) -> list[Value]:
    """Computed arrays with elements whose every reader has none (zero-size dims are always
    static): fused into those readers, they would never be computed."""
    if not any(0 in node.out.shape for node in graph.nodes):
        return []  # no empty result, no reader that has none
    readers: dict[int, list[Value]] = {}
    for node in graph.nodes:
        for v in node.inputs:
            readers.setdefault(id(v), []).append(node.out)
    return [node.out for node in graph.nodes
            if OPS[node.op].kind in ("elementwise", "reduction") and 0 not in node.out.shape
            and readers.get(id(node.out))
            and all(0 in r.shape for r in readers[id(node.out)])]


# Integer ops whose result code generation knows without their operands: both operands the
# same (`t - t`, `t ^ t`, `t == t`), one of them zero (`t * 0`, `t & 0`), a divisor of 1 or -1
# (`t % 1`); and ops that give their operand back (`np.maximum(t, t)`, `t << 0`, `t + 0`).
_SAME_OPERANDS_CANCEL = frozenset({"sub", "bitwise_xor", "logical_xor", "eq", "ne", "lt", "le",
                                   "gt", "ge"})
_ZERO_CANCELS = frozenset({"mul", "bitwise_and", "logical_and"})
_SAME_OPERANDS_PASS = frozenset({"maximum", "minimum", "fmax", "fmin", "bitwise_and",
                                 "bitwise_or", "logical_and", "logical_or"})
_IDENTITY_OPERAND = {"left_shift": 0, "right_shift": 0, "add": 0, "sub": 0, "mul": 1,
                     "floordiv": 1}


def cancelled_casts(graph: Graph) -> list[Value]:
    """Float-to-integer casts (which raise invalid for NaN and out-of-range values: NumPy's
    "invalid value encountered in cast") that code generation folds away with an integer op
    downstream whose result does not depend on them: Cranelift merges equal expressions and
    folds `t - t`, `t * 0`, `t % 1`, `np.maximum(t, t) - t`, `np.where(t > 0, 1, 1)` to
    constants, and the cast's flag goes with it. Such casts are kept as extra outputs.
    Values are compared as Cranelift's value numbering sees them: equal ops of equal
    operands are one value."""
    if not any(_float_to_int(node) for node in graph.nodes):
        return []  # nothing to fold away (most graphs): no value keys to build
    producers = {id(node.out): node for node in graph.nodes}
    keys: dict[int, Any] = {}
    casts: dict[int, list[Value]] = {}  # id(value) -> the float-to-int casts it depends on
    found: list[Value] = []

    def key(v: Value) -> Any:
        return keys.get(id(v), ("value", id(v)))

    def const(v: Value) -> Any:
        node = producers.get(id(v))
        return node.attrs.get("value") if node is not None and node.op == "const" else None

    for node in graph.nodes:
        ins = node.inputs
        upstream = [c for v in ins for c in casts.get(id(v), ())]
        if _float_to_int(node):
            upstream.append(node.out)
        if upstream:
            casts[id(node.out)] = upstream
        keys[id(node.out)] = _value_key(node, key, const)
        if node.op == "where" and key(ins[1]) == key(ins[2]):
            found += casts.get(id(ins[0]), [])
        if len(ins) != 2 or ins[0].dtype.kind not in "biu":
            continue
        a, b = ins
        if (node.op in _SAME_OPERANDS_CANCEL and key(a) == key(b)) \
                or (node.op in _ZERO_CANCELS and 0 in (const(a), const(b))) \
                or (node.op == "mod" and const(b) in (1, -1)):
            found += [c for v in ins for c in casts.get(id(v), ())]
    return list({id(v): v for v in found}.values())


def _float_to_int(node: Any) -> bool:
    return node.op == "astype" and node.inputs[0].dtype.kind == "f" and (
        node.out.dtype.kind in "iu")


def _value_key(node: Any, key: Callable[[Value], Any], const: Callable[[Value], Any]) -> Any:
    """`node`'s result as value numbering names it: its operand's where it gives that back."""
    ins = node.inputs
    if node.op == "const":
        return ("const", node.attrs.get("value"), node.out.dtype)
    if len(ins) == 2 and ins[0].dtype.kind in "biu" and ins[0].dtype == node.out.dtype:
        if node.op in _SAME_OPERANDS_PASS and key(ins[0]) == key(ins[1]):
            return key(ins[0])
        if node.op in _IDENTITY_OPERAND and const(ins[1]) == _IDENTITY_OPERAND[node.op] \
                and ins[0].shape == node.out.shape:
            return key(ins[0])
    attrs = tuple(sorted((k, repr(v)) for k, v in node.attrs.items()))
    return (node.op, attrs, node.out.dtype, tuple(key(v) for v in ins))


def convert(func: FunctionType, args: tuple[Any, ...], *, backend: Any = None,
            dynamic: bool | None = None, options: dict[str, Any] | None = None,
            allow_breaks: bool = False, scalars: bool | None = False,
            loop_ops: bool | None = None) -> Capture:
    """Capture `func` called with the argument slots `args` and compile its graph with
    `backend(graph, example_inputs, **options)`. On a graph break: with `allow_breaks` the
    entry runs the graph up to it and steps over the refused instruction in Python (the
    break is `Capture.refusal`); otherwise, or where no step can be made, `Unsupported`
    is raised with the user's location. `dynamic`, `scalars`: see `capture_frame`.
    `loop_ops`: whether loops may become loop ops (None: where the backend runs them); a
    backend that cannot run a graph's loop ops raises `RegionsRejected`, and the frame is
    captured again without them."""
    from ember.backends import lookup_backend, runs_loop_ops

    compile_graph = lookup_backend(backend if backend is not None else "eager")
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    with stats.stage("capture"):
        if loop_ops is None:
            loop_ops = runs_loop_ops(backend)
        token = numbers_in_graph.set(not getattr(backend, "differentiates", False))
        try:
            tracer, result, state, refusal = _capture(func, args, dynamic, allow_breaks,
                                                      scalars, loop_ops)
        finally:
            numbers_in_graph.reset(token)
    seconds["capture"] = time.perf_counter() - start

    codegen = EntryCodegen(tracer)
    tail: str | StepTail
    try:
        tail = codegen.expr(result) if state is None else _step_tail(codegen, state, func)
    except Unsupported as exc:
        if refusal is None:
            raise
        # The break stands: report the refused instruction, not why no step could be made.
        refusal.hint = f"{refusal.hint} (the frame runs as plain Python: {exc.reason})"
        raise refusal from exc
    outputs = codegen.outputs + unused_results(tracer.graph, codegen.outputs)
    graph: Graph | None = tracer.graph if outputs else None
    compiled = None
    if graph is not None:
        graph.set_outputs(outputs)
        graph.checks = tuple(codegen.rerun_outputs)
        graph.frame_fallback = True
        if ember_logging.enabled("graph"):
            ember_logging.log("graph", f"{func.__code__.co_qualname}:\n{graph.to_ir()}")
        start = time.perf_counter()
        try:
            with stats.stage("backend"):
                compiled = compile_graph(graph, [i.example for i in tracer.inputs],
                                         **(options or {}))
        except RegionsRejected:
            if not loop_ops:
                raise
            return convert(func, args, backend=backend, dynamic=dynamic, options=options,
                           allow_breaks=allow_breaks, scalars=scalars, loop_ops=False)
        seconds["backend"] = time.perf_counter() - start
        stats.count("compiles")
    start = time.perf_counter()
    with stats.stage("codegen"):
        fallback = make_fallback(func, disable_hook)
        entry, source = codegen.build(tail, compiled, fallback, func.__code__.co_name)
        tracer.guard_size_minimums()
        tracer.guard_int_symbols()
        guards = tracer.guards.build()
    seconds["codegen"] = time.perf_counter() - start
    guard_lines = tracer.guards.describe()
    if ember_logging.enabled("guards"):
        ember_logging.log("guards",
                          f"{func.__code__.co_qualname}:\n  " + "\n  ".join(guard_lines))
    ember_logging.log("code", source)
    op_count = len(graph.nodes) if graph is not None else 0
    return Capture(guards, entry, graph, guard_lines, source, op_count, seconds,
                   tracer.dynamic or tracer.symbolic_later, refusal,
                   [np.shape(i.example) for i in tracer.inputs])
