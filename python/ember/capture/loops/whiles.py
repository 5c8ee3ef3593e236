"""`while` loops inside loop bodies whose condition is a loop value (`while j >= 0 and
a[j] > key:`): the `if` of the first test holds a loop op over an unbounded range whose body
ends with the test again, as the trip's `go`.

CPython 3.11 compiles `while c: body` as `c; POP_JUMP_FORWARD_IF_FALSE exit; top: body; c;
POP_JUMP_BACKWARD_IF_TRUE top; exit:`; the first test is traced as a branch
(`branches.capture_if`), and its path into the loop calls `capture_while` at `top`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ember.config import config
from ember.capture.breaks import graph_break
from ember.capture.loops import appends, followers, inputs, lazy_reads, tuples
from ember.capture.loops.body import GO, Body, enclosing_body, loop_head, step_instruction
from ember.capture.loops.carried import _collect
from ember.capture.loops.region import (
    Trace,
    _go_value,
    _graph_swapped,
    bind_cells,
    build_groups,
    emit_loop,
    outside_as_locals,
)
from ember.capture.variables.constant import ConstantVariable

if TYPE_CHECKING:
    from ember.capture.bytecode import Instruction
    from ember.capture.interpreter import Interpreter
    from ember.capture.variables.base import VariableTracker

_BACK_JUMPS = frozenset({"POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_FALSE",
                         "JUMP_BACKWARD"})
_STORE_OPS = frozenset({"STORE_FAST", "DELETE_FAST"})
_UNBOUNDED = 2**63 - 1


def while_exit(tx: Interpreter, inst: Instruction) -> int | None:
    """The exit of the `while` loop whose first test is `inst`, or None for a plain `if`."""
    target = inst.target
    if target is None or target < 1:
        return None
    back = tx.instructions[target - 1]
    return target if back.opname in _BACK_JUMPS and back.target == tx.ip else None


def loop_exit(tx: Interpreter, top: int, inside: int) -> int | None:
    """The exit of the `while` loop whose trips go back to `top` and that holds instruction
    `inside`: after its last jump back to `top`. None for a `for` loop's FOR_ITER."""
    if tx.instructions[loop_head(tx, top)].opname == "FOR_ITER":
        return None
    backs = [i.index for i in tx.instructions[inside:]
             if i.opname in _BACK_JUMPS and i.target == top]
    if not backs:
        return None
    exit_index = backs[-1] + 1
    # A jump past it: `top` is a `while c:` test that a `continue` goes back to, whose loop
    # ends further on.
    if any(i.target is not None and i.target > exit_index
           for i in tx.instructions[top:exit_index]):
        return None
    return exit_index


def capture_while(tx: Interpreter, top: int, exit_index: int, always_trips: bool = False
                  ) -> None:
    """Trace the body from `top` once as a loop op's region, emit the op, continue at exit.
    `always_trips`: the loop op is not inside the `if` of a first test (`while True:`), so
    a local its body first assigns may be read after it (`first_assigned`)."""
    stored = {str(i.argval) for i in tx.instructions[top:exit_index] if i.opname in _STORE_OPS}
    optional: dict[str, tuple] = {}
    lazy = lazy_reads.mark()
    for _ in range(2):
        # Tuples of numbers and optional numbers carried item by item (`loops/tuples.py`); a
        # None the first trace found made a number is carried as one on the next.
        split = tuples.split(tx, stored, optional)
        try:
            with outside_as_locals(tx):
                more = _capture_while(tx, top, exit_index, always_trips, split, optional)
        finally:
            tuples.join(tx, split)
            lazy_reads.unread_since(lazy)  # a trace given up leaves its own behind
        if not more:
            return
        optional = {**optional, **more}
    raise graph_break("loop_body", what="a local None before the loop that stays no number")


