"""Build a resume code object: a prologue that rebuilds the frame, then the original code.

Layout of the generated code::

    COPY_FREE_VARS n        # original free variables, then the original cell variables
    RESUME 0
    LOAD_FAST __stack0      # or PUSH_NULL for a NULL slot
    ...
    JUMP_FORWARD target     # the original instruction at the resume offset
    <original code without its own MAKE_CELL / COPY_FREE_VARS / RESUME prologue>

The original instructions stay whole, so jumps backwards into a loop that contains the offset,
the exception table (``try``/``with`` blocks spanning the offset) and the line table all keep
their meaning. Every state the resumed code can reach is a state of the original code with
the same stack, so the original ``co_stacksize`` and exception-handler depths stay exact and
are kept as they are rather than recomputed.

The caller passes the frame's own cells in the closure (after the original's free variables,
as ``__ember_cell_<name>``), so closures created before the break and the resumed code keep
sharing them. The cell variables stay cell variables of the resume code: the prologue moves
each passed cell into its cell slot (a ``STORE_FAST`` retargeted at that slot), so that
reading one while unbound raises Python's ``UnboundLocalError``, not the ``NameError`` of a
free variable::

    COPY_FREE_VARS n
    LOAD_CLOSURE __ember_cell_x
    STORE_FAST x            # x's cell slot
    RESUME 0
    ...
"""

from __future__ import annotations

import copy
import dis
import io
from dataclasses import dataclass
from types import CodeType

import bytecode as bc
from bytecode.instr import InstrLocation

from ember.capture.code_map import CodeMap
from ember.capture.resume.analysis import CodeFacts, ResumeError, super_first_argument

# A resume code's free variable that carries the frame's cell of this cell variable.
CELL_PREFIX = "__ember_cell_"
# A local the prologue's `STORE_FAST` of a cell names until it is retargeted at the cell slot.
_SLOT_PREFIX = "__ember_slot_"
_STORE_FAST = dis.opmap["STORE_FAST"]

_PROLOGUE_OPS = frozenset({"MAKE_CELL", "COPY_FREE_VARS", "RESUME"})
_CELL_MOVES = frozenset({"LOAD_CLOSURE", "STORE_FAST"})
# Flags that describe the original's signature or frame kind, not the resume function's.
_DROPPED_FLAGS = (
    bc.CompilerFlags.VARARGS
    | bc.CompilerFlags.VARKEYWORDS
    | bc.CompilerFlags.GENERATOR
    | bc.CompilerFlags.COROUTINE
    | bc.CompilerFlags.ITERABLE_COROUTINE
    | bc.CompilerFlags.ASYNC_GENERATOR
)


def stack_argname(code: CodeType, slot: int) -> str:
    """The argument of ``code``'s resume functions that carries stack slot ``slot`` (0 is the
    bottom): ``__stack<slot>``, with more leading underscores when ``code`` (itself a resume
    function) already has locals of that form."""
    prefix = "__stack"
    while any(name.startswith(prefix) for name in code.co_varnames):
        prefix = "_" + prefix
    return f"{prefix}{slot}"


def resume_name(code: CodeType, offset: int) -> str:
    return f"__resume_at_{offset}_{code.co_name}"


@dataclass(frozen=True)
class _Template:
    """``code``'s instructions ready to follow a prologue, shared by all its resume codes.

    ``body`` is never mutated after it is built: each resume code copies the list and adds
    its own label and prologue (the assembler only reads the shared instructions).
    """

    body: bc.Bytecode
    # Index in ``body`` of the instruction at each offset (offsets as in ``CodeFacts.order``).
    index_of: dict[int, int]


_templates: CodeMap[_Template] = CodeMap()


def clear_templates() -> None:
    _templates.clear()


