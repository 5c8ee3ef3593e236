"""Matrix products: np.matmul / `@` (any rank), np.dot (ranks 0-2, as NumPy defines it),
np.outer and np.tensordot; diagonals: np.diagonal, np.diag, np.diagflat and np.trace."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.shapes import format_shape
from ember.numpy_api.convert import any_value, as_array, as_numpy_scalar, to_value
from ember.numpy_api.elementwise import apply, check_python_scalars
from ember.numpy_api.shape_ops import reshape_value


def matmul(graph: Graph, x1: object, x2: object, /, out: object = None, **kwargs: object) -> Any:
    if out is not None or kwargs:
        raise Unsupported("np.matmul with out= or ufunc keywords")
    if not any_value([x1, x2]):
        return np.matmul(x1, x2)  # type: ignore[arg-type]
    check_python_scalars(np.matmul, [x1, x2])
    a = to_value(graph, x1, "np.matmul")
    b = to_value(graph, x2, "np.matmul")
    return graph.op("matmul", [a, b])


def dot(graph: Graph, a: object, b: object, out: object = None) -> Any:
    """np.dot: a product with a 0-d operand is multiply; 1-D and 2-D ones are matmul."""
    if out is not None:
        raise Unsupported("np.dot with out=")
    if not any_value([a, b]):
        return np.dot(a, b)  # type: ignore[arg-type]
    # np.dot converts its operands with np.asarray: Python scalars are not weak here.
    x, y = (graph.const(v, np.asarray(v).dtype, weak=False)
            if isinstance(v, (bool, int, float)) else to_value(graph, v, "np.dot")
            for v in (a, b))
    if x.ndim == 0 or y.ndim == 0:
        return apply(graph, "mul", [x, y], operator=False)
    if x.ndim > 2 or y.ndim > 2:
        raise Unsupported("np.dot of arrays with more than 2 dimensions")
    k_x = x.shape[-1]
    k_y = y.shape[0] if y.ndim == 1 else y.shape[-2]
    if k_x != k_y and not (isinstance(k_x, str) or isinstance(k_y, str)):
        dim_y = 0 if y.ndim == 1 else y.ndim - 2
        raise ValueError(f"shapes {format_shape(x.shape, ',')} and "
                         f"{format_shape(y.shape, ',')} not aligned: {k_x} "
                         f"(dim {x.ndim - 1}) != {k_y} (dim {dim_y})")
    product = graph.op("matmul", [x, y])
    graph.warns_as(product, "dot")
    return product


def outer(graph: Graph, a: object, b: object, out: object = None) -> Any:
    """np.outer: `a.ravel()[:, newaxis] * b.ravel()[newaxis, :]`, NumPy's own definition."""
    if out is not None:
        raise Unsupported("np.outer with out=")
    x, y = (graph.const(v, np.asarray(v).dtype, weak=False)
            if isinstance(v, (bool, int, float)) else to_value(graph, v, "np.outer")
            for v in (a, b))
    column = graph.op("expand_dims", [reshape_value(graph, x, (-1,))], axis=[1])
    row = graph.op("expand_dims", [reshape_value(graph, y, (-1,))], axis=[0])
    return graph.op("mul", [column, row])


def tensordot(graph: Graph, a: object, b: object, axes: object = 2) -> Any:
    """np.tensordot: the last `axes` axes of `a` against the first of `b` (or the two lists of
    axes given), as an einsum of their labels."""
    from ember.numpy_api.einsum import einsum

    if not any_value([a, b]):
        return np.tensordot(a, b, axes)  # type: ignore[arg-type]
    x, y = (to_value(graph, v, "np.tensordot") for v in (a, b))
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        n = int(axes)
        if n < 0 or n > min(x.ndim, y.ndim):
            raise ValueError("shape-mismatch for sum")
        pairs = (list(range(x.ndim - n, x.ndim)), list(range(n)))
    else:
        try:
            first, second = axes  # type: ignore[misc]
        except (TypeError, ValueError):
            raise Unsupported("np.tensordot with these axes") from None
        pairs = tuple([int(k) for k in (ax if isinstance(ax, (list, tuple)) else [ax])]
                      for ax in (first, second))
    if len(pairs[0]) != len(pairs[1]):
        raise ValueError("shape-mismatch for sum")
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    left = [next(letters) for _ in range(x.ndim)]
    right = [next(letters) for _ in range(y.ndim)]
    for i, j in zip(*pairs, strict=True):
        if x.shape[i] != y.shape[j]:
            raise ValueError("shape-mismatch for sum")
        right[j] = left[i]
    summed = {left[i] for i in pairs[0]}
    kept = [c for c in left if c not in summed] + [c for c in right if c not in summed]
    result = einsum(graph, f"{''.join(left)},{''.join(right)}->{''.join(kept)}", x, y)
    if result.ndim == 0 and result.scalar:  # np.tensordot gives a 0-d array, not a scalar
        result = graph.op("squeeze", [result], axis=[], scalar=False)
    return result


