"""Resume functions: code objects that continue a frame's bytecode from a given offset.

At a graph break the transformed code runs the graph so far, runs the unsupported
instruction in plain Python, then calls a resume function with the value stack and the live
locals at the next instruction. The resume function is a real code object (named
``__resume_at_<offset>_<name>``) that the frame hook intercepts like any other.

Calling convention of ``make_resume(code, offset, ...)``:

- positional arguments, in the order of ``co_varnames[:co_argcount]``: ``__stack<i>``
  (``stack_argname``) for every stack slot ``i`` from the bottom that is not NULL, then
  ``live_locals`` in the given order. One exception: when the code calls zero-argument
  ``super()``, the original's first argument (``self``), which must then be live, moves to
  the front, where ``super()`` looks for it;
- NULL stack slots (pushed before some calls) take no argument; the prologue pushes NULL;
- ``co_freevars``: the original's ``co_freevars`` then its ``co_cellvars`` (named
  ``__ember_cell_<name>``; ``frame_cell_name`` gives the name back). The function is
  built with the original's closure followed by one cell per cell variable: the frame's own
  cells where they exist (``LOAD_CLOSURE`` of each name, ``BUILD_TUPLE``, ``MAKE_FUNCTION 8``),
  which keeps them shared with closures made before the break; otherwise new cells
  (``types.CellType(value)``, or empty while unassigned). ``make_resume_function`` does this.
"""

from __future__ import annotations

import types
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import CodeType, FunctionType
from typing import Self

from ember import logging as ember_logging
from ember.capture.code_map import CodeMap
from ember.capture.resume.analysis import (
    BACKWARD_JUMPS,
    CodeFacts,
    ResumeError,
    analyse,
    check_resumable,
    super_first_argument,
)
from ember.capture.resume.assemble import (
    build_resume_code,
    clear_templates,
    disassemble,
    frame_cell_name,
    stack_argname,
)
from ember.capture.resume.continuation import (
    Continuation,
    ResumableIterator,
    make_continuation,
    trampoline,
)
from ember.capture.resume.step import Exit, build_step_code, group_end, null_slots_after, successors

__all__ = [
    "NULL",
    "Continuation",
    "ResumableIterator",
    "ResumeError",
    "ResumeOrigin",
    "clear_cache",
    "disassemble",
    "frame_cell_name",
    "live_locals_at",
    "make_resume",
    "make_resume_function",
    "make_step",
    "make_step_function",
    "reexecute_offset",
    "resume_codes_of",
    "resume_origin",
    "resume_stack_depth",
    "stack_argname",
    "trampoline",
]


class _Null:
    """Marks a NULL stack slot in a captured stack: it is pushed, never passed."""

    _instance: _Null | None = None

    def __new__(cls) -> Self:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NULL"


NULL = _Null()

# code -> facts, and code -> {(offset, depth, null slots, live locals): resume code}. Weak on
# the code object so that a collected function takes its resume functions with it.
_facts: CodeMap[CodeFacts] = CodeMap()
_resumes: CodeMap[dict[tuple, CodeType]] = CodeMap()
_steps: CodeMap[dict[tuple, CodeType]] = CodeMap()


@dataclass(frozen=True)
class ResumeOrigin:
    """Where a resume code continues: ``code`` at ``offset``, its parameters being the non-NULL
    slots of a stack of ``stack_depth`` then ``live_locals`` (see the calling convention).
    The original code is held weakly: it owns its resume codes (``_resumes``), not the
    other way round, or neither would ever be freed."""

    code_ref: weakref.ref
    offset: int
    stack_depth: int
    null_slots: frozenset[int]
    live_locals: tuple[str, ...]
    in_loop: bool  # a backward jump at or after the offset reaches it or a point before it

    @property
    def code(self) -> CodeType | None:
        """The original code (None once it died)."""
        return self.code_ref()


# resume code -> its origin. Facts about code objects, so `clear_cache` keeps them.
_origins: CodeMap[ResumeOrigin] = CodeMap()


def clear_cache() -> None:
    """Forget every analysis, resume and step code (part of ``ember.reset()``)."""
    _facts.clear()
    _resumes.clear()
    _steps.clear()
    clear_templates()


def resume_codes_of(code: CodeType) -> list[CodeType]:
    """The resume codes made for `code` so far."""
    return list(_resumes.get(code, {}).values())


def resume_origin(code: CodeType) -> ResumeOrigin | None:
    """What ``code`` resumes, if ``make_resume`` made it."""
    return _origins.get(code)


