"""`np.sort`, `np.argsort` and `np.searchsorted` in NumPy's order, where NaN sorts after
every number.

`sort` and `argsort` are ops of their own (an extern step in native code, `sort.rs`), stable
for every `kind`: NumPy's `kind="stable"` result, a valid answer for the others.
`searchsorted` is a branch-free binary search per value: a loop op of
`ceil(log2(n + 1))` trips over the sorted array."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.shapes import normalize_axis
from ember.numpy_api import gather
from ember.numpy_api.convert import as_numpy_scalar, static_int, to_value
from ember.numpy_api.loop_nest import LoopNest
from ember.numpy_api.shape_ops import array_arg, reshape_value

_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def less(graph: Graph, x: Value, y: Value) -> Value:
    """`x < y` with NaN after every number (NumPy's sort order)."""
    lt = graph.op("lt", [x, y])
    if x.dtype.kind != "f" and y.dtype.kind != "f":
        return lt
    nan_last = graph.op("logical_and", [graph.op("isnan", [y]),
                                        graph.op("logical_not", [graph.op("isnan", [x])])])
    return graph.op("logical_or", [lt, nan_last])


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
    return graph.op("sort" if values else "argsort", [x], axis=ax)


def sort(graph: Graph, a: object, axis: object = -1, kind: object = None,
         order: object = None, *, stable: object = None) -> Value:
    return _along(graph, a, axis, kind, order, stable, "np.sort", values=True)


def argsort(graph: Graph, a: object, axis: object = -1, kind: object = None,
            order: object = None, *, stable: object = None) -> Value:
    return _along(graph, a, axis, kind, order, stable, "np.argsort", values=False)


def searchsorted(graph: Graph, a: object, v: object, side: object = "left",
                 sorter: object = None) -> Any:
    """np.searchsorted: per value of `v`, the first position `lo` in the sorted 1-d `a` with
    `not a[lo] < v` ('left') or `v < a[lo]` ('right'), NaN sorting last. With `sorter`, the
    search runs over `a[sorter]` (a gather, its indices checked)."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    sorted_ = array_arg(graph, a, "np.searchsorted")
    if sorted_.ndim != 1:
        raise ValueError("object too deep for desired array")
    if sorter is not None:
        order = to_value(graph, sorter, "np.searchsorted")
        if order.dtype.kind not in "iu" or order.ndim != 1:
            raise Unsupported("np.searchsorted with a sorter that is not a 1-d integer array")
        if order.shape != sorted_.shape:
            raise ValueError("sorter.size must equal a.size")
        from ember.numpy_api import gather

        sorted_ = gather.gather(graph, gather.plan(graph, sorted_, order))
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


def digitize(graph: Graph, x: object, bins: object, right: object = False) -> Any:
    """np.digitize as NumPy defines it: `searchsorted(bins, x)` for increasing bins,
    `len(bins) - searchsorted(bins[::-1], x)` for decreasing ones (both computed, one taken
    by the bins' order). Bins in neither order make the graph raise (a load past the end of
    the bins), so the frame reruns and NumPy raises its ValueError."""
    edges = array_arg(graph, bins, "np.digitize")
    if edges.ndim != 1 or isinstance(edges.shape[0], str):
        raise Unsupported("np.digitize with bins that are not a 1-d array of static size")
    n = int(edges.shape[0])
    side = "left" if right else "right"
    rising = searchsorted(graph, edges, x, side=side)
    if n < 2:
        return rising
    reversed_ = graph.op("flip", [edges], axis=[0])
    falling = graph.op("sub", [graph.const(n), searchsorted(graph, reversed_, x, side=side)])
    head = graph.op("slice", [edges], start=[0], stop=[n - 1], step=[1])
    tail = graph.op("slice", [edges], start=[1], stop=[n], step=[1])
    up = graph.op("all", [graph.op("le", [head, tail])], axis=None, keepdims=False)
    down = graph.op("all", [graph.op("ge", [head, tail])], axis=None, keepdims=False)
    ordered = graph.op("logical_or", [up, down])
    graph.op("load", [edges, graph.op("where", [ordered, graph.const(0), graph.const(n)])])
    return as_numpy_scalar(graph, graph.op("where", [up, rising, falling]))


def lexsort(graph: Graph, keys: object, axis: object = -1) -> Value:
    """np.lexsort of 1-d keys (a sequence, or the rows of a 2-d array): the last key sorts
    first. A stable argsort by each key in turn, first to last, on the order so far, which
    is the order NumPy's stable lexicographic sort gives (NaN last in each key)."""
    if static_int(axis, "np.lexsort") not in (-1, 0):
        raise Unsupported("np.lexsort with an axis other than the last")
    if isinstance(keys, Value):
        if keys.ndim != 2:
            raise Unsupported("np.lexsort of an array that is not 2-d")
        keys = [graph.op("squeeze", [graph.op("slice", [keys], start=[i, 0],
                                               stop=[i + 1, keys.shape[1]], step=[1, 1])],
                         axis=[0]) for i in range(keys.shape[0])]
    if not isinstance(keys, (tuple, list)) or not keys:
        raise Unsupported("np.lexsort of something other than a sequence of arrays")
    rows = [to_value(graph, k, "np.lexsort") for k in keys]
    if any(r.ndim != 1 or isinstance(r.shape[0], str) for r in rows):
        raise Unsupported("np.lexsort of keys that are not 1-d arrays of static size")
    if len({r.shape[0] for r in rows}) != 1:
        raise ValueError("all keys need to be the same shape")
    order = graph.op("argsort", [rows[0]], axis=0)
    for key in rows[1:]:
        in_order = gather.gather(graph, gather.plan(graph, key, order))
        step = graph.op("argsort", [in_order], axis=0)
        order = gather.gather(graph, gather.plan(graph, order, step))
    return order


def unique_buffers(graph: Graph, x: Value, index: bool, counts: bool
                   ) -> tuple[list[Value], Value]:
    """np.unique(x)'s values (then, where asked, `return_index`'s and `return_counts`'s)
    at the front of buffers of `x.size` elements, and their count (a weak int64). Sorted
    stably, the first of each run of equal values is kept (NaNs are one run, as NumPy's
    `equal_nan` makes them): what each run contributes is stored at its rank, and the other
    elements store past the count (only a run of one element has no others)."""
    flat = reshape_value(graph, x, (-1,))
    n = int(flat.shape[0])
    if n == 0:
        empty = graph.full((0,), 0, np.int64)
        return [flat, *[empty] * (index + counts)], graph.const(0, weak=True)
    order = graph.op("argsort", [flat], axis=0)
    ordered = gather.gather(graph, gather.plan(graph, flat, order))
    head = graph.op("slice", [ordered], start=[0], stop=[n - 1], step=[1])
    tail = graph.op("slice", [ordered], start=[1], stop=[n], step=[1])
    differs = graph.op("ne", [tail, head])
    if flat.dtype.kind == "f":
        both_nan = graph.op("logical_and", [graph.op("isnan", [tail]),
                                            graph.op("isnan", [head])])
        differs = graph.op("logical_and", [differs, graph.op("logical_not", [both_nan])])
    true = graph.full((1,), True, np.bool_)
    first = graph.op("concatenate", [true, differs], axis=0)
    rank = graph.op("cumsum", [graph.op("astype", [first], dtype=np.dtype(np.int64))], axis=0)
    count = graph.op("load", [rank, graph.const(n - 1)])
    spare = graph.const(np.int64(n - 1))
    slot = graph.op("sub", [rank, graph.const(np.int64(1))])

    def stored(where: Value, values: Value) -> Value:
        place = graph.op("where", [where, slot, spare])
        empty = graph.full((n,), 0, values.dtype)
        return gather.scatter(graph, gather.plan(graph, empty, place), values)

    buffers = [stored(first, ordered)]
    positions = graph.arange(0, 1, n, np.dtype(np.int64))
    starts = stored(first, positions)
    if index:
        buffers.append(gather.gather(graph, gather.plan(graph, order, starts)))
    if counts:
        last = graph.op("concatenate", [differs, true], axis=0)
        ends = stored(last, graph.op("add", [positions, graph.const(np.int64(1))]))
        buffers.append(graph.op("sub", [ends, starts]))
    return buffers, graph.op("astype", [count], dtype=np.dtype(np.int64), weak=True)


def unique(graph: Graph, ar: object, *args: object, **kwargs: object) -> Any:
    """Capture makes np.unique's result of a length only the data knows
    (`capture/variables/datalen.py`); the forms it does not take are refused here."""
    raise Unsupported("np.unique with return_inverse, axis or an array of symbolic shape")


def _as_i64(graph: Graph, v: Value) -> Value:
    if v.dtype == np.int64 and v.scalar and not v.weak:
        return v
    return graph.op("astype", [v], dtype=np.dtype(np.int64), scalar=True)


def functions() -> dict[Any, Any]:
    return {np.sort: sort, np.argsort: argsort, np.searchsorted: searchsorted,
            np.digitize: digitize, np.lexsort: lexsort, np.unique: unique}


def methods() -> dict[str, Any]:
    # `a.sort()` returns the sorted values here; capture writes them into `a`.
    return {"argsort": argsort, "searchsorted": searchsorted, "sort": sort}
