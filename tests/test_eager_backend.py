"""The eager backend: the reference every compiled graph is compared with."""

from __future__ import annotations

import numpy as np
import pytest
from ember import numpy_api as api
from ember.backends import eager
from ember.errors import BackendError
from ember.graph import OPS, Graph


def test_compile_returns_a_callable_giving_a_tuple_of_arrays() -> None:
    g = Graph("f")
    x = g.add_input(np.float32, (3,))
    s = api.lookup_method("sum")(g, x)
    g.set_outputs([s, api.binary_op(g, "*", x, 2)])
    fn = eager.compile(g, [np.ones(3, np.float32)])
    out = fn(np.arange(3, dtype=np.float32))
    assert isinstance(out, tuple) and all(type(o) is np.ndarray for o in out)
    assert out[0].shape == () and out[0].dtype == np.float32 and out[0] == 3
    results = eager.as_python_results(g.outputs, out)
    assert type(results[0]) is np.float32 and type(results[1]) is np.ndarray


def test_weak_inputs_are_python_scalars_under_nep_50() -> None:
    g = Graph()
    x = g.add_input(np.float32, (2,))
    alpha = g.add_input(np.float64, (), weak=True)
    y = api.binary_op(g, "*", x, alpha)
    a2 = api.binary_op(g, "+", alpha, 1)
    g.set_outputs([y, a2])
    # A 0-d float64 array would promote float32 to float64; a weak input does not.
    out = eager.run(g, np.ones(2, np.float32), np.array(2.5))
    assert out[0].dtype == np.float32 and out[0].tolist() == [2.5, 2.5]
    results = eager.as_python_results(g.outputs, out)
    assert type(results[1]) is float and results[1] == 3.5


def test_inputs_that_do_not_fit_the_graph_are_refused() -> None:
    g = Graph()
    x = g.add_input(np.float32, ("s0", 3))
    y = g.add_input(np.float32, ("s0",))
    g.set_outputs([x, y])
    eager.run(g, np.ones((4, 3), np.float32), np.ones(4, np.float32))
    eager.run(g, np.ones((5, 3), np.float32), np.ones(5, np.float32))
    for args in [(np.ones((4, 3)), np.ones(4, np.float32)),
                 (np.ones((4, 2), np.float32), np.ones(4, np.float32)),
                 (np.ones((4, 3), np.float32), np.ones(5, np.float32))]:
        with pytest.raises(BackendError):
            eager.run(g, *args)
    with pytest.raises(TypeError, match="takes 2 inputs"):
        eager.run(g, np.ones((4, 3), np.float32))


def test_integer_negative_powers_raise_at_run_time() -> None:
    g = Graph()
    x = g.add_input(np.int64, (2,))
    y = g.add_input(np.int64, (2,))
    g.set_outputs([api.binary_op(g, "**", x, y)])
    assert eager.run(g, np.array([2, 3]), np.array([2, 0]))[0].tolist() == [4, 1]
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        eager.run(g, np.array([2, 3]), np.array([-1, 0]))


def test_float32_reductions_use_numpys_own_summation_order() -> None:
    x = np.random.default_rng(3).standard_normal(100_003).astype(np.float32)
    g = Graph()
    v = g.add_input(np.float32, x.shape)
    g.set_outputs([api.lookup_function(f)(g, v) for f in (np.sum, np.mean, np.var, np.std)])
    got = eager.as_python_results(g.outputs, eager.run(g, x))
    for r, e in zip(got, (np.sum(x), np.mean(x), np.var(x), np.std(x)), strict=True):
        assert type(r) is type(e) and r == e


def test_every_op_in_the_table_runs() -> None:
    """One node of each op, so that no op of docs/IR.md is missing from the eager backend."""
    g = Graph()
    x = g.add_input(np.float64, (2, 3))
    b = g.add_input(np.bool_, (2, 3))
    i = g.add_input(np.int64, (2, 3))
    made: set[str] = set()
    for name, opdef in OPS.items():
        if opdef.kind == "elementwise" and opdef.arity == 2:
            operands = [i, i] if name.startswith(("bitwise", "left", "right")) else [x, x]
            g.op(name, operands)
        elif opdef.kind == "elementwise" and opdef.arity == 1 and name != "astype":
            g.op(name, [i] if name == "bitwise_not" else [x])
        elif opdef.kind == "reduction":
            axis = 1 if opdef.attrs[0][1] == "axis" else [1]
            g.op(name, [x], axis=axis, keepdims=False)
        made.add(name)
    g.op("where", [b, x, x])
    g.op("astype", [x], dtype=np.int32)
    g.const(1.5)
    g.full((2,), 1, np.int8)
    g.arange(0, 2, 3, np.int64)
    g.eye(2, 3, 1, np.float32)
    g.op("reshape", [x], shape=[3, 2])
    g.op("transpose", [x], perm=[1, 0])
    g.op("broadcast_to", [x], shape=[4, 2, 3])
    g.op("expand_dims", [x], axis=[0, 3])
    g.op("squeeze", [g.op("reshape", [x], shape=[1, 6])], axis=[0])
    g.op("slice", [x], start=[1, 2], stop=[-1, 0], step=[-1, -1])
    g.op("flip", [x], axis=[1])
    g.op("concatenate", [x, x], axis=0)
    g.op("matmul", [x, g.op("transpose", [x], perm=[1, 0])])
    g.op("copy", [x])
    zero, one = g.const(0), g.const(1)
    g.op("load", [x, zero, one])
    g.op("store", [x, g.const(2.5), one, zero])
    body = g.region("loop")
    index, carried = body.add_input(np.int64, (), weak=True), body.add_input(np.float64, (2, 3))
    body.set_outputs([body.const(True, weak=False),
                      body.op("store", [carried, index, body.const(0), index])])
    g.loop(zero, g.const(2), one, [x], [], body)
    then, orelse = g.region("then"), g.region("else")
    for region, op in ((then, "neg"), (orelse, "positive")):
        region.set_outputs([region.op(op, [region.add_input(np.float64, (2, 3))])])
    g.if_(g.op("load", [b, zero, zero]), [x], then, orelse)
    g.op("cumsum", [i], axis=1)
    g.op("cumprod", [x], axis=0)
    g.op("sort", [x], axis=1)
    g.op("argsort", [i], axis=0)
    g.op("sort_default", [x], axis=0)
    g.op("argsort_default", [i], axis=1)
    g.op("gather", [x, g.op("argmax", [x], axis=0, keepdims=False)], axis=1)
    g.op("scatter_add", [x, g.op("argsort", [i], axis=1)], axis=0, shape=[4])
    identity = g.eye(2, 2, 0, np.float64)
    g.op("solve", [identity, x])
    g.op("lstsq", [g.eye(3, 2, 0, np.float64), g.op("transpose", [x], perm=[1, 0]),
                   g.const(1e-10)])
    for op in ("inv", "det", "slogdet", "cholesky", "cholesky_upper", "eigh", "eigh_upper",
               "eigvalsh", "eigvalsh_upper"):
        g.op(op, [identity])
    for op in ("svd", "svd_reduced", "svdvals"):
        g.op(op, [x])
    assert {n.op for n in g.nodes} == set(OPS)
    g.set_outputs([n.out for n in g.nodes])
    with np.errstate(all="ignore"):
        outs = eager.run(g, np.ones((2, 3)), np.ones((2, 3), bool), np.ones((2, 3), np.int64))
    assert len(outs) == len(g.nodes)
