"""Reductions of whole windows and window arithmetic (`loops/window_exprs.py`) in loop
bodies: `np.sum(img[i:i + K, j:j + K] * k)`, `x[c, 2 * i:2 * i + 2, 2 * j:2 * j + 2].max()`,
`w.mean()`.

The elements are folded one by one as they are built, by one inner loop op (straight-line
for a window of at most `windows._UNROLLED_ELEMENTS` elements), rather than filled into an
array that an array reduction then reads: an array op in a native loop body costs set-up on
every trip. `sum` and `mean` accumulate in NumPy's dtype for them (the order of summation
differs from NumPy's pairwise one within float rounding); `max` and `min` propagate NaN as
NumPy's do (`maximum`, `minimum`). A reduction over some axes (`np.max(x[:, 2 * i:2 * i + 2,
2 * j:2 * j + 2, :], axis=(1, 2))`, lenet's `np.sum(x[:, i:i + K, j:j + K, :, None] * w,
axis=(1, 2, 3))`) is window arithmetic of the kept axes, each element folding the reduced
ones, so that it is stored into a window (`output[:, i, j, :] = ...`) by one loop op.
`keepdims` and other arguments read the window's value and run as array ops."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ember.capture.loops import small_extrema, windows
from ember.capture.loops.run_exprs import _Body, _Nested
from ember.capture.loops.window_exprs import At
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.graph import Graph, Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

# The op folding two partial results of each reduction.
_FOLDS = {np.sum: "add", np.mean: "add", np.max: "maximum", np.amax: "maximum",
          np.min: "minimum", np.amin: "minimum"}
METHODS = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min,
           "argmax": np.argmax, "argmin": np.argmin}
# The comparison by which an element displaces the best one so far.
_ARG_TESTS = {np.argmax: "gt", np.argmin: "lt"}


class _Inline(_Body):
    """Elements built straight in the graph that reduces them: its values are its own."""

    def outer(self, value: Value) -> Value:
        return value


def _dtype(fn: object, element: np.dtype) -> np.dtype:
    return np.dtype(fn(np.zeros(1, element)).dtype)  # type: ignore[operator]


def _fold(body: _Body, at: At, shape: tuple[int, ...], axes: tuple[int, ...],
          fixed: dict[int, Value], fn: object, dtype: np.dtype) -> Value:
    """`fn` of the elements `at` builds over `axes`, the other coordinates `fixed`: the
    innermost axes whose elements are at most `windows._UNROLLED_ELEMENTS` straight-line,
    each outer one an inner loop op, so that coordinates come from loop indices."""
    fold = _FOLDS[fn]  # type: ignore[index]
    g = body.graph
    split, unrolled = len(axes), 1
    while split and unrolled * shape[axes[split - 1]] <= windows._UNROLLED_ELEMENTS:
        split -= 1
        unrolled *= shape[axes[split]]
    looped, inline = axes[:split], axes[split:]

    def coords(b: _Body, known: dict[int, Value], combo: tuple[int, ...]) -> list[Value]:
        extra = dict(zip(inline, combo, strict=True))
        return [known[d] if d in known else b.graph.const(extra[d]) for d in range(len(shape))]

    def level(b: _Body, depth: int, known: dict[int, Value], acc: Value) -> Value:
        if depth == len(looped):
            for combo in itertools.product(*(range(shape[d]) for d in inline)):
                acc = _folded(b.graph, fold, acc, at(b, coords(b, known, combo)), dtype)
            return acc
        region = b.graph.region("loop")
        index = region.add_input(np.int64, (), weak=True)
        carried = region.add_input(dtype, (), scalar=True)
        inner = _Nested(region, b)
        inner_known = {d: inner.outer(v) for d, v in known.items()}
        inner_known[looped[depth]] = index
        new = level(inner, depth + 1, inner_known, carried)
        region.set_outputs([region.const(True, weak=False), new])
        (result,) = b.graph.loop(b.graph.const(0), b.graph.const(shape[looped[depth]]),
                                 b.graph.const(1), [acc], inner.invariants, region)
        return result

    # The elements folded are not the one a store into a window writes: the store's target
    # is read here only where it stores nothing (`window_exprs.LazyWindowVariable.at`).
    shifted, body.shifted = body.shifted, True
    try:
        if fold == "add":
            start = g.const(dtype.type(0))
        else:  # folding the first element again leaves a maximum or minimum as it is
            start = _cast(g, at(body, [fixed.get(d, g.const(0)) for d in range(len(shape))]),
                          dtype)
        acc = level(body, 0, fixed, start)
    finally:
        body.shifted = shifted
    if fn is np.mean:
        count = math.prod(shape[d] for d in axes)
        acc = _cast(g, g.op("div", [acc, g.const(count)]), dtype)
    return acc


def _prepared(graph: Graph, fn: object, lazy: ArrayVariable
              ) -> tuple[At, tuple[int, ...], np.dtype]:
    check = getattr(lazy, "check", None)
    if check is not None:
        check()  # NumPy reads the view now
    shape, at = lazy.shape, lazy.at  # type: ignore[attr-defined]
    first = at(_Inline(graph), [graph.const(0)] * len(shape))
    return at, shape, _dtype(fn, first.dtype)


def reduce_all(tx: Interpreter, fn: object, lazy: ArrayVariable) -> ArrayVariable:
    """`fn(lazy)` over all its elements, `lazy` a lazy window or window arithmetic."""
    at, shape, dtype = _prepared(tx.graph, fn, lazy)
    return ArrayVariable(_fold(_Inline(tx.graph), at, shape, tuple(range(len(shape))), {},
                               fn, dtype))


def reduce_arg(tx: Interpreter, fn: object, lazy: ArrayVariable) -> ArrayVariable | None:
    """`np.argmax(w)` / `np.argmin(w)` over all elements of a window of at most
    `windows._UNROLLED_ELEMENTS` (a pooling window's `np.unravel_index(np.argmax(w),
    w.shape)`): the flat C-order index of the first extreme element, or of the first NaN as
    NumPy's, straight-line on registers; None for longer windows (the array path runs it)."""
    check = getattr(lazy, "check", None)
    shape, at = tuple(lazy.shape), lazy.at  # type: ignore[attr-defined]
    if not 0 < math.prod(shape) <= windows._UNROLLED_ELEMENTS:
        return None
    if check is not None:
        check()  # NumPy reads the view now
    g = tx.graph
    body = _Inline(g)
    shifted, body.shifted = body.shifted, True
    try:
        elements = [at(body, [g.const(c) for c in combo])
                    for combo in itertools.product(*(range(n) for n in shape))]
    finally:
        body.shifted = shifted
    compare = _ARG_TESTS[fn]  # type: ignore[index]
    return ArrayVariable(small_extrema._first_extremum(g, compare, elements))


def reduce_axes(tx: Interpreter, fn: object, lazy: ArrayVariable, axes: tuple[int, ...]
                ) -> ArrayVariable:
    """`fn(lazy, axis=axes)`: window arithmetic over the kept axes whose element folds the
    elements along the reduced ones."""
    from ember.capture.loops.window_exprs import WindowExprVariable

    at, shape, dtype = _prepared(tx.graph, fn, lazy)
    kept = [d for d in range(len(shape)) if d not in axes]

    def reduced(body: _Body, coords: list[Value]) -> Value:
        return _fold(body, at, shape, axes, dict(zip(kept, coords, strict=True)), fn, dtype)

    return WindowExprVariable(tx.graph, tuple(shape[d] for d in kept), dtype, reduced)


def _axes(vt: VariableTracker | None, ndim: int) -> tuple[int, ...] | None:
    """The axes `axis=` names, normalised and sorted; None for anything but ints."""
    value = vt.constant() if isinstance(vt, ConstantVariable) else object()
    items = value if isinstance(value, tuple) else (value,)
    if not all(type(a) is int and -ndim <= a < ndim for a in items):
        return None
    found = tuple(sorted({a % ndim for a in items}))
    return found if len(found) == len(items) else None


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

    if fn in _ARG_TESTS and len(args) == 1 and is_lazy(args[0]) and _whole(kwargs):
        return reduce_arg(tx, fn, args[0])  # type: ignore[arg-type]
    if fn not in _FOLDS or not args or not is_lazy(args[0]):
        return None
    axis = args[1] if len(args) == 2 else kwargs.get("axis")
    if len(args) == 1 and _whole(kwargs) or len(args) == 2 and not kwargs and isinstance(
            axis, ConstantVariable) and axis.constant() is None:
        return reduce_all(tx, fn, args[0])  # type: ignore[arg-type]
    return _over_axes(tx, fn, args[0], axis, len(args) + len(kwargs))


def _over_axes(tx: Interpreter, fn: object, lazy: VariableTracker,
               axis: VariableTracker | None, arguments: int) -> VariableTracker | None:
    """`fn(lazy, axis=...)` over some axes, or None (the array path runs it)."""
    if arguments != 2 or axis is None:
        return None
    ndim = len(lazy.shape)  # type: ignore[attr-defined]
    axes = _axes(axis, ndim)
    if axes is None:
        return None
    if len(axes) == ndim:
        return reduce_all(tx, fn, lazy)  # type: ignore[arg-type]
    return reduce_axes(tx, fn, lazy, axes)  # type: ignore[arg-type]


@dataclass(eq=False)
class ReductionMethod(VariableTracker):
    """`w.sum`, `w.max` ... of a lazy `w`: folded element by element when called over all
    elements, else the array method on its value."""

    lazy: ArrayVariable
    name: str

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        fn = METHODS[self.name]
        if fn in _ARG_TESTS:
            found = reduce_arg(tx, fn, self.lazy) if not args and _whole(kwargs) else None
            if found is not None:
                return found
            return ArrayVariable.getattr(self.lazy, tx, self.name).call(tx, args, kwargs)
        if not args and _whole(kwargs):
            return reduce_all(tx, fn, self.lazy)
        axis = args[0] if len(args) == 1 else kwargs.get("axis")
        found = _over_axes(tx, fn, self.lazy, axis, 1 + len(args) + len(kwargs))
        if found is not None:
            return found
        return ArrayVariable.getattr(self.lazy, tx, self.name).call(tx, args, kwargs)