def _capture_while(tx: Interpreter, top: int, exit_index: int, always_trips: bool,
                   split: dict[str, tuple[int, type]], optional: dict[str, tuple]
                   ) -> dict[str, tuple]:
    from ember.capture.loops import first_assigned, ranges, returns
    from ember.capture.resume import live_locals_at

    stored = tuples.rename({str(i.argval) for i in tx.instructions[top:exit_index]
                            if i.opname in _STORE_OPS}, split)
    # A `while True:` last in its function has no code after it: only a return leaves it.
    after = tuples.rename(live_locals_at(tx.code, tx.instructions[exit_index].offset)
                          if exit_index < len(tx.instructions) else (), split)
    live = tuples.rename(live_locals_at(tx.code, tx.instructions[top].offset), split) | after
    unbound = first_assigned.first_assigned(tx, stored, live) if always_trips else set()
    forced: dict[str, tuple] = dict(optional)
    lists: dict[int, appends.Appended] = {}
    for _ in range(4):
        # A local whose type only some paths change (`total = 0.0`, then `total += x[i]`
        # past a test) keeps its old type where no trip takes them: a flag per local, checked
        # after the loop, sends such runs to Python, as for `for` loops.
        typed = ranges.start_typed_flags(tx, forced, top, exit_index)
        region = tx.graph.region("loop")
        found = appends.enter(tx, lists, None, None, region, (top, exit_index))
        trace = Trace(region, region.add_input(np.int64, (), weak=True))
        trace.following = followers.following(tx, top, exit_index)
        build_groups(tx, trace, stored, forced)
        saved_locals, saved_stack = dict(tx.locals), list(tx.stack)
        for group in trace.groups:
            for name in group.names:
                tx.locals[name] = group.inner
        started = tuples.bind(tx, split)
        bound_views = followers.bind(tx, trace.following, trace.groups)
        appends.substitute(tx, found)
        bind_cells(tx)
        bound = inputs.bind(tx)
        tx.locals[GO] = ConstantVariable(True)
        returns.start_trip(tx)
        tx.ip = top
        tx.tracer.loop_bodies.append(Body(top, top, exit_index, None, tx, list(tx.stack)))
        try:
            with _graph_swapped(tx, region):
                _run_trip(tx, top, exit_index)
            inputs.sync(tx)
            end_locals = dict(tx.locals)
            trace.go = _go_value(region, end_locals.pop(GO))
            tuples.unpack(end_locals, split, region, started)
            if len(tx.stack) != len(saved_stack):
                raise graph_break("loop_body", what="a while body that leaves values")
        except BaseException:
            appends.leave(tx, found)
            raise
        finally:
            inputs.restore(tx, bound)
            tx.tracer.loop_bodies.pop()
            tx.locals.clear()
            tx.locals.update(saved_locals)
            tx.stack[:] = saved_stack
            appends.restore(tx, found)
            bind_cells(tx)
        if trace.go is None:
            raise graph_break("loop_body", what="a while loop that never ends")
        followers.check_kept(bound_views, end_locals)
        untouched = {name for g in trace.groups if g.inner.value is g.param  # type: ignore[attr-defined]
                     for name in g.names}
        appends.check_rows(found, end_locals, live, untouched)
        if appends.learned(found):
            appends.leave(tx, found)
            continue
        more = tuples.optional_types(tx, end_locals, stored)
        if more:
            appends.leave(tx, found)
            return more
        returning = {n: end_locals.pop(n) for n in returns.PSEUDO if n in end_locals}
        # Types only widen from trace to trace: a delay line (`x0, x1 = x1, x1 - f1 * ...`)
        # makes `x1` a NumPy scalar on one trace and `x0` on the next.
        retrace = _collect(trace, end_locals, stored, live, after, set(), unbound)
        if retrace:
            forced = {**forced, **retrace}
            appends.leave(tx, found)
        else:
            first_assigned.carry(tx, trace, end_locals, unbound & after)
            may_return = returns.carry_return(tx, trace, returning)
            graph = tx.graph
            emit_loop(tx, trace, graph.const(0), graph.const(_UNBOUNDED), graph.const(1))
            bind_cells(tx)
            ranges.check_typed_flags(tx, typed, trace)
            appends.finish(tx, found, region, {})
            tx.ip = exit_index
            if may_return and exit_index == len(tx.instructions) and tx.graph.parent is None:
                returns.after_last_loop(tx, trace)
            elif may_return:
                returns.after_loop(tx, trace)
            return {}
    raise graph_break("loop_body", what="a carried value that changes type on every trace")


def _run_trip(tx: Interpreter, top: int, exit_index: int) -> None:
    """One trip: until control is back at `top` (the test passed) or at the exit."""
    while True:
        if not top <= tx.ip < exit_index:
            raise graph_break("loop_body", what="a jump out of a while loop")
        step_instruction(tx)
        if tx.ip == top:
            return
        if tx.ip == exit_index:
            tx.locals[GO] = ConstantVariable(False)
            return


def is_bottom_test(tx: Interpreter, inst: Instruction) -> bool:
    """Whether `inst` jumps back to the top of the `while` loop being traced."""
    body = enclosing_body(tx)
    return body is not None and body.iterator is None and inst.target == body.for_index


def is_first_test_again(tx: Interpreter, inst: Instruction) -> bool:
    """Whether `inst` is the first test of the `while c:` loop being traced, which a path
    reached by a `continue` (`body._in_while_test`) runs again."""
    body = enclosing_body(tx)
    return (body is not None and body.iterator is None and inst.index == body.start - 1
            and inst.target == body.stop)