def _template(code: CodeType, facts: CodeFacts) -> _Template:
    cached = _templates.get(code)
    if cached is not None:
        return cached
    body = bc.Bytecode.from_code(_untargeted(code), conserve_exception_block_stackdepth=True)
    # Drop the original prologue: each resume code makes the cells and free variables itself.
    # (That of a resume code also moves its cells into their slots before its RESUME.)
    first = next(i for i, item in enumerate(body) if isinstance(item, bc.Instr))
    resume = next(i for i, item in enumerate(body)
                  if isinstance(item, bc.Instr) and item.name == "RESUME")
    if not all(isinstance(item, bc.Instr) and item.name in _PROLOGUE_OPS | _CELL_MOVES
               for item in body[first:resume]):
        raise AssertionError(f"{code.co_name}: unexpected instructions before RESUME")
    del body[first : resume + 1]
    # The abstract instructions are those of dis without EXTENDED_ARG, in the same order.
    positions = [i for i, item in enumerate(body) if isinstance(item, bc.Instr)]
    kept = facts.order[len(facts.order) - len(positions) :]
    if any(body[p].name != facts.instructions[o].opname for p, o in zip(positions, kept)):
        raise AssertionError(f"bytecode and dis disagree on {code.co_name}'s instructions")
    template = _templates[code] = _Template(body, dict(zip(kept, positions)))
    return template


def build_resume_code(
    code: CodeType,
    facts: CodeFacts,
    offset: int,
    stack_depth: int,
    null_slots: frozenset[int],
    live_locals: tuple[str, ...],
) -> CodeType:
    """The resume code for ``code`` at the checked instruction ``offset``."""
    template = _template(code, facts)
    # A shallow copy: a list of the shared instructions; attributes are reassigned below.
    body = copy.copy(template.body)
    target = bc.Label()
    body.insert(template.index_of[offset], target)
    add_prologue(body, code, facts, offset, stack_depth, null_slots, target)
    argnames = resume_argnames(code, stack_depth, null_slots, live_locals)
    return finish(body, code, argnames, resume_name(code, offset), code.co_stacksize)


def template_body(code: CodeType, facts: CodeFacts) -> tuple[bc.Bytecode, dict[int, int]]:
    """A fresh list of ``code``'s shared instructions without its prologue, and the index in it
    of the instruction at each offset. Items may be inserted and replaced, never mutated."""
    template = _template(code, facts)
    return copy.copy(template.body), template.index_of


def add_prologue(
    body: bc.Bytecode,
    code: CodeType,
    facts: CodeFacts,
    offset: int,
    stack_depth: int,
    null_slots: frozenset[int],
    target: bc.Label,
) -> None:
    """Put the prologue in front of ``body``: cells, ``RESUME``, the stack from the arguments
    (NULL where ``null_slots`` says), then a jump to ``target``."""
    freevars = closure_names(code)
    location = _prologue_location(code, facts, offset)
    prologue = []
    if freevars:
        prologue.append(bc.Instr("COPY_FREE_VARS", len(freevars), location=location))
    for name, carrier in zip(code.co_cellvars, freevars[len(code.co_freevars):]):
        prologue += [bc.Instr("LOAD_CLOSURE", bc.FreeVar(carrier), location=location),
                     bc.Instr("STORE_FAST", _SLOT_PREFIX + name, location=location)]
    prologue.append(bc.Instr("RESUME", 0, location=location))
    for slot in range(stack_depth):
        if slot in null_slots:
            prologue.append(bc.Instr("PUSH_NULL", location=location))
        else:
            prologue.append(bc.Instr("LOAD_FAST", stack_argname(code, slot), location=location))
    prologue.append(bc.Instr("JUMP_FORWARD", target, location=location))
    body[0:0] = prologue


def resume_argnames(
    code: CodeType, stack_depth: int, null_slots: frozenset[int], live_locals: tuple[str, ...]
) -> list[str]:
    """The positional parameters of a resume (or step) code: the non-NULL stack slots, then
    the live locals; zero-argument ``super()``'s object first."""
    argnames = [stack_argname(code, s) for s in range(stack_depth) if s not in null_slots]
    argnames += live_locals
    first = super_first_argument(code)
    if first is not None:
        argnames.remove(first)
        argnames.insert(0, first)
    return argnames


