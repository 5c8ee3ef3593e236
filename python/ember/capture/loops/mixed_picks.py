"""`max(x[i], 0.0)` in a loop body: Python returns one of the objects itself, so the result is
a NumPy scalar or a Python number as the data decide. The body computes it as the NumPy
scalar, with a flag that says the Python number was picked, and a run-time check that runs
the frame as Python when it was (`frame_branches.add_check`).

Most uses cannot tell the two apart: a NumPy float64 and a Python float of one value compare,
store into arrays, convert and enter NumPy's math alike (`min(max(x[i], 0.0), hi)` stored in
`out[i]`). When the body is complete (`settle`), the check of a pick whose result (and what is
computed from it as Python would compute it: `-v`, `abs(v)`) meets only such uses is dropped.
A carried local that the first trip makes a NumPy scalar from a Python number (`total = 0.0`,
`total += abs(v)`) carries a flag that says it is still the Python number; the loop then
reruns the frame only when it ends so (every trip picked the Python number)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ember.capture.breaks import graph_break
from ember.graph import Graph, Value
from ember.graph.value import Node

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

# Uses whose result does not depend on whether a flagged operand is a NumPy scalar or the
# Python number of the same value.
# `logical_not` is `not v` (a Python bool either way), a `while`'s exit test, or
# `np.logical_not` (a NumPy bool either way); `~` is `bitwise_not`.
_BLIND = frozenset({"store", "load", "astype", "where", "isnan", "isinf", "isfinite",
                    "signbit", "logical_not"})
_COMPARE = frozenset({"lt", "le", "gt", "ge", "eq", "ne"})
# Ops that give a Python number for a Python number and a NumPy scalar for a NumPy scalar,
# of the same value and without a warning either way (of floats).
_FOLLOW = frozenset({"neg", "positive", "abs"})
# Binary ops where a NumPy operand of the result's dtype makes the result NumPy's either way.
_BINARY = frozenset({"add", "sub", "mul", "div", "floordiv", "mod", "pow", "maximum",
                     "minimum", "fmax", "fmin", "arctan2", "hypot", "copysign", "logaddexp"})


@dataclasses.dataclass
class Pick:
    value: Value  # the result, as the NumPy scalar
    python: Value  # true where the Python number was picked
    gate: Value  # the check is `python & gate`; `gate` becomes false when no use can tell
    merged: bool = False  # made by a branch's merge of its paths' values (`branches`)


def picks(graph: Graph) -> list[Pick]:
    found = getattr(graph, "mixed_picks", None)
    if found is None:
        found = graph.mixed_picks = []  # type: ignore[attr-defined]
    return found


def exact(value: Value) -> bool:
    """Whether the NumPy scalar holds the Python number exactly: float64 and int64 do."""
    return value.dtype in (np.dtype(np.float64), np.dtype(np.int64))


def flag_of(graph: Graph, value: Value) -> Value | None:
    """The flag of a pick's result (a `max` of a pick is a pick too), or of a carried
    parameter that may still be a Python number (`note_param`)."""
    for pick in picks(graph):
        if pick.value is value:
            return pick.python
    return getattr(graph, "python_params", {}).get(id(value))


def stands_for_a_flagged(graph: Graph, value: Value) -> bool:
    """Whether `value`, a parameter of a branch's path, may stand for a loop body's value
    that may still be a Python number: its flag does not reach the path."""
    if not any(v is value for v in graph.inputs):
        return False
    outer = graph.parent
    while outer is not None:
        if getattr(outer, "python_params", None) or picks(outer):
            return True
        outer = outer.parent
    return False


def note_param(region: Graph, param: Value, flag: Value) -> None:
    """`param`, of a carried Python number the first trip makes a NumPy scalar, is still the
    Python number where `flag` (a parameter too) holds: a `max()` of it is a pick."""
    if not hasattr(region, "python_params"):
        region.python_params = {}  # type: ignore[attr-defined]
    region.python_params[id(param)] = flag  # type: ignore[attr-defined]


def record(tx: Interpreter, value: Value, python: Value, merged: bool = False) -> None:
    """`value` is the Python number where `python` holds: run as Python there, until `settle`
    finds that no use can tell. `merged`: a branch's merge made it, its flag the path's."""
    from ember.capture.loops import frame_branches

    graph = tx.graph
    gate = graph.const(True, np.bool_, weak=False)
    frame_branches.add_check(tx, graph.op("logical_and", [python, gate]))
    picks(graph).append(Pick(value, python, gate, merged))


def only_path_picks(graph: Graph) -> bool:
    """Whether the values of `graph` (a loop body, and those enclosing it) whose type only
    the run time knows are all picks of a branch's paths, each flag exact (no `max()` pick,
    no carried local that may still be the Python number)."""
    while graph is not None:
        if getattr(graph, "python_params", None) or not all(p.merged for p in picks(graph)):
            return False
        graph = graph.parent
    return True


def result_may_be_python(tx: Interpreter, value: Value, python: Value) -> None:
    """`value`, a loop op's result, is the Python number where `python` holds: inside a loop
    body (or a path of its branches) a pick there, whose uses settle whether the frame must
    rerun; at the frame's level the frame reruns as Python where it holds."""
    from ember.capture.loops import frame_branches

    if tx.graph.parent is not None and exact(value) and not value.shape:
        record(tx, value, python)
    else:
        frame_branches.add_check(tx, python)


