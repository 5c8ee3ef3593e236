"""CPython 3.11 bytecode: the one place that knows the instruction set's details.

`decode` turns a code object into `Instruction`s with jump targets resolved to instruction
indices (3.11 has inline `CACHE` entries, so offsets do not map to indices by division).
`exception_table` decodes `co_exceptiontable` (6-bit varints) and `line_table` the line table;
resume-function generation reuses both.
"""

from __future__ import annotations

import dis
import sys
from dataclasses import dataclass
from types import CodeType

from ember.capture.code_map import CodeMap

PYTHON_VERSION = (3, 11)

# Code flags (Include/cpython/code.h).
CO_OPTIMIZED = 0x0001
CO_NEWLOCALS = 0x0002
CO_VARARGS = 0x0004
CO_VARKEYWORDS = 0x0008
CO_NESTED = 0x0010
CO_GENERATOR = 0x0020
CO_COROUTINE = 0x0080
CO_ITERABLE_COROUTINE = 0x0100
CO_ASYNC_GENERATOR = 0x0200
CO_GENERATOR_LIKE = CO_GENERATOR | CO_COROUTINE | CO_ITERABLE_COROUTINE | CO_ASYNC_GENERATOR

# BINARY_OP's oparg is an index into this table (NB_ADD = 0, ...); 13 and up are the in-place
# forms of 0..12. `dis` keeps the table as a private list, so it is spelled out here.
BINARY_OPS: tuple[str, ...] = ("+", "&", "//", "<<", "@", "*", "%", "|", "**", ">>", "-", "/", "^")
NB_INPLACE_OFFSET = 13

# Conditional jumps: opname -> (jump when the value is truthy?, pops the value always?).
# `None` tests (POP_JUMP_*_IF_NONE) are listed separately.
TRUTH_JUMPS: dict[str, tuple[bool, bool]] = {
    "POP_JUMP_FORWARD_IF_TRUE": (True, True),
    "POP_JUMP_BACKWARD_IF_TRUE": (True, True),
    "POP_JUMP_FORWARD_IF_FALSE": (False, True),
    "POP_JUMP_BACKWARD_IF_FALSE": (False, True),
    "JUMP_IF_TRUE_OR_POP": (True, False),
    "JUMP_IF_FALSE_OR_POP": (False, False),
}
NONE_JUMPS: dict[str, bool] = {  # opname -> jump when the value is None?
    "POP_JUMP_FORWARD_IF_NONE": True,
    "POP_JUMP_BACKWARD_IF_NONE": True,
    "POP_JUMP_FORWARD_IF_NOT_NONE": False,
    "POP_JUMP_BACKWARD_IF_NOT_NONE": False,
}
UNCONDITIONAL_JUMPS = frozenset({"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"})


def check_python_version() -> None:
    """ember reads 3.11 bytecode and frames; any other interpreter is refused up front."""
    if sys.version_info[:2] != PYTHON_VERSION:
        raise ImportError(
            f"ember supports CPython {PYTHON_VERSION[0]}.{PYTHON_VERSION[1]} only (its frame hook "
            f"and bytecode reader are tied to that version); this is Python "
            f"{sys.version_info[0]}.{sys.version_info[1]}"
        )


@dataclass(frozen=True, slots=True)
class Instruction:
    """One decoded instruction; `target` is the index of a jump's destination."""

    index: int
    offset: int
    opname: str
    arg: int | None
    argval: object
    argrepr: str
    lineno: int | None
    target: int | None = None
    is_jump_target: bool = False

    @property
    def push_null(self) -> bool:
        """LOAD_GLOBAL pushes NULL before the global when the low bit of its arg is set."""
        return self.opname == "LOAD_GLOBAL" and bool(self.arg is not None and self.arg & 1)

    def binary_op(self) -> tuple[str, bool]:
        """BINARY_OP's operator symbol and whether it is the in-place form."""
        assert self.arg is not None
        inplace = self.arg >= NB_INPLACE_OFFSET
        return BINARY_OPS[self.arg - NB_INPLACE_OFFSET if inplace else self.arg], inplace

    def __str__(self) -> str:
        return f"{self.offset} {self.opname} {self.argrepr}".rstrip()


