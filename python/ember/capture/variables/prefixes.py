"""Arrays of a length only the data knows, computed on as selections.

A `DataViewVariable` that is a leading slice of step 1 of its buffer (`np.unique`'s results,
`np.argwhere`'s, `out[:k]`) is the buffer's elements selected by the mask
`lo <= arange(n) < hi`: a `MaskedVariable` (`masked.py`), so arithmetic on it, ufuncs,
reductions and gathers at it (`a[first]`) are what they are for boolean-mask selections, and
a result handed to Python is rebuilt as `values[mask]`, NumPy's own fresh array. Two views
counted by the same count (`np.unique`'s values and counts) make the same mask.

Beside them, NumPy functions whose results have such lengths:
- `np.bincount(inverse)` of `np.unique`'s `return_inverse` (without `minlength`): every
  value is a run's rank, below the count of runs, so the bins are a buffer of the inverse's
  size, and the result its first `count` bins (NumPy's length, the largest value plus one);
- `np.sort` of a 1-d integer selection: its values sorted with the dtype's largest value in
  the unselected places (after every selected value, and equal to any selected value they
  pass), the first `count` of them;
- `np.searchsorted(a, selection)`: a search per element, a selection under the same mask.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ember import numpy_api
from ember.capture.variables.array import ArrayVariable, call_numpy_api, to_api
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.datalen import (DataSliceVariable, DataViewVariable, _bound,
                                             _clamped)
from ember.capture.variables.masked import MaskedVariable
from ember.graph import Graph, Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter


def prefix_mask(graph: Graph, n: int, part: DataSliceVariable) -> Value:
    """The places `part` (a step-1 slice of an axis of `n`) selects: `arange(n) < count`
    for a slice counted by the graph (`part.counted`: `[:count]`, the count in `[0, n]`),
    else Python's clamped `lo <= arange(n) < hi`."""
    positions = graph.arange(0, 1, n, np.int64)
    lo, hi = _bound(part.parts[0]), _bound(part.parts[1])
    if part.counted:
        return graph.op("lt", [positions, graph.op("astype", [hi], dtype=np.dtype(np.int64))])
    start = _clamped(graph, lo, n, 0)
    stop = _clamped(graph, hi, n, n)
    return graph.op("logical_and", [graph.op("ge", [positions, start]),
                                    graph.op("lt", [positions, stop])])


def as_selection(graph: Graph, view: VariableTracker, nonzero: bool = True
                 ) -> VariableTracker:
    """A view that is a leading slice of its buffer as a selection of the buffer's rows, and
    (`nonzero`) an index array of `np.nonzero(x)` as each place's index along its axis
    selected by `x != 0`; any other tracker as it is."""
    from ember.capture.variables.nonzero import NonzeroIndexVariable, _index_column

    if graph.parent is not None:
        return view
    if nonzero and isinstance(view, NonzeroIndexVariable):
        x = view.positions.x
        if x.ndim == 1 and isinstance(x.shape[0], str):  # a symbolic length: 2 or more
            column = graph.arange(0, 1, x.shape[0], np.int64)
        elif not all(isinstance(d, int) for d in x.shape) or not int(np.prod(x.shape)):
            return view
        else:
            column = _index_column(graph, x.shape, view.axis)
        keep = x if x.dtype == np.bool_ else graph.op("ne", [x, graph.const(0)])
        return MaskedVariable(MaskedVariable(column, keep).selected(graph, 1), keep)
    if not isinstance(view, DataViewVariable) or view.transposed:
        return view
    first = view._leading()
    n = view.base.shape[0] if view.base.ndim else None
    if first is None or not isinstance(n, int) or n == 0:
        return view
    mask = prefix_mask(graph, n, first)
    selection = MaskedVariable(view.base, mask)
    one = True if view.base.dtype == np.bool_ else 1
    return MaskedVariable(selection.selected(graph, one), mask)


def selections(graph: Graph, *vts: VariableTracker) -> list[VariableTracker]:
    return [as_selection(graph, vt) for vt in vts]


