"""Resume functions continue a run exactly: every offset of every corpus function.

For each function and each instruction offset that a run reaches, the original is run under
a tracer up to the first, second and last arrival at that offset. There its whole live state
is read from the frame (fast locals, cells and the value stack, NULLs included) and a resume
function is called with it; the original is then stopped. The resume function must return
(or raise) what an uninterrupted run returns, print the rest of its output and leave the
arguments as it leaves them.
"""

from __future__ import annotations

import contextlib
import ctypes
import dis
import sys
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FrameType

import numpy as np
import pytest
from ember.capture.resume import (
    NULL,
    ResumeError,
    disassemble,
    live_locals_at,
    make_resume,
    make_resume_function,
    resume_stack_depth,
    stack_argname,
)
from test_resume_corpus import CASES as FLOW_CASES
from test_resume_corpus import Case
from test_resume_corpus_calls import CASES as CALL_CASES

assert sys.version_info[:2] == (3, 11), "frame layout below is CPython 3.11's"
# CPython 3.11 x86-64: PyFrameObject.f_frame, then _PyInterpreterFrame.stacktop and
# .localsplus (Include/internal/pycore_frame.h). A tracer runs with stacktop up to date.
_F_FRAME = 24
_F_CODE = 32
_STACKTOP = 64
_LOCALSPLUS = 72
assert ctypes.sizeof(ctypes.c_void_p) == 8


def _localsplus_names(code: CodeType) -> list[str]:
    cells = [c for c in code.co_cellvars if c not in code.co_varnames]
    return list(code.co_varnames) + cells + list(code.co_freevars)


@dataclass
class FrameState:
    """What a frame holds before one instruction: bound locals, its cells, the stack."""

    locals: dict[str, object]
    cells: dict[str, object]
    stack: list[object]


def read_frame(frame: FrameType) -> FrameState:
    code = frame.f_code
    iframe = ctypes.c_void_p.from_address(id(frame) + _F_FRAME).value
    assert ctypes.c_void_p.from_address(iframe + _F_CODE).value == id(code), "frame layout"
    top = ctypes.c_int.from_address(iframe + _STACKTOP).value
    values = []
    for i in range(top):
        address = iframe + _LOCALSPLUS + 8 * i
        is_null = ctypes.c_void_p.from_address(address).value is None
        values.append(NULL if is_null else ctypes.py_object.from_address(address).value)
    names = _localsplus_names(code)
    fast = dict(zip(names, values))
    return FrameState(
        locals={
            n: v
            for n, v in fast.items()
            if v is not NULL and n in code.co_varnames and n not in code.co_cellvars
        },
        cells={n: fast[n] for n in code.co_cellvars},
        stack=values[len(names) :],
    )


class _Stop(BaseException):
    """Ends the original run once the resume function has taken over."""


def run_traced(func, args, on_opcode) -> None:
    """Run ``func(*args)``, calling ``on_opcode(frame)`` before each of its instructions.

    Only the outermost frame of ``func`` is traced (recursion and nested code are not).
    """
    code = func.__code__
    started = False

    def local(frame, event, arg):
        if event == "opcode":
            on_opcode(frame)
        return local

    def outer(frame, event, arg):
        nonlocal started
        if frame.f_code is code and not started:
            started = True
            frame.f_trace_opcodes = True
            return local
        return None

    sys.settrace(outer)
    # Whatever the run raises, the reference run is what says what it should raise.
    try:
        with contextlib.suppress(_Stop, Exception):
            func(*args)
    finally:
        sys.settrace(None)


@dataclass
class Outcome:
    value: object = None
    error: BaseException | None = None
    output: str = ""
    args: tuple = ()


def same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and np.array_equal(a, b)
        )
    if isinstance(a, (list, tuple)) and type(a) is type(b):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, BaseException) or isinstance(b, BaseException):
        return type(a) is type(b) and str(a) == str(b)
    if isinstance(a, Iterator) and isinstance(b, Iterator):
        return same(list(a), list(b))
    if isinstance(a, np.generic) or isinstance(b, np.generic):
        return type(a) is type(b) and a == b
    return type(a) is type(b) and a == b


def reference(case: Case, capsys) -> Outcome:
    capsys.readouterr()
    args = case.make_args()
    outcome = Outcome(args=args)
    try:
        outcome.value = case.func(*args)
    except Exception as error:  # noqa: BLE001 - raising is an outcome to compare
        outcome.error = error
    outcome.output = capsys.readouterr().out
    return outcome


def arrivals(case: Case) -> dict[int, int]:
    """How many times a run reaches each offset of the outermost frame."""
    counts: dict[int, int] = {}

    def count(frame):
        counts[frame.f_lasti] = counts.get(frame.f_lasti, 0) + 1

    run_traced(case.func, case.make_args(), count)
    return counts


@dataclass
class Report:
    resumed: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)


CASES = FLOW_CASES + CALL_CASES

_EXPECTED_REFUSALS = ("inside an exception handler", "between PRECALL and CALL", "KW_NAMES")


