"""`np.argmin(free_at)` / `x.argmax()` of a short 1-d array in a loop body (the servers of a
queue, the three moves of an alignment): its elements loaded and compared one after the
other on 0-d values, which a native loop body runs in registers, where an `argmin` op would
run the body as a compiled graph on every trip.

NumPy's rule: the first position of the least (greatest) element, and the first NaN where
there is one."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.graph import Graph, Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

# Longer arrays cost more compares than an arg-reduction kernel on each trip saves.
MAX_LENGTH = 16

_COMPARE = {np.argmin: "lt", np.argmax: "gt"}


def arg_extremum(tx: Interpreter, fn: object, args: list[VariableTracker],
                 kwargs: dict[str, VariableTracker]) -> VariableTracker | None:
    """The index, an int64 NumPy scalar as NumPy's; None where this does not apply
    (outside loop bodies, not 1-d, not short, other options)."""
    from ember.capture.loops.small_sorts import short_elements

    if fn not in _COMPARE or len(args) != 1 or tx.graph.parent is None or any(
            k != "axis" or not (isinstance(v, ConstantVariable) and v.constant() in (None, 0, -1))
            for k, v in kwargs.items()):
        return None
    graph = tx.graph
    items = short_elements(graph, args[0], MAX_LENGTH)
    if items is None or not 1 <= len(items) <= MAX_LENGTH or items[0].dtype.kind not in "biuf":
        return None
    return ArrayVariable(_first_extremum(graph, _COMPARE[fn], items))


def _first_extremum(graph: Graph, compare: str, items: list[Value]) -> Value:
    best, index = items[0], graph.const(0, np.int64, weak=False)
    floats = items[0].dtype.kind == "f"
    for k, item in enumerate(items[1:], start=1):
        better = graph.op(compare, [item, best])
        if floats:  # the first NaN stays picked; a NaN after a number is picked
            nan_first = graph.op("logical_and", [graph.op("isnan", [item]), graph.op(
                "logical_not", [graph.op("isnan", [best])])])
            better = graph.op("logical_or", [better, nan_first])
        best = graph.op("where", [better, item, best], scalar=True)
        index = graph.op("where", [better, graph.const(k, np.int64, weak=False), index],
                         scalar=True)
    return index
