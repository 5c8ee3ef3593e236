"""A `for` loop captured as one `loop` op: its body traced once, as a region.

The body's instructions run once on the interpreter with the graph swapped for a new region
whose first parameter is the loop index (`i64[] weak`, a Python int). Every array (and
run-time scalar) the frame's locals hold enters the region as a parameter; the Python
numbers the body assigns become parameters too. After the trip, a local group (the names
bound to one tracker) whose value changed is *carried*: the region returns its new value and
the op's result replaces it after the loop (in the tracker itself when the body updated it
in place, so every alias sees the change, as in NumPy). The rest are loop invariants; those
the body never read are dropped.

Anything the body does that one trace cannot stand for (a graph break, a side effect on a
list, a `break` or `return`, a value whose type changes from trip to trip twice) refuses:
the capture restarts with this loop left to the unrolling rule (`LoopRefused`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.loops import (appends, followers, inputs, intervals, lazy_reads,
                                  mixed_picks, ranges, sizes, swaps, tuples, zipped)
from ember.capture.loops.body import RERUN
from ember.capture.loops.carried import _collect, _final_value, _number_constant
from ember.capture.loops.ranges import ArrayRows, SliceItems
from ember.capture.variables import draws
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.capture.variables.scalar import PythonScalarVariable
from ember.config import config
from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.ops import OPS

if TYPE_CHECKING:
    from ember.capture.bytecode import Instruction
    from ember.capture.interpreter import Interpreter
    from ember.capture.variables.containers import IteratorVariable

# Retraces allowed when a carried value's type changes on the first trips (`s = 0.0` then
# `s += a[i]` makes a Python float a NumPy float64): each trace starts from the types every
# earlier one ended with. A delay line (`x2, x1 = x1, xn` after `x1 = x2 = 0.0`) settles one
# value a trip, so it takes a trace per value.
_RETRACES = 4
_STORE_OPS = frozenset({"STORE_FAST", "DELETE_FAST"})
CELL = ".cell#"


class LoopRefused(Exception):
    """The loop at `key` (code, offset) cannot be one loop op: capture starts again and leaves
    it to the unrolling rule."""

    def __init__(self, key: tuple[Any, int], reason: str, reshaping: bool = False) -> None:
        super().__init__(reason)
        self.key = key
        self.reason = reason
        self.reshaping = reshaping  # a carried array's shape changes on every trip


class LoopTooLong(LoopRefused):
    """A short loop unrolled past the op budget: capture starts again with it as a loop op."""


class BodyArray(ArrayVariable):
    """An array inside a loop body, standing for an array of the frame: updatable in place
    there exactly when the frame's array was."""

    def __init__(self, value: Value, mutable: bool) -> None:
        super().__init__(value)
        self.mutable = mutable
        self.param = value
        self.private = False  # whether the frame's array is private to it (`Group.private`)

    def is_fresh(self, tx: Interpreter) -> bool:
        return self.mutable and not self.viewed(tx)

    def is_mutable_input(self, tx: Interpreter) -> bool:
        return False


@dataclass
class Group:
    """Locals bound to one tracker when the loop starts (`outer`), its stand-in in the body
    (`inner`, whose value starts as `param`), and what the body left."""

    names: list[str]
    outer: VariableTracker
    initial: Value  # in the enclosing graph
    param: Value
    inner: VariableTracker
    forced: tuple[np.dtype, tuple, bool, bool] | None = None
    final: VariableTracker | None = None
    final_value: Value | None = None  # what the body returns for it, when carried
    carried: bool = False
    # An array created in the frame that nothing else views: its identity is seen by no one
    # but these locals, so the body may swap it with another such array.
    private: bool = False
    # Of a Python number the first trip makes a NumPy scalar (`forced` from a weak type): the
    # parameter that says it is still the Python number (an input only where a pick uses it).
    still_python: Value | None = None
    # Its value before the loop where that is the enclosing body's flag (not `True`).
    still_initial: Value | None = None
    # Whether the loop op carries `still_python` out (its body has picks that follow it).
    followed: bool = False


