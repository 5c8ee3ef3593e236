"""Basic indexing `a[index]`: integers, slices (any step), None and Ellipsis."""

from __future__ import annotations

import operator

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.shapes import whole_stops
from ember.numpy_api import gather

_VALID = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer "
          "or boolean arrays are valid indices")


def _int(x: object) -> int | None:
    if isinstance(x, (bool, np.bool_)):
        return None
    if isinstance(x, (int, np.integer)):
        return int(x)
    return None


def _slice_part(x: object) -> int | None:
    if x is None:
        return None
    if isinstance(x, Value):
        raise Unsupported("slicing with bounds computed from array data")
    try:
        return operator.index(x)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError("slice indices must be integers or None or have an __index__ "
                        "method") from None


def ranges_as_arrays(graph: Graph, index: object) -> object:
    """`index` with each `range` in it as the integer array NumPy makes of it
    (`scores[range(n), y]`), and each flat list holding integers computed in the graph
    (`U[[k, p]]` with `p` from an argmax) as the intp array NumPy makes of that list."""
    def array(item: object) -> object:
        if isinstance(item, range):
            return graph.arange(item.start, item.step, len(item), np.dtype(np.intp))
        if isinstance(item, list) and any(isinstance(e, Value) for e in item):
            return _traced_list(graph, item)
        return item
    if isinstance(index, tuple):
        return tuple(array(item) for item in index)
    return array(index)


def _traced_list(graph: Graph, item: list[object]) -> Value:
    """A flat list of integers, some of them scalars the graph computes, as an index array.
    Lists of booleans (a mask to NumPy), floats or nested lists are left to NumPy."""
    from ember.numpy_api.literals import literal_value

    for e in item:
        if isinstance(e, Value):
            if e.ndim != 0 or e.dtype.kind not in "iu":
                raise Unsupported("indexing with a list holding a computed non-integer")
        elif _int(e) is None:
            raise Unsupported("indexing with a list holding a non-integer")
    return literal_value(graph, item, np.dtype(np.intp))


