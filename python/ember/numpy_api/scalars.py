"""`x.item()`: an array's one element as the Python number NumPy gives (a weak graph value,
so the graph goes on past it and the caller gets a Python int, float or bool).

A function being differentiated keeps Python numbers out of the graph (`numbers_in_graph`
false): a number that left the arrays through Python is a constant of the gradient, as in
PyTorch, which a cast inside the graph would not be."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.dtypes import WEAK_DTYPES
from ember.numpy_api.shape_ops import reshape_value

numbers_in_graph: ContextVar[bool] = ContextVar("ember_numbers_in_graph", default=True)

# Python's type for each NumPy kind an exact weak value can hold; uint64 does not fit int64.
_PYTHON_TYPE = {"b": bool, "i": int, "u": int, "f": float}


def python_number(graph: Graph, x: Value, what: str) -> Value:
    """The 0-d value `x` as a weak Python number of the type NumPy's `item()` gives."""
    if not numbers_in_graph.get():
        raise Unsupported(f"{what} in a differentiated function (the number is a constant)",
                          kind="data_dependent_value")
    kind = x.dtype.kind
    if kind not in _PYTHON_TYPE or x.dtype == np.uint64:
        raise Unsupported(f"{what} of {x.type_str}")
    target = WEAK_DTYPES[_PYTHON_TYPE[kind]]
    if x.weak and x.dtype == target:
        return x
    return graph.op("astype", [x], dtype=target, weak=True)


def item(graph: Graph, x: Value, *args: Any) -> Value:
    """`x.item()` of a one-element array; `x.item(i)` the element at flat index `i`,
    `x.item(i, j)` (or `x.item((i, j))`) the element at that position, bounds checked as
    indexing checks them."""
    if args:
        from ember.numpy_api.indexing import getitem

        where = args[0] if len(args) == 1 else tuple(args)
        if not isinstance(where, tuple) and x.ndim != 1:
            x = reshape_value(graph, x, (-1,))
        return python_number(graph, getitem(graph, x, where), "ndarray.item")
    if x.size is None:
        raise Unsupported(f"ndarray.item of symbolic shape {x.shape}")
    if x.size != 1:
        raise ValueError("can only convert an array of size 1 to a Python scalar")
    x = reshape_value(graph, x, ())
    return python_number(graph, x, "ndarray.item")


def methods() -> dict[str, Any]:
    return {"item": item}