def view_arithmetic(tx: Interpreter, op: str, a: VariableTracker, b: VariableTracker
                    ) -> VariableTracker | None:
    """`np.argwhere(m) + 1` (a view the caller gets transposed) with a Python int: the same
    view of the buffer computed on (integer `+`, `-`, `*` raise no flag anywhere); None for
    anything else."""
    view, other = (a, b) if isinstance(a, DataViewVariable) else (b, a)
    if not isinstance(view, DataViewVariable) or not view.transposed or op not in "+-*" or (
            view.base.dtype.kind not in "iu" or not other.is_constant()
            or type(other.constant()) is not int):
        return None
    operands = (view.base, other.constant()) if view is a else (other.constant(), view.base)
    result = call_numpy_api(f"operator {op}", numpy_api.binary_op, tx.graph, op, *operands)
    return DataViewVariable(result, view.items, transposed=True)


class SelectionAstype(VariableTracker):
    """`selection.astype(dtype)` where the cast raises no flag: from integers or bools, or
    between float dtypes."""

    def __init__(self, selection: MaskedVariable) -> None:
        self.selection = selection

    def describe(self) -> str:
        return f"{self.selection.describe()}.astype"

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        from ember.capture.variables.masked import _refuse
        from ember.numpy_api.convert import dtype_arg

        values = self.selection.values
        if len(args) != 1 or kwargs:
            raise _refuse(".astype() with arguments other than a dtype")
        dtype = dtype_arg(to_api(args[0]), "astype")
        if dtype is None or dtype.kind not in "biuf" or not (
                values.dtype.kind in "biu" or values.dtype.kind == dtype.kind == "f"):
            raise _refuse(f".astype({dtype}) of {values.dtype}")
        cast = tx.graph.op("astype", [values], dtype=dtype)
        return MaskedVariable(cast, self.selection.mask)


def note_inverse(tx: Interpreter, inverse: Value, part: DataSliceVariable) -> None:
    """`np.unique`'s `return_inverse`: each value is a rank below the count `part` slices."""
    tx.tracer.unique_inverses[id(inverse)] = (inverse, part)


def numpy_call(tx: Interpreter, fn: Any, args: list[VariableTracker],
               kwargs: dict[str, VariableTracker], handler: Any
               ) -> VariableTracker | None:
    """`np.bincount` of an inverse, `np.sort` and `np.searchsorted` of selections (views of
    a length only the data knows taken as selections first); None for other calls."""
    if fn is np.bincount:
        return _bincount(tx, args, kwargs)
    if fn is np.concatenate and len(args) == 1 and not kwargs:
        return _concatenated(tx, args[0], handler)
    if fn is np.diff and len(args) == 1 and not kwargs:
        selection = as_selection(tx.graph, args[0])
        return _diff(tx, selection) if isinstance(selection, MaskedVariable) else None
    if fn is np.sort and len(args) == 1 and not kwargs:
        selection = as_selection(tx.graph, args[0])
        return _sorted(tx, selection) if isinstance(selection, MaskedVariable) else None
    if fn is np.searchsorted and len(args) == 2 and handler is not None and set(kwargs) <= {
            "side", "sorter"}:
        values = as_selection(tx.graph, args[1])
        if not isinstance(values, MaskedVariable) or isinstance(
                as_selection(tx.graph, args[0]), MaskedVariable):
            return None
        found = call_numpy_api("np.searchsorted", handler, tx.graph, to_api(args[0]),
                               values.values, **{k: to_api(v) for k, v in kwargs.items()})
        return MaskedVariable(found, values.mask)
    return None


def _bincount(tx: Interpreter, args: list[VariableTracker],
              kwargs: dict[str, VariableTracker]) -> VariableTracker | None:
    """`np.bincount(inverse, weights)` of `np.unique`'s inverse (1-d, no `minlength`): the
    bins of a buffer of the inverse's size, selected below the count of runs."""
    names = ["x", "weights", "minlength"]
    if len(args) > 3 or set(kwargs) - set(names[len(args):]):
        return None
    bound = dict(zip(names, args, strict=False)) | kwargs
    minlength = bound.get("minlength")
    if minlength is not None and not (minlength.is_constant() and minlength.constant() == 0):
        return None
    x = bound["x"]
    known = tx.tracer.unique_inverses.get(id(x.value)) if type(x) is ArrayVariable else None
    if known is None or known[0] is not x.value or x.value.ndim != 1:
        return None
    n = x.value.shape[0]
    if not isinstance(n, int) or n == 0:
        return None
    graph = tx.graph
    weights = bound.get("weights")
    weights = None if weights is None else to_api(weights)
    bins = call_numpy_api("np.bincount", numpy_api.lookup_function(np.bincount), graph,
                          x.value, weights, n)
    mask = prefix_mask(graph, n, known[1])
    return MaskedVariable(MaskedVariable(bins, mask).selected(graph, 1), mask)


