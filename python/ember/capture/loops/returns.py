"""`return` inside loop ops, and functions whose paths return on a loop value.

A `return` on a path of a branch in a loop body (`if row_min > max_dist: return max_dist + 1`)
ends the trip like a `break` (`.go` false) and sets two pseudo-locals merged like any other:
`.ret`, whether it ran, and `.retval`, its value (a placeholder of the same type on the paths
that do not return, never read). The loop op carries both. After the op, the frame goes on
only where `.ret` is false, so what follows is an `if` on it:

- inside the body of an outer loop op of the same frame, `then` ends that trip too (the outer
  loop stops, `.ret` and `.retval` carried out of it in turn), `else` runs the rest of it;
- otherwise `then` returns `.retval` and `else` traces the rest of the frame until it returns.

A branch in a function called from a loop body (`if b1 + b2 == 3: return 1 else: return 0`)
traces each path to its RETURN_VALUE (`body.RETURNED`) the same way. The two returned values
become one (`merge_results`): in the frame being compiled, a `ChoiceVariable` that keeps each
side's Python type (a Python int on one, a NumPy scalar on the other); in a called function,
one graph value, so both sides must have one type, except a Python number on one side and a
NumPy scalar of its dtype on the other: a choice too, which an operator with an array or a
NumPy scalar settles (`variables/choice.py`). An array of the frame returned (`return
out`) or a view refuses: the result would be a copy where Python returns the object.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.loops.body import GO, RERUN, RET, RETURNED, RETVAL, enclosing_body
from ember.capture.loops.carried import _final_value
from ember.capture.loops.region import BodyArray, Group, Trace
from ember.capture.variables.array import VIEW_OPS, ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.choice import ChoiceVariable
from ember.capture.variables.constant import ConstantVariable
from ember.capture.variables.containers import TupleVariable
from ember.graph import Graph, Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.capture.loops.branches import Path

PSEUDO = (RET, RETVAL)


def start_trip(tx: Interpreter) -> None:
    """No `return` has run when a trip starts."""
    tx.locals[RET] = ConstantVariable(False)
    tx.locals.pop(RETVAL, None)


def carry_return(tx: Interpreter, trace: Trace, end_locals: dict[str, VariableTracker]
                 ) -> bool:
    """Whether the traced trip may return; if so `.ret` and `.retval` become carried values
    of the loop op, starting as false and a placeholder in the enclosing graph."""
    ret, retval = end_locals.pop(RET, None), end_locals.pop(RETVAL, None)
    if ret is None or (isinstance(ret, ConstantVariable) and ret.constant() is False):
        return False
    region = trace.region
    if retval is None:
        raise graph_break("loop_body", what="a return whose value is lost")
    flag = _final_value(region, ret)
    if flag.dtype != np.bool_ or flag.shape:
        raise graph_break("loop_body", what="a return flag that is not a bool")
    if flag.weak:
        flag = region.op("astype", [flag], dtype=np.bool_)
    pairs = [(RET, flag)]
    if _is_none(retval):
        # `return` (None) on every returning path: nothing to carry but the flag.
        trace.returns_none = True
        items = []
    elif _plain_tuple(retval):
        trace.returned_tuple = len(retval.items)  # type: ignore[attr-defined]
        items = [(_item_name(k), vt) for k, vt in enumerate(retval.items)]  # type: ignore[attr-defined]
    else:
        items = [(RETVAL, retval)]
    for name, vt in items:
        own = next((g for g in trace.groups if g.inner is vt), None)
        if own is not None and own.inner.value.shape:  # type: ignore[attr-defined]
            # One of the frame's arrays (`return out`), updated in place or not: after the
            # loop its tracker stands for the object returned, as it was when returned.
            if own.final is not own.inner:
                raise graph_break("loop_body", what="a return of an array the body rebinds")
            trace.returned_arrays[name] = own.outer
        else:
            pairs.append((name, returned_value(region, vt)))
    for name, v in pairs:
        param = region.add_input(v.dtype, v.shape, weak=v.weak, scalar=v.scalar)
        outer = tx.locals.get(name, ConstantVariable(None))
        group = Group([name], outer, placeholder(tx.graph, v), param, BodyArray(param, False))
        group.carried = True
        group.final = ArrayVariable(v)
        group.final_value = v
        trace.groups.append(group)
    return True


def returned_value(region: Graph, vt: VariableTracker) -> Value:
    """The value of a `return` carried out of a region: a number, a NumPy scalar or an array
    the body computed, never one of the frame's arrays or a view (identity would be lost)."""
    if isinstance(vt, ArrayVariable) and vt.value.graph is region and vt.value.shape:
        if isinstance(vt, BodyArray) or vt.value in region.inputs:
            raise graph_break("loop_body", what="a return of an array of the frame in a loop")
        node = next((n for n in region.nodes if n.out is vt.value), None)
        if node is not None and node.op in VIEW_OPS:
            raise graph_break("loop_body", what="a return of a view in a loop")
    if isinstance(vt, ConstantVariable) and type(vt.constant()) not in (bool, int, float):
        raise graph_break("loop_body", what=f"a return of {vt.describe()} in a loop")
    return _final_value(region, vt)