@dataclass(frozen=True, slots=True)
class ExceptionTableEntry:
    """`[start, end)` byte offsets covered, handler `target`, stack `depth`, push `lasti`."""

    start: int
    end: int
    target: int
    depth: int
    lasti: bool


_JUMP_OPCODES = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)


# code -> decoded instructions (immutable, so shared by every capture); `clear_cache` empties it.
_decoded: CodeMap[tuple[Instruction, ...]] = CodeMap()


def clear_cache() -> None:
    _decoded.clear()


def decode(code: CodeType) -> tuple[Instruction, ...]:
    """The instructions of `code` without CACHE entries, jump targets as indices."""
    found = _decoded.get(code)
    if found is None:
        found = _decoded[code] = _decode(code)
    return found


def _decode(code: CodeType) -> tuple[Instruction, ...]:
    raw = list(dis.get_instructions(code))
    index_of = {inst.offset: i for i, inst in enumerate(raw)}
    out = []
    lineno = code.co_firstlineno
    for i, inst in enumerate(raw):
        if inst.positions is not None and inst.positions.lineno is not None:
            lineno = inst.positions.lineno
        target = None
        if inst.opcode in _JUMP_OPCODES:
            target = index_of[inst.argval]
        out.append(
            Instruction(
                index=i,
                offset=inst.offset,
                opname=inst.opname,
                arg=inst.arg,
                argval=inst.argval,
                argrepr=inst.argrepr,
                lineno=lineno,
                target=target,
                is_jump_target=inst.is_jump_target,
            )
        )
    return tuple(out)


def _varints(data: bytes):
    """Yield the exception table's big-endian 6-bit varints: bit 6 continues a number, bit 7
    marks the first byte of an entry (every entry is exactly four numbers, so it is not needed)."""
    pos = 0
    while pos < len(data):
        byte = data[pos]
        value = byte & 0x3F
        while byte & 0x40:
            pos += 1
            byte = data[pos]
            value = (value << 6) | (byte & 0x3F)
        pos += 1
        yield value


def exception_table(code: CodeType) -> list[ExceptionTableEntry]:
    """Decode `co_exceptiontable` (Objects/exception_handling_notes.txt): per entry the start,
    length and target in code units, then `depth << 1 | lasti`."""
    numbers = list(_varints(code.co_exceptiontable))
    entries = []
    for k in range(0, len(numbers) - len(numbers) % 4, 4):
        start, length, target, depth_lasti = numbers[k : k + 4]
        entries.append(
            ExceptionTableEntry(
                start=start * 2,
                end=(start + length) * 2,
                target=target * 2,
                depth=depth_lasti >> 1,
                lasti=bool(depth_lasti & 1),
            )
        )
    return entries


def line_table(code: CodeType) -> list[tuple[int, int, int | None]]:
    """The decoded line table: `(start, end, lineno)` byte ranges (`co_lines`)."""
    return list(code.co_lines())


def handler_for(code: CodeType, offset: int) -> ExceptionTableEntry | None:
    """The innermost exception handler covering the instruction at `offset`, if any."""
    for entry in exception_table(code):
        if entry.start <= offset < entry.end:
            return entry
    return None


def argument_names(code: CodeType) -> tuple[str, ...]:
    """Names of the frame's argument slots in `localsplus` order: positional, keyword-only,
    then `*args` and `**kwargs` (what the frame hook hands the converter)."""
    return code.co_varnames[: argument_count(code)]


def argument_count(code: CodeType) -> int:
    """Number of argument slots, `*args`/`**kwargs` included."""
    n = code.co_argcount + code.co_kwonlyargcount
    n += bool(code.co_flags & CO_VARARGS) + bool(code.co_flags & CO_VARKEYWORDS)
    return n


def is_generator_like(code: CodeType) -> bool:
    """Generators, coroutines and async generators cannot be captured (they suspend)."""
    return bool(code.co_flags & CO_GENERATOR_LIKE)
