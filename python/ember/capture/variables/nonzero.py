"""`np.nonzero(x)` (and `x.nonzero()`): index arrays whose length only the data knows.

They never become arrays of the graph. What users read of them is their length, a count of
the nonzero elements (`np.nonzero(x)[0].shape[0]`, `len(np.nonzero(x)[0])`, `.size`): a
Python int computed by a sum. Anything else (their values, indexing with them) is a graph
break."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.containers import TupleVariable
from ember.graph import Value
from ember.numpy_api.counting import nonzero_count

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter


class NonzeroIndexVariable(VariableTracker):
    """One index array of `np.nonzero(x)`; `count`: how many elements of `x` are nonzero,
    a Python int (weak `int64[]`)."""

    def __init__(self, count: Value) -> None:
        self.count = count

    def describe(self) -> str:
        return "an index array of np.nonzero"

    def type_name(self) -> str:
        return "ndarray"

    def python_type(self) -> type:
        return np.ndarray

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        if name == "shape":
            return TupleVariable([ArrayVariable(self.count)])
        if name == "size":
            return ArrayVariable(self.count)
        if name == "ndim":
            from ember.capture.variables.constant import ConstantVariable

            return ConstantVariable(1)
        raise graph_break("data_dependent_value",
                          what=f"the values of np.nonzero's indices (.{name})")

    def len_variable(self, tx: Interpreter) -> VariableTracker:
        return ArrayVariable(self.count)


def numpy_call(tx: Interpreter, fn: Any, args: list[VariableTracker],
               kwargs: dict[str, VariableTracker]) -> VariableTracker | None:
    """`np.nonzero(x)` (or `np.where(x)`) of an array of at least one axis, else None."""
    if fn not in (np.nonzero, np.where) or kwargs or len(args) != 1:
        return None
    return nonzero_of(tx, args[0])


def nonzero_of(tx: Interpreter, array: VariableTracker) -> VariableTracker | None:
    if not isinstance(array, ArrayVariable) or not array.value.shape:
        return None  # NumPy's own error (0-d) happens in Python
    graph = tx.graph
    count = nonzero_count(graph, array.value)
    count = graph.op("astype", [count], dtype=np.dtype(np.int64), weak=True)
    return TupleVariable([NonzeroIndexVariable(count) for _ in array.value.shape])
