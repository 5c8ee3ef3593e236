"""`range(...)` whose bounds are loop values (`range(i)`, `range(i + 1, n)` in a loop body)
or run-time ints of the frame (`range(n)` for an argument `n` under dynamic capture):
known only at run time, so a loop over one is always a loop op with those bounds."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.capture.variables.containers import IteratorVariable
from ember.graph import Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.capture.variables.appended import AppendedListVariable
    from ember.capture.loops.region import Trace


class DynamicRangeVariable(VariableTracker):
    """`range(lo, hi, step)` with 0-d integer graph values as bounds."""

    def __init__(self, lo: Value, hi: Value, step: Value,
                 frame_args: list[VariableTracker] | None = None) -> None:
        self.bounds = (lo, hi, step)
        # `range`'s arguments where they are run-time ints of the frame (`runtime_range`).
        self.frame_args = frame_args

    def type_name(self) -> str:
        return "range"

    def python_type(self) -> type:
        return range

    def describe(self) -> str:
        return "a range() with run-time bounds"


class ListItems(DynamicRangeVariable):
    """The places of a list a loop op built that a `for` visits (`appended.items_range`): a
    range of run-time bounds whose trips load the item from the list's buffer."""

    def __init__(self, built: AppendedListVariable, count: Value, lo: Value, hi: Value,
                 step: Value, counted: int | None = None) -> None:
        from ember.capture.variables.array import ArrayVariable

        super().__init__(lo, hi, step)
        self.built, self.count = built, count
        self.counted = counted  # `enumerate`'s start: each item is `(count, item)`
        self.buffer = ArrayVariable(built.buffer)  # one tracker: the body's parameter
        # Where Python numbers and NumPy scalars mix: the flags, true for the other type.
        self.flags = ArrayVariable(built.flags) if built.flags is not None else None

    def describe(self) -> str:
        return "the items of a list built in a loop"


class ZippedItems(DynamicRangeVariable):
    """`zip(...)` of lists a loop op built and arrays that a `for` visits (`for a, b in
    zip(lst, lst[1:])`, `zip(lst, x)`): a range over the places up to the shortest part's
    length, each trip's item the tuple of each part's item there (a list's loaded from its
    buffer, as `ListItems`, an array's element or row)."""

    def __init__(self, parts: list[VariableTracker], count: Value, lo: Value, step: Value
                 ) -> None:
        from ember.capture.variables.appended import AppendedListVariable

        super().__init__(lo, count, step)
        self.count = count
        # Each list part as the `ListItems` of its places: one tracker of its buffer.
        self.parts = [ListItems(p, count, lo, count, step) if isinstance(
            p, AppendedListVariable) else p for p in parts]

    def describe(self) -> str:
        return "the items of zip() of lists built in a loop"


def lists_iterated(origin: Any) -> list[AppendedListVariable]:
    """The lists a loop op built that a loop over `origin` reads item by item."""
    if isinstance(origin, ListItems):
        return [origin.built]
    if isinstance(origin, ZippedItems):
        return [p.built for p in origin.parts if isinstance(p, ListItems)]
    return []


def zipped_items(tx: Interpreter, parts: list[VariableTracker]) -> ZippedItems | None:
    """`ZippedItems` for `zip(*parts)` that the `for` after the GET_ITER next iterates, where
    a part is a list a loop op built and the others such lists or arrays of a known first
    axis; None for anything else."""
    from ember.capture.variables.appended import AppendedListVariable, _loop_op_next, is_tuple
    from ember.capture.variables.array import ArrayVariable

    if not any(isinstance(p, AppendedListVariable) for p in parts) or not _loop_op_next(
            tx, ahead=1):
        return None
    graph = tx.graph
    lengths: list[Value] = []
    for p in parts:
        if isinstance(p, AppendedListVariable):
            if p.iterator or (p.item[1] and not is_tuple(p.item)) or p.head is not None or (
                    p.buffer.graph is not graph):
                return None
            lengths.append(p.count if p.known_length is None else graph.const(p.known_length))
        elif isinstance(p, ArrayVariable) and p.value.ndim >= 1 and not p.value.weak and (
                isinstance(p.value.shape[0], int)):
            lengths.append(graph.const(p.value.shape[0]))
        else:
            return None
    count = lengths[0]
    for length in lengths[1:]:
        count = graph.op("minimum", [count, length])
    return ZippedItems(parts, count, graph.const(0), graph.const(1))


