"""`a.sort()` of a short 1-d array in a loop body (the window of a median filter): its
elements loaded, sorted by a network of compare-exchanges on 0-d values and stored back,
which a native loop body runs in registers, where a `sort` op would run as an array kernel
on every trip.

The network is odd-even transposition (rounds of adjacent compare-exchanges that swap only
strictly out-of-order pairs; NaNs go last). Equal elements keep their order; NumPy's order of
`-0.0` beside `0.0` depends on the sort its CPU runs, so only their values are NumPy's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ember.capture.variables.array import ArrayVariable
from ember.graph import Graph, Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

# Longer arrays take too many compare-exchanges (n * (n - 1) / 2) to be worth unrolling.
MAX_LENGTH = 12


def sort_in_place(tx: Interpreter, array: ArrayVariable) -> bool:
    """Sort `array` (the frame may update it) by a network; False where this does not
    apply (outside loop bodies, not 1-d, not short, a view someone else holds)."""
    from ember.capture.operators import write_into

    value = array.value
    if tx.graph.parent is None or value.ndim != 1 or not isinstance(value.shape[0], int):
        return False
    n = value.shape[0]
    if not 2 <= n <= MAX_LENGTH or not (array.is_fresh(tx) or array.is_mutable_input(tx)):
        return False
    graph = tx.graph
    items = [graph.op("load", [value, graph.const(k)]) for k in range(n)]
    for round_ in range(n):
        for j in range(round_ % 2, n - 1, 2):
            items[j], items[j + 1] = _exchange(graph, items[j], items[j + 1])
    new = value
    for k, item in enumerate(items):
        new = graph.op("store", [new, item, graph.const(k)])
    write_into(tx, array, new, broadcast=False)
    return True


def _exchange(graph: Graph, a: Value, b: Value) -> tuple[Value, Value]:
    """(a, b) in order: swapped only where `a` sorts after `b` (greater, or NaN beside a
    number)."""
    after = graph.op("gt", [a, b])
    if a.dtype.kind == "f":
        nan_first = graph.op("logical_and", [graph.op("isnan", [a]),
                                             graph.op("logical_not", [graph.op("isnan", [b])])])
        after = graph.op("logical_or", [after, nan_first])
    return (graph.op("where", [after, b, a], scalar=True),
            graph.op("where", [after, a, b], scalar=True))