def getitem(graph: Graph, a: Value, index: object) -> Value:
    """`a[index]` as slice, squeeze and expand_dims ops. A fully integer-indexed result is a
    NumPy scalar, as NumPy returns."""
    index = ranges_as_arrays(graph, index)
    items = index if isinstance(index, tuple) else (index,)
    if any(isinstance(item, Value) for item in items):
        if a.scalar:
            raise IndexError("invalid index to scalar variable.")
        symbolic = gather.symbolic_gather(graph, a, items)
        if symbolic is not None:
            out, result_dims = symbolic
        else:
            found = gather.plan(graph, a, index)
            out, result_dims = gather.gather(graph, found), found.result_dims
        if isinstance(out, Value):  # NumPy puts the index dims outermost in memory
            graph.layouts[out.id] = ("index", a.id, tuple(result_dims))
        return out
    if any(isinstance(item, list) for item in items):
        return _take_list(graph, a, items)
    for item in items:
        if isinstance(item, np.ndarray):
            raise Unsupported("indexing with a constant NumPy array")
        if isinstance(item, (bool, np.bool_)):
            raise Unsupported("indexing with a boolean scalar")
        if not (item is None or item is Ellipsis or isinstance(item, slice)
                or _int(item) is not None):
            raise IndexError(_VALID)
    if sum(item is Ellipsis for item in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(1 for item in items if item is not None and item is not Ellipsis)
    if consumed > a.ndim and a.scalar:
        raise IndexError("invalid index to scalar variable.")
    if consumed > a.ndim:
        raise IndexError(f"too many indices for array: array is {a.ndim}-dimensional, but "
                         f"{consumed} were indexed")
    has_ellipsis = any(item is Ellipsis for item in items)
    if not has_ellipsis:
        items = (*items, Ellipsis)
    expanded: list[object] = []
    for item in items:
        if item is Ellipsis:
            expanded.extend([slice(None)] * (a.ndim - consumed))
        else:
            expanded.append(item)

    starts: list[int] = []
    stops: list[int] = []
    steps: list[int] = []
    flips: list[int] = []
    squeeze: list[int] = []
    new_axes: list[int] = []
    identity = True
    axis = 0
    out_pos = 0
    for item in expanded:
        if item is None:
            new_axes.append(out_pos)
            out_pos += 1
            continue
        size = a.shape[axis]
        if isinstance(item, slice):
            parts = (_slice_part(item.start), _slice_part(item.stop), _slice_part(item.step))
            if parts[2] == 0:
                raise ValueError("slice step cannot be zero")
            if isinstance(size, str) and parts == (None, None, -1):
                # the whole axis reversed (`x[::-1]`): a flip keeps its symbol
                flips.append(axis)
                start, stop, step = 0, -1, 1
            elif isinstance(size, str):
                start, stop, step = _symbolic_slice(graph, size, parts)
                identity = identity and (start, stop) == (0, -1)
            else:
                start, stop, step = slice(*parts).indices(size)
                if not range(start, stop, step):
                    start, stop, step = 0, 0, 1  # every empty slice in one normal form
                identity = identity and (start, stop, step) == (0, size, 1)
            out_pos += 1
        else:
            i = _int(item)
            assert i is not None
            if isinstance(size, str):
                start, stop, step = _symbolic_slice(graph, size, (i, (i + 1) or None, 1))
                identity = False
            else:
                if not -size <= i < size:
                    raise IndexError(f"index {i} is out of bounds for axis {axis} with size "
                                     f"{size}")
                i %= size
                start, stop, step = i, i + 1, 1
                identity = identity and size == 1
            squeeze.append(axis)
        starts.append(start)
        stops.append(stop)
        steps.append(step)
        axis += 1

    result = a
    if not identity:
        result = graph.op("slice", [result], start=starts, stop=stops, step=steps)
    if flips:
        result = graph.op("flip", [result], axis=flips)
    # NumPy returns a scalar exactly when integers index every axis (`()` for a 0-d array).
    scalar = not has_ellipsis and not new_axes and len(squeeze) == a.ndim
    if squeeze or (result.ndim == 0 and result.scalar != scalar):
        result = graph.op("squeeze", [result], axis=squeeze, scalar=scalar)
    if new_axes:
        result = graph.op("expand_dims", [result], axis=new_axes)
    return result


def _symbolic_slice(graph: Graph, size: str, parts: tuple[int | None, ...]) -> tuple[int, ...]:
    """The `slice` op's bounds of a Python slice of the symbolic dim `size`: from the front, or
    counted from its end (`-1` the end, `-2` one before it: `shapes.python_slice`). The sizes
    it is right for (every bound inside the dim, a dim it leaves at least 2, as symbols are)
    are recorded for the guards (`Graph.require_size`); smaller ones compile apart."""
    start, stop, step = parts
    if step not in (None, 1):
        raise Unsupported(f"slicing symbolic dimension {size!r} with a step")
    a = 0 if start is None else start if start >= 0 else start - 1
    b = -1 if stop is None else stop if stop >= 0 else stop - 1
    if a < 0 <= b:
        raise Unsupported(f"slicing symbolic dimension {size!r} from its end to its front")
    if (a >= 0) == (b >= 0) and b <= a:
        return 0, 0, 1  # empty at any size
    if a >= 0 and b >= 0:
        graph.require_size(size, b)
    elif a >= 0:
        graph.require_size(size, 1 + a - b)
    else:
        graph.require_size(size, -1 - a)
    return a, b, 1


def _take_list(graph: Graph, a: Value, items: tuple[object, ...]) -> Value:
    """`a[..., [i, j, k], ...]` with one static list of integers and otherwise basic indices:
    the slices `i:i+1`, `j:j+1`... concatenated along that axis, which is where NumPy puts the
    indexed dimension when it is the only advanced index."""
    lists = [i for i, item in enumerate(items) if isinstance(item, list)]
    pos = lists[0]
    chosen = items[pos]
    assert isinstance(chosen, list)
    if len(lists) > 1 or any(_int(item) is not None for item in items) or not all(
        _int(e) is not None for e in chosen
    ):
        raise Unsupported("advanced indexing other than one list of integers on one axis")
    basic = getitem(graph, a, (*items[:pos], slice(None), *items[pos + 1:]))
    consumed = sum(1 for item in items if item is not None and item is not Ellipsis)
    before = items[:pos]
    axis = sum(a.ndim - consumed if item is Ellipsis else 1 for item in before)
    source_axis = sum(a.ndim - consumed if item is Ellipsis else 0 if item is None else 1
                      for item in before)
    size = basic.shape[axis]
    if isinstance(size, str):
        raise Unsupported(f"indexing symbolic dimension {size!r} with a list")
    pieces = []
    for e in chosen:
        i = _int(e)
        assert i is not None
        if not -size <= i < size:
            raise IndexError(f"index {i} is out of bounds for axis {source_axis} with size {size}")
        i %= size
        starts = [0] * basic.ndim
        stops = whole_stops(basic.shape)
        starts[axis], stops[axis] = i, i + 1
        pieces.append(graph.op("slice", [basic], start=starts, stop=stops,
                               step=[1] * basic.ndim))
    if not pieces:
        stops = whole_stops(basic.shape)
        stops[axis] = 0
        return graph.op("slice", [basic], start=[0] * basic.ndim, stop=stops,
                        step=[1] * basic.ndim)
    out = graph.op("concatenate", pieces, axis=axis)
    # NumPy's advanced indexing: the indexed dimension outermost in memory, not the order
    # of the pieces concatenated
    graph.layouts[out.id] = ("index", basic.id, tuple(
        ("index", 0) if p == axis else ("axis", p) for p in range(basic.ndim)))
    return out
