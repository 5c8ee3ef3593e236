"""What differentiating one graph produced, as `ember.explain` shows it: the joint graph, the
saved values, both halves and the residual bytes against saving every value the backward
reads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ember.graph.dot import fusion_groups, to_dot, to_svg


@dataclass(frozen=True)
class AotReport:
    function: str
    joint: str
    forward: str
    backward: str
    saved: tuple[str, ...]
    residual_bytes: int
    save_all_bytes: int
    # The joint graph's statements and parameters that belong to the forward half.
    forward_nodes: int | None = None
    primals: int | None = None

    @classmethod
    def from_core(cls, report: dict[str, Any], forward: str, backward: str) -> AotReport:
        return cls(report["function"], report["joint"], forward, backward,
                   tuple(report["saved"]), report["residual_bytes"], report["save_all_bytes"],
                   report.get("forward_nodes"), report.get("primals"))

    def dot(self) -> str:
        """The joint graph as DOT: the saved values filled, the cut drawn on the edges from
        the forward half into the backward half, statements clustered by the kernel that
        would compute them were the joint graph compiled whole."""
        return to_dot(self.joint, highlight=self.saved, title=f"{self.function} (joint)",
                      groups=fusion_groups(self.joint), forward_nodes=self.forward_nodes,
                      primals=self.primals)

    def svg(self) -> str | None:
        """`dot()` drawn as SVG, or None where Graphviz is not installed."""
        return to_svg(self.dot())

    def __str__(self) -> str:
        def indent(text: str) -> str:
            return "\n".join(f"  {line}" for line in text.rstrip("\n").splitlines())

        return "\n".join([
            (f"@{self.function}: saved {', '.join(self.saved) or 'nothing'}; residual bytes "
            f"{self.residual_bytes} (saving every value the backward reads: "
            f"{self.save_all_bytes})"),
            "joint graph:", indent(self.joint), "forward graph:", indent(self.forward),
            "backward graph:", indent(self.backward),
        ])
