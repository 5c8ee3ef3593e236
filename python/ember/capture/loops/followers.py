"""Slices of carried arrays in a loop body: `u = U[1:-1, 1:-1]` before `for ...: u += f(U)`.

`u` shares `U`'s memory, so the body must see each trip's update of `u` in `U` and the other
way round. Two parameters could not: `u` is no parameter of the body, but a `SliceView` of
`U`'s stand-in there (`views.py`), whose updates go into `U`, carried as usual; after the loop
op the frame's `u` follows `U`'s result. Only where the body leaves `u` bound to that slice
(it may update it in place, `u += ...`, `u[...] = ...`, but not rebind it); a `u` whose base
no local holds is carried as its own parameter, and written back into its base after the
loop, as any update of a `SliceView` is."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ember import numpy_api
from ember.capture.breaks import graph_break
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.views import SliceView

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.graph import Graph
    from ember.capture.loops.region import Group


def following(tx: Interpreter, start: int, stop: int) -> dict[str, SliceView]:
    """The locals holding a slice of an array another local holds (through slices of it),
    which the body at `[start, stop)` stores only as the result of an in-place operator."""
    views = derived(tx.locals.values(), tx.graph)
    return {name: vt for name, vt in tx.locals.items()
            if any(vt is v for v in views) and _updated_only(tx, start, stop, name)}


def derived(trackers: Iterable[VariableTracker], graph: Graph) -> list[SliceView]:
    """The slices among `trackers` whose root array (`SliceView.root`), an array of `graph`,
    one of them holds. Two slices of one root that none holds would be two separate
    stand-ins, blind to each other's updates: refused."""
    trackers = list(trackers)
    held = {id(vt) for vt in trackers if isinstance(vt, ArrayVariable)
            and not isinstance(vt, SliceView) and vt.value.graph is graph}
    found: list[SliceView] = []
    loose: set[int] = set()
    for vt in trackers:
        if not isinstance(vt, SliceView) or any(vt is v for v in found):
            continue
        root = vt.root()
        if id(root) in held:
            found.append(vt)
        elif id(root) in loose:
            raise graph_break("loop_body", what="two slices of one array no local holds")
        else:
            loose.add(id(root))
    return found


def _updated_only(tx: Interpreter, start: int, stop: int, name: str) -> bool:
    """Whether every store of `name` in the body stores what an in-place operator left (`u
    += ...`: BINARY_OP then STORE_FAST), which for an array is the array itself."""
    code = tx.instructions
    for i in range(start, stop):
        inst = code[i]
        if inst.opname in ("STORE_FAST", "DELETE_FAST") and inst.argval == name:
            before = code[i - 1]
            if inst.opname == "DELETE_FAST" or before.opname != "BINARY_OP" or not (
                    before.binary_op()[1]):
                return False
    return True


def stand_ins(tx: Interpreter, views: Iterable[SliceView],
              inner: dict[int, VariableTracker]) -> None:
    """Each of `views`, whose roots `inner` maps to their stand-ins in a region, gets its
    own: the same slice of its base's stand-in (added to `inner`)."""

    def stand_in(view: SliceView) -> VariableTracker:
        if id(view) not in inner:
            base = stand_in(view.base) if isinstance(view.base, SliceView) else inner[
                id(view.base)]
            value = numpy_api.getitem(base.value.graph, base.value, view.index)  # type: ignore[attr-defined]
            inner[id(view)] = SliceView(base, view.index, value, tx.tracer)  # type: ignore[arg-type]
        return inner[id(view)]

    for view in views:
        stand_in(view)


def bind(tx: Interpreter, views: dict[str, SliceView], groups: list[Group]
         ) -> dict[str, SliceView]:
    """Each following local's stand-in in the body: the same slice of its base's stand-in."""
    inner: dict[int, VariableTracker] = {id(g.outer): g.inner for g in groups}
    stand_ins(tx, views.values(), inner)
    bound = {name: inner[id(view)] for name, view in views.items()}
    tx.locals.update(bound)
    return bound  # type: ignore[return-value]


def check_kept(bound: dict[str, SliceView], end_locals: dict[str, VariableTracker]) -> None:
    """The body left each following local bound to its slice."""
    for name, vt in bound.items():
        if end_locals.get(name) is not vt:
            raise graph_break("loop_body", what=f"{name!r}, a slice of a carried array, "
                                                "rebound in the body")
