"""Lists used as growable arrays in a loop op's body (`out = []`, then `out.append(x[i] *
2.0)`; `[f(x[i]) for i in range(n)]`; `stack = [s]`, then `v = stack.pop()`; `best[k] = v`).

A list the frame created, reachable only from the frame's locals and stack, is carried
through the loop op as a buffer and a count, a Python int. The buffer holds as many items as
the trip count and the appends of a trip allow, or, where only the run time bounds them (a
`while`, pops), as many as the frame's arrays hold, an append past them a run-time check
that reruns the frame as Python. Past the items it is filled with 1 (as a boolean-mask
selection's unselected places: arithmetic on them raises no floating-point flag). Both are
pseudo-locals (`.list#k`, `.count#k`), so branches merge them like any local: an append on
one path of an `if` is a `store` at the count and the count plus one there. In the body the
list is a `BodyList`: appends, pops, reads and stores of items, its length and its truth; any
other use refuses the loop op. The first trace learns each list's item type (dtype, shape,
and whether a Python number or a NumPy scalar) and the appends of a trip; the next builds
the buffers.

After the loop the list is an `AppendedListVariable` (`variables/appended.py`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.loops import list_items, list_starts, list_uses, mixed_picks, swaps
from ember.capture.variables.appended import (
    AppendedListVariable,
    ItemType,
    as_item,
    compatible,
    is_mixed,
    is_tuple,
    mixed_stored,
    tuple_at,
)
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
FLAGS = ".flags#"
# The place of the first item of a list popped from the front (`q.popleft()`, `q.pop(0)`):
# items before it are gone, the buffer is not moved.
HEAD = ".head#"


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
    # Appends that run a number of times only the run time knows (a `while`, a range of
    # unbounded run-time bounds): the buffer then holds `capacity` items, and an append
    # past it sends the frame to Python, which grows the list as far as it needs.
    open: bool = False
    capacity: int | None = None
    # The other type of a list holding Python numbers and NumPy scalars of one dtype (`best
    # = [0] * n`, then `best[c] = best[c - w] + v[i]`): a buffer of flags, true where an
    # item is of this type, is carried beside the items (`.flags#k`).
    other: ItemType | None = None
    guessed: bool = False  # a trace read an item before any append taught its type
    # A trace popped an item from the front (`q.popleft()`, `q.pop(0)`): the list carries
    # its head, the place of its first item (`HEAD`).
    front: bool = False
    deque: bool = False  # a `collections.deque`: `popleft`, no `pop(0)`
    # A trace appended on the left (`q.appendleft(v)`): the buffer has room before the head.
    left: bool = False

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
    exact: bool = False  # the loop's trip count is known: so is the count, if every trip appends
    start: int = 0  # the items it held before the loop


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
    for vt, uses in list_uses.appended(tx, *body):
        start = None if id(vt) in seen else list_starts.start(tx, vt)
        seen.add(id(vt))
        if start is None:
            continue
        kind, initial, built = start
        key = len(found)
        state = lists.setdefault(key, Appended(key))
        state.traced, state.learned, state.region, state.guessed = 0, False, region, False
        state.rows = []
        if kind is not None and state.item is not None and state.item != kind:
            raise _refuse("appends of items of different types")
        state.item = state.item or kind
        state.open = state.open or bool(uses & list_uses.POPS) or bool(initial) or (
            built is not None)
        state.deque = _is_deque(vt)
        tracked = Tracked(vt, state, BodyList(state))
        found.append(tracked)
        count = built.count if built is not None else tx.graph.const(len(initial))
        tx.locals[COUNT + state.name] = ArrayVariable(count)
        if built is not None and built.head is not None:
            state.front = True
        if state.front:
            tx.locals[HEAD + state.name] = ArrayVariable(
                built.head if built is not None and built.head is not None
                else tx.graph.const(0))
        if state.item is None:
            continue
        if swaps.held_elsewhere(tx, vt, own_stack=True):
            raise _refuse("appends to a list that something else holds")
        bound = trips if trips is not None else most
        if state.left:
            state.open = True
        if "append" not in uses and not state.left:
            bound, state.open = 0, False  # stores and pops only: the list never grows
        state.capacity = list_starts.open_capacity(tx) if bound is None or state.open else None
        tracked.exact = trips is not None and state.capacity is None and built is None
        tracked.start = len(initial)
        tracked.capacity = state.capacity or bound * state.per_trip  # type: ignore[operator]
        buffer = list_starts.buffer(tx.graph, state.item, tracked.capacity, initial, built)
        if state.left:
            buffer = list_starts.room_before(tx, state, buffer)
        state.capacity = state.capacity and buffer.shape[0]
        tx.locals[BUFFER + state.name] = ArrayVariable(buffer)
        if state.other is not None:
            flags = tx.graph.full(tuple(buffer.shape[:1]), False, np.dtype(np.bool_))
            tx.locals[FLAGS + state.name] = ArrayVariable(flags)
    return found


def _kind(value: Value) -> ItemType:
    return (value.dtype, tuple(value.shape), value.weak, value.scalar)


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


def _is_deque(vt: VariableTracker) -> bool:
    from ember.capture.variables.containers import DequeVariable

    return isinstance(vt, DequeVariable) or isinstance(vt, AppendedListVariable) and vt.deque


def stack_of(tx: Interpreter, tested: VariableTracker, start: int, stop: int
             ) -> Value | bool | None:
    """Whether `tested`, the first test of a `while` from `start` to `stop`, is a list of
    numbers of one type that the loop pops from or appends to, and makes a trip: False for
    a non-empty list the current loop body built (`stack = [s]`), whose trip is sure; for a
    list a loop op built (`[i for i in range(n) if indeg[i] == 0]`), the run-time value
    that says it is empty; None for any other test."""
    if isinstance(tested, ListVariable):
        if tested.made_in is not tx.graph or tx.graph.parent is None or tested.unread or (
                not tested.items):
            return None
    elif not (isinstance(tested, AppendedListVariable) and tested.known_length is None):
        return None
    start_types = list_starts.start(tx, tested)
    if start_types is None or start_types[0] is None or not any(
            vt is tested for vt, _ in list_uses.appended(tx, start, stop)):
        return None
    if isinstance(tested, ListVariable):
        return False
    return tx.graph.op("eq", [tested.count,  # type: ignore[union-attr]
                              tested.head or tx.graph.const(0)])  # type: ignore[union-attr]


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
        if t.state.guessed and t.state.item is None:
            raise _refuse("a list read in the loop and never appended to")
    return any(t.state.learned for t in found)


def leave(tx: Interpreter, found: list[Tracked]) -> None:
    """Drop the pseudo-locals of a trace that is done over."""
    for t in found:
        tx.locals.pop(BUFFER + t.state.name, None)
        tx.locals.pop(COUNT + t.state.name, None)
        tx.locals.pop(FLAGS + t.state.name, None)
        tx.locals.pop(HEAD + t.state.name, None)


def finish(tx: Interpreter, found: list[Tracked], region: Graph,
           final_counts: dict[int, Value]) -> None:
    """After the loop op: each list appended to becomes an `AppendedListVariable` of the
    loop's results, wherever the frame held it. `final_counts`: the body's last counts, of
    a loop that runs every trip (none: every length is the run time's)."""
    replaced: dict[int, VariableTracker] = {}
    for t in found:
        key = t.state.name
        buffer, count = tx.locals.pop(BUFFER + key, None), tx.locals.pop(COUNT + key, None)
        flags = tx.locals.pop(FLAGS + key, None)
        head = tx.locals.pop(HEAD + key, None)
        if t.state.item is None or buffer is None or count is None:
            continue
        final = final_counts.get(t.state.key)
        every_trip = final is not None and _appends_on_every_trip(region, final,
                                                                    t.state.per_trip)
        replaced[id(t.outer)] = AppendedListVariable(
            buffer.value, count.value, t.state.item,  # type: ignore[attr-defined]
            t.start + t.capacity if every_trip and t.exact and head is None else None,
            flags=flags.value if isinstance(flags, ArrayVariable) else None,
            head=head.value if isinstance(head, ArrayVariable) else None,
            deque=_is_deque(t.outer), other=t.state.other)
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
                                    values.known_length, iterator=True, flags=values.flags)
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
        if name in list_uses.METHODS and (name not in _DEQUE_ONLY or self.state.deque):
            return _ListMethod(self, name)
        kind = "deque" if self.state.deque else "list"
        raise _refuse(f"{kind}.{name} of a {kind} appended to in the loop")

    def _read(self, tx: Interpreter, k: Value, pop: bool = False, front: bool = False
              ) -> VariableTracker:
        """Item `k` (from the end where negative), checked to lie in the list; `pop`: the
        count then ends before it; `front`: the head then starts after it (`k` is 0). Before
        any trace learned the item type, a placeholder (that trace is done over once an
        append teaches it)."""
        key = self.state.name
        buffer, count = tx.locals.get(BUFFER + key), tx.locals.get(COUNT + key)
        if not isinstance(count, ArrayVariable):
            raise _refuse("a list whose count this body does not carry")
        item = self.state.item
        if item is not None and item[1] and not is_tuple(item):
            raise _refuse("a list of rows read in the loop")
        graph = tx.graph
        head = self._head(tx)
        at = _checked_position(tx, count.value, k, head)
        if pop:
            tx.locals[COUNT + key] = ArrayVariable(at)
        if front:
            if not self.state.front:
                # Learned here: the body is traced again with the head carried.
                self.state.front = self.state.learned = True
            elif head is not None:
                tx.locals[HEAD + key] = ArrayVariable(graph.op("add", [at, graph.const(1)]))
        if item is None:
            self.state.guessed = True
            return ArrayVariable(graph.const(0))
        if not isinstance(buffer, ArrayVariable) and self.state.learned and not item[1]:
            # The type was learned on this trace (an append on another path): the trace is
            # done over with the buffer; meanwhile a placeholder of the type.
            return ArrayVariable(as_item(graph, graph.const(item[0].type(0)), item))
        if not isinstance(buffer, ArrayVariable):
            raise _refuse("a list whose buffer this body does not carry")
        flags = tx.locals.get(FLAGS + key)
        if is_tuple(item):
            if self.state.other is not None and isinstance(flags, ArrayVariable):
                return tuple_at(graph, buffer.value, at, item,
                                graph.op("load", [flags.value, at]), self.state.other)
            return tuple_at(graph, buffer.value, at, item)
        loaded = graph.op("load", [buffer.value, at])
        if self.state.other is not None and isinstance(flags, ArrayVariable):
            from ember.capture.variables.choice import ChoiceVariable

            return ChoiceVariable(ArrayVariable(graph.op("load", [flags.value, at])),
                                  ArrayVariable(as_item(graph, loaded, self.state.other)),
                                  ArrayVariable(as_item(graph, loaded, item)))
        return ArrayVariable(as_item(graph, loaded, item))

    def _head(self, tx: Interpreter) -> Value | None:
        """The place of the first item, where the list is popped from the front."""
        head = tx.locals.get(HEAD + self.state.name)
        return head.value if isinstance(head, ArrayVariable) else None

    def truth_value(self, tx: Interpreter) -> ArrayVariable:
        """`while stack:`, `if out:`: whether the count is above 0 (above the head), a loop
        value."""
        count = tx.locals.get(COUNT + self.state.name)
        if not isinstance(count, ArrayVariable):
            raise _refuse("the truth of a list whose count this body does not carry")
        graph = tx.graph
        return ArrayVariable(graph.op("gt", [count.value, self._head(tx) or graph.const(0)]))

    def pop(self, tx: Interpreter) -> VariableTracker:
        """`lst.pop()`: the last item, the count one less; an empty list sends the frame to
        Python, which raises IndexError."""
        return self._read(tx, tx.graph.const(-1), pop=True)

    def pop_front(self, tx: Interpreter) -> VariableTracker:
        """`q.popleft()`, `lst.pop(0)`: the first item, the head one place on; an empty list
        sends the frame to Python, which raises IndexError."""
        return self._read(tx, tx.graph.const(0), front=True)

    def getitem(self, tx: Interpreter, index: VariableTracker) -> VariableTracker:
        """`lst[k]`, `lst[-1]` at a constant or a run-time int: a load, an index outside the
        list sending the frame to Python (IndexError)."""
        return self._read(tx, _int_index(tx, index))

    def setitem(self, tx: Interpreter, index: VariableTracker, value: VariableTracker) -> None:
        """`lst[k] = v` of an item of the list's type at a constant or run-time int: a
        store, an index outside the list sending the frame to Python (IndexError)."""
        key = self.state.name
        buffer, count = tx.locals.get(BUFFER + key), tx.locals.get(COUNT + key)
        if self.state.item is None or not isinstance(buffer, ArrayVariable) or (
                not isinstance(count, ArrayVariable)):
            raise _refuse("a store into a list whose item type is not known")
        item, other = self._typed(tx, value)
        graph = tx.graph
        at = _checked_position(tx, count.value, _int_index(tx, index), self._head(tx))
        buffer.update_in_place(graph.op("store", [buffer.value, item, at]))
        self._flag(tx, other, at)

    def _typed(self, tx: Interpreter, vt: VariableTracker) -> tuple[Value, Value | bool]:
        """The value of an item stored or appended, and whether it is of the list's other
        type (`Appended.other`: a Python int where the items are NumPy int64 scalars, or
        the reverse; a 0-d bool of the graph for a choice of the two, `max(best[c], cand)`).
        A first item of the other type teaches it (the body is traced again); any other
        type refuses."""
        from ember.capture.variables.choice import ChoiceVariable

        if isinstance(vt, ChoiceVariable):
            sides = [s.value for s in (vt.if_true, vt.if_false) if isinstance(s, ArrayVariable)]
            if len(sides) != 2 or not isinstance(vt.flag, ArrayVariable) or any(
                    v.graph is not tx.graph for v in sides):
                raise _refuse(f"a store of {vt.describe()}")
            kinds = [self._learn(_kind(v)) for v in sides]
            graph = tx.graph
            value = graph.op("where", [vt.flag.value, *sides], scalar=True)
            item = self.state.item or _kind(sides[0])
            value = graph.op("astype", [value], dtype=item[0], weak=item[2], scalar=item[3])
            if kinds[0] == kinds[1]:
                return value, kinds[0]
            return value, vt.flag.value if kinds[0] else graph.op("logical_not",
                                                                 [vt.flag.value])
        value = _item_value(tx, vt)
        python = mixed_picks.flag_of(tx.graph, value)
        if python is not None and not value.shape and mixed_picks.exact(value) and (
                mixed_picks.only_path_picks(tx.graph)):
            # A pick of the paths of a branch (`x` a Python int on one, `parent[x]` on the
            # other), and no value of a run-time type but such picks: the item is the Python
            # number where its flag holds, which the list's flags record.
            numpy_kind = _kind(value)
            kinds = [self._learn(k, picked=True) for k in (
                numpy_kind, (value.dtype, (), True, False))]
            if kinds[0] == kinds[1]:
                return value, kinds[0]
            return value, python if kinds[1] else tx.graph.op("logical_not", [python])
        return value, self._learn(_kind(value))

    def _learn(self, kind: ItemType, picked: bool = False) -> bool:
        """Whether an item of `kind` is of the list's other type, learning it where the list
        has none yet (a number of the items' dtype, the other of Python number and NumPy
        scalar); refuses any other type. `picked`: an item whose type its pick's flag says,
        which values of a run-time type elsewhere in the body do not change."""
        state = self.state
        if state.item is None or kind == state.item or state.guessed:
            return False  # (a trace that read placeholder items is done over)
        if kind == state.other:
            return True
        item = state.item
        numbers = kind[0] == item[0] and not kind[1] and not item[1] and (
            kind[2] or kind[3]) and (item[2] or item[3])
        if state.other is not None or not (numbers or compatible(kind, item)) or (
                not picked and list_items.flagged_numbers(state.region)):
            raise _refuse("a store of another type than the list's items")
        state.other, state.learned = kind, True
        return True

    def _flag(self, tx: Interpreter, other: Value | bool, at: Value) -> bool:
        """Record at place `at` whether the item is of the other type; whether it did."""
        flags = tx.locals.get(FLAGS + self.state.name)
        if self.state.other is None or not isinstance(flags, ArrayVariable):
            return False  # a trace that learned the other type is done over
        graph = tx.graph
        flag = graph.const(other, np.bool_, weak=False) if isinstance(other, bool) else other
        flags.update_in_place(graph.op("store", [flags.value, flag, at]))
        return True

    def len_variable(self, tx: Interpreter) -> VariableTracker:
        """`len(lst)`: the count the body carries, a Python int at run time."""
        count = tx.locals.get(COUNT + self.state.name)
        if not isinstance(count, ArrayVariable):
            raise _refuse("len() of a list whose count this body does not carry")
        from ember.capture.variables.appended import python_int

        head = self._head(tx)
        length = count.value if head is None else tx.graph.op("sub", [count.value, head])
        return ArrayVariable(python_int(tx.graph, length))

    def append(self, tx: Interpreter, item: VariableTracker, left: bool = False) -> None:
        """`lst.append(item)`; `left`: `q.appendleft(item)`, stored before the head, in the
        room a deque appended to on the left has there (`enter`)."""
        if left and not self.state.left:
            # Learned here: the body is traced again with room before the head.
            self.state.left = self.state.front = self.state.learned = True
        numbers = list_items.tuple_values(tx, item)
        other: Value | bool = False
        if numbers is not None:
            value = numbers[0]
        elif self.state.item is not None and not self.state.item[1]:
            value, other = self._typed(tx, item)
        else:
            value = _item_value(tx, item)
        if value.shape:
            self.state.rows.append((*_fresh_row(tx, item, value), item))
        state = self.state
        kind: ItemType = (value.dtype, tuple(value.shape), value.weak, value.scalar)
        if numbers is not None:
            kind = list_items.item_kind(item, numbers)  # type: ignore[assignment]
            if state.item is not None and is_tuple(state.item) and kind != state.item and (
                    kind is not None and compatible(kind, state.item)):
                # Python numbers where the list's tuples hold NumPy scalars, or the reverse
                # (`pq = [(0.0, s)]`, then `heappush(pq, (nd, u))`): flagged.
                other = self._learn(kind)
                kind = state.item if other else kind
        elif other is not False:
            kind = state.item  # type: ignore[assignment]  # the list's other type
        if not value.shape and not (value.weak or value.scalar):
            raise _refuse("an append of a 0-d array")
        if any(isinstance(d, str) for d in value.shape):
            raise _refuse("an append of an array of symbolic shape")
        repeats = _repeats(tx, state)
        state.open = state.open or repeats is None
        state.traced += repeats or 1
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
        if state.traced > state.per_trip and state.capacity is None:
            raise _refuse("more appends on a trace than the first one made")
        if not isinstance(buffer, ArrayVariable):
            raise _refuse("an append to a list whose buffer this body does not carry")
        head = self._head(tx)
        if left and head is not None:
            at = _within_left(tx, head)
        else:
            at = count.value if state.capacity is None else _within(tx, count.value,
                                                                     state.capacity)
        if numbers is not None:
            for j, number in enumerate(numbers):
                if is_mixed(kind):
                    number = mixed_stored(tx, number)
                buffer.update_in_place(graph.op("store", [buffer.value, number, at,
                                                          graph.const(j)]))
            self._flag(tx, other, at)
        elif value.shape:
            from ember.capture.loops import windows

            windows.scatter(tx, buffer, windows.row_axes(buffer.value.shape, at),
                            ArrayVariable(value))
        else:
            stored = graph.op("store", [buffer.value, value, at])
            if not self._flag(tx, other, at) or not isinstance(other, Value):
                mixed_picks.object_kept(graph, stored)  # the list holds the object appended
            buffer.update_in_place(stored)
        if left and head is not None:
            tx.locals[HEAD + key] = ArrayVariable(at)
            return
        tx.locals[COUNT + key] = ArrayVariable(graph.op("add", [count.value, graph.const(1)]))