def first_test_again(tx: Interpreter, inst: Instruction, jump_if: bool) -> None:
    """The first test run again after a `continue`: the trip's `go`, as the bottom test's
    (the loop goes on when the jump out would not be taken), at the loop's top."""
    body = enclosing_body(tx)
    assert body is not None
    bottom_test(tx, inst, not jump_if)
    tx.ip = body.for_index


def bottom_test(tx: Interpreter, inst: Instruction, jump_if: bool) -> None:
    """The test at the end of a while body: the trip's `go` (the loop goes on when the jump
    back would be taken)."""
    cond = tx.pop()
    value = cond.value  # type: ignore[attr-defined]
    graph = tx.graph
    if value.dtype != np.bool_:
        value = graph.op("ne", [value, graph.const(0)])
    if not jump_if:
        value = graph.op("logical_not", [value])
    from ember.capture.variables.array import ArrayVariable

    tx.locals[GO] = ArrayVariable(value)
    tx.ip = inst.target  # type: ignore[assignment]


def python_whiles_around(tx: Interpreter, index: int) -> list[Instruction]:
    """The first tests of the `while` loops around instruction `index` (`while c:`), or the
    NOPs that start them (`while True:`, `true_top`), the outermost first."""
    from ember.capture.bytecode import TRUTH_JUMPS

    found: list[Instruction] = []
    for back in tx.instructions[index:]:
        top = back.target
        if back.opname not in _BACK_JUMPS or top is None or not 0 < top <= index:
            continue
        first = tx.instructions[top - 1]
        if tx.instructions[loop_head(tx, top)].opname == "FOR_ITER":
            continue
        if (TRUTH_JUMPS.get(first.opname, (None, False))[1]
                and first.target == back.index + 1) or true_top(tx, first) == top:
            found.insert(0, first)  # each loop found encloses those found before
    return found


def retry_while_around(tx: Interpreter, index: int, reason: str) -> None:
    """Start the capture again with the outermost `while` loop around instruction `index`
    whose tests were Python values, not yet tried, as a loop op (`LoopTooLong`); a `while
    True:` refused leaves the loops inside it to try, as they were before such loops were
    tried. No-op where none is left to try."""
    from ember.capture.loops.region import LoopTooLong

    for first_test in python_whiles_around(tx, index):
        key = (tx.code, first_test.offset)
        if key not in tx.tracer.unrolled_loops and key not in tx.tracer.long_loops:
            raise LoopTooLong(key, reason)
        if key in tx.tracer.long_loops or first_test.opname != "NOP":
            return


def true_top(tx: Interpreter, inst: Instruction) -> int | None:
    """Where the trips of the `while True:` loop that `inst` starts begin: CPython 3.11
    compiles `while True:` as a NOP (the line of the `while`) followed by the body, whose
    last instruction jumps back to it unconditionally. None for any other instruction."""
    if inst.opname != "NOP" or inst.index + 1 >= len(tx.instructions):
        return None
    top = inst.index + 1
    for back in tx.instructions[top:]:
        if back.opname == "JUMP_BACKWARD" and back.target == top:
            return top
    return None


def python_while(tx: Interpreter, inst: Instruction, enters: bool) -> bool:
    """The first test `inst` of a `while` whose tests are Python values, at `tx.ip` after
    it: when capture was told to (a branch on an array value in its body, which would break
    on every trip), the loop is one loop op whose own tests are loop values (`i` of `while i
    * i <= n: ...; i += 1` carried); `enters`: the first test's outcome. True when done
    (the interpreter continues at the loop's exit)."""
    exit_index = while_exit(tx, inst)
    if exit_index is None:
        return False
    if not _told(tx, inst):
        if enters:
            _enter_unrolled(tx, inst)
        return False
    if not enters:
        tx.ip = exit_index
        return True
    # The first test, a Python value, passed: the loop op makes a trip on every call the
    # entry serves, so a local its body first assigns may be read after it.
    _capture_or_refuse(tx, inst, tx.ip, exit_index, always_trips=True)
    return True


def _enter_unrolled(tx: Interpreter, inst: Instruction) -> None:
    """The `while` loop whose first test `inst` passed is unrolled: count its trips from
    here (`count_trip`), in the frame being compiled (an inlined frame's loops are not
    tried as loop ops, as `loops.retry_as_loop_op` does not try them)."""
    from ember.capture.loops.region import loop_key

    if tx.depth == 0 and tx.graph.parent is None and tx.tracer.loop_ops:
        tx.tracer.while_trips[loop_key(tx, inst)] = [tx.graph.nodes_made, 0]