class SliceItems(DynamicRangeVariable):
    """The items of a 1-d slice with run-time bounds that a `for` visits (`for u in
    idx[ptr[v]:ptr[v + 1]]`): the range of the slice's places in `array`, each trip loading
    the item at its place when it starts, as iterating NumPy's view reads it."""

    def __init__(self, lo: Value, hi: Value, step: Value, array: VariableTracker,
                 counted: int | None = None) -> None:
        from ember.capture.variables.array import ArrayVariable

        super().__init__(lo, hi, step)
        self.array = array
        self.lo = ArrayVariable(lo)  # one tracker: the body's parameter
        self.counted = counted  # `enumerate`'s start: each item is `(count, item)`

    def describe(self) -> str:
        return f"the items of a slice of {self.array.describe()} with run-time bounds"


def slice_items(tx: Interpreter, obj: VariableTracker, ahead: int = 0,
                counted: int | None = None) -> SliceItems | None:
    """`SliceItems` for a 1-d slice with run-time bounds (step 1) that the `for` `ahead`
    instructions on iterates: a run in a loop body (`loops/runs.py`), a slice with bounds
    computed from the data at the frame's level (`variables/datalen.py`); None for anything
    else. `counted`: `enumerate`'s start."""
    from ember.capture.loops.body import loop_head
    from ember.capture.loops.region import loop_key
    from ember.capture.loops.runs import RunVariable, _bound
    from ember.capture.variables.array import ArrayVariable
    from ember.capture.variables.datalen import DataViewVariable, _clamped

    at = tx.ip + ahead
    following = tx.instructions[loop_head(tx, at)] if at < len(tx.instructions) else None
    if following is None or following.opname != "FOR_ITER" or not tx.tracer.loop_ops or (
            loop_key(tx, following) in tx.tracer.unrolled_loops) or (
                ahead and tx.instructions[tx.ip].opname != "GET_ITER"):
        return None
    graph = tx.graph
    if isinstance(obj, RunVariable) and obj.array.value.ndim == 1:
        size = obj.array.value.shape[0]
        lo = _bound(graph, obj.bounds.start, size, 0)
        hi = _bound(graph, obj.bounds.stop, size, size)
        return SliceItems(lo, hi, graph.const(1), obj.array, counted)
    if not isinstance(obj, DataViewVariable) or graph.parent is not None or (
            obj.base.ndim != 1 or obj.transposed or isinstance(obj.base.shape[0], str)):
        return None
    first = obj._leading()
    if first is None:
        return None
    n = obj.base.shape[0]
    lo, hi = (p.value if isinstance(p, ArrayVariable) else p.constant()
              for p in first.parts[:2])
    held = [vt for vt in tx.locals.values()
            if type(vt) is ArrayVariable and vt.value is obj.base]
    return SliceItems(_clamped(graph, lo, n, 0), _clamped(graph, hi, n, n), graph.const(1),
                      held[0] if held else ArrayVariable(obj.base), counted)


class ArrayRows(DynamicRangeVariable):
    """The rows of arrays whose first axis is one symbolic size, iterated by a `for` at the
    frame's level (`for row in x`, `for i, row in enumerate(x)`, `for a, b in zip(x, y)`):
    the range `0..len(x)` whose trips read each part's item at their index
    (`region._item`), so one loop op serves every size. `parts`: arrays, and ints for the
    counts of `enumerate` (its start); `single`: the item is the one part's, not a tuple."""

    def __init__(self, parts: list[Any], length: VariableTracker, graph: Any,
                 single: bool) -> None:
        super().__init__(graph.const(0), length.graph_value(), graph.const(1),
                         frame_args=[length])
        self.parts = parts
        self.single = single

    @property
    def arrays(self) -> list[VariableTracker]:
        return [p for p in self.parts if not isinstance(p, int)]

    def describe(self) -> str:
        return f"the rows of {', '.join(a.describe() for a in self.arrays)}"