def settle(region: Graph, still_python: dict[int, Value], finals: dict[int, Value]
           ) -> dict[int, Value]:
    """Drop the checks of picks no use in `region` (a loop body, with the paths of its
    branches) can tell apart. `still_python`: per carried parameter (by id) that the first
    trip makes a NumPy scalar from a Python number, its flag (that it is still the Python
    number); `finals`: per carried parameter (by id) its value at the end of the trip.
    Returns, per such parameter, its flag at the end of the trip."""
    _settle_paths(region)
    return _settle(region, still_python, finals)


def _settle_paths(region: Graph) -> None:
    """The picks on the paths of `region`'s branches, nested ones too: a path's result is a
    use that can tell, unless the merge passed the pick's flag on (`pass_on`)."""
    for node in region.nodes:
        if node.op == "if":
            for path in (node.attrs["then"], node.attrs["else"]):
                _settle_paths(path)
                passed = getattr(path, "passed_on", set())
                _settle(path, {}, {id(out): out for out in path.outputs
                                   if id(out) not in passed})


def pass_on(path: Graph, value: Value) -> None:
    """`value`, a pick of a branch's `path` that is one of its results, is flagged after the
    branch by a pick of its own (`branches._flag_slots`): that pick follows its uses."""
    if not hasattr(path, "passed_on"):
        path.passed_on = set()  # type: ignore[attr-defined]
    path.passed_on.add(id(value))  # type: ignore[attr-defined]


def _settle(region: Graph, still_python: dict[int, Value], finals: dict[int, Value]
            ) -> dict[int, Value]:
    found = picks(region)
    if not found and not still_python:
        return {}
    flags: dict[int, Value | None] = {id(p.value): p.python for p in found if exact(p.value)}
    roots: dict[int, set[int]] = {id(p.value): {id(p.value)} for p in found}
    for param in region.inputs:
        if id(param) in still_python:
            flags[id(param)] = still_python[id(param)]
            roots[id(param)] = {id(param)}
    told: set[int] = {id(p.value) for p in found if not exact(p.value) and not _only_stored(
        region, p.value) and not _narrow_blind(region, p.value)}
    for node in list(region.nodes):
        _follow(region, node, flags, roots, told)
    ends: dict[int, Value] = {}
    for key, final in finals.items():
        if key in still_python and flags.get(id(final), False) is not None:
            ends[key] = flags.get(id(final)) or region.const(False, np.bool_, weak=False)
        elif id(final) in flags:
            told.update(roots[id(final)])  # its type leaves the trip
    if told & set(still_python):
        raise graph_break("loop_body", what="a local that is a NumPy scalar or a Python number "
                                            "as max() or min() picked, used where they differ")
    for pick in found:
        if id(pick.value) not in told:
            _open(region, pick.gate)
    return ends


def _only_stored(region: Graph, value: Value) -> bool:
    """Whether `value`, a pick of NumPy ints narrower than int64 (`min(v[i] + 1, vmax)`, its
    Python ints checked to fit: `scalars._python_ints_fit`), is only stored into arrays or
    compared with NumPy values, where the Python int of the same value does the same."""
    if value.dtype.kind not in "iu" or any(out is value for out in region.outputs):
        return False
    for node in region.nodes:
        if not any(v is value for v in (*node.inputs, *node.extra)):
            continue
        if (node.op == "store" and node.inputs[0] is not value
                and id(node.out) not in getattr(region, "objects_kept", ())):
            continue
        if node.op in _COMPARE and all(not v.weak for v in node.inputs if v is not value):
            continue
        return False
    return True


