"""`np.sort`, `np.argsort` and `np.searchsorted` in NumPy's order, where NaN sorts after
every number.

`sort` and `argsort` are ops of their own (an extern step in native code, `sort.rs`, which
runs NumPy's own sort functions): `sort`/`argsort` for `kind="stable"` (and "mergesort"),
`sort_default`/`argsort_default` for NumPy's default kind, whose ties come out in the order
NumPy's unstable sort leaves them.
`searchsorted` is a branch-free binary search per value: a loop op of
`ceil(log2(n + 1))` trips over the sorted array."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.shapes import dim_product, dim_terms, normalize_axis
from ember.numpy_api import gather
from ember.numpy_api.convert import as_numpy_scalar, static_int, to_value
from ember.numpy_api.loop_nest import LoopNest
from ember.numpy_api.shape_ops import array_arg, reshape_value



def less(graph: Graph, x: Value, y: Value) -> Value:
    """`x < y` with NaN after every number (NumPy's sort order)."""
    lt = graph.op("lt", [x, y])
    if x.dtype.kind != "f" and y.dtype.kind != "f":
        return lt
    nan_last = graph.op("logical_and", [graph.op("isnan", [y]),
                                        graph.op("logical_not", [graph.op("isnan", [x])])])
    return graph.op("logical_or", [lt, nan_last])


def is_stable(kind: object, stable: object) -> bool:
    """Whether NumPy sorts stably for these `kind=` and `stable=` arguments. NumPy reads a
    kind by its first letter; since 2.4 it runs "heapsort" as its default kind (quicksort)."""
    if kind is not None and stable is not None:
        raise ValueError("`kind` and keyword parameters can't be provided at the same time. "
                         "Use only one of them.")
    if stable is not None:
        if stable not in (True, False):
            raise ValueError("stable must be a bool or None")
        return bool(stable)
    if kind is None:
        return False
    if not isinstance(kind, str):
        raise TypeError(f"sort kind must be str, not {type(kind).__name__}")
    if kind[:1].lower() not in ("q", "h", "m", "s"):
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})")
    return kind[0].lower() in "ms"


def sort_op(values: bool, stable: bool) -> str:
    """The IR op of a sort: values or positions, stable or of NumPy's default kind."""
    return ("sort" if values else "argsort") + ("" if stable else "_default")


def _along(graph: Graph, a: object, axis: object, kind: object, order: object,
           stable: object, what: str, values: bool) -> Value:
    if order is not None:
        raise Unsupported(f"{what} with order=")
    op = sort_op(values, is_stable(kind, stable))
    x = array_arg(graph, a, what)
    if axis is None:
        x = reshape_value(graph, x, (-1,))
        ax = 0
    else:
        if x.ndim == 0:
            raise np.exceptions.AxisError(static_int(axis, what), 0)
        ax = normalize_axis(static_int(axis, what), x.ndim)
    return graph.op(op, [x], axis=ax)


def sort(graph: Graph, a: object, axis: object = -1, kind: object = None,
         order: object = None, *, stable: object = None) -> Value:
    return _along(graph, a, axis, kind, order, stable, "np.sort", values=True)


def argsort(graph: Graph, a: object, axis: object = -1, kind: object = None,
            order: object = None, *, stable: object = None) -> Value:
    return _along(graph, a, axis, kind, order, stable, "np.argsort", values=False)


def partition(graph: Graph, a: object, kth: object, axis: object = -1,
              kind: object = "introselect", order: object = None) -> Value:
    """np.partition where the graph holds no loop ops (a differentiated graph): the sorted
    values, which are a partition at every `kth` (NumPy leaves the order within each side
    unspecified; its selection's own order is not reproduced). Elsewhere NumPy runs it."""
    what = "np.partition"
    if graph.root.loop_ops:
        raise Unsupported(f"{what} outside a differentiated graph (NumPy's selection order)")
    if kind != "introselect":
        raise ValueError(f"{kind!r} is an invalid kind for {what}")
    x = array_arg(graph, a, what)
    if axis is None:
        x, ax = reshape_value(graph, x, (-1,)), 0
    else:
        if x.ndim == 0:
            raise np.exceptions.AxisError(static_int(axis, what), 0)
        ax = normalize_axis(static_int(axis, what), x.ndim)
    n = x.shape[ax]
    if isinstance(n, str):
        raise Unsupported(f"{what} along a symbolic dimension")
    kths = kth if isinstance(kth, (list, tuple)) else [kth]
    for k in kths:
        k = static_int(k, what)
        if not -n <= k < n:
            raise ValueError(f"kth(={k}) out of bounds ({n})")
    return _along(graph, x, ax, None, order, None, what, values=True)


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
    values = to_value(graph, v, "np.searchsorted")
    common = np.result_type(sorted_.dtype, values.dtype)
    if values.weak or values.dtype != common:
        values = graph.op("astype", [values], dtype=common)
    if sorted_.dtype != common:
        sorted_ = graph.op("astype", [sorted_], dtype=common)

    def before(g: Graph, element: Value, value: Value) -> Value:
        """Whether `element` of the sorted array comes before the position sought."""
        if side == "left":
            return less(g, element, value)
        return g.op("logical_not", [less(g, value, element)])

    return each_searched(graph, sorted_, values, before, np.dtype(np.int64),
                         lambda g, found, value, extra: found, [])


