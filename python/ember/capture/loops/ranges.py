"""`range(...)` whose bounds are loop values (`range(i)`, `range(i + 1, n)` in a loop body):
known only at run time, so a loop over one is always a loop op with those bounds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ember.capture.breaks import graph_break
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.capture.variables.containers import IteratorVariable
from ember.graph import Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter


class DynamicRangeVariable(VariableTracker):
    """`range(lo, hi, step)` with 0-d integer graph values as bounds."""

    def __init__(self, lo: Value, hi: Value, step: Value) -> None:
        self.bounds = (lo, hi, step)

    def type_name(self) -> str:
        return "range"

    def python_type(self) -> type:
        return range

    def describe(self) -> str:
        return "a range() with run-time bounds"


class DynamicRangeIterator(IteratorVariable):
    """The iterator over a `DynamicRangeVariable`: it has no items capture could unroll."""

    def __init__(self, origin: DynamicRangeVariable) -> None:
        super().__init__([])
        self.origin = origin


def dynamic_range(tx: Interpreter, args: list[VariableTracker]) -> DynamicRangeVariable | None:
    """`range(*args)` inside a loop body when a bound is a loop value, else None."""
    from ember.capture.variables.array import ArrayVariable

    if tx.graph.parent is None or not 1 <= len(args) <= 3:
        return None
    values: list[Value] = []
    dynamic = False
    for arg in args:
        if isinstance(arg, ArrayVariable) and not arg.value.shape and (
                arg.value.dtype.kind in "iu"):
            values.append(arg.value)
            dynamic = True
        elif isinstance(arg, ConstantVariable) and type(arg.constant()) is int:
            values.append(tx.graph.const(arg.constant()))
        else:
            return None
    if not dynamic:
        return None
    if len(values) == 1:
        values.insert(0, tx.graph.const(0))
    if len(values) == 2:
        values.append(tx.graph.const(1))
    if values[2].graph is not None and _constant_zero(tx, values[2]):
        raise graph_break("user_error", type="ValueError",
                          message="range() arg 3 must not be zero")
    return DynamicRangeVariable(*values)


def _constant_zero(tx: Interpreter, value: Value) -> bool:
    for node in reversed(tx.graph.nodes):
        if node.out is value:
            return node.op == "const" and node.attrs["value"] == 0
    return False