def count_trip(tx: Interpreter, back: Instruction) -> None:
    """At the jump back of a `while` loop on Python values being unrolled, taken: once more
    than `config.unroll_max_trips` trips have added more than `config.unroll_op_budget` ops,
    capture starts again with the loop tried as a loop op (`retry_while_around`), as a long
    `for` loop is, so that compile time does not grow with its trips; where it cannot be
    one, it unrolls as before."""
    if back.target is None or back.target < 1 or tx.depth != 0 or tx.graph.parent is not None:
        return
    first = tx.instructions[back.target - 1]
    counted = tx.tracer.while_trips.get((tx.code, first.offset))
    if counted is None:
        return
    counted[1] += 1
    if (counted[1] > config.unroll_max_trips
            and tx.graph.nodes_made - counted[0] > config.unroll_op_budget):
        retry_while_around(tx, back.index, f"{tx.graph.nodes_made - counted[0]} ops unrolled "
                                           f"over {counted[1]} trips")


def stack_while(tx: Interpreter, inst: Instruction, tested: VariableTracker) -> bool:
    """The first test `inst` of `while stack:` on a list of numbers that the loop pops from
    or appends to: a list the current loop body built on this trip (`stack = [s]`), which
    makes the loop take a trip, or one a loop op built, whose emptiness only the run time
    knows (a queue of a graph's sources): there an empty list sends the frame to Python.
    The loop is one loop op from its first trip, its list carried as a buffer and a count
    (`loops/appends.py`), rather than a first trip run as code that leaves the list's length
    to the run time. True when done (the interpreter continues at the loop's exit)."""
    from ember.capture.loops.appends import stack_of
    from ember.capture.loops.frame_branches import add_check
    from ember.capture.loops.region import loop_key

    exit_index = while_exit(tx, inst)
    if exit_index is None or loop_key(tx, inst) in tx.tracer.unrolled_loops or (
            not tx.tracer.loop_ops):
        return False
    empty = stack_of(tx, tested, tx.ip, exit_index)
    if empty is None:
        return False
    if empty is not False:
        add_check(tx, empty)
    _capture_or_refuse(tx, inst, tx.ip, exit_index, always_trips=True)
    return True


# What a `while` test on a list's length may hold besides `len(lst)`: `while len(q) > 0:`,
# `while len(q) != 0:`, `while len(q):`.
_LENGTH_TEST = frozenset({"LOAD_CONST", "PRECALL", "CALL", "COMPARE_OP", "PUSH_NULL"})


def length_tested(tx: Interpreter, inst: Instruction) -> VariableTracker | None:
    """The list whose length the test that `inst` jumps on compares (`while len(q) > 0:`),
    read from the frame's locals; None for any other test."""
    code = tx.instructions[max(0, inst.index - 8):inst.index]
    starts = [k for k, i in enumerate(code) if i.opname == "LOAD_GLOBAL" and i.argval == "len"]
    if not starts or tx.fn_globals.get("len", len) is not len:
        return None
    test = code[starts[-1] + 1:]
    loads = [i for i in test if i.opname == "LOAD_FAST"]
    if len(loads) != 1 or test[0] is not loads[0] or any(
            i.opname not in _LENGTH_TEST for i in test[1:]):
        return None
    return tx.locals.get(str(loads[0].argval))


def while_true(tx: Interpreter, inst: Instruction) -> bool:
    """The NOP `inst` that starts a `while True:` at the frame's level, when capture was told
    to make it a loop op (a branch on an array value in its body: `if not unstable.any():
    break`): the loop is one loop op from its first trip, left by a `break` or a `return` on
    a path of a branch. True when done (the interpreter continues at the loop's exit)."""
    if tx.graph.parent is not None or not _told(tx, inst):
        return False
    top = true_top(tx, inst)
    if top is None:
        return False
    exit_index = loop_exit(tx, top, top)
    if exit_index is None:
        return False
    _capture_or_refuse(tx, inst, top, exit_index)
    return True


def _told(tx: Interpreter, inst: Instruction) -> bool:
    """Whether capture was told to make the loop that `inst` starts a loop op
    (`loops.retry_as_loop_op`), and has not refused it since."""
    from ember.capture.loops.region import loop_key

    key = loop_key(tx, inst)
    return key in tx.tracer.long_loops and key not in tx.tracer.unrolled_loops


def _capture_or_refuse(tx: Interpreter, inst: Instruction, top: int, exit_index: int,
                       always_trips: bool = False) -> None:
    from ember.capture.loops.region import LoopRefused, loop_key
    from ember.errors import Unsupported

    try:
        capture_while(tx, top, exit_index, always_trips=always_trips or inst.opname == "NOP")
    except Unsupported as exc:
        raise LoopRefused(loop_key(tx, inst), exc.reason) from exc