def _within(tx: Interpreter, count: Value, capacity: int) -> Value:
    """Where an open list's append stores: at the count, or, once the buffer is full, in its
    last place, with a run-time check that sends the frame to Python."""
    from ember.capture.loops.frame_branches import add_check

    graph = tx.graph
    full = graph.op("ge", [count, graph.const(capacity)])
    add_check(tx, full)
    return graph.op("where", [full, graph.const(capacity - 1), count])


def _within_left(tx: Interpreter, head: Value) -> Value:
    """Where `appendleft` stores: before the head, or, once the room there is used up, in
    place 0, with a run-time check that sends the frame to Python."""
    from ember.capture.loops.frame_branches import add_check

    graph = tx.graph
    int64 = np.dtype(np.int64)
    at = graph.op("astype", [graph.op("sub", [head, graph.const(1)])], dtype=int64, weak=False,
                  scalar=True)
    full = graph.op("lt", [at, graph.const(0)])
    add_check(tx, full)
    at = graph.op("where", [full, graph.const(0, int64, weak=False), at])
    # Of the head's type (a Python int), as `_checked_position` keeps the count's.
    return graph.op("astype", [at], dtype=head.dtype, weak=head.weak, scalar=head.scalar)


def _repeats(tx: Interpreter, state: Appended) -> int | None:
    """How often an append at this point runs on one trip of the list's loop: the product of
    the trip counts of the loop ops around it inside the body (a path of a branch runs at
    most once); None where a loop around it has a trip count only the run time knows (a
    `while`, a range of bounds capture cannot bound)."""
    graph, repeats = tx.graph, 1
    while graph is not state.region:
        if graph.parent is None:
            raise _refuse("an append outside the loop that carries the list")
        if not _BRANCH_REGION.search(graph.name):
            trips = state.nested.get(id(graph))
            if trips is None:
                return None
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


