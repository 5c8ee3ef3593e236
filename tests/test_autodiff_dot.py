"""The explain pictures: DOT text parsed back and checked for what it shows -- fusion
clusters from the code generator's schedule, extern calls, and for a joint graph the saved
values and the cut -- and SVG where Graphviz is installed."""

from __future__ import annotations

import re
import shutil

import ember
import numpy as np
from ember.graph import dot as dot_module

_NODE = re.compile(r'^\s*v(\d+) \[shape=(\w+), label="([^"]*)"(.*)\];$')
_EDGE = re.compile(r"^\s*v(\d+) -> v(\d+)(?: \[(.*)\])?;$")
_CLUSTER = re.compile(r"^\s*subgraph (cluster_\w+) \{$")


def parse_dot(text: str):
    """Nodes {id: (shape, label, extra attributes, cluster or None)} and edges
    [(src, dst, attributes)]."""
    nodes, edges, cluster = {}, [], None
    lines = text.strip().splitlines()
    assert lines[0].startswith("digraph ") and lines[-1] == "}"
    for line in lines[1:-1]:
        if m := _CLUSTER.match(line):
            assert cluster is None
            cluster = m.group(1)
        elif line.strip() == "}":
            assert cluster is not None
            cluster = None
        elif m := _NODE.match(line):
            nodes[int(m.group(1))] = (m.group(2), m.group(3), m.group(4), cluster)
        elif m := _EDGE.match(line):
            edges.append((int(m.group(1)), int(m.group(2)), m.group(3) or ""))
    assert cluster is None
    for src, dst, _ in edges:
        assert src in nodes and dst in nodes
    return nodes, edges


def op_of(label: str) -> str:
    return label.split(" = ")[1].split("\\n")[0].removesuffix(" (extern)")


def mlp_softmax(x, w0, w1):
    h = np.tanh(x @ w0 + 1.0)
    logits = h @ w1
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_captured_graph_clusters_are_the_schedules_kernels():
    rng = np.random.default_rng(0)
    x, w0, w1 = rng.normal(size=(8, 5)), rng.normal(size=(5, 6)), rng.normal(size=(6, 4))
    report = ember.explain(mlp_softmax, x, w0, w1)
    nodes, edges = parse_dot(report.dot(0))
    by_op = {}
    for vid, (shape, label, _, cluster) in nodes.items():
        if " = " in label:
            by_op.setdefault(op_of(label), []).append((vid, shape, label, cluster))
    # Both matmuls are extern calls, drawn apart from every kernel.
    assert len(by_op["matmul"]) == 2
    for _, shape, label, cluster in by_op["matmul"]:
        assert shape == "box3d" and "(extern)" in label and cluster is None
    # The softmax's max, exp, sum and division share one kernel (one pass per row).
    (_, _, _, softmax_cluster), = by_op["max"]
    assert softmax_cluster is not None
    for op in ("exp", "sum", "div"):
        assert all(c == softmax_cluster for _, _, _, c in by_op[op]), op
    # tanh(x @ w0 + 1) is stored for the second matmul by a kernel of its own.
    (_, _, _, tanh_cluster), = by_op["tanh"]
    assert tanh_cluster is not None and tanh_cluster != softmax_cluster
    # Every op except the extern calls lies in some cluster; parameters in none.
    for vid, (shape, label, _, cluster) in nodes.items():
        if " = " not in label:
            assert shape == "ellipse" and cluster is None
        elif op_of(label) not in ("matmul", "const"):
            assert cluster is not None, label
    assert sum(1 for *_, a in edges if a) == 0  # no cut in a plain graph


