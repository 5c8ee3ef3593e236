"""Rows (or columns) at a short list of loop values, each sliced with run-time bounds, inside
loop bodies: the row swap of partial pivoting, `U[[k, p], k:] = U[[p, k], k:]`.

NumPy makes the right side an array of the listed rows (a copy: advanced indexing) and then
assigns each of its rows to the listed rows of the target in order. Here each listed row is a
run (`runs.py`); the right side's runs are copied first (`runs.copy_run`), then stored one
after the other (`run_exprs.store`), which is NumPy's order, a repeated index included (the
last store wins). A listed index outside the array sends the frame to plain Python, which
raises NumPy's IndexError even where the slice is empty. Anything else done with such rows
refuses (the loop is then not a loop op)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ember.capture.breaks import graph_break
from ember.capture.loops.runs import (
    DynamicSliceVariable,
    RunVariable,
    _is_loop_int,
    _same_bounds,
    copy_run,
)
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.graph import Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.capture.variables.array import ArrayVariable

# The longest index list taken (a swap or a short permutation); longer ones refuse.
MAX_ROWS = 8


@dataclass(eq=False)
class RowRunsVariable(VariableTracker):
    """`array[[i, j, ...], lo:hi]` (or `array[lo:hi, [i, j, ...]]`): one run per listed
    index, `axis` the axis the list indexes."""

    runs: list[RunVariable]
    axis: int

    def type_name(self) -> str:
        return "ndarray"

    def describe(self) -> str:
        return "rows at a list of run-time indices with run-time bounds"

    def children(self) -> list[VariableTracker]:
        return [run.array for run in self.runs]


def row_runs(tx: Interpreter, array: ArrayVariable, parts: list[VariableTracker]
             ) -> RowRunsVariable | None:
    """The runs of `array[parts]` when `parts` are a list of loop values or ints and a slice
    with run-time bounds on a 2-d array; None for any other index."""
    from ember.capture.loops import frame_branches
    from ember.capture.variables.containers import ListVariable

    if array.value.ndim != 2 or len(parts) != 2:
        return None
    at = next((k for k, p in enumerate(parts) if type(p) is ListVariable), None)
    if at is None or not isinstance(parts[1 - at], DynamicSliceVariable):
        return None
    items = parts[at].items  # type: ignore[attr-defined]
    if not 0 < len(items) <= MAX_ROWS or not all(
            _is_loop_int(e) or (isinstance(e, ConstantVariable) and type(e.constant()) is int)
            for e in items):
        return None
    graph = tx.graph
    size = array.value.shape[at]
    if isinstance(size, str):
        return None
    runs = []
    for item in items:
        index: Value = item.value if _is_loop_int(item) else graph.const(item.constant())  # type: ignore[attr-defined]
        outside = graph.op("logical_or", [graph.op("lt", [index, graph.const(-size)]),
                                          graph.op("ge", [index, graph.const(size)])])
        frame_branches.add_check(tx, outside)
        indices: list[Value | None] = [None, None]
        indices[at] = index
        runs.append(RunVariable(array, indices, 1 - at, parts[1 - at]))  # type: ignore[arg-type]
    return RowRunsVariable(runs, at)


def store(tx: Interpreter, target: ArrayVariable, place: RowRunsVariable,
          value: VariableTracker) -> None:
    """`target[[i, j], lo:hi] = value` where `value` is rows of the same kind and bounds (a
    swap or permutation of rows): the value's rows copied, then stored in order."""
    from ember.capture.loops import run_exprs

    if not (isinstance(value, RowRunsVariable) and value.axis == place.axis
            and len(value.runs) == len(place.runs)
            and all(_same_bounds(a, b) for a, b in zip(place.runs, value.runs, strict=True))):
        raise graph_break("loop_body", what=f"assigning {value.describe()} to "
                                            f"{place.describe()}")
    copies = [copy_run(tx, run) for run in value.runs]
    for run, copied in zip(place.runs, copies, strict=True):
        if not run_exprs.store(tx, target, run, copied):
            raise graph_break("loop_body", what=f"assigning to {place.describe()}")