def _narrow_blind(region: Graph, value: Value) -> bool:
    """Whether `value`, a pick of NumPy ints narrower than int64 (its Python ints checked to
    fit), meets only uses that cannot tell: stores, compares (a Python bool where both
    operands are Python ints, followed on), other blind uses, and branches whose paths do the
    same or pass it on into a choice (`choice_merge`), never a result of `region`."""
    if value.dtype.kind not in "iu":
        return False
    flagged = {id(value)}
    if not _inside(region, flagged, narrow=True):
        return False
    return not any(id(out) in flagged for out in region.outputs)


# Python int ops whose value equals int64's unless int64 wraps (checked at capture).
_INT_DERIVED = frozenset({"add", "sub", "mul", "mod"})


def int_arithmetic(tx: Interpreter, result: Value) -> None:
    """`result`, an int64 op (`v - 1`, `(i + v) % n`) of a value that may be a Python int
    (a pick: `v = min(v + 1, vmax, gap)`, a path's stand-in for one, or such an op's result)
    and Python ints: the Python int where those are, of the same value unless int64 wraps,
    which a run-time check sends to Python (where the frame gives Python's int, or NumPy's
    warning where it was NumPy's scalar). `settle` then follows it as a pick's own value;
    the check's ops cannot tell. A `%` needs a divisor that is never zero."""
    from ember.capture.loops import intervals, python_checks

    graph = tx.graph
    node = graph.nodes[-1] if graph.nodes else None
    if (graph.parent is None or node is None or node.out is not result or result.shape
            or result.weak or result.dtype != np.dtype(np.int64)
            or node.op not in _INT_DERIVED or len(node.inputs) != 2):
        return
    maybe = [_may_be_python(graph, v) for v in node.inputs]
    if not any(maybe) or any(not m and not (v.weak and v.dtype.kind in "iub")
                             and (v.dtype != np.dtype(np.int64) or _numpy_element(graph, v))
                             for m, v in zip(maybe, node.inputs, strict=True)):
        return  # (a NumPy int64 read from an array makes the result NumPy's either way)
    derived = getattr(graph, "int_derived", None)
    if derived is None:
        derived = graph.int_derived = set()  # type: ignore[attr-defined]
    if node.op == "mod":
        bounds = intervals.interval(node.inputs[1])
        if bounds is None or bounds[0] <= 0 <= bounds[1]:
            return  # Python raises ZeroDivisionError where NumPy gives 0
    else:
        first = len(graph.nodes)
        failed = python_checks._int_overflow(graph, node.op, node.inputs, result)
        if failed is None:
            return
        from ember.capture.loops import frame_branches

        frame_branches.add_check(tx, failed)
        checks = getattr(graph, "int_checks", None)
        if checks is None:
            checks = graph.int_checks = set()  # type: ignore[attr-defined]
        checks.update(id(n.out) for n in graph.nodes[first:])
    derived.add(id(result))


def _element_read(graph: Graph, value: Value) -> bool:
    """Whether `value` is an element read from an array (`MS_SEGMENTS[c]`): a NumPy
    scalar, whatever the other operand (a list's items are read as their item type)."""
    node = next((n for n in reversed(graph.nodes) if n.out is value), None)
    return node is not None and node.op == "load" and not value.weak


def note_source(path: Graph, param: Value, outer: Value) -> None:
    """`param`, a parameter of a branch's `path`, stands for `outer`, a value of the
    enclosing region (`_numpy_element` follows it)."""
    if not hasattr(path, "param_sources"):
        path.param_sources = {}  # type: ignore[attr-defined]
    path.param_sources[id(param)] = outer  # type: ignore[attr-defined]


def _numpy_element(graph: Graph, value: Value, depth: int = 8) -> bool:
    """Whether `value` is an element read from an array (`_element_read`), or a branch
    path's parameter standing for one (`x[i]` read before `if v == 0:`): a NumPy scalar."""
    if _element_read(graph, value):
        return True
    outer = getattr(graph, "param_sources", {}).get(id(value))
    return (outer is not None and graph.parent is not None and depth > 0
            and _numpy_element(graph.parent, outer, depth - 1))