@dataclass
class Trace:
    region: Graph
    index: Value
    groups: list[Group] = field(default_factory=list)
    go: Value | None = None  # whether the trip goes on; None: always (no `break`)
    # What a `return` in the body returns (`returns.carry_return`): the frame's arrays by
    # pseudo-local, and a tuple's length.
    returned_arrays: dict[str, VariableTracker] = field(default_factory=dict)
    returned_tuple: int | None = None
    # Locals holding slices of another local's array: no parameters, but slices of its
    # stand-in (`loops/followers.py`).
    following: dict[str, Any] = field(default_factory=dict)
    returns_none: bool = False  # every `return` in the body returns None
    # Loop variables read after a loop a `break` may end: carried (`first_assigned.carry`).
    carried_targets: bool = False
    # Where the lazy expressions the body makes start (`lazy_reads.mark`).
    lazy_mark: int = field(default_factory=lazy_reads.mark)
    # The locals read after the loop (None: not known).
    after: set[str] | None = None


def _go_value(region: Graph, vt: VariableTracker) -> Value | None:
    if isinstance(vt, ConstantVariable) and vt.constant() is True:
        return None
    value = _final_value(region, vt)
    if value.dtype != np.bool_ or value.shape:
        raise graph_break("loop_body", what="a break flag that is not a bool")
    return region.op("astype", [value], dtype=np.bool_) if value.weak else value


def loop_key(tx: Interpreter, inst: Instruction) -> tuple[Any, int]:
    return (tx.code, inst.offset)


def capture_loop(tx: Interpreter, inst: Instruction, iterator: IteratorVariable,
                 bounds: tuple[Value, Value, Value] | None = None) -> bool:
    """Capture the loop `inst` (its FOR_ITER) starts as one loop op, or refuse."""
    key = loop_key(tx, inst)
    if key in tx.tracer.unrolled_loops or not tx.tracer.loop_ops:
        return False
    from ember.capture.loops.vectors import VectorVariable, materialise

    if isinstance(iterator.origin, VectorVariable):
        # A short row a body holds element by element (`[v for v in row if v > t]`): the
        # loop op iterates it as an array of the body's graph.
        iterator.origin = materialise(tx, iterator.origin)
    forced: dict[str, tuple] = {}
    lists: dict[int, appends.Appended] = {}
    try:  # the rows its body draws, drawn as it starts
        block = draws.block_for(tx, key, iterator, bounds)
    except Unsupported as exc:
        raise LoopRefused(key, exc.reason) from exc
    tx.tracer.draw_loop_stack.append((key, block))
    lazy = lazy_reads.mark()
    try:
        for settling in range(_RETRACES + 1):
            try:
                result = _trace(tx, inst, iterator, bounds, forced, settling, lists)
            except Unsupported as exc:
                raise LoopRefused(key, exc.reason, exc.kind == "carried_shape") from exc
            except TypeError as exc:
                # A value of the enclosing graph reached the body other than as a local (a
                # closure cell, an object's attribute): `Graph.op` refuses foreign operands.
                raise LoopRefused(key, str(exc)) from exc
            if result is True:
                return True
            forced = {**forced, **result}
    finally:
        tx.tracer.draw_loop_stack.pop()
        lazy_reads.unread_since(lazy)
    raise LoopRefused(key, "a carried value changes type on every trace")


def _body_range(tx: Interpreter, inst: Instruction) -> tuple[int, int]:
    from ember.capture.loops.body import loop_head

    start, exit_index = inst.index + 1, inst.target
    assert exit_index is not None

    def jumps_back(i: Instruction) -> bool:
        return i.opname == "JUMP_BACKWARD" and i.target is not None and (
            loop_head(tx, i.target) == inst.index)

    last = tx.instructions[exit_index - 1]
    # A body whose last statement is an `if`/`else` with a `return` on its `else` ends in
    # that RETURN_VALUE; the other path jumps back before it.
    if not (jumps_back(last) or (last.opname == "RETURN_VALUE" and any(
            jumps_back(i) for i in tx.instructions[start:exit_index]))):
        raise graph_break("loop_body", what="a loop whose body does not end in its jump back")
    return start, exit_index


