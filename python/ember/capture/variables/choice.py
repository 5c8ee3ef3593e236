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
    """`vt`, a choice between Python numbers and NumPy scalars, as one NumPy scalar where
    `other` is an array or a NumPy scalar (no Python number) whose promotion with either
    gives one dtype: `0.0 / col_sq[j]` is then `np.float64(0.0) / col_sq[j]` exactly, since
    NumPy computes both; `c + cost[j]` of a Python float or an int64 `c` is the float64 of
    either plus `cost[j]`, since NumPy casts both to float64 first. Anything else is
    returned as it is."""
    if not isinstance(vt, ChoiceVariable) or not isinstance(other, ArrayVariable) \
            or other.value.weak or other.value.graph is not graph:
        return vt
    numbers = _numbers(graph, vt)
    if numbers is None or any(v.dtype.kind not in _WEAK_TYPES for v in numbers):
        return vt
    if len({v.dtype for v in numbers}) == 1:
        dtype = numbers[0].dtype
        if np.result_type(dtype, other.value.dtype) != np.result_type(
                other.value.dtype, _WEAK_TYPES[dtype.kind](0)):
            return vt
        return ArrayVariable(_picked(graph, vt, dtype))
    sides = _sides(vt)
    if sides is None:
        return vt
    dtypes = {_promoted(v, other.value.dtype) for v in sides}
    (dtype,) = dtypes if len(dtypes) == 1 else (None,)
    if dtype is None or not all(_exactly(v, dtype) for v in sides):
        return vt
    return ArrayVariable(_pick_as(graph, vt, [graph.op("astype", [v], dtype=dtype, weak=False,
                                                       scalar=True) for v in sides]))


def mixed(x: Value, y: Value) -> bool:
    """Whether two paths' values are a Python number and a NumPy scalar of another dtype
    (a Python int and an int32, a Python float and an int64), numbers both."""
    return (not x.shape and not y.shape and x.weak != y.weak and x.dtype != y.dtype
            and (x.scalar or x.weak) and (y.scalar or y.weak)
            and x.dtype.kind in "iuf" and y.dtype.kind in "iuf")


def stored(tx: Any, vt: VariableTracker, dtype: np.dtype) -> VariableTracker:
    """`vt`, a choice of two numbers about to be stored into an array of `dtype`, as the
    element each side would store, converted (and checked) as NumPy converts it
    (`python_checks.storable`), picked by the flag. Anything else is returned as it is."""
    from ember.capture.loops import python_checks

    sides = _sides(vt) if isinstance(vt, ChoiceVariable) else None
    if sides is None or dtype.kind not in "iufb" or any(
            v.graph is not tx.graph for v in sides):
        return vt
    graph = tx.graph
    elements = [graph.op("astype", [python_checks.storable(tx, dtype, v)], dtype=dtype,
                         weak=False, scalar=True) for v in sides]
    return ArrayVariable(_pick_as(graph, vt, elements))


def parts(vt: ChoiceVariable) -> list[Value] | None:
    """The flag and the two 0-d values of a choice of two numbers (no nested choice)."""
    sides = _sides(vt)
    return None if sides is None else [vt.flag.value, *sides]  # type: ignore[attr-defined]


def _sides(vt: ChoiceVariable) -> list[Value] | None:
    """The two 0-d values of a choice of two numbers (no nested choice)."""
    sides = [s.value if isinstance(s, ArrayVariable) and not s.value.shape else None
             for s in (vt.if_true, vt.if_false)]
    if None in sides or not isinstance(vt.flag, ArrayVariable):
        return None
    return sides  # type: ignore[return-value]


def _promoted(v: Value, other: np.dtype) -> np.dtype:
    """The dtype NumPy computes `v` (a Python number where weak) with a value of `other` in."""
    return np.result_type(other, _WEAK_TYPES[v.dtype.kind](0)) if v.weak else np.result_type(
        v.dtype, other)


def _exactly(v: Value, dtype: np.dtype) -> bool:
    """Whether converting `v` to `dtype` first is what NumPy does: a NumPy scalar's dtype
    promotes to it; a Python number converts to int64 or float64 as NumPy converts it (a
    narrower type could refuse it, or round it where NumPy warns)."""
    return not v.weak or dtype in (np.dtype(np.int64), np.dtype(np.float64))


