"""NumPy's index-expression builders: `np.mgrid[...]` and `np.ogrid[...]` of constant slices
(each axis an `arange`, times its step plus its start, as `nd_grid` computes it), and
`np.r_[...]` and `np.c_[...]` of arrays, numbers and constant slices (joined as NumPy's
`AxisConcatenator` joins them, in the result type of every array and number)."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.numpy_api.convert import to_value
from ember.numpy_api.creation import arange
from ember.numpy_api.elementwise import apply
from ember.numpy_api.shape_ops import concatenate, reshape_value

TRICKS = (np.mgrid, np.ogrid, np.r_, np.c_)


def _number(x: object) -> bool:
    return isinstance(x, numbers.Number) and not isinstance(x, Value)


def _axis(graph: Graph, part: slice, typ: np.dtype, sparse: bool = True
          ) -> tuple[int, Value]:
    """One axis of a grid: its length and values, `arange(n) * step + start` in `typ`."""
    start = 0 if part.start is None else part.start
    step = 1 if part.step is None else part.step
    if isinstance(step, complex):
        size = int(abs(step))
        step = (part.stop - start) / float(size - 1) if size != 1 else 1
    else:
        size = math.ceil((part.stop - start) / step)
    if size < 0 and not sparse:  # `np.indices` of a negative size
        raise ValueError("negative dimensions are not allowed")
    size = max(size, 0)
    values = graph.arange(0, 1, size, typ)
    values = apply(graph, "mul", [values, step], operator=True)
    return size, apply(graph, "add", [values, start], operator=True)


def _grid(graph: Graph, key: object, sparse: bool) -> Any:
    parts = key if isinstance(key, tuple) else None
    if parts is None:
        if not isinstance(key, slice):
            raise Unsupported("np.mgrid/np.ogrid indexed by something other than slices")
        parts = (key,)
    bounds = [b for p in parts if isinstance(p, slice) for b in (p.start, p.stop, p.step)]
    if len(bounds) != 3 * len(parts) or not all(b is None or _number(b) for b in bounds):
        raise Unsupported("np.mgrid/np.ogrid of slices whose bounds are not constants")
    if isinstance(key, slice):
        step = key.step
        if not isinstance(step, complex):
            return arange(graph, 0 if key.start is None else key.start, key.stop, step)
        typ = np.result_type(0 if key.start is None else key.start, key.stop, abs(step))
        return _axis(graph, key, typ)[1]
    # NumPy's `num_list`: a missing start is 0, a missing step 1, a complex step its size
    typ = np.result_type(0, *[abs(b) if isinstance(b, complex) else 0 if b is None else b
                              for b in bounds])
    axes = [_axis(graph, p, typ, sparse) for p in parts]
    shape = tuple(size for size, _ in axes)
    grids = []
    for k, (size, values) in enumerate(axes):
        placed = reshape_value(graph, values, tuple(size if j == k else 1
                                                    for j in range(len(axes))))
        grids.append(placed if sparse else graph.op("broadcast_to", [placed], shape=shape))
    if sparse:
        return tuple(grids)
    return graph.op("concatenate", [graph.op("expand_dims", [g], axis=[0]) for g in grids],
                    axis=0)


def _joined(graph: Graph, key: object, columns: bool) -> Value:
    """`np.r_[...]` (columns false) or `np.c_[...]`: slices as `arange`s, numbers and arrays
    in their common result type, joined along the first axis, or for `c_` the last with
    one-dimensional items as columns."""
    parts = key if isinstance(key, tuple) else (key,)
    items: list[Value] = []
    scalars: list[object] = []
    for part in parts:
        if isinstance(part, str):
            raise Unsupported("np.r_/np.c_ with a string directive")
        if isinstance(part, slice):
            if isinstance(part.step, complex):
                raise Unsupported("np.r_/np.c_ of a slice with a complex step (a linspace)")
            items.append(_grid(graph, part, False))
        elif _number(part):
            scalars.append(part)
            items.append(graph.const(part))
        else:
            items.append(to_value(graph, part, "np.r_"))
            if items[-1].weak:  # a traced Python number: weak in the result type
                scalars.append(items[-1].dtype.type(0).item())
    dtype = np.result_type(*[v.dtype for v in items if not v.weak], *scalars)
    for part in parts:
        if _number(part):
            np.array(part, dtype=dtype)  # NumPy's OverflowError for an int out of the dtype's range
    arrays = []
    for v in items:
        if v.dtype != dtype or v.weak:
            v = graph.op("astype", [v], dtype=dtype, weak=False)
        v = graph.op("squeeze", [v], axis=[], scalar=False) if v.scalar else v
        if columns and v.ndim < 2:
            v = reshape_value(graph, v, (-1, 1))
        elif v.ndim == 0:
            v = reshape_value(graph, v, (1,))
        arrays.append(v)
    return concatenate(graph, arrays, axis=-1 if columns else 0)


def index(graph: Graph, trick: object, key: object) -> Any:
    """`trick[key]` for one of NumPy's index-expression builders."""
    if trick is np.mgrid or trick is np.ogrid:
        return _grid(graph, key, trick is np.ogrid)
    return _joined(graph, key, trick is np.c_)