def _cell_targets(tx: Interpreter, targets: list[str], for_index: int, exit_index: int
                  ) -> list[str]:
    """The loop targets that are cells (`for i in ...:` where a comprehension of the body
    reads `i`), bound as pseudo-locals that each trip's STORE_DEREF rebinds. Only cells of
    this frame that nothing outside the loop reads: the loop op leaves no last item bound."""
    cells = [t for t in targets if t.startswith(CELL)]
    for local in cells:
        name = local.removeprefix(CELL)
        cell = tx.cells[name]
        if hasattr(cell, "raw") or cell.contents is not None or local in tx.locals or any(
                i.argval == name and i.opname in _CELL_OPS
                for k, i in enumerate(tx.instructions) if not for_index <= k < exit_index):
            raise graph_break("loop_body", what=f"a loop target {name!r} that is a cell "
                                                "read outside the loop")
    for local in cells:
        tx.locals[local] = ConstantVariable(None)  # until the trip's STORE_DEREF
    return cells


_CELL_OPS = frozenset({"LOAD_DEREF", "LOAD_CLOSURE", "STORE_DEREF", "DELETE_DEREF",
                       "LOAD_CLASSDEREF"})


def _stored_names(tx: Interpreter, start: int, stop: int) -> set[str]:
    return {str(i.argval) for i in tx.instructions[start:stop] if i.opname in _STORE_OPS}


def _initial(tx: Interpreter, vt: VariableTracker) -> Value | None:
    """The enclosing graph's value for a local the body may read or carry."""
    if isinstance(vt, ArrayVariable):
        return vt.value
    if isinstance(vt, PythonScalarVariable):
        return vt.graph_value()
    if isinstance(vt, ConstantVariable) and _number_constant(vt.constant()):
        return tx.graph.const(vt.constant())
    return None


def _trace(tx: Interpreter, inst: Instruction, iterator: IteratorVariable,
           bounds: tuple[Value, Value, Value] | None, forced: dict[str, tuple],
           settling: int, lists: dict[int, appends.Appended]) -> bool | dict[str, tuple]:
    """Trace the body once; `settling`: how many trips the values of `forced` take to reach
    their types, trips every call must then make; `lists`: what earlier traces learned of
    the lists the body appends to (`loops/appends.py`)."""
    trips = None if bounds is not None else len(iterator.items) - iterator.index
    most = trips if bounds is None else appends.most_trips(bounds)
    found = appends.enter(tx, lists, trips, most, region := tx.graph.region("loop"),
                          _body_range(tx, inst))
    if any(t.outer is built for t in found for built in ranges.lists_iterated(iterator.origin)):
        appends.leave(tx, found)
        raise graph_break("loop_body", what="a list changed by the loop over its items")
    targets = zipped.loop_targets(tx, _body_range(tx, inst)[0]) or []
    # A tuple of numbers or a choice the body only reads is split too: its items enter the
    # body as parameters, as the enclosing graph's values cannot be read there.
    held = {name for name, vt in tx.locals.items() if (tuples.items_of(vt) is not None
            and not isinstance(vt, ConstantVariable)) or (tuples.read_list(tx, vt) and not any(
                t.outer is vt for t in found))}
    split = tuples.split(tx, (_stored_names(tx, *_body_range(tx, inst)) | held) - set(targets),
                         forced)
    try:
        with outside_as_locals(tx):
            result = _trace_with(tx, inst, iterator, bounds, forced, settling, found, region,
                                 split)
    except BaseException:
        appends.leave(tx, found)
        raise
    finally:
        appends.restore(tx, found)
        tuples.join(tx, split)
    if result is not True:
        appends.leave(tx, found)
    return result


