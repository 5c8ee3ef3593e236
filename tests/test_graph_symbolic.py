"""Symbolic dimensions: broadcasting, reshapes and reductions with sizes unknown until run."""

from __future__ import annotations

import numpy as np
import pytest
from ember import numpy_api as api
from ember.errors import Unsupported
from ember.graph import Graph
from ember.graph.shapes import Size, broadcast_shapes
from test_ops_elementwise import sample
from test_ops_harness import check


def test_broadcasting_symbols() -> None:
    assert broadcast_shapes(("s0", 3), (1, 3)) == ("s0", 3)
    assert broadcast_shapes(("s0", 1), ("s1",)) == ("s0", "s1")
    assert broadcast_shapes(("s0",), ("s0",), ()) == ("s0",)
    # Symbols stand for sizes of at least 2: against another size they need a guard.
    for a, b in [(("s0",), ("s1",)), (("s0",), (3,))]:
        with pytest.raises(Unsupported, match="broadcasting symbolic dimension"):
            broadcast_shapes(a, b)


def test_sizes_as_dims_in_normal_form() -> None:
    assert Size(("s0", 4, "s1")).divide(Size((2, "s1"))) == "2*s0"
    assert Size(("s0", 4)).divide(Size((8,))) is None
    assert Size(("s0+1", 2)).divide(Size((2,))) == "s0+1"
    assert Size(("s0", "s0-1")) == Size(("s0*s0-s0",))
    assert Size(("s0", 4, "s1")).divide(Size((4, "s1"))) == "s0"
    assert Size(("s0", 4)).divide(Size(("s0",))) == 4
    assert Size((0, "s0")) == Size((0,))
    assert Size(("s0", 2)).static is None


def test_reshape_and_ir_with_symbols() -> None:
    g = Graph("dyn")
    x = g.add_input(np.float32, ("s0", 3, 4))
    y = api.lookup_method("reshape")(g, x, -1, 12)
    z = api.lookup_method("reshape")(g, y, ("s0", 2, -1))
    m = api.lookup_method("mean")(g, z, axis=0)
    w = api.lookup_function(np.zeros_like)(g, x)
    b = api.lookup_function(np.broadcast_to)(g, m, ("s1", 2, 6))
    g.set_outputs([z, m, w, b])
    assert g.to_ir().splitlines()[1:8] == [
        "func @dyn(%0: f32[s0,3,4]) -> (f32[s0,2,6], f32[2,6], f32[s0,3,4], f32[s1,2,6]) {",
        "  %1 = reshape(%0) shape=[s0,12] : f32[s0,12]",
        "  %2 = reshape(%1) shape=[s0,2,6] : f32[s0,2,6]",
        "  %3 = mean(%2) axis=[0] keepdims=false : f32[2,6]",
        "  %4 = full() value=0.0 : f32[s0,3,4]",
        "  %5 = broadcast_to(%3) shape=[s1,2,6] : f32[s1,2,6]",
        "  return %2, %3, %4, %5",
    ]
    assert (x.size, x.shape, api.get_attribute(x, "ndim")) == (None, ("s0", 3, 4), 3)
    with pytest.raises(Unsupported):
        api.lookup_method("reshape")(g, x, 5, -1)
    with pytest.raises(Unsupported):
        api.getitem(g, x, slice(None, None, 2))  # a symbolic axis takes step 1 only


def test_slices_of_symbolic_dims() -> None:
    g = Graph("dyn")
    x = g.add_input(np.float32, ("s0", 3))
    head, tail = api.getitem(g, x, slice(1, None)), api.getitem(g, x, slice(None, -1))
    inner = api.getitem(g, head, slice(1, -2))
    first, last = api.getitem(g, x, 0), api.getitem(g, x, -3)
    window = api.getitem(g, x, slice(-4, -1))
    g.set_outputs([head, tail, inner, first, last, window])
    assert [v.shape for v in (head, tail, inner, first, last, window)] == [
        ("s0-1", 3), ("s0-1", 3), ("s0-4", 3), (3,), (3,), (3, 3)]
    # Each bound inside the dim, each dim left 2 or more: `x[1:][1:-2]` needs s0 >= 6.
    assert g.size_minimums == {"s0": 6}
    assert "slice(%0) start=[1,0] stop=[-1,3] step=[1,1] : f32[s0-1,3]" in g.to_ir()
    assert "slice(%0) start=[-5,0] stop=[-2,3] step=[1,1] : f32[3,3]" in g.to_ir()


def test_programs_with_symbolic_dims_match_numpy() -> None:
    x = np.random.default_rng(0).standard_normal((5, 7)).astype(np.float32)
    for prog in [
        lambda xp, x: (x - x.mean(axis=-1, keepdims=True))
        / xp.sqrt(x.var(axis=-1, keepdims=True) + 1e-5),
        lambda xp, x: xp.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1),
        lambda xp, x: (x.T @ x, x.reshape(-1), xp.zeros_like(x), x.std(), x.argmax(axis=0)),
        lambda xp, x: xp.concatenate([x, x], axis=0),
        lambda xp, x: xp.where(x > 0, x, 0.1 * x).sum(axis=0, keepdims=True),
    ]:
        check(prog, x, allow_unsupported=True, dynamic=True)
    g = check(lambda xp, x: (x * 2 + x.mean(axis=0)).var(axis=1), x, dynamic=True)
    assert g is not None and "s0" in g.to_ir()
    check(lambda xp, x, y: x @ y, x, sample(np.float32, (7, 3)), dynamic=True)


def test_arange_and_eye_of_symbolic_sizes() -> None:
    x = np.ones((5, 6), np.float32)
    g = check(lambda xp, x: (xp.arange(x.shape[0]) * x.T, xp.eye(x.shape[1]) @ x.T,
                             xp.eye(x.shape[0], x.shape[1], 1, dtype=np.int8)), x, dynamic=True)
    assert g is not None
    assert "arange() start=0 step=1 : i64[s0]" in g.to_ir()
