"""Draw a graph as Graphviz DOT text, and as SVG where Graphviz is installed.

One node per value (parameters as ellipses, ops as boxes), edges from operands to users.
Statements the code generator fuses into one kernel are drawn inside one cluster
(`cluster_k<step>`, from the schedule itself: `_core.fusion_groups`); extern calls (matmul,
scan) are 3-D boxes labelled `(extern)`. Regions (loop bodies, if branches) are clusters of
their own, linked from the op that runs them. For a joint forward+backward graph the saved
values are filled, and the cut -- each edge by which the backward half reads a forward
value -- is drawn bold red from a saved value and dashed from a value the backward half
recomputes. The IR text is read here line by line, with no type inference, so that any
module draws, version 1 or 2.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# Ops that run as extern kernels rather than in generated loops.
EXTERN_OPS = frozenset({"matmul", "cumsum", "cumprod"})

Groups = tuple[Sequence[str], Sequence[int | None]]

_FUNC = re.compile(r"func @(\w+)\((.*)\) -> \((.*)\) \{$")
_PARAM = re.compile(r"%(\d+): (\w+\[[^\]]*\](?: weak)?)")
_STMT = re.compile(r"\s*(%\d+(?:, %\d+)*) = (\w+)\(([^)]*)\)(.*?) : (.+)$")
_REGION = re.compile(r"=@(\w+)")


@dataclass
class _Statement:
    results: list[int]
    op: str
    operands: list[int]
    regions: list[str]
    types: str


@dataclass
class _Function:
    name: str
    params: list[tuple[int, str]]
    statements: list[_Statement]
    returns: list[int]


def _functions(ir_text: str) -> list[_Function]:
    functions: list[_Function] = []
    for line in ir_text.strip().splitlines()[1:]:
        if head := _FUNC.match(line.strip()):
            params = [(int(n), t) for n, t in _PARAM.findall(head.group(2))]
            functions.append(_Function(head.group(1), params, [], []))
        elif line.strip().startswith("return"):
            functions[-1].returns = [int(v) for v in re.findall(r"%(\d+)", line)]
        elif stmt := _STMT.match(line):
            results, op, operands, attrs, types = stmt.groups()
            functions[-1].statements.append(_Statement(
                [int(v) for v in re.findall(r"%(\d+)", results)], op,
                [int(v) for v in re.findall(r"%(\d+)", operands)],
                _REGION.findall(attrs), types))
        elif line.strip() != "}":
            raise ValueError(f"not an ember IR line: {line!r}")
    return functions


def fusion_groups(ir_text: str) -> Groups | None:
    """The code generator's schedule of `ir_text` as it stands: the kind of each step and,
    per statement of the entry function, the step computing it; None where the native back
    end cannot schedule it (symbolic shapes, a dtype it lacks)."""
    from ember import _core

    try:
        kinds, steps = _core.fusion_groups(ir_text)
    except (NotImplementedError, ValueError, RuntimeError):
        return None
    return kinds, steps


def to_dot(ir_text: str, *, highlight: Iterable[str] = (), title: str | None = None,
           groups: Groups | None = None, forward_nodes: int | None = None,
           primals: int | None = None) -> str:
    """DOT text of the module in `ir_text`. `highlight` names values of the entry function
    (`"%4"`) to fill; `groups` clusters its statements by schedule step (see
    `fusion_groups`); `forward_nodes`: the graph is a joint graph whose first `primals`
    parameters (the rest are cotangents) and first `forward_nodes` statements are the forward
    half, and the edges from them into the backward half are the cut."""
    entry, *regions = _functions(ir_text)
    marked = set(highlight)
    kinds, steps = groups if groups is not None else ((), [None] * len(entry.statements))
    lines = [f'digraph "{title or entry.name}" {{', "  rankdir=TB;", "  compound=true;",
             '  node [fontname="monospace", fontsize=10];']
    results = set(entry.returns)

    def attributes(number: int) -> str:
        extra = ""
        if f"%{number}" in marked:
            extra += ', style="filled,bold", fillcolor="orange", color="red"'
        if number in results:
            extra += ", peripheries=2"
        return extra

    for number, ty in entry.params:
        lines.append(f'  v{number} [shape=ellipse, label="%{number}: {ty}"'
                     f"{attributes(number)}];")
    clusters: dict[int, list[str]] = {}
    for index, stmt in enumerate(entry.statements):
        step = steps[index] if index < len(steps) else None
        kind = kinds[step] if step is not None else None
        is_extern = stmt.op in EXTERN_OPS or kind in ("matmul", "scan")
        names = ", ".join(f"%{r}" for r in stmt.results)
        label = f"{names} = {stmt.op}{' (extern)' if is_extern else ''}\\n{stmt.types}"
        line = (f'v{stmt.results[0]} [shape={"box3d" if is_extern else "box"}, '
                f'label="{label}"{attributes(stmt.results[0])}];')
        if kind == "kernel":
            clusters.setdefault(step, []).append(line)
        else:
            lines.append(f"  {line}")
    for step, members in sorted(clusters.items()):
        lines += [f"  subgraph cluster_k{step} {{",
                  f'    label="kernel {step}"; style="rounded,dashed"; color="blue";',
                  *(f"    {m}" for m in members), "  }"]
    lines += _region_lines(regions)
    defined = {number: number for number, _ in entry.params}
    for stmt in entry.statements:
        for r in stmt.results:
            defined[r] = stmt.results[0]
    forward: set[int] | None = None
    if forward_nodes is not None:
        forward = {number for number, _ in entry.params[:primals]}
        forward |= {r for s in entry.statements[:forward_nodes] for r in s.results}
    for index, stmt in enumerate(entry.statements):
        target = stmt.results[0]
        for operand in stmt.operands:
            edge = f"  v{defined[operand]} -> v{target}"
            crosses = forward is not None and index >= forward_nodes and operand in forward
            if crosses and f"%{operand}" in marked:
                edge += ' [color="red", penwidth=2, label="saved"]'
            elif crosses:
                edge += ' [color="gray40", style="dashed", label="recomputed"]'
            lines.append(edge + ";")
        lines += _runs_lines(f"v{target}", stmt.regions, regions)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _region_lines(regions: list[_Function]) -> list[str]:
    """Each region as a cluster of its own nodes (prefixed by the region's position)."""
    lines = []
    for k, fn in enumerate(regions):
        lines += [f"  subgraph cluster_region_{fn.name} {{",
                  f'    label="@{fn.name}"; style="rounded"; color="gray50";']
        for number, ty in fn.params:
            lines.append(f'    r{k}_{number} [shape=ellipse, label="%{number}: {ty}"];')
        for stmt in fn.statements:
            names = ", ".join(f"%{r}" for r in stmt.results)
            lines.append(f'    r{k}_{stmt.results[0]} [shape=box, label="{names} = {stmt.op}'
                         f'\\n{stmt.types}"];')
        lines.append("  }")
        defined = {number: number for number, _ in fn.params}
        for stmt in fn.statements:
            for r in stmt.results:
                defined[r] = stmt.results[0]
            lines += [f"  r{k}_{defined[o]} -> r{k}_{stmt.results[0]};" for o in stmt.operands]
            lines += _runs_lines(f"r{k}_{stmt.results[0]}", stmt.regions, regions)
    return lines


def _runs_lines(node: str, names: list[str], regions: list[_Function]) -> list[str]:
    """Dotted edges from an op to the regions it runs."""
    lines = []
    for name in names:
        k = next((i for i, fn in enumerate(regions) if fn.name == name), None)
        if k is None:
            continue
        first = regions[k].params[0][0] if regions[k].params else None
        if first is not None:
            lines.append(f'  {node} -> r{k}_{first} [style=dotted, label="runs @{name}", '
                         f"lhead=cluster_region_{name}];")
    return lines


def to_svg(dot_text: str) -> str | None:
    """The drawing as SVG text, or None where Graphviz's `dot` is not installed."""
    dot = shutil.which("dot")
    if dot is None:
        return None
    done = subprocess.run([dot, "-Tsvg"], input=dot_text, capture_output=True, text=True,
                          check=True, timeout=60)
    return done.stdout
