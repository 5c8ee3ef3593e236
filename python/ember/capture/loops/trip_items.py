"""What each trip of a `for` loop op reads as its item (`region.py`): the loop index over a
range, an element or a row of an array, each part's item over `zip`/`enumerate`, a list's
item over a list a loop op built, an element of a slice with run-time bounds. The arrays
and numbers of the enclosing graph the items are read from enter the body as parameters
(`entered`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.loops import windows, zipped
from ember.capture.loops.ranges import ArrayRows, ListItems, SliceItems, ZippedItems
from ember.capture.loops.region import BodyArray, Group, Trace
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.capture.variables.containers import TupleVariable

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.capture.variables.containers import IteratorVariable


def item(tx: Interpreter, iterator: IteratorVariable, trace: Trace,
          by_tracker: dict[int, Group]) -> VariableTracker:
    """What FOR_ITER pushes on each trip, in terms of the loop index: the index itself over a
    range, an element over a 1-d array (read when the trip starts), the tuple of each part's
    item over `zip`/`enumerate` (`loops/zipped.py`)."""
    origin = iterator.origin
    if isinstance(origin, ListItems):
        loaded = _list_item(tx, origin, trace, by_tracker)
        if origin.counted is None:
            return loaded
        region = trace.region
        count = region.op("add", [trace.index, region.const(origin.counted)])
        count = region.op("astype", [count], dtype=np.dtype(np.int64), weak=True)
        return TupleVariable([ArrayVariable(count), loaded])
    if isinstance(origin, ZippedItems):
        return TupleVariable([_list_item(tx, p, trace, by_tracker) if isinstance(p, ListItems)
                              else part_item(tx, p, trace, by_tracker) for p in origin.parts])
    if isinstance(origin, (zipped.Product, zipped.Pairs)):
        return origin.item(trace.region, trace.index)
    if isinstance(origin, zipped.NdEnumerate):
        region = trace.region
        where = origin.index_of(region, trace.index)
        group = entered(trace, by_tracker, origin.array)
        element = ArrayVariable(region.op("load", [group.param, *where]))
        return TupleVariable([TupleVariable([ArrayVariable(w) for w in where]), element])
    if isinstance(origin, zipped.Zipped):
        return origin.item([part_item(tx, part, trace, by_tracker) for part in origin.parts])
    if isinstance(origin, ArrayRows):
        items = [ArrayVariable(trace.region.op("add", [trace.index, trace.region.const(p)]))
                 if isinstance(p, int) else part_item(tx, p, trace, by_tracker)
                 for p in origin.parts]
        return items[0] if origin.single else TupleVariable(items)
    if isinstance(origin, SliceItems):
        item = part_item(tx, origin.array, trace, by_tracker)
        if origin.counted is None:
            return item
        # `enumerate(x[lo:hi], start)`: the count is the place less `lo`, plus `start`.
        lo = entered(trace, by_tracker, origin.lo)
        region = trace.region
        count = region.op("add", [region.op("sub", [trace.index, lo.param]),
                                  region.const(origin.counted)])
        count = region.op("astype", [count], dtype=np.dtype(np.int64), weak=True)
        return TupleVariable([ArrayVariable(count), item])
    if not isinstance(origin, ArrayVariable):
        return ArrayVariable(trace.index)
    return part_item(tx, origin, trace, by_tracker)


def _list_item(tx: Interpreter, origin: ListItems, trace: Trace,
               by_tracker: dict[int, Group]) -> VariableTracker:
    """The item of a list a loop op built at the trip's place: a number, a choice of a
    Python number and a NumPy scalar where both are in the list, or a tuple of numbers."""
    from ember.capture.variables.appended import as_item, is_tuple, tuple_at

    item = origin.built.item
    flag = part_item(tx, origin.flags, trace, by_tracker) if origin.flags is not None else None
    if is_tuple(item):
        buffer = entered(trace, by_tracker, origin.buffer).param
        return tuple_at(trace.region, buffer, trace.index, item,
                        None if flag is None else flag.value,  # type: ignore[attr-defined]
                        origin.built.other if flag is not None else None)
    place = part_item(tx, origin.buffer, trace, by_tracker)
    loaded = ArrayVariable(as_item(trace.region, place.value, item))  # type: ignore[attr-defined]
    if flag is None:
        return loaded
    from ember.capture.variables.choice import ChoiceVariable

    other = (item[0], (), not item[2], not item[3])
    return ChoiceVariable(flag, ArrayVariable(as_item(
        trace.region, place.value, other)), loaded)  # type: ignore[attr-defined]


def part_item(tx: Interpreter, origin: VariableTracker, trace: Trace,
               by_tracker: dict[int, Group]) -> VariableTracker:
    """The item at the trip's index of a range or of an array's first axis."""
    if isinstance(origin, ConstantVariable):
        return ArrayVariable(zipped.range_item(trace.region, origin.constant(), trace.index))
    assert isinstance(origin, ArrayVariable)
    array = origin.value
    if array.ndim == 0 or array.weak:
        raise graph_break("loop_body", what="iteration over a 0-d array")
    group = entered(trace, by_tracker, origin)
    if array.ndim > 1:
        # A row is a view at a run-time position: a window (`loops/windows.py`).
        return windows.gather(trace.region, group.inner,
                              windows.row_axes(array.shape, trace.index))
    return ArrayVariable(trace.region.op("load", [group.param, trace.index]))


def entered(trace: Trace, by_tracker: dict[int, Group], vt: ArrayVariable) -> Group:
    """The group of the body's parameter for `vt`, an array or number of the enclosing
    graph the trips read (made here where no local holds it)."""
    group = by_tracker.get(id(vt))
    if group is None:
        value = vt.value
        param = trace.region.add_input(value.dtype, value.shape, weak=value.weak,
                                       scalar=value.scalar)
        group = Group([], vt, value, param, BodyArray(param, False))
        by_tracker[id(vt)] = group
        trace.groups.append(group)
    return group