def _may_be_python(graph: Graph, value: Value, depth: int = 4) -> bool:
    """Whether `value` may be a Python int that a pick made: the pick, a path's stand-in
    for one, an op `int_arithmetic` made of one, or an `if` op's result either path made
    so; never an element read from an array."""
    if _numpy_element(graph, value):
        return False
    if (flag_of(graph, value) is not None or id(value) in getattr(graph, "int_derived", ())
            or stands_for_a_flagged(graph, value)):
        return True
    node = next((n for n in reversed(graph.nodes)
                 if n.out is value or any(v is value for v in n.extra)), None)
    if node is None or node.op != "if" or depth == 0:
        return False
    k = [v is value for v in (node.out, *node.extra)].index(True)
    return any(_may_be_python(node.attrs[p], node.attrs[p].outputs[k], depth - 1)
               for p in ("then", "else"))


def object_kept(graph: Graph, stored: Value) -> None:
    """`stored`, a `store` into a list's buffer: the list holds the object itself, so the
    store tells a Python number from a NumPy scalar."""
    if not hasattr(graph, "objects_kept"):
        graph.objects_kept = set()  # type: ignore[attr-defined]
    graph.objects_kept.add(id(stored))  # type: ignore[attr-defined]


def _effect(region: Graph, node: Node, flagged: Callable[[Value], bool]) -> str:
    """What `node` makes of its flagged operands (those `flagged` says may be a Python
    number): `blind` (a use that cannot tell), `derive` (a Python number where they are),
    `region` (an `if` or `loop` op, followed inside) or `tell` (a use that can tell)."""
    if id(node.out) in getattr(region, "objects_kept", ()):
        return "tell"
    if node.op in _BLIND or id(node.out) in getattr(region, "int_checks", ()):
        return "blind"  # `int_checks`: a check of an op `int_arithmetic` made
    if node.op in ("if", "loop"):
        return "region"
    if id(node.out) in getattr(region, "int_derived", ()):
        return "derive"
    if node.op in _FOLLOW and node.out.dtype.kind == "f":
        return "derive"
    others = [v for v in node.inputs if not flagged(v)]
    if node.op in _COMPARE:
        # A NumPy operand decides; else a Python bool where all are.
        return "blind" if any(not v.weak for v in others) else "derive"
    if node.op in _BINARY and len(node.inputs) == 2:
        if any(not v.weak and v.dtype == node.out.dtype for v in others):
            return "blind"  # a NumPy operand of the result's dtype decides
        if not others:
            return "derive"  # a Python number where both are
        if _with_python_numbers(region, node, others):
            return "derive"
    return "tell"


def _with_python_numbers(region: Graph, node: Node, others: list[Value]) -> bool:
    """Whether `node`, of float operands some flagged, the others Python numbers, gives a
    Python float where the flagged are and the NumPy scalar of the same value where not:
    `+ - *`, `**` (where Python raises, OverflowError or ZeroDivisionError, or gives a
    complex number, NumPy raises a flag, which reruns the frame as Python), and `/` by a
    non-zero constant (where Python would raise, NumPy gives an infinity)."""
    if node.out.dtype != np.dtype(np.float64) or any(not v.weak for v in others):
        return False
    if node.op in ("add", "sub", "mul", "pow"):
        return True
    if node.op != "div":
        return False
    if node.inputs[1] is not others[0]:
        # By a flagged divisor: Python raises ZeroDivisionError at 0.0 (where NumPy flags
        # x / 0 for a finite x, but not inf / 0 or nan / 0), so it must never be zero.
        return _never_zero(region, node.inputs[1])
    return _nonzero_constant(region, others[0])


def _nonzero_constant(region: Graph, value: Value) -> bool:
    return any(n.out is value and n.op == "const" and n.attrs["value"] != 0
               for n in region.nodes)


def _constant(region: Graph, value: Value) -> float | None:
    node = next((n for n in region.nodes if n.out is value), None)
    if node is None or node.op != "const" or isinstance(node.attrs["value"], bool):
        return None
    return node.attrs["value"] if isinstance(node.attrs["value"], (int, float)) else None