def _facts_of(code: CodeType) -> CodeFacts:
    facts = _facts.get(code)
    if facts is None:
        facts = _facts[code] = analyse(code)
    return facts


def resume_stack_depth(code: CodeType, offset: int) -> int:
    """How many values the stack holds before the instruction at ``offset``."""
    facts = _facts_of(code)
    offset = facts.prefixed.get(offset, offset)
    if offset not in facts.stack_depth:
        raise ResumeError(f"{code.co_name}: offset {offset} is not a reachable instruction")
    return facts.stack_depth[offset]


def reexecute_offset(code: CodeType, offset: int) -> int:
    """Where a resume function must start so that it runs the instruction at ``offset``.

    Resuming *at* the instruction that broke the graph (rather than after it, with its result)
    lets the user's ``try``/``with`` blocks see its exceptions. A call is one sequence
    ``[KW_NAMES] PRECALL CALL`` whose middle cannot be resumed: its start is returned.
    """
    facts = _facts_of(code)
    offset = facts.prefixed.get(offset, offset)
    index = facts.order.index(offset)

    def opname(i: int) -> str:
        return facts.instructions[facts.order[i]].opname

    for later, earlier in (("CALL", "PRECALL"), ("PRECALL", "KW_NAMES")):
        if index > 0 and opname(index) == later and opname(index - 1) == earlier:
            index -= 1
    start = facts.order[index]
    return next((p for p, o in facts.prefixed.items() if o == start), start)


def live_locals_at(code: CodeType, offset: int) -> list[str]:
    """Plain locals that the code may read after ``offset`` before assigning them.

    Cell and free variables are not included: they travel in the closure. Names read only
    through ``locals()``, ``vars()``, ``eval`` or ``exec`` are invisible here.
    """
    facts = _facts_of(code)
    offset = facts.prefixed.get(offset, offset)
    live = set(facts.live_in.get(offset, frozenset()))
    first = super_first_argument(code)
    if first is not None:
        # zero-argument super() reads it without a LOAD_FAST.
        live.add(first)
    return [name for name in code.co_varnames if name in live]


def make_resume(
    code: CodeType,
    offset: int,
    stack_depth: int,
    live_locals: Sequence[str],
    *,
    null_slots: Iterable[int] = (),
) -> CodeType:
    """The code object that continues ``code`` at the instruction at byte ``offset``.

    ``stack_depth`` is the number of values on the stack before that instruction, of which
    ``null_slots`` (counted from the bottom) are NULL. ``live_locals`` are the plain locals
    passed in, after the stack values. Raises :class:`ResumeError` where the frame cannot be
    continued (the caller then runs the whole frame as plain Python).
    """
    nulls = frozenset(null_slots)
    live = tuple(live_locals)
    key = (offset, stack_depth, nulls, live)
    cached = _resumes.get(code, {}).get(key)
    if cached is not None:
        return cached
    facts, start = _checked(code, offset, stack_depth, nulls, live)
    resume = build_resume_code(code, facts, start, stack_depth, nulls, live)
    _resumes.setdefault(code, {})[key] = resume
    in_loop = any(inst.opname in BACKWARD_JUMPS and inst.argval <= start <= inst.offset
                  for inst in facts.instructions.values())
    _origins[resume] = ResumeOrigin(weakref.ref(code), start, stack_depth, nulls, live, in_loop)
    if ember_logging.enabled("code"):
        ember_logging.log("code", f"{resume.co_name}:\n{disassemble(resume)}")
    return resume


def _checked(code: CodeType, offset: int, stack_depth: int, nulls: frozenset[int],
             live: tuple[str, ...]) -> tuple[CodeFacts, int]:
    """The code's facts and the instruction a resume or step code starts with, once the
    offset and the arguments are checked (`ResumeError`, `ValueError`)."""
    facts = _facts_of(code)
    start = check_resumable(code, facts, offset, stack_depth)
    _check_arguments(code, stack_depth, nulls, live)
    return facts, start


def _check_arguments(code: CodeType, stack_depth: int, nulls: frozenset[int],
                     live: tuple[str, ...]) -> None:
    if any(not 0 <= slot < stack_depth for slot in nulls):
        raise ValueError(f"NULL slots {sorted(nulls)} outside a stack of {stack_depth}")
    for name in live:
        if name in code.co_cellvars or name in code.co_freevars:
            raise ValueError(f"{name!r} is a cell variable: it travels in the closure")
        if name not in code.co_varnames:
            raise ValueError(f"{name!r} is not a local of {code.co_name}")
    if len(set(live)) != len(live):
        raise ValueError(f"live locals repeat a name: {live}")
    first = super_first_argument(code)
    if first is not None and first not in live:
        raise ResumeError(
            f"{code.co_name}: zero-argument super() needs {first!r}, which is not passed"
        )


