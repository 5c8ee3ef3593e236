"""The 3.11 bytecode reader: instructions, jump targets, exception table, line table."""

from __future__ import annotations

import dis

from ember.capture import bytecode


def branches(x, n):
    total = 0
    for i in range(n):
        if i % 2:
            total += i
    try:
        total = total / x
    except ZeroDivisionError:
        total = -1
    return total


def test_decode_skips_caches_and_resolves_jump_targets():
    insts = bytecode.decode(branches.__code__)
    assert [i.index for i in insts] == list(range(len(insts)))
    assert "CACHE" not in {i.opname for i in insts}
    assert insts[0].opname == "RESUME"
    raw = {i.offset: i for i in dis.get_instructions(branches.__code__)}
    for inst in insts:
        if inst.target is not None:
            assert insts[inst.target].offset == raw[inst.offset].argval
    kinds = {i.opname for i in insts if i.target is not None}
    assert "FOR_ITER" in kinds and "JUMP_BACKWARD" in kinds


def test_line_numbers_follow_the_source():
    insts = bytecode.decode(branches.__code__)
    first = branches.__code__.co_firstlineno
    store = next(i for i in insts if i.opname == "STORE_FAST" and i.argval == "total")
    assert store.lineno == first + 1
    ret = [i for i in insts if i.opname == "RETURN_VALUE"][-1]
    assert ret.lineno == first + 9
    assert bytecode.line_table(branches.__code__) == list(branches.__code__.co_lines())


def test_exception_table_matches_dis():
    entries = bytecode.exception_table(branches.__code__)
    expected = dis._parse_exception_table(branches.__code__)
    assert [(e.start, e.end, e.target, e.depth, e.lasti) for e in entries] == [
        (e.start, e.end, e.target, e.depth, e.lasti) for e in expected
    ]
    assert entries, "the try block has a handler"
    division = next(i for i in bytecode.decode(branches.__code__) if i.opname == "BINARY_OP"
                    and i.binary_op() == ("/", False))
    handler = bytecode.handler_for(branches.__code__, division.offset)
    assert handler is not None and handler.target > division.offset


def test_exception_table_with_multi_byte_varints():
    # Enough code before the try block that offsets need more than one 6-bit chunk.
    body = "\n".join(f"    a{i} = x + {i}" for i in range(80))
    src = f"def f(x):\n{body}\n    try:\n        return x / 0\n    except Exception:\n" \
          "        return None\n"
    namespace: dict = {}
    exec(compile(src, "<test>", "exec"), namespace)  # noqa: S102 - builds a large test function
    code = namespace["f"].__code__
    entries = bytecode.exception_table(code)
    assert max(e.start for e in entries) > 64 * 2
    assert [(e.start, e.end, e.target, e.depth, e.lasti) for e in entries] == [
        (e.start, e.end, e.target, e.depth, e.lasti) for e in dis._parse_exception_table(code)
    ]


def calls(x):
    return np_sum(x, axis=0) + x.mean() + len(x)


np_sum = sum


def test_call_protocol_details():
    insts = bytecode.decode(calls.__code__)
    globals_ = [i for i in insts if i.opname == "LOAD_GLOBAL"]
    assert all(i.push_null for i in globals_)  # both loaded as callables: NULL + name
    assert [i.argval for i in globals_] == ["np_sum", "len"]
    kw = next(i for i in insts if i.opname == "KW_NAMES")
    assert calls.__code__.co_consts[kw.arg] == ("axis",)
    assert any(i.opname == "LOAD_METHOD" and i.argval == "mean" for i in insts)
    assert [i.binary_op() for i in insts if i.opname == "BINARY_OP"] == [("+", False)] * 2


def test_binary_op_table_matches_cpython():
    assert [sym for _, sym in dis._nb_ops[:13]] == list(bytecode.BINARY_OPS)
    assert dis._nb_ops[bytecode.NB_INPLACE_OFFSET][1] == "+="


def with_star(a, b=1, *args, c, d=2, **kw):
    return a


def gen():
    yield 1


def test_argument_slots_and_flags():
    assert bytecode.argument_names(with_star.__code__) == ("a", "b", "c", "d", "args", "kw")
    assert bytecode.argument_count(with_star.__code__) == 6
    assert bytecode.is_generator_like(gen.__code__)
    assert not bytecode.is_generator_like(with_star.__code__)


def test_version_check_names_the_version(monkeypatch):
    import sys

    monkeypatch.setattr(sys, "version_info", (3, 12, 0, "final", 0))
    try:
        bytecode.check_python_version()
    except ImportError as exc:
        assert "3.11" in str(exc) and "3.12" in str(exc)
    else:
        raise AssertionError("expected ImportError")