def resume_at(case: Case, offset: int, arrival: int, only_live: bool, capsys, report: Report):
    """Cut a run at the ``arrival``-th visit of ``offset`` and finish it with a resume function."""
    code = case.func.__code__
    expected = reference(case, capsys)
    args = case.make_args()
    seen = 0
    where = f"{case.name} offset {offset} arrival {arrival} only_live={only_live}"

    def at_instruction(frame):
        nonlocal seen
        if frame.f_lasti != offset:
            return
        seen += 1
        if seen != arrival:
            return
        state = read_frame(frame)
        before = capsys.readouterr().out
        try:
            static_depth = resume_stack_depth(code, offset)
            names = list(state.locals)
            if only_live:
                names = [n for n in live_locals_at(code, offset) if n in state.locals]
            resume = make_resume_function(
                case.func,
                offset,
                len(state.stack),
                names,
                null_slots=[i for i, v in enumerate(state.stack) if v is NULL],
                cells=state.cells,
            )
        except Exception as error:  # noqa: BLE001 - anything but a refusal is a failure
            if not isinstance(error, ResumeError):
                report.failures.append(f"{where}: {type(error).__name__}: {error}")
                raise _Stop from None
            reason = next((r for r in _EXPECTED_REFUSALS if r in str(error)), str(error))
            report.refused[reason] = report.refused.get(reason, 0) + 1
            if reason not in _EXPECTED_REFUSALS:
                report.failures.append(f"{where}: unexpected refusal {error}")
            raise _Stop from None
        if static_depth != len(state.stack):
            report.failures.append(f"{where}: stack {len(state.stack)} vs static {static_depth}")
        got = Outcome(args=args)
        try:
            values = {stack_argname(code, i): v for i, v in enumerate(state.stack) if v is not NULL}
            values.update((n, state.locals[n]) for n in names)
            argnames = resume.__code__.co_varnames[: resume.__code__.co_argcount]
            got.value = resume(*[values[n] for n in argnames])
        except Exception as error:  # noqa: BLE001 - raising is an outcome to compare
            got.error = error
        got.output = before + capsys.readouterr().out
        # Compare now: stopping the original runs its finally blocks, which may touch objects
        # the resumed run returned.
        report.resumed += 1
        for part in ("value", "error", "output", "args"):
            if not same(getattr(got, part), getattr(expected, part)):
                report.failures.append(
                    f"{where}: {part} {getattr(got, part)!r} != {getattr(expected, part)!r}"
                )
        raise _Stop

    def guarded(frame):
        # The tracer's exceptions land in the traced frame and are swallowed with it: record
        # any failure of the check itself before stopping the run.
        try:
            at_instruction(frame)
        except _Stop:
            raise
        except Exception as error:  # noqa: BLE001
            report.failures.append(f"{where}: harness {type(error).__name__}: {error}")
            raise _Stop from None

    capsys.readouterr()
    run_traced(case.func, args, guarded)
    capsys.readouterr()
    if seen < arrival:
        report.failures.append(f"{where}: the run reached the offset only {seen} times")


@pytest.mark.parametrize("case", CASES, ids=[f"{c.name}-{i}" for i, c in enumerate(CASES)])
def test_resume_every_offset(case: Case, capsys):
    report = Report()
    for offset, count in sorted(arrivals(case).items()):
        for arrival in sorted({1, 2, count} & set(range(1, count + 1))):
            resume_at(case, offset, arrival, True, capsys, report)
            if arrival == 1:
                resume_at(case, offset, arrival, False, capsys, report)
    assert not report.failures, "\n".join(report.failures[:20])
    assert report.resumed > 0
    with capsys.disabled():
        pass


def test_corpus_size():
    assert len({c.func for c in CASES}) >= 40


@pytest.mark.parametrize("case", CASES[::1], ids=[c.name for c in CASES])
def test_every_static_offset_assembles_and_disassembles(case: Case):
    code = case.func.__code__
    built = 0
    for inst in dis.get_instructions(code):
        try:
            depth = resume_stack_depth(code, inst.offset)
            resume = make_resume(code, inst.offset, depth, live_locals_at(code, inst.offset))
        except ResumeError:
            continue
        text = disassemble(resume)
        assert resume.co_name in text or "RESUME" in text
        assert resume.co_filename == code.co_filename
        assert resume.co_firstlineno == code.co_firstlineno
        assert resume.co_flags & 0x20 == 0
        assert resume.co_stacksize >= depth
        built += 1
    assert built > 0


def test_traceback_names_user_file_and_line():
    from test_resume_corpus_calls import raises_at_end

    code = raises_at_end.__code__
    lines = Path(code.co_filename).read_text().splitlines()
    raise_line = next(
        n for n, text in enumerate(lines, 1) if 'raise ValueError(f"bad total' in text
    )
    # Resume at the first instruction of the raise: it runs inside the resume function.
    start = next(i.offset for i in dis.get_instructions(code) if i.starts_line == raise_line)
    live = live_locals_at(code, start)
    assert live == ["total"]
    resume = make_resume_function(raises_at_end, start, 0, live)
    with pytest.raises(ValueError, match="bad total 3") as info:
        resume(3)
    last = traceback.extract_tb(info.value.__traceback__)[-1]
    assert last.filename == code.co_filename
    assert last.name == f"__resume_at_{start}_raises_at_end"
    assert last.lineno == raise_line
    assert 'raise ValueError(f"bad total {total}")' in last.line
