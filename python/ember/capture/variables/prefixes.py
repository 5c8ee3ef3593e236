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
  of other values, bins for `BINCOUNT_BINS` values or the array's size, the first
  `max(x) + 1` of them (a larger value makes the graph raise: the frame runs as Python);
- `np.sort` of a 1-d integer selection: its values sorted with the dtype's largest value in
  the unselected places (after every selected value, and equal to any selected value they
  pass), the first `count` of them;
- `np.searchsorted(a, selection)`: a search per element, a selection under the same mask;
- `np.concatenate`/`np.r_` of arrays and 1-d selections, `np.diff` of a 1-d selection,
  `np.add.reduceat(v, starts)`, `x[rows] = v` and `ufunc.at(x, rows, v)` at a selection of
  integers (below, each with its rule).
Two 1-d selections of one size under masks that are not one computation are moved to the
front under their common count (`aligned`).
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


# `np.bincount(x)` without `minlength` of values of no known bound: bins for values below
# this or `x.size`, whichever is larger; a larger value makes the graph raise, and the frame
# runs as Python.
BINCOUNT_BINS = 1024


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
    from ember.numpy_api.scalars import numbers_in_graph

    if graph.parent is not None or not numbers_in_graph.get():
        return view  # (differentiating: such arrays break, made in Python)
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
    """`selection.astype(dtype)` between bool, integer and float dtypes: the cast of the
    values with 1 in the unselected places (a selected NaN warns as NumPy's cast does)."""

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
        if dtype is None or dtype.kind not in "biuf" or values.dtype.kind not in "biuf":
            raise _refuse(f".astype({dtype}) of {values.dtype}")
        # 1 in the unselected places, so only a selected value's cast can raise a flag
        one = True if values.dtype == np.bool_ else 1
        cast = tx.graph.op("astype", [self.selection.selected(tx.graph, one)], dtype=dtype)
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
        return joined(tx, args[0], handler)
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
    if type(x) is not ArrayVariable or x.value.ndim != 1 or tx.graph.parent is not None or (
            x.value.dtype.kind not in "biu"):
        return None
    n = x.value.shape[0]
    if not isinstance(n, int) or n == 0:
        return None
    graph = tx.graph
    known = tx.tracer.unique_inverses.get(id(x.value))
    if known is not None and known[0] is x.value:
        size = n
    else:  # NumPy's length, the largest value plus one, within the bins of this size
        size = max(n, BINCOUNT_BINS)
    weights = bound.get("weights")
    weights = None if weights is None else to_api(weights)
    bins = call_numpy_api("np.bincount", numpy_api.lookup_function(np.bincount), graph,
                          x.value, weights, size)
    if known is not None and known[0] is x.value:
        mask = prefix_mask(graph, n, known[1])
    else:
        largest = graph.op("astype", [graph.op("max", [x.value], axis=None, keepdims=False)],
                           dtype=np.dtype(np.int64))
        length = graph.op("add", [largest, graph.const(np.int64(1))])
        mask = graph.op("lt", [graph.arange(0, 1, size, np.int64), length])
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


def joined(tx: Interpreter, seq: VariableTracker, handler: Any, scalars: bool = False
           ) -> VariableTracker | None:
    """`np.concatenate` of 1-d arrays and 1-d selections (`np.concatenate(([0], starts))`),
    and `np.r_[...]` of them (`scalars`: numbers too): a selection of the values joined,
    each array's places all selected; None where no selection is joined."""
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
        if not isinstance(item, (ArrayVariable, SequenceVariable)) and not (
                item.is_constant() and type(item.constant()) in (int, float, bool)):
            return None
        value = to_value(graph, to_api(item), "np.concatenate")
        if scalars and value.ndim == 0:  # `np.r_[starts, n]`: NumPy's own array of `n`
            value = graph.op("reshape", [graph.op("astype", [value], dtype=value.dtype)],
                             shape=[1])
        if value.ndim != 1:
            return None
        pieces.append(value)
        masks.append(graph.full((value.shape[0],), True, np.bool_))
    joined = call_numpy_api("np.concatenate", handler, graph, pieces)
    return MaskedVariable(joined, graph.op("concatenate", masks, axis=0))


def _front(graph: Graph, selection: MaskedVariable) -> tuple[Value, Value]:
    """A 1-d selection's values moved to the front of a buffer of its size, and their count
    (int64)."""
    from ember.numpy_api.gather import Compacted

    slots = Compacted(graph, selection.mask)
    count = graph.op("astype", [slots.count], dtype=np.dtype(np.int64))
    return slots.stored(selection.mask, selection.values), count


