"""`np.nonzero(x)` (and `x.nonzero()`): index arrays whose length only the data knows.

They never become arrays of the graph. What users read of them is their length, a count of
the nonzero elements (`np.nonzero(x)[0].shape[0]`, `len(np.nonzero(x)[0])`, `.size`): a
Python int computed by a sum. Where they are handed to Python (returned, live at a break)
the entry takes them from a buffer of `(x.size, x.ndim)` positions, the nonzero ones first
(`gather.Compacted`), which the graph fills only then (`Positions`, asked by the rebuild):
`buffer[:count, axis]`, views of one array as NumPy's are. An element of one by an integer
(`np.nonzero(x > t)[0][-1]`, `np.where(d == 0)[0][0]`: the first or last place where) is the
axis's index of the place where the running count of nonzero elements passes it
(`masked.element`). Indexing a longer array with the one index array of a 1-d `x` is the
boolean-mask selection by `x` (`select_at`). Computed on (arithmetic, gathers and stores
at them, `np.concatenate`, `np.add.reduceat`), each is the selection by `x` of every place's
index along its axis (`prefixes.as_selection`); anything else is a graph break."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.containers import TupleVariable
from ember.capture.variables.masked import MaskedVariable, element, element_or_missing
from ember.graph import Graph, Value
from ember.numpy_api.counting import nonzero_count
from ember.numpy_api.gather import Compacted

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter


class NonzeroIndexVariable(VariableTracker):
    """One index array of `np.nonzero(x)`; `count`: how many elements of `x` are nonzero,
    a Python int (weak `int64[]`)."""

    def __init__(self, count: Value, positions: Positions, axis: int,
                 ends: dict[int, tuple[Value, Value]] | None = None) -> None:
        self.count = count
        self.positions = positions
        self.axis = axis
        # The first and last elements (`[0]`, `[-1]`) made before a branch at the frame's
        # level, each with its 0-d "there is none" (`held_ends`).
        self.ends = ends or {}

    def describe(self) -> str:
        return "an index array of np.nonzero"

    def type_name(self) -> str:
        return "ndarray"

    def python_type(self) -> type:
        return np.ndarray

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        if name == "shape":
            return TupleVariable([ArrayVariable(self.count)])
        if name == "size":
            return ArrayVariable(self.count)
        if name == "ndim":
            from ember.capture.variables.constant import ConstantVariable

            return ConstantVariable(1)
        raise graph_break("data_dependent_value",
                          what=f"the values of np.nonzero's indices (.{name})")

    def len_variable(self, tx: Interpreter) -> VariableTracker:
        return ArrayVariable(self.count)

    def getitem(self, tx: Interpreter, index: VariableTracker) -> VariableTracker:
        i = index.constant() if index.is_constant() else None
        if type(i) is int and i in self.ends:
            from ember.capture.loops import frame_branches

            value, missing = self.ends[i]
            frame_branches.add_check(tx, missing)  # NumPy's IndexError, in Python
            return ArrayVariable(value)
        position = self.positions.element(tx.graph, self.axis, index)
        if position is None:
            return super().getitem(tx, index)
        return ArrayVariable(position)


def numpy_call(tx: Interpreter, fn: Any, args: list[VariableTracker],
               kwargs: dict[str, VariableTracker]) -> VariableTracker | None:
    """`np.nonzero(x)` (or `np.where(x)`) of an array of at least one axis, else None."""
    if fn not in (np.nonzero, np.where) or kwargs or len(args) != 1:
        return None
    return nonzero_of(tx, args[0])


def nonzero_of(tx: Interpreter, array: VariableTracker) -> VariableTracker | None:
    from ember.capture.loops.vectors import VectorVariable, materialise

    if isinstance(array, VectorVariable):  # a short row of a loop body, element by element
        array = materialise(tx, array)
    if not isinstance(array, ArrayVariable) or not array.value.shape:
        return None  # NumPy's own error (0-d) happens in Python
    graph = tx.graph
    count = nonzero_count(graph, array.value)
    count = graph.op("astype", [count], dtype=np.dtype(np.int64), weak=True)
    positions = Positions(array.value)
    return TupleVariable([NonzeroIndexVariable(count, positions, axis)
                          for axis in range(array.value.ndim)])


def select_at(tx: Interpreter, array: ArrayVariable, index: NonzeroIndexVariable
              ) -> MaskedVariable | None:
    """`a[np.nonzero(m)[0]]` (`y[np.where(labels == c)[0]]`) of a 1-d `m` no longer than
    `a`: the rows of `a` where `m` is nonzero, in order, which is the boolean-mask selection
    `a[:len(m)][m != 0]`; None otherwise (the gather breaks)."""
    from ember.capture.variables import masked
    from ember.numpy_api.indexing import getitem

    x, a = index.positions.x, array.value
    if x.ndim != 1 or not a.ndim or not isinstance(x.shape[0], int) or not isinstance(
            a.shape[0], int) or x.shape[0] > a.shape[0]:
        return None
    graph = tx.graph
    keep = x if x.dtype == np.bool_ else graph.op("ne", [x, graph.const(0)])
    rows = a if a.shape[0] == x.shape[0] else getitem(graph, a, slice(0, x.shape[0]))
    return masked.select(tx, ArrayVariable(rows), keep)


class Positions:
    """The buffer of positions of one `np.nonzero(x)`, made once, when first asked for."""

    def __init__(self, x: Value) -> None:
        self.x = x
        self._buffer: Value | None = None

    def buffer(self, graph: Graph) -> Value | None:
        """None where `x`'s shape is symbolic."""
        if self._buffer is None and all(isinstance(d, int) for d in self.x.shape):
            self._buffer = positions(graph, self.x)
        return self._buffer

    def element(self, graph: Graph, axis: int, index: VariableTracker) -> Value | None:
        """`np.nonzero(x)[axis][index]` for an integer `index` (a constant or a run-time
        int), an int64 NumPy scalar; None where `x`'s shape is symbolic."""
        shape = self.x.shape
        if not all(isinstance(d, int) for d in shape) or not int(np.prod(shape)):
            return None
        i = _integer_index(index)
        if i is None:
            return None
        keep = self.x if self.x.dtype == np.bool_ else graph.op("ne", [self.x, graph.const(0)])
        column = _index_column(graph, shape, axis)
        return element(graph, MaskedVariable(column, keep), i)


    def ends(self, graph: Graph, axis: int) -> list[Value]:
        """The first and last elements of the index array of `axis` and a 0-d bool each
        that holds where there is none: `[first, none, last, none]`; [] where `x`'s shape
        is symbolic or empty."""
        shape = self.x.shape
        if not all(isinstance(d, int) for d in shape) or not int(np.prod(shape)):
            return []
        keep = self.x if self.x.dtype == np.bool_ else graph.op("ne", [self.x, graph.const(0)])
        selection = MaskedVariable(_index_column(graph, shape, axis), keep)
        return [v for i in (0, -1) for v in element_or_missing(graph, selection, i)]


