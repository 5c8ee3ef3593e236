"""What a list a loop body appends to starts as (`appends.enter`): the type and values of
its items before the loop (a list literal of a few numbers or tuples, one number repeated,
the buffer an earlier loop op built), and the buffer that holds them with room for what
the loop appends (before the head too, for `appendleft`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ember.capture.loops import list_items
from ember.capture.variables.appended import AppendedListVariable, ItemType, is_tuple
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.containers import ListVariable
from ember.errors import Unsupported
from ember.graph import Graph, Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.capture.loops.appends import Appended

# The buffer of a list whose appends only the run time counts: at least this many items
# (a list of a few pieces built from a handful of inputs), at most this many (the buffer is
# made, and filled, on every call).
_OPEN_LEAST, _OPEN_MOST = 4096, 1 << 22

# A list literal of at most this many numbers starts a buffer (`stack = [start]`): its
# items are stored one by one; one number repeated (`[0.0] * n`) fills at most this many
# places.
_INITIAL_MOST, _UNIFORM_MOST = 16, 1 << 16


def start(tx: Interpreter, vt: VariableTracker
           ) -> tuple[ItemType | None, list[Value], AppendedListVariable | None] | None:
    """What a list the body appends to or pops from starts as: the type of its items (None
    while none is known), the values of a list of the frame holding a few numbers of one
    type (`[s]`, `[]`), or the list an earlier loop op built; None for any other list,
    which the body may not change (a side effect on state outside the graph)."""
    if isinstance(vt, AppendedListVariable):
        if vt.iterator or (vt.item[1] and not is_tuple(vt.item)) or (
                vt.buffer.graph is not tx.graph) or vt.flags is not None:
            return None
        return vt.item, [], vt
    if not isinstance(vt, ListVariable) or vt.source is not None or vt.unread:
        return None
    items = vt.items
    common = list_items.most_common(items)
    if len(items) > _INITIAL_MOST and sum(item is not common for item in items) > _INITIAL_MOST:
        return None
    if items and list_items.is_tuple_item(items[0]):
        return list_items.start_of_tuples(tx, items)
    # `[0.0] * n` holds one tracker n times: one value (`[0] * n` then `ways[0] = 1`, or
    # `[0.0] + [inf] * n`: one value and a few others).
    shared = number_value(tx, common) if items else None
    values = [shared if item is common else number_value(tx, item) for item in items]
    if len(values) > _UNIFORM_MOST or any(v is None for v in values):
        return None
    from ember.capture.loops.appends import _kind

    kinds = {_kind(v) for v in values}  # type: ignore[arg-type]
    if len(kinds) > 1:
        return None
    return (next(iter(kinds)) if kinds else None), values, None  # type: ignore[return-value]


def number_value(tx: Interpreter, item: VariableTracker) -> Value | None:
    """A number of a list literal as a value of the graph: a Python number or a NumPy
    scalar; None for anything else."""
    from ember.capture.loops.appends import _item_value

    try:
        value = _item_value(tx, item)
    except Unsupported:
        return None
    return value if not value.shape and (value.weak or value.scalar) else None


def buffer(graph: Graph, item: ItemType, capacity: int, initial: list[Value],
            built: AppendedListVariable | None) -> Value:
    """A list's buffer of `capacity` more places, filled with 1 past its items: the items
    of a list literal stored first, or the buffer an earlier loop op built extended."""
    dtype, shape = item[:2]
    fill = True if dtype == np.bool_ else 1
    buffer = graph.full((len(initial) + capacity, *shape), fill, dtype)
    if built is not None:
        return graph.op("concatenate", [built.buffer, buffer], axis=0)
    if len(initial) > _INITIAL_MOST:
        # One value repeated (`[0.0] * n`) but in a few places: the places first, the few
        # others stored after.
        counts: dict[int, int] = {}
        for value in initial:
            counts[id(value)] = counts.get(id(value), 0) + 1
        common = max(initial, key=lambda v: counts[id(v)])
        places = graph.arange(0, 1, buffer.shape[0], np.int64)
        held = graph.op("lt", [places, graph.const(len(initial))])
        buffer = graph.op("where", [held, common, graph.const(dtype.type(fill))])
        for k, value in enumerate(initial):
            if value is not common:
                buffer = graph.op("store", [buffer, value, graph.const(k)])
        return buffer
    for k, value in enumerate(initial):
        if isinstance(value, list):  # a tuple's numbers
            for j, number in enumerate(value):
                buffer = graph.op("store", [buffer, number, graph.const(k), graph.const(j)])
            continue
        buffer = graph.op("store", [buffer, value, graph.const(k)])
    return buffer


def room_before(tx: Interpreter, state: Appended, buffer: Value) -> Value:
    """`buffer` with as many places again before it (filled as past the items) for
    `appendleft`, its head and count moved past them."""
    from ember.capture.loops.appends import COUNT, HEAD

    graph = tx.graph
    room = open_capacity(tx)
    fill = True if buffer.dtype == np.bool_ else 1
    before = graph.full((room, *buffer.shape[1:]), fill, buffer.dtype)
    for pseudo in (HEAD, COUNT):
        at = tx.locals[pseudo + state.name].value  # type: ignore[attr-defined]
        tx.locals[pseudo + state.name] = ArrayVariable(graph.op("add", [at, graph.const(room)]))
    return graph.op("concatenate", [before, buffer], axis=0)


def open_capacity(tx: Interpreter) -> int:
    """How many items an open list's buffer holds: as many as the frame's arrays hold in
    all (a stack or queue of a graph's vertices, a list of the pairs a loop nest visits),
    at least `_OPEN_LEAST`, at most `_OPEN_MOST`: past it the frame runs as Python."""
    held = sum(int(np.prod(i.value.shape)) for i in tx.tracer.inputs
               if all(isinstance(d, int) for d in i.value.shape))
    return min(max(held, _OPEN_LEAST), _OPEN_MOST)
