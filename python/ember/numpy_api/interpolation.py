"""`np.interp`: NumPy's piecewise-linear interpolation, step for step.

NumPy (`compiled_base.c: arr_interp`) finds for each `x` the `j` with
`xp[j] <= x < xp[j + 1]` and computes `slope * (x - xp[j]) + fp[j]`, with
`slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j])`; a NaN there is computed again from the
right end (`slope * (x - xp[j + 1]) + fp[j + 1]`), and a NaN between equal `fp` values is
`fp[j]`. `x` equal to `xp[j]` takes `fp[j]`, `x` past either end `left`/`right` (`fp[0]` and
`fp[-1]` by default), NaN `x` stays NaN. Here `j` is `searchsorted(xp, x, 'right') - 1`,
which is NumPy's `j` where `xp` is increasing, as NumPy requires; for other `xp` (NaN among
them) the graph raises, so the frame reruns and NumPy gives its own answer. Outside loop
bodies, more than `_MOST_VALUES` values are left to NumPy (a graph break). A graph without
loop ops (a differentiated one) counts the `xp` at most each `x` and gathers `xp` and `fp`
there, so the gradient reaches `x`, `xp` and `fp`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.numpy_api.convert import as_numpy_scalar, rerun_unless, to_value
from ember.numpy_api.sorting import each_searched

_F64 = np.dtype(np.float64)
# NumPy's own loop takes about 5 ns a value, the element loop here about 1.7 times that (a
# merge of increasing values): past this many values a graph break, which costs some
# microseconds, is the cheaper way to run np.interp outside loop bodies.
_MOST_VALUES = 1024


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
    if graph is graph.root and (at.size is None or at.size > _MOST_VALUES):
        raise Unsupported(f"np.interp of more than {_MOST_VALUES} values, which NumPy's own "
                          f"loop runs faster")
    _rerun_unless_increasing(graph, points, n)
    ends = [_end(graph, left, values, 0), _end(graph, right, values, n - 1)]

    def after_point(g: Graph, point: Value, value: Value) -> Value:
        # `xp` holds no NaN (checked above), and a NaN `x` is NaN whatever its position.
        return g.op("le", [point, value])

    def interpolated(g: Graph, found: Value, value: Value, extra: list[Value]) -> Value:
        return _at(g, n, found, value, *extra)

    result = each_searched(graph, points, at, after_point, _F64, interpolated,
                           [points, values, *ends])
    return as_numpy_scalar(graph, result)


def _at(g: Graph, n: int, found: Value, x: Value, points: Value, values: Value,
        left: Value, right: Value) -> Value:
    """NumPy's value at `x`, where `found` points of `points` are at most `x`."""

    def const(v: int) -> Value:
        return g.const(np.int64(v))

    def load(a: Value, i: Value) -> Value:
        return _load(g, a, i)

    j = g.op("sub", [found, const(1)])
    lo = g.op("minimum", [g.op("maximum", [j, const(0)]), const(n - 2)])
    hi = g.op("add", [lo, const(1)])
    x0, x1, y0, y1 = load(points, lo), load(points, hi), load(values, lo), load(values, hi)
    slope = g.op("div", [g.op("sub", [y1, y0]), g.op("sub", [x1, x0])])
    inside = g.op("add", [g.op("mul", [slope, g.op("sub", [x, x0])]), y0])
    from_right = g.op("add", [g.op("mul", [slope, g.op("sub", [x, x1])]), y1])
    result = g.op("where", [g.op("isnan", [inside]), from_right, inside])
    flat = g.op("logical_and", [g.op("isnan", [result]), g.op("eq", [y0, y1])])
    result = g.op("where", [flat, y0, result])
    result = g.op("where", [g.op("eq", [x, x0]), y0, result])
    last = load(values, const(n - 1))
    for where, value in [(g.op("eq", [j, const(n - 1)]), last),
                         (g.op("gt", [x, load(points, const(n - 1))]), right),
                         (g.op("lt", [x, load(points, const(0))]), left),
                         (g.op("isnan", [x]), x)]:
        result = g.op("where", [where, value, result])
    return result


def _load(g: Graph, a: Value, i: Value) -> Value:
    """`a[i]`: an element load in a loop body, a `gather` of index array `i` in a graph
    without loop ops (differentiated: the op has a gradient rule)."""
    if g.root.loop_ops:
        return g.op("load", [a, i])
    from ember.numpy_api import gather

    return gather.gather(g, gather.plan(g, a, i))


def _end(graph: Graph, given: object, values: Value, i: int) -> Value:
    """`left`/`right`: the given value as a float64, else `fp`'s end."""
    if given is None:
        return _load(graph, values, graph.const(np.int64(i)))
    value = _float64(graph, given, "left/right")
    if value.ndim:
        raise Unsupported("np.interp with an array as left or right")
    return value


def _rerun_unless_increasing(graph: Graph, points: Value, n: int) -> None:
    """A load past the end of `xp` unless it never decreases (NaN fails too): the graph
    raises and NumPy's answer for such points is computed by NumPy."""
    head = graph.op("slice", [points], start=[0], stop=[n - 1], step=[1])
    tail = graph.op("slice", [points], start=[1], stop=[n], step=[1])
    rerun_unless(graph, graph.op("all", [graph.op("le", [head, tail])], axis=None,
                                 keepdims=False))


def functions() -> dict[Any, Any]:
    return {np.interp: interp}
