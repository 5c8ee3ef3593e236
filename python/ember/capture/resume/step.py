"""Step codes: run one instruction of a frame as plain Python, then say where to go on.

At a graph break the entry calls a *step function* with the frame's stack and live locals just
before the refused instruction (a whole ``[KW_NAMES] PRECALL CALL`` for calls). The step code
is the original code behind a resume prologue, like a resume code, except that the edges
leaving that instruction go to *stubs*::

    COPY_FREE_VARS n / RESUME 0 / LOAD_FAST __stack0 ... / JUMP_FORWARD start
    <original code>
      start: ... the instruction ...   # a jump's target retargeted to stub_jump
             JUMP_FORWARD stub_fall    # inserted after it
    <rest of the original code>
    stub_fall: STORE_FAST __ember_t<k> for every stack slot (top first)
               PUSH_NULL; LOAD_CONST continue; LOAD_CONST <resume code>
               LOAD_CLOSURE <each cell> ; BUILD_TUPLE  (or LOAD_CONST None)
               LOAD_FAST __ember_t<k> (non-NULL slots); LOAD_FAST <live locals>
               PRECALL; CALL; RETURN_VALUE
    stub_jump: ...

A stub returns ``continue(resume_code, closure, *stack, *locals)`` (a ``Continuation``) for
the caller's trampoline to call the resume function with, so a loop that breaks on every
iteration does not nest one Python call per iteration. Stubs sit after all the original
code, outside every exception-table range: an exception raised by the instruction itself
reaches the user's handler in the step code (which then runs on as plain Python), while the
resume code has its own copy of every handler for what happens later.

An edge no resume function can continue from (into an exception handler, say) keeps its
original target, and the step runs the rest of the frame as plain Python.

NULLs: 3.11 keeps NULL below a callable until its call; a NULL slot stays NULL after the
instruction exactly when the instruction does not consume it, i.e. when the slot above it
(its callable) is still below the new top of the stack.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import CodeType

import bytecode as bc

from ember.capture.resume.analysis import CodeFacts, ResumeError, _handler_for
from ember.capture.resume.assemble import (
    add_prologue,
    finish,
    resume_argnames,
    stack_argname,
    template_body,
)

# Instructions that push NULL: the stack after them cannot be handed on (a NULL cannot be
# told from a value in a local), so a graph never breaks at them.
NULL_PUSHING = frozenset({"PUSH_NULL", "LOAD_METHOD"})
_NO_FALLTHROUGH = frozenset(
    {"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "RETURN_VALUE",
     "RAISE_VARARGS", "RERAISE"}
)
_JUMPS_WITH_TARGET = frozenset(
    {"POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_FORWARD_IF_FALSE",
     "POP_JUMP_BACKWARD_IF_FALSE", "POP_JUMP_FORWARD_IF_NONE", "POP_JUMP_BACKWARD_IF_NONE",
     "POP_JUMP_FORWARD_IF_NOT_NONE", "POP_JUMP_BACKWARD_IF_NOT_NONE", "JUMP_IF_TRUE_OR_POP",
     "JUMP_IF_FALSE_OR_POP", "FOR_ITER", "JUMP_FORWARD", "JUMP_BACKWARD",
     "JUMP_BACKWARD_NO_INTERRUPT"}
)


@dataclass(frozen=True)
class Exit:
    """One edge out of the stepped instruction: the offset it reaches and the resume code that
    continues there (the stack and locals it takes are those of ``resume_origin``)."""

    offset: int
    resume: CodeType
    stack_depth: int
    null_slots: frozenset[int]
    live_locals: tuple[str, ...]


def step_name(code: CodeType, offset: int) -> str:
    """A step runs the user's own instruction: tracebacks through it name the user's
    function (the frame hook knows step codes by identity, not by name)."""
    return code.co_name


def group_end(facts: CodeFacts, start: int) -> int:
    """The last instruction of the group a step starts at: a call's ``CALL`` after its
    ``[KW_NAMES] PRECALL``, otherwise the instruction itself."""
    index = facts.order.index(start)
    while facts.instructions[facts.order[index]].opname in ("KW_NAMES", "PRECALL"):
        index += 1
    return facts.order[index]


def successors(facts: CodeFacts, end: int) -> tuple[int | None, int | None]:
    """The fall-through and jump offsets of the instruction at ``end`` (None where absent)."""
    inst = facts.instructions[end]
    fall = jump = None
    if inst.opname not in _NO_FALLTHROUGH:
        index = facts.order.index(end)
        fall = facts.order[index + 1] if index + 1 < len(facts.order) else None
    if inst.opname in _JUMPS_WITH_TARGET:
        jump = facts.prefixed.get(inst.argval, inst.argval)
    return fall, jump


def null_slots_after(null_slots: frozenset[int], depth_after: int) -> frozenset[int]:
    """The NULL slots that survive an instruction leaving ``depth_after`` values (module doc)."""
    return frozenset(slot for slot in null_slots if slot + 1 < depth_after)


def build_step_code(
    code: CodeType,
    facts: CodeFacts,
    start: int,
    stack_depth: int,
    null_slots: frozenset[int],
    live_locals: tuple[str, ...],
    fall: Exit | None,
    jump: Exit | None,
    make_continuation: object,
) -> CodeType:
    """The step code for the instruction group at the checked offset ``start`` of ``code``;
    ``fall``/``jump`` are the edges handed back as continuations (None: run on natively)."""
    end = group_end(facts, start)
    body, index_of = template_body(code, facts)
    position = index_of[end]
    inst = body[position]
    if inst.name in NULL_PUSHING or (inst.name == "LOAD_GLOBAL" and inst.arg[0]):
        raise ResumeError(f"{code.co_name}: {inst.name} at offset {end} pushes NULL")
    location = inst.location
    if any(e is not None and e.null_slots for e in (fall, jump)) and any(
            _handler_for(facts.entries, offset) is not None for offset in (start, end)):
        # A handler of what the instruction raises may run on into it again, below the
        # callable `LOAD_METHOD` leaves (a method and its object, not NULL and a bound
        # method): its stubs could not tell, so the step runs on as plain Python.
        fall = jump = None
    stubs: list = []
    if jump is not None:
        label = bc.Label()
        # Stubs come last, so the retargeted jump always goes forwards.
        name = inst.name.replace("BACKWARD_NO_INTERRUPT", "FORWARD").replace("BACKWARD",
                                                                              "FORWARD")
        body[position] = bc.Instr(name, label, location=location)
        stubs += _stub(code, label, jump, make_continuation, location)
    if fall is not None:
        label = bc.Label()
        body.insert(position + 1, bc.Instr("JUMP_FORWARD", label, location=location))
        stubs += _stub(code, label, fall, make_continuation, location)
    target = bc.Label()
    body.insert(index_of[start], target)
    body.extend(stubs)
    add_prologue(body, code, facts, start, stack_depth, null_slots, target)
    argnames = resume_argnames(code, stack_depth, null_slots, live_locals)
    exits = [e for e in (fall, jump) if e is not None]
    ncells = len(code.co_freevars) + len(code.co_cellvars)
    need = max((3 + e.stack_depth + len(e.live_locals) + max(ncells, 1) for e in exits),
               default=0)
    temporaries = tuple(_temporary(slot) for slot in range(max(
        (e.stack_depth for e in exits), default=0)))
    return finish(body, code, argnames, step_name(code, start),
                  max(code.co_stacksize, need), temporaries, qualname=code.co_qualname)


def _temporary(slot: int) -> str:
    return f"__ember_t{slot}"


def _stub(code: CodeType, label: bc.Label, edge: Exit, make_continuation: object,
          location: object) -> list:
    """Pack the stack and the live locals into ``make_continuation(resume, closure, ...)``."""
    out: list = [label]
    out += [bc.Instr("STORE_FAST", _temporary(slot), location=location)
            for slot in reversed(range(edge.stack_depth))]
    out += [bc.Instr("PUSH_NULL", location=location),
            bc.Instr("LOAD_CONST", make_continuation, location=location),
            bc.Instr("LOAD_CONST", edge.resume, location=location)]
    cells = [bc.FreeVar(name) for name in code.co_freevars] + [
        bc.CellVar(name) for name in code.co_cellvars]
    if cells:
        out += [bc.Instr("LOAD_CLOSURE", cell, location=location) for cell in cells]
        out.append(bc.Instr("BUILD_TUPLE", len(cells), location=location))
    else:
        out.append(bc.Instr("LOAD_CONST", None, location=location))
    # In the order of the resume code's parameters (zero-argument super()'s object first).
    slots = {stack_argname(code, slot): _temporary(slot) for slot in range(edge.stack_depth)}
    names = resume_argnames(code, edge.stack_depth, edge.null_slots, edge.live_locals)
    values = [bc.Instr("LOAD_FAST", slots.get(name, name), location=location) for name in names]
    out += values
    nargs = 2 + len(values)
    out += [bc.Instr("PRECALL", nargs, location=location),
            bc.Instr("CALL", nargs, location=location),
            bc.Instr("RETURN_VALUE", location=location)]
    return out