def test_joint_graph_marks_saved_values_and_the_cut():
    def f(w, x):
        return np.tanh(x @ w).sum()

    rng = np.random.default_rng(1)
    report = ember.explain(ember.grad(f), rng.normal(size=(3, 2)), rng.normal(size=(4, 3)))
    (aot,) = report.aot
    nodes, edges = parse_dot(aot.dot())
    saved = {int(s[1:]) for s in aot.saved}
    filled = {vid for vid, (_, _, extra, _) in nodes.items() if 'fillcolor="orange"' in extra}
    assert filled == saved and saved
    # The matmul result is saved (not recomputed), the cut edges leave saved values only.
    matmuls = [vid for vid, (_, label, _, _) in nodes.items()
               if " = " in label and op_of(label) == "matmul"]
    assert matmuls[0] in saved
    cut = [(s, d) for s, d, attrs in edges if 'label="saved"' in attrs]
    assert cut and all(s in saved for s, _ in cut)
    assert aot.primals == 2
    forward = aot.forward_nodes + 3  # two primals and the cotangent come first
    assert all(d >= forward for _, d in cut)
    cotangent = 2
    for s, d, attrs in edges:
        if s < forward <= d and s in saved:
            assert 'label="saved"' in attrs  # every read of a saved value is on the cut
        if 'label="recomputed"' in attrs:
            assert s not in saved and s != cotangent and d >= forward
    # tanh is recomputed from the saved matmul result rather than saved itself.
    tanh = next(vid for vid, (_, label, _, _) in nodes.items()
                if " = " in label and op_of(label) == "tanh")
    assert tanh not in saved
    assert any(s == tanh and 'label="recomputed"' in a for s, _, a in edges)


def test_fused_training_step_draws_one_graph_with_extern_matmuls():
    def loss(p, x):
        return np.tanh(x @ p["w"] + p["b"]).sum()

    def step(p, x):
        value, g = ember.value_and_grad(loss)(p, x)
        return value, {k: p[k] - 0.1 * g[k] for k in p}

    rng = np.random.default_rng(2)
    p = {"w": rng.normal(size=(3, 2)), "b": np.zeros(2)}
    report = ember.explain(step, p, rng.normal(size=(4, 3)))
    assert report.graph_count == 1 and report.graph_break_count == 0
    nodes, _ = parse_dot(report.dot(0))
    ops = [op_of(label) for _, label, _, _ in nodes.values() if " = " in label]
    assert ops.count("matmul") == 2  # forward x @ w, backward x.T @ g
    assert ops.count("tanh") == 1  # the backward pass reads the forward tanh


def test_svg_with_graphviz():
    # The suite's set-up (.ci/run, README's test command) installs Graphviz; without it this
    # fails rather than skips, and test_svg_without_graphviz_is_none covers the missing case.
    assert shutil.which("dot"), "Graphviz's dot is not installed: run the suite by .ci/run"
    report = ember.explain(mlp_softmax, np.ones((2, 3)), np.ones((3, 4)), np.ones((4, 2)))
    svg = report.svg(0)
    assert svg is not None and "<svg" in svg and "kernel" in svg and "matmul" in svg


def test_svg_without_graphviz_is_none(monkeypatch):
    monkeypatch.setattr(dot_module.shutil, "which", lambda name: None)
    report = ember.explain(mlp_softmax, np.ones((2, 3)), np.ones((3, 4)), np.ones((4, 2)))
    assert report.svg(0) is None
    assert report.dot(0).startswith("digraph")


def test_a_graph_with_a_loop_op_draws_its_body_as_a_region_cluster():
    def f(x, n):
        s = np.zeros(3)
        for i in range(n):
            s = s + np.sin(x) * i
        return s

    report = ember.explain(f, np.ones(3), 500)
    text = report.dot(0)
    lines = text.splitlines()
    region = next(i for i, line in enumerate(lines) if "subgraph cluster_region_" in line)
    name = lines[region].split("cluster_region_")[1].split()[0]
    end = lines.index("  }", region)
    inside = [line.strip() for line in lines[region + 1:end]]
    assert any('= sin\\n' in line for line in inside)
    assert all(line.startswith(("label=", "r0_")) for line in inside)
    loop = next(line for line in lines if "= loop" in line and line.strip().startswith("v"))
    loop_id = loop.strip().split()[0]
    assert f"{loop_id} -> r0_0 [style=dotted" in text and f"lhead=cluster_region_{name}" in text
