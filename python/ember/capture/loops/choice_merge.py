"""A branch in a loop body whose paths leave a local as a choice of two numbers of two types
on one path (`best`, a Python int or an int32 as earlier trips decided) and as a number of
one of those types, or the same choice, on the other (`if total > best: best = total`).

NumPy and Python keep each type: the merged local is again a `ChoiceVariable` of the same two
types, its flag, and each side, merged by the `if` op like any number (a path that leaves a
number of one type gives the other side a placeholder, never read, and a constant flag).
So the local keeps the form a loop op carries it in (`tuples._choice_end`), trip after trip.
Anything else (a third type, a side that is not a number of the path) gives None, and the
merge refuses the loop op as before."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.choice import ChoiceVariable, flattened
from ember.capture.variables.constant import ConstantVariable
from ember.graph import Graph, Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.capture.loops.branches import Path

Kind = tuple  # (dtype, weak, scalar)


def _kind(v: Value) -> Kind:
    return (v.dtype, v.weak, v.scalar)


def _number(region: Graph, vt: VariableTracker) -> Value | None:
    """A path's 0-d number as a value of its region (a Python number a weak constant)."""
    if isinstance(vt, ConstantVariable) and type(vt.constant()) in (int, float):
        return region.const(vt.constant(), weak=True)
    if isinstance(vt, ArrayVariable) and vt.value.graph is region and not vt.value.shape \
            and (vt.value.weak or vt.value.scalar) and vt.value.dtype.kind in "iuf":
        return vt.value
    return None


def _sides(region: Graph, vt: VariableTracker) -> list[Value] | None:
    """The flag and the two sides of a choice of two numbers of two types made in `region`
    (nested choices flattened first)."""
    if not isinstance(vt, ChoiceVariable):
        return None
    flat = flattened(region, vt)
    if not isinstance(flat, ChoiceVariable) or not isinstance(flat.flag, ArrayVariable):
        return None
    values = [flat.flag.value, *(_number(region, s) for s in (flat.if_true, flat.if_false))]
    if any(v is None or v.graph is not region or v.shape for v in values):
        return None
    if values[0].dtype != np.bool_ or _kind(values[1]) == _kind(values[2]):
        return None
    return values  # type: ignore[return-value]


def _placeholder(region: Graph, kind: Kind) -> Value:
    from ember.capture.loops.tuples import _zero

    return _zero(region, kind[0], kind[1], kind[2])


def _pick_flag(tx: Interpreter, path: Path, other: Path, entries: list, v: Value,
               python: Kind) -> Value | None:
    """Where `v`, a path's parameter, stands for a `max()`/`min()` pick of the enclosing
    body (an int32, or the Python int of the same value: `v = max(0, H[i - 1, j - 1] + s)`)
    that meets a choice whose other side is that Python int: the pick's flag, made a new
    operand of the branch, as the path's parameter; the pick's value the path returns is
    then no use that tells (`mixed_picks.pass_on`: the choice's flag says which it is)."""
    from ember.capture.loops import mixed_picks
    from ember.capture.loops.region import BodyArray

    region = path.region
    if len(region.inputs) != len(entries) or not any(p is v for p in region.inputs):
        return None
    k = next(k for k, p in enumerate(region.inputs) if p is v)
    outer = entries[k].value
    pick = next((p for p in mixed_picks.picks(tx.graph) if p.value is outer), None)
    if pick is None or python != (np.dtype(np.int64) if v.dtype.kind in "iu"
                                  else np.dtype(np.float64), True, False):
        return None
    fits = v.dtype.kind == "i" or (v.dtype.kind == "u" and v.dtype.itemsize < 8)
    if not (fits or mixed_picks.exact(v)):
        return None  # a float32 pick's Python float is not the scalar's value
    if len(other.region.inputs) != len(entries):
        return None
    flag = ArrayVariable(pick.python)
    for each in (path, other):
        each.inner[id(flag)] = BodyArray(each.region.add_input(
            np.bool_, (), weak=False, scalar=pick.python.scalar), False)
    entries.append(flag)
    mixed_picks.pass_on(region, v)
    return path.inner[id(flag)].value


def _as_choice(tx: Interpreter, path: Path, other: Path, entries: list,
               vt: VariableTracker, kinds: tuple[Kind, Kind]) -> list[Value] | None:
    """`vt` as the flag and sides of a choice of `kinds` in `path`, or None."""
    region = path.region
    sides = _sides(region, vt)
    if sides is not None:
        flag, x, y = sides
        if (_kind(x), _kind(y)) == kinds:
            return sides
        if (_kind(y), _kind(x)) == kinds:
            return [region.op("logical_not", [flag]), y, x]
        return None
    v = _number(region, vt)
    if v is None:
        return None
    for first in (True, False):
        own, python = kinds if first else kinds[::-1]
        if _kind(v) == own and not v.weak and (
                flag := _pick_flag(tx, path, other, entries, v, python)) is not None:
            numpy = region.op("logical_not", [flag])
            as_python = region.op("astype", [v], dtype=python[0], weak=True)
            return [numpy, v, as_python] if first else [flag, as_python, v]
    if _kind(v) == kinds[0]:
        return [region.const(True, np.bool_, weak=False), v, _placeholder(region, kinds[1])]
    if _kind(v) == kinds[1]:
        return [region.const(False, np.bool_, weak=False), _placeholder(region, kinds[0]), v]
    return None


def parts(tx: Interpreter, entries: list, then: Path, orelse: Path, x: VariableTracker,
          y: VariableTracker) -> list[tuple[Value, Value]] | None:
    """Where at least one path of a branch in a loop body leaves a choice of two numbers of
    two types and the other that choice's types: per part (flag, first side, second side)
    the two paths' values; else None."""
    from ember.capture.loops import frame_branches

    if frame_branches.at_frame_level(tx):
        return None
    for path, vt in ((then, x), (orelse, y)):
        sides = _sides(path.region, vt)
        if sides is not None:
            kinds = (_kind(sides[1]), _kind(sides[2]))
            break
    else:
        return None
    a = _as_choice(tx, then, orelse, entries, x, kinds)
    b = _as_choice(tx, orelse, then, entries, y, kinds)
    if a is None or b is None:
        return None
    return list(zip(a, b, strict=True))
