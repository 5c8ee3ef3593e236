"""Lists built by appends in a loop op's body (`out = []`, then `out.append(x[i] * 2.0)` or
`[f(x[i]) for i in range(n)]`).

An empty list the frame created, reachable only from the frame's locals and stack, is
carried through the loop op as a buffer of the trip count (times the appends a trip makes)
items, filled with 1 past the items appended (as a boolean-mask selection's unselected
places: arithmetic on them raises no floating-point flag), and a count, a Python int. Both
are pseudo-locals (`.list#k`, `.count#k`), so branches merge them like any local: an append
on one path of an `if` is a `store` at the count and the count plus one there. In the body
the list is a `BodyList`, which does nothing but append; any other use refuses the loop op.
The first trace learns each list's item type (dtype, shape, and whether a Python number or
a NumPy scalar) and the appends of a trip; the next builds the buffers.

After the loop the list is an `AppendedListVariable` (`variables/appended.py`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.loops import mixed_picks, swaps
from ember.capture.variables.appended import AppendedListVariable, ItemType
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.capture.variables.containers import IteratorVariable, ListVariable
from ember.graph import Graph, Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

BUFFER = ".list#"
# The name of a region that is a path of a branch (`Graph.region("then")`), not a loop body.
_BRANCH_REGION = re.compile(r"_(then|else)\d+$")
COUNT = ".count#"


@dataclass
class Appended:
    """What the traces of one loop learned about one list it appends to."""

    key: int
    item: ItemType | None = None
    per_trip: int = 0  # appends on the first trace: at most this many a trip
    traced: int = 0  # appends in the current trace
    learned: bool = False  # the current trace learned the item type: trace again
    region: Graph | None = None  # the loop body's region of the current trace
    # Rows appended on the current trace, with the value stored: the list holds the object,
    # so it must not change after the append (`row[0] = 0` would show in the list).
    # The item as appended is kept too: a short computed row (a vector) is stored as a new
    # array tracker, and a local bound to the vector itself is still the list's object.
    rows: list[tuple[ArrayVariable, Value, VariableTracker]] = field(default_factory=list)
    # Loop ops traced inside the body, by id of their region: their trip counts.
    nested: dict[int, int | None] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """Its pseudo-locals' suffix: unique while capture runs, also across nested loops."""
        return str(id(self))


@dataclass
class Tracked:
    """A list of the frame the body may append to, and its stand-in there."""

    outer: ListVariable
    state: Appended
    inner: BodyList
    capacity: int = 0


def _refuse(what: str) -> Exception:
    return graph_break("loop_body", what=what)


def enter(tx: Interpreter, lists: dict[int, Appended], trips: int | None,
          most: int | None, region: Graph, body: tuple[int, int]) -> list[Tracked]:
    """The empty lists of the frame the body (instructions `body`) may append to, each with
    its count bound as a pseudo-local, and its buffer once its item type is known. `trips`:
    the loop's trip count, None where only the run time knows it. The lists of loops around
    this one learn how many trips it makes at most, `most` (`_repeats`)."""
    for vt in [*tx.locals.values(), *tx.stack, tx.yielded]:
        if isinstance(vt, BodyList):
            vt.state.nested[id(region)] = most
    found: list[Tracked] = []
    seen: set[int] = set()
    for vt in _appended(tx, *body):
        if not isinstance(vt, ListVariable) or id(vt) in seen or vt.source is not None:
            continue
        seen.add(id(vt))
        if vt.unread or vt.items:
            continue
        key = len(found)
        state = lists.setdefault(key, Appended(key))
        state.traced, state.learned, state.region = 0, False, region
        state.rows = []
        tracked = Tracked(vt, state, BodyList(state))
        found.append(tracked)
        tx.locals[COUNT + state.name] = ArrayVariable(tx.graph.const(0))
        if state.item is None:
            continue
        if trips is None:
            raise _refuse("appends to a list in a loop over a range of run-time bounds")
        if swaps.held_elsewhere(tx, vt, own_stack=True):
            raise _refuse("appends to a list that something else holds")
        dtype, shape, _, _ = state.item
        tracked.capacity = trips * state.per_trip
        fill = True if dtype == np.bool_ else 1
        buffer = tx.graph.full((tracked.capacity, *shape), fill, dtype)
        tx.locals[BUFFER + state.name] = ArrayVariable(buffer)
    return found


