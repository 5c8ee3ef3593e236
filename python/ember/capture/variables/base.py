"""The variable-tracker protocol: what capture knows about one Python value.

Every tracker refuses by default: an operation a tracker does not implement raises a graph
break naming the operation and the value (its source when it has one), never a wrong answer.
Trackers are plain objects; a few are mutable (local lists, dicts, iterators, cells, fresh
arrays updated in place) and are shared by reference exactly as the Python values would be.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ember.capture.breaks import graph_break
from ember.capture.sources import Source
from ember.errors import Unsupported

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter


class VariableTracker:
    """Base tracker. `source` says how to reload the value from the frame (None: created
    during capture)."""

    source: Source | None = None

    def describe(self) -> str:
        """The name used in messages: the source (`L['x']`) or a short description."""
        if self.source is not None:
            return self.source.name()
        return f"a {self.type_name()} value"

    def type_name(self) -> str:
        return type(self).__name__.removesuffix("Variable").lower()

    # ---- Python-level facts ------------------------------------------------------------------

    def is_constant(self) -> bool:
        """Whether the value is known at capture time (and so can be computed on)."""
        return False

    def constant(self) -> Any:
        """The Python value, for trackers that are constants."""
        raise graph_break("type", what=self.describe(), type=self.type_name())

    def python_type(self) -> type:
        raise graph_break("type", what=self.describe(), type=self.type_name())

    def truth(self, tx: Interpreter) -> bool:
        raise graph_break("type", what=f"truth value of {self.describe()}", type=self.type_name())

    def unpack(self, tx: Interpreter) -> list[VariableTracker]:
        """The items, for iteration and unpacking (static length only)."""
        raise graph_break("type", what=f"iteration over {self.describe()}", type=self.type_name())

    # ---- operations --------------------------------------------------------------------------

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        raise graph_break("attribute", name=name, what=self.describe())

    def call(
        self, tx: Interpreter, args: list[VariableTracker], kwargs: dict[str, VariableTracker]
    ) -> VariableTracker:
        raise graph_break("call", name=self.describe())

    def getitem(self, tx: Interpreter, index: VariableTracker) -> VariableTracker:
        raise graph_break("type", what=f"indexing {self.describe()}", type=self.type_name())

    def setitem(self, tx: Interpreter, index: VariableTracker, value: VariableTracker) -> None:
        raise graph_break("side_effect", what=f"item assignment to {self.describe()}")

    def length(self, tx: Interpreter) -> int:
        raise graph_break("type", what=f"len() of {self.describe()}", type=self.type_name())

    def children(self) -> Iterable[Any]:
        """The trackers this one holds (items, attributes assigned, cells...), to find which
        arrays are still reachable (see `Tracer.held_values`)."""
        return ()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.describe()}>"


class NullVariable(VariableTracker):
    """The NULL that `PUSH_NULL` / `LOAD_GLOBAL` push before a callable (3.11 call protocol)."""

    def describe(self) -> str:
        return "NULL"


NULL = NullVariable()


class CellVariable(VariableTracker):
    """A closure cell: a mutable box. Cells of the captured frame's function start unread and
    are loaded from their source on first use."""

    def __init__(self, contents: VariableTracker | None = None, source: Source | None = None,
                 name: str = "") -> None:
        self.contents = contents
        self.cell_source = source
        self.name = name

    def describe(self) -> str:
        return f"cell {self.name!r}"

    def children(self) -> Iterable[Any]:
        return () if self.contents is None else (self.contents,)


class DeferredAttributeVariable(VariableTracker):
    """`obj.name` that capture could not read (for a method call): using it raises the
    break the read would have raised; a graph break rebuilds it as a plain attribute read."""

    def __init__(self, obj: VariableTracker, name: str, refusal: Unsupported) -> None:
        self.obj = obj
        self.name = name
        self.refusal = refusal

    def describe(self) -> str:
        return f"{self.obj.describe()}.{self.name}"

    def children(self) -> Iterable[Any]:
        return (self.obj,)

    def _refuse(self) -> Unsupported:
        r = self.refusal
        return Unsupported(r.reason, r.hint, r.kind)

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        raise self._refuse()

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        raise self._refuse()