# `before(graph, element, value)`: whether an element of the sorted array comes before the
# position sought for `value`.
Before = Callable[[Graph, Value, Value], Value]
# `result(graph, found, value, extra)`: the element stored for a value and its position.
PerValue = Callable[[Graph, Value, Value, list[Value]], Value]


def each_searched(graph: Graph, sorted_: Value, values: Value, before: Before,
                  dtype: np.dtype, result: PerValue, extra: list[Value]) -> Value:
    """An array of `values`' shape holding `result` of each value and its position in
    `sorted_`; `extra` are arrays `result` reads. Values in increasing order (checked at run
    time: an `if` op) are searched in order, each from the previous one's position
    (`walk_from`); others each by a bisection of its own, which do not wait for each
    other."""
    if not graph.root.loop_ops:
        return _counted(graph, sorted_, values, before, result, extra)
    from ember.capture.loops.sizes import value_in

    shape = tuple(values.shape)
    invariants = [sorted_, values, *extra]
    if isinstance(sorted_.shape[0], str):
        # A sorted array of symbolic length: its run-time length follows the invariants
        # (`_length`), for the searches' bounds.
        invariants.append(_as_i64(graph, value_in(graph, sorted_.shape[0])))
    size = dim_product(shape)
    if isinstance(size, int) and size < 2 or sorted_.shape[0] == 0:
        return _searched(graph, shape, before, dtype, result, invariants, guessed=False)
    flat = reshape_value(graph, values, (-1,))
    from ember.numpy_api.indexing import getitem

    head, tail = getitem(graph, flat, slice(None, -1)), getitem(graph, flat, slice(1, None))
    increasing = graph.op("all", [graph.op("le", [head, tail])], axis=None, keepdims=False)
    # The run-time sizes of the values' symbolic dims enter the paths as parameters, for
    # the loop nest's extents (`loops/sizes.value_in`).
    symbols = sorted({x for d in shape if isinstance(d, str) for p in dim_terms(d)[0]
                      for x in p})
    from ember.capture.loops.sizes import value_in

    sizes = [value_in(graph, x) for x in symbols]
    regions = []
    for guessed in (True, False):
        region = graph.region("if")
        params = _params(region, [*invariants, *sizes])
        region.size_values.update(zip(symbols, params[len(invariants):]))
        region.set_outputs([_searched(region, shape, before, dtype, result,
                                      params[:len(invariants)], guessed=guessed)])
        regions.append(region)
    return graph.if_(increasing, [*invariants, *sizes], *regions)[0]


def _counted(graph: Graph, sorted_: Value, values: Value, before: Before, result: PerValue,
             extra: list[Value]) -> Value:
    """`each_searched` in a graph without loop ops (a differentiated graph): each value's
    position is the count of elements that come before it (they lead the sorted array),
    one comparison of every value with every element, and `result` runs on whole arrays."""
    last = values.ndim
    spread = graph.op("expand_dims", [values], axis=[last]) if last else values
    comes = before(graph, sorted_, spread)
    count = graph.op("astype", [comes], dtype=np.dtype(np.int64))
    found = graph.op("sum", [count], axis=[last], keepdims=False)
    return result(graph, found, values, extra)