def _sorted(tx: Interpreter, selection: MaskedVariable) -> VariableTracker | None:
    """`np.sort` of a 1-d integer selection: a prefix of its values sorted with the largest
    value in the unselected places."""
    values = selection.values
    if values.ndim != 1 or selection.mask.ndim != 1 or values.dtype.kind not in "iu" or (
            not isinstance(values.shape[0], int)):
        return None
    graph = tx.graph
    largest = np.iinfo(values.dtype).max
    ordered = call_numpy_api("np.sort", numpy_api.lookup_function(np.sort), graph,
                             selection.selected(graph, largest))
    count = graph.op("astype", [selection.count(graph)], dtype=np.dtype(np.int64))
    mask = graph.op("lt", [graph.arange(0, 1, values.shape[0], np.int64), count])
    return MaskedVariable(MaskedVariable(ordered, mask).selected(graph, 1), mask)


def _concatenated(tx: Interpreter, seq: VariableTracker, handler: Any
                  ) -> VariableTracker | None:
    """`np.concatenate` of 1-d arrays and 1-d selections (`np.concatenate(([0], starts))`): a
    selection of the values joined, each array's places all selected."""
    from ember.capture.variables.containers import SequenceVariable
    from ember.numpy_api.convert import to_value

    if not isinstance(seq, SequenceVariable) or handler is None:
        return None
    graph = tx.graph
    items = selections(graph, *seq.items)
    if not any(isinstance(i, MaskedVariable) for i in items):
        return None
    pieces, masks = [], []
    for item in items:
        if isinstance(item, MaskedVariable):
            values, mask = item.values, item.mask
            if values.ndim != mask.ndim:
                return None  # rows of several elements: a 2-d selection
            if mask.ndim != 1:  # one element a place: in C order, as the selection's
                if not all(isinstance(d, int) for d in mask.shape):
                    return None
                size = int(np.prod(mask.shape))
                values = graph.op("reshape", [values], shape=[size])
                mask = graph.op("reshape", [mask], shape=[size])
            pieces.append(values)
            masks.append(mask)
            continue
        if not isinstance(item, (ArrayVariable, SequenceVariable)) and not item.is_constant():
            return None
        value = to_value(graph, to_api(item), "np.concatenate")
        if value.ndim != 1:
            return None
        pieces.append(value)
        masks.append(graph.full((value.shape[0],), True, np.bool_))
    joined = call_numpy_api("np.concatenate", handler, graph, pieces)
    return MaskedVariable(joined, graph.op("concatenate", masks, axis=0))


def _diff(tx: Interpreter, selection: MaskedVariable) -> VariableTracker | None:
    """`np.diff` of a 1-d selection: its values moved to the front (`gather.Compacted`),
    then each next one less this one, the first `count - 1` of them."""
    from ember.numpy_api.gather import Compacted

    values, mask = selection.values, selection.mask
    n = values.shape[0] if values.ndim == 1 and mask.ndim == 1 else None
    if n is None or isinstance(n, int) and n < 2 or values.dtype == np.bool_:
        return None  # (a symbolic length is 2 or more)
    graph = tx.graph
    slots = Compacted(graph, mask)
    positions = graph.arange(0, 1, n, np.int64)
    front = graph.op("lt", [positions, graph.op("astype", [slots.count],
                                                 dtype=np.dtype(np.int64))])
    packed = MaskedVariable(slots.stored(mask, values), front).selected(graph, 1)
    steps = call_numpy_api("np.diff", numpy_api.lookup_function(np.diff), graph, packed)
    kept = graph.op("slice", [front], start=[1], stop=[-1 if isinstance(n, str) else n],
                    step=[1])
    return MaskedVariable(MaskedVariable(steps, kept).selected(graph, 1), kept)
