"""`heapq.heappush(h, item)` and `heapq.heappop(h)` on a list a loop op carries
(`loops/appends.py`): a priority queue of numbers or of tuples of numbers (`(dist, v)`), as
Dijkstra's and Prim's algorithms and event simulations keep one.

The heap is the list's buffer and count. A push appends the item, then moves it up as
CPython's `heapq` does (`_siftdown`); a pop takes the last item, puts it first and moves it
down to a leaf and back up (`_siftup`), so that the heap holds its items in exactly the
order CPython's would: the items a later pop returns, ties included, are Python's. Each
walk is an inner loop op of at most 64 trips (a heap's depth), one trip per level.

Items compare as Python compares them: numbers by value, tuples item by item, the first
unequal pair deciding. A NaN would compare equal to itself where it is one object, which a
buffer cannot tell: a float NaN pushed sends the frame to Python."""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.variables.appended import is_tuple
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.graph import Graph, Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.capture.loops.appends import BodyList

FUNCTIONS = frozenset({heapq.heappush, heapq.heappop})
# A heap of up to 2**64 items is at most this deep.
_DEPTH = 64


def call(tx: Interpreter, fn: object, args: list[VariableTracker]) -> VariableTracker | None:
    """`heappush(h, item)` / `heappop(h)` of a list a loop op carries; None for anything else
    (the call then runs as Python would, or breaks the graph)."""
    from ember.capture.loops.appends import BodyList

    if not args or not isinstance(args[0], BodyList):
        return None
    heap = args[0]
    if fn is heapq.heappush and len(args) == 2:
        push(tx, heap, args[1])
        from ember.capture.variables.constant import ConstantVariable

        return ConstantVariable(None)
    if fn is heapq.heappop and len(args) == 1:
        return pop(tx, heap)
    return None


def _state(tx: Interpreter, heap: BodyList) -> tuple[ArrayVariable, ArrayVariable, int] | None:
    """The heap's buffer, its count and how many numbers an item holds; None on a trace that
    does not know the items' type yet (it is done over)."""
    from ember.capture.loops.appends import BUFFER, COUNT, HEAD

    state = heap.state
    if state.item is None or state.learned:
        return None
    if state.other is not None or HEAD + state.name in tx.locals:
        raise graph_break("loop_body", what="a heap of Python numbers and NumPy scalars, or "
                                            "one also popped from the front")
    if state.item[1] and not is_tuple(state.item):
        raise graph_break("loop_body", what="a heap of arrays")
    buffer, count = tx.locals.get(BUFFER + state.name), tx.locals.get(COUNT + state.name)
    if not isinstance(buffer, ArrayVariable) or not isinstance(count, ArrayVariable):
        return None
    return buffer, count, state.item[1][0] if state.item[1] else 0


def push(tx: Interpreter, heap: BodyList, item: VariableTracker) -> None:
    """`heappush(heap, item)`: appended, then moved up."""
    heap.append(tx, item)
    held = _state(tx, heap)
    if held is None:
        return
    buffer, count, width = held
    graph = tx.graph
    at = graph.op("sub", [count.value, graph.const(1)])
    new = _row(graph, buffer.value, at, width)
    _no_nan(tx, new)
    buffer.update_in_place(_sift_down(graph, buffer.value, graph.const(0), at, new, width))


def pop(tx: Interpreter, heap: BodyList) -> VariableTracker:
    """`heappop(heap)`: the first item; the last one put first and moved down, then up. An
    empty heap sends the frame to Python (IndexError)."""
    last = heap.pop(tx)  # checks the count, which is one less after
    held = _state(tx, heap)
    if held is None:
        return last
    buffer, count, width = held
    graph = tx.graph
    zero = graph.const(0)
    first = _row(graph, buffer.value, zero, width)
    # Where the heap is empty now, the last item was the first: `heap[0]` is it still.
    moved = _row(graph, buffer.value, count.value, width)
    walked = _sift_up(graph, buffer.value, count.value, moved, width)
    buffer.update_in_place(walked)
    return _item_of(graph, heap, first, width)


def _item_of(graph: Graph, heap: BodyList, numbers: list[Value], width: int
             ) -> VariableTracker:
    from ember.capture.variables.appended import as_item, columns

    item = heap.state.item
    if not width:
        return ArrayVariable(as_item(graph, numbers[0], item))
    from ember.capture.variables.containers import TupleVariable

    return TupleVariable([ArrayVariable(as_item(graph, v, kind))
                          for v, kind in zip(numbers, columns(item), strict=True)])


def _row(graph: Graph, buffer: Value, at: Value, width: int) -> list[Value]:
    """The numbers of the item at place `at`."""
    if not width:
        return [graph.op("load", [buffer, at])]
    return [graph.op("load", [buffer, at, graph.const(j)]) for j in range(width)]


