"""Step functions run one instruction and hand the rest of the run to a resume function.

Every corpus function is cut, as in test_resume.py, at the first, second and last arrival at
each offset where a step can start (a whole instruction, a call with its PRECALL and
KW_NAMES). A step function is called with the frame's live state there; what it returns is
followed through `trampoline` (continuations call resume functions). The outcome must be the
uninterrupted run's: value or exception, printed output, arguments.
"""

from __future__ import annotations

import dis

import pytest
from ember.capture.bytecode import exception_table
from ember.capture.resume import (
    NULL,
    Continuation,
    ResumeError,
    live_locals_at,
    make_step,
    make_step_function,
    reexecute_offset,
    resume_stack_depth,
    stack_argname,
    trampoline,
)
from test_resume import (
    CASES,
    Outcome,
    Report,
    _Stop,
    arrivals,
    read_frame,
    reference,
    run_traced,
    same,
)
from test_resume_corpus import Case

_EXPECTED_REFUSALS = ("inside an exception handler", "pushes NULL")


def step_at(case: Case, offset: int, arrival: int, capsys, report: Report) -> None:
    code = case.func.__code__
    expected = reference(case, capsys)
    args = case.make_args()
    seen = 0
    where = f"{case.name} offset {offset} arrival {arrival}"
    followed = []

    def at_instruction(frame):
        nonlocal seen
        if frame.f_lasti != offset:
            return
        seen += 1
        if seen != arrival:
            return
        state = read_frame(frame)
        before = capsys.readouterr().out
        names = [n for n in live_locals_at(code, offset) if n in state.locals]
        try:
            step = make_step_function(
                case.func, offset, len(state.stack), names,
                null_slots=[i for i, v in enumerate(state.stack) if v is NULL],
                cells=state.cells,
            )
        except ResumeError as error:
            reason = next((r for r in _EXPECTED_REFUSALS if r in str(error)), str(error))
            report.refused[reason] = report.refused.get(reason, 0) + 1
            if reason not in _EXPECTED_REFUSALS:
                report.failures.append(f"{where}: unexpected refusal {error}")
            raise _Stop from None
        got = Outcome(args=args)
        try:
            values = {stack_argname(code, i): v for i, v in enumerate(state.stack) if v is not NULL}
            values.update((n, state.locals[n]) for n in names)
            argnames = step.__code__.co_varnames[: step.__code__.co_argcount]
            result = step(*[values[n] for n in argnames])
            followed.append(type(result) is Continuation)
            got.value = trampoline(result, case.func.__globals__)
        except Exception as error:  # noqa: BLE001 - raising is an outcome to compare
            got.error = error
        got.output = before + capsys.readouterr().out
        report.resumed += 1
        for part in ("value", "error", "output", "args"):
            if not same(getattr(got, part), getattr(expected, part)):
                report.failures.append(
                    f"{where}: {part} {getattr(got, part)!r} != {getattr(expected, part)!r}"
                )
        raise _Stop

    def guarded(frame):
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
    return followed


@pytest.mark.parametrize("case", CASES, ids=[f"{c.name}-{i}" for i, c in enumerate(CASES)])
def test_step_every_offset(case: Case, capsys):
    code = case.func.__code__
    report = Report()
    continued = 0
    for offset, count in sorted(arrivals(case).items()):
        if reexecute_offset(code, offset) != offset:
            continue  # the middle of a call: a step starts at its PRECALL or KW_NAMES
        for arrival in sorted({1, 2, count} & set(range(1, count + 1))):
            continued += sum(step_at(case, offset, arrival, capsys, report))
    assert not report.failures, "\n".join(report.failures[:20])
    assert report.resumed > 0
    assert continued > 0, "no step handed back a continuation"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_stubs_lie_outside_every_exception_range(case: Case):
    code = case.func.__code__
    built = 0
    for inst in dis.get_instructions(code):
        if reexecute_offset(code, inst.offset) != inst.offset:
            continue
        try:
            depth = resume_stack_depth(code, inst.offset)
            step = make_step(code, inst.offset, depth, live_locals_at(code, inst.offset))
        except ResumeError:
            continue
        built += 1
        table = exception_table(step)
        stubs = [i.offset for i in dis.get_instructions(step)
                 if i.opname == "LOAD_CONST" and isinstance(i.argval, type(code))]
        for offset in stubs:
            assert not any(e.start <= offset < e.end for e in table), (step.co_name, offset)
        assert step.co_filename == code.co_filename
    assert built > 0