def placeholder(graph: Graph, like: Value) -> Value:
    """A value of `like`'s type standing for a return that did not happen (never read)."""
    if like.shape:
        return graph.full(like.shape, like.dtype.type(0).item(), like.dtype)
    zero = like.dtype.type(0).item()
    value = graph.const(zero, weak=True) if like.weak else graph.const(
        zero, like.dtype, weak=False)
    if value.scalar != like.scalar:
        value = graph.op("astype", [value], dtype=like.dtype, scalar=like.scalar)
    return value


def _plain_tuple(vt: VariableTracker | None) -> bool:
    return isinstance(vt, TupleVariable) and type(vt) is TupleVariable


def _item_name(k: int) -> str:
    return f"{RETVAL}#{k}"


def fill_missing(then: Path, orelse: Path) -> None:
    """`.retval` bound on one path only (the other did not return): the other gets a
    placeholder of its type, so the name merges like any other. A tuple returned is merged
    item by item (`.retval#k`), joined again by `join_items`."""
    x, y = then.locals.get(RETVAL), orelse.locals.get(RETVAL)
    if x is not None and x is y:
        return
    if x is None and y is None:
        return
    if _is_none(x) or _is_none(y):
        # A return of None: the other path's stands for it too (never read where it did not
        # return), and it is one object, which merges without a value.
        none = x if _is_none(x) else y
        if (x is not None and not _is_none(x)) or (y is not None and not _is_none(y)):
            raise graph_break("loop_body", what="returns of None and of a value in one loop")
        then.locals[RETVAL] = orelse.locals[RETVAL] = none  # type: ignore[assignment]
        return
    for path, vt in ((then, x), (orelse, y)):
        if _plain_tuple(vt):
            for k, item in enumerate(vt.items):  # type: ignore[union-attr]
                path.locals[_item_name(k)] = item
            del path.locals[RETVAL]
    if x is not None and y is not None:
        if _plain_tuple(x) != _plain_tuple(y) or (_plain_tuple(x) and len(x.items) != len(
                y.items)):  # type: ignore[attr-defined]
            raise graph_break("loop_body", what="returns of different kinds in one loop")
        return
    have, lack = (then, orelse) if x is not None else (orelse, then)
    names = [n for n in have.locals if n == RETVAL or n.startswith(f"{RETVAL}#")]
    for name in names:
        vt = have.locals[name]
        entry = next((k for k, inner in have.inner.items() if inner is vt), None)
        if entry is not None and isinstance(vt, ArrayVariable) and vt.value.shape:
            # One of the frame's arrays (`return out`): the same object on both paths.
            lack.locals[name] = lack.inner[entry]
            continue
        value = returned_value(have.region, vt)
        lack.locals[name] = ArrayVariable(placeholder(lack.region, value))


def join_items(tx: Interpreter) -> None:
    """A tuple returned, merged item by item, is one tuple again."""
    count = sum(1 for n in tx.locals if n.startswith(f"{RETVAL}#"))
    if count:
        tx.locals[RETVAL] = TupleVariable([tx.locals.pop(_item_name(k))
                                           for k in range(count)])


def returned(path: Path) -> bool:
    """Whether the path ended the trip by a `return` (the frame then returns after the
    loop, reading none of its locals)."""
    flag = path.locals.get(RET)
    return isinstance(flag, ConstantVariable) and flag.constant() is True


def adopt_bindings(dead: Path, going: Path) -> None:
    """A path that returned takes the other path's bindings (its own stand-ins of the same
    arrays, placeholders of the same types for new values): its locals are never read, and
    a swap of arrays (`prev, cur = cur, prev`) on the other path must not refuse for them.
    Arrays it updated in place keep their own values (the `if` op's in-place results)."""
    for name, vt in going.locals.items():
        if name in (GO, RET, RETVAL, RERUN) or name.startswith(f"{RETVAL}#"):
            continue
        entry = next((k for k, inner in going.inner.items() if inner is vt), None)
        if entry is not None:  # an array or a short row of the frame
            dead.locals[name] = dead.inner[entry]  # type: ignore[assignment]
        elif isinstance(vt, ArrayVariable) and vt.value.graph is going.region:
            dead.locals[name] = ArrayVariable(placeholder(dead.region, vt.value))
        else:
            dead.locals[name] = vt
    for name in [n for n in dead.locals
                 if n not in going.locals and n not in (*PSEUDO, RERUN)]:
        if name != GO:
            del dead.locals[name]


