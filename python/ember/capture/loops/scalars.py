"""Python's scalar builtins on loop values inside a loop body: `int(a[i])`, `float(s)`,
`min(x, y, z)`, `max(...)`, `round(v)`, `not v`, and `math` functions (`math.sqrt(v)`,
`math.floor(v)`, `math.isnan(v)`, `math.erf(v)`), computed by graph ops with Python's semantics."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.loops import mixed_picks, special
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.graph import Graph, Value
from ember.graph.dtypes import WEAK_DTYPES

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

_NUMBER_KINDS = "biuf"


def in_body(tx: Interpreter) -> bool:
    return tx.graph.parent is not None


def raises_like_python(tx: Interpreter) -> bool:
    """Whether `math` functions of graph values keep Python's exceptions here (outside loop
    bodies, on the paths of branches there too), rather than giving NaN where Python raises
    as in loop bodies (as `/` of Python floats there does)."""
    from ember.capture.loops.frame_branches import at_frame_level

    return tx.graph.parent is None or at_frame_level(tx)


def scalar_value(tx: Interpreter, vt: VariableTracker) -> Value | None:
    if isinstance(vt, ArrayVariable) and not vt.value.shape and (
            vt.value.dtype.kind in _NUMBER_KINDS):
        return vt.value
    if isinstance(vt, ConstantVariable) and type(vt.constant()) in (bool, int, float):
        return tx.graph.const(vt.constant())
    return None


def convert(tx: Interpreter, kind: type, vt: VariableTracker) -> VariableTracker | None:
    """`int(v)` / `float(v)` of a 0-d value: a Python int or float (a weak graph value);
    `int` truncates toward zero as Python does."""
    from ember.capture.loops import python_checks

    value = scalar_value(tx, vt)
    if value is None:
        return None
    dtype = WEAK_DTYPES[kind]
    if value.weak and value.dtype == dtype:
        return ArrayVariable(value)
    if kind is int and value.dtype.kind == "f":
        value = python_checks.to_int(tx, value)
    elif kind is int and value.dtype == np.uint64:
        value = python_checks.uint64_to_int(tx, value)
    return ArrayVariable(tx.graph.op("astype", [value], dtype=dtype, weak=True))


def round_to_int(tx: Interpreter, vt: VariableTracker) -> VariableTracker | None:
    """`round(v)`: the nearest int, halves to even (a NumPy float's `__round__` too)."""
    from ember.capture.loops import python_checks

    value = scalar_value(tx, vt)
    if value is None or isinstance(vt, ConstantVariable):
        return None
    if value.dtype.kind in "biu":
        return convert(tx, int, vt)
    rounded = python_checks.to_int(tx, tx.graph.op("rint", [value]))
    return ArrayVariable(tx.graph.op("astype", [rounded], dtype=np.int64, weak=True))


def min_max(tx: Interpreter, fn: Any, items: list[VariableTracker], *,
            exact: bool = False) -> VariableTracker | None:
    """`min(a, b, ...)`: the first item no later item is less than (`max`: greater than),
    compared as Python compares them, so NaNs and ties pick what Python picks.

    With `exact` (outside a loop body) the items must all be NumPy scalars of one dtype or
    all Python numbers of one type, so the type of the object returned never depends on the
    data."""
    values = [scalar_value(tx, item) for item in items]
    if len(values) < 2 or any(v is None for v in values):
        return None
    if exact and (len({(v.dtype, v.weak) for v in values if v is not None}) > 1
                  or all(isinstance(i, ConstantVariable) for i in items)):
        return None
    strong = {v.dtype for v in values if v is not None and not v.weak}
    if not strong and len({v.dtype for v in values if v is not None}) > 1:
        return None  # Python numbers of two types: which one's type Python returns varies
    if len(strong) > 1 or (strong and any(
            v is not None and v.weak and v.dtype.kind != next(iter(strong)).kind
            for v in values)):
        return None  # the object returned, so its type, would depend on the data
    graph = tx.graph
    if strong and next(iter(strong)).kind in "iu":
        _python_ints_fit(tx, next(iter(strong)), [v for v in values if v is not None and v.weak])
    best = values[0]
    assert best is not None
    python = _picked_python(graph, best)
    for value in values[1:]:
        assert value is not None
        better = graph.op("lt" if fn is min else "gt", [value, best])
        weak = value.weak and best.weak and value.dtype == best.dtype
        # Python returns one of the objects itself: a NumPy scalar unless both are Python
        # numbers. A mix is computed as the NumPy scalar, with a flag that says where the
        # Python number was picked (`mixed_picks`).
        chosen = graph.op("where", [better, value, best], scalar=not weak)
        if weak:
            chosen = graph.op("astype", [chosen], dtype=np.dtype(chosen.dtype), weak=True)
        python = _either(graph, better, _picked_python(graph, value), python)
        best = chosen
    if isinstance(python, Value):
        mixed_picks.record(tx, best, python)
    return ArrayVariable(best)


def _python_ints_fit(tx: Interpreter, dtype: np.dtype, ints: list[Value]) -> None:
    """Python ints compared with NumPy ints of `dtype` (`min(v[i] + 1, vmax)`, `v` int32):
    the graph holds them as `dtype`, so where one is out of its range the frame runs as
    Python (which compares, and raises where it is stored, as NumPy does)."""
    from ember.capture.loops import frame_branches

    if dtype == np.dtype(np.int64):
        return
    graph = tx.graph
    info = np.iinfo(dtype)
    for value in ints:
        if value.dtype.kind not in "iu":
            continue
        low = graph.op("lt", [value, graph.const(int(info.min), np.int64, weak=False)])
        high = graph.op("gt", [value, graph.const(int(info.max), np.int64, weak=False)])
        frame_branches.add_check(tx, graph.op("logical_or", [low, high]))


def _picked_python(graph: Graph, value: Value) -> bool | Value:
    """Whether `value`, an item of `max()`, is a Python number: a pick's result may be."""
    if value.weak:
        return True
    flag = mixed_picks.flag_of(graph, value)
    if flag is None and mixed_picks.stands_for_a_flagged(graph, value):
        raise graph_break("loop_body", what="max() or min() in a branch of a local that may "
                                            "still be a Python number")
    return flag or False


def _either(graph: Graph, cond: Value, a: bool | Value, b: bool | Value) -> bool | Value:
    if a is b or (isinstance(a, bool) and a == b):
        return a
    const = lambda v: graph.const(v, np.bool_, weak=False) if isinstance(v, bool) else v  # noqa: E731
    return graph.op("where", [cond, const(a), const(b)], scalar=True)


def logical_not(tx: Interpreter, vt: VariableTracker) -> VariableTracker | None:
    """`not v` of a 0-d loop value: a Python bool."""
    value = scalar_value(tx, vt)
    if value is None or isinstance(vt, ConstantVariable):
        return None
    from ember.capture.loops.branches import _truth

    negated = tx.graph.op("logical_not", [_truth(tx, value)])
    return ArrayVariable(tx.graph.op("astype", [negated], dtype=np.bool_, weak=True))


# `math` functions of floats: the ufunc of the same values (Python floats in, a Python float
# out). Out of their domain (`math.sqrt(-1.0)`, `math.exp(1000.0)`) Python raises where the
# ufunc gives NaN or infinity with NumPy's warning, as `/` of Python floats in a body does.
_FLOAT_MATH = {
    math.sqrt: "sqrt", math.exp: "exp", math.log: "log", math.log10: "log10",
    math.log2: "log2", math.log1p: "log1p", math.expm1: "expm1", math.sin: "sin",
    math.cos: "cos", math.tan: "tan", math.asin: "arcsin", math.acos: "arccos",
    math.atan: "arctan", math.sinh: "sinh", math.cosh: "cosh", math.tanh: "tanh",
    math.asinh: "arcsinh", math.acosh: "arccosh", math.atanh: "arctanh", math.fabs: "abs",
    math.atan2: "arctan2", math.hypot: "hypot", math.pow: "pow", math.copysign: "copysign",
}
_INT_MATH = {math.floor: "floor", math.ceil: "ceil", math.trunc: "trunc"}  # Python ints
_BOOL_MATH = {math.isnan: "isnan", math.isinf: "isinf", math.isfinite: "isfinite"}
# Functions with no op of their own, composed of elementwise ops; defined everywhere.
_COMPOSED_MATH = {
    math.erf: special.erf, math.erfc: special.erfc,
    # CPython's `x * (180.0 / pi)` and `x * (pi / 180.0)`, an infinity past the range.
    math.degrees: lambda graph, x: graph.op("mul", [x, graph.const(180.0 / math.pi)]),
    math.radians: lambda graph, x: graph.op("mul", [x, graph.const(math.pi / 180.0)]),
}


# Outside loop bodies, Python's exception is kept: where a function's domain is decided by
# its argument, the argument out of it -- (comparison, of its absolute value?, bound) -- is a
# run-time check that runs the frame as plain Python (`Tracer.rerun_checks`), and the op
# computes on `safe` instead, so that no NumPy warning comes first. Others stay in Python.
_EXP_MAX = math.log(np.finfo(np.float64).max)  # 709.78...: the last x of a finite exp(x)
_SINH_MAX = math.asinh(np.finfo(np.float64).max)
# In loop bodies also: past these the result overflows, and Python raises OverflowError.
_OVERFLOWS = {
    math.exp: ("gt", False, _EXP_MAX, 0.0), math.expm1: ("gt", False, _EXP_MAX, 0.0),
    math.cosh: ("gt", True, _SINH_MAX, 0.0), math.sinh: ("gt", True, _SINH_MAX, 0.0),
}
# Checked by what they compute rather than by their argument's domain: a Python int's
# conversion (`python_checks.to_int`), an overflow (`_OVERFLOWS`, `checked_power`).
_CHECKED_OUTSIDE = {*_INT_MATH, *_OVERFLOWS, math.pow}
_DOMAINS = {
    math.sqrt: ("lt", False, 0.0, 1.0), math.log: ("le", False, 0.0, 1.0),
    math.log10: ("le", False, 0.0, 1.0), math.log2: ("le", False, 0.0, 1.0),
    math.log1p: ("le", False, -1.0, 0.0), math.asin: ("gt", True, 1.0, 0.0),
    math.acos: ("gt", True, 1.0, 0.0), math.acosh: ("lt", False, 1.0, 1.0),
    math.atanh: ("ge", True, 1.0, 0.0), math.sin: ("eq", True, math.inf, 0.0),
    math.cos: ("eq", True, math.inf, 0.0), math.tan: ("eq", True, math.inf, 0.0),
    math.atan: None, math.tanh: None, math.asinh: None, math.fabs: None,
    math.atan2: None, math.copysign: None,
}


def math_call(tx: Interpreter, fn: Any, args: list[VariableTracker], *,
              checked: bool = False) -> VariableTracker | None:
    """`math.f(v, ...)` of loop values and Python numbers, or None where there is no rule.
    `checked` (outside loop bodies): only functions of `_DOMAINS`, raising as Python does."""
    from ember.capture.loops import python_checks
    from ember.graph.ops import OPS

    if fn is math.dist:
        return _dist(tx, args)
    args = [_from_python(a) for a in args]
    if fn in _COMPOSED_MATH:
        return _composed(tx, fn, args)
    op = _FLOAT_MATH.get(fn) or _INT_MATH.get(fn) or _BOOL_MATH.get(fn)
    values = [scalar_value(tx, a) for a in args]
    if op is None or any(v is None for v in values) or len(values) != OPS[op].arity:
        return None
    if checked and not (fn in _DOMAINS or fn in _BOOL_MATH or fn in _CHECKED_OUTSIDE):
        return None
    graph = tx.graph
    if fn in _INT_MATH and all(v.dtype.kind in "biu" for v in values):  # type: ignore[union-attr]
        return convert(tx, int, args[0])  # an int's floor is itself
    floats = [graph.op("astype", [v], dtype=np.float64, weak=True) for v in values]
    # Checked in loop bodies too: a failed check is carried out of the loop op (region.py).
    domain = _DOMAINS.get(fn) or _OVERFLOWS.get(fn)
    if domain is not None:
        floats = [_in_domain(tx, floats[0], *domain)]
    result = graph.op(op, floats)
    if op == "pow":
        result = python_checks.checked_power(tx, *floats, result)
    kind = int if fn in _INT_MATH else bool if fn in _BOOL_MATH else float
    if kind is int:
        result = python_checks.to_int(tx, result)
    return ArrayVariable(graph.op("astype", [result], dtype=WEAK_DTYPES[kind], weak=True))


def _from_python(vt: VariableTracker) -> VariableTracker:
    """A Python number known only at run time (a float argument that differs between calls,
    `T / N` of such): the weak graph input the entry computes, so that `math.sqrt(dt)` is a
    graph op checked like any other rather than a break."""
    from ember.capture.variables.scalar import PythonScalarVariable

    if isinstance(vt, PythonScalarVariable) and vt.python_class in (bool, int, float):
        return ArrayVariable(vt.graph_value())
    return vt


def _composed(tx: Interpreter, fn: Any, args: list[VariableTracker]) -> VariableTracker | None:
    value = scalar_value(tx, args[0]) if len(args) == 1 else None
    if value is None:
        return None
    x = tx.graph.op("astype", [value], dtype=np.float64, weak=True)
    return ArrayVariable(_COMPOSED_MATH[fn](tx.graph, x))


def _in_domain(tx: Interpreter, x: Value, compare: str, absolute: bool, bound: float,
               safe: float) -> Value:
    """`x`, checked to be in a `math` function's domain at run time (else the frame reruns
    as Python, which raises), with `safe` in its place where it is not."""
    from ember.capture.loops import frame_branches

    graph = tx.graph
    outside = graph.op(compare, [graph.op("abs", [x]) if absolute else x, graph.const(bound)])
    frame_branches.add_check(tx, outside)
    return graph.op("where", [outside, graph.const(safe), x], scalar=True)


def _coordinates(tx: Interpreter, vt: VariableTracker) -> list[Value] | None:
    """The numbers `math.dist` reads of a point: the elements of a 1-d array of a static
    length (a row of a loop body's vector included) or the items of a tuple of numbers, each
    as Python's `float()` of it (a float64)."""
    from ember.capture.loops.vectors import VectorVariable
    from ember.capture.variables.containers import TupleVariable

    values: list[Value | None]
    if isinstance(vt, VectorVariable):
        values = list(vt.elements)
    elif isinstance(vt, ArrayVariable) and vt.value.ndim == 1 and (
            isinstance(vt.value.shape[0], int) and vt.value.shape[0] <= _MOST_COORDINATES):
        values = [scalar_value(tx, vt.getitem(tx, ConstantVariable(k)))
                  for k in range(vt.value.shape[0])]
    elif isinstance(vt, TupleVariable):
        values = [scalar_value(tx, item) for item in vt.items]
    else:
        return None
    if len(values) > _MOST_COORDINATES or any(v is None or v.dtype.kind not in "iuf"
                                              for v in values):
        return None
    return [tx.graph.op("astype", [v], dtype=np.float64, weak=True) for v in values]


_MOST_COORDINATES = 16


def _dist(tx: Interpreter, args: list[VariableTracker]) -> VariableTracker | None:
    """`math.dist(p, q)` of two points of the same static number of coordinates: the
    differences in float64 (as CPython's `px - qx` of doubles), then their Euclidean norm
    as chained `hypot`s, which overflow and underflow only where the norm does; an infinite
    difference gives infinity, a NaN one NaN otherwise, as CPython's `vector_norm`. Points
    of different lengths, or of anything but numbers, are left to Python (which raises)."""
    if len(args) != 2:
        return None
    p, q = _coordinates(tx, args[0]), _coordinates(tx, args[1])
    if p is None or q is None or len(p) != len(q):
        return None
    graph = tx.graph
    diffs = [graph.op("abs", [graph.op("sub", [a, b])]) for a, b in zip(p, q)]
    if not diffs:
        return ArrayVariable(graph.const(0.0))
    norm = diffs[0]
    for d in diffs[1:]:
        norm = graph.op("hypot", [norm, d])
    return ArrayVariable(graph.op("astype", [norm], dtype=WEAK_DTYPES[float], weak=True))
