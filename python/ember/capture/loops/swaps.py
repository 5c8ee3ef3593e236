"""Two arrays private to the frame swapped between locals in a loop body (`prev, cur = cur,
prev`), carried as each array's own buffer with the other's contents.

Python swaps the objects; as nothing else sees them (`Group.private`: created in the frame,
viewed by nothing), swapping their contents at the end of the trip is the same program, and
keeps every carried array updated in place, as a native loop needs: one more loop op over the
elements per trip, where the trip already touches them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.graph import Graph, Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.capture.variables.base import VariableTracker


def unseen(tx: Interpreter, vt: Any, may_hold: Callable[[str], bool]) -> bool:
    """Whether the frame's array `vt` is one no one can tell from a copy: the frame's graph
    computed it (no argument, no view), no view of it is still held (`ArrayVariable.viewed`),
    no local but those `may_hold` allows holds it, and nothing else reaches it
    (`held_elsewhere`). A branch's merged value may then stand for it."""
    from ember.capture.variables.array import VIEW_OPS

    if vt.source is not None:
        return False
    made = next((n for n in tx.graph.nodes if n.out is vt.value), None)
    if made is None or made.op in VIEW_OPS or vt.viewed(tx):
        return False
    if any(local is vt and not may_hold(name) for name, local in tx.locals.items()):
        return False
    return not held_elsewhere(tx, vt)


def held_elsewhere(tx: Interpreter, vt: VariableTracker, own_stack: bool = False) -> bool:
    """Whether anything but `tx`'s locals bound to `vt` itself reaches it (a list holding the
    array, another frame, a cell, the stack): its identity is then seen, so it is not private
    to the frame and may not be swapped. `own_stack`: `vt` itself on `tx`'s stack is fine
    too (a comprehension's list)."""
    tracer = tx.tracer
    roots: list = [*tracer.attribute_stores, *tracer.global_stores.values(),
                   *tracer.cell_stores, *tracer.container_stores]
    for frame in tracer.frames:
        roots += [s for s in frame.stack if not (own_stack and frame is tx and s is vt)]
        roots += [*frame.cells.values()]
        if frame is not tx:
            roots += frame.locals.values()
    roots += [child for local in tx.locals.values() if local is not vt
              for child in [local, *local.children()]]
    seen: set[int] = set()
    while roots:
        found = roots.pop()
        if found is vt:
            return True
        if id(found) in seen:
            continue
        seen.add(id(found))
        roots.extend(found.children())
    return False


def swappable(a: Value, b: Value) -> bool:
    return (a.dtype == b.dtype and a.shape == b.shape and a.ndim > 0
            and all(isinstance(d, int) for d in a.shape))


def swap_contents(graph: Graph, a: Value, b: Value) -> tuple[Value, Value]:
    """`a` with `b`'s elements and `b` with `a`'s, each in its own buffer: a loop op per
    axis, loading both elements and storing each into the other."""
    return _swap(graph, a, b, [])


def _swap(graph: Graph, a: Value, b: Value, prefix: list[Value]) -> tuple[Value, Value]:
    axis = len(prefix)
    body = graph.region("loop")
    index = body.add_input(np.int64, (), weak=True)
    pa = body.add_input(a.dtype, a.shape, scalar=a.scalar)
    pb = body.add_input(b.dtype, b.shape, scalar=b.scalar)
    outer = [body.add_input(np.int64, (), weak=True) for _ in prefix]
    indices = [*outer, index]
    if axis == a.ndim - 1:
        x = body.op("load", [pa, *indices])
        y = body.op("load", [pb, *indices])
        na = body.op("store", [pa, y, *indices])
        nb = body.op("store", [pb, x, *indices])
    else:
        na, nb = _swap(body, pa, pb, indices)
    body.set_outputs([body.const(True, weak=False), na, nb])
    na, nb = graph.loop(graph.const(0), graph.const(a.shape[axis]), graph.const(1), [a, b],
                        prefix, body)
    return na, nb