def array_rows(tx: Interpreter, parts: list[Any], single: bool, ahead: int = 0
               ) -> ArrayRows | None:
    """The rows of `parts` (arrays, and ints for `enumerate`'s counts) when every array's
    first axis is the same symbolic size, outside loop bodies, and the `for` `ahead`
    instructions on iterates them: `ArrayRows`; None otherwise (the rows are then unpacked,
    which reads the size as a constant)."""
    from ember.capture.loops.body import loop_head
    from ember.capture.loops.region import loop_key
    from ember.capture.variables.array import ArrayVariable
    from ember.capture.variables.scalar import PythonScalarVariable

    arrays = [p for p in parts if not isinstance(p, int)]
    if not arrays or tx.graph.parent is not None or not tx.tracer.loop_ops or any(
            not isinstance(a, ArrayVariable) or type(a).len_variable is not (
                ArrayVariable.len_variable) or a.value.ndim == 0 or a.value.weak
            for a in arrays):
        return None
    sizes = {a.value.shape[0] for a in arrays}
    if len(sizes) != 1 or not isinstance(next(iter(sizes)), str):
        return None
    at = tx.ip + ahead
    following = tx.instructions[loop_head(tx, at)] if at < len(tx.instructions) else None
    if following is None or following.opname != "FOR_ITER" or (
            loop_key(tx, following) in tx.tracer.unrolled_loops):
        return None
    if ahead and tx.instructions[tx.ip].opname != "GET_ITER":
        return None
    length = arrays[0].len_variable(tx)
    if not isinstance(length, PythonScalarVariable):
        return None
    return ArrayRows(parts, length, tx.graph, single)


class DynamicRangeIterator(IteratorVariable):
    """The iterator over a `DynamicRangeVariable`: it has no items capture could unroll."""

    def __init__(self, origin: DynamicRangeVariable) -> None:
        super().__init__([])
        self.origin = origin


def dynamic_range(tx: Interpreter, args: list[VariableTracker]) -> DynamicRangeVariable | None:
    """`range(*args)` inside a loop body when a bound is a loop value, else None."""
    from ember.capture.variables.array import ArrayVariable

    if tx.graph.parent is None or not 1 <= len(args) <= 3:
        return None
    values: list[Value] = []
    dynamic = False
    for arg in args:
        if isinstance(arg, ArrayVariable) and not arg.value.shape and (
                arg.value.dtype.kind in "iu"):
            value = arg.value
            if value.dtype != np.dtype(np.int64) and value.dtype.itemsize < 8:
                # A bound read from an int32 array (`range(ptr[i], ptr[i + 1])`): the loop
                # op's bounds are int64, as Python's ints of the same value.
                value = tx.graph.op("astype", [value], dtype=np.int64, weak=True)
            values.append(value)
            dynamic = True
        elif isinstance(arg, ConstantVariable) and type(arg.constant()) is int:
            values.append(tx.graph.const(arg.constant()))
        else:
            return None
    if not dynamic:
        return None
    if len(values) == 1:
        values.insert(0, tx.graph.const(0))
    if len(values) == 2:
        values.append(tx.graph.const(1))
    if values[2].graph is not None and _constant_zero(tx, values[2]):
        raise graph_break("user_error", type="ValueError",
                          message="range() arg 3 must not be zero")
    return DynamicRangeVariable(*values)


