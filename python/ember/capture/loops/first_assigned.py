"""Locals first assigned in a loop body and read after the loop (`for _ in range(50): ...;
dp = n * (x * p1 - p0) / (x * x - 1)`, then `w = 2 / ((1 - x * x) * dp * dp)`).

Before the loop such a local is unbound, so it has no value to enter the loop op with. The
body is traced with it unbound, and a read before an assignment on any path of the trip is a
graph break there (`LOAD_FAST`), which refuses the loop: a trace that completes shows that
no trip reads what the previous one left. The loop op then carries it out from a placeholder
of the type the trip leaves it, which only a loop of no trips would leave, where Python
raises `UnboundLocalError` at the read: so the loop must make a trip on every call the entry
serves (`ranges.require_a_trip`, as for a carried value whose first trip changes its type), or
is refused. One that the static liveness counts as read after the loop only through paths no
trace takes (an inner loop of constant trips, which liveness supposes may make none) and that
is dead after the loop needs no carrying."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ember.capture.breaks import graph_break
from ember.capture.loops.region import BodyArray, Group, Trace
from ember.capture.loops.returns import placeholder, returned_value
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter


def first_assigned(tx: Interpreter, assigned: set[str], live: set[str]) -> set[str]:
    """The locals the body assigns (`assigned`, loop targets excluded) that are unbound when
    the loop starts and that liveness says a trip or the code after the loop may read
    (`live`, at the loop's head)."""
    return {name for name in assigned if name not in tx.locals and name in live}


def carry(tx: Interpreter, trace: Trace, end_locals: dict[str, VariableTracker],
          names: set[str]) -> None:
    """A carried value of the loop op for each of `names` (those of `first_assigned` read
    after the loop), starting as a placeholder of the
    type the trip leaves it (never read: every trip assigns it first) and bound after the
    loop to the op's result. Only a number, a NumPy scalar or an array the body computed: an
    array of the frame or a view would lose its identity, as would one array bound to two
    locals."""
    seen: set[int] = {id(g.final) for g in trace.groups if g.final is not None}
    for name in sorted(names):
        vt = end_locals.get(name)
        if vt is None:
            raise graph_break("loop_body", what=f"local {name!r} deleted in the body")
        value = returned_value(trace.region, vt)
        if id(vt) in seen and value.shape:
            raise graph_break("loop_body", what=f"local {name!r} bound to an array another "
                                                "carried local holds")
        seen.add(id(vt))
        param = trace.region.add_input(value.dtype, value.shape, weak=value.weak,
                                       scalar=value.scalar)
        # A loop variable bound before the loop (`k = 0; for k in range(1, m): ... break`)
        # is rebound to the result as an unbound one is bound.
        outer = tx.locals.get(name, ConstantVariable(None))
        group = Group([name], outer, placeholder(tx.graph, value), param,
                      BodyArray(param, False))
        group.carried, group.final, group.final_value = True, ArrayVariable(value), value
        trace.groups.append(group)
