"""Resume functions: refusals, caching, the calling convention and the generated code's shape."""

from __future__ import annotations

import dis
import itertools
import logging
import sys
import types

import pytest
from ember import logging as ember_logging
from ember.capture.resume import (
    NULL,
    ResumeError,
    clear_cache,
    disassemble,
    live_locals_at,
    make_resume,
    make_resume_function,
    reexecute_offset,
    resume_stack_depth,
)
from test_resume_corpus import try_except_in_loop
from test_resume_corpus_calls import (
    CASES,
    closure_writes_nonlocal,
    keyword_calls,
    long_loop_body,
    star_args,
)


def _offsets(func, opname: str) -> list[int]:
    return [i.offset for i in dis.get_instructions(func) if i.opname == opname]


def _resume_at_depth(func, offset: int, **options) -> types.CodeType:
    code = func.__code__
    return make_resume(
        code, offset, resume_stack_depth(code, offset), live_locals_at(code, offset), **options
    )


def _generator():
    yield 1


def test_refuses_generators():
    code = _generator.__code__
    with pytest.raises(ResumeError, match="generators and coroutines"):
        make_resume(code, _offsets(_generator, "LOAD_CONST")[0], 0, [])


def test_refuses_inside_an_exception_handler():
    # The print in the except block runs with the exception pushed.
    handler = [i for i in dis.get_instructions(try_except_in_loop) if i.argval == "caught"]
    with pytest.raises(ResumeError, match="inside an exception handler"):
        _resume_at_depth(try_except_in_loop, handler[0].offset)


def test_refuses_between_precall_and_call():
    for call in _offsets(keyword_calls, "CALL"):
        with pytest.raises(ResumeError, match="between PRECALL and CALL"):
            _resume_at_depth(keyword_calls, call)


def test_refuses_after_kw_names_but_resumes_at_it():
    instructions = list(dis.get_instructions(keyword_calls))
    for before, inst in itertools.pairwise(instructions):
        if before.opname == "KW_NAMES":
            with pytest.raises(ResumeError, match="KW_NAMES"):
                _resume_at_depth(keyword_calls, inst.offset)
            assert _resume_at_depth(keyword_calls, before.offset).co_argcount > 0


def test_refuses_offsets_that_are_not_instructions():
    load_global = _offsets(keyword_calls, "LOAD_GLOBAL")[0]
    with pytest.raises(ResumeError, match="not the start of an instruction"):
        make_resume(keyword_calls.__code__, load_global + 2, 0, [])  # its inline CACHE
    with pytest.raises(ResumeError, match="has not started"):
        make_resume(keyword_calls.__code__, 0, 0, [])


def test_refuses_a_wrong_stack_depth():
    offset = _offsets(keyword_calls, "KW_NAMES")[0]
    depth = resume_stack_depth(keyword_calls.__code__, offset)
    with pytest.raises(ResumeError, match=f"holds {depth} values there, not {depth + 1}"):
        make_resume(keyword_calls.__code__, offset, depth + 1, [])


def test_extended_arg_prefix_is_the_instruction_start():
    code = long_loop_body.__code__
    prefix = _offsets(long_loop_body, "EXTENDED_ARG")[0]
    for_iter = _offsets(long_loop_body, "FOR_ITER")[0]
    assert prefix < for_iter
    resume = make_resume(code, prefix, 1, ["acc"])
    assert resume is make_resume(code, prefix, 1, ["acc"])
    # Naming the instruction itself resumes at the same place (its prefix is re-emitted).
    assert make_resume(code, for_iter, 1, ["acc"]).co_code == resume.co_code
    assert resume.co_name == f"__resume_at_{for_iter}_long_loop_body"
    func = types.FunctionType(resume, long_loop_body.__globals__)
    assert func(iter(range(3)), 0) == long_loop_body(3)


def test_cache_and_clear():
    code = closure_writes_nonlocal.__code__
    offset = _offsets(closure_writes_nonlocal, "FOR_ITER")[0]
    first = make_resume(code, offset, 1, ["bump"])
    assert make_resume(code, offset, 1, ["bump"]) is first
    assert make_resume(code, offset, 1, ["bump", "n"]) is not first
    clear_cache()
    again = make_resume(code, offset, 1, ["bump"])
    assert again is not first
    assert again.co_code == first.co_code


