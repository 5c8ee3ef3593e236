"""Element reads and writes inside loop bodies: `a[i]`, `a[i, j - 1]`, `a[i] = v`,
`a[i, j] += v` with run-time indices become `load` and `store` (docs/IR.md, version 2)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ember.capture.breaks import graph_break
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.graph import Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.capture.variables.array import ArrayVariable


def _is_index_value(vt: VariableTracker) -> bool:
    from ember.capture.variables.array import ArrayVariable

    return (isinstance(vt, ArrayVariable) and not vt.value.shape
            and vt.value.dtype.kind in "iu")


def element_indices(tx: Interpreter, array: ArrayVariable, index: VariableTracker
                    ) -> list[Value] | None:
    """The index values of `array[index]` when it names one element with at least one index
    known only at run time (a loop value); None for any other index."""
    from ember.capture.variables.containers import TupleVariable

    parts = index.items if isinstance(index, TupleVariable) else [index]
    if not any(_is_index_value(p) for p in parts):
        if isinstance(index, ConstantVariable) and type(index.constant()) is tuple:
            parts = [ConstantVariable(c) for c in index.constant()]
        return _constant_element(tx, array, parts)
    if len(parts) != array.value.ndim:
        raise graph_break("loop_body", what=f"indexing {array.describe()} "
                                            f"({array.value.ndim}-d) with {len(parts)} "
                                            "run-time indices")
    values: list[Value] = []
    for part in parts:
        if _is_index_value(part):
            values.append(part.value)  # type: ignore[attr-defined]
        elif isinstance(part, ConstantVariable) and type(part.constant()) is int:
            values.append(tx.graph.const(part.constant()))
        else:
            raise graph_break("loop_body", what=f"an index {part.describe()} next to a "
                                                "run-time one")
    return values


def rows_then_gather(tx: Interpreter, index: VariableTracker
                     ) -> tuple[VariableTracker, VariableTracker] | None:
    """`a[i, idx]` (`a[i, j, idx, :]`): 0-d integer indices, one known only at run time,
    then one array index and slices: NumPy's result is `a[i][idx]` (the scalar indices
    broadcast with `idx` and stand next to it), the two indexings returned. None for any
    other index."""
    from ember.capture.variables.array import ArrayVariable
    from ember.capture.variables.containers import TupleVariable
    if not isinstance(index, TupleVariable) or type(index) is not TupleVariable:
        return None
    parts = index.items
    at = next((k for k, p in enumerate(parts)
               if isinstance(p, ArrayVariable) and p.value.ndim), None)
    if at is None or at == 0 or not any(_is_index_value(p) for p in parts[:at]):
        return None
    if not all(_is_index_value(p) or (isinstance(p, ConstantVariable)
                                      and type(p.constant()) is int) for p in parts[:at]):
        return None
    if not all(isinstance(p, ConstantVariable) and isinstance(p.constant(), slice)
               for p in parts[at + 1:]):
        return None
    if parts[at].value.dtype.kind not in "iub":  # type: ignore[attr-defined]
        return None
    rows = parts[0] if at == 1 else TupleVariable(parts[:at])
    rest = parts[at] if at == len(parts) - 1 else TupleVariable(parts[at:])
    return rows, rest


def _constant_element(tx: Interpreter, array: ArrayVariable, parts: list[VariableTracker]
                      ) -> list[Value] | None:
    """The index values of an element named by in-range constant ints (`w[p, q]` of an
    unrolled loop in a body): one `load` rather than a slice and a squeeze per element. None
    for anything else, out-of-range indices included (indexing then raises NumPy's error)."""
    shape = array.value.shape
    if len(parts) != len(shape) or not parts:
        return None
    values: list[Value] = []
    for part, dim in zip(parts, shape, strict=True):
        if not (isinstance(part, ConstantVariable) and type(part.constant()) is int
                and isinstance(dim, int) and -dim <= part.constant() < dim):
            return None
        values.append(tx.graph.const(part.constant() % dim))
    return values


def index_value(tx: Interpreter, part: VariableTracker) -> Value:
    """A 0-d integer index as a graph value."""
    if _is_index_value(part):
        return part.value  # type: ignore[attr-defined]
    if isinstance(part, ConstantVariable) and type(part.constant()) is int:
        return tx.graph.const(part.constant())
    raise graph_break("loop_body", what=f"an index {part.describe()} next to a run-time one")


def load(tx: Interpreter, array: ArrayVariable, indices: list[Value]) -> VariableTracker:
    from ember.capture.variables.array import ArrayVariable

    return ArrayVariable(element_at(tx.graph, array.value, indices))


def element_at(graph: Any, array: Value, indices: list[Value]) -> Value:
    """`load` of `array` at `indices`; where `array` is a view made in this graph of static
    bounds (`seg = x[s:s + block]`, a column `A[:, j]`: a slice, and a squeeze of one) and
    each index is known to lie in it, the element is read from the viewed array instead, so
    that a body reading such a view is element access only (native code), not a slice taken
    on every trip. Indices that may be negative or past the view keep it (its bounds and
    Python's wrap-around are the load's)."""
    source, at = _through_views(graph, array, list(indices))
    return graph.op("load", [source, *at])


def _through_views(graph: Any, array: Value, indices: list[Value]
                   ) -> tuple[Value, list[Value]]:
    from ember.capture.loops import intervals

    source, at = array, indices
    for _ in range(4):
        node = intervals.producer(source) if source.graph is graph else None
        if node is None or node.op not in ("slice", "squeeze") or node.out is not source:
            break
        base = node.inputs[0]
        if not all(isinstance(d, int) for d in (*base.shape, *source.shape)):
            break
        if not all(_within(intervals.interval(i), size) for i, size in zip(
                at, source.shape, strict=True)):
            break
        if node.op == "squeeze":
            axes = sorted(a % base.ndim for a in node.attrs["axis"])
            widened = list(at)
            for axis in axes:
                widened.insert(axis, graph.const(0))
            source, at = base, widened
            continue
        moved: list[Value] = []
        for index, start, step in zip(at, node.attrs["start"], node.attrs["step"],
                                      strict=True):
            if step != 1:
                index = graph.op("mul", [index, graph.const(step)])
            moved.append(graph.op("add", [index, graph.const(start)]) if start else index)
        source, at = base, moved
    if source is array:
        return array, indices
    return source, at


def _within(bounds: tuple[int, int] | None, size: int) -> bool:
    return bounds is not None and 0 <= bounds[0] and bounds[1] < size


def store(tx: Interpreter, array: ArrayVariable, indices: list[Value],
          value: VariableTracker) -> None:
    from ember.capture.variables.array import ArrayVariable

    if not (array.is_fresh(tx) or array.is_mutable_input(tx)):
        raise graph_break("inplace", name=array.describe())
    if isinstance(value, ArrayVariable) and not value.value.shape:
        element = value.value
    elif isinstance(value, ConstantVariable) and type(value.constant()) in (bool, int, float):
        element = tx.graph.const(value.constant())
    else:
        raise graph_break("loop_body", what=f"storing {value.describe()} into one element")
    from ember.capture.loops.run_exprs import computed_before_store

    computed_before_store(tx, array, value)
    array.update_in_place(tx.graph.op("store", [array.value, element, *indices]))
    if array.source is not None:
        tx.tracer.mark_mutated(array)