@contextmanager
def outside_as_locals(tx: Interpreter) -> Iterator[None]:
    """While a `for` or `while` body is traced, what it reads other than through the frame's
    locals enters it as pseudo-locals: the arrays and numbers the frame's cells hold (what a
    comprehension or a lambda reads of its enclosing function: `[x[i] * 2.0 for i in
    range(n)]`), as `.cell#name`, their cells holding the body's stand-ins (`bind_cells`);
    and the arrays read from globals and attributes (`loops/inputs.py`). The body may rebind
    a cell of the frame (`simplex = simplex[order]` where a comprehension read `simplex`:
    `Interpreter.STORE_DEREF`), which rebinds its pseudo-local, carried like any local;
    after the region op the cell takes its pseudo-local's value (the loop op's result)."""
    found = {}
    read = {i.argval for i in tx.instructions[tx.ip:] if i.opname == "LOAD_DEREF"}
    for name, cell in tx.cells.items():
        if name in read and _holds_number(cell):
            # A closure's cell the code reads on: wrapped here, in the enclosing graph,
            # not on its first read in the body (whose values the loop op cannot take).
            tx.load_cell(cell)
        contents = cell.contents
        if _initial(tx, contents) is not None and not isinstance(contents, ConstantVariable):
            local = CELL + name
            found[local] = (cell, contents, local in tx.locals)
            tx.locals[local] = contents
    try:
        with inputs.inputs_as_locals(tx):
            yield
    finally:
        for local, (cell, contents, outer) in found.items():
            # The loop op's result where the body rebound the cell (STORE_DEREF) or updated
            # it in place; an enclosing body's pseudo-local stays.
            cell.contents = tx.locals.get(local, contents)
            if not outer:
                tx.locals.pop(local, None)


def _holds_number(cell: Any) -> bool:
    """A closure's cell not read yet that holds an array of numbers or a number."""
    try:
        value = cell.raw.cell_contents if cell.contents is None else None
    except (AttributeError, ValueError):  # a cell of this frame, or an empty one
        return False
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "biuf"
    return type(value) in (bool, int, float) or (
        isinstance(value, np.generic) and value.dtype.kind in "biuf")


def bind_cells(tx: Interpreter) -> None:
    """The cells of a body take the values of their pseudo-locals."""
    for name in list(tx.locals):
        if name.startswith(CELL):
            tx.cells[name.removeprefix(CELL)].contents = tx.locals[name]


