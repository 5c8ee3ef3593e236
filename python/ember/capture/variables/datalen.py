"""Arrays whose length only the data knows, taken by the entry after the graph has run.

`values[:k]` where `k` is counted by the graph (a loop's counter, a sum) has no shape the
graph can write. It is not an array of the graph: the graph computes the whole buffer and
the bounds, and the entry takes the slice in Python (`Rebuilder.expr`), so the caller gets
NumPy's own view of the buffer, with Python's clamping of bounds. What capture knows of it
besides is its length (`len()`, `.shape`: Python's clamping done in the graph), its dtype
and rank; computed on (arithmetic, reductions, gathers at it), a leading slice is a
selection (`prefixes.py`); anything else is a graph break, at which it is rebuilt the same
way. `np.unique` of a 1-d array is such a prefix of a buffer the graph fills, as are
`np.argwhere`, `np.extract` and `np.compress`: the chosen rows first (`gather.Compacted`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.capture.variables.containers import TupleVariable
from ember.capture.variables.scalar import PythonScalarVariable, structural
from ember.graph import Graph, Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter


def _graph_int(part: VariableTracker) -> bool:
    """A 0-d integer the graph computes (not a run-time int the entry reads)."""
    return (type(part) is ArrayVariable and part.value.shape == ()
            and part.value.dtype.kind in "iu")


class DataSliceVariable(VariableTracker):
    """`a:b:c` at the frame's level with a graph-computed integer among its parts (the others
    constants)."""

    def __init__(self, parts: list[VariableTracker], counted: bool = False) -> None:
        self.parts = parts
        self.counted = counted  # `[:count]` with the count in `[0, n]` (`prefixes.py`)

    def describe(self) -> str:
        return "a slice with bounds computed from the data"

    def type_name(self) -> str:
        return "slice"

    def python_type(self) -> type:
        return slice

    def children(self) -> tuple[VariableTracker, ...]:
        return tuple(self.parts)


def known_bounds(parts: list[VariableTracker]) -> list[VariableTracker]:
    """A slice's parts with each 0-d integer the graph computes from constants alone
    (`offsets[i]` of `offsets = np.cumsum([0, 3, 2])`) as the Python int it holds."""
    from ember.numpy_api.convert import known_value

    folded = []
    for part in parts:
        known = known_value(part.value) if _graph_int(part) else None
        folded.append(part if known is None else ConstantVariable(int(known)))
    return folded


def data_slice(tx: Interpreter, parts: list[VariableTracker]) -> DataSliceVariable | None:
    """BUILD_SLICE's tracker when a bound is an integer the graph computes, at the frame's
    level; None otherwise."""
    if tx.graph.parent is not None or not any(_graph_int(p) for p in parts):
        return None
    parts = [structural(p) for p in parts]
    if all(_graph_int(p) or (p.is_constant() and type(p.constant()) in (int, type(None)))
           for p in parts):
        return DataSliceVariable(parts)
    return None


def has_data_slice(index: VariableTracker) -> bool:
    items = index.items if isinstance(index, TupleVariable) else [index]
    return any(isinstance(i, DataSliceVariable) for i in items)


class DataViewVariable(VariableTracker):
    """`base[index]` where the index holds a data slice: `base` the graph's buffer, `items`
    the index's parts (constants and `DataSliceVariable`s). `transposed`: the caller gets
    `base[:, :k].copy().T` (`np.argwhere`'s layout: NumPy transposes a fresh `(ndim, k)`
    array)."""

    def __init__(self, base: Value, items: list[VariableTracker],
                 transposed: bool = False) -> None:
        self.base = base
        self.items = items
        self.transposed = transposed

    def describe(self) -> str:
        return "an array of a length only the data knows"

    def type_name(self) -> str:
        return "ndarray"

    def python_type(self) -> type:
        return np.ndarray

    def children(self) -> tuple[VariableTracker, ...]:
        # The base counts as held through this view: updating it in place must be refused
        # while the view is alive (`ArrayVariable.viewed` counts holders of one value).
        return (ArrayVariable(self.base), *self.items)

    def _leading(self) -> DataSliceVariable | None:
        """The data slice when it is the first item and every other one takes a whole
        axis: the only form whose shape capture writes (the last one, transposed)."""
        first, rest = self.items[0], self.items[1:]
        if self.transposed:
            first, rest = self.items[-1], self.items[:-1]
        if not isinstance(first, DataSliceVariable) or len(first.parts) == 3 and not (
                first.parts[2].is_constant() and first.parts[2].constant() in (None, 1)):
            return None
        if any(not (i.is_constant() and i.constant() == slice(None)) for i in rest):
            return None
        return first

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        if name == "dtype":
            return ConstantVariable(self.base.dtype)
        if name in ("shape", "ndim") and self._leading() is not None:
            if name == "ndim":
                return ConstantVariable(self.base.ndim)
            rest = self.base.shape[:-1] if self.transposed else self.base.shape[1:]
            return TupleVariable([self.len_variable(tx), *map(ConstantVariable, rest)])
        from ember.capture.variables.masked import _REDUCTIONS
        from ember.capture.variables.prefixes import as_selection

        selection = as_selection(tx.graph, self) if name in _REDUCTIONS else self
        if selection is not self:
            return selection.getattr(tx, name)
        raise graph_break("data_dependent_value", what=f".{name} of {self.describe()}")

    def len_variable(self, tx: Interpreter) -> VariableTracker:
        first = self._leading()
        n = self.base.shape[-1 if self.transposed else 0]
        if first is None or isinstance(n, str):
            raise graph_break("data_dependent_value", what=f"len() of {self.describe()}")
        return ArrayVariable(slice_length(tx.graph, n, first.parts))


def _clamped(graph: Graph, bound: Value | int | None, n: int, default: int) -> Value:
    """A slice bound as Python resolves it for step 1: negative counts from the end, then
    clamped to `[0, n]`."""
    if bound is None:
        return graph.const(np.int64(default))
    if not isinstance(bound, Value):
        return graph.const(np.int64(min(max(bound + n if bound < 0 else bound, 0), n)))
    bound = graph.op("astype", [bound], dtype=np.dtype(np.int64))
    size = graph.const(np.int64(n))
    from_end = graph.op("add", [bound, size])
    resolved = graph.op("where", [graph.op("lt", [bound, graph.const(np.int64(0))]),
                                  from_end, bound])
    return graph.op("minimum", [graph.op("maximum", [resolved, graph.const(np.int64(0))]),
                                size])


def slice_length(graph: Graph, n: int, parts: list[VariableTracker]) -> Value:
    """`len(range(n)[lo:hi])` for step 1, as a Python int (weak `int64[]`)."""
    lo, hi = _bound(parts[0]), _bound(parts[1])
    start = _clamped(graph, lo, n, 0)
    stop = _clamped(graph, hi, n, n)
    length = graph.op("maximum", [graph.op("sub", [stop, start]), graph.const(np.int64(0))])
    return graph.op("astype", [length], dtype=np.dtype(np.int64), weak=True)


def _bound(part: VariableTracker) -> Any:
    return part.value if isinstance(part, ArrayVariable) else part.constant()


def data_view(tx: Interpreter, array: ArrayVariable, index: VariableTracker
              ) -> DataViewVariable:
    """`array[index]` with a data slice in the index: checked against NumPy's rules on an
    example of the array's shape, so errors other than the data's are Python's here."""
    items = list(index.items) if isinstance(index, TupleVariable) else [index]
    for item in items:
        if isinstance(item, PythonScalarVariable) or not (
                isinstance(item, DataSliceVariable) or item.is_constant()):
            raise graph_break("data_dependent_value",
                              what=f"indexing {array.describe()} with {item.describe()}")
    if any(isinstance(d, str) for d in array.value.shape):
        raise graph_break("data_dependent_value",
                          what="a slice computed from the data of an array of symbolic shape")
    example = np.empty(array.value.shape, dtype=np.bool_)
    example[tuple(slice(None) if isinstance(i, DataSliceVariable) else i.constant()
                  for i in items)]  # NumPy's IndexError for too many indices, and others
    return DataViewVariable(array.value, items)