def test_live_locals_are_plain_locals():
    code = closure_writes_nonlocal.__code__
    offset = _offsets(closure_writes_nonlocal, "FOR_ITER")[0]
    with pytest.raises(ValueError, match="'count' is a cell variable"):
        make_resume(code, offset, 1, ["count"])
    with pytest.raises(ValueError, match="'nope' is not a local"):
        make_resume(code, offset, 1, ["nope"])
    with pytest.raises(ValueError, match="repeat"):
        make_resume(code, offset, 1, ["bump", "bump"])
    with pytest.raises(ValueError, match="NULL slots"):
        make_resume(code, offset, 1, [], null_slots=[1])


def test_code_object_shape():
    code = star_args.__code__
    # Resume at the KW_NAMES of `dict(kwargs, count=len(args))`: NULL, dict, kwargs and
    # len(args) on the stack.
    precall = _offsets(star_args, "KW_NAMES")[0]
    depth = resume_stack_depth(code, precall)
    assert depth == 4
    resume = make_resume(code, precall, depth, ["args"], null_slots=[0])
    assert resume.co_name == f"__resume_at_{precall}_star_args"
    assert resume.co_qualname == resume.co_name
    assert resume.co_varnames[: resume.co_argcount] == ("__stack1", "__stack2", "__stack3", "args")
    assert resume.co_posonlyargcount == resume.co_kwonlyargcount == 0
    assert not resume.co_flags & (0x04 | 0x08 | 0x20)  # VARARGS, VARKEYWORDS, GENERATOR
    assert resume.co_flags & 0x03 == 0x03  # OPTIMIZED, NEWLOCALS
    assert resume.co_filename == code.co_filename
    assert resume.co_firstlineno == code.co_firstlineno
    assert resume.co_stacksize == code.co_stacksize
    first = list(dis.get_instructions(resume))[:6]
    assert [i.opname for i in first] == [
        "RESUME",
        "PUSH_NULL",
        "LOAD_FAST",
        "LOAD_FAST",
        "LOAD_FAST",
        "JUMP_FORWARD",
    ]
    func = types.FunctionType(resume, star_args.__globals__)
    assert func(dict, {"a": 1}, 2, (7, 8)) == star_args(7, 8, a=1)
    assert "JUMP_FORWARD" in disassemble(resume)


def test_cells_travel_in_the_closure():
    """A closure made before the break and the resumed code share the frame's cell."""
    code = closure_writes_nonlocal.__code__
    assert code.co_cellvars == ("count",)
    offset = _offsets(closure_writes_nonlocal, "FOR_ITER")[0]
    count = types.CellType(5)

    def bump(k):  # stands for the inner function created before the break
        nonlocal_cell = count
        nonlocal_cell.cell_contents += k
        return nonlocal_cell.cell_contents

    resume = make_resume_function(
        closure_writes_nonlocal, offset, 1, ["bump"], cells={"count": count}
    )
    assert resume.__code__.co_freevars == ("__ember_cell_count",)
    assert resume.__code__.co_cellvars == ("count",)
    assert resume.__closure__ == (count,)
    assert resume(iter(range(3)), bump) == (109, 109)
    assert count.cell_contents == 109


def test_unbound_cell_defaults_to_an_empty_cell():
    code = closure_writes_nonlocal.__code__
    offset = _offsets(closure_writes_nonlocal, "STORE_DEREF")[0]
    assert resume_stack_depth(code, offset) == 1
    resume = make_resume_function(closure_writes_nonlocal, offset, 1, ["n"])
    # Resumes at `count = 0`, then defines bump over the fresh cell and runs the loop.
    assert resume(0, 2) == (102, 102)
    with pytest.raises(ValueError, match="not cell variables"):
        make_resume_function(closure_writes_nonlocal, offset, 1, ["n"], cells={"n": None})


def test_free_variables_come_from_the_function_closure():
    reader = next(c.func for c in CASES if c.name == "reader")
    offset = _offsets(reader, "RETURN_VALUE")[-1]
    resume = make_resume_function(reader, offset, 1, [])
    assert resume.__code__.co_freevars == reader.__code__.co_freevars
    assert resume.__closure__ == reader.__closure__
    assert resume(["done"]) == ["done"]


def test_line_events_name_the_user_lines():
    code = closure_writes_nonlocal.__code__
    offset = _offsets(closure_writes_nonlocal, "FOR_ITER")[0]
    resume = make_resume_function(
        closure_writes_nonlocal, offset, 1, ["bump"], cells={"count": types.CellType(0)}
    )
    body = {line for _, _, line in code.co_lines() if line is not None}
    seen = []

    def tracer(frame, event, arg):
        if frame.f_code is resume.__code__ and event == "line":
            seen.append(frame.f_lineno)
        return tracer

    sys.settrace(tracer)
    try:
        resume(iter([]), lambda k: k)
    finally:
        sys.settrace(None)
    assert seen and set(seen) <= body


