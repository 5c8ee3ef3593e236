"""`with np.errstate(divide="ignore", ...):` blocks of constant modes: the nodes captured
inside carry the block's modes (`Node.errstate`), over the caller's own at run time, so that
a run warns, raises or stays silent as NumPy does inside the block. The native run reruns
with NumPy on a flag of a category some block does not ignore (`Graph.errstate_acts`), and
the eager run gives each node its block's modes (`backends/eager.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

CATEGORIES = ("divide", "over", "under", "invalid")
# "print", "log" and "call" act through objects a run does not reach the same way.
_MODES = ("ignore", "warn", "raise")

Modes = tuple[tuple[str, str], ...]


def errstate_call(kwargs: dict[str, VariableTracker]) -> VariableTracker | None:
    """`np.errstate(**kwargs)` as a block to enter, or None where its modes are not constant
    strings NumPy's `ignore`, `warn` or `raise`."""
    if set(kwargs) - {"all", *CATEGORIES}:
        return None
    if not all(v.is_constant() and v.constant() in (*_MODES, None) for v in kwargs.values()):
        return None
    given = {k: v.constant() for k, v in kwargs.items() if v.constant() is not None}
    every = given.pop("all", None)
    modes = {c: every for c in CATEGORIES} if every is not None else {}
    modes.update(given)  # a category named beside `all` overrides it, as in NumPy
    return ErrstateVariable(tuple(sorted(modes.items())))


class ErrstateVariable(VariableTracker):
    """An `np.errstate(...)` object not yet entered."""

    def __init__(self, modes: Modes) -> None:
        self.modes = modes

    def python_type(self) -> type:
        return np.errstate

    def enter(self, tx: Interpreter) -> tuple[VariableTracker, VariableTracker]:
        """`__enter__`: the block's modes over those of the block around it; the `__exit__`
        to call, and what `__enter__` returns (None)."""
        graph = tx.graph
        outer = graph.errstate
        graph.set_errstate(tuple(sorted({**dict(outer or ()), **dict(self.modes)}.items())))
        return ErrstateExitVariable(outer), ConstantVariable(None)


class ErrstateExitVariable(VariableTracker):
    """The `__exit__` of an entered block: the modes around it come back."""

    def __init__(self, outer: Modes | None) -> None:
        self.outer = outer

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        tx.graph.set_errstate(self.outer)
        return ConstantVariable(None)  # exceptions are not suppressed