def aligned(tx: Interpreter, a: VariableTracker, b: VariableTracker
            ) -> tuple[VariableTracker, VariableTracker]:
    """Two 1-d selections under masks of one size that are not one computation (`sums /
    counts`, of `np.add.reduceat` and of `np.diff`): both moved to the front, under the one
    mask of their common count. Where the counts differ (NumPy broadcasts a length of 1 or
    raises) nothing is selected and the frame runs as Python. Others as they are."""
    from ember.capture.loops.frame_branches import add_check
    from ember.capture.variables.masked import same_mask

    if not (isinstance(a, MaskedVariable) and isinstance(b, MaskedVariable)) or same_mask(
            a.mask, b.mask) or tx.graph.parent is not None:
        return a, b
    if not a.values.ndim == a.mask.ndim == b.values.ndim == b.mask.ndim == 1 or (
            a.mask.shape != b.mask.shape):
        return a, b
    graph = tx.graph
    (front_a, count_a), (front_b, count_b) = _front(graph, a), _front(graph, b)
    differ = graph.op("ne", [count_a, count_b])
    add_check(tx, differ)
    common = graph.op("where", [differ, graph.const(np.int64(0)), count_a])
    mask = graph.op("lt", [graph.arange(0, 1, a.mask.shape[0], np.int64), common])
    return (MaskedVariable(MaskedVariable(front_a, mask).selected(graph, 1), mask),
            MaskedVariable(MaskedVariable(front_b, mask).selected(graph, 1), mask))


def _diff(tx: Interpreter, selection: MaskedVariable) -> VariableTracker | None:
    """`np.diff` of a 1-d selection: its values moved to the front (`gather.Compacted`),
    then each next one less this one, the first `count - 1` of them."""
    values, mask = selection.values, selection.mask
    n = values.shape[0] if values.ndim == 1 and mask.ndim == 1 else None
    if n is None or isinstance(n, int) and n < 2 or values.dtype == np.bool_:
        return None  # (a symbolic length is 2 or more)
    graph = tx.graph
    packed, count = _front(graph, selection)
    front = graph.op("lt", [graph.arange(0, 1, n, np.int64), count])
    packed = MaskedVariable(packed, front).selected(graph, 1)
    steps = call_numpy_api("np.diff", numpy_api.lookup_function(np.diff), graph, packed)
    kept = graph.op("slice", [front], start=[1], stop=[-1 if isinstance(n, str) else n],
                    step=[1])
    return MaskedVariable(MaskedVariable(steps, kept).selected(graph, 1), kept)


def reduceat(tx: Interpreter, ufunc: Any, args: list[VariableTracker]
             ) -> VariableTracker | None:
    """`np.add.reduceat(v, starts)` of a 1-d float64/float32/int64 `v` at a 1-d selection of
    indices (`np.flatnonzero(...)`): NumPy's rule per index `i`, the sum of
    `v[starts[i]:starts[i + 1]]` where that is not empty, else `v[starts[i]]`, and the last to
    the end, a selection of the indices' count. An index outside `v` reads past its end, so
    the graph raises and NumPy raises its IndexError. None for anything else."""
    from ember.numpy_api.gather import Compacted
    from ember.numpy_api.loop_nest import LoopNest

    if ufunc is not np.add or len(args) != 2 or type(args[0]) is not ArrayVariable:
        return None
    graph = tx.graph
    starts = as_selection(graph, args[1])
    v = args[0].value
    if not isinstance(starts, MaskedVariable) or v.ndim != 1 or v.dtype not in (
            np.float64, np.float32, np.int64) or starts.values.ndim != 1 or (
            starts.mask.ndim != 1 or starts.values.dtype.kind not in "iu"):
        return None
    length, n = v.shape[0], starts.values.shape[0]
    if length == 0 or n == 0:
        return None
    slots = Compacted(graph, starts.mask)
    packed = slots.stored(starts.mask, starts.values)
    if packed.dtype != np.int64:
        packed = graph.op("astype", [packed], dtype=np.dtype(np.int64))
    count = graph.op("astype", [slots.count], dtype=np.dtype(np.int64))
    if isinstance(length, int):
        end = graph.const(np.int64(length))
    else:  # a symbolic length: its run-time value
        from ember.capture.loops.sizes import value_in

        end = graph.op("astype", [value_in(graph, length)], dtype=np.dtype(np.int64))
    spare = graph.op("astype", [slots.spare], dtype=np.dtype(np.int64))

    def body(g: Graph, indices: list[Value], carried: list[Value], inv: list[Value]
             ) -> list[Value]:
        (i,) = indices
        values, at, counted, stop, final = inv
        i = g.op("astype", [i], dtype=np.dtype(np.int64), scalar=True)
        one = g.const(np.int64(1))
        active = g.op("lt", [i, counted])
        start = g.op("where", [active, g.op("load", [at, i]), g.const(np.int64(0))])
        start = g.op("where", [g.op("lt", [start, g.const(np.int64(0))]), stop, start])
        following = g.op("add", [i, one])
        has_next = g.op("lt", [following, counted])
        peek = g.op("load", [at, g.op("where", [has_next, following, g.op(
            "minimum", [i, final])])])
        finish = g.op("where", [has_next, peek, stop])
        first = g.op("load", [values, start])
        walk = g.region("loop")
        walk.add_input(np.int64, (), weak=True)
        total = walk.add_input(first.dtype, (), scalar=first.scalar)
        arr = walk.add_input(values.dtype, values.shape)
        j = walk.inputs[0]
        step = walk.op("load", [arr, j])
        added = walk.op("add", [total, step])
        if added.dtype != first.dtype or added.scalar != first.scalar:
            added = walk.op("astype", [added], dtype=first.dtype, scalar=first.scalar)
        walk.set_outputs([walk.const(True, weak=False), added])
        lo = g.op("astype", [g.op("add", [start, one])], dtype=np.dtype(np.int64))
        (total,) = g.loop(lo, finish, g.const(1), [first], [values], walk)
        return [g.op("store", [carried[0], total, i])]

    (out,) = LoopNest((n,), body).run(graph, [graph.full((n,), 0, v.dtype)],
                                      [v, packed, count, end, spare])
    mask = graph.op("lt", [graph.arange(0, 1, n, np.int64), count])
    return MaskedVariable(MaskedVariable(out, mask).selected(graph, 1), mask)