def test_null_marker():
    assert repr(NULL) == "NULL"
    assert type(NULL)() is NULL


class _Greeter:
    def greet(self, name):
        return f"hello {name}"


class _LoudGreeter(_Greeter):
    def greet(self, name):
        shout = name.upper()
        return super().greet(shout) + "!"

    def greet_later(self, name):
        later = lambda: self.greet(name)
        return super().greet(name) + later()


def test_zero_argument_super_keeps_self_first():
    func = _LoudGreeter.greet
    code = func.__code__
    offset = next(i.offset for i in dis.get_instructions(func) if i.argval == "super")
    # `self` is read by super() itself, not by any LOAD_FAST after the offset.
    assert live_locals_at(code, offset) == ["self", "shout"]
    resume = make_resume_function(func, offset, 0, ["shout", "self"])
    assert resume.__code__.co_varnames[:2] == ("self", "shout")
    assert resume(_LoudGreeter(), "BOB") == "hello BOB!"
    with pytest.raises(ResumeError, match="super\\(\\) needs 'self'"):
        make_resume(code, offset, 0, ["shout"])


def test_zero_argument_super_with_self_in_a_cell_is_refused():
    func = _LoudGreeter.greet_later
    offset = next(i.offset for i in dis.get_instructions(func) if i.argval == "super")
    with pytest.raises(ResumeError, match="cell variable here"):
        make_resume(func.__code__, offset, 0, ["name"])


def test_module_and_class_bodies_are_refused():
    module = compile("x = 1\ny = x + 1\n", "<module>", "exec")
    offset = [i.offset for i in dis.get_instructions(module)][2]
    with pytest.raises(ResumeError, match="module and class bodies"):
        make_resume(module, offset, 0, [])


def test_resume_of_a_resume_names_its_stack_arguments_apart():
    first = _resume_at_depth(long_loop_body, _offsets(long_loop_body, "FOR_ITER")[0])
    assert first.co_varnames[0] == "__stack0"
    store = next(i.offset for i in dis.get_instructions(first) if i.opname == "BINARY_OP")
    depth = resume_stack_depth(first, store)
    again = make_resume(first, store, depth, ["__stack0", "acc"])
    stack_args = tuple(f"___stack{i}" for i in range(depth))
    assert again.co_varnames[: again.co_argcount] == (*stack_args, "__stack0", "acc")


def test_reexecute_offset_is_the_start_of_a_call():
    code = keyword_calls.__code__
    instructions = list(dis.get_instructions(code))
    starts = set()
    for k, inst in enumerate(instructions):
        if inst.opname != "CALL":
            continue
        start = reexecute_offset(code, inst.offset)
        first = instructions[k - 2] if instructions[k - 2].opname == "KW_NAMES" else None
        expected = first.offset if first else instructions[k - 1].offset
        assert start == expected
        assert reexecute_offset(code, instructions[k - 1].offset) == expected
        resume = make_resume(code, start, resume_stack_depth(code, start), [])
        assert resume.co_name == f"__resume_at_{start}_keyword_calls"
        starts.add(start)
    assert len(starts) >= 3
    other = next(i.offset for i in instructions if i.opname == "BUILD_LIST")
    assert reexecute_offset(code, other) == other
    prefix = _offsets(long_loop_body, "EXTENDED_ARG")[0]
    assert reexecute_offset(long_loop_body.__code__, prefix + 2) == prefix


def test_code_log_shows_the_resume_disassembly():
    clear_cache()  # a cached resume code is not logged again
    messages = []
    handler = logging.Handler()
    handler.emit = lambda record: messages.append(record.getMessage())
    logger = logging.getLogger("ember.code")
    logger.addHandler(handler)
    ember_logging.set_logs("code")
    try:
        offset = _offsets(keyword_calls, "BUILD_LIST")[0]
        make_resume(
            keyword_calls.__code__,
            offset,
            resume_stack_depth(keyword_calls.__code__, offset),
            ["x", "y"],
        )
    finally:
        ember_logging.set_logs()
        logger.removeHandler(handler)
    assert len(messages) == 1
    assert messages[0].startswith(f"__resume_at_{offset}_keyword_calls:")
    assert "JUMP_FORWARD" in messages[0]