def _searched(graph: Graph, shape: tuple[int, ...], before: Before, dtype: np.dtype,
              result: PerValue, invariants: list[Value], guessed: bool) -> Value:
    """`each_searched`'s loop nest, each search from the last one's position (`guessed`) or
    not."""

    symbolic = isinstance(invariants[0].shape[0], str)

    def body(g: Graph, indices: list[Value], carried: list[Value], inv: list[Value]
             ) -> list[Value]:
        value = g.op("load", [inv[1], *indices]) if shape else inv[1]
        n = inv[-1] if symbolic else int(inv[0].shape[0])
        if guessed:
            found = walk_from(g, inv[0], value, carried[-1], before, n)
        else:
            found = bisect(g, inv[0], value, before, n)
        out = result(g, found, value, inv[2:-1] if symbolic else inv[2:])
        if not shape:
            return [out]
        stored = g.op("store", [carried[0], out, *indices])
        return [stored, found] if guessed else [stored]

    initial = [graph.full(shape, 0, dtype)] if shape else []
    if guessed:
        initial.append(_as_i64(graph, graph.const(0)))
    return LoopNest(shape, body).run(graph, initial, invariants)[0]


def walk_from(graph: Graph, array: Value, value: Value, start: Value, before: Before,
              n: int | Value) -> Value:
    """The number of leading elements of the sorted 1-d `array` that come `before` `value`,
    known to be at least `start` (the previous of increasing values' answer): a walk
    forward from it, so that all the values together walk the array once, a merge. The
    walk's loop is entered only past a first step (an `if`), as most values take none
    where they outnumber the array. `n`: the array's length (a value where symbolic)."""
    first = _steps_past(graph, array, value, start, before, n)
    passed = [array, value, *([n] if isinstance(n, Value) else [])]
    walk = graph.region("loop")
    walk.add_input(np.int64, (), weak=True)
    at = walk.add_input(np.int64, (), scalar=True)
    arr, val, *length = _params(walk, passed)
    step = _steps_past(walk, arr, val, at, before, length[0] if length else n)
    walk.set_outputs([step, _as_i64(walk, walk.op("add", [at, _as_i64(walk, step)]))])
    then = graph.region("if")
    params = _params(then, [start, *passed])
    after = _as_i64(then, then.op("add", [params[0], then.const(np.int64(1))]))
    stop = params[3] if length else then.const(n)
    then.set_outputs(then.loop(then.const(0), stop, then.const(1), [after], params[1:], walk))
    orelse = graph.region("if")
    orelse.set_outputs(_params(orelse, [start, *passed])[:1])
    return graph.if_(first, [start, *passed], then, orelse)[0]


def _params(region: Graph, operands: list[Value]) -> list[Value]:
    """The region's parameters for the values an `if` op passes it."""
    return [region.add_input(v.dtype, v.shape, weak=v.weak, scalar=v.scalar) for v in operands]


def _steps_past(graph: Graph, array: Value, value: Value, at: Value, before: Before,
                n: int | Value) -> Value:
    """Whether position `at` of `array` (of length `n`) is inside it and comes before
    `value`."""
    if isinstance(n, Value):
        length, last = n, graph.op("sub", [n, graph.const(np.int64(1))])
    else:
        length, last = graph.const(np.int64(n)), graph.const(np.int64(n - 1))
    inside = graph.op("lt", [at, length])
    element = graph.op("load", [array, graph.op("minimum", [at, last])])
    return graph.op("logical_and", [inside, before(graph, element, value)])


def bisect(graph: Graph, array: Value, value: Value, before: Before, n: int | Value
           ) -> Value:
    """The number of leading elements of the sorted 1-d `array` (of length `n`) that come
    `before` `value`, by halvings of `[0, n]`: `n.bit_length()` of them close it, a number
    of trips fixed, as an exit once the range closes would be mispredicted; for a length
    known at run time (a value) the loop stops once the range is closed."""
    if isinstance(n, int) and n == 0:
        return _as_i64(graph, graph.const(0))
    symbolic = isinstance(n, Value)
    passed = [array, value, *([n] if symbolic else [])]
    region = graph.region("loop")
    region.add_input(np.int64, (), weak=True)
    lo = region.add_input(np.int64, (), scalar=True)
    hi = region.add_input(np.int64, (), scalar=True)
    arr, val, *length = _params(region, passed)
    open_ = region.op("lt", [lo, hi])
    mid = region.op("floordiv", [region.op("add", [lo, hi]), region.const(2)])
    last = region.op("sub", [length[0], region.const(np.int64(1))]) if symbolic else \
        region.const(n - 1)
    mid = region.op("minimum", [mid, last])
    right = before(region, region.op("load", [arr, mid]), val)
    go_right = region.op("logical_and", [open_, right])
    go_left = region.op("logical_and", [open_, region.op("logical_not", [right])])
    next_lo = region.op("add", [mid, region.const(1)])
    new_lo = _as_i64(region, region.op("where", [go_right, next_lo, lo]))
    new_hi = _as_i64(region, region.op("where", [go_left, mid, hi]))
    go = region.op("lt", [new_lo, new_hi]) if symbolic else region.const(True, weak=False)
    region.set_outputs([go, new_lo, new_hi])
    bounds = [_as_i64(graph, graph.const(0)), n if symbolic else _as_i64(graph, graph.const(n))]
    steps = 64 if symbolic else n.bit_length()  # type: ignore[union-attr]
    found, _ = graph.loop(graph.const(0), graph.const(steps), graph.const(1), bounds, passed,
                          region)
    return found


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