def _pick_as(graph: Graph, vt: ChoiceVariable, values: list[Value]) -> Value:
    return graph.op("where", [vt.flag.value, *values], scalar=True)  # type: ignore[attr-defined]


# Operators whose result keeps each side's type and that check nothing at run time a side
# not taken (its placeholder, 0) could fail: lifted over a choice (`lift`). Division, `%`,
# `**` and shifts of Python ints check their operands, so they are not.
LIFTED = frozenset({"+", "-", "*", "&", "|", "^", "==", "!=", "<", "<=", ">", ">="})


def liftable(graph: Graph, vt: VariableTracker) -> bool:
    """A choice of numbers (nested choices too) whose flags this graph computed."""
    return isinstance(vt, ChoiceVariable) and _numbers(graph, vt) is not None


def lift(tx: Any, vt: ChoiceVariable, fn: Any) -> VariableTracker | None:
    """`fn` of each side of a choice, as a choice on the same flag: an operator on a value
    that is a Python number on one path and a NumPy scalar on the other keeps each path's
    type (`up == 0` is a Python bool or a NumPy bool, `max(up, left)` either number). Where
    both results are numbers of one type they are one value, picked by the flag. The
    run-time checks each side adds hold only where the flag picks that side: the side not
    picked computes from a placeholder. None where a side's result is not a tracker."""
    graph, flag = tx.graph, vt.flag.value  # type: ignore[attr-defined]
    x, checks_x = _with_checks(tx, lambda: fn(vt.if_true))
    y, checks_y = _with_checks(tx, lambda: fn(vt.if_false))
    _gate_checks(tx, flag, checks_x, checks_y)
    if not isinstance(x, VariableTracker) or not isinstance(y, VariableTracker):
        return None
    return flattened(graph, ChoiceVariable(vt.flag, x, y))


def _kind(v: Value) -> tuple:
    return (v.dtype, v.weak, v.scalar)


def flattened(graph: Graph, vt: ChoiceVariable) -> VariableTracker:
    """A choice of numbers (nested ones included) as one number where every side is of one
    type, as a choice of two numbers of two types where they are of two (the flag: the side
    picked is of the first type), else as it is."""
    numbers = _numbers(graph, vt)
    if numbers is None:
        return vt
    kinds = list(dict.fromkeys(_kind(v) for v in numbers))
    if len(kinds) > 2 or any(v.shape for v in numbers):
        return vt

    def pick_of(kind: tuple) -> Value:
        from ember.capture.loops.returns import placeholder

        def leaf(v: Value) -> Value:
            return v if _kind(v) == kind else placeholder(graph, next(
                n for n in numbers if _kind(n) == kind))
        return _each_leaf(graph, vt, leaf, kind[2])

    if len(kinds) == 1:
        return ArrayVariable(pick_of(kinds[0]))
    if not isinstance(vt.if_true, ChoiceVariable) and not isinstance(vt.if_false, ChoiceVariable):
        return vt
    first = _each_leaf(graph, vt, lambda v: graph.const(_kind(v) == kinds[0], np.bool_,
                                                         weak=False), True)
    return ChoiceVariable(ArrayVariable(first), ArrayVariable(pick_of(kinds[0])),
                          ArrayVariable(pick_of(kinds[1])))


def _each_leaf(graph: Graph, vt: VariableTracker, leaf: Any, scalar: bool) -> Value:
    """`leaf` of each number of a choice, picked by its flags (`where`, keeping the leaves'
    type: a weak result stays weak)."""
    if isinstance(vt, ChoiceVariable):
        x, y = (_each_leaf(graph, s, leaf, scalar) for s in (vt.if_true, vt.if_false))
        picked = graph.op("where", [vt.flag.value, x, y], scalar=scalar)  # type: ignore[attr-defined]
        if picked.weak != x.weak:
            picked = graph.op("astype", [picked], dtype=x.dtype, weak=x.weak, scalar=scalar)
        return picked
    return leaf(_numbers(graph, vt)[0])  # type: ignore[index]


