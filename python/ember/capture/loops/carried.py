"""What a `for` loop's trip carries (`region._trace_with` calls `_collect` after each
trace): the local groups whose value the body changed, the arrays passed on or swapped
between locals (`u_prev, u = u, u_next`), and the types a retrace must start from where a
trip changed them."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.loops import swaps, vectors
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.constant import ConstantVariable
from ember.graph import Graph, Value

if TYPE_CHECKING:
    from ember.capture.loops.region import Group, Trace
    from ember.capture.variables.base import VariableTracker


def _number_constant(value: object) -> bool:
    """A Python number, or a NumPy number scalar (`x = np.float32(x0)`), carried with its
    dtype."""
    if isinstance(value, np.generic):
        return value.dtype.kind in "biuf"
    return type(value) in (bool, int, float)


def _collect(trace: Trace, end_locals: dict[str, VariableTracker], stored: set[str],
             live: set[str], after: set[str], targets: set[str],
             unbound: Collection[str] = ()) -> dict[str, tuple]:
    """Decide what is carried; a non-empty result asks for a retrace with those types.
    `live`: the locals live at the loop's head; `after`: those live after the loop;
    `unbound`: locals first assigned in the body that `first_assigned.carry` carries."""
    region = trace.region
    inner_ids = {id(g.inner): g for g in trace.groups}
    finals: dict[int, Group] = {}
    kept: list[VariableTracker] = []
    swapped: dict[int, Group] = {}  # id(group) -> the group whose array it ends bound to
    retrace: dict[str, tuple] = {}
    for group in trace.groups:
        # A local of the frame that no code reads again (`y0` after `y = np.asarray(y0)`)
        # may keep the array its partners leave, where no trip updates that array in place
        # (the first would update it for the caller too); pseudo-locals are read after it.
        untouched = group.inner.value is group.param  # type: ignore[attr-defined]
        seen = [end_locals.get(n) for n in group.names if n in live or n not in stored and not (
            untouched and n.isidentifier())]
        seen = [vt for vt in seen if vt is not None]
        kinds = {id(vt) for vt in seen}
        if len(kinds) > 1:
            raise graph_break("loop_body", what="locals that stop sharing one array")
        final = seen[0] if seen else group.inner
        other = inner_ids.get(id(final))
        if other is not None and other is not group:
            # `a, b = b, a + b`: fine for values whose identity no one can see: scalars
            # nothing updates in place, and arrays private to the frame (`u_prev, u = u,
            # u_next`), which the results replace after the loop as new objects.
            scalar = not final.value.shape and other.inner.value is other.param  # type: ignore[attr-defined]
            if not (scalar or (group.private and other.private)
                    or _passed_on(group, other, after)):
                raise graph_break("loop_body", what="a local bound to another carried array")
            if not scalar:
                swapped[id(group)] = other
            final = ArrayVariable(final.value)  # type: ignore[attr-defined]
        if id(final) in finals:
            value = getattr(final, "value", None)
            if not (isinstance(value, Value) and not value.shape and (value.weak or value.scalar)):
                raise graph_break("loop_body", what="two carried locals bound to one value")
            # A number (`lam_old = lam`): no one can update it in place, so each local
            # carries it on its own.
            final = ArrayVariable(value)
        finals[id(final)] = group
        kept.append(final)  # alive until the end, so that its id is not reused
        value = _final_value(region, final)
        group.final = final
        if value is group.param:
            continue
        p = group.param
        if (value.dtype, value.shape, value.weak) != (p.dtype, p.shape, p.weak):
            if value.shape != p.shape:
                raise graph_break("carried_shape", before=p.type_str, after=value.type_str)
            for name in group.names:
                retrace[name] = (value.dtype, value.shape, value.weak, value.scalar)
            continue
        group.carried = True
        group.final = ArrayVariable(value) if final is not group.inner else final
        group.final_value = value
    if not retrace:
        _swap_in_place(region, trace.groups, swapped)
    _refuse_first_assigned(min((name for name in stored - targets if name in live
                                and name not in unbound
                                and not any(name in g.names for g in trace.groups)
                                and name not in trace.following),
                               default=None))
    return retrace


def _refuse_first_assigned(name: str | None) -> None:
    """`name`: a local the body assigns and the code after the loop reads, that no parameter
    of the body holds: the loop op would not say what the last trip left in it."""
    if name is not None:
        raise graph_break("loop_body", what=f"local {name!r} first assigned in the body "
                                            "and read after the loop")


def _passed_on(group: Group, other: Group, after: set[str]) -> bool:
    """Whether `group`'s locals end the trip bound to `other`'s array as the trip found it
    (`u_prev, u = u, u_next`, arguments included) where no one can tell the loop's result
    from that object: the body updates neither in place, and the locals are dead after the
    loop, so only the next trip reads them."""
    return (other.inner.value is other.param  # type: ignore[attr-defined]
            and group.inner.value is group.param  # type: ignore[attr-defined]
            and not any(name in after for name in group.names))


def _swap_in_place(region: Graph, groups: list[Group], swapped: dict[int, Group]) -> None:
    """Private arrays swapped pairwise (`prev, cur = cur, prev`): each keeps its buffer and
    takes the other's contents (`loops/swaps.py`), so both are updated in place."""
    for group in groups:
        other = swapped.get(id(group))
        if other is None or swapped.get(id(other)) is not group or id(group) > id(other):
            continue
        a, b = group.inner.value, other.inner.value  # type: ignore[attr-defined]
        if not swaps.swappable(a, b):
            continue
        na, nb = swaps.swap_contents(region, a, b)
        for g, value in ((group, na), (other, nb)):
            g.carried, g.final, g.final_value = True, g.inner, value


def _final_value(region: Graph, vt: VariableTracker) -> Value:
    if isinstance(vt, ArrayVariable) and vt.value.graph is region:
        return vt.value
    if (isinstance(vt, vectors.VectorVariable) and vt.base is None
            and vt.elements[0].graph is region):
        # A short array computed element by element (`x = x * 0.5 + y[i]`) is a new array
        # in NumPy too; a vector gathered from an array is a view, which a copy would not be.
        return vectors.materialise(None, vt).value
    if isinstance(vt, ConstantVariable) and _number_constant(vt.constant()):
        return region.const(vt.constant())
    raise graph_break("loop_body", what=f"a carried {vt.describe()}")