def held(tx: Interpreter, vt: VariableTracker, vectors: dict[int, Any]) -> bool:
    """Whether `vt` is an index array of np.nonzero held across a branch (`stop[0] if
    stop.size else n`), or the tuple of them (`where = np.nonzero(x > t)`), each added to
    the branch's `vectors` (`loops.branch_entries.entries`): its count and the array whose
    nonzero places it indexes are entries, and at the frame's level its ends (`[0]`, `[-1]`,
    `Positions.ends`), as element reads in a path would cost whole-array work there; the
    tuple is made again of the path's index arrays."""
    items = vt.items if type(vt) is TupleVariable else [vt]
    if not items or not all(isinstance(e, NonzeroIndexVariable) for e in items):
        return False
    from ember.capture.loops import frame_branches

    at_frame = tx.graph.parent is None or frame_branches.at_frame_level(tx)
    for e in items:
        parts = [e.count, e.positions.x]
        if id(e) not in vectors and all(p.graph is tx.graph for p in parts):
            if at_frame:
                parts += e.positions.ends(tx.graph, e.axis)
            vectors[id(e)] = (e, [ArrayVariable(p) for p in parts])
    if vt is not items[0] and id(vt) not in vectors:
        vectors[id(vt)] = (vt, [])  # type: ignore[assignment]
    return True


def _integer_index(index: VariableTracker) -> int | Value | None:
    if index.is_constant():
        i = index.constant()
        return i if type(i) is int else None
    if type(index) is ArrayVariable and index.value.ndim == 0 and index.value.dtype.kind in "iu":
        return index.value
    return None


def _index_column(graph: Graph, shape: tuple[int, ...], axis: int) -> Value:
    """Each element's index along `axis`, in `x`'s shape (int64)."""
    size = int(np.prod(shape))
    place = graph.arange(0, 1, size, np.dtype(np.int64))
    stride = int(np.prod(shape[axis + 1:]))
    column = graph.op("mod", [graph.op("floordiv", [place, graph.const(np.int64(stride))]),
                              graph.const(np.int64(shape[axis]))])
    return graph.op("reshape", [column], shape=list(shape))


def positions(graph: Graph, x: Value) -> Value:
    """Every element's indices, a row each, the nonzero elements' first and in order."""
    shape = x.shape
    size = int(np.prod(shape))
    if not size:
        return graph.full((0, len(shape)), 0, np.int64)
    flat = graph.op("reshape", [x], shape=[size])
    keep = flat if x.dtype == np.bool_ else graph.op("ne", [flat, graph.const(0)])
    place = graph.arange(0, 1, size, np.dtype(np.int64))
    strides = [int(np.prod(shape[axis + 1:])) for axis in range(len(shape))]
    columns = [graph.op("reshape", [graph.op("mod", [
        graph.op("floordiv", [place, graph.const(np.int64(stride))]),
        graph.const(np.int64(d))])], shape=[size, 1]) for stride, d in zip(strides, shape)]
    rows = columns[0] if len(columns) == 1 else graph.op("concatenate", columns, axis=1)
    return Compacted(graph, keep).stored(keep, rows)
