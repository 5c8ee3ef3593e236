"""Python's scalar builtins on loop values inside a loop body: `int(a[i])`, `float(s)`,
`min(x, y, z)`, `max(...)`, computed by graph ops with Python's semantics."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.graph import Value
from ember.graph.dtypes import WEAK_DTYPES

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

_NUMBER_KINDS = "biuf"


def in_body(tx: Interpreter) -> bool:
    return tx.graph.parent is not None


def _scalar_value(tx: Interpreter, vt: VariableTracker) -> Value | None:
    if isinstance(vt, ArrayVariable) and not vt.value.shape and (
            vt.value.dtype.kind in _NUMBER_KINDS):
        return vt.value
    if isinstance(vt, ConstantVariable) and type(vt.constant()) in (bool, int, float):
        return tx.graph.const(vt.constant())
    return None


def convert(tx: Interpreter, kind: type, vt: VariableTracker) -> VariableTracker | None:
    """`int(v)` / `float(v)` of a 0-d value: a Python int or float (a weak graph value);
    `int` truncates toward zero as Python does."""
    value = _scalar_value(tx, vt)
    if value is None:
        return None
    dtype = WEAK_DTYPES[kind]
    if value.weak and value.dtype == dtype:
        return ArrayVariable(value)
    return ArrayVariable(tx.graph.op("astype", [value], dtype=dtype, weak=True))


def min_max(tx: Interpreter, fn: Any, items: list[VariableTracker], *,
            exact: bool = False) -> VariableTracker | None:
    """`min(a, b, ...)`: the first item no later item is less than (`max`: greater than),
    compared as Python compares them, so NaNs and ties pick what Python picks.

    With `exact` (outside a loop body) the items must all be NumPy scalars of one dtype or
    all Python numbers of one type, so the type of the object returned never depends on the
    data."""
    values = [_scalar_value(tx, item) for item in items]
    if len(values) < 2 or any(v is None for v in values):
        return None
    if exact and (len({(v.dtype, v.weak) for v in values if v is not None}) > 1
                  or all(isinstance(i, ConstantVariable) for i in items)):
        return None
    strong = {v.dtype for v in values if v is not None and not v.weak}
    if len(strong) > 1 or (strong and any(
            v is not None and v.weak and v.dtype.kind != next(iter(strong)).kind
            for v in values)):
        return None  # the object returned, so its type, would depend on the data
    graph = tx.graph
    best = values[0]
    assert best is not None
    for value in values[1:]:
        assert value is not None
        better = graph.op("lt" if fn is min else "gt", [value, best])
        weak = value.weak and best.weak and value.dtype == best.dtype
        # Python returns one of the objects itself: a NumPy scalar unless both are Python
        # numbers (a mix of the two has a type that depends on the data; the NumPy scalar,
        # what the body's carried value becomes on its first trip, is taken).
        chosen = graph.op("where", [better, value, best], scalar=not weak)
        if weak:
            chosen = graph.op("astype", [chosen], dtype=np.dtype(chosen.dtype), weak=True)
        best = chosen
    return ArrayVariable(best)
