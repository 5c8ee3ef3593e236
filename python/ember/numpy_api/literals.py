"""`np.array` / `np.asarray` of nested Python lists holding traced values: `np.array([t.sum(),
1.0])`, `np.asarray([[a, b], [c, d]])` with computed scalars or arrays.

NumPy discovers one dtype for the whole literal: the result type of every leaf, Python scalars
counting as the arrays `np.asarray` makes of them (float64, int64, bool: not weak here). The
leaves are cast to it and stacked level by level. Leaves of different shapes (a ragged
literal) and array constants inside a literal are left to NumPy (a graph break).

A literal of constants only (`np.array([0.25, 0.5, 0.25])`, `np.asarray([[1, 0], [0, 1]])`)
is NumPy's own array, made at capture; `constant_array` puts it into the graph as ops that
build it (a fill when every element is the same, otherwise one element at a time up to
`CONSTANT_ELEMENTS`), so every call gets a fresh array, as NumPy makes one per call, and the
function stays one graph.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.dtypes import as_dtype
from ember.numpy_api.convert import as_array

# The most elements an array constant is built from one by one; a larger one that is not a
# fill is left to NumPy (a graph break).
CONSTANT_ELEMENTS = 64


def _leaf_dtype(leaf: object) -> np.dtype:
    if isinstance(leaf, Value):
        return leaf.dtype
    dtype = np.asarray(leaf).dtype
    if dtype.kind not in "biuf":
        raise Unsupported(f"np.array of a list holding a {type(leaf).__name__}")
    return dtype


def _leaves(literal: object) -> list[object]:
    stack, leaves = [literal], []
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
        elif isinstance(item, (Value, bool, int, float, np.bool_, np.integer, np.floating)):
            leaves.append(item)
        else:
            raise Unsupported(f"np.array of a list holding a {type(item).__name__}")
    return leaves


def _build(graph: Graph, literal: object, dtype: np.dtype) -> Value:
    if not isinstance(literal, (list, tuple)):
        leaf = literal if isinstance(literal, Value) else graph.const(literal, weak=False)
        leaf = as_array(graph, leaf)
        return leaf if leaf.dtype == dtype else graph.op("astype", [leaf], dtype=dtype)
    if not literal:
        raise Unsupported("np.array of a literal with an empty list inside")
    parts = [_build(graph, item, dtype) for item in literal]
    if any(p.shape != parts[0].shape for p in parts):
        raise Unsupported("np.array of a ragged list (NumPy raises or makes an object array)")
    if any(isinstance(d, str) for d in parts[0].shape):
        raise Unsupported("np.array of a list of arrays with symbolic dimensions")
    expanded = [graph.op("expand_dims", [p], axis=[0]) for p in parts]
    return graph.op("concatenate", expanded, axis=0)


def literal_value(graph: Graph, literal: list[Any] | tuple[Any, ...],
                  dtype: np.dtype | None) -> Value:
    """The graph value of a nested list with at least one traced leaf."""
    leaves = _leaves(literal)
    found = np.result_type(*(_leaf_dtype(leaf) for leaf in leaves))
    return _build(graph, literal, found if dtype is None else dtype)


def constant_array(graph: Graph, array: np.ndarray) -> Value:
    """The graph value of an array NumPy made at capture from constants alone."""
    dtype = as_dtype(array.dtype, "an array constant")
    flat = np.ascontiguousarray(array).reshape(-1)
    if flat.size == 0:
        return graph.full(array.shape, 0, dtype)
    rows = flat.view(np.uint8).reshape(flat.size, dtype.itemsize)
    if (rows == rows[0]).all():  # bit for bit, so -0.0 and NaN payloads are kept
        return graph.full(array.shape, flat[0].item(), dtype)
    if flat.size > CONSTANT_ELEMENTS:
        raise Unsupported(f"an array constant of {flat.size} different elements "
                          f"(at most {CONSTANT_ELEMENTS} are built in the graph)")
    parts = [graph.full((1,), item, dtype) for item in flat.tolist()]
    built = graph.op("concatenate", parts, axis=0)
    return built if array.ndim == 1 else graph.op("reshape", [built], shape=list(array.shape))