def make_step(
    code: CodeType,
    offset: int,
    stack_depth: int,
    live_locals: Sequence[str],
    *,
    null_slots: Iterable[int] = (),
) -> CodeType:
    """The step code that runs the instruction group starting at ``offset`` of ``code`` as
    plain Python and returns a :class:`Continuation` for each edge leaving it that a resume
    code can continue from (see ``step.py``); its parameters are those of
    ``make_resume(code, offset, stack_depth, live_locals)``. Raises :class:`ResumeError` where
    the frame cannot be stepped there.
    """
    nulls = frozenset(null_slots)
    live = tuple(live_locals)
    key = (offset, stack_depth, nulls, live)
    cached = _steps.get(code, {}).get(key)
    if cached is not None:
        return cached
    facts, start = _checked(code, offset, stack_depth, nulls, live)
    end = facts.instructions[group_end(facts, start)]
    # The locals bound after the instruction: those passed, and the one it stores.
    bound = set(live)
    if end.opname == "STORE_FAST":
        bound.add(end.argval)
    elif end.opname == "DELETE_FAST":
        bound.discard(end.argval)
    fall, jump = successors(facts, end.offset)
    step = build_step_code(code, facts, start, stack_depth, nulls, live,
                           _exit(code, facts, fall, nulls, bound),
                           _exit(code, facts, jump, nulls, bound), make_continuation)
    _steps.setdefault(code, {})[key] = step
    if ember_logging.enabled("code"):
        ember_logging.log("code", f"step of {code.co_name} at {start}:\n{disassemble(step)}")
    return step


def _exit(code: CodeType, facts: CodeFacts, offset: int | None, nulls: frozenset[int],
          bound: set[str]) -> Exit | None:
    """The edge to ``offset`` as a continuation, or None: the step runs on as plain Python
    there (no resume function can start at that offset)."""
    if offset is None or offset not in facts.stack_depth:
        return None
    depth = facts.stack_depth[offset]
    after_nulls = null_slots_after(nulls, depth)
    after_live = tuple(name for name in live_locals_at(code, offset) if name in bound)
    try:
        resume = make_resume(code, offset, depth, after_live, null_slots=after_nulls)
    except ResumeError:
        return None
    return Exit(offset, resume, depth, after_nulls, after_live)


def make_resume_function(
    func: FunctionType,
    offset: int,
    stack_depth: int,
    live_locals: Sequence[str],
    *,
    null_slots: Iterable[int] = (),
    cells: Mapping[str, types.CellType] | None = None,
) -> FunctionType:
    """``make_resume`` for ``func``'s code, built into a function with ``func``'s globals.

    Its closure is ``func``'s closure followed by ``cells`` (the frame's cell for each of
    ``code.co_cellvars``); a cell variable missing from ``cells`` starts as an empty cell.
    """
    code = func.__code__
    resume = make_resume(code, offset, stack_depth, live_locals, null_slots=null_slots)
    return _function(func, resume, cells)


def make_step_function(
    func: FunctionType,
    offset: int,
    stack_depth: int,
    live_locals: Sequence[str],
    *,
    null_slots: Iterable[int] = (),
    cells: Mapping[str, types.CellType] | None = None,
) -> FunctionType:
    """``make_step`` for ``func``'s code, built into a function as ``make_resume_function``
    builds one. What it returns goes to ``trampoline``."""
    step = make_step(func.__code__, offset, stack_depth, live_locals, null_slots=null_slots)
    return _function(func, step, cells)


def _function(func: FunctionType, code: CodeType,
              cells: Mapping[str, types.CellType] | None) -> FunctionType:
    original = func.__code__
    cells = cells or {}
    unknown = set(cells) - set(original.co_cellvars)
    if unknown:
        raise ValueError(f"{sorted(unknown)} are not cell variables of {original.co_name}")
    closure = tuple(func.__closure__ or ()) + tuple(
        cells.get(name, types.CellType()) for name in original.co_cellvars
    )
    return FunctionType(code, func.__globals__, code.co_name, None, closure or None)
