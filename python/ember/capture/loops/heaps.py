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

FUNCTIONS = frozenset({heapq.heappush, heapq.heappop, heapq.heapreplace, heapq.heappushpop})
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
    if fn in (heapq.heapreplace, heapq.heappushpop) and len(args) == 2:
        return replace(tx, heap, args[1], pushpop=fn is heapq.heappushpop)
    return None


def _state(tx: Interpreter, heap: BodyList
           ) -> tuple[list[ArrayVariable], ArrayVariable, int] | None:
    """The heap's buffers (its items', and its flags' where the list holds items of two
    types: `appends.Appended.other`), its count and how many numbers an item holds; None on
    a trace that does not know the items' type yet (it is done over)."""
    from ember.capture.loops.appends import BUFFER, COUNT, FLAGS, HEAD

    state = heap.state
    if state.item is None or state.learned:
        return None
    if HEAD + state.name in tx.locals:
        raise graph_break("loop_body", what="a heap also popped from the front")
    if state.item[1] and not is_tuple(state.item):
        raise graph_break("loop_body", what="a heap of arrays")
    buffer, count = tx.locals.get(BUFFER + state.name), tx.locals.get(COUNT + state.name)
    flags = tx.locals.get(FLAGS + state.name)
    if not isinstance(buffer, ArrayVariable) or not isinstance(count, ArrayVariable) or (
            state.other is not None and not isinstance(flags, ArrayVariable)):
        return None
    held = [buffer, flags] if state.other is not None else [buffer]
    return held, count, state.item[1][0] if state.item[1] else 0  # type: ignore[return-value]


def push(tx: Interpreter, heap: BodyList, item: VariableTracker) -> None:
    """`heappush(heap, item)`: appended, then moved up."""
    heap.append(tx, item)
    held = _state(tx, heap)
    if held is None:
        return
    stores, count, width = held
    graph = tx.graph
    at = graph.op("sub", [count.value, graph.const(1)])
    bufs = [b.value for b in stores]
    new = _row(graph, bufs, at, width)
    _no_nan(tx, new[:width or 1])
    for b, walked in zip(stores, _sift_down(graph, bufs, graph.const(0), at, new, width),
                         strict=True):
        b.update_in_place(walked)


def pop(tx: Interpreter, heap: BodyList) -> VariableTracker:
    """`heappop(heap)`: the first item; the last one put first and moved down, then up. An
    empty heap sends the frame to Python (IndexError)."""
    last = heap.pop(tx)  # checks the count, which is one less after
    held = _state(tx, heap)
    if held is None:
        return last
    stores, count, width = held
    graph = tx.graph
    zero = graph.const(0)
    bufs = [b.value for b in stores]
    first = _row(graph, bufs, zero, width)
    # Where the heap is empty now, the last item was the first: `heap[0]` is it still.
    moved = _row(graph, bufs, count.value, width)
    for b, walked in zip(stores, _sift_up(graph, bufs, count.value, moved, width),
                         strict=True):
        b.update_in_place(walked)
    return _item_of(graph, heap, first, width)


def replace(tx: Interpreter, heap: BodyList, item: VariableTracker, pushpop: bool
            ) -> VariableTracker:
    """`heapreplace(heap, item)`: the first item, `item` put first and moved down (an empty
    heap sends the frame to Python: IndexError). `heappushpop(heap, item)`: the same where
    the heap's first item is less than `item`, else `item` itself and the heap unchanged."""
    from ember.capture.loops.frame_branches import add_check

    # The item's type and numbers: appended (teaching the type), then taken off again.
    heap.append(tx, item)
    held = _state(tx, heap)
    if held is None:
        return item
    stores, count, width = held
    graph = tx.graph
    zero, one = graph.const(0), graph.const(1)
    end = graph.op("sub", [count.value, one])
    bufs = [b.value for b in stores]
    new = _row(graph, bufs, end, width)
    _no_nan(tx, new[:width or 1])
    from ember.capture.loops.appends import COUNT

    tx.locals[COUNT + heap.state.name] = ArrayVariable(end)
    first = _row(graph, bufs, zero, width)
    filled = graph.op("gt", [end, zero])
    if pushpop:
        compared = width or 1
        swap = graph.op("logical_and", [filled, _less(graph, first[:compared],
                                                      new[:compared])])
        taken = [graph.op("where", [swap, f, n]) for f, n in zip(first, new, strict=True)]
    else:
        add_check(tx, graph.op("logical_not", [filled]))  # IndexError: index out of range
        swap, taken = filled, first
    walked = _sift_up(graph, bufs, end, new, width, swap)
    for b, w in zip(stores, walked, strict=True):
        b.update_in_place(w)
    return _item_of(graph, heap, taken, width)


def _item_of(graph: Graph, heap: BodyList, numbers: list[Value], width: int
             ) -> VariableTracker:
    from ember.capture.variables.appended import as_item

    item, other = heap.state.item, heap.state.other
    if width:
        # The tuple from its numbers, as `tuple_at` reads one: a one-row buffer of them.
        from ember.capture.variables.appended import tuple_at

        row = graph.full((1, width), 0, numbers[0].dtype)
        for j in range(width):
            row = graph.op("store", [row, numbers[j], graph.const(0), graph.const(j)])
        flag = numbers[width] if other is not None else None
        return tuple_at(graph, row, graph.const(0), item, flag, other)
    number = ArrayVariable(as_item(graph, numbers[0], item))
    if other is None:
        return number
    from ember.capture.variables.choice import ChoiceVariable

    return ChoiceVariable(ArrayVariable(numbers[1]), ArrayVariable(as_item(
        graph, numbers[0], other)), number)