def _trace_with(tx: Interpreter, inst: Instruction, iterator: IteratorVariable,
                bounds: tuple[Value, Value, Value] | None, forced: dict[str, tuple],
                settling: int, found: list[appends.Tracked], region: Graph,
                split: dict[str, tuple[int, type]]) -> bool | dict[str, tuple]:
    from ember.capture.loops import first_assigned, ranges, returns, trip_items
    from ember.capture.loops.body import GO, run_body
    from ember.capture.loops.ranges import DynamicRangeIterator, require_a_trip
    from ember.capture.resume import live_locals_at

    start, exit_index = _body_range(tx, inst)
    stored = tuples.rename(_stored_names(tx, start, exit_index), split)
    typed = ranges.start_typed_flags(tx, forced, start, exit_index)
    live = tuples.rename(live_locals_at(tx.code, inst.offset), split)
    targets = zipped.loop_targets(tx, start)
    if targets is None:
        raise graph_break("loop_body", what="a loop target that is not one local or a tuple "
                                            "of locals")
    if bounds is not None and live.intersection(targets):
        raise graph_break("loop_body", what="a loop variable read after the loop")
    after = tuples.rename(live_locals_at(tx.code, tx.instructions[exit_index].offset), split)
    unbound = first_assigned.first_assigned(tx, stored - set(targets), live)
    trace = Trace(region, region.add_input(np.int64, (), weak=True), after=set(after))
    first = tx.tracer.loop_trip_starts.get(loop_key(tx, inst))
    if first is not None:  # the trip's number, for the row of a block of draws
        tx.tracer.loop_trips[id(region)] = trace.index if first == 0 else region.op(
            "sub", [trace.index, region.const(first)])
    trace.following = followers.following(tx, start, exit_index)
    by_tracker = build_groups(tx, trace, stored - set(targets), forced)
    intervals.record_body(trace.region, trace.index, trace.groups, iterator, bounds, stored)
    item = trip_items.item(tx, iterator, trace, by_tracker)
    cell_targets = _cell_targets(tx, targets, inst.index, exit_index)
    saved_locals, saved_stack, saved_ip = dict(tx.locals), list(tx.stack), tx.ip
    for group in trace.groups:
        for name in group.names:
            tx.locals[name] = group.inner
            sizes.record(region, name, group.param)
        if not stored.intersection(group.names):
            sizes.record_invariant(region, group.outer, group.param)
    started = tuples.bind(tx, split)
    bound_views = followers.bind(tx, trace.following, trace.groups)
    tx.stack.append(item)
    appends.substitute(tx, found)
    bind_cells(tx)
    bound = inputs.bind(tx)
    tx.locals[GO] = ConstantVariable(True)
    returns.start_trip(tx)
    tx.ip = start
    try:
        with _graph_swapped(tx, region):
            run_body(tx, inst.index, start, exit_index)
        inputs.sync(tx)
        end_locals = dict(tx.locals)
        trace.go = _go_value(region, end_locals.pop(GO))
        tuples.unpack(end_locals, split, region, started)
    finally:
        inputs.restore(tx, bound)
        tx.locals.clear()
        tx.locals.update(saved_locals)
        tx.stack[:] = saved_stack
        tx.ip = saved_ip
        for name in cell_targets:
            del tx.locals[name]
            tx.cells[name.removeprefix(CELL)].contents = None

    followers.check_kept(bound_views, end_locals)
    untouched = {name for g in trace.groups if g.inner.value is g.param  # type: ignore[attr-defined]
                 for name in g.names}
    appends.check_rows(found, end_locals, live, untouched)
    if appends.learned(found):
        return {}
    counts = appends.final_counts(found, end_locals)
    optional = tuples.optional_types(tx, end_locals, stored)
    if optional:
        appends.leave(tx, found)
        return optional
    if trace.go is not None and live.intersection(targets):
        # `for it in range(maxit): ... if err < tol: break`, then `return x, it`: each trip
        # assigns the loop variable first, so it is carried out as a local first assigned
        # in the body is, holding the trip's item where the loop stopped. Numbers only: a
        # row would be a view of its array.
        read = after.intersection(targets)
        if not all(isinstance(v := end_locals.get(name), ArrayVariable) and not v.value.shape
                   for name in read):
            raise graph_break("loop_body", what="a loop variable read after a loop with a "
                                                "break")
        unbound = unbound | read
        trace.carried_targets = bool(read)
    returning = {n: end_locals.pop(n) for n in returns.PSEUDO if n in end_locals}
    retrace = _collect(trace, end_locals, stored, live, after, set(targets), unbound)
    if retrace:
        return retrace
    first_assigned.carry(tx, trace, end_locals, unbound := unbound & after)
    may_return = returns.carry_return(tx, trace, returning)
    if after & _array_targets(iterator, targets) and _writes_iterated(iterator, by_tracker):
        # Python leaves the last trip's row bound, as that trip read it: the body may have
        # written it before, and the rows are taken from the array after the loop.
        raise graph_break("loop_body", what="an item of an array the loop writes, read after "
                                            "the loop")
    # Trips every call must make: those the carried values take to reach their types, and
    # one where a local first assigned in the body is read after the loop.
    trips = max(settling, 1) if unbound else settling if forced else 0
    if trips and isinstance(iterator, DynamicRangeIterator) and iterator.origin.frame_args:
        require_a_trip(tx, iterator.origin.frame_args, trips)
    elif trips and ranges.lists_iterated(iterator.origin):
        from ember.capture.loops.frame_branches import add_check

        # Fewer items than trips to settle: the frame runs as Python, whose locals keep
        # the types they had.
        add_check(tx, tx.graph.op("lt", [iterator.origin.count, tx.graph.const(trips)]))
    elif trips and bounds is None and len(iterator.items) - iterator.index < trips:
        raise graph_break("loop_body", what="a loop of fewer trips than its carried values "
                                            "take to reach their types")
    elif unbound and bounds is not None:
        raise graph_break("loop_body", what="a local first assigned in the body of a loop "
                                            "whose trips are not counted from the frame's "
                                            "arguments, read after the loop")
    if bounds is None and fuses_unrolled(trace.region, len(iterator.items) - iterator.index):
        raise LoopRefused(loop_key(tx, inst), "a short loop of whole-array elementwise "
                                              "trips, which fuse when unrolled")
    _emit(tx, inst, iterator, trace, bounds, targets)
    if isinstance(iterator, DynamicRangeIterator) and not iterator.origin.frame_args:
        ranges.note_trips(tx, loop_key(tx, inst), forced, iterator.origin.bounds)
    ranges.check_typed_flags(tx, typed, trace)
    # A `break` or `return` may end the loop before its last trip: its lists' lengths are
    # then known only at run time.
    appends.finish(tx, found, region, counts if trace.go is None else {})
    if may_return:
        returns.after_loop(tx, trace)
    return True


