"""`np.take` and `np.take_along_axis` with index arrays computed at run time, and the ufunc
methods `ufunc.at` and `ufunc.outer`: lowered onto the gathers of `gather.py` and the
elementwise ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.ops import OPS
from ember.graph.shapes import broadcast_shapes, normalize_axis
from ember.numpy_api import gather
from ember.numpy_api.convert import static_int, to_value
from ember.numpy_api.indexing import getitem
from ember.numpy_api.shape_ops import array_arg, reshape_value, stack

_UFUNC_OPS = {opdef.numpy: name for name, opdef in OPS.items()
              if opdef.kind == "elementwise" and isinstance(opdef.numpy, np.ufunc)}


def _indices(graph: Graph, indices: object, size: int, mode: str) -> Value:
    """The index array as np.take reads it under `mode`: 'raise' as given (checked by the
    loads), 'wrap' taken modulo the axis size, 'clip' clamped to [0, size - 1]."""
    index = to_value(graph, indices, "np.take")
    if index.dtype.kind not in "iu":
        raise TypeError(f"Cannot cast array data from dtype('{index.dtype}') to "
                        "dtype('int64') according to the rule 'safe'")
    if mode == "raise":
        return index
    if size == 0:
        raise IndexError("cannot do a non-empty take from an empty axes.")
    index = graph.op("astype", [index], dtype=np.dtype(np.int64))
    if mode == "wrap":
        return graph.op("mod", [index, graph.const(size)])
    if mode == "clip":
        return graph.op("minimum", [graph.op("maximum", [index, graph.const(0)]),
                                    graph.const(size - 1)])
    raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")


def take(graph: Graph, x: Value, indices: object, axis: object, mode: str) -> Value:
    """np.take(a, indices, axis, mode=) with an index array: `a[:, ..., indices]` on `axis`
    (of the flattened array without one)."""
    if axis is None:
        x = reshape_value(graph, x, (-1,))
        ax = 0
    else:
        ax = normalize_axis(static_int(axis, "np.take"), x.ndim)
    size = x.shape[ax]
    if isinstance(size, str):
        raise Unsupported("np.take along a symbolic dimension")
    index = _indices(graph, indices, size, mode)
    return gather.gather(graph, gather.plan(graph, x, (*(slice(None),) * ax, index)))


# The most elements (int64, 32 KiB) whose zeros check a 0-d index in a loop body.
_SCRATCH_CHECK = 4096


def unravel_index(graph: Graph, indices: object, shape: object, order: object = "C"
                  ) -> Any:
    """np.unravel_index of flat indices computed at run time (`np.argmin(d)`): each
    coordinate `(index // stride) % dim`, int64 (NumPy's intp), NumPy scalars for one index.
    An index outside the array (a negative one too) makes the graph raise (a gather past the
    end of `arange(size)`), so the frame runs as Python and NumPy raises its ValueError."""
    if not isinstance(indices, Value):
        return np.unravel_index(indices, shape, order)  # type: ignore[call-overload]
    dims = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if not all(type(d) is int for d in dims):
        raise Unsupported("np.unravel_index into a shape not known while tracing")
    if indices.dtype.kind not in "iu":
        raise TypeError("only int indices permitted")
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    size = int(np.prod(dims))
    index = graph.op("astype", [indices], dtype=np.dtype(np.int64))
    outside = graph.op("where", [graph.op("lt", [index, graph.const(np.int64(0))]),
                                 graph.const(np.int64(size)), index])
    if graph.parent is not None and not outside.ndim and size <= _SCRATCH_CHECK:
        # in a loop body, where an `arange` is no native value: the same bounds check as a
        # load from zeros a native step keeps on its stack, plus the index
        zeros = graph.full((size,), 0, np.int64)
        flat = graph.op("add", [graph.op("load", [zeros, outside]), index])
    else:
        flat = gather.gather(graph, gather.plan(graph, graph.arange(0, 1, size, np.int64),
                                                (outside,)))
    coords = []
    for axis, dim in enumerate(dims):
        rest = dims[axis + 1:] if order == "C" else dims[:axis]
        stride = graph.const(np.int64(np.prod(rest, dtype=np.int64)))
        coord = graph.op("mod", [graph.op("floordiv", [flat, stride]),
                                 graph.const(np.int64(dim))])
        coords.append(coord)
    if not flat.ndim:
        return tuple(graph.op("copy", [c], scalar=True) for c in coords)
    # NumPy writes the coordinates of each index side by side and returns views of them.
    together = stack(graph, coords, axis=-1)
    return tuple(getitem(graph, together, (Ellipsis, axis)) for axis in range(len(dims)))


def take_along_axis(graph: Graph, arr: object, indices: object, axis: object = -1) -> Value:
    """np.take_along_axis as NumPy builds it: `arr[fancy]` where `fancy` holds `indices` on
    `axis` and `arange(n)` shaped to broadcast on every other axis."""
    x, fancy = _along_axis(graph, array_arg(graph, arr, "np.take_along_axis"), indices, axis)
    return gather.gather(graph, gather.plan(graph, x, fancy))


def put_along_axis(graph: Graph, arr: object, indices: object, values: object,
                   axis: object) -> Value:
    """`arr` after np.put_along_axis: `arr[fancy] = values` with take_along_axis's index."""
    if not isinstance(arr, Value) or arr.scalar or arr.weak:
        raise Unsupported("np.put_along_axis into something other than an array")
    if axis is None:
        raise Unsupported("np.put_along_axis with axis=None (a flattened view)")
    _, fancy = _along_axis(graph, arr, indices, axis)
    from ember.numpy_api.assignment import _converted

    return gather.scatter(graph, gather.plan(graph, arr, fancy),
                          _converted(graph, values, arr.dtype))


def _along_axis(graph: Graph, x: Value, indices: object, axis: object
                ) -> tuple[Value, tuple[Value, ...]]:
    """NumPy's `_make_along_axis_idx`: `indices` on `axis`, aranges on the other axes (and
    the array indexed: flattened for `axis=None`)."""
    index = to_value(graph, indices, "np.take_along_axis")
    if index.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if axis is None:
        if index.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        x = reshape_value(graph, x, (-1,))
        ax = 0
    else:
        if index.ndim != x.ndim:
            raise ValueError("`indices` and `arr` must have the same number of dimensions")
        ax = normalize_axis(static_int(axis, "np.take_along_axis"), x.ndim)
    fancy: list[Value] = []
    for dim, size in enumerate(x.shape):
        if dim == ax:
            fancy.append(index)
            continue
        if isinstance(size, str):
            raise Unsupported("np.take_along_axis of an array with symbolic dimensions")
        shape = [1] * x.ndim
        shape[dim] = size
        fancy.append(graph.op("reshape", [graph.arange(0, 1, size, np.int64)], shape=shape))
    return x, tuple(fancy)


def ufunc_at(graph: Graph, ufunc: np.ufunc, a: Value, indices: object, b: object = None
             ) -> Value:
    """`a` after `ufunc.at(a, indices, b)`: every indexed element updated in index order, so
    a repeated index accumulates (`np.add.at`), unlike `a[idx] += b`."""
    op = _UFUNC_OPS.get(ufunc)
    what = f"np.{ufunc.__name__}.at"
    if op is None:
        raise Unsupported(f"{what}: ufunc without an ember op")
    if (b is None) != (ufunc.nin == 1):
        raise ValueError("second operand needed for ufunc" if b is None else
                         "second operand provided when ufunc is unary")
    items = indices if isinstance(indices, tuple) else (indices,)
    if not any(isinstance(item, Value) for item in items):
        raise Unsupported(f"{what} with indices known while tracing")
    if a.scalar or a.weak:
        raise TypeError("first operand must be array")
    operands = [] if b is None else [to_value(graph, b, what)]
    _check_casting(ufunc, a, operands, b)
    found = gather.plan(graph, a, indices)
    if operands:
        shape = found.result_shape
        value_shape = tuple(operands[0].shape)
        try:
            fits = broadcast_shapes(value_shape, shape) == shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError("array is not broadcastable to correct shape")

    if op == "add" and operands and graph is graph.root and not graph.loop_ops:
        return gather.add_at(graph, found, operands[0])

    def combine(g: Graph, old: Value | None, new: list[Value]) -> Value:
        assert old is not None
        result = g.op(op, [old, *new])
        if result.dtype != a.dtype:
            result = g.op("astype", [result], dtype=a.dtype, scalar=True)
        return result

    return gather.update(graph, found, operands, combine)


def _check_casting(ufunc: np.ufunc, a: Value, operands: list[Value], b: object) -> None:
    """Run the ufunc's `at` on one-element stand-ins: NumPy raises its own error for a
    result that cannot be cast back to `a`'s dtype under 'same_kind'."""
    probe = np.zeros(1, a.dtype)
    if not operands:
        ufunc.at(probe, [0])
        return
    stand_in: Any = b if not isinstance(b, Value) else np.zeros(
        (1,) * min(1, operands[0].ndim), operands[0].dtype)
    if isinstance(stand_in, np.ndarray) and stand_in.ndim == 0:
        stand_in = stand_in[()]
    with np.errstate(all="ignore"):
        ufunc.at(probe, [0], stand_in)


def ufunc_outer(graph: Graph, ufunc: np.ufunc, a: object, b: object) -> Any:
    """`ufunc.outer(a, b)`: `a[..., None, ...] op b`, every axis of `a` before every axis of
    `b`, as NumPy defines it."""
    op = _UFUNC_OPS.get(ufunc)
    what = f"np.{ufunc.__name__}.outer"
    if op is None or ufunc.nin != 2:
        raise Unsupported(f"{what}: not a binary ufunc with an ember op")
    x = array_arg(graph, a, what)
    y = array_arg(graph, b, what)
    if y.ndim:
        x = graph.op("reshape", [x], shape=[*x.shape, *[1] * y.ndim])
    from ember.numpy_api.elementwise import apply

    return apply(graph, op, [x, y], operator=False)