def numpy_call(tx: Interpreter, fn: Any, args: list[VariableTracker],
               kwargs: dict[str, VariableTracker]) -> VariableTracker | None:
    """`np.unique(x)`, `np.argwhere`, `np.extract`, `np.compress`; None for other calls."""
    if fn in (np.argwhere, np.extract, np.compress):
        return _chosen(tx, fn, args, kwargs)
    return _unique(tx, fn, args, kwargs)


def _static_array(vt: VariableTracker | None) -> Value | None:
    from ember.capture.variables.views import SliceView

    if type(vt) not in (ArrayVariable, SliceView) or vt.value.dtype.kind not in "biuf" or any(
            isinstance(d, str) for d in vt.value.shape):
        return None
    return vt.value


def _chosen(tx: Interpreter, fn: Any, args: list[VariableTracker],
            kwargs: dict[str, VariableTracker]) -> VariableTracker | None:
    """`np.argwhere(a)` (the positions of `a`'s nonzero elements, a row each),
    `np.extract(condition, arr)` and `np.compress(condition, a, axis=None or 0)` where the
    condition chooses among that many elements or rows (or fewer, as NumPy truncates): the
    chosen rows at the front
    of a buffer, their count its length. Other forms (NumPy's errors among them) go on to
    the handler's refusal."""
    import inspect

    from ember.numpy_api.gather import Compacted

    if tx.graph.parent is not None:
        return None  # in a loop body: a trip's values have shapes of their own
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs).arguments
    except TypeError:
        return None
    graph = tx.graph
    if fn is np.argwhere:
        x = _static_array(bound["a"])
        if x is None or not x.shape:
            return None
        condition, rows = x, None
    else:
        condition = _static_array(bound.get("condition"))
        values = _static_array(bound.get("arr" if fn is np.extract else "a"))
        axis = bound.get("axis", ConstantVariable(None))
        out = bound.get("out", ConstantVariable(None))
        if condition is None or values is None or not (
                axis.is_constant() and out.is_constant() and out.constant() is None):
            return None
        axis = axis.constant()
        if fn is np.compress and condition.ndim != 1:
            return None
        if axis is None:
            rows = graph.op("reshape", [values], shape=[int(np.prod(values.shape))])
        elif type(axis) is int and values.ndim and axis in (0, -values.ndim):
            rows = values
        else:
            return None
        size = int(np.prod(condition.shape))
        if size > rows.shape[0]:
            return None  # NumPy's IndexError, or a chosen place past the end
        if size < rows.shape[0]:  # NumPy's result is as the condition's places alone choose
            rows = graph.op("slice", [rows], start=[0] * rows.ndim, stop=[size, *rows.shape[1:]],
                            step=[1] * rows.ndim)
    size = int(np.prod(condition.shape))
    if not size:
        return None
    flat = graph.op("reshape", [condition], shape=[size])
    keep = flat if flat.dtype == np.bool_ else graph.op("ne", [flat, graph.const(0)])
    slots = Compacted(graph, keep)
    chosen = DataSliceVariable([ConstantVariable(None), ArrayVariable(slots.count)],
                               counted=True)
    if rows is None:
        from ember.capture.variables.nonzero import positions

        buffer = positions(graph, condition)
        if condition.ndim > 1:  # NumPy's F-ordered rows: the columns' buffer, transposed
            columns = graph.op("transpose", [buffer], perm=[1, 0])
            return DataViewVariable(columns, [ConstantVariable(slice(None)), chosen],
                                    transposed=True)
    else:
        buffer = slots.stored(keep, rows)
    rest = [ConstantVariable(slice(None))] * (buffer.ndim - 1)
    return DataViewVariable(buffer, [chosen, *rest])


