"""The value a frame returns when a loop op in it may return early: one of two trackers,
picked after the graph ran by a flag the graph computed (`capture/loops/returns.py`).

Each side keeps its own Python type (`return max_dist + 1`, a Python int, on one side;
`return prev[m]`, a NumPy scalar, on the other), which one graph value could not. A frame's
return value is such a choice, and so is a called function's that returns a Python number on
one path and a NumPy scalar of its dtype on the other (`return 0.0` / `return z - t`): the
only thing capture does with one is an operator whose other operand is an array or a NumPy
scalar that makes the result the same for both sides (`settled`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.graph import Graph, Value

_WEAK_TYPES = {"b": bool, "i": int, "u": int, "f": float}


class ChoiceVariable(VariableTracker):
    """`if_true if flag else if_false`, `flag` a 0-d bool tracker of the graph."""

    def __init__(self, flag: VariableTracker, if_true: VariableTracker,
                 if_false: VariableTracker) -> None:
        self.flag, self.if_true, self.if_false = flag, if_true, if_false

    def describe(self) -> str:
        return "a value returned from inside a loop or after it"

    def children(self) -> Iterable[Any]:
        return (self.flag, self.if_true, self.if_false)


def _numbers(graph: Graph, vt: VariableTracker) -> list[Value] | None:
    """The 0-d values a choice (nested ones included) picks from, or None."""
    if isinstance(vt, ChoiceVariable):
        sides = [_numbers(graph, s) for s in (vt.if_true, vt.if_false)]
        flag = vt.flag.value if isinstance(vt.flag, ArrayVariable) else None
        if flag is None or flag.graph is not graph or sides[0] is None or sides[1] is None:
            return None
        return sides[0] + sides[1]
    if isinstance(vt, ArrayVariable) and vt.value.graph is graph and not vt.value.shape:
        return [vt.value]
    if isinstance(vt, ConstantVariable) and type(vt.constant()) in (bool, int, float):
        return [graph.const(vt.constant())]
    return None


def _picked(graph: Graph, vt: VariableTracker, dtype: np.dtype) -> Value:
    """The value a choice picks, as a NumPy scalar of `dtype`."""
    if isinstance(vt, ChoiceVariable):
        x, y = (_picked(graph, s, dtype) for s in (vt.if_true, vt.if_false))
        picked = graph.op("where", [vt.flag.value, x, y])  # type: ignore[attr-defined]
    else:
        picked = _numbers(graph, vt)[0]  # type: ignore[index]
    if picked.weak or not picked.scalar:
        picked = graph.op("astype", [picked], dtype=dtype, scalar=True)
    return picked


def settled(graph: Graph, vt: VariableTracker, other: VariableTracker) -> VariableTracker:
    """`vt`, a choice between Python numbers and NumPy scalars of one dtype, as that NumPy
    scalar where `other` is an array or a NumPy scalar (no Python number) whose promotion
    with either gives one dtype: `0.0 / col_sq[j]` is then `np.float64(0.0) / col_sq[j]`
    exactly, since NumPy computes both. Anything else is returned as it is."""
    if not isinstance(vt, ChoiceVariable) or not isinstance(other, ArrayVariable) \
            or other.value.weak or other.value.graph is not graph:
        return vt
    numbers = _numbers(graph, vt)
    if numbers is None or len({v.dtype for v in numbers}) != 1 \
            or numbers[0].dtype.kind not in _WEAK_TYPES:
        return vt
    dtype = numbers[0].dtype
    if np.result_type(dtype, other.value.dtype) != np.result_type(
            other.value.dtype, _WEAK_TYPES[dtype.kind](0)):
        return vt
    return ArrayVariable(_picked(graph, vt, dtype))
