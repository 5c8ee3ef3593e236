"""Draw a graph as Graphviz DOT text: one node per value (parameters as ellipses, ops as
boxes, extern kernels such as matmul double-bordered), edges from operands to users, chosen
values highlighted (the saved residuals of a joint graph) and results marked."""

from __future__ import annotations

from collections.abc import Iterable

from ember.graph.parse import from_ir

# Ops that run as extern kernels rather than in generated loops.
EXTERN_OPS = frozenset({"matmul"})


def to_dot(ir_text: str, *, highlight: Iterable[str] = (), title: str | None = None) -> str:
    """DOT text of the graph in `ir_text`; `highlight` names values (`"%4"`) to fill."""
    graph = from_ir(ir_text)
    marked = set(highlight)
    number = {v.id: i for i, v in enumerate(graph.inputs)}
    lines = [f'digraph "{title or graph.name}" {{', "  rankdir=TB;",
             '  node [fontname="monospace", fontsize=10];']
    results = {v.id for v in graph.outputs}

    def style(name: str, vid: int) -> str:
        extra = ""
        if name in marked:
            extra += ', style="filled,bold", fillcolor="orange", color="red"'
        if vid in results:
            extra += ", peripheries=2" if "peripheries" not in extra else ""
        return extra

    for v in graph.inputs:
        name = f"%{number[v.id]}"
        lines.append(f'  v{number[v.id]} [shape=ellipse, label="{name}: {v.type_str}"'
                     f"{style(name, v.id)}];")
    for node in graph.nodes:
        i = number[node.out.id] = len(number)
        name = f"%{i}"
        shape = "box3d" if node.op in EXTERN_OPS else "box"
        kind = " (extern)" if node.op in EXTERN_OPS else ""
        lines.append(f'  v{i} [shape={shape}, label="{name} = {node.op}{kind}\\n'
                     f'{node.out.type_str}"{style(name, node.out.id)}];')
        for operand in node.inputs:
            lines.append(f"  v{number[operand.id]} -> v{i};")
    lines.append("}")
    return "\n".join(lines) + "\n"
