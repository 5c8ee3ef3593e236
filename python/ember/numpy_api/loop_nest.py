"""Nested `loop` ops over an index space, for the NumPy functions whose work is element by
element with indices read from arrays (gathers, scatters, `ufunc.at`, counting). A symbolic
extent is the size's run-time value, so one graph serves every size.

Every element access is a `load` or `store`, so the native code checks each index against
its axis and raises NumPy's `IndexError` instead of touching memory outside an array
(docs/IR.md, version 2)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value

# `body(graph, indices, carried, invariants) -> carried'` at the innermost level.
Body = Callable[[Graph, list[Value], list[Value], list[Value]], list[Value]]
# `hoist(graph, indices, invariants) -> values` run once the first `depth` loop indices are
# bound: what it returns joins the invariants of every deeper level.
Hoist = Callable[[Graph, list[Value], list[Value]], list[Value]]


@dataclass
class LoopNest:
    """`for idx in np.ndindex(shape): carried = body(idx, carried, invariants)` as one loop op
    per axis, the outermost over axis 0."""

    shape: tuple[int | str, ...]  # a symbolic dim's extent is its run-time size
    body: Body
    hoists: dict[int, Hoist] = field(default_factory=dict)

    def run(self, graph: Graph, carried: Sequence[Value], invariants: Sequence[Value]
            ) -> list[Value]:
        if not graph.root.loop_ops:
            raise Unsupported("an element loop (gather, scatter, sort, count) on a backend "
                              "that does not run loop ops")
        # A symbolic extent is the size's run-time value (`loops/sizes.py: value_in`), read
        # here and passed down to the deeper levels beside the indices.
        bounds = [_extent(graph, d) for d in self.shape if not isinstance(d, int)]
        return self._level(graph, 0, [], bounds, list(carried), list(invariants))

    def _level(self, graph: Graph, depth: int, indices: list[Value], bounds: list[Value],
               carried: list[Value], invariants: list[Value]) -> list[Value]:
        hoist = self.hoists.get(depth)
        if hoist is not None:
            invariants = [*invariants, *hoist(graph, indices, invariants)]
        if depth == len(self.shape):
            return self.body(graph, indices, carried, invariants)
        extent = self.shape[depth]
        stop = graph.const(extent) if isinstance(extent, int) else bounds[0]
        deeper = bounds if isinstance(extent, int) else bounds[1:]
        region = graph.region("loop")
        k = region.add_input(np.int64, (), weak=True)
        passed = [*indices, *deeper, *invariants]
        carried_params = [_param(region, v) for v in carried]
        passed_params = [_param(region, v) for v in passed]
        cut = len(indices) + len(deeper)
        inner = self._level(region, depth + 1, [*passed_params[:len(indices)], k],
                            passed_params[len(indices):cut], carried_params,
                            passed_params[cut:])
        region.set_outputs([region.const(True, weak=False), *inner])
        return graph.loop(graph.const(0), stop, graph.const(1), carried, passed, region)


def _extent(graph: Graph, dim: object) -> Value:
    from ember.capture.loops.sizes import value_in
    from ember.graph.shapes import dim_terms

    reader = graph.size_reader
    if graph.parent is None and (reader is None or any(
            reader(symbol) is None for product in dim_terms(str(dim))[0] for symbol in product)):
        raise Unsupported(f"an element loop over a symbolic dimension {dim!r}")
    found = value_in(graph, str(dim))
    if found.dtype != np.int64:
        found = graph.op("astype", [found], dtype=np.dtype(np.int64))
    return found


def _param(region: Graph, like: Value) -> Value:
    return region.add_input(like.dtype, like.shape, weak=like.weak, scalar=like.scalar)


def element_of(graph: Graph, array: Value, indices: Sequence[Value]) -> Value:
    """`array` (broadcast against an index space whose trailing axes `indices` name) read at
    that position: a 0-d array is itself, a size-1 axis is read at 0."""
    if not array.shape:
        return array
    lead = len(indices) - array.ndim
    at = [graph.const(0) if size == 1 else indices[lead + axis]
          for axis, size in enumerate(array.shape)]
    return graph.op("load", [array, *at])
