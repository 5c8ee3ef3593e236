"""What first calls cost: a `while` loop on Python values unrolled past the op budget is
captured again as one loop op (`whiles.count_trip`), so its graph does not grow with its
trips; one that cannot be a loop op still runs right. The graph's view edges kept between
questions (`array.view_edges` over `graph.NodeList`) answer as a scan of every node would,
and entries inline single-use scalars (`EntryCodegen.inline_single_uses`) as before."""

from __future__ import annotations

import pickle

import ember
import numpy as np
from conftest import RecordingBackend, assert_same
from ember.capture.variables.array import VIEW_OPS, _reached, view_edges
from ember.graph import Graph
from ember.graph.graph import NodeList
from hypothesis import given, settings
from hypothesis import strategies as st
from test_loops_returns import run_calls


def unpack_6bit(codes):
    out = np.zeros(len(codes) // 4 * 3, dtype=np.uint8)
    i = 0
    o = 0
    while i + 4 <= len(codes):
        v = (int(codes[i]) << 18) | (int(codes[i + 1]) << 12) | (int(codes[i + 2]) << 6) \
            | int(codes[i + 3])
        out[o] = (v >> 16) & 0xFF
        out[o + 1] = (v >> 8) & 0xFF
        out[o + 2] = v & 0xFF
        i += 4
        o += 3
    return out


def damped_walk(x, steps):
    y = x.copy()
    k = 0
    total = 0.0
    while k < steps:
        y = 0.5 * y + np.sin(y) * 0.25
        total += float(y[k % y.shape[0]])
        k += 1
    return y, total, k


def listed_while(x):
    found = []
    i = 0
    while i < x.shape[0]:
        if i % 3 == 0:
            found.append(i)
        else:
            found.append(x[i])  # items of two types, which one buffer cannot hold
        i += 1
    return found


def loop_ops(recorder: RecordingBackend) -> int:
    return sum(node.op == "loop" for graph in recorder.graphs for node in graph.nodes)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.integers(0, 700))
def test_long_while_on_python_ints_matches_python(n) -> None:
    ember.reset()
    codes = np.random.default_rng(n).integers(0, 64, n, dtype=np.uint8)
    want = unpack_6bit(codes)
    got = ember.compile(unpack_6bit)(codes.copy())
    assert_same(got, want)


def test_long_while_is_one_loop_op_whatever_its_trips() -> None:
    sizes = []
    for n in (400, 4000):
        ember.reset()
        recorder = RecordingBackend()
        codes = np.random.default_rng(n).integers(0, 64, n, dtype=np.uint8)
        assert_same(ember.compile(unpack_6bit, backend=recorder)(codes.copy()),
                    unpack_6bit(codes))
        assert loop_ops(recorder) >= 1
        sizes.append(sum(len(g.nodes) for g in recorder.graphs))
    assert sizes[0] == sizes[1], sizes


def test_long_while_runs_native() -> None:
    ember.reset()
    codes = np.random.default_rng(1).integers(0, 64, 800, dtype=np.uint8)
    run_calls(unpack_6bit, [(codes,), (codes[::-1].copy(),)])


def test_short_while_still_unrolls() -> None:
    ember.reset()
    recorder = RecordingBackend()
    codes = np.random.default_rng(2).integers(0, 64, 12, dtype=np.uint8)
    assert_same(ember.compile(unpack_6bit, backend=recorder)(codes.copy()), unpack_6bit(codes))
    assert loop_ops(recorder) == 0


@settings(max_examples=8, deadline=None, derandomize=True)
@given(st.integers(0, 60), st.integers(1, 9))
def test_long_while_carrying_arrays_and_floats(steps, size) -> None:
    ember.reset()
    x = np.random.default_rng(size).standard_normal(size)
    want = damped_walk(x.copy(), steps)
    got = ember.compile(damped_walk)(x.copy(), steps)
    assert_same(got, want)


def test_long_while_that_cannot_be_a_loop_op_runs_right() -> None:
    ember.reset()
    x = np.random.default_rng(4).random(300)
    assert_same(ember.compile(listed_while)(x.copy()), listed_while(x))


def _scanned(graph: Graph, value) -> set[int]:
    """The views of `value`, found by scanning every node (what `view_edges` keeps)."""
    edges = [(n.inputs[0], n.out) for n in graph.nodes
             if n.op in VIEW_OPS and not n.out.scalar]
    reached = {id(value)}
    grown = True
    while grown:
        grown = False
        for base, view in edges:
            if id(base) in reached and id(view) not in reached:
                reached.add(id(view))
                grown = True
    return reached


def test_view_edges_follow_appends_and_other_changes() -> None:
    g = Graph("views")
    x = g.add_input(np.float64, (4, 3))
    t = g.op("transpose", [x], perm=(1, 0))
    assert _reached(x, view_edges(g), []) == _scanned(g, x)
    r = g.op("reshape", [t], shape=(12,))
    assert _reached(x, view_edges(g), []) == _scanned(g, x) == {id(x), id(t), id(r)}
    # A change other than an append (a node dropped): the edges are found again.
    g.nodes[:] = [n for n in g.nodes if n.out is not r]
    assert _reached(x, view_edges(g), []) == _scanned(g, x) == {id(x), id(t)}
    del g.nodes[0]
    assert _reached(x, view_edges(g), []) == _scanned(g, x) == {id(x)}
    # Views the graph does not make (`extra`) are followed too.
    y = g.add_input(np.float64, (3, 4))
    assert id(y) in _reached(x, view_edges(g), [(x, y)])


def test_node_list_pickles_as_a_fresh_node_list() -> None:
    g = Graph("kept")
    x = g.add_input(np.float64, (4,))
    g.outputs = [g.op("exp", [x])]
    view_edges(g)
    g.nodes.insert(0, g.nodes.pop())
    back = pickle.loads(pickle.dumps(g))
    assert isinstance(back.nodes, NodeList) and back.nodes.version == 0
    assert back.nodes.scans == {}
    assert back.to_ir() == g.to_ir()


def scalars_out(a, b):
    s = a.sum()
    m = b.max()
    return s, m, s * 2.0, a.mean()


def test_entry_scalars_read_once_or_more() -> None:
    ember.reset()
    a = np.arange(6.0)
    b = np.linspace(-1.0, 1.0, 5)
    run_calls(scalars_out, [(a, b), (a * 2, b * 3)])
