"""What differentiating one graph produced, as `ember.explain` shows it: the joint graph, the
saved values, both halves and the residual bytes against saving every value the backward
reads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ember.graph.dot import to_dot


@dataclass(frozen=True)
class AotReport:
    function: str
    joint: str
    forward: str
    backward: str
    saved: tuple[str, ...]
    residual_bytes: int
    save_all_bytes: int

    @classmethod
    def from_core(cls, report: dict[str, Any], forward: str, backward: str) -> AotReport:
        return cls(report["function"], report["joint"], forward, backward,
                   tuple(report["saved"]), report["residual_bytes"], report["save_all_bytes"])

    def dot(self) -> str:
        """The joint graph as DOT, the saved values highlighted."""
        return to_dot(self.joint, highlight=self.saved, title=f"{self.function} (joint)")

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