def runtime_range(tx: Interpreter, args: list[VariableTracker]) -> DynamicRangeVariable | None:
    """`range(...)` outside loop bodies with a bound known only at run time (a Python int
    argument under dynamic capture, a symbolic size such as `len(x)`, an int the graph
    computes from the data, a NumPy integer read from it) that the `for` right after iterates: one loop op with those
    bounds, so that the next `n` runs the same compiled loop instead of capturing it again.
    None (the int is then specialised, as everywhere it is structure) elsewhere, with a
    constant or run-time step, and once the loop refused to be one loop op
    (`capture/loops/region.py`: capture starts again with it unrolled, which needs its trip
    count)."""
    from ember.capture.loops.body import loop_head
    from ember.capture.loops.region import loop_key
    from ember.capture.variables.scalar import PythonScalarVariable

    def runtime_int(vt: VariableTracker) -> bool:
        return (isinstance(vt, PythonScalarVariable) and vt.python_class is int) or (
            computed_int(vt) or read_index(vt))

    if tx.graph.parent is not None or not tx.tracer.loop_ops or not 1 <= len(args) <= 3:
        return None
    bounds, step = (args, []) if len(args) < 3 else (args[:2], args[2:])
    if not any(runtime_int(a) for a in bounds) or not all(
            runtime_int(a) or (isinstance(a, ConstantVariable) and type(a.constant()) is int)
            for a in bounds):
        return None
    if step and not (isinstance(step[0], ConstantVariable) and type(step[0].constant()) is int
                     and step[0].constant() != 0):
        return None
    # A FOR_ITER whose jump is long comes after its EXTENDED_ARG prefix.
    following = [tx.instructions[tx.ip], tx.instructions[loop_head(tx, tx.ip + 1)]] if (
        tx.ip + 1 < len(tx.instructions)) else []
    from ember.capture.variables.appended import _comprehension

    # A comprehension over a range of an int the graph computes (`range(len(out))` of a
    # list a loop op built): a loop op. One over an int argument stays specialised, its
    # list of known length (`np.stack` of it is an array, not a selection).
    comprehension = [i.opname for i in following[:1]] == ["GET_ITER"] and (
        tx.instructions[tx.ip + 1].opname == "PRECALL") and _comprehension(tx) and not any(
            isinstance(a, PythonScalarVariable) for a in args)
    if not comprehension and ([i.opname for i in following] != ["GET_ITER", "FOR_ITER"] or (
            loop_key(tx, following[1]) in tx.tracer.unrolled_loops)):
        return None
    values = [a.value if computed_int(a)  # type: ignore[attr-defined]
              else tx.graph.op("astype", [a.value], dtype=np.dtype(np.int64), weak=True)
              if read_index(a)  # type: ignore[attr-defined]
              else a.graph_value() if runtime_int(a) else tx.graph.const(a.constant())
              for a in args]
    if len(values) == 1:
        values.insert(0, tx.graph.const(0))
    if len(values) == 2:
        values.append(tx.graph.const(1))
    return DynamicRangeVariable(*values, frame_args=list(args))


def computed_int(vt: VariableTracker) -> bool:
    """Whether `vt` is a Python int the graph computes (`math.ceil(math.log2(norm))`, a
    count of the data): a weak int64 0-d value."""
    from ember.capture.variables.array import ArrayVariable

    return (type(vt) is ArrayVariable and vt.value.ndim == 0 and vt.value.weak
            and vt.value.dtype == np.int64)


def read_index(vt: VariableTracker) -> bool:
    """Whether `vt` is a 0-d integer array or NumPy integer read from the data (`indptr[-1]`,
    `counts.sum()`), which `range` takes by `__index__` as the Python int of its value; not
    a bool (no `__index__`) nor a uint64 (its values past int64's)."""
    from ember.capture.variables.array import ArrayVariable

    return (type(vt) is ArrayVariable and vt.value.ndim == 0 and not vt.value.weak
            and vt.value.dtype.kind in "iu" and vt.value.dtype != np.uint64)


def require_a_trip(tx: Interpreter, args: list[VariableTracker], trips: int = 1) -> None:
    """Make every call the entry serves run the loop over `range(*args)` (see
    `runtime_range`) at least `trips` times, or refuse. A loop whose first trip changes the type of
    a value it carries (`t = 0.0; for i in range(n): t += x[i]` makes `t` a `np.float64`)
    gives the value its old type when it makes no trip, which one compiled loop cannot (a
    delay line `x2, x1 = x1, xn` takes two trips). Its trip count must then be `n - c` for
    one run-time int `n` (a size of an argument or an int argument), and the entry requires
    `n >= c + trips`: the symbolic size's minimum
    (`Graph.require_size`) or an INT_AT_LEAST guard. Other calls capture apart."""
    from ember.capture.variables.scalar import PythonScalarVariable

    lo, hi, step = ([ConstantVariable(0), *args] if len(args) == 1 else list(args))[:3] + (
        [ConstantVariable(1)] if len(args) < 3 else [])
    first, last = (lo, hi) if step.constant() > 0 else (hi, lo)
    leaves: dict[str, PythonScalarVariable] = {}
    span = linear_int(last, leaves), linear_int(first, leaves)
    if (span[0] is None or span[1] is None) and all(
            computed_int(a) or read_index(a) or isinstance(a, ConstantVariable)
            for a in (lo, hi, step)):
        # Bounds the graph computes (`range(len(out))` of a list a loop op built): fewer
        # trips reruns the frame as Python.
        _check_trips(tx, lo, hi, step.constant(), trips)
        return
    if span[0] is None or span[1] is None:
        raise graph_break("loop_body", what="a loop whose trip count is not one run-time int "
                                            "less a constant")
    (terms, const), (minus_terms, minus_const) = span
    for leaf, k in minus_terms.items():
        terms[leaf] = terms.get(leaf, 0) - k
    terms = {leaf: k for leaf, k in terms.items() if k}
    if len(terms) != 1 or next(iter(terms.values())) != 1:
        raise graph_break("loop_body", what="a loop whose trip count is not one run-time int "
                                            "less a constant")
    leaf: PythonScalarVariable = leaves[next(iter(terms))]
    minimum = trips - (const - minus_const)
    if leaf.example < minimum:
        raise graph_break("loop_body", what="a loop that makes no trip for this call")
    if leaf.symbol is not None:
        tx.graph.require_size(leaf.symbol, minimum)
    else:
        tx.tracer.guards.add(leaf.source, ("INT_AT_LEAST", minimum))


