"""The graph's IR text against the Rust core: `_core.parse_ir` parses, verifies, re-infers every
type and prints back; the text must come back byte for byte."""

from __future__ import annotations

import numpy as np
from ember import _core
from ember.errors import Unsupported
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_ops_harness import check
from test_random_programs import arrays, evaluate, programs


def assert_round_trip(text: str) -> None:
    assert _core.parse_ir(text) == text


def test_a_program_using_every_kind_of_op_round_trips() -> None:
    x = np.ones((2, 3), np.float32)
    y = np.ones((2, 4))
    g = check(lambda xp, x, y: (
        xp.sum(x * 2.5, axis=0), x.T @ y, x[1, ::-1], xp.where(x > 0, x, 0),
        x.astype(np.int32) // 3, xp.linspace(0, 1, 5), xp.eye(3, k=1), xp.arange(4),
        xp.var(x, axis=1, ddof=1), xp.concatenate([x, x]), xp.expand_dims(x, 0),
        xp.squeeze(x[None]), xp.argmax(x, axis=1), xp.broadcast_to(x, (4, 2, 3)),
        xp.flip(y, 1), x.copy(), xp.full((2,), True), -x[0, 0], x.max(keepdims=True),
    ), x, y)
    assert g is not None
    assert_round_trip(g.to_ir())


def test_weak_inputs_and_symbolic_dims_round_trip() -> None:
    x = np.ones((5, 3), np.float32)
    for dynamic in (False, True):
        g = check(lambda xp, x, a: (x * a + 1, x.T, xp.zeros_like(x).mean(axis=0)),
                  x, 2.5, weak_inputs=True, dynamic=dynamic)
        assert g is not None
        assert_round_trip(g.to_ir())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), dynamic=st.booleans())
def test_random_programs_round_trip(data: st.DataObject, dynamic: bool) -> None:
    args = data.draw(arrays())
    program = data.draw(programs(len(args)))
    try:
        g = check(lambda xp, *a: evaluate(program, xp, a), *args, dynamic=dynamic)
    except Unsupported:
        return
    if g is not None and g.outputs:
        assert_round_trip(g.to_ir())


def test_float_and_integer_constants_print_as_the_rust_printer_does() -> None:
    from ember.graph import Graph

    g = Graph("constants")
    x = g.add_input(np.float64, (2,))
    outs = [g.op("add", [x, g.const(v)]) for v in (
        1e-05, 2.5e20, -0.0, float("inf"), float("-inf"), float("nan"), 1e16, 0.1, 5e-324,
        1.7976931348623157e308, 123456789.0, 1e22, 1e-7, 3, True)]
    outs.append(g.op("add", [x, g.const(np.float32(0.1))]))
    outs.append(g.op("add", [g.add_input(np.uint64, (2,)), g.const(np.uint64(2**64 - 1))]))
    outs.append(g.op("add", [g.add_input(np.int8, (2,)), g.const(-128, np.int8, weak=False)]))
    g.set_outputs(outs)
    assert_round_trip(g.to_ir())


def test_gather_and_scatter_add_round_trip_and_check_their_operands() -> None:
    from ember.graph import Graph

    g = Graph()
    x = g.add_input(np.float32, (4, 5, 3))
    i = g.add_input(np.int32, (2, 1))
    j = g.add_input(np.int64, (3,))
    gathered = g.op("gather", [x, i, j], axis=1)
    assert gathered.shape == (4, 2, 3)
    added = g.op("scatter_add", [gathered, i, j], axis=1, shape=[4, 5, 3])
    g.set_outputs([gathered, added])
    assert_round_trip(g.to_ir())
    text = g.to_ir()
    bad = text.replace("axis=1 shape=[4,5,3]", "axis=0 shape=[4,5,3]")
    assert bad != text
    try:
        _core.parse_ir(bad)
    except _core.IRError as exc:
        assert "scatter_add: updates of shape (4,2,3)" in str(exc)
    else:
        raise AssertionError("updates of the wrong shape were accepted")
