"""`np.sort`, `np.argsort` and `np.searchsorted` in NumPy's order, where NaN sorts after
every number.

A sort is a rank and a scatter: element i of a row goes to position
`#{j: a[j] < a[i]} + #{j < i: a[j] == a[i]}`, which is the stable order (so every `kind`
gives NumPy's `kind="stable"` result, a valid answer for the others). The ranks are a
broadcast comparison summed over the row, which the scheduler fuses into one reduction
kernel; it costs n comparisons per element, so rows longer than `MAX_ROW` are left to NumPy.
`searchsorted` is a branch-free binary search per value: a loop op of
`ceil(log2(n + 1))` trips over the sorted array."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.shapes import normalize_axis
from ember.numpy_api.convert import static_int, to_value
from ember.numpy_api.loop_nest import LoopNest
from ember.numpy_api.shape_ops import array_arg, reshape_value

MAX_ROW = 4096  # past this many elements per row, n comparisons per element cost too much
_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def less(graph: Graph, x: Value, y: Value) -> Value:
    """`x < y` with NaN after every number (NumPy's sort order)."""
    lt = graph.op("lt", [x, y])
    if x.dtype.kind != "f" and y.dtype.kind != "f":
        return lt
    nan_last = graph.op("logical_and", [graph.op("isnan", [y]),
                                        graph.op("logical_not", [graph.op("isnan", [x])])])
    return graph.op("logical_or", [lt, nan_last])


def _equal(graph: Graph, x: Value, y: Value) -> Value:
    eq = graph.op("eq", [x, y])
    if x.dtype.kind != "f":
        return eq
    both_nan = graph.op("logical_and", [graph.op("isnan", [x]), graph.op("isnan", [y])])
    return graph.op("logical_or", [eq, both_nan])


def _ranks(graph: Graph, x: Value) -> Value:
    """Each element's position in the stable sort of its row (the last axis), as int64."""
    n = x.shape[-1]
    mine = graph.op("expand_dims", [x], axis=[x.ndim])  # (..., n, 1): element i
    other = graph.op("expand_dims", [x], axis=[x.ndim - 1])  # (..., 1, n): element j
    before = less(graph, other, mine)
    order = graph.arange(0, 1, n, np.int64)
    earlier = graph.op("lt", [graph.op("expand_dims", [order], axis=[0]),
                              graph.op("expand_dims", [order], axis=[1])])  # j < i
    tie = graph.op("logical_and", [_equal(graph, other, mine), earlier])
    counted = graph.op("logical_or", [before, tie])
    return graph.op("sum", [counted], axis=[x.ndim], keepdims=False)


def _sort_rows(graph: Graph, x: Value, values: bool) -> Value:
    """Sort the last axis of x: its values, or the permutation (`argsort`)."""
    shape = tuple(x.shape)
    if any(isinstance(d, str) for d in shape):
        raise Unsupported("sorting an array with symbolic dimensions")
    n = shape[-1]
    if n > MAX_ROW:
        raise Unsupported(f"sorting rows of more than {MAX_ROW} elements")
    ranks = _ranks(graph, x)
    out_dtype = x.dtype if values else np.dtype(np.int64)

    def body(g: Graph, indices: list[Value], carried: list[Value], inv: list[Value]
             ) -> list[Value]:
        target = g.op("load", [inv[0], *indices])
        element = g.op("load", [inv[1], *indices]) if values else indices[-1]
        return [g.op("store", [carried[0], element, *indices[:-1], target])]

    initial = graph.full(shape, False if out_dtype == np.bool_ else 0, out_dtype)
    (out,) = LoopNest(shape, body).run(graph, [initial], [ranks, x])
    return out


def _along(graph: Graph, a: object, axis: object, kind: object, order: object,
           stable: object, what: str, values: bool) -> Value:
    if order is not None:
        raise Unsupported(f"{what} with order=")
    if kind not in _KINDS:
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})")
    if stable not in (None, True, False):
        raise ValueError("stable must be a bool or None")
    x = array_arg(graph, a, what)
    if axis is None:
        x = reshape_value(graph, x, (-1,))
        ax = 0
    else:
        if x.ndim == 0:
            raise np.exceptions.AxisError(static_int(axis, what), 0)
        ax = normalize_axis(static_int(axis, what), x.ndim)
    last = x.ndim - 1
    if ax != last:
        perm = [d for d in range(x.ndim) if d != ax] + [ax]
        x = graph.op("transpose", [x], perm=perm)
    out = _sort_rows(graph, x, values)
    if ax != last:
        back = list(range(last))
        back.insert(ax, last)
        out = graph.op("copy", [graph.op("transpose", [out], perm=back)])
    return out


