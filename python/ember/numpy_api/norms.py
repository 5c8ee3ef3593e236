"""np.linalg.norm: vector norms of any order and the matrix norms that need no
decomposition ('fro', 1, -1, inf, -inf), over `axis` with `keepdims`, written as NumPy
writes them (`numpy/linalg/_linalg.py`) so that the same ops give the same rounding: the
2-norm of a whole array is `sqrt(dot(x, x))` of the raveled array, other 2-norms
`sqrt(sum(x * x))`. The spectral (2, -2) and nuclear norms reduce the singular values of
the matrices moved to the last two axes, as NumPy's `_multi_svd_norm` does.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.shapes import whole_stops
from ember.numpy_api import gather
from ember.numpy_api.convert import as_array, static_number, to_value
from ember.numpy_api.elementwise import apply
from ember.numpy_api.shape_ops import reshape_value


def _axes(axis: object, ndim: int) -> tuple[int, ...] | None:
    if axis is None:
        return None
    if isinstance(axis, Value):
        raise Unsupported("np.linalg.norm with axis computed from array data")
    if isinstance(axis, tuple):
        axes = axis
    else:
        try:
            axes = (int(axis),)  # type: ignore[call-overload]
        except Exception as exc:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from exc
    return tuple(int(a) for a in axes)


def _normalize(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def _reduce(graph: Graph, op: str, x: Value, axis: int | tuple[int, ...] | None,
            keepdims: bool = False) -> Value:
    axes = None if axis is None else [axis] if isinstance(axis, int) else list(axis)
    return graph.op(op, [x], axis=axes, keepdims=keepdims)


def _vector_norm(graph: Graph, x: Value, ord: object, axis: int, keepdims: bool) -> Value:
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")  # noqa: TRY004 -- NumPy's
    axis = _normalize(axis, x.ndim)
    if ord is None or ord == 2:
        return graph.op("sqrt", [_reduce(graph, "sum", graph.op("mul", [x, x]), axis,
                                         keepdims)])
    order = static_number(ord, "np.linalg.norm")
    absx = graph.op("abs", [x])
    if order == math.inf:
        return _reduce(graph, "max", absx, axis, keepdims)
    if order == -math.inf:
        return _reduce(graph, "min", absx, axis, keepdims)
    if order == 0:
        nonzero = graph.op("astype", [graph.op("ne", [x, graph.const(0)])], dtype=x.dtype)
        return _reduce(graph, "sum", nonzero, axis, keepdims)
    if order == 1:
        return _reduce(graph, "sum", absx, axis, keepdims)
    powered = apply(graph, "pow", [absx, order], operator=False)
    if powered.dtype != absx.dtype:  # `absx **= ord` keeps absx's dtype
        powered = graph.op("astype", [powered], dtype=absx.dtype)
    total = _reduce(graph, "sum", powered, axis, keepdims)
    inverse = np.reciprocal(np.asarray(order, dtype=total.dtype))[()]
    return graph.op("pow", [total, graph.const(inverse)])


# The matrix norms of the singular values: the largest, the smallest, their sum.
_SINGULAR_REDUCTIONS = {2: "max", -2: "min", "nuc": "sum"}


def _singular_norm(graph: Graph, x: Value, op: str, row: int, col: int) -> Value:
    from ember.numpy_api.solvers import svd

    perm = [a for a in range(x.ndim) if a not in (row, col)] + [row, col]
    singular = svd(graph, graph.op("transpose", [x], perm=perm), compute_uv=False)
    return _reduce(graph, op, singular, singular.ndim - 1)


def _matrix_norm(graph: Graph, x: Value, ord: object, axes: tuple[int, int],
                 keepdims: bool) -> Value:
    row, col = (_normalize(a, x.ndim) for a in axes)
    if row == col:
        raise ValueError("Duplicate axes given.")
    reduction = _SINGULAR_REDUCTIONS.get(ord)  # type: ignore[call-overload]
    if reduction is not None:
        result = _singular_norm(graph, x, reduction, row, col)
    elif ord is None or ord == "fro" or ord == "f":
        result = graph.op("sqrt", [_reduce(graph, "sum", graph.op("mul", [x, x]), axes)])
    elif ord in (1, -1, math.inf, -math.inf):
        pick = "max" if ord in (1, math.inf) else "min"
        if ord in (1, -1):
            inner, outer = row, col - (col > row)
        else:
            inner, outer = col, row - (row > col)
        summed = _reduce(graph, "sum", graph.op("abs", [x]), inner)
        result = _reduce(graph, pick, summed, outer)
    else:
        raise ValueError("Invalid norm order for matrices.")
    if keepdims:
        shape = list(x.shape)
        shape[row] = shape[col] = 1
        result = reshape_value(graph, result, tuple(shape))
    return result


def norm(graph: Graph, x: object, ord: object = None, axis: object = None,
         keepdims: object = False) -> Any:
    if not isinstance(x, Value):
        return np.linalg.norm(x, ord, axis, bool(keepdims))  # type: ignore[arg-type]
    v = as_array(graph, to_value(graph, x, "np.linalg.norm"))
    if v.dtype.kind not in "fc":
        v = graph.op("astype", [v], dtype=np.dtype(float))
    keep = bool(keepdims)
    axes = _axes(axis, v.ndim)
    if axes is None:
        if ord is None or (ord in ("f", "fro") and v.ndim == 2) or (ord == 2 and v.ndim == 1):
            flat = reshape_value(graph, v, (-1,))
            result = graph.op("sqrt", [graph.op("matmul", [flat, flat])])
            return reshape_value(graph, result, (1,) * v.ndim) if keep else result
        if v.ndim == 1:
            axes = (0,)
        elif v.ndim == 2:
            axes = (0, 1)
        else:
            raise ValueError("Improper number of dimensions to norm.")
    if len(axes) == 1:
        return _vector_norm(graph, v, ord, axes[0], keep)
    if len(axes) == 2:
        return _matrix_norm(graph, v, ord, (axes[0], axes[1]), keep)
    raise ValueError("Improper number of dimensions to norm.")


def roll(graph: Graph, a: object, shift: object, axis: object = None) -> Any:
    """np.roll with static shifts: each rolled axis is two slices joined in swapped order
    (NumPy's own construction); without an axis, the raveled array rolled and reshaped."""
    x = as_array(graph, to_value(graph, a, "np.roll"))
    if isinstance(axis, Value):
        raise Unsupported("np.roll with an axis computed from array data")
    if isinstance(shift, Value):
        return _roll_by_data(graph, x, shift, axis)
    if axis is None:
        flat = roll(graph, reshape_value(graph, x, (-1,)), shift, 0)
        return reshape_value(graph, flat, x.shape)
    axes = normalize_axis_tuple(axis, x.ndim, allow_duplicate=True)
    pairs = np.broadcast(shift, axes)  # type: ignore[call-overload]
    if pairs.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    total = [0] * x.ndim
    for s, ax in pairs:
        total[ax] += int(s)
    for ax, s in enumerate(total):
        n = x.shape[ax]
        if isinstance(n, str):
            x = _roll_symbolic(graph, x, s, ax)
            continue
        if n == 0 or s % n == 0:
            continue
        cut = n - s % n
        parts = []
        for lo, hi in ((cut, n), (0, cut)):
            start = [0] * x.ndim
            stop = whole_stops(x.shape)
            start[ax], stop[ax] = lo, hi
            parts.append(graph.op("slice", [x], start=start, stop=stop, step=[1] * x.ndim))
        x = graph.op("concatenate", parts, axis=ax)
    return x


def _roll_by_data(graph: Graph, x: Value, shift: Value, axis: object) -> Value:
    """np.roll by one shift read from the data (`np.roll(f, cx[i], axis=1)`): along each
    axis, the elements at `(arange(n) - shift) mod n` (a gather), which is where NumPy's two
    swapped slices put them, whatever the shift's size or sign."""
    if shift.ndim or shift.dtype.kind not in "biu":
        # NumPy takes `int()` of a float shift, which raises for NaN and infinity.
        raise Unsupported("np.roll by an array of shifts or by a float one")
    if axis is None:
        flat = _roll_by_data(graph, reshape_value(graph, x, (-1,)), shift, 0)
        return reshape_value(graph, flat, x.shape)
    s = graph.op("astype", [shift], dtype=np.dtype(np.int64))
    for ax in normalize_axis_tuple(axis, x.ndim, allow_duplicate=True):
        n = x.shape[ax]
        if isinstance(n, str):
            raise Unsupported("np.roll by a shift from the data along a symbolic dimension")
        if n == 0:
            continue
        index = graph.op("mod", [graph.op("sub", [graph.arange(0, 1, n, np.int64), s]),
                                 graph.const(np.int64(n))])
        x = gather.gather(graph, gather.plan(graph, x, (*(slice(None),) * ax, index)))
    return x


def _roll_symbolic(graph: Graph, x: Value, shift: int, axis: int) -> Value:
    """A roll along a symbolic axis: the last `shift` elements, then the rest (or the rest
    after the first `-shift`, then those), so the symbol must exceed `|shift|` by 2 for every
    size it takes to roll the same way (`x[-s:]`, `x[:-s]` leave `s` and `s0-s`)."""
    from ember.numpy_api.indexing import getitem

    if shift == 0:
        return x
    cut = abs(shift)
    before = (slice(None),) * axis
    head, tail = ((slice(-cut, None), slice(None, -cut)) if shift > 0
                  else (slice(cut, None), slice(None, cut)))
    parts = [getitem(graph, x, (*before, head)), getitem(graph, x, (*before, tail))]
    return graph.op("concatenate", parts, axis=axis)


def functions() -> dict[Any, Any]:
    return {np.linalg.norm: norm, np.roll: roll}
