"""`a.sort()` of a short 1-d array in a loop body (the window of a median filter): its
elements loaded, sorted by a network of compare-exchanges on 0-d values and stored back,
which a native loop body runs in registers, where a `sort` op would run as an array kernel
on every trip. `np.sort(x[i:i + w])` of one is the sorted elements as a vector
(`loops/vectors.py`), so `window[w // 2]` picks a register and no array is built.

The network is odd-even transposition (rounds of adjacent compare-exchanges that swap only
strictly out-of-order pairs; NaNs go last). Equal elements keep their order; NumPy's order of
`-0.0` beside `0.0` depends on the sort its CPU runs, so only their values are NumPy's."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
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
    items = _sorted(graph, [graph.op("load", [value, graph.const(k)]) for k in range(n)])
    new = value
    for k, item in enumerate(items):
        new = graph.op("store", [new, item, graph.const(k)])
    write_into(tx, array, new, broadcast=False)
    return True


def sorted_copy(tx: Interpreter, fn: object, args: list[VariableTracker],
                kwargs: dict[str, VariableTracker]) -> VariableTracker | None:
    """`np.sort(v)` of a short 1-d value in a loop body (a window, a vector, an array of the
    body) as a vector of its elements sorted by the network; None where this does not apply."""
    from ember.capture.loops import vectors

    if fn is not np.sort or len(args) != 1 or tx.graph.parent is None or any(
            k != "axis" or not (isinstance(v, ConstantVariable) and v.constant() in (-1, 0))
            for k, v in kwargs.items()):
        return None
    graph = tx.graph
    items = short_elements(graph, args[0], MAX_LENGTH)
    if items is None or not 2 <= len(items) <= MAX_LENGTH or items[0].dtype.kind not in "biuf":
        return None
    return vectors.VectorVariable(_sorted(graph, items))


def short_elements(graph: Graph, v: VariableTracker, longest: int) -> list[Value] | None:
    """The elements of a 1-d value of a loop body of a static length up to `longest` (a
    window, a vector, an array of the body), each a 0-d value; None for anything else (a
    longer value loads nothing)."""
    from ember.capture.loops import vectors, window_exprs, windows

    if isinstance(v, window_exprs.LazyWindowVariable) and not v.new_axes:
        v.check()  # NumPy reads the view now
        v = windows.gather(graph, v.base, v.axes)
    if isinstance(v, vectors.VectorVariable):
        return list(v.elements)
    if isinstance(v, ArrayVariable) and not isinstance(v, window_exprs.WindowExprVariable) \
            and v.value.graph is graph and v.value.ndim == 1 \
            and isinstance(v.value.shape[0], int) and v.value.shape[0] <= longest:
        return [graph.op("load", [v.value, graph.const(k)]) for k in range(v.value.shape[0])]
    return None


def _sorted(graph: Graph, items: list[Value]) -> list[Value]:
    """`items` in order, by odd-even transposition."""
    items = list(items)
    n = len(items)
    for round_ in range(n):
        for j in range(round_ % 2, n - 1, 2):
            items[j], items[j + 1] = _exchange(graph, items[j], items[j + 1])
    return items


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
