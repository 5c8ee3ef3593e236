"""Running a loop body's instructions once, for the region that stands for every trip, and
one path of a branch in it (or in a function called from it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ember.capture.breaks import graph_break
from ember.capture.variables.constant import ConstantVariable

# Pseudo-locals of a trip, merged by branches like any local. Not valid Python names, so no
# code can read or write them. `.go`: whether the trip goes on (False once a `break` or a
# `return` ran), the loop body's `go` result; `.ret`: whether a `return` ran; `.retval`: what
# it returned (meaningful only when `.ret`).
GO = ".go"
RET = ".ret"
RETVAL = ".retval"
# `.rerun`: on a path of a branch outside loops, whether a run-time check failed (`math.sqrt`
# of a negative value), which sends the frame to plain Python (`frame_branches.add_check`).
RERUN = ".rerun"
# Where a path of a branch ends when its frame returned: a function called in a loop body,
# or the rest of a frame after a loop op that may return. Its value is in `RETVAL`.
RETURNED = -1

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter


@dataclass
class Body:
    """A loop body being traced: its FOR_ITER (a `while` loop's top), the span of its
    instructions, the loop's iterator (None for a `while` loop), the frame running it, and
    that frame's stack when a trip ends."""

    for_index: int
    start: int
    stop: int
    iterator: Any
    frame: Interpreter
    end_stack: list[Any]


def enclosing_body(tx: Interpreter) -> Body | None:
    """The loop body `tx` itself is tracing; None in a function called from one."""
    bodies = tx.tracer.loop_bodies
    return bodies[-1] if bodies and bodies[-1].frame is tx else None


def loop_head(tx: Interpreter, index: int) -> int:
    """Where a jump to `index` lands: a jump to an instruction with a long argument lands on
    its EXTENDED_ARG prefix (a no-op here), and so reaches the instruction itself."""
    while tx.instructions[index].opname == "EXTENDED_ARG":
        index += 1
    return index


def run_body(tx: Interpreter, for_index: int, start: int, stop: int) -> None:
    """Run from `start` until control comes back to the loop's FOR_ITER (the end of the body
    or a `continue`); leaving `[start, stop)` otherwise is a `break` or a `return` outside any
    branch, which refuses."""
    depth = len(tx.stack)
    tx.tracer.loop_bodies.append(Body(for_index, start, stop, tx.stack[-2], tx, tx.stack[:-1]))
    try:
        while tx.ip != for_index:
            if loop_head(tx, tx.ip) == for_index:
                tx.ip = for_index
                break
            if not start <= tx.ip < stop:
                raise graph_break("loop_body", what="a break or return")
            step_instruction(tx)
    finally:
        tx.tracer.loop_bodies.pop()
        _locate(tx, tx.instructions[for_index].lineno)  # the loop op is the `for` line's
    if len(tx.stack) != depth - 1:
        raise graph_break("loop_body", what="a body that leaves values on the stack")


def run_span(tx: Interpreter, start: int, stop: int | None, through: bool = False) -> None:
    """Run one path of a branch from `start` until it reaches `stop` (None: only the end of
    the trip) or jumps past it, or comes back to the loop's FOR_ITER (the end of the trip, by
    the body's end or a `continue`). A `break` (the iterator popped, a jump to the loop's
    exit) ends the trip too: the path stops as at the FOR_ITER, with the trip's `go` false;
    so does a `return`, with `.ret` true and its value in `.retval`. In a function called
    from a loop body, the path runs until `stop` or the function's return (`RETURNED`).
    `through`: the path runs on through the trips left of a loop unrolled around its branch
    (the other path ended the trip), rather than stopping at that loop's FOR_ITER."""
    body = enclosing_body(tx)
    if body is None:
        _run_function_span(tx, start, stop)
        return
    for_index, body_start, body_stop, iterator = (body.for_index, body.start, body.stop,
                                                  body.iterator)
    depth = len(tx.stack)
    while True:
        popped = 1 if iterator is not None else 0  # a `for` loop's break pops its iterator
        if tx.ip == body_stop and len(tx.stack) == depth - popped:
            if iterator is not None:
                tx.stack.append(iterator)
            tx.locals[GO] = ConstantVariable(False)
            tx.ip = for_index
            return
        if loop_head(tx, tx.ip) == for_index:
            tx.ip = for_index
            break
        if stop is not None and tx.ip >= stop:
            break
        head = loop_head(tx, tx.ip)
        if (body_start <= tx.ip < start and tx.instructions[head].opname == "FOR_ITER"):
            # The end of a trip of a loop unrolled inside the body (`if c: a else: b` last
            # in its body jumps back from both paths): the paths meet at its FOR_ITER.
            tx.ip = head
            if through:  # the path goes on from that FOR_ITER: its trips are the path's
                start = head
                continue
            break
        testing = tx.ip < start and _in_while_test(tx, body)
        if tx.ip < start and not testing and _rest_of_while_true(tx, start):
            continue
        if (tx.ip < start and not testing) or tx.ip >= body_stop:
            raise graph_break("loop_body", what="a jump out of a branch")
        if tx.instructions[tx.ip].opname == "RETURN_VALUE":
            _return_from_trip(tx, body)
            return
        step_instruction(tx)
    if tx.ip >= body_stop:
        raise graph_break("loop_body", what="a return inside a branch")


def _in_while_test(tx: Interpreter, body: Body) -> bool:
    """Whether a path jumped back into the first test of the `while c:` loop whose body is
    being traced (a `continue`, which CPython compiles as a jump to that test): the path
    then runs the test, which ends the trip at the loop's top when it passes and leaves the
    loop (`go` false) when it fails, as the bottom test does."""
    from ember.capture.bytecode import TRUTH_JUMPS

    if body.iterator is not None or not 0 < tx.ip < body.start:
        return False
    last = tx.instructions[body.start - 1]
    if last.opname not in TRUTH_JUMPS or last.target != body.stop:
        return False
    for inst in tx.instructions[tx.ip:body.start]:
        if inst.opname in _STORES or (inst.target is not None and inst.target not in (
                body.stop, body.start) and not tx.ip <= inst.target < body.start):
            return False
    return True


_STORES = frozenset({"STORE_FAST", "DELETE_FAST", "STORE_DEREF", "STORE_GLOBAL",
                     "STORE_ATTR", "STORE_SUBSCR", "STORE_NAME"})


def _rest_of_while_true(tx: Interpreter, start: int) -> bool:
    """A path that jumps back to the top of a loop around its branch (`while True: ...; if
    abs(dx) < tol: break`, whose first trip ran as code): the rest of that loop is a loop op
    on this path, which then goes on at the loop's exit. False for any other jump back."""
    from ember.capture.loops.whiles import capture_while, loop_exit

    top = tx.ip
    exit_index = loop_exit(tx, top, start)
    if exit_index is None:
        return False
    capture_while(tx, top, exit_index)
    return True


def _return_from_trip(tx: Interpreter, body: Body) -> None:
    """A `return` on a path of a branch in the loop body: the trip ends as by a `break`, with
    the value kept for the frame to return after the loop. The frame's iterators, which the
    bytecode popped before its RETURN_VALUE, are back on the stack as at a trip's end."""
    value = tx.pop()
    if tx.stack:
        raise graph_break("loop_body", what="a return that leaves values on the stack")
    _check_still_python(tx, value)
    tx.stack[:] = list(body.end_stack)
    tx.locals[RET] = ConstantVariable(True)
    tx.locals[RETVAL] = value
    tx.locals[GO] = ConstantVariable(False)
    tx.ip = body.for_index


def _check_still_python(tx: Interpreter, value: Any) -> None:
    """A return of a carried local that may still be the Python number the loop makes a
    NumPy scalar on another path (`s = 0.0`, `s = a[i] * 2` / `return s`): the loop op would
    return the NumPy scalar, so the frame runs as Python."""
    from ember.capture.loops import mixed_picks
    from ember.capture.variables.array import ArrayVariable
    from ember.capture.variables.containers import TupleVariable

    for item in value.items if isinstance(value, TupleVariable) else [value]:
        if not isinstance(item, ArrayVariable) or item.value.shape or item.value.weak:
            continue
        graph, v = tx.graph, item.value
        if id(v) in getattr(graph, "python_params", {}) or mixed_picks.stands_for_a_flagged(
                graph, v):
            raise graph_break("loop_body", what="a return of a local that may still be a "
                                                "Python number")


def _run_function_span(tx: Interpreter, start: int, stop: int | None) -> None:
    """One path of a branch in a frame that is not tracing a loop body (a function called
    from one, or the rest of a frame after a loop op that may return): until `stop` or a
    jump past it, or the frame's return (`tx.ip` is then `RETURNED`, the value in
    `RETVAL`). `stop` RETURNED: only the return ends it, jumps back included."""
    to_return = stop == RETURNED
    while True:
        if tx.result is not None:
            # RETURN_VALUE, or a branch whose paths both returned (`capture_if`), or a loop
            # op on this path that may return, after which the rest of the frame was traced
            # to its return (`returns.after_loop`): the path ends there, not at `stop`.
            tx.locals[RETVAL] = tx.result
            tx.result = None
            tx.ip = RETURNED
            return
        if stop is not None and not to_return and tx.ip >= stop:
            return
        if tx.ip < start and not to_return:
            head = loop_head(tx, tx.ip)
            if tx.instructions[head].opname == "FOR_ITER":
                tx.ip = head  # the end of a trip of a loop unrolled around the branch
                return
            raise graph_break("loop_body", what="a jump out of a branch")
        execute(tx)


def execute(tx: Interpreter) -> None:
    """Run the instruction at `tx.ip`, the nodes it adds attributed to its line."""
    inst = tx.instructions[tx.ip]
    tx.lineno = inst.lineno
    _locate(tx, inst.lineno)
    tx.ip += 1
    tx.tracer.tick()
    handler = getattr(tx, inst.opname, None)
    if handler is None:
        raise graph_break("bytecode", opname=inst.opname)
    handler(inst)


def step_instruction(tx: Interpreter) -> None:
    execute(tx)
    if tx.result is not None:
        raise graph_break("loop_body", what="a return")


def _locate(tx: Interpreter, lineno: int | None) -> None:
    """Attribute the nodes added from now on to `lineno` of the frame's code, so that a
    warning NumPy gives for a body's op names the body's line (`Node.where`), as the
    interpreter's own loop does."""
    module = tx.fn_globals.get("__name__", "<string>")
    tx.graph.at(None if lineno is None else (tx.code.co_filename, lineno, module))