def _check_trips(tx: Interpreter, lo: VariableTracker, hi: VariableTracker, step: int,
                 trips: int) -> None:
    """A run-time check that `range(lo, hi, step)` makes at least `trips` trips, else the
    frame runs as Python."""
    from ember.capture.loops.frame_branches import add_check

    graph = tx.graph

    def value(vt: VariableTracker) -> Value:
        if isinstance(vt, ConstantVariable):
            return graph.const(vt.constant())
        return graph.op("astype", [vt.value], dtype=np.dtype(np.int64))  # type: ignore[attr-defined]

    # The last trip needed, `lo + (trips - 1) * step`, lies before `hi`.
    last = graph.op("add", [value(lo), graph.const((trips - 1) * step)])
    short = graph.op("ge" if step > 0 else "le", [last, value(hi)])
    add_check(tx, short)


# The pseudo-local, per carried local, of whether a loop or branch inside the body that
# changes its type did (`start_typed_flags`).
TYPED = ".typed#"


def note_trips(tx: Interpreter, key: tuple[Any, int], forced: dict[str, tuple],
               bounds: tuple[Value, Value, Value]) -> None:
    """After the loop op `key` over a range of loop values: the locals whose type its first
    trip changes (`forced`) are noted, and where an enclosing loop op tracks one
    (`start_typed_flags`), whether this loop made a trip is or-ed into its flag."""
    def made() -> Value:
        graph = tx.graph
        lo, hi, step = bounds
        zero = graph.const(0)
        return graph.op("logical_or", [
            graph.op("logical_and", [graph.op("gt", [step, zero]), graph.op("lt", [lo, hi])]),
            graph.op("logical_and", [graph.op("lt", [step, zero]), graph.op("gt", [lo, hi])])])

    note_conversions(tx, key, {name: None for name in forced}, made)


def note_conversions(tx: Interpreter, key: tuple[Any, int], names: dict[str, bool | None],
                     made: Callable[[], Value]) -> None:
    """Where the loop op or `if` op `key` changes the type of locals (`names`: for an `if`,
    on which path, True for `then`), they are noted; where an enclosing loop op tracks one
    (`start_typed_flags`), whether the change happened (`made`, the `if`'s condition) is
    or-ed into its flag, on every trace, the change itself gone once the local has its new
    type from the loop's start."""
    from ember.capture.variables.array import ArrayVariable

    noted = tx.tracer.typed_by_trips
    noted.update(((key, name), side) for name, side in names.items())
    graph = tx.graph
    value: Value | None = None
    for (k, name), side in sorted(noted.items(), key=lambda item: item[0][1]):
        flag = tx.locals.get(TYPED + name)
        if k != key or flag is None:
            continue
        value = made() if value is None else value
        happened = graph.op("logical_not", [value]) if side is False else value
        happened = graph.op("astype", [happened], dtype=np.bool_, weak=False)
        tx.locals[TYPED + name] = ArrayVariable(graph.op(
            "logical_or", [flag.value, happened]))  # type: ignore[attr-defined]