def after_loop(tx: Interpreter, trace: Trace) -> None:
    """After a loop op that may return: the rest of the trip of an outer loop op, or the rest
    of the frame, as an `if` on `.ret` (see the module's doc)."""
    from ember.capture.loops import frame_branches
    from ember.capture.loops.branch_entries import entries as _entries
    from ember.capture.loops.branches import _merge, _trace

    _bind_returned(tx, trace)
    cond = tx.locals[RET].value  # type: ignore[attr-defined]
    entries, vectors = _entries(tx)
    body, rest = enclosing_body(tx), tx.ip
    if body is not None:
        for_index = body.for_index

        def end_trip(tx: Interpreter) -> None:
            tx.locals[GO] = ConstantVariable(False)
            tx.locals[RET] = ConstantVariable(True)
            tx.ip = for_index

        meet, action = for_index, end_trip
    else:
        def give_back(tx: Interpreter) -> None:
            tx.ip = RETURNED  # `.retval` is the frame's return value

        meet, action = RETURNED, give_back
    returned = _trace(tx, entries, vectors, rest, None, "then", action=action)
    # Outside a loop body, the rest of the frame runs to its return, the trips left of loops
    # unrolled around this one included (a stop at RETURNED).
    with _rest_traced(tx, rest, around_while=body is None):
        going = _trace(tx, entries, vectors, rest, None if body is not None else RETURNED,
                       "else")
    if going.end != meet:
        raise graph_break("loop_body", what="code after a loop that may return that does "
                                            "not end the trip or the frame")
    _merge(tx, cond, entries, returned, going, meet)
    frame_branches.settle_checks(tx)  # the checks of the rest of the frame, traced in it


@contextmanager
def _rest_traced(tx: Interpreter, rest: int, around_while: bool) -> Iterator[None]:
    """The rest of a frame traced after a loop op that may return. Where it reaches this
    loop op again, it is unrolling a `while` around it (`while i < n: for k in ...: return`),
    one trip nested in the last: capture starts again with that `while` as a loop op
    (`whiles.retry_while_around`), and where it cannot be one, the nesting is bounded (the
    loop op refuses past `config.unroll_max_trips` trips)."""
    from ember import config
    from ember.capture.loops.whiles import retry_while_around

    key = (tx.code, rest)
    nested = tx.tracer.rests_traced.get(key, 0)
    if around_while and nested:
        retry_while_around(tx, rest, "a loop op that may return in a while loop's trips")
        if nested >= config.unroll_max_trips:
            raise graph_break("loop_body", what="a loop that may return in a while loop of "
                                                "many trips")
    tx.tracer.rests_traced[key] = nested + 1
    try:
        yield
    finally:
        tx.tracer.rests_traced[key] = nested


def after_last_loop(tx: Interpreter, trace: Trace) -> None:
    """After a loop op that only a `return` leaves (a `while True:` last in its frame, with
    no code after it): the frame returns `.retval`."""
    _bind_returned(tx, trace)
    tx.result = tx.locals[RETVAL]


def _bind_returned(tx: Interpreter, trace: Trace) -> None:
    """Bind the loop op's returned arrays to their locals, and join a returned tuple."""
    tx.locals.update(trace.returned_arrays)
    if trace.returned_tuple is not None:
        tx.locals[RETVAL] = TupleVariable([tx.locals.pop(_item_name(k))
                                           for k in range(trace.returned_tuple)])
    if trace.returns_none:
        tx.locals[RETVAL] = ConstantVariable(None)


def _is_none(vt: VariableTracker | None) -> bool:
    return isinstance(vt, ConstantVariable) and vt.constant() is None