def unique_buffers(graph: Graph, x: Value, index: bool, counts: bool, inverse: bool = False,
                   equal_nan: bool = True) -> tuple[list[Value], Value, Value | None]:
    """np.unique(x)'s values (then, where asked, `return_index`'s and `return_counts`'s)
    at the front of buffers of `x.size` elements, their count (a weak int64), and where asked
    `return_inverse`'s indices (of `x`'s shape: each element's run). Sorted as NumPy sorts
    them, the first of each run of equal values is kept (NaNs are one run where `equal_nan`):
    what each run contributes is stored at its rank, and the other elements store past the
    count (only a run of one element has no others)."""
    flat = reshape_value(graph, x, (-1,))
    n = flat.shape[0]  # a symbolic size is 2 or more: slices of it count from the end
    if n == 0:
        empty = graph.full((0,), 0, np.int64)
        return ([flat, *[empty] * (index + counts)], graph.const(0, weak=True),
                graph.full(x.shape, 0, np.int64) if inverse else None)
    if index or inverse:  # NumPy's stable argsort, so that each run's first index is its first
        order = graph.op("argsort", [flat], axis=0)
        ordered = gather.gather(graph, gather.plan(graph, flat, order))
    else:  # the values sorted as NumPy sorts them (its default kind): the same run heads
        ordered = graph.op("sort_default", [flat], axis=0)
    symbolic = isinstance(n, str)
    head = graph.op("slice", [ordered], start=[0], stop=[-2 if symbolic else n - 1], step=[1])
    tail = graph.op("slice", [ordered], start=[1], stop=[-1 if symbolic else n], step=[1])
    differs = graph.op("ne", [tail, head])
    if flat.dtype.kind == "f" and equal_nan:
        both_nan = graph.op("logical_and", [graph.op("isnan", [tail]),
                                            graph.op("isnan", [head])])
        differs = graph.op("logical_and", [differs, graph.op("logical_not", [both_nan])])
    true = graph.full((1,), True, np.bool_)
    first = graph.op("concatenate", [true, differs], axis=0)
    slots = gather.Compacted(graph, first)
    buffers = [slots.stored(first, ordered)]
    positions = graph.arange(0, 1, n, np.dtype(np.int64))
    starts = slots.stored(first, positions)
    if index:
        buffers.append(gather.gather(graph, gather.plan(graph, order, starts)))
    if counts:
        last = graph.op("concatenate", [differs, true], axis=0)
        ends = slots.stored(last, graph.op("add", [positions, graph.const(np.int64(1))]))
        buffers.append(graph.op("sub", [ends, starts]))
    runs = None
    if inverse:  # each element's run, the rank its sorted place has among the run heads
        runs = gather.scatter(graph, gather.plan(graph, graph.full((n,), 0, np.int64), order),
                              slots.slot)
        runs = reshape_value(graph, runs, x.shape)
    return buffers, slots.count, runs


def unique(graph: Graph, ar: object, *args: object, **kwargs: object) -> Any:
    """Capture makes np.unique's result of a length only the data knows
    (`capture/variables/datalen.py`); the forms it does not take are refused here."""
    raise Unsupported("np.unique with an axis, sorted=False, of an array of symbolic shape, "
                      "or of floats being differentiated (the values it keeps carry no "
                      "gradient)")


def _as_i64(graph: Graph, v: Value) -> Value:
    if v.dtype == np.int64 and v.scalar and not v.weak:
        return v
    return graph.op("astype", [v], dtype=np.dtype(np.int64), scalar=True)


def functions() -> dict[Any, Any]:
    return {np.sort: sort, np.argsort: argsort, np.searchsorted: searchsorted,
            np.digitize: digitize, np.lexsort: lexsort, np.unique: unique,
            np.partition: partition}


def methods() -> dict[str, Any]:
    # `a.sort()` returns the sorted values here; capture writes them into `a`.
    return {"argsort": argsort, "searchsorted": searchsorted, "sort": sort}
