"""`np.interp`: NumPy's piecewise-linear interpolation, step for step.

NumPy (`compiled_base.c: arr_interp`) finds for each `x` the `j` with
`xp[j] <= x < xp[j + 1]` and computes `slope * (x - xp[j]) + fp[j]`, with
`slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j])`; a NaN there is computed again from the
right end (`slope * (x - xp[j + 1]) + fp[j + 1]`), and a NaN between equal `fp` values is
`fp[j]`. `x` equal to `xp[j]` takes `fp[j]`, `x` past either end `left`/`right` (`fp[0]` and
`fp[-1]` by default), NaN `x` stays NaN. Here `j` is `searchsorted(xp, x, 'right') - 1`,
which is NumPy's `j` where `xp` is increasing, as NumPy requires; for other `xp` (NaN among
them) the graph raises, so the frame reruns and NumPy gives its own answer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.numpy_api import gather
from ember.numpy_api.convert import as_numpy_scalar, to_value
from ember.numpy_api.sorting import searchsorted

_F64 = np.dtype(np.float64)


def _float64(graph: Graph, x: object, what: str) -> Value:
    value = to_value(graph, x, what)
    if value.dtype.kind == "c":
        raise Unsupported(f"np.interp with complex {what}")
    if value.dtype != _F64 or value.weak:
        value = graph.op("astype", [value], dtype=_F64)
    return value


def interp(graph: Graph, x: object, xp: object, fp: object, left: object = None,
           right: object = None, period: object = None) -> Any:
    if period is not None:
        raise Unsupported("np.interp with period=")
    points = _float64(graph, xp, "xp")
    values = _float64(graph, fp, "fp")
    if points.ndim != 1 or values.ndim != 1:
        raise ValueError("object too deep for desired array")
    if any(isinstance(d, str) for d in (*points.shape, *values.shape)):
        raise Unsupported("np.interp with sample points of symbolic size")
    n = int(points.shape[0])
    if values.shape[0] != n:
        raise ValueError("fp and xp are not of the same length.")
    if n == 0:
        raise ValueError("array of sample points is empty")
    if n == 1:
        raise Unsupported("np.interp with a single sample point")
    at = _float64(graph, x, "x")
    _rerun_unless_increasing(graph, points, n)
    j = graph.op("sub", [searchsorted(graph, points, at, side="right"),
                         graph.const(np.int64(1))])
    lo = graph.op("minimum", [graph.op("maximum", [j, graph.const(np.int64(0))]),
                              graph.const(np.int64(n - 2))])
    hi = graph.op("add", [lo, graph.const(np.int64(1))])

    def take(a: Value, index: Value) -> Value:
        return gather.gather(graph, gather.plan(graph, a, index))

    x0, x1, y0, y1 = take(points, lo), take(points, hi), take(values, lo), take(values, hi)
    slope = graph.op("div", [graph.op("sub", [y1, y0]), graph.op("sub", [x1, x0])])
    inside = graph.op("add", [graph.op("mul", [slope, graph.op("sub", [at, x0])]), y0])
    from_right = graph.op("add", [graph.op("mul", [slope, graph.op("sub", [at, x1])]), y1])
    result = graph.op("where", [graph.op("isnan", [inside]), from_right, inside])
    flat = graph.op("logical_and", [graph.op("isnan", [result]), graph.op("eq", [y0, y1])])
    result = graph.op("where", [flat, y0, result])
    result = graph.op("where", [graph.op("eq", [at, x0]), y0, result])
    first, last = _element(graph, points, 0), _element(graph, points, n - 1)
    ends = [(graph.op("eq", [j, graph.const(np.int64(n - 1))]), _element(graph, values, n - 1)),
            (graph.op("gt", [at, last]), _end(graph, right, values, n - 1)),
            (graph.op("lt", [at, first]), _end(graph, left, values, 0)),
            (graph.op("isnan", [at]), at)]
    for where, value in ends:
        result = graph.op("where", [where, value, result])
    return as_numpy_scalar(graph, result)


def _element(graph: Graph, a: Value, i: int) -> Value:
    return graph.op("load", [a, graph.const(i)])


def _end(graph: Graph, given: object, values: Value, i: int) -> Value:
    """`left`/`right`: the given value as a float64, else `fp`'s end."""
    if given is None:
        return _element(graph, values, i)
    value = _float64(graph, given, "left/right")
    if value.ndim:
        raise Unsupported("np.interp with an array as left or right")
    return value


def _rerun_unless_increasing(graph: Graph, points: Value, n: int) -> None:
    """A load past the end of `xp` unless it never decreases (NaN fails too): the graph
    raises and NumPy's answer for such points is computed by NumPy."""
    head = graph.op("slice", [points], start=[0], stop=[n - 1], step=[1])
    tail = graph.op("slice", [points], start=[1], stop=[n], step=[1])
    rising = graph.op("all", [graph.op("le", [head, tail])], axis=None, keepdims=False)
    graph.op("load", [points, graph.op("where", [rising, graph.const(0), graph.const(n)])])


def functions() -> dict[Any, Any]:
    return {np.interp: interp}
