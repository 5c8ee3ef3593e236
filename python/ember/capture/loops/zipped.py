"""Loops over `enumerate(x)` and `zip(a, b, ...)` of arrays and ranges as loop ops: the trip
index `t` runs over the shortest part, and the item is the tuple of each part's item at `t`
(`enumerate(x, s)` is `zip(range(s, s + len(x)), x)`), unpacked by the loop's target
(`for i, v in enumerate(x):`) into several locals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.graph import Graph, Value


@dataclass
class Zipped:
    """What a loop over `zip(*parts)` iterates: ranges (constants) and arrays' first axes."""

    parts: list[VariableTracker]


def origin_of(parts: list[VariableTracker]) -> Zipped | None:
    """The loop origin of `zip(*parts)`, or None when a part is not a range or an array."""
    for part in parts:
        if isinstance(part, ConstantVariable) and isinstance(part.constant(), range):
            continue
        if isinstance(part, ArrayVariable) and part.value.ndim >= 1 and not part.value.weak:
            continue
        return None
    return Zipped(list(parts))


def range_item(region: Graph, r: range, index: Value) -> Value:
    """`r[index]` of a trip index."""
    return region.op("add", [region.op("mul", [index, region.const(r.step)]),
                             region.const(r.start)])


def loop_targets(tx: Interpreter, start: int) -> list[str] | None:
    """The locals a trip's item is stored to: one STORE_FAST, or an UNPACK_SEQUENCE into as
    many STORE_FASTs; a STORE_DEREF (a local a comprehension or closure of the body reads)
    is its cell's pseudo-local (`region.CELL`). None for any other target."""
    from ember.capture.loops.region import CELL

    first = tx.instructions[start]
    stores = [first]
    if first.opname == "UNPACK_SEQUENCE":
        stores = tx.instructions[start + 1:start + 1 + int(first.arg or 0)]
        if len(stores) != first.arg:
            return None
    if any(i.opname not in ("STORE_FAST", "STORE_DEREF") for i in stores):
        return None
    return [str(i.argval) if i.opname == "STORE_FAST" else CELL + str(i.argval)
            for i in stores]