def _never_zero(region: Graph, value: Value) -> bool:
    """Whether `value` is a nonzero constant, or `max()`/`min()` of Python's order with a
    positive (negative) constant: `where(gt(b, a), b, a)` is `b` or `a` where `a >= b` or
    `a` is NaN, so never zero where `b` (or `a`) is a constant above zero (`max(err,
    1e-16)`), and the same for `lt` and below zero."""
    const = _constant(region, value)
    if const is not None:
        return const != 0
    node = next((n for n in region.nodes if n.out is value), None)
    if node is None or node.op != "where":
        return False
    cond, a, b = node.inputs
    test = next((n for n in region.nodes if n.out is cond), None)
    if test is None or test.op not in ("gt", "lt") or {id(v) for v in test.inputs} != {
            id(a), id(b)}:
        return False
    sign = 1 if (test.op == "gt") == (test.inputs[0] is a) else -1
    return any((c := _constant(region, v)) is not None and c * sign > 0 for v in (a, b))


def _follow(region: Graph, node: Node, flags: dict[int, Value | None],
            roots: dict[int, set[int]], told: set[int]) -> None:
    """What `node` makes of flagged operands: nothing (a use that cannot tell), a flagged
    result (a Python number where they are), or a use that can tell (`told`). A flag of
    None: the value may be a Python number, where is not known (a nested op's result)."""
    flagged = [v for v in node.inputs if id(v) in flags]
    if not flagged:
        return
    effect = _effect(region, node, lambda v: id(v) in flags)
    if effect == "derive":
        _derive(node.out, flagged, flags, roots, region)
    elif effect == "region" and node.op == "if":
        _through_paths(region, node, flags, roots, told)
    elif effect == "region":
        _through_loop(node, flags, roots, told)
    elif effect == "tell":
        for v in flagged:
            told.update(roots[id(v)])


def _through_paths(region: Graph, node: Node, flags: dict[int, Value | None],
                   roots: dict[int, set[int]], told: set[int]) -> None:
    """An `if` with flagged operands (its condition cannot tell): a path may use one only
    where it cannot tell, or pass it on as a result, which is then flagged as the path taken
    passed it (`best = h` under `if h > best`)."""
    cond, *args = node.inputs
    from_roots = set().union(*(roots[id(v)] for v in args if id(v) in flags))
    sides: list[list[Value | bool | None]] = []
    for path in (node.attrs["then"], node.attrs["else"]):
        inner = {id(p) for p, a in zip(path.inputs, args, strict=True) if id(a) in flags}
        sources: dict[int, frozenset[int] | None] = {i: frozenset({i}) for i in inner}
        if not _inside(path, inner, sources):
            told.update(from_roots)
            return
        outer = dict(zip(map(id, path.inputs), args, strict=True))
        # Per result: the flag of the operand passed on, or of those it is derived from
        # (`h = t_end - t`), None where made inside the path otherwise (where it is a
        # Python number is not known), False where never one.
        # A parameter passed on (`choice_merge`): a choice's flag says which it is.
        passed = getattr(path, "passed_on", set())
        sides.append([_flag_from(region, sources.get(id(out)), outer, flags)
                      if id(out) in inner and id(out) not in passed else False
                      for out in path.outputs])
    false = region.const(False, np.bool_, weak=False)
    for out, then, orelse in zip((node.out, *node.extra), *sides, strict=True):
        if then is False and orelse is False:
            continue
        if then is None or orelse is None:
            flag = None
        else:
            either = [false if f is False else f for f in (then, orelse)]
            flag = region.op("where", [cond, *either], scalar=True)
        if id(out) in flags:
            # A pick of its own (`branches._flag_slots`: what the paths made) besides what
            # they passed on: a Python number where either says.
            own = flags[id(out)]
            flag = None if own is None or flag is None else region.op("logical_or",
                                                                        [own, flag])
            roots[id(out)] = roots[id(out)] | from_roots
        else:
            roots[id(out)] = from_roots
        flags[id(out)] = flag


def _through_loop(node: Node, flags: dict[int, Value | None], roots: dict[int, set[int]],
                  told: set[int]) -> None:
    """A nested loop op with flagged operands: its body may use them only where it cannot
    tell; a carried result that may be a Python number is flagged (where, not known)."""
    outs = _region_results(node, [id(v) in flags for v in node.inputs])
    from_roots = set().union(*(roots[id(v)] for v in node.inputs if id(v) in flags))
    if outs is None:
        told.update(from_roots)
        return
    for out, maybe in zip((node.out, *node.extra), outs, strict=True):
        if maybe and id(out) not in flags:  # a result with a flag of its own keeps it
            flags[id(out)], roots[id(out)] = None, from_roots