def most_trips(bounds: tuple[Value, Value, Value]) -> int | None:
    """The most trips a range of run-time bounds makes, where what capture knows of them
    bounds it (`range(i)` in a loop over `range(n)`: at most `n - 1`); None otherwise."""
    from ember.capture.loops.intervals import interval

    lo, hi, step = (interval(v) for v in bounds)
    if lo is None or hi is None or step is None or step[0] != step[1] or step[0] == 0:
        return None
    s = step[0]
    reach = hi[1] - lo[0] if s > 0 else lo[1] - hi[0]
    return max(0, -(-reach // abs(s)))


def _appended(tx: Interpreter, start: int, stop: int) -> list[VariableTracker]:
    """What the instructions `[start, stop)` may append to: locals whose `append` they load,
    the stack's lists where they hold LIST_APPEND, a generator's values where they yield."""
    code = tx.instructions[start:stop]
    names = {a.argval for a, b in zip(code, code[1:], strict=False)
             if a.opname == "LOAD_FAST" and b.opname == "LOAD_METHOD" and b.argval == "append"}
    held = [vt for name, vt in tx.locals.items() if name in names]
    if any(i.opname == "LIST_APPEND" for i in code):
        held += tx.stack
    if any(i.opname == "YIELD_VALUE" for i in code) and tx.yielded is not None:
        held.append(tx.yielded)
    return held


def substitute(tx: Interpreter, found: list[Tracked]) -> None:
    """Bind each list's stand-in wherever the frame holds the list, for the body's trace."""
    inner = {id(t.outer): t.inner for t in found}
    for name, vt in tx.locals.items():
        tx.locals[name] = inner.get(id(vt), vt)
    tx.stack[:] = [inner.get(id(vt), vt) for vt in tx.stack]
    tx.yielded = inner.get(id(tx.yielded), tx.yielded)


def restore(tx: Interpreter, found: list[Tracked]) -> None:
    """A generator's values are its own again after the body's trace (its locals and stack
    are restored by the trace itself)."""
    for t in found:
        if tx.yielded is t.inner:
            tx.yielded = t.outer


def check_rows(found: list[Tracked], end_locals: dict[str, VariableTracker],
               live: set[str], untouched: set[str]) -> None:
    """Refuse a row the trip changed in place after appending it, or left bound to a local
    the next trip reads and may change in place there: not one of `untouched`, the locals
    whose stand-in the trip never updated in place (`h = f(h)` then `out.append(h)`: the
    next trip rebinds `h`, so the list keeps what it appended, as in NumPy)."""
    for t in found:
        for row, stored, item in t.state.rows:
            if row.value is not stored:
                raise _refuse("a row updated in place after it was appended")
            if any((vt is row or vt is item) and name in live and name not in untouched
                   for name, vt in end_locals.items()):
                raise _refuse("a row appended and kept for the next trip")


def learned(found: list[Tracked]) -> bool:
    """Whether this trace learned an item type, so the body must be traced again."""
    for t in found:
        if t.state.learned:
            t.state.per_trip = t.state.traced
    return any(t.state.learned for t in found)


def leave(tx: Interpreter, found: list[Tracked]) -> None:
    """Drop the pseudo-locals of a trace that is done over."""
    for t in found:
        tx.locals.pop(BUFFER + t.state.name, None)
        tx.locals.pop(COUNT + t.state.name, None)


def finish(tx: Interpreter, found: list[Tracked], region: Graph,
           final_counts: dict[int, Value]) -> None:
    """After the loop op: each list appended to becomes an `AppendedListVariable` of the
    loop's results, wherever the frame held it. `final_counts`: the body's last counts, of
    a loop that runs every trip (none: every length is the run time's)."""
    replaced: dict[int, VariableTracker] = {}
    for t in found:
        key = t.state.name
        buffer, count = tx.locals.pop(BUFFER + key, None), tx.locals.pop(COUNT + key, None)
        if t.state.item is None or buffer is None or count is None:
            continue
        final = final_counts.get(t.state.key)
        every_trip = final is not None and _appends_on_every_trip(region, final,
                                                                    t.state.per_trip)
        replaced[id(t.outer)] = AppendedListVariable(
            buffer.value, count.value, t.state.item,  # type: ignore[attr-defined]
            t.capacity if every_trip else None)
    for name, vt in tx.locals.items():
        tx.locals[name] = replaced.get(id(vt), vt)
    tx.stack[:] = [replaced.get(id(vt), vt) for vt in tx.stack]
    restore(tx, found)
    tx.yielded = replaced.get(id(tx.yielded), tx.yielded)


def generated(values: VariableTracker) -> VariableTracker:
    """What a generator inlined to its end gives its caller: an iterator over its values
    (those a loop op appended to its buffer stay there, in an iterator over them)."""
    if isinstance(values, AppendedListVariable):
        return AppendedListVariable(values.buffer, values.count, values.item,
                                    values.known_length, iterator=True)
    if not isinstance(values, ListVariable):
        raise _refuse("a generator whose values continue after its loop")
    return IteratorVariable(values.items)


def final_counts(found: list[Tracked], end_locals: dict[str, VariableTracker]
                 ) -> dict[int, Value]:
    """The body's last count of each list (before the loop op replaces the locals)."""
    counts = {}
    for t in found:
        vt = end_locals.get(COUNT + t.state.name)
        if isinstance(vt, ArrayVariable):
            counts[t.state.key] = vt.value
    return counts


def _appends_on_every_trip(region: Graph, final: Value, per_trip: int) -> bool:
    """Whether the count a trip ends with is its start plus `per_trip`, by adds of the body
    itself (not the result of an `if`): every trip then appends the same number of items."""
    producers = {id(n.out): n for n in region.nodes}
    added = 0
    value = final
    while id(value) in producers:
        node = producers[id(value)]
        if node.op != "add" or not _is_one(producers, node.inputs[1]):
            return False
        value, added = node.inputs[0], added + 1
    return value in region.inputs and added == per_trip


def _is_one(producers: dict[int, Any], value: Value) -> bool:
    node = producers.get(id(value))
    return node is not None and node.op == "const" and node.attrs.get("value") == 1


class BodyList(VariableTracker):
    """A list of the frame inside a loop body: appends go to its buffer; anything else
    (reading it, its length) refuses, since one trace stands for every trip."""

    def __init__(self, state: Appended) -> None:
        self.state = state

    def type_name(self) -> str:
        return "list"

    def describe(self) -> str:
        return "a list appended to in the loop"

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        if name == "append":
            return _AppendMethod(self)
        raise _refuse(f"list.{name} of a list appended to in the loop")

    def append(self, tx: Interpreter, item: VariableTracker) -> None:
        value = _item_value(tx, item)
        if value.shape:
            self.state.rows.append((*_fresh_row(tx, item, value), item))
        state = self.state
        kind: ItemType = (value.dtype, tuple(value.shape), value.weak, value.scalar)
        if not value.shape and not (value.weak or value.scalar):
            raise _refuse("an append of a 0-d array")
        if any(isinstance(d, str) for d in value.shape):
            raise _refuse("an append of an array of symbolic shape")
        state.traced += _repeats(tx, state)
        key = state.name
        buffer, count = tx.locals.get(BUFFER + key), tx.locals.get(COUNT + key)
        if not isinstance(count, ArrayVariable):
            raise _refuse("an append to a list whose count this body does not carry")
        graph = tx.graph
        if state.item is None or state.learned:
            if state.item is not None and state.item != kind:
                raise _refuse("appends of items of different types")
            state.item, state.learned = kind, True
            # Counted already, so that a loop nested in the body carries something.
            tx.locals[COUNT + key] = ArrayVariable(graph.op("add", [count.value,
                                                                    graph.const(1)]))
            return
        if state.item != kind:
            raise _refuse("appends of items of different types")
        if state.traced > state.per_trip:
            raise _refuse("more appends on a trace than the first one made")
        if not isinstance(buffer, ArrayVariable):
            raise _refuse("an append to a list whose buffer this body does not carry")
        if value.shape:
            from ember.capture.loops import windows

            windows.scatter(tx, buffer, windows.row_axes(buffer.value.shape, count.value),
                            ArrayVariable(value))
        else:
            stored = graph.op("store", [buffer.value, value, count.value])
            mixed_picks.object_kept(graph, stored)  # the list holds the object appended
            buffer.update_in_place(stored)
        tx.locals[COUNT + key] = ArrayVariable(graph.op("add", [count.value, graph.const(1)]))


def _repeats(tx: Interpreter, state: Appended) -> int:
    """How often an append at this point runs on one trip of the list's loop: the product of
    the trip counts of the loop ops around it inside the body (a path of a branch runs at
    most once). A loop of a trip count only the run time knows, or a `while`, refuses."""
    graph, repeats = tx.graph, 1
    while graph is not state.region:
        if graph.parent is None:
            raise _refuse("an append outside the loop that carries the list")
        if not _BRANCH_REGION.search(graph.name):
            trips = state.nested.get(id(graph))
            if trips is None:
                raise _refuse("appends in a loop nested in the loop, of a trip count only "
                              "the run time knows")
            repeats *= trips
        graph = graph.parent
    return repeats


def _fresh_row(tx: Interpreter, item: VariableTracker, value: Value
               ) -> tuple[ArrayVariable, Value]:
    """An appended array must be a new object of the trip (`X[i] * w`): the list holds the
    object itself, so a view (`X[i]`, which shows later writes to `X`) or an array of the
    frame (appended again on every trip) would be a copy here where Python shares it."""
    from ember.capture.loops.vectors import VectorVariable
    from ember.capture.loops.windows import WindowVariable

    if isinstance(item, VectorVariable):
        if item.base is not None:
            raise _refuse("an append of a view of an array")
        return ArrayVariable(value), value
    from ember.capture.loops.region import BodyArray

    if not isinstance(item, ArrayVariable) or isinstance(item, WindowVariable | BodyArray) or (
            not item.is_fresh(tx)):
        raise _refuse("an append of an array that is not a new one of the trip")
    return item, value


def _item_value(tx: Interpreter, item: VariableTracker) -> Value:
    from ember.capture.loops.vectors import VectorVariable, materialise
    from ember.capture.variables.scalar import PythonScalarVariable

    if isinstance(item, VectorVariable):
        item = materialise(tx, item)
    if isinstance(item, ArrayVariable) and item.value.graph is tx.graph:
        return item.value
    if isinstance(item, PythonScalarVariable):
        return item.graph_value()
    if isinstance(item, ConstantVariable) and type(item.constant()) in (bool, int, float):
        return tx.graph.const(item.constant())
    if isinstance(item, ConstantVariable) and isinstance(item.constant(), np.generic) and (
            item.constant().dtype.kind in "biuf"):
        return tx.graph.const(item.constant())
    raise _refuse(f"an append of {item.describe()}")


class _AppendMethod(VariableTracker):
    def __init__(self, owner: BodyList) -> None:
        self.owner = owner

    def describe(self) -> str:
        return "list.append"

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        if kwargs or len(args) != 1:
            raise _refuse("list.append with other than one argument")
        self.owner.append(tx, args[0])
        return ConstantVariable(None)