def start_typed_flags(tx: Interpreter, forced: dict[str, tuple], start: int, stop: int
                      ) -> list[str]:
    """The carried locals of a loop op whose type changes (`forced`, `s = 0` made a float)
    only in loops over ranges of loop values or on paths of branches inside its body (`for j
    in range(int(a[i])): s += 0.5`): where none of those changes it in the whole run (no trip
    made, the other path taken), Python leaves the old type, which the loop op cannot. Each
    gets a flag, false before the loop, that those loops and branches set
    (`note_conversions`) and the loop op carries; `check_typed_flags` then makes the frame
    run as plain Python where it stayed false."""
    from ember.capture.variables.array import ArrayVariable

    # Past the first instruction: an `if` whose path starts there encloses the loop (the
    # first test of a `while`, `if c: while True:`); every one inside starts later.
    first, last = tx.instructions[start].offset, tx.instructions[stop - 1].offset
    names = sorted({name for (code, offset), name in tx.tracer.typed_by_trips
                    if code is tx.code and first < offset <= last and name in forced})
    for name in names:
        tx.locals.setdefault(TYPED + name, ArrayVariable(
            tx.graph.const(False, np.bool_, weak=False)))
    return names


def check_typed_flags(tx: Interpreter, names: list[str], trace: Trace) -> None:
    """After the loop op: a run-time check per flag of `start_typed_flags` that it was set.
    A local whose flag of still being the Python number the loop op carries out
    (`mixed_picks`: `Group.followed`) needs none: that flag says so. One that was a Python
    number of the dtype it became (`node = 0`, then `node = left[node]`), whose uses in the
    body cannot tell the two apart, is a pick of the enclosing body where the flag is not
    set (`mixed_picks.result_may_be_python`)."""
    from ember.capture.loops import mixed_picks
    from ember.capture.loops.frame_branches import add_check
    from ember.capture.variables.array import ArrayVariable

    for name in names:
        flag = tx.locals.pop(TYPED + name)
        group = next((g for g in trace.groups if name in g.names), None)
        if group is not None and group.followed:
            continue
        kept = tx.graph.op("logical_not", [flag.value])  # type: ignore[attr-defined]
        result = tx.locals.get(name)
        if (group is not None and isinstance(result, ArrayVariable)
                and _python_number_of(group.outer) == result.value.dtype
                and mixed_picks.blind_in(trace.region, group.param, group.final_value)):
            mixed_picks.result_may_be_python(tx, result.value, kept)
        else:
            add_check(tx, kept)


def _python_number_of(vt: VariableTracker) -> np.dtype | None:
    """The dtype whose NumPy scalar holds `vt`, a Python float or int, exactly."""
    from ember.capture.variables.array import ArrayVariable

    if isinstance(vt, ConstantVariable) and type(vt.constant()) in (int, float):
        return np.dtype(np.int64 if type(vt.constant()) is int else np.float64)
    if isinstance(vt, ArrayVariable) and vt.value.weak and not vt.value.shape and (
            vt.value.dtype in (np.dtype(np.int64), np.dtype(np.float64))):
        return vt.value.dtype
    return None


def linear_int(vt: VariableTracker, leaves: dict[str, Any]) -> tuple[dict, int] | None:
    """`vt` as a sum of run-time ints read from the frame times constants, plus a constant:
    `({source name: coefficient}, constant)`, with each source's tracker in `leaves`; None
    for anything else."""
    from ember.capture.variables.scalar import PythonScalarVariable

    if isinstance(vt, ConstantVariable) and type(vt.constant()) is int:
        return {}, vt.constant()
    if not isinstance(vt, PythonScalarVariable) or vt.python_class is not int:
        return None
    if vt.op is None:
        if vt.source is None:
            return None
        leaves[vt.source.name()] = vt
        return {vt.source.name(): 1}, 0
    if vt.op not in ("+", "-") or len(vt.operands) != 2:
        return None
    parts = [linear_int(x if isinstance(x, VariableTracker) else ConstantVariable(x), leaves)
             for x in vt.operands]
    if parts[0] is None or parts[1] is None:
        return None
    sign = 1 if vt.op == "+" else -1
    terms = dict(parts[0][0])
    for leaf, k in parts[1][0].items():
        terms[leaf] = terms.get(leaf, 0) + sign * k
    return terms, parts[0][1] + sign * parts[1][1]


def _constant_zero(tx: Interpreter, value: Value) -> bool:
    for node in reversed(tx.graph.nodes):
        if node.out is value:
            return node.op == "const" and node.attrs["value"] == 0
    return False