def _unique(tx: Interpreter, fn: Any, args: list[VariableTracker],
            kwargs: dict[str, VariableTracker]) -> VariableTracker | None:
    """`np.unique(x)` of an array (flattened, as NumPy does), with `return_index`,
    `return_inverse` (an array of the graph: `x`'s shape), `return_counts` and `equal_nan`;
    None for other calls (`sorted=False`, whose order NumPy leaves open)."""
    if fn is not np.unique or len(args) != 1 or type(args[0]) is not ArrayVariable:
        return None
    flags = {"return_index": False, "return_inverse": False, "return_counts": False,
             "equal_nan": True, "sorted": True}
    for name, vt in kwargs.items():
        if name not in flags or not vt.is_constant() or type(vt.constant()) is not bool:
            return None
        flags[name] = vt.constant()
    x = args[0].value
    if not flags["sorted"] or x.dtype.kind not in "biuf":
        return None
    from ember.numpy_api.scalars import numbers_in_graph

    if x.dtype.kind == "f" and not numbers_in_graph.get():
        return None  # differentiating: the compaction's buffers carry no gradient; a break
    from ember.numpy_api.sorting import unique_buffers

    buffers, count, inverse = unique_buffers(
        tx.graph, x, flags["return_index"], flags["return_counts"], flags["return_inverse"],
        flags["equal_nan"])
    counted = DataSliceVariable([ConstantVariable(None), ArrayVariable(count)], counted=True)
    views: list[VariableTracker] = [DataViewVariable(b, [counted]) for b in buffers]
    if inverse is not None:  # NumPy's order: values, index, inverse, counts
        from ember.capture.variables.prefixes import note_inverse

        note_inverse(tx, inverse, counted)
        views.insert(1 + flags["return_index"], ArrayVariable(inverse))
    return views[0] if len(views) == 1 else TupleVariable(views)