def _with_checks(tx: Any, compute: Any) -> tuple[Any, object]:
    """`compute()`, and the run-time checks it added, taken back out: in a loop body the
    `.rerun` local it left (None where it had none), at the frame's level the checks it
    appended."""
    from ember.capture.loops.frame_branches import RERUN

    if tx.graph.parent is None:
        checks = tx.tracer.rerun_checks
        count = len(checks)
        result = compute()
        added = checks[count:]
        del checks[count:]
        return result, added
    prior = tx.locals.get(RERUN)
    result = compute()
    after = tx.locals.get(RERUN)
    if prior is None:
        tx.locals.pop(RERUN, None)
    else:
        tx.locals[RERUN] = prior
    return result, after


def _gate_checks(tx: Any, flag: Value, checks_x: Any, checks_y: Any) -> None:
    """Each side's checks (`_with_checks`) where the flag picks that side."""
    from ember.capture.loops.frame_branches import RERUN

    graph = tx.graph
    if graph.parent is None:
        not_flag = graph.op("logical_not", [flag])
        for checks, taken in ((checks_x, flag), (checks_y, not_flag)):
            for failed in checks:
                tx.tracer.rerun_checks.append(graph.op("logical_and", [failed, taken]))
        return
    prior = tx.locals.get(RERUN)
    if checks_x is prior and checks_y is prior:
        return
    false = graph.const(False, np.bool_, weak=False)
    x, y = ((c.value if c is not None else false) for c in (checks_x, checks_y))
    tx.locals[RERUN] = ArrayVariable(graph.op("where", [flag, x, y], scalar=True))


def lift_binary(tx: Any, a: VariableTracker, b: VariableTracker, fn: Any
                ) -> VariableTracker | None:
    """`fn(a, b)` lifted over whichever operand is a choice (`lift`), or None."""
    if liftable(tx.graph, a):
        return lift(tx, a, lambda side: fn(side, b))  # type: ignore[arg-type]
    if liftable(tx.graph, b):
        return lift(tx, b, lambda side: fn(a, side))  # type: ignore[arg-type]
    return None


def _each(graph: Graph, vt: VariableTracker, fn: Any) -> Value | None:
    """`fn` of each number a choice picks from, picked by its flags: one value."""
    if isinstance(vt, ChoiceVariable):
        sides = [_each(graph, s, fn) for s in (vt.if_true, vt.if_false)]
        if sides[0] is None or sides[1] is None:
            return None
        return graph.op("where", [vt.flag.value, *sides], scalar=True)  # type: ignore[attr-defined]
    numbers = _numbers(graph, vt)
    return None if numbers is None else fn(numbers[0])


def truth(graph: Graph, vt: VariableTracker) -> VariableTracker:
    """`bool()` of a choice of numbers, the same for either side's type: a NumPy bool the
    flag picks. Anything else is returned as it is."""
    if not liftable(graph, vt):
        return vt
    picked = _each(graph, vt, lambda v: graph.op("astype", [v], dtype=np.bool_, weak=False,
                                                 scalar=True))
    return vt if picked is None else ArrayVariable(picked)


def _index(graph: Graph, vt: VariableTracker) -> VariableTracker:
    """A choice of integers used as an index (`parent[x]`), where a Python int and a NumPy
    integer index alike: one int64. Anything else is returned as it is."""
    if not liftable(graph, vt) or any(
            v.dtype.kind not in "iu" for v in _numbers(graph, vt) or ()):
        return vt
    picked = _each(graph, vt, lambda v: graph.op("astype", [v], dtype=np.int64, weak=False,
                                                 scalar=True))
    return vt if picked is None else ArrayVariable(picked)


def settled_index(graph: Graph, index: VariableTracker) -> VariableTracker:
    """An index whose parts may be choices of integers (`index`), each one int64."""
    from ember.capture.variables.containers import TupleVariable

    if isinstance(index, TupleVariable) and type(index) is TupleVariable and any(
            isinstance(p, ChoiceVariable) for p in index.items):
        return TupleVariable([_index(graph, p) for p in index.items])
    return _index(graph, index)
