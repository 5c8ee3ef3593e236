"""Loops over `enumerate(x)` and `zip(a, b, ...)` of arrays and ranges as loop ops: the trip
index `t` runs over the shortest part, and the item is the tuple of each part's item at `t`
(`enumerate(x, s)` is `zip(range(s, s + len(x)), x)`), unpacked by the loop's target
(`for i, v in enumerate(x):`) into several locals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.graph import Graph, Value


@dataclass
class Zipped:
    """What a loop over `zip(*parts)` iterates: ranges (constants) and arrays' first axes.
    `nest`: how a trip's item groups the parts' items, as positions in `parts`
    (`enumerate(zip(a, b))` is `(0, (1, 2))` over `[range, a, b]`); `inner`: the iterators
    of the zips nested in it, which the loop uses up too."""

    parts: list[VariableTracker]
    nest: tuple = ()
    inner: tuple = ()

    def item(self, items: list[VariableTracker]) -> VariableTracker:
        """A trip's item from the parts' items, grouped as `nest` says."""
        from ember.capture.variables.containers import TupleVariable

        def build(nest: tuple) -> VariableTracker:
            return TupleVariable([build(n) if isinstance(n, tuple) else items[n]
                                  for n in nest])

        return build(self.nest)


@dataclass
class Product:
    """What a loop over `itertools.product(*ranges)` iterates: trip `t` takes the tuple of
    each range's item at `t`'s digits in the mixed radix of the ranges' lengths (the last
    range varies fastest)."""

    parts: list[VariableTracker]

    def item(self, region: Graph, index: Value) -> VariableTracker:
        from ember.capture.variables.containers import TupleVariable

        ranges = [p.constant() for p in self.parts]  # type: ignore[attr-defined]
        return TupleVariable([ArrayVariable(v) for v in digits(region, index, ranges)])


@dataclass
class NdEnumerate:
    """What a loop over `np.ndenumerate(a)` iterates: trip `t` takes the tuple of `t`'s
    digits in the radix of `a`'s shape (C order, as `a.flat`) and the element there, read
    when the trip starts."""

    array: ArrayVariable

    def index_of(self, region: Graph, index: Value) -> list[Value]:
        return digits(region, index, [range(n) for n in self.array.value.shape])


@dataclass
class Pairs:
    """What a loop over `itertools.combinations(r, 2)` of a range iterates: trip `t` takes
    the `t`-th pair `(r[i], r[j])`, `i < j`, in Python's order (row `i` holds `n - 1 - i`
    pairs, so `first(i) = i * (2n - 1 - i) // 2` come before it). `i` is found from the
    root of that quadratic in float64, then corrected to the exact row by the integer
    `first` on each side, so rounding cannot pick a wrong pair."""

    part: VariableTracker

    def item(self, region: Graph, index: Value) -> VariableTracker:
        from ember.capture.variables.containers import TupleVariable

        r = self.part.constant()  # type: ignore[attr-defined]
        b = 2 * len(r) - 1
        int64, float64 = np.dtype(np.int64), np.dtype(np.float64)

        def op(name: str, *args: Value | int | float) -> Value:
            return region.op(name, [a if not isinstance(a, (int, float)) else region.const(a)
                                    for a in args])

        def first(i: Value) -> Value:
            return op("floordiv", op("mul", i, op("sub", b, i)), 2)

        t = region.op("astype", [index], dtype=int64, weak=True)
        root = op("sqrt", op("sub", float(b * b),
                             op("mul", 8.0, region.op("astype", [t], dtype=float64, weak=False))))
        guess = op("floor", op("div", op("sub", float(b), root), 2.0))
        i = region.op("astype", [guess], dtype=int64, weak=True)
        up = op("add", i, 1)
        i = op("where", op("le", first(up), t), up, i)
        i = op("where", op("gt", first(i), t), op("sub", i, 1), i)
        j = op("add", op("sub", t, first(i)), op("add", i, 1))
        i, j = (region.op("astype", [v], dtype=int64, weak=True) for v in (i, j))
        return TupleVariable([ArrayVariable(range_item(region, r, i)),
                              ArrayVariable(range_item(region, r, j))])


def digits(region: Graph, index: Value, ranges: list[range]) -> list[Value]:
    """Each range's item at `index`'s digits in the mixed radix of the ranges' lengths, the
    last range varying fastest."""
    items: list[Value] = []
    stride = 1
    for r in reversed(ranges):
        digit = index if stride == 1 else region.op("floordiv", [index, region.const(stride)])
        if len(r) != 1:
            digit = region.op("mod", [digit, region.const(len(r))])
        else:
            digit = region.op("mul", [digit, region.const(0)])
        items.insert(0, range_item(region, r, digit))
        stride *= max(len(r), 1)
    return items


def pairs_of(part: VariableTracker) -> Pairs | None:
    """The loop origin of `itertools.combinations(part, 2)` of a range, else None."""
    if isinstance(part, ConstantVariable) and isinstance(part.constant(), range):
        return Pairs(part)
    return None


def product_of(parts: list[VariableTracker]) -> Product | None:
    """The loop origin of `itertools.product(*parts)` of ranges, else None."""
    if parts and all(isinstance(p, ConstantVariable) and isinstance(p.constant(), range)
                     for p in parts):
        return Product(list(parts))
    return None


def origin_of(parts: list[VariableTracker]) -> Zipped | None:
    """The loop origin of `zip(*parts)`, or None when a part is not a range, an array, or a
    `zip`/`enumerate` of those not yet iterated (`enumerate(zip(a, b))`)."""
    from ember.capture.variables.containers import IteratorVariable

    flat: list[VariableTracker] = []
    nest: list = []
    inner: list = []
    for part in parts:
        if isinstance(part, ConstantVariable) and isinstance(part.constant(), range):
            pass
        elif isinstance(part, ArrayVariable) and part.value.ndim >= 1 and not part.value.weak:
            pass
        elif (isinstance(part, IteratorVariable) and isinstance(part.origin, Zipped)
                and part.index == 0):
            nested = part.origin
            nest.append(_shifted(nested.nest, len(flat)))
            flat.extend(nested.parts)
            inner.extend((part, *nested.inner))
            continue
        else:
            return None
        nest.append(len(flat))
        flat.append(part)
    return Zipped(flat, tuple(nest), tuple(inner))


def _shifted(nest: tuple, by: int) -> tuple:
    return tuple(_shifted(n, by) if isinstance(n, tuple) else n + by for n in nest)


def range_item(region: Graph, r: range, index: Value) -> Value:
    """`r[index]` of a trip index."""
    return region.op("add", [region.op("mul", [index, region.const(r.step)]),
                             region.const(r.start)])


def loop_targets(tx: Interpreter, start: int) -> list[str] | None:
    """The locals a trip's item is stored to, in order: one STORE_FAST, or an
    UNPACK_SEQUENCE into as many targets, each one of these (`for i, (a, b) in ...`); a
    STORE_DEREF (a local a comprehension or closure of the body reads) is its cell's
    pseudo-local (`region.CELL`). None for any other target."""
    tree = target_tree(tx, start)
    return None if tree is None else list(_names(tree[0]))


def target_tree(tx: Interpreter, start: int) -> tuple[str | list, int] | None:
    """The loop's target from `start` as a name or a list of targets, and where it ends."""
    from ember.capture.loops.region import CELL

    first = tx.instructions[start]
    if first.opname == "STORE_FAST":
        return str(first.argval), start + 1
    if first.opname == "STORE_DEREF":
        return CELL + str(first.argval), start + 1
    if first.opname != "UNPACK_SEQUENCE":
        return None
    targets: list = []
    at = start + 1
    for _ in range(int(first.arg or 0)):
        found = target_tree(tx, at) if at < len(tx.instructions) else None
        if found is None:
            return None
        targets.append(found[0])
        at = found[1]
    return targets, at


def _names(tree: str | list):
    if isinstance(tree, str):
        yield tree
        return
    for t in tree:
        yield from _names(t)


def bind_targets(tx: Interpreter, tree: str | list, item: VariableTracker) -> None:
    """Python's binding of `item` to the loop's target."""
    if isinstance(tree, str):
        tx.locals[tree] = item
        return
    parts = item.unpack(tx)
    for t, part in zip(tree, parts, strict=True):
        bind_targets(tx, t, part)
