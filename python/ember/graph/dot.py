"""Draw a graph as Graphviz DOT text, and as SVG where Graphviz is installed.

One node per value (parameters as ellipses, ops as boxes), edges from operands to users.
Statements the code generator fuses into one kernel are drawn inside one cluster
(`cluster_k<step>`, from the schedule itself: `_core.fusion_groups`); extern calls (matmul,
scan) are 3-D boxes labelled `(extern)`. For a joint forward+backward graph the saved values
are filled, and the cut -- each edge by which the backward half reads a forward value -- is
drawn bold red from a saved value and dashed from a value the backward half recomputes.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable, Sequence

from ember.graph.parse import from_ir

# Ops that run as extern kernels rather than in generated loops.
EXTERN_OPS = frozenset({"matmul", "cumsum", "cumprod"})

Groups = tuple[Sequence[str], Sequence[int | None]]


def fusion_groups(ir_text: str) -> Groups | None:
    """The code generator's schedule of `ir_text` as it stands: the kind of each step and,
    per statement, the step computing it; None where the native back end cannot schedule it
    (symbolic shapes, a dtype it lacks)."""
    from ember import _core

    try:
        kinds, steps = _core.fusion_groups(ir_text)
    except (NotImplementedError, ValueError, RuntimeError):
        return None
    return kinds, steps


def to_dot(ir_text: str, *, highlight: Iterable[str] = (), title: str | None = None,
           groups: Groups | None = None, forward_nodes: int | None = None,
           primals: int | None = None) -> str:
    """DOT text of the graph in `ir_text`. `highlight` names values (`"%4"`) to fill;
    `groups` clusters statements by schedule step (see `fusion_groups`); `forward_nodes`:
    the graph is a joint graph whose first `primals` parameters (the rest are cotangents)
    and first `forward_nodes` statements are the forward half, and the edges from them into
    the backward half are the cut."""
    graph = from_ir(ir_text)
    marked = set(highlight)
    number = {v.id: i for i, v in enumerate(graph.inputs)}
    for node in graph.nodes:
        number[node.out.id] = len(number)
    results = {v.id for v in graph.outputs}
    kinds, steps = groups if groups is not None else ((), [None] * len(graph.nodes))
    lines = [f'digraph "{title or graph.name}" {{', "  rankdir=TB;", "  compound=true;",
             '  node [fontname="monospace", fontsize=10];']

    def attributes(name: str, vid: int) -> str:
        extra = ""
        if name in marked:
            extra += ', style="filled,bold", fillcolor="orange", color="red"'
        if vid in results:
            extra += ", peripheries=2"
        return extra

    for v in graph.inputs:
        name = f"%{number[v.id]}"
        lines.append(f'  v{number[v.id]} [shape=ellipse, label="{name}: {v.type_str}"'
                     f"{attributes(name, v.id)}];")
    clusters: dict[int, list[str]] = {}
    for index, node in enumerate(graph.nodes):
        i = number[node.out.id]
        name = f"%{i}"
        step = steps[index]
        kind = kinds[step] if step is not None else None
        is_extern = node.op in EXTERN_OPS or kind in ("matmul", "scan")
        shape = "box3d" if is_extern else "box"
        label = f"{name} = {node.op}{' (extern)' if is_extern else ''}\\n{node.out.type_str}"
        line = f'v{i} [shape={shape}, label="{label}"{attributes(name, node.out.id)}];'
        if step is not None and kind == "kernel":
            clusters.setdefault(step, []).append(line)
        else:
            lines.append(f"  {line}")
    for step, members in sorted(clusters.items()):
        lines += [f"  subgraph cluster_k{step} {{",
                  f'    label="kernel {step}"; style="rounded,dashed"; color="blue";',
                  *(f"    {m}" for m in members), "  }"]
    forward = None
    if forward_nodes is not None:
        forward = ({v.id for v in graph.inputs[:primals]}
                   | {n.out.id for n in graph.nodes[:forward_nodes]})
    for index, node in enumerate(graph.nodes):
        i = number[node.out.id]
        for operand in node.inputs:
            edge = f"  v{number[operand.id]} -> v{i}"
            crosses = forward is not None and index >= forward_nodes and operand.id in forward
            if crosses and f"%{number[operand.id]}" in marked:
                edge += ' [color="red", penwidth=2, label="saved"]'
            elif crosses:
                edge += ' [color="gray40", style="dashed", label="recomputed"]'
            lines.append(edge + ";")
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_svg(dot_text: str) -> str | None:
    """The drawing as SVG text, or None where Graphviz's `dot` is not installed."""
    dot = shutil.which("dot")
    if dot is None:
        return None
    done = subprocess.run([dot, "-Tsvg"], input=dot_text, capture_output=True, text=True,
                          check=True, timeout=60)
    return done.stdout
