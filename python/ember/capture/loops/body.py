"""Running a loop body's instructions once, for the region that stands for every trip."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ember.capture.breaks import graph_break
from ember.capture.variables.constant import ConstantVariable

# The pseudo-local holding whether the trip goes on (False once a `break` ran): the loop
# body's `go` result. Not a valid Python name, so no code can read or write it.
GO = ".go"

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter


def loop_head(tx: Interpreter, index: int) -> int:
    """Where a jump to `index` lands: a jump to an instruction with a long argument lands on
    its EXTENDED_ARG prefix (a no-op here), and so reaches the instruction itself."""
    while tx.instructions[index].opname == "EXTENDED_ARG":
        index += 1
    return index


def run_body(tx: Interpreter, for_index: int, start: int, stop: int) -> None:
    """Run from `start` until control comes back to the loop's FOR_ITER (the end of the body
    or a `continue`); leaving `[start, stop)` otherwise is a `break` or a `return`."""
    depth = len(tx.stack)
    tx.tracer.loop_bodies.append((for_index, start, stop, tx.stack[-2]))
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


def run_span(tx: Interpreter, start: int, stop: int | None) -> None:
    """Run one path of a branch from `start` until it reaches `stop` (None: only the end of
    the trip) or jumps past it, or comes back to the loop's FOR_ITER (the end of the trip, by
    the body's end or a `continue`). A `break` (the iterator popped, a jump to the loop's
    exit) ends the trip too: the path stops as at the FOR_ITER, with the trip's `go` false."""
    for_index, body_start, body_stop, iterator = tx.tracer.loop_bodies[-1]
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
            break
        if tx.ip < start or tx.ip >= body_stop:
            raise graph_break("loop_body", what="a jump out of a branch")
        step_instruction(tx)
    if tx.ip >= body_stop:
        raise graph_break("loop_body", what="a return inside a branch")


def step_instruction(tx: Interpreter) -> None:
    inst = tx.instructions[tx.ip]
    tx.lineno = inst.lineno
    _locate(tx, inst.lineno)
    tx.ip += 1
    tx.tracer.tick()
    handler = getattr(tx, inst.opname, None)
    if handler is None:
        raise graph_break("bytecode", opname=inst.opname)
    handler(inst)
    if tx.result is not None:
        raise graph_break("loop_body", what="a return")


def _locate(tx: Interpreter, lineno: int | None) -> None:
    """Attribute the nodes added from now on to `lineno` of the frame's code, so that a
    warning NumPy gives for a body's op names the body's line (`Node.where`), as the
    interpreter's own loop does."""
    module = tx.fn_globals.get("__name__", "<string>")
    tx.graph.at(None if lineno is None else (tx.code.co_filename, lineno, module))