def finish(
    body: bc.Bytecode,
    code: CodeType,
    argnames: list[str],
    name: str,
    stacksize: int,
    extra_varnames: tuple[str, ...] = (),
    qualname: str | None = None,
) -> CodeType:
    """Assemble ``body`` as a function of ``argnames`` whose closure holds ``code``'s free
    variables then its cell variables."""
    freevars = closure_names(code)
    body.argnames = argnames
    body.argcount = len(argnames)
    body.posonlyargcount = 0
    body.kwonlyargcount = 0
    body.varnames = argnames + [
        v for v in code.co_varnames if v not in argnames and v not in code.co_cellvars
    ] + list(extra_varnames)
    body.varnames += [_SLOT_PREFIX + name for name in code.co_cellvars
                      if _SLOT_PREFIX + name not in body.varnames]
    body.cellvars = list(code.co_cellvars)
    body.freevars = freevars
    body.flags = bc.CompilerFlags(body.flags & ~_DROPPED_FLAGS)
    if freevars:
        body.flags |= bc.CompilerFlags.NESTED
    body.name = name
    body.qualname = qualname or name
    # A docstring would become the function's __doc__; it has none.
    body.docstring = None
    if code.co_cellvars:
        stacksize = max(stacksize, 1)  # the prologue moves each cell through the stack
    new = body.to_code(stacksize=stacksize, compute_exception_stack_depths=False)
    if new.co_varnames[: new.co_argcount] != tuple(argnames):
        raise AssertionError(f"{new.co_name}: arguments assembled as {new.co_varnames}")
    return _retarget_cell_stores(new) if code.co_cellvars else new


def closure_names(code: CodeType) -> list[str]:
    """The free variables of ``code``'s resume codes, in the order of the closure they are
    built with: ``code``'s free variables, then one per cell variable (``code`` may itself
    be a resume code, with free variables of that form already)."""
    names = list(code.co_freevars)
    for name in code.co_cellvars:
        carrier = CELL_PREFIX + name
        while carrier in names:
            carrier = CELL_PREFIX + carrier
        names.append(carrier)
    return names


def frame_cell_name(name: str) -> str:
    """The variable of the resumed frame that a resume code's free variable ``name`` holds."""
    return name.removeprefix(CELL_PREFIX)


def _untargeted(code: CodeType) -> CodeType:
    """``code`` (a resume code) with its prologue's cell stores named by their placeholder
    locals again, as a disassembler that reads ``STORE_FAST`` as a local expects."""
    if not any(name.startswith(_SLOT_PREFIX) for name in code.co_varnames):
        return code
    raw = bytearray(code.co_code)
    for inst in dis.get_instructions(code):
        if inst.opcode == _STORE_FAST and inst.arg >= code.co_nlocals:
            raw[inst.offset + 1] = code.co_varnames.index(_SLOT_PREFIX + inst.argval)
    return code.replace(co_code=bytes(raw))


def _retarget_cell_stores(code: CodeType) -> CodeType:
    """``code`` with each prologue ``STORE_FAST __ember_slot_<name>`` storing into the slot
    of the cell variable ``name`` instead (3.11 numbers locals, cells and free variables in
    one array, and ``STORE_FAST`` writes any slot of it)."""
    raw = bytearray(code.co_code)
    first_cell = code.co_nlocals
    for inst in dis.get_instructions(code):
        if inst.opcode != _STORE_FAST or not str(inst.argval).startswith(_SLOT_PREFIX):
            continue
        name = inst.argval[len(_SLOT_PREFIX):]
        slot = next(i for i in range(first_cell, first_cell + len(code.co_cellvars))
                    if code._varname_from_oparg(i) == name)
        if slot > 255 or inst.arg > 255:
            raise ResumeError(f"{code.co_name}: too many locals to resume")
        raw[inst.offset + 1] = slot
    return code.replace(co_code=bytes(raw))


def _prologue_location(code: CodeType, facts: CodeFacts, offset: int) -> InstrLocation:
    """The prologue reports the resumed line: a traceback or tracer never sees line 0."""
    lineno = facts.instructions[offset].positions.lineno
    if lineno is None:
        lineno = next(
            (
                facts.instructions[o].positions.lineno
                for o in reversed(facts.order[: facts.order.index(offset)])
                if facts.instructions[o].positions.lineno is not None
            ),
            code.co_firstlineno,
        )
    return InstrLocation(lineno, lineno, None, None)


def disassemble(code: CodeType) -> str:
    """``dis`` text of a generated code object, for logs and error messages."""
    out = io.StringIO()
    dis.dis(code, file=out)
    return out.getvalue()
