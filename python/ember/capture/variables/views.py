"""Basic slices that follow their base: `u = U[1:-1, 1:-1]` then `u += ...` or `U[0] = ...`.

NumPy's `u` shares `U`'s memory, so an update of either shows in the other. A functional
graph has no shared memory: `u` is a `SliceView` of the tracker `U`, whose value is taken
again from `U`'s after each update of `U` (`follow`), and whose update is an item assignment
into `U` (`update_in_place`). Its value is therefore never a stale copy, and a held
`SliceView` does not count as a view that forbids updating its base (`Tracer.held_values`).
The entry rebuilds it as a view of the base's result (`rebuild.py`), so the object the
function returns shares the argument's memory as NumPy's does."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from ember import numpy_api
from ember.capture.variables.array import VIEW_OPS, ArrayVariable
from ember.graph import Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.capture.tracer import Tracer


class SliceView(ArrayVariable):
    """`base[index]` of constant ints and slices, kept equal to it."""

    follows_base = True  # its value is not a view that holds the base's old contents

    def __init__(self, base: ArrayVariable, index: Any, value: Value, tracer: Tracer) -> None:
        super().__init__(value)
        self.base, self.index, self.tracer = base, index, tracer
        base.followers.append(weakref.ref(self))

    def children(self) -> tuple[ArrayVariable, ...]:
        return (self.base,)

    def is_fresh(self, tx: Interpreter) -> bool:
        """Updatable in place wherever its base is (the update goes to the base)."""
        base = self.base
        return (base.is_fresh(tx) or base.is_mutable_input(tx)) and not self.viewed(tx)

    def is_mutable_input(self, tx: Interpreter) -> bool:
        return False

    def update_in_place(self, value: Value) -> None:
        graph = value.graph
        base = self.base
        base.update_in_place(numpy_api.setitem(graph, base.value, self.index, value))
        root = self.root()
        if root.source is not None:
            self.tracer.mark_mutated(root)

    def follow(self) -> None:
        self.value = numpy_api.getitem(self.base.value.graph, self.base.value, self.index)
        self.notify_followers()

    def root(self) -> ArrayVariable:
        base = self.base
        while isinstance(base, SliceView):
            base = base.base
        return base


def follows(base: ArrayVariable, index: Any, result: Any, tracer: Tracer) -> SliceView | None:
    """`result`, computed as `base[index]`, as a `SliceView` where it is a view of the base by
    constant ints and slices; None otherwise (a NumPy scalar, a copy)."""
    if not isinstance(result, Value) or result.scalar or result.weak or result is base.value:
        return None
    items = index if isinstance(index, tuple) else (index,)
    if not all(_basic(item) for item in items):
        return None
    producer = next((n for n in reversed(result.graph.nodes) if n.out is result), None)
    if producer is None or producer.op not in VIEW_OPS:
        return None
    return SliceView(base, index, result, tracer)


def _basic(item: object) -> bool:
    if isinstance(item, slice):
        return all(p is None or type(p) is int for p in (item.start, item.stop, item.step))
    return type(item) is int or isinstance(item, np.integer)


def alive(base: ArrayVariable) -> list[SliceView]:
    """The `SliceView`s that still follow `base`."""
    return [v for v in (ref() for ref in base.followers) if v is not None]
