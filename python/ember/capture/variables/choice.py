"""The value a frame returns when a loop op in it may return early: one of two trackers,
picked after the graph ran by a flag the graph computed (`capture/loops/returns.py`).

Each side keeps its own Python type (`return max_dist + 1`, a Python int, on one side;
`return prev[m]`, a NumPy scalar, on the other), which one graph value could not. Only a
frame's own return value is ever a choice: nothing in capture operates on one."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ember.capture.variables.base import VariableTracker


class ChoiceVariable(VariableTracker):
    """`if_true if flag else if_false`, `flag` a 0-d bool tracker of the graph."""

    def __init__(self, flag: VariableTracker, if_true: VariableTracker,
                 if_false: VariableTracker) -> None:
        self.flag, self.if_true, self.if_false = flag, if_true, if_false

    def describe(self) -> str:
        return "a value returned from inside a loop or after it"

    def children(self) -> Iterable[Any]:
        return (self.flag, self.if_true, self.if_false)
