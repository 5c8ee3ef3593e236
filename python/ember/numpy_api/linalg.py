"""Matrix products: np.matmul / `@` (any rank) and np.dot (ranks 0-2, as NumPy defines it)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph
from ember.graph.shapes import format_shape
from ember.numpy_api.convert import any_value, to_value
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
    return graph.op("matmul", [x, y])


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


def functions() -> dict[Any, Any]:
    return {np.matmul: matmul, np.dot: dot, np.outer: outer}


def methods() -> dict[str, Any]:
    return {"dot": dot}