def _stored(graph: Graph, buffer: Value, at: Value, numbers: list[Value], width: int
            ) -> Value:
    if not width:
        return graph.op("store", [buffer, numbers[0], at])
    for j, v in enumerate(numbers):
        buffer = graph.op("store", [buffer, v, at, graph.const(j)])
    return buffer


def _less(graph: Graph, a: list[Value], b: list[Value]) -> Value:
    """`a < b` as Python compares two numbers, or two tuples item by item."""
    result = graph.const(False, np.bool_, weak=False)
    decided = graph.const(False, np.bool_, weak=False)
    for x, y in zip(a, b, strict=True):
        differ = graph.op("ne", [x, y])
        here = graph.op("logical_and", [differ, graph.op("lt", [x, y])])
        result = graph.op("where", [decided, result, here])
        decided = graph.op("logical_or", [decided, differ])
    return result


def _no_nan(tx: Interpreter, numbers: list[Value]) -> None:
    from ember.capture.loops.frame_branches import add_check

    graph = tx.graph
    for v in numbers:
        if v.dtype.kind == "f":
            add_check(tx, graph.op("isnan", [v]))


def _walk(graph: Graph, buffer: Value, at: Value, fixed: list[Value],
          step: object) -> tuple[Value, Value]:
    """A loop op of at most `_DEPTH` trips carrying a place and the buffer: `step(body,
    place, buffer, fixed)` gives each trip's go, next place and buffer."""
    body = graph.region("loop")
    body.add_input(np.int64, (), weak=True)
    place = body.add_input(at.dtype, (), weak=at.weak, scalar=at.scalar)
    held = body.add_input(buffer.dtype, buffer.shape)
    inner = [body.add_input(v.dtype, v.shape, weak=v.weak, scalar=v.scalar) for v in fixed]
    go, nxt, moved = step(body, place, held, inner)  # type: ignore[operator]
    nxt = body.op("astype", [nxt], dtype=at.dtype, weak=at.weak, scalar=at.scalar)
    body.set_outputs([go, nxt, moved])
    last, walked = graph.loop(graph.const(0), graph.const(_DEPTH), graph.const(1),
                              [at, buffer], fixed, body)
    return last, walked


def _sift_down(graph: Graph, buffer: Value, start: Value, at: Value, new: list[Value],
               width: int) -> Value:
    """CPython's `_siftdown(heap, start, at)`: the item `new` (at place `at`) moves up past
    each parent it is less than, the parents down one level."""
    def step(body: Graph, place: Value, held: Value, inner: list[Value]
             ) -> tuple[Value, Value, Value]:
        low, numbers = inner[0], inner[1:]
        one = body.const(1)
        parent_at = body.op("floordiv", [body.op("maximum", [body.op("sub", [place, one]),
                                                             body.const(0)]),
                                         body.const(2)])
        parent = _row(body, held, parent_at, width)
        up = body.op("logical_and", [body.op("gt", [place, low]),
                                     _less(body, numbers, parent)])
        here = _row(body, held, place, width)
        kept = [body.op("where", [up, p, h]) for p, h in zip(parent, here, strict=True)]
        return up, body.op("where", [up, parent_at, place]), _stored(body, held, place, kept,
                                                                        width)

    last, walked = _walk(graph, buffer, at, [start, *new], step)
    return _stored(graph, walked, last, new, width)


def _sift_up(graph: Graph, buffer: Value, end: Value, new: list[Value], width: int) -> Value:
    """CPython's `_siftup(heap, 0)` of a heap of `end` items whose first place is to hold
    `new`: the smaller child moves up one level until a leaf is reached; `new` is put there
    and moved up again (`_sift_down`)."""
    def step(body: Graph, place: Value, held: Value, inner: list[Value]
             ) -> tuple[Value, Value, Value]:
        count = inner[0]
        zero, one = body.const(0), body.const(1)
        child = body.op("add", [body.op("mul", [place, body.const(2)]), one])
        down = body.op("lt", [child, count])
        right = body.op("add", [child, one])
        has_right = body.op("lt", [right, count])
        safe_child = body.op("where", [down, child, zero])
        safe_right = body.op("where", [has_right, right, zero])
        left_row, right_row = (_row(body, held, safe_child, width),
                               _row(body, held, safe_right, width))
        take_right = body.op("logical_and", [has_right, body.op(
            "logical_not", [_less(body, left_row, right_row)])])
        chosen = body.op("where", [take_right, safe_right, safe_child])
        chosen_row = [body.op("where", [take_right, r, c])
                      for r, c in zip(right_row, left_row, strict=True)]
        here = _row(body, held, place, width)
        kept = [body.op("where", [down, c, h]) for c, h in zip(chosen_row, here, strict=True)]
        return down, body.op("where", [down, chosen, place]), _stored(body, held, place, kept,
                                                                      width)

    zero = graph.const(0)
    leaf, walked = _walk(graph, buffer, zero, [end], step)
    return _sift_down(graph, walked, zero, leaf, new, width)