def fuses_unrolled(region: Graph, trips: int) -> bool:
    """Whether a body of whole-array elementwise ops (`r = r * x + c`) is better unrolled:
    its trips then fuse into one kernel, where a loop op runs a kernel per trip. Only while
    the unrolled ops stay well within the budget (an unrolled trip may take a few more ops
    than its region, a `load` becoming a slice and a squeeze)."""
    if trips * (len(region.nodes) + 2) > config.unroll_op_budget // 2:
        return False
    if not all(node.op in ("const", "load") or OPS[node.op].kind == "elementwise"
               for node in region.nodes):
        return False
    return any(node.out.shape for node in region.nodes)


def build_groups(tx: Interpreter, trace: Trace, stored: set[str], forced: dict[str, tuple]
                 ) -> dict[int, Group]:
    """A parameter of the body for each tracker of the frame's locals holding a graph value,
    and for each Python number the body assigns (`stored`); `forced`: types from a trace
    that changed them."""
    outer_graph, region = tx.graph, trace.region
    if RERUN not in tx.locals:
        # The body's run-time checks (`frame_branches.add_check`: a Python division by zero
        # must raise) are carried out of the loop as this local: false until one fails.
        unset = ArrayVariable(outer_graph.const(False, np.bool_, weak=False))
        unset.unset_check = True  # type: ignore[attr-defined]
        tx.locals[RERUN] = unset
    by_tracker: dict[int, Group] = {}
    for name, vt in tx.locals.items():
        if name in trace.following:
            continue
        group = by_tracker.get(id(vt))
        if group is not None and not _immutable(group.initial):
            group.names.append(name)
            continue
        if isinstance(vt, ConstantVariable) and name not in stored:
            continue  # a Python constant read in the body: specialised, as everywhere
        initial = _initial(tx, vt)
        if initial is None:
            continue
        shape_of = forced.get(name)
        dtype, shape, weak, scalar = shape_of or (initial.dtype, initial.shape, initial.weak,
                                                  initial.scalar)
        from_python = initial.weak and not weak
        if shape_of is not None:
            initial = _cast(outer_graph, initial, dtype, weak, scalar)
        param = region.add_input(dtype, shape, weak=weak, scalar=scalar)
        mutable = isinstance(vt, ArrayVariable) and initial.shape != () and (
            vt.is_fresh(tx) or vt.is_mutable_input(tx))
        group = Group([name], vt, initial, param, BodyArray(param, mutable), shape_of)
        # A NumPy scalar the enclosing body may hold as a Python number (a pick there)
        # carries the pick's flag in, as one the first trip converts carries true.
        group.still_initial = (mixed_picks.flag_of(outer_graph, initial)
                               if not from_python and mixed_picks.exact(initial)
                               and not initial.shape else None)
        if from_python or group.still_initial is not None:
            group.still_python = region.add_input(np.bool_, (), weak=False)
            mixed_picks.note_param(region, param, group.still_python)
        group.private = isinstance(vt, ArrayVariable) and initial.shape != () and (
            vt.private if isinstance(vt, BodyArray) else vt.is_fresh(tx)) and (
            not swaps.held_elsewhere(tx, vt)) and not getattr(vt, "follows_base", False)
        group.inner.private = group.private  # type: ignore[attr-defined]
        by_tracker.setdefault(id(vt), group)
        trace.groups.append(group)
    return by_tracker


def _immutable(value: Value) -> bool:
    """A Python number or NumPy scalar: an object no one updates in place, so locals bound
    to one (`min_idx = i`) are separate parameters, each rebound on its own."""
    return value.weak or (value.scalar and not value.shape)