def _flag_from(region: Graph, sources: frozenset[int] | None, outer: dict[int, Value],
               flags: dict[int, Value | None]) -> Value | None:
    """The flag of a path's result derived from its flagged parameters `sources` (a Python
    number where they all are), in the enclosing `region`; None where not known."""
    if not sources:
        return None
    parts = [flags.get(id(outer[i])) for i in sorted(sources)]
    if any(part is None for part in parts):
        return None
    flag = parts[0]
    for part in parts[1:]:
        flag = region.op("logical_and", [flag, part])
    return flag


def _region_results(node: Node, flagged: list[bool], narrow: bool = False
                    ) -> list[bool] | None:
    """Which results of an `if` or `loop` op may be Python numbers, given which operands
    may be; None where a use inside can tell."""
    if node.op == "if":
        results = [False] * len(node.attrs["then"].outputs)
        for path in (node.attrs["then"], node.attrs["else"]):
            inner = {id(p) for p, f in zip(path.inputs, flagged[1:], strict=True) if f}
            if not _inside(path, inner, narrow=narrow):
                return None
            passed = getattr(path, "passed_on", set())
            results = [r or (id(out) in inner and id(out) not in passed)
                       for r, out in zip(results, path.outputs, strict=True)]
        return results
    # A loop: operands (lo, hi, step, *carried, *invariant); body parameters (index,
    # *carried, *invariant), results (go, *carried). A carried value may be a Python
    # number once a trip ends with one: followed until that settles.
    body, count = node.attrs["body"], node.attrs["carried"]
    carried, invariant = flagged[3:3 + count], flagged[3 + count:]
    while True:
        inner = {id(p) for p, f in zip(body.inputs[1:], carried + invariant, strict=True)
                 if f}
        if not _inside(body, inner, narrow=narrow):
            return None
        ends = [c or id(out) in inner for c, out in zip(carried, body.outputs[1:],
                                                        strict=True)]
        if ends == carried:
            return carried
        carried = ends


def blind_in(region: Graph, value: Value, final: Value | None) -> bool:
    """Whether no use in `region` of `value`, a parameter, or of what it makes (nested
    regions included) can tell a Python number from the NumPy scalar of its value, and no
    result of `region` but `final` (its own, flagged apart) is made of it."""
    flagged = {id(value)}
    return _inside(region, flagged) and not any(
        id(out) in flagged and out is not final and out.dtype.kind in "iuf"
        for out in region.outputs)


def _inside(region: Graph, flagged: set[int],
            sources: dict[int, frozenset[int] | None] | None = None, *,
            narrow: bool = False) -> bool:
    """Follow the values `flagged` (by id; grown in place with what they make) through
    `region`: False where a use can tell them apart. `sources`, where given: per flagged
    value the flagged values it is derived from (a Python number where all of them are),
    None where not known (a nested op's result); filled in place. `narrow`: the values are
    NumPy ints narrower than int64 or Python ints of the same value, which only compares
    derive from (their arithmetic may wrap where Python's does not)."""
    for node in region.nodes:
        if not any(id(v) in flagged for v in node.inputs):
            continue
        effect = _effect(region, node, lambda v: id(v) in flagged)
        if narrow and effect == "derive" and node.op not in _COMPARE:
            return False
        if effect == "tell":
            return False
        if effect == "derive":
            flagged.add(id(node.out))
            if sources is not None:
                parts = [sources.get(id(v)) for v in node.inputs if id(v) in flagged]
                sources[id(node.out)] = None if None in parts else frozenset().union(*parts)
        elif effect == "region":
            outs = _region_results(node, [id(v) in flagged for v in node.inputs], narrow)
            if outs is None:
                return False
            flagged.update(id(out) for out, f in zip((node.out, *node.extra), outs,
                                                     strict=True) if f)
    return True


def _derive(out: Value, flagged: list[Value], flags: dict[int, Value | None],
            roots: dict[int, set[int]], region: Graph) -> None:
    parts = [flags[id(v)] for v in flagged]
    flag = parts[0]
    for part in parts[1:]:
        flag = None if flag is None or part is None else region.op("logical_and",
                                                                    [flag, part])
    flags[id(out)] = flag
    roots[id(out)] = set().union(*(roots[id(v)] for v in flagged))


def _open(region: Graph, gate: Value) -> None:
    """Make a pick's `gate` false: its check never fails."""
    for i, node in enumerate(region.nodes):
        if node.out is gate:
            region.nodes[i] = dataclasses.replace(node, attrs={**node.attrs, "value": False})
            return
