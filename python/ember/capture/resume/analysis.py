"""Static facts about a 3.11 code object that decide where it can be resumed.

For every instruction offset this module computes, by a forward walk over the control-flow
graph (normal edges and exception-table edges), the value-stack depth before the instruction
and how many handled exceptions are active (``PUSH_EXC_INFO`` not yet undone by
``POP_EXCEPT``). A backward walk gives the locals that are live before each instruction. From
these, :func:`check_resumable` says whether a resume function may start at an offset, and
why not when it may not.
"""

from __future__ import annotations

import dis
import opcode
from dataclasses import dataclass
from types import CodeType

from ember.capture.bytecode import (
    CO_OPTIMIZED,
    UNCONDITIONAL_JUMPS,
    ExceptionTableEntry,
    exception_table,
    is_generator_like,
)
from ember.errors import Unsupported

# Instructions after which control never falls through to the next instruction.
_NO_FALLTHROUGH = frozenset(
    opcode.opmap[name]
    for name in UNCONDITIONAL_JUMPS | {"RETURN_VALUE", "RAISE_VARARGS", "RERAISE"}
)
_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)
BACKWARD_JUMPS = frozenset({"JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT",
                            "POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_FALSE",
                            "POP_JUMP_BACKWARD_IF_NONE", "POP_JUMP_BACKWARD_IF_NOT_NONE"})


class ResumeError(Unsupported):
    """No resume function can continue this code at this offset.

    The caller runs the whole frame as plain Python instead of breaking the graph there.
    Like the NumPy mapping's refusals it carries its own text, so its catalogue kind is empty.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(
            reason,
            "the frame runs as plain Python; a graph break outside exception handlers and "
            "between whole calls can be resumed",
        )


@dataclass(frozen=True)
class CodeFacts:
    """Per-offset facts of one code object; offsets are those of ``dis.get_instructions``."""

    instructions: dict[int, dis.Instruction]
    order: list[int]
    # Where ``EXTENDED_ARG`` prefixes an instruction: prefix offset -> instruction offset.
    prefixed: dict[int, int]
    resume_offset: int
    stack_depth: dict[int, int]
    handled_exceptions: dict[int, int]
    live_in: dict[int, frozenset[str]]
    entries: list[ExceptionTableEntry]


def _handler_for(entries: list[ExceptionTableEntry], offset: int) -> ExceptionTableEntry | None:
    # The compiler emits non-overlapping rows, so the first match is the only one.
    for entry in entries:
        if entry.start <= offset < entry.end:
            return entry
    return None


@dataclass(frozen=True)
class Edge:
    """A control-flow edge. A normal edge changes the depth by ``effect``; an exception edge
    (``effect`` None) cuts the stack to ``depth`` and then pushes the handler's values."""

    target: int
    effect: int | None
    depth: int = 0
    pushed: int = 0


def _successors(
    inst: dis.Instruction, next_offset: int | None, entries: list[ExceptionTableEntry]
) -> list[Edge]:
    edges = []
    op, arg = inst.opcode, inst.arg
    if op not in _NO_FALLTHROUGH and next_offset is not None:
        effect = (
            dis.stack_effect(op, arg, jump=False) if op in _JUMPS else dis.stack_effect(op, arg)
        )
        edges.append(Edge(next_offset, effect))
    if op in _JUMPS:
        edges.append(Edge(inst.argval, dis.stack_effect(op, arg, jump=True)))
    # PUSH_EXC_INFO cannot raise, and an edge from before it would reach the cleanup handler
    # without the exception it saves.
    handler = _handler_for(entries, inst.offset)
    if handler is not None and inst.opname != "PUSH_EXC_INFO":
        edges.append(Edge(handler.target, None, handler.depth, handler.lasti + 1))
    return edges