def diagonal(graph: Graph, a: object, offset: object = 0, axis1: object = 0,
             axis2: object = 1) -> Any:
    """np.diagonal: `axis1` and `axis2` moved last (the others keep their order), flattened
    together, and every `m + 1`-th element of that axis taken from `offset` (a view of a 2-D
    array, handed out read-only as NumPy's is)."""
    from ember.numpy_api.indexing import getitem

    if not any_value([a]):
        return np.diagonal(a, offset, axis1, axis2)  # type: ignore[arg-type]
    x = base = to_value(graph, a, "np.diagonal")
    if not all(isinstance(v, (int, np.integer)) for v in (offset, axis1, axis2)):
        raise Unsupported("np.diagonal with computed or non-integer arguments")
    if x.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    first = normalize_axis_index(int(axis1), x.ndim, "axis1")  # type: ignore[call-overload]
    second = normalize_axis_index(int(axis2), x.ndim, "axis2")  # type: ignore[call-overload]
    if first == second:
        raise ValueError("axis1 and axis2 cannot be the same")
    rest = [i for i in range(x.ndim) if i not in (first, second)]
    if rest or first > second:
        x = graph.op("transpose", [x], perm=[*rest, first, second])
    n, m = x.shape[-2:]
    if not (isinstance(n, int) and isinstance(m, int)):
        raise Unsupported("np.diagonal of symbolic dimensions")
    k = int(offset)
    start, length = (k, min(n, m - k)) if k >= 0 else (-k * m, min(n + k, m))
    length = max(length, 0)
    flat = reshape_value(graph, x, (*x.shape[:-2], n * m))
    result = getitem(graph, flat, (..., slice(start, start + length * (m + 1), m + 1)
                                   if length else slice(0, 0)))
    graph.root.read_only.add(result.id)  # NumPy's diagonal is a read-only view
    # Of an array that is not C-contiguous the flattening copies: the caller gets NumPy's
    # own view of the argument all the same.
    graph.root.opaque_views.append((base, result, functools.partial(
        np.diagonal, offset=k, axis1=first, axis2=second)))
    return result


def diag(graph: Graph, v: object, k: object = 0) -> Any:
    """np.diag: the diagonal of a 2-D array, or the square array with a 1-D one on its
    diagonal (zeros elsewhere)."""
    if not any_value([v]):
        return np.diag(v, k)  # type: ignore[arg-type]
    from ember.numpy_api.matrices import diag_of_vector

    x = to_value(graph, v, "np.diag")
    if x.ndim == 2:
        return diagonal(graph, x, k)
    if x.ndim != 1:
        raise ValueError("Input must be 1- or 2-d.")
    return diag_of_vector(graph, x, k)


def diagflat(graph: Graph, v: object, k: object = 0) -> Any:
    """np.diagflat: the square array with `v` flattened on its diagonal."""
    if not any_value([v]):
        return np.diagflat(v, k)  # type: ignore[arg-type]
    return diag(graph, reshape_value(graph, to_value(graph, v, "np.diagflat"), (-1,)), k)


def trace(graph: Graph, a: object, offset: object = 0, axis1: object = 0, axis2: object = 1,
          dtype: object = None, out: object = None) -> Any:
    """np.trace: the sums of the diagonals, over their last axis (np.sum's dtype rules)."""
    from ember.numpy_api.reductions import functions as reductions

    if out is not None:
        raise Unsupported("np.trace with out=")
    if not any_value([a]):
        return np.trace(a, offset, axis1, axis2, dtype)  # type: ignore[arg-type]
    return reductions()[np.sum](graph, diagonal(graph, a, offset, axis1, axis2), axis=-1,
                                dtype=dtype)