def _cast(graph: Graph, value: Value, dtype: np.dtype, weak: bool, scalar: bool) -> Value:
    if value.dtype == dtype and value.weak == weak:
        return value
    if weak:
        if not (value.weak and value.dtype.kind in "bi" and dtype.kind == "f"):
            raise graph_break("loop_body", what=f"a carried value {value.type_str} made weak")
        # `total = 0` then `total += math.sqrt(v)`: a Python int that the first trip makes a
        # float, carried as the float (a loop of no trips leaves it 0.0 rather than 0).
        return graph.op("astype", [value], dtype=dtype, weak=True)
    if not value.weak:
        # `x = np.float32(x0)` then `x = r * x * (1 - x)` with a float64 `r`: the first trip
        # computes `1 - x` in float32, which a body traced with `x` float64 would not.
        raise graph_break("loop_body", what=f"a carried {value.type_str} whose dtype changes "
                                            f"to {dtype} on the first trip")
    return graph.op("astype", [value], dtype=dtype, scalar=scalar)


class _graph_swapped:
    """Ops go to `region` while the body is traced: the tracer's graph and every running
    interpreter's."""

    def __init__(self, tx: Interpreter, region: Graph) -> None:
        self.tx, self.region = tx, region

    def __enter__(self) -> None:
        tracer = self.tx.tracer
        self.saved = tracer.graph
        tracer.graph = self.region
        for frame in tracer.frames:
            frame.graph = self.region
        self.tx.graph = self.region

    def __exit__(self, *exc: object) -> None:
        tracer = self.tx.tracer
        tracer.graph = self.saved
        for frame in tracer.frames:
            frame.graph = self.saved
        self.tx.graph = self.saved


def _iterated(iterator: IteratorVariable) -> list[Any]:
    """What the loop iterates in step: the parts of a `zip`/`enumerate`, else its origin."""
    origin = iterator.origin
    if isinstance(origin, ArrayRows):
        return origin.arrays
    if isinstance(origin, (SliceItems, zipped.NdEnumerate)):
        return [origin.array]
    return origin.parts if isinstance(origin, (zipped.Zipped, ranges.ZippedItems)) else [origin]


def _array_targets(iterator: IteratorVariable, targets: list[str]) -> set[str]:
    """The loop targets that hold an array's rows (the others hold ints)."""
    parts = _iterated(iterator)
    if len(parts) != len(targets):  # `for pair in zip(x, y)`: the tuple holds the rows
        return set(targets) if any(isinstance(p, ArrayVariable) for p in parts) else set()
    return {name for name, part in zip(targets, parts, strict=True)
            if isinstance(part, ArrayVariable)}


def _writes_iterated(iterator: IteratorVariable, by_tracker: dict[int, Group]) -> bool:
    """Whether the body writes an array the loop iterates."""
    return any(isinstance(p, ArrayVariable) and id(p) in by_tracker
               and by_tracker[id(p)].carried for p in _iterated(iterator))


def _emit(tx: Interpreter, inst: Instruction, iterator: IteratorVariable, trace: Trace,
          bounds: tuple[Value, Value, Value] | None, targets: list[str]) -> None:
    """The loop op in the enclosing graph; locals rebound to its results; the interpreter
    continues after the loop."""
    graph = tx.graph
    lo, hi, step = _static_bounds(graph, iterator) if bounds is None else bounds
    emit_loop(tx, trace, lo, hi, step)
    if bounds is None and iterator.index < len(iterator.items) and not trace.carried_targets:
        # Python leaves the last item bound (where no `break` may end the loop early).
        tree = zipped.target_tree(tx, inst.index + 1)
        assert tree is not None
        zipped.bind_targets(tx, tree[0], iterator.items[-1])
    iterator.index = len(iterator.items)
    for nested in getattr(iterator.origin, "inner", ()):  # `enumerate(zip(a, b))`'s zip
        nested.index = len(nested.items)
    tx.pop()
    tx.jump(inst)


def emit_loop(tx: Interpreter, trace: Trace, lo: Value, hi: Value, step: Value) -> None:
    """The loop op of a traced body in the enclosing graph, the frame's locals rebound to
    its results (arrays updated in place through their tracker, so aliases see it)."""
    _emit_loop(tx, trace, lo, hi, step)
    checks = tx.locals.get(RERUN)
    if checks is not None and getattr(checks, "unset_check", False):
        del tx.locals[RERUN]  # the body checked nothing: its `False` goes too
        graph = checks.value.graph  # type: ignore[attr-defined]
        if not any(v is checks.value for n in graph.nodes for v in n.inputs):  # type: ignore[attr-defined]
            graph.nodes[:] = [n for n in graph.nodes if n.out is not checks.value]  # type: ignore[attr-defined]
    elif checks is not None and tx.graph.parent is None:
        tx.tracer.rerun_checks.append(checks.value)  # type: ignore[attr-defined]
        del tx.locals[RERUN]