def analyse(code: CodeType) -> CodeFacts:
    """Stack depth, handled-exception count and live locals before every instruction."""
    instructions: dict[int, dis.Instruction] = {}
    prefixed: dict[int, int] = {}
    pending_prefix: int | None = None
    for inst in dis.get_instructions(code):
        if inst.opname == "EXTENDED_ARG":
            pending_prefix = inst.offset if pending_prefix is None else pending_prefix
            continue
        if pending_prefix is not None:
            prefixed[pending_prefix] = inst.offset
            pending_prefix = None
        instructions[inst.offset] = inst
    order = sorted(instructions)
    following = dict(zip(order, order[1:] + [None]))
    entries = exception_table(code)
    resume_offset = next(off for off in order if instructions[off].opname == "RESUME")

    # The state before an instruction: the stack depth, and the stack index of each exception
    # that PUSH_EXC_INFO saved (the one handled before it). An exception edge cuts the stack,
    # so the handled exceptions at a handler are those saved below its depth.
    stack_depth: dict[int, int] = {}
    saved_at: dict[int, tuple[int, ...]] = {}
    edges: dict[int, list[Edge]] = {}
    worklist: list[tuple[int, int, tuple[int, ...]]] = [(resume_offset, 0, ())]
    while worklist:
        offset, depth, saved = worklist.pop()
        # A jump to a prefixed instruction lands on its EXTENDED_ARG.
        offset = prefixed.get(offset, offset)
        if offset in stack_depth:
            if (stack_depth[offset], saved_at[offset]) != (depth, saved):
                raise ResumeError(
                    f"{code.co_name}: the stack at offset {offset} is inconsistent "
                    f"({stack_depth[offset]}, {saved_at[offset]} or {depth}, {saved})"
                )
            continue
        stack_depth[offset] = depth
        saved_at[offset] = saved
        inst = instructions[offset]
        edges[offset] = _successors(inst, following[offset], entries)
        for edge in edges[offset]:
            if edge.effect is None:
                kept = tuple(index for index in saved if index < edge.depth)
                worklist.append((edge.target, edge.depth + edge.pushed, kept))
                continue
            after = saved
            if inst.opname == "PUSH_EXC_INFO":
                after = saved + (depth - 1,)
            elif inst.opname == "POP_EXCEPT":
                after = saved[:-1]
            worklist.append((edge.target, depth + edge.effect, after))

    return CodeFacts(
        instructions=instructions,
        order=order,
        prefixed=prefixed,
        resume_offset=resume_offset,
        stack_depth=stack_depth,
        handled_exceptions={off: len(saved) for off, saved in saved_at.items()},
        live_in=_liveness(instructions, edges, prefixed),
        entries=entries,
    )


def _liveness(
    instructions: dict[int, dis.Instruction],
    edges: dict[int, list[Edge]],
    prefixed: dict[int, int],
) -> dict[int, frozenset[str]]:
    """Plain (non-cell) locals that some path from each instruction reads before writing.

    ``DELETE_FAST`` counts as a read: deleting an unbound local raises. An exception edge can
    be taken before the instruction writes anything, so its target's live set is not reduced
    by the instruction's own store.
    """
    live: dict[int, frozenset[str]] = {off: frozenset() for off in edges}
    changed = True
    while changed:
        changed = False
        for offset in sorted(edges, reverse=True):
            inst = instructions[offset]
            normal: set[str] = set()
            exceptional: set[str] = set()
            for edge in edges[offset]:
                target_live = live.get(prefixed.get(edge.target, edge.target), frozenset())
                (exceptional if edge.effect is None else normal).update(target_live)
            if inst.opname in ("STORE_FAST", "DELETE_FAST"):
                normal.discard(inst.argval)
            if inst.opname in ("LOAD_FAST", "DELETE_FAST"):
                normal.add(inst.argval)
            new = frozenset(normal | exceptional)
            if new != live[offset]:
                live[offset] = new
                changed = True
    return live


def super_first_argument(code: CodeType) -> str | None:
    """The argument that zero-argument ``super()`` reads from the frame, if the code calls it.

    ``super()`` without arguments takes ``__class__`` from the closure and the object from
    the frame's first local slot (Objects/typeobject.c, ``super_init_without_args``), so a
    resume function must keep that argument first.
    """
    if "__class__" in code.co_freevars and "super" in code.co_names and code.co_argcount:
        return code.co_varnames[0]
    return None


def check_resumable(code: CodeType, facts: CodeFacts, offset: int, stack_depth: int) -> int:
    """The offset of the instruction a resume function at ``offset`` starts with.

    Raises :class:`ResumeError` with the reason when the frame cannot be continued there.
    """
    where = f"{code.co_name} ({code.co_filename}:{code.co_firstlineno}) at offset {offset}"
    if is_generator_like(code):
        raise ResumeError(f"{where}: generators and coroutines are not resumed")
    if not code.co_flags & CO_OPTIMIZED:
        raise ResumeError(f"{where}: module and class bodies keep their locals in a dict")
    first = super_first_argument(code)
    if first is not None and first in code.co_cellvars:
        raise ResumeError(
            f"{where}: zero-argument super() reads {first!r} from the first frame slot, but "
            "it is a cell variable here"
        )
    offset = facts.prefixed.get(offset, offset)
    inst = facts.instructions.get(offset)
    if inst is None:
        raise ResumeError(f"{where}: not the start of an instruction")
    if offset <= facts.resume_offset:
        raise ResumeError(f"{where}: the frame has not started; call the function itself")
    if offset not in facts.stack_depth:
        raise ResumeError(f"{where}: the instruction is unreachable")
    if facts.handled_exceptions[offset]:
        raise ResumeError(
            f"{where}: inside an exception handler, whose exception is on the stack and in "
            "sys.exc_info() where a resume function cannot put it back"
        )
    if inst.opname == "CALL":
        raise ResumeError(f"{where}: between PRECALL and CALL")
    previous = facts.order[facts.order.index(offset) - 1]
    if inst.opname == "PRECALL" and facts.instructions[previous].opname == "KW_NAMES":
        raise ResumeError(
            f"{where}: between KW_NAMES and CALL, whose keyword names live outside the stack"
        )
    if facts.stack_depth[offset] != stack_depth:
        raise ResumeError(
            f"{where}: the stack holds {facts.stack_depth[offset]} values there, not {stack_depth}"
        )
    return offset