def cross(graph: Graph, a: object, b: object, axisa: object = -1, axisb: object = -1,
          axisc: object = -1, axis: object = None) -> Any:
    """np.cross of 3-vectors: NumPy's component formulas (`a1 * b2 - a2 * b1`, ...) in the
    promoted dtype, the vectors' axes moved last and the result's to `axisc`. Vectors of 2
    (deprecated by NumPy) are left to NumPy."""
    from ember.numpy_api.indexing import getitem
    from ember.numpy_api.shape_ops import concatenate

    if not any_value([a, b]):
        return np.cross(a, b, axisa, axisb, axisc, axis)  # type: ignore[arg-type]
    if axis is not None:
        axisa = axisb = axisc = axis
    if not all(isinstance(v, (int, np.integer)) for v in (axisa, axisb, axisc)):
        raise Unsupported("np.cross with computed axes")
    x, y = (as_array(graph, to_value(graph, v, "np.cross")) for v in (a, b))
    if x.ndim < 1 or y.ndim < 1:
        raise ValueError("At least one array has zero dimension")
    if x.dtype == np.bool_ or y.dtype == np.bool_:
        raise Unsupported("np.cross of booleans")
    x = _move_last(graph, x, normalize_axis_index(int(axisa), x.ndim, "axisa"))
    y = _move_last(graph, y, normalize_axis_index(int(axisb), y.ndim, "axisb"))
    if x.shape[-1] not in (2, 3) or y.shape[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n"
                         "(dimension must be 2 or 3)")
    if x.shape[-1] != 3 or y.shape[-1] != 3:
        raise Unsupported("np.cross of 2-vectors (deprecated by NumPy)")
    dtype = np.promote_types(x.dtype, y.dtype)
    x, y = (v if v.dtype == dtype else graph.op("astype", [v], dtype=dtype) for v in (x, y))
    xs, ys = ([getitem(graph, v, (..., i)) for i in range(3)] for v in (x, y))

    def component(i: int, j: int) -> Value:
        return graph.op("sub", [graph.op("mul", [xs[i], ys[j]]),
                                graph.op("mul", [xs[j], ys[i]])])

    parts = [component(1, 2), component(2, 0), component(0, 1)]
    result = concatenate(graph, [graph.op("expand_dims", [p], axis=[p.ndim]) for p in parts],
                         axis=-1)
    last = result.ndim - 1
    target = normalize_axis_index(int(axisc), result.ndim, "axisc")
    if target == last:
        return result
    perm = list(range(last))
    perm.insert(target, last)
    return graph.op("transpose", [result], perm=perm)


def _move_last(graph: Graph, x: Value, axis: int) -> Value:
    if axis == x.ndim - 1:
        return x
    perm = [i for i in range(x.ndim) if i != axis] + [axis]
    return graph.op("transpose", [x], perm=perm)


def conjugate(graph: Graph, x: object, out: object = None) -> Any:
    """np.conjugate of a real array (ember has no complex dtype): a new array of its values."""
    if out is not None:
        raise Unsupported("np.conjugate with out=")
    if not any_value([x]):
        return np.conjugate(x)  # type: ignore[arg-type]
    v = as_array(graph, to_value(graph, x, "np.conjugate"))
    if v.dtype == np.bool_:  # NumPy's loop for bool is its int8 one
        return as_numpy_scalar(graph, graph.op("astype", [v], dtype=np.dtype(np.int8)))
    return as_numpy_scalar(graph, graph.op("copy", [v]))


def conjugate_method(graph: Graph, x: Value) -> Value:
    """`x.conj()` of a real array: the array itself, as NumPy hands it back."""
    return x


def functions() -> dict[Any, Any]:
    return {np.matmul: matmul, np.dot: dot, np.outer: outer, np.tensordot: tensordot,
            np.diagonal: diagonal, np.diag: diag, np.diagflat: diagflat, np.trace: trace,
            np.conjugate: conjugate, np.cross: cross}


def methods() -> dict[str, Any]:
    return {"dot": dot, "diagonal": diagonal, "trace": trace, "conj": conjugate_method,
            "conjugate": conjugate_method}