def _row(graph: Graph, bufs: list[Value], at: Value, width: int) -> list[Value]:
    """The numbers of the item at place `at`, then its flag where the heap has one."""
    buffer, *flags = bufs
    numbers = ([graph.op("load", [buffer, at])] if not width else
               [graph.op("load", [buffer, at, graph.const(j)]) for j in range(width)])
    return numbers + [graph.op("load", [f, at]) for f in flags]


def _stored(graph: Graph, bufs: list[Value], at: Value, numbers: list[Value], width: int
            ) -> list[Value]:
    buffer, *flags = bufs
    if not width:
        buffer = graph.op("store", [buffer, numbers[0], at])
    for j in range(width):
        buffer = graph.op("store", [buffer, numbers[j], at, graph.const(j)])
    return [buffer, *(graph.op("store", [f, v, at])
                      for f, v in zip(flags, numbers[width or 1:], strict=True))]


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


def _walk(graph: Graph, bufs: list[Value], at: Value, fixed: list[Value],
          step: object, walks: Value | None = None) -> tuple[Value, list[Value]]:
    """A loop op of at most `_DEPTH` trips carrying a place and the buffers: `step(body,
    place, buffers, fixed)` gives each trip's go, next place and buffers. `walks`: where
    false, no trip."""
    body = graph.region("loop")
    body.add_input(np.int64, (), weak=True)
    place = body.add_input(at.dtype, (), weak=at.weak, scalar=at.scalar)
    held = [body.add_input(b.dtype, b.shape) for b in bufs]
    inner = [body.add_input(v.dtype, v.shape, weak=v.weak, scalar=v.scalar) for v in fixed]
    go, nxt, moved = step(body, place, held, inner)  # type: ignore[operator]
    nxt = body.op("astype", [nxt], dtype=at.dtype, weak=at.weak, scalar=at.scalar)
    body.set_outputs([go, nxt, *moved])
    trips = graph.const(_DEPTH) if walks is None else graph.op(
        "where", [walks, graph.const(_DEPTH), graph.const(0)])
    last, *walked = graph.loop(graph.const(0), trips, graph.const(1), [at, *bufs], fixed, body)
    return last, walked


def _sift_down(graph: Graph, bufs: list[Value], start: Value, at: Value, new: list[Value],
               width: int) -> list[Value]:
    """CPython's `_siftdown(heap, start, at)`: the item `new` (at place `at`) moves up past
    each parent it is less than, the parents down one level."""
    compared = width or 1

    def step(body: Graph, place: Value, held: list[Value], inner: list[Value]
             ) -> tuple[Value, Value, list[Value]]:
        low, numbers = inner[0], inner[1:]
        one = body.const(1)
        parent_at = body.op("floordiv", [body.op("maximum", [body.op("sub", [place, one]),
                                                             body.const(0)]),
                                         body.const(2)])
        parent = _row(body, held, parent_at, width)
        up = body.op("logical_and", [body.op("gt", [place, low]),
                                     _less(body, numbers[:compared], parent[:compared])])
        here = _row(body, held, place, width)
        kept = [body.op("where", [up, p, h]) for p, h in zip(parent, here, strict=True)]
        return up, body.op("where", [up, parent_at, place]), _stored(body, held, place, kept,
                                                                        width)

    last, walked = _walk(graph, bufs, at, [start, *new], step)
    return _stored(graph, walked, last, new, width)


def _sift_up(graph: Graph, bufs: list[Value], end: Value, new: list[Value], width: int,
             walks: Value | None = None) -> list[Value]:
    """CPython's `_siftup(heap, 0)` of a heap of `end` items whose first place is to hold
    `new`: the smaller child moves up one level until a leaf is reached; `new` is put there
    and moved up again (`_sift_down`). `walks`: where false, the heap is left as it is."""
    compared = width or 1

    def step(body: Graph, place: Value, held: list[Value], inner: list[Value]
             ) -> tuple[Value, Value, list[Value]]:
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
            "logical_not", [_less(body, left_row[:compared], right_row[:compared])])])
        chosen = body.op("where", [take_right, safe_right, safe_child])
        chosen_row = [body.op("where", [take_right, r, c])
                      for r, c in zip(right_row, left_row, strict=True)]
        here = _row(body, held, place, width)
        kept = [body.op("where", [down, c, h]) for c, h in zip(chosen_row, here, strict=True)]
        return down, body.op("where", [down, chosen, place]), _stored(body, held, place, kept,
                                                                      width)

    zero = graph.const(0)
    if walks is not None:
        # No walk: the first item stays (stored again where it is). Read before the walk,
        # which takes the buffers over.
        new = [graph.op("where", [walks, n, f])
               for n, f in zip(new, _row(graph, bufs, zero, width), strict=True)]
    leaf, walked = _walk(graph, bufs, zero, [end], step, walks)
    return _sift_down(graph, walked, zero, leaf, new, width)
