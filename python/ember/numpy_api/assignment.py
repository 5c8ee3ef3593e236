"""Item assignment `a[index] = value` as a functional update: a new value equal to `a` with
the indexed region replaced. Capture uses it only for arrays no other array views, so the
update cannot be observed through an alias."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value, shapes
from ember.numpy_api import gather
from ember.numpy_api.convert import any_value
from ember.numpy_api.indexing import _slice_part, _symbolic_slice, getitem, ranges_as_arrays
from ember.numpy_api.literals import constant_array, literal_value


@dataclass(frozen=True)
class Selected:
    """The value of `a[mask] = a[mask] op ...`: one value per selected element, held in the
    selected places of an array of `a`'s shape (`capture/variables/masked.py`)."""

    values: Value


def setitem(graph: Graph, a: Value, index: object, value: object) -> Value:
    """`a` after `a[index] = value`: the same array, so it keeps `a`'s memory order."""
    result = _setitem(graph, a, index, value)
    if result is not a and result.ndim == a.ndim:
        graph.layouts[result.id] = ("like", a.id)
    return result


def _setitem(graph: Graph, a: Value, index: object, value: object) -> Value:
    """`a` after `a[index] = value`, for integer and slice indices (and `...`): slices of `a`
    around the value, concatenated axis by axis; a slice with a step, by an element loop."""
    index = _integer_lists_as_arrays(graph, ranges_as_arrays(graph, index))
    items = index if isinstance(index, tuple) else (index,)
    if len(items) == 1 and isinstance(items[0], Value) and items[0].dtype == np.bool_ \
            and items[0].ndim and not a.scalar:
        return _masked(graph, a, items[0], value)
    if any(isinstance(item, Value) for item in items) and not a.scalar:
        found = gather.plan(graph, a, index)
        return gather.scatter(graph, found, _converted(graph, value, a.dtype))
    if any(item is None or isinstance(item, (list, Value, np.ndarray)) for item in items):
        raise Unsupported("item assignment with index arrays or np.newaxis")
    if a.scalar:
        raise TypeError(f"'{a.dtype.type.__name__}' object does not support item assignment")
    target = getitem(graph, a, index)  # checks the index exactly as reading it does
    if graph.parent is None and _computed(graph, a):
        # NumPy computed the elements this assignment drops: their floating-point flags
        # (`inf - inf` at an edge overwritten next) are still the program's.
        graph.overwritten.append(target)
    v = _converted(graph, value, a.dtype)
    if not _broadcasts_to(v.shape, target.shape):
        raise ValueError(f"could not broadcast input array from shape {v.shape} into shape "
                         f"{tuple(target.shape)}")
    expanded = _expanded(a, items)
    if any(isinstance(item, slice) and _slice_part(item.step) not in (None, 1)
           for item in expanded):
        return _strided(graph, a, expanded, v, target)
    region, int_axes = _region(graph, a, expanded)
    if any(bounds is not None and _empty(bounds) for bounds in region):
        return a
    if tuple(v.shape) != tuple(target.shape):
        v = graph.op("broadcast_to", [v], shape=list(target.shape))
    if int_axes:
        v = graph.op("expand_dims", [v], axis=int_axes)
    placed = _place(graph, a, region, v)
    # The whole array assigned: a fresh buffer, never the assigned value itself.
    return graph.op("copy", [placed]) if placed is v else placed


def _integer_lists_as_arrays(graph: Graph, index: object) -> object:
    """`index` with each list or array of Python/NumPy integers in it (`y[[2, 5]] = ...`) as
    the constant integer array NumPy makes of it, which the scatter path writes through."""
    def array(item: object) -> object:
        if isinstance(item, (list, np.ndarray)):
            known = np.asarray(item) if not isinstance(item, list) or all(
                type(i) in (int, np.intp, np.int64, np.int32) for i in item) else None
            if known is not None and known.dtype.kind in "iu" and known.size:
                return constant_array(graph, known.astype(np.intp))
        return item
    if isinstance(index, tuple):
        return tuple(array(item) for item in index)
    return array(index)