def sort(graph: Graph, a: object, axis: object = -1, kind: object = None,
         order: object = None, *, stable: object = None) -> Value:
    return _along(graph, a, axis, kind, order, stable, "np.sort", values=True)


def argsort(graph: Graph, a: object, axis: object = -1, kind: object = None,
            order: object = None, *, stable: object = None) -> Value:
    return _along(graph, a, axis, kind, order, stable, "np.argsort", values=False)


def searchsorted(graph: Graph, a: object, v: object, side: object = "left",
                 sorter: object = None) -> Any:
    """np.searchsorted: per value of `v`, the first position `lo` in the sorted 1-d `a` with
    `not a[lo] < v` ('left') or `v < a[lo]` ('right'), NaN sorting last."""
    if sorter is not None:
        raise Unsupported("np.searchsorted with sorter=")
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    sorted_ = array_arg(graph, a, "np.searchsorted")
    if sorted_.ndim != 1:
        raise ValueError("object too deep for desired array")
    n = sorted_.shape[0]
    values = to_value(graph, v, "np.searchsorted")
    if isinstance(n, str) or any(isinstance(d, str) for d in values.shape):
        raise Unsupported("np.searchsorted with symbolic dimensions")
    common = np.result_type(sorted_.dtype, values.dtype)
    if values.weak or values.dtype != common:
        values = graph.op("astype", [values], dtype=common)
    if sorted_.dtype != common:
        sorted_ = graph.op("astype", [sorted_], dtype=common)
    steps = max(1, int(n).bit_length())
    shape = tuple(values.shape)

    def search(g: Graph, value: Value, array: Value) -> Value:
        region = g.region("loop")
        region.add_input(np.int64, (), weak=True)
        lo = region.add_input(np.int64, (), scalar=True)
        hi = region.add_input(np.int64, (), scalar=True)
        arr = region.add_input(array.dtype, array.shape)
        val = region.add_input(value.dtype, (), scalar=value.scalar)
        open_ = region.op("lt", [lo, hi])
        mid = region.op("floordiv", [region.op("add", [lo, hi]), region.const(2)])
        mid = region.op("minimum", [mid, region.const(max(int(n) - 1, 0))])
        element = region.op("load", [arr, mid])
        right = (less(region, element, val) if side == "left"
                 else region.op("logical_not", [less(region, val, element)]))
        go_right = region.op("logical_and", [open_, right])
        go_left = region.op("logical_and", [open_, region.op("logical_not", [right])])
        one = region.const(1)
        new_lo = region.op("where", [go_right, region.op("add", [mid, one]), lo])
        new_hi = region.op("where", [go_left, mid, hi])
        region.set_outputs([region.const(True, weak=False),
                            _as_i64(region, new_lo), _as_i64(region, new_hi)])
        zero = g.const(np.int64(0))
        start = g.const(np.int64(n))
        lo_out, _ = g.loop(g.const(0), g.const(steps if n else 0), g.const(1), [zero, start],
                           [array, value], region)
        return lo_out

    def body(g: Graph, indices: list[Value], carried: list[Value], inv: list[Value]
             ) -> list[Value]:
        value = g.op("load", [inv[1], *indices]) if shape else inv[1]
        found = search(g, value, inv[0])
        if not carried:
            return [found]
        return [g.op("store", [carried[0], found, *indices])]

    initial = [graph.full(shape, 0, np.int64)] if shape else []
    (out,) = LoopNest(shape, body).run(graph, initial, [sorted_, values])
    return out


def _as_i64(graph: Graph, v: Value) -> Value:
    if v.dtype == np.int64 and v.scalar and not v.weak:
        return v
    return graph.op("astype", [v], dtype=np.dtype(np.int64), scalar=True)


def functions() -> dict[Any, Any]:
    return {np.sort: sort, np.argsort: argsort, np.searchsorted: searchsorted}


def methods() -> dict[str, Any]:
    return {"argsort": argsort, "searchsorted": searchsorted}
