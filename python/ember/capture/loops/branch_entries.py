"""What the paths of a branch in a loop body (or of a frame-level branch) may read: the
graph values the frame's locals, stack and cells hold when the branch starts, each an
entry (a parameter of each path's region), and the trackers made of several of them (a
short row, a boolean-mask selection, a choice of two numbers, a run-time slice, a tuple of
numbers), each rebuilt of its entries' stand-ins in each path (`branches._trace`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.loops import followers, runs, tuples
from ember.capture.loops.runs import RunVariable
from ember.capture.loops.vectors import VectorVariable
from ember.capture.variables import choice, nonzero
from ember.capture.variables.appended import AppendedListVariable
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.choice import ChoiceVariable
from ember.capture.variables.masked import MaskedVariable
from ember.capture.variables.scalar import PythonScalarVariable

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.capture.loops.branches import HeldVector


def entries(tx: Interpreter, dead: set[int] = frozenset()  # type: ignore[assignment]
             ) -> tuple[list[ArrayVariable], list[HeldVector]]:
    """The trackers holding graph values the paths may read: locals and stack items, and
    each element of the short rows held (`loops/vectors.py`), the values and mask of
    each boolean-mask selection and the flag and sides of each choice of two numbers held
    as one more entry. `dead`: ids of windows no path reads (`windows.dead_at`)."""
    from ember.capture.loops import frame_branches
    from ember.capture.loops.branches import _rows_iterated
    from ember.capture.loops.windows import WindowVariable

    found: dict[int, ArrayVariable] = {}
    vectors: dict[int, HeldVector] = {}
    # A frame's cells hold values too (an enclosing function's arrays a closure reads),
    # wrapped here where the frame's graph can take them as inputs; a loop body holds its
    # cells as pseudo-locals already (`region.outside_as_locals`).
    if tx.graph.parent is None:
        for cell in tx.cells.values():
            if _holds_numeric_array(cell):
                tx.load_cell(cell)
    held = [*tx.locals.values(), *tx.stack, *(cell.contents for cell in tx.cells.values())]
    following = {id(vt) for vt in followers.derived(held, tx.graph)}  # slices of their stand-ins
    for vt in held:
        if id(vt) in following or id(vt) in dead:
            continue
        if isinstance(vt, VectorVariable) and id(vt) not in vectors:
            vectors[id(vt)] = (vt, [ArrayVariable(e) for e in vt.elements])
            continue
        if isinstance(vt, AppendedListVariable) and id(vt) not in vectors:
            # A list a loop op built (`if len(out) > 3: return out[3]`): its buffer, count
            # and flags; the path reads it only.
            parts = vt.parts()
            if all(p.graph is tx.graph for p in parts):
                vectors[id(vt)] = (vt, [ArrayVariable(p) for p in parts])
            continue
        if isinstance(vt, MaskedVariable) and id(vt) not in vectors:
            if vt.values.graph is tx.graph and vt.mask.graph is tx.graph:
                vectors[id(vt)] = (vt, [ArrayVariable(vt.values), ArrayVariable(vt.mask)])
            continue
        if nonzero.held(tx, vt, vectors):
            continue
        if (isinstance(vt, PythonScalarVariable) and id(vt) not in vectors
                and tx.graph.parent is None and frame_branches.at_frame_level(tx)):
            # A Python number known at run time (`tol` after a call changed it): the paths
            # read its weak input, as a loop body does.
            vectors[id(vt)] = (vt, [ArrayVariable(vt.graph_value())])
            continue
        if isinstance(vt, ChoiceVariable) and id(vt) not in vectors:
            # A choice of two numbers (`_choice_parts`): its flag and both sides.
            parts = choice.parts(vt)
            if parts is not None and all(p.graph is tx.graph for p in parts):
                vectors[id(vt)] = (vt, [ArrayVariable(p) for p in parts])
            continue
        if (isinstance(vt, PythonScalarVariable) and vt.python_class is float
                and tx.graph.parent is None and id(vt) not in vectors):
            # A float argument (or one computed from arguments) of a frame captured with
            # run-time scalars: the frame's input, entering each path as its weak value.
            vectors[id(vt)] = (vt, [ArrayVariable(vt.graph_value())])
            continue
        if isinstance(vt, RunVariable) and id(vt) not in vectors:
            # A slice with run-time bounds (`x = H[k + 1:, k].copy()` read in `... if x[0]
            # != 0 else ...`): its array an entry (a path may update it), its bounds and
            # indices entries of their own.
            parts = runs.run_parts(vt)
            if parts is None or vt.array.value.graph is not tx.graph:
                raise graph_break("loop_body", what="a run-time slice held across a branch")
            found.setdefault(id(vt.array), vt.array)
            vectors[id(vt)] = (vt, [ArrayVariable(p) for p in parts])
            continue
        if tuples.held(vt):
            # A tuple of numbers (`pair = (i, j)`) or an optional number: its items computed
            # in the graph are entries, the path's tuple made of their stand-ins.
            items = [e for e in vt.items if isinstance(e, ArrayVariable)  # type: ignore[attr-defined]
                     and e.value.graph is tx.graph]
            if items and id(vt) not in vectors:
                for item in items:
                    found.setdefault(id(item), item)
                vectors[id(vt)] = (vt, [])
            continue
        if _lazy_window_held(tx, vt) and id(vt) not in vectors:
            # A row not read yet (`read = reads[r]` passed to a helper whose `while` tests
            # `read[i]`): its array an entry (a path may update it, and the row then
            # refuses to be read), its run-time positions entries of their own.
            found.setdefault(id(vt.base), vt.base)  # type: ignore[attr-defined]
            vectors[id(vt)] = (vt, [ArrayVariable(p)  # type: ignore[assignment]
                                    for p in _runtime(vt.axes)])  # type: ignore[attr-defined]
            continue
        if isinstance(vt, WindowVariable):
            # A path would see a copy where NumPy sees a view of an array it may update.
            raise graph_break("loop_body", what="a row at a run-time index held across a "
                                                "branch")
        rows = _rows_iterated(tx, vt)
        if rows is not None:
            vt = rows  # the array an unrolled `for row in x` reads its next rows from
        if isinstance(vt, ArrayVariable) and vt.value.graph is tx.graph:
            found.setdefault(id(vt), vt)
    elements = [e for _, held in vectors.values() for e in held]
    return [*found.values(), *elements], list(vectors.values())


def _lazy_window_held(tx: Interpreter, vt: Any) -> bool:
    """`vt` is a lazy window (`loops/window_exprs.py`) of an array of this graph whose
    array has not changed since, so each path can read it anew."""
    from ember.capture.loops.window_exprs import LazyWindowVariable

    if type(vt) is not LazyWindowVariable:
        return False
    base = vt.base
    return (type(base) is not LazyWindowVariable and base.value is vt.base_value
            and base.value.graph is tx.graph
            and all(p.graph is tx.graph for p in _runtime(vt.axes)))


def _runtime(axes: list[Any]) -> list[Any]:
    from ember.capture.loops.windows import runtime

    return runtime(axes)


def _holds_numeric_array(cell: Any) -> bool:
    """A closure's cell not read yet that holds an array of numbers."""
    try:
        value = cell.raw.cell_contents if cell.contents is None else None
    except (AttributeError, ValueError):  # a cell of this frame, or an empty one
        return False
    return isinstance(value, np.ndarray) and value.dtype.kind in "biuf"
