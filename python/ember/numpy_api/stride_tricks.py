"""`np.lib.stride_tricks.sliding_window_view`: the windows as gathers, one per windowed axis.

NumPy's result is a read-only view of its argument. The graph's is a copy, so capture treats
it as a view it cannot follow (`Graph.opaque_views`): the argument is never updated in place
while the windows are held, and the windows themselves never are (either breaks the graph,
and NumPy runs it: a write into the windows raises NumPy's error)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph
from ember.numpy_api.convert import any_value, to_value
from ember.numpy_api.take import take


def sliding_window_view(graph: Graph, x: object, window_shape: object, axis: object = None,
                        *, subok: object = False, writeable: object = False) -> Any:
    """`sliding_window_view(x, window_shape, axis)`: along each windowed axis (in the order
    given, an axis named twice shrinking twice), `take` of the index array
    `arange(n - w + 1)[:, None] + arange(w)`, whose window axis moves last."""
    if not any_value([x]):
        return np.lib.stride_tricks.sliding_window_view(x, window_shape, axis,  # type: ignore
                                                        subok=subok, writeable=writeable)
    if writeable:
        raise Unsupported("sliding_window_view(writeable=True)")
    value = to_value(graph, x, "sliding_window_view")
    if not all(isinstance(d, int) for d in value.shape):
        raise Unsupported("sliding_window_view of a symbolic dimension")
    window = tuple(window_shape) if np.iterable(window_shape) else (window_shape,)
    if not all(isinstance(w, (int, np.integer)) for w in window) or not (
            axis is None or isinstance(axis, (int, np.integer)) or (
            isinstance(axis, (tuple, list)) and all(isinstance(a, (int, np.integer))
                                                    for a in axis))):
        raise Unsupported("sliding_window_view with computed window sizes or axes")
    # NumPy's own checks and result shape, on a stand-in of no memory.
    stand_in = np.broadcast_to(np.zeros((), value.dtype), value.shape)
    want = np.lib.stride_tricks.sliding_window_view(stand_in, window, axis)
    axes = (list(range(value.ndim)) if axis is None
            else [int(a) % value.ndim for a in np.atleast_1d(axis)])
    result = value
    for ax, w in zip(axes, window, strict=True):
        n = result.shape[ax]
        starts = graph.op("reshape", [graph.arange(0, 1, n - w + 1, np.dtype(np.int64))],
                          shape=[n - w + 1, 1])
        index = graph.op("add", [starts, graph.arange(0, 1, w, np.dtype(np.int64))])
        result = take(graph, result, index, ax, "raise")  # (..., n - w + 1, w, ...)
        if ax + 1 != result.ndim - 1:
            perm = [i for i in range(result.ndim) if i != ax + 1] + [ax + 1]
            result = graph.op("transpose", [result], perm=perm)
    assert tuple(result.shape) == want.shape, (result.shape, want.shape)
    graph.root.opaque_views.append((value, result, functools.partial(
        np.lib.stride_tricks.sliding_window_view, window_shape=window, axis=axis)))
    return result


def as_strided(graph: Graph, x: object, *args: object, **kwargs: object) -> Any:
    """`as_strided` of constants; of an argument array, `capture/variables/strided.py`."""
    if not any_value([x]):
        return np.lib.stride_tricks.as_strided(x, *args, **kwargs)  # type: ignore[arg-type]
    raise Unsupported("as_strided of an array that is not an argument (its memory layout is "
                      "unknown to capture)")


def functions() -> dict[Any, Any]:
    return {np.lib.stride_tricks.sliding_window_view: sliding_window_view,
            np.lib.stride_tricks.as_strided: as_strided}