def _emit_loop(tx: Interpreter, trace: Trace, lo: Value, hi: Value, step: Value) -> None:
    region, graph = trace.region, tx.graph
    carried = [g for g in trace.groups if g.carried]
    go = trace.go if trace.go is not None else region.const(True, weak=False)
    # Whether each carried Python number the first trip makes a NumPy scalar is still the
    # Python number, as `max()` of the two picked (`mixed_picks`).
    # A local the enclosing body flags (a nested loop) keeps its flag even where this body
    # has no picks of its own.
    tracked = [g for g in carried if g.still_python is not None and (
        mixed_picks.picks(region) or g.still_initial is not None)]
    for group in tracked:
        group.followed = True
    still = {id(g.param): g.still_python for g in tracked}
    ends = mixed_picks.settle(region, still, {id(g.param): g.final_value for g in carried
                                                  if g.final_value is not None})
    region.set_outputs([go, *[g.final_value for g in carried if g.final_value is not None],
                        *ends.values()])
    if lazy_reads.unread_since(trace.lazy_mark, region):  # read: live from the outputs
        raise graph_break("loop_body", what="arithmetic on a slice never read (its warnings "
                                            "would be lost)")
    # After the outputs: a carried value may end a trip as an invariant one (`h = c`).
    invariant = [g for g in trace.groups if not g.carried and _used(region, g.param)]
    region.inputs[:] = [trace.index, *[g.param for g in carried], *still.values(),
                        *[g.param for g in invariant]]
    if not carried:
        # Its only effects would be its errors (an index out of range): not worth a loop op.
        raise graph_break("loop_body", what="a loop whose body changes nothing")
    results = graph.loop(lo, hi, step, [g.initial for g in carried] + [
        g.still_initial if g.still_initial is not None else graph.const(True, np.bool_,
                                                                       weak=False)
        for g in tracked], [g.initial for g in invariant], region)
    for group, ended_python in zip(tracked, results[len(carried):], strict=True):
        if not _read_after(tx, trace, group):
            continue  # whether it ended a Python number or NumPy's is never seen
        mixed_picks.result_may_be_python(tx, results[carried.index(group)], ended_python)
    results = results[:len(carried)]
    for group, result in zip(carried, results, strict=True):
        if group.final is group.inner and isinstance(group.outer, ArrayVariable):
            group.outer.update_in_place(result)
            if group.outer.source is not None:
                tx.tracer.mark_mutated(group.outer)
            new: VariableTracker = group.outer
        else:
            new = ArrayVariable(result)
        for name in group.names:
            # `.ret` and `.retval` may be bound for the first time here.
            if tx.locals.get(name, group.outer) is group.outer:
                tx.locals[name] = new


def _read_after(tx: Interpreter, trace: Trace, group: Group) -> bool:
    """Whether the frame may read `group`'s local after the loop: false only for plain
    locals the code never reads after it (`acc` of `acc = 0` / `acc += x[i]`, used only
    inside), at the frame's level (a body's uses settle its picks themselves)."""
    if tx.graph.parent is not None or trace.after is None or not group.names:
        return True
    return any(not name.split("#")[0].isidentifier() or name in trace.after
               for name in group.names)


def _used(region: Graph, value: Value) -> bool:
    return any(v is value for node in region.nodes for v in node.inputs) or any(
        v is value for v in region.outputs)


def _static_bounds(graph: Graph, iterator: IteratorVariable) -> tuple[Value, Value, Value]:
    origin = getattr(iterator, "origin", None)
    if isinstance(origin, ConstantVariable) and isinstance(origin.constant(), range):
        r = origin.constant()
        start = r.start + iterator.index * r.step
        return graph.const(start), graph.const(r.stop), graph.const(r.step)
    return graph.const(iterator.index), graph.const(len(iterator.items)), graph.const(1)