def _broadcasts_to(shape: tuple, target: tuple) -> bool:
    try:
        return shapes.broadcast_shapes(tuple(shape), tuple(target)) == tuple(target)
    except ValueError:
        return False


def _computed(graph: Graph, a: Value) -> bool:
    """Whether `a` is the result of arithmetic that may raise floating-point flags (not an
    input, a creation such as `np.zeros`, or a view)."""
    from ember.graph.ops import OPS

    node = next((n for n in reversed(graph.nodes) if n.out is a), None)
    return node is not None and (OPS[node.op].kind in ("elementwise", "reduction")
                                 or node.op == "matmul")


# Per axis of an assignment's region: the `slice` op's (start, stop) of the part assigned
# (on a symbolic axis counted from the front or from its end, as `indexing._symbolic_slice`
# gives them), or None for the whole axis.
Region = list[tuple[int, int] | None]


def _expanded(a: Value, items: tuple[object, ...]) -> list[object]:
    """An index `getitem` accepted, one item per axis of `a` (`...` and the missing trailing
    axes as whole slices)."""
    consumed = sum(1 for item in items if item is not Ellipsis)
    expanded: list[object] = []
    for item in items:
        expanded.extend([slice(None)] * (a.ndim - consumed) if item is Ellipsis else [item])
    expanded.extend([slice(None)] * (a.ndim - len(expanded)))
    return expanded


def _strided(graph: Graph, a: Value, expanded: list[object], v: Value, target: Value) -> Value:
    """`a` after `a[index] = v` where a slice of the index has a step: the first such axis
    indexed by the positions it selects (an `arange`), so the element loop of `gather.scatter`
    writes them; integers become slices of one (and `v` gets their axes), which keeps the
    region's axes in the order basic indexing gives them."""
    if any(isinstance(d, str) for d in a.shape):
        raise Unsupported("item assignment through a slice with a step on a symbolic axis")
    if 0 in target.shape:
        return a
    int_axes = [axis for axis, item in enumerate(expanded) if not isinstance(item, slice)]
    if tuple(v.shape) != tuple(target.shape):
        v = graph.op("broadcast_to", [v], shape=list(target.shape))
    if int_axes:
        v = graph.op("expand_dims", [v], axis=int_axes)
    items: list[object] = []
    for item, size in zip(expanded, a.shape, strict=True):
        if isinstance(item, slice):
            item = slice(_slice_part(item.start), _slice_part(item.stop), _slice_part(item.step))
        else:
            i = int(item) % int(size)  # type: ignore[call-overload]
            item = slice(i, i + 1)
        items.append(item)
    axis = next(k for k, item in enumerate(items) if item.step not in (None, 1))  # type: ignore[union-attr]
    positions = range(*items[axis].indices(int(a.shape[axis])))  # type: ignore[union-attr]
    items[axis] = graph.arange(positions.start, positions.step, len(positions), np.int64)
    return gather.scatter(graph, gather.plan(graph, a, tuple(items)), v)


def _region(graph: Graph, a: Value, expanded: list[object]) -> tuple[Region, list[int]]:
    """The region an index `getitem` accepted assigns (one item per axis, `_expanded`), and
    the axes integers index."""
    region: Region = []
    int_axes = []
    for axis, (item, size) in enumerate(zip(expanded, a.shape, strict=True)):
        if isinstance(item, slice):
            parts = (_slice_part(item.start), _slice_part(item.stop), _slice_part(item.step))
            if isinstance(size, str):
                start, stop, _ = _symbolic_slice(graph, size, parts)
                whole = (start, stop) == (0, -1)
            else:
                start, stop, _ = slice(*parts).indices(size)
                stop = max(start, stop)
                whole = (start, stop) == (0, size)
        else:
            i = int(item)  # type: ignore[call-overload]
            int_axes.append(axis)
            if isinstance(size, str):
                start, stop, _ = _symbolic_slice(graph, size, (i, (i + 1) or None, 1))
            else:
                start, stop = i % size, i % size + 1
            whole = False
        region.append(None if whole else (start, stop))
    return region, int_axes