def scatter_selected(tx: Interpreter, x: Value, index: VariableTracker,
                     value: VariableTracker, ufunc: Any = None) -> Value | None:
    """`x[rows] = v` for a 1-d `x` and a selection of integers `rows` (`np.nonzero`'s, a
    selection of an index array): each selected place's value (of `v`, one number or a
    selection under the same mask) stored at its index in the selection's order, so a
    repeated index keeps the last, as NumPy's; an index outside `x` makes the graph raise
    and the frame run as Python. With a binary `ufunc`, `ufunc.at(x, rows, v)`: each
    combined with the element there, so a repeated index accumulates. None for other
    forms."""
    from ember.capture.variables.masked import same_mask
    from ember.numpy_api.convert import to_value
    from ember.numpy_api.loop_nest import LoopNest
    from ember.numpy_api.take import _UFUNC_OPS, _check_casting

    graph = tx.graph
    rows = as_selection(graph, index)
    op = None if ufunc is None else _UFUNC_OPS.get(ufunc)
    if not isinstance(rows, MaskedVariable) or x.ndim != 1 or x.scalar or (
            ufunc is not None and (op is None or ufunc.nin != 2)):
        return None
    if isinstance(value, MaskedVariable) and not same_mask(value.mask, rows.mask):
        rows, value = aligned(tx, rows, value)  # (`x[np.flatnonzero(m)] = y[m != 0]`)
    length, mask = x.shape[0], rows.mask
    if not isinstance(length, int) or length == 0 or rows.values.ndim != mask.ndim or (
            rows.values.dtype.kind not in "iu") or not all(
            isinstance(d, int) for d in mask.shape):
        return None
    if isinstance(value, MaskedVariable):
        if value.values.ndim != mask.ndim or not same_mask(value.mask, mask):
            return None
        values = value.values
    elif type(value) is ArrayVariable or value.is_constant() and type(
            value.constant()) in (int, float, bool):
        values = to_value(graph, to_api(value), "item assignment")
        if values.ndim:
            return None
    else:
        return None
    if ufunc is not None:
        given = values if isinstance(value, MaskedVariable) else to_api(value)
        _check_casting(ufunc, x, [values], given)  # NumPy's error
    elif not (values.weak or np.can_cast(values.dtype, x.dtype, "same_kind")):
        return None

    def body(g: Graph, indices: list[Value], carried: list[Value], inv: list[Value]
             ) -> list[Value]:
        chosen, at, given = inv
        keep = g.op("load", [chosen, *indices])
        i = g.op("astype", [g.op("load", [at, *indices])], dtype=np.dtype(np.int64),
                 scalar=True)
        size = g.const(np.int64(length))
        i = g.op("where", [g.op("lt", [i, g.const(np.int64(0))]), g.op("add", [i, size]), i])
        i = g.op("where", [g.op("lt", [i, g.const(np.int64(0))]), size, i])  # raises
        place = g.op("where", [keep, i, g.const(np.int64(0))])
        new = g.op("load", [given, *indices]) if given.ndim else given
        old = g.op("load", [carried[0], place])
        if op is not None:
            new = g.op(op, [old, new])
        new = g.op("astype", [new], dtype=x.dtype, scalar=True)
        kept = g.op("where", [keep, new, old])
        return [g.op("store", [carried[0], kept, place])]

    (out,) = LoopNest(tuple(mask.shape), body).run(graph, [x], [mask, rows.values, values])
    return out
