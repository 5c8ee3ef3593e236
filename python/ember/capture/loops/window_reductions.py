"""Reductions of whole windows and window arithmetic (`loops/window_exprs.py`) in loop
bodies: `np.sum(img[i:i + K, j:j + K] * k)`, `x[c, 2 * i:2 * i + 2, 2 * j:2 * j + 2].max()`,
`w.mean()`.

The elements are folded one by one as they are built, by one inner loop op (straight-line
for a window of at most `windows._UNROLLED_ELEMENTS` elements), rather than filled into an
array that an array reduction then reads: an array op in a native loop body costs set-up on
every trip. `sum` and `mean` accumulate in NumPy's dtype for them (the order of summation
differs from NumPy's pairwise one within float rounding); `max` and `min` propagate NaN as
NumPy's do (`maximum`, `minimum`). Reductions over some axes only (`axis=(1, 2)`) read the
window's value and run as array ops."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ember.capture.loops import windows
from ember.capture.loops.run_exprs import _Body
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.graph import Graph, Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

# The op folding two partial results of each reduction.
_FOLDS = {np.sum: "add", np.mean: "add", np.max: "maximum", np.amax: "maximum",
          np.min: "minimum", np.amin: "minimum"}
METHODS = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min}


class _Inline(_Body):
    """Elements built straight in the graph that reduces them: its values are its own."""

    def outer(self, value: Value) -> Value:
        return value


def _dtype(fn: object, element: np.dtype) -> np.dtype:
    return np.dtype(fn(np.zeros(1, element)).dtype)  # type: ignore[operator]


def reduce_all(tx: Interpreter, fn: object, lazy: ArrayVariable) -> ArrayVariable:
    """`fn(lazy)` over all its elements, `lazy` a lazy window or window arithmetic."""
    check = getattr(lazy, "check", None)
    if check is not None:
        check()  # NumPy reads the view now
    graph = tx.graph
    shape, element = lazy.shape, lazy.element  # type: ignore[attr-defined]
    total = math.prod(shape)
    first = element(_Inline(graph), graph.const(0))
    dtype = _dtype(fn, first.dtype)
    fold = _FOLDS[fn]  # type: ignore[index]
    if fold == "add":
        acc, start = graph.const(dtype.type(0)), 0
    else:
        acc, start = _cast(graph, first, dtype), 1
    if total - start <= windows._UNROLLED_ELEMENTS:
        inline = _Inline(graph)
        for flat in range(start, total):
            acc = _folded(graph, fold, acc, element(inline, graph.const(flat)), dtype)
    else:
        body = _Body(graph.region("loop"))
        k = body.graph.add_input(np.int64, (), weak=True)
        carried = body.graph.add_input(dtype, (), scalar=True)
        new = _folded(body.graph, fold, carried, element(body, k), dtype)
        body.graph.set_outputs([body.graph.const(True, weak=False), new])
        (acc,) = graph.loop(graph.const(start), graph.const(total), graph.const(1), [acc],
                            body.invariants, body.graph)
    if fn is np.mean:
        acc = _cast(graph, graph.op("div", [acc, graph.const(total)]), dtype)
    return ArrayVariable(acc)


def _cast(graph: Graph, value: Value, dtype: np.dtype) -> Value:
    return graph.op("astype", [value], dtype=dtype, scalar=True)


def _folded(graph: Graph, fold: str, acc: Value, value: Value, dtype: np.dtype) -> Value:
    if value.dtype != dtype:
        value = _cast(graph, value, dtype)
    return _cast(graph, graph.op(fold, [acc, value]), dtype)


def _whole(kwargs: dict[str, VariableTracker]) -> bool:
    """No keyword, or `axis=None`: a reduction over all elements."""
    return all(name == "axis" and isinstance(v, ConstantVariable) and v.constant() is None
               for name, v in kwargs.items())


def numpy_call(tx: Interpreter, fn: object, args: list[VariableTracker],
               kwargs: dict[str, VariableTracker]) -> VariableTracker | None:
    """`np.sum(w)`, `np.max(w)` ... of a lazy `w`; None for other calls."""
    from ember.capture.loops.window_exprs import is_lazy

    if fn not in _FOLDS or len(args) != 1 or not is_lazy(args[0]) or not _whole(kwargs):
        return None
    return reduce_all(tx, fn, args[0])  # type: ignore[arg-type]


@dataclass(eq=False)
class ReductionMethod(VariableTracker):
    """`w.sum`, `w.max` ... of a lazy `w`: folded element by element when called over all
    elements, else the array method on its value."""

    lazy: ArrayVariable
    name: str

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        if not args and _whole(kwargs):
            return reduce_all(tx, METHODS[self.name], self.lazy)
        return ArrayVariable.getattr(self.lazy, tx, self.name).call(tx, args, kwargs)