def _empty(bounds: tuple[int, int]) -> bool:
    """Whether an axis's bounds select nothing (both from the same end, none between)."""
    start, stop = bounds
    return (start >= 0) == (stop >= 0) and stop <= start


def _converted(graph: Graph, value: object, dtype: np.dtype) -> Value:
    """The assigned value in the array's dtype. Python and NumPy scalars go through NumPy's
    own conversion, so `int_array[0] = np.nan` raises and `2.7` truncates as NumPy does."""
    if isinstance(value, Value):
        return value if value.dtype == dtype else graph.op("astype", [value], dtype=dtype)
    if isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating)):
        probe = np.zeros(1, dtype)
        probe[0] = value
        return graph.const(probe[0])
    if isinstance(value, (tuple, list)):
        # `stack[top] = lo, hi, eps`: NumPy makes the sequence an array of the target's dtype.
        if any_value([value]):
            return literal_value(graph, value, dtype)
        return constant_array(graph, np.asarray(value, dtype=dtype))
    raise Unsupported(f"item assignment of a {type(value).__name__}")


def _place(graph: Graph, a: Value, region: Region, v: Value) -> Value:
    """`a` with `region` replaced by `v` (which has the region's shape): slices of `a` around
    `v`, concatenated axis by axis."""
    axis = next((k for k, bounds in enumerate(region) if bounds is not None), None)
    if axis is None:
        return v
    start, stop = region[axis]  # type: ignore[misc]
    end = -1 if isinstance(a.shape[axis], str) else a.shape[axis]

    def cut(lo: int, hi: int) -> Value:
        starts = [0] * a.ndim
        stops = shapes.whole_stops(a.shape)
        starts[axis], stops[axis] = lo, hi
        return graph.op("slice", [a], start=starts, stop=stops, step=[1] * a.ndim)

    inner_region = list(region)
    inner_region[axis] = None
    pieces = [cut(0, start)] if start != 0 else []
    pieces.append(_place(graph, cut(start, stop), inner_region, v))
    if stop != end:
        pieces.append(cut(stop, end))
    return pieces[0] if len(pieces) == 1 else graph.op("concatenate", pieces, axis=axis)


def _masked(graph: Graph, a: Value, mask: Value, value: object) -> Value:
    """`a[mask] = value` where `value` is the same for every selected element (a scalar, or
    an array of the shape of one selection): `where(mask, value, a)`. A value with one entry
    per selected element has a shape only the data decides, and is left to NumPy."""
    for axis, (m, d) in enumerate(zip(mask.shape, a.shape, strict=False)):
        if m != d:
            raise IndexError(f"boolean index did not match indexed array along axis {axis}; "
                             f"size of axis is {d} but size of corresponding boolean axis "
                             f"is {m}")
    if mask.ndim > a.ndim:
        raise IndexError(f"too many indices for array: array is {a.ndim}-dimensional, but "
                         f"{mask.ndim} were indexed")
    rest = tuple(a.shape[mask.ndim:])
    if isinstance(value, Selected):
        value = value.values
        rest = tuple(a.shape)
    v = _converted(graph, value, a.dtype)
    shape = tuple(v.shape)
    if len(shape) > len(rest):
        if len(shape) != len(rest) + 1 or shape[0] != 1:
            raise Unsupported("boolean mask assignment of one value per selected element")
        v = graph.op("reshape", [v], shape=list(shape[1:]))
        shape = shape[1:]
    try:
        fits = tuple(shapes.broadcast_shapes(shape, rest)) == rest
    except (ValueError, Unsupported):
        fits = False
    if not fits:
        raise Unsupported("boolean mask assignment of one value per selected element")
    selected = mask
    if a.ndim > mask.ndim:
        selected = graph.op("reshape", [mask], shape=[*mask.shape, *[1] * (a.ndim - mask.ndim)])
    return graph.op("where", [selected, v, a])