def _int_index(tx: Interpreter, index: VariableTracker) -> Value:
    """A list index: a constant int or a 0-d integer value of the graph."""
    if isinstance(index, ConstantVariable) and type(index.constant()) is int:
        return tx.graph.const(index.constant())
    if isinstance(index, ArrayVariable) and not index.value.shape and (
            index.value.dtype.kind in "iu"):
        return index.value
    raise _refuse(f"indexing a list of the loop by {index.describe()}")


def _checked_position(tx: Interpreter, count: Value, k: Value, head: Value | None = None
                      ) -> Value:
    """The place of item `k` (from the end where negative) of a list whose items lie at
    places `head` (0 where None) to `count`; one outside them sets a run-time check (Python
    raises IndexError) and reads place 0."""
    from ember.capture.loops.frame_branches import add_check

    graph = tx.graph
    int64 = np.dtype(np.int64)
    # Computed as int64 scalars, then of the count's type (a Python int): a count a pop
    # sets keeps the type appends give it.
    end, k = (graph.op("astype", [v], dtype=int64, weak=False, scalar=True) for v in (count, k))
    zero = graph.const(0, int64, weak=False)
    first = zero if head is None else graph.op("astype", [head], dtype=int64, weak=False,
                                               scalar=True)
    ahead = k if head is None else graph.op("add", [first, k])
    at = graph.op("where", [graph.op("lt", [k, zero]), graph.op("add", [end, k]), ahead])
    outside = graph.op("logical_or", [graph.op("lt", [at, first]), graph.op("ge", [at, end])])
    add_check(tx, outside)
    at = graph.op("where", [outside, zero, at])
    return graph.op("astype", [at], dtype=count.dtype, weak=count.weak, scalar=count.scalar)