def merge_results(tx: Interpreter, cond: Value, then: Path, orelse: Path,
                  outer_of: Callable[[VariableTracker, Path], VariableTracker],
                  slots: list[tuple[Value, Value, object]]) -> Callable[[list[Value]], None]:
    """Both paths returned: slots for the values the frame's result needs out of the `if`
    (appended to `slots`), and what sets `tx.result` from the op's results."""
    from ember.capture.loops import frame_branches

    x, y = then.locals[RETVAL], orelse.locals[RETVAL]
    first = len(slots)
    if _is_none(x) and _is_none(y):
        y = x
    if tx.depth > 0:
        # A called function's result is one value for its caller to compute on.
        if x is y:
            return lambda results: _set_result(tx, outer_of(x, then))
        if not _number_choice(x, then) and not _number_choice(y, orelse):
            vx, vy = returned_value(then.region, x), returned_value(orelse.region, y)
            if (vx.dtype, vx.shape, vx.weak, vx.scalar) == (vy.dtype, vy.shape, vy.weak,
                                                            vy.scalar):
                slots.append((vx, vy, ("result", None)))
                return lambda results: _set_result(tx, ArrayVariable(results[first]))
            if (vx.dtype, vx.shape) == (vy.dtype, vy.shape) and not vx.shape and (
                    tx.graph.parent is not None and not frame_branches.at_frame_level(tx)):
                # A Python number on one path, a NumPy scalar of its dtype on the other
                # (`return 0.0` / `return 1.0 - np.sum(p * p)`): in a loop body, the NumPy
                # scalar flagged where the Python number was returned (a pick:
                # `branches._flag_slots`), which the caller's uses settle.
                slots.append((vx, vy, ("result", None)))
                return lambda results: _set_result(tx, ArrayVariable(results[first]))
            if (vx.dtype, vx.shape) != (vy.dtype, vy.shape) or vx.shape or vx.weak == vy.weak:
                raise graph_break("loop_body", what=f"a function returning {vx.type_str} or "
                                                    f"{vy.type_str} on a loop value")
        # Else, at the frame's level: a choice for the caller's operator to settle
        # (`choice.settled`), like a frame's result.
    def export(vt: VariableTracker, path: Path, other: Path, side: int) -> Callable:
        from ember.capture.loops.vectors import VectorVariable, materialise

        if isinstance(vt, VectorVariable) and vt.elements[0].graph is path.region:
            if vt.base is not None:  # a view of its array: a copy would not be one
                raise graph_break("loop_body", what="a return of a view chosen by a branch")
            # A short array computed element by element (`np.sort(x) * 2.0`): a new array.
            vt = materialise(None, vt)
        if isinstance(vt, ArrayVariable) and vt.value.graph is path.region and not any(
                path.inner[k] is vt for k in path.inner):
            v = returned_value(path.region, vt)
            pair = (v, placeholder(other.region, v)) if side == 0 else (
                placeholder(other.region, v), v)
            slots.append((*pair, ("result", None)))
            k = len(slots) - 1
            return lambda results: ArrayVariable(results[k])
        if isinstance(vt, TupleVariable) and type(vt) is TupleVariable:
            items = [export(i, path, other, side) for i in vt.items]
            return lambda results: TupleVariable([f(results) for f in items])
        if isinstance(vt, ChoiceVariable):
            parts = [export(p, path, other, side) for p in (vt.flag, vt.if_true, vt.if_false)]
            return lambda results: ChoiceVariable(*(f(results) for f in parts))
        outer = outer_of(vt, path)
        if outer is vt and _holds_value_of(vt, path.region):
            raise graph_break("loop_body", what=f"a return of {vt.describe()} holding a value "
                                                "of one branch")
        return lambda results: outer

    if x is y:
        return lambda results: _set_result(tx, outer_of(x, then))
    fx, fy = export(x, then, orelse, 0), export(y, orelse, then, 1)
    return lambda results: _set_result(tx, ChoiceVariable(ArrayVariable(cond), fx(results),
                                                          fy(results)))


def _number_choice(vt: VariableTracker, path: Path) -> bool:
    """Whether `vt` is a called function's choice of 0-d numbers made on this path."""
    return isinstance(vt, ChoiceVariable) and all(
        isinstance(side, ConstantVariable) or (
            isinstance(side, ArrayVariable) and not side.value.shape)
        or _number_choice(side, path) for side in (vt.if_true, vt.if_false))


def _holds_value_of(vt: VariableTracker, region: Graph) -> bool:
    """Whether `vt` (a dict, an f-string, a list a loop op built...) holds a value of
    `region`, which the graph outside it cannot output."""
    seen: set[int] = set()
    todo: list = [vt]
    while todo:
        item = todo.pop()
        if id(item) in seen or not isinstance(item, VariableTracker):
            continue
        seen.add(id(item))
        # Graph values held directly: an array's value, a built list's buffer and count.
        if any(isinstance(v, Value) and v.graph is region
               for v in getattr(item, "__dict__", {}).values()):
            return True
        todo.extend(item.children())
    return False


def _set_result(tx: Interpreter, vt: VariableTracker) -> None:
    tx.result = vt
