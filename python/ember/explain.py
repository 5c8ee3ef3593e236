"""`ember.explain`'s report: what capture produced for one call."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class BreakReason:
    """One graph break: why, where in the user's code, and what to do about it."""

    reason: str
    file: str | None
    line: int | None
    hint: str
    function: str = ""

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.file else "<unknown>"
        return f"{where} in {self.function}: {self.reason}\n    hint: {self.hint}"


@dataclass
class ExplainReport:
    graphs: list[str] = field(default_factory=list)
    break_reasons: list[BreakReason] = field(default_factory=list)
    op_count: int = 0
    guards: list[str] = field(default_factory=list)
    entries: int = 0
    # Why entries compiled before did not serve this call (`L['x'] failed ARRAY_MATCH ...`),
    # newest first, and the recompiles of functions called while it ran.
    guard_failures: list[str] = field(default_factory=list)
    recompiles: list[str] = field(default_factory=list)
    # Graphs differentiated while the function ran (`ember.grad` and friends).
    aot: list[Any] = field(default_factory=list)

    @property
    def graph_count(self) -> int:
        return len(self.graphs)

    @property
    def graph_break_count(self) -> int:
        return len(self.break_reasons)

    def observe(self, kind: str, event: Any) -> None:
        """Listener for the capture policy's events."""
        if kind == "capture":
            self.entries += 1
            if event.graph is not None:
                self.graphs.append(event.graph.to_ir())
            self.op_count += event.op_count
            self.guards.extend(event.guard_lines)
        elif kind == "recompile":
            function, reason = event
            self.recompiles.append(f"{function}: {reason}")
        elif kind == "break":
            self.break_reasons.append(
                BreakReason(event.reason, event.filename, event.lineno, event.hint,
                            event.function)
            )

    def dot(self, index: int = 0, *, optimised: bool = True) -> str:
        """Graph `index` drawn as Graphviz DOT text: as the code generator receives it (after
        the core's passes; `optimised=False`: as captured), its statements clustered by the
        fused kernel that computes them, extern calls marked."""
        from ember import _core
        from ember.graph.dot import fusion_groups, to_dot

        text = self.graphs[index]
        stages = _core.pipeline_stages(text) if optimised else []
        if stages:
            text = stages[-1][1]
        return to_dot(text, groups=fusion_groups(text))

    def svg(self, index: int = 0) -> str | None:
        """`dot(index)` drawn as SVG, or None where Graphviz is not installed."""
        from ember.graph.dot import to_svg

        return to_svg(self.dot(index))

    def __str__(self) -> str:
        lines = [
            (f"graphs: {self.graph_count}, graph breaks: {self.graph_break_count}, "
            f"ops: {self.op_count}, guards: {len(self.guards)}"),
        ]
        if self.break_reasons:
            lines.append("break reasons:")
            lines += [f"  {i + 1}. {b}" for i, b in enumerate(self.break_reasons)]
        if self.guard_failures:
            lines.append("entries compiled before, not used for these arguments (newest first):")
            lines += [f"  {i + 1}. {f}" for i, f in enumerate(self.guard_failures)]
        if self.recompiles:
            lines.append("recompiles:")
            lines += [f"  {r}" for r in self.recompiles]
        if self.guards:
            lines.append("guards:")
            lines += [f"  {g}" for g in self.guards]
        for i, ir in enumerate(self.graphs):
            lines.append(f"graph {i}:")
            lines += [f"  {line}" for line in ir.rstrip("\n").splitlines()]
        for i, aot in enumerate(self.aot):
            lines.append(f"differentiated graph {i}:")
            lines += [f"  {line}" for line in str(aot).splitlines()]
        return "\n".join(lines)