_DEQUE_ONLY = frozenset({"popleft", "appendleft"})


class _ListMethod(VariableTracker):
    def __init__(self, owner: BodyList, name: str) -> None:
        self.owner, self.name = owner, name

    def describe(self) -> str:
        return f"list.{self.name}"

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        if self.name == "popleft" and not args and not kwargs:
            return self.owner.pop_front(tx)
        if self.name == "appendleft" and len(args) == 1 and not kwargs:
            self.owner.append(tx, args[0], left=True)
            return ConstantVariable(None)
        if self.name == "extend" and len(args) == 1 and not kwargs:
            # `stack.extend([(r + 1, c), (r - 1, c)])`: a few items known to capture, each
            # appended in turn.
            from ember.capture.variables.containers import SequenceVariable

            items = args[0]
            if isinstance(items, ConstantVariable) and type(items.constant()) in (list, tuple):
                items = SequenceVariable([ConstantVariable(c) for c in items.constant()])
            if not isinstance(items, SequenceVariable) or (
                    getattr(items, "unread", False)) or len(items.items) > 16:
                raise _refuse(f"list.extend of {args[0].describe()}")
            for one in list(items.items):
                self.owner.append(tx, one)
            return ConstantVariable(None)
        if self.name == "pop":
            at = args[0].constant() if len(args) == 1 and isinstance(
                args[0], ConstantVariable) and type(args[0].constant()) is int else None
            if self.owner.state.deque and (args or kwargs):
                raise _refuse("deque.pop of an index")  # Python raises TypeError
            if at == 0 and not kwargs:
                return self.owner.pop_front(tx)
            if (args and at != -1) or kwargs:
                raise _refuse("list.pop of an index other than 0 and -1")
            return self.owner.pop(tx)
        if kwargs or len(args) != 1:
            raise _refuse("list.append with other than one argument")
        self.owner.append(tx, args[0])
        return ConstantVariable(None)
