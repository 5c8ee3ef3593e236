"""The least and greatest value a loop body's integer can take, where capture knows them:
a loop index over a range of static bounds, an outer loop's index the body reads, either
path's value of an `if`, and sums, differences and products of those with constants (`i + K`,
`2 * j + 2`); and the value a loop
index over `range(k + 1, n)` is at least (`k + 1`, its *floor*).

They decide whether a slice with loop-value bounds has a length known when the body is
traced: `img[i:i + K, j:j + K]` with `i` in `range(H - K + 1)` never reaches past the
array's end, so NumPy never clips it and it is a `K x K` window at a run-time position
(`loops/windows.py`) rather than a slice of run-time length."""

from __future__ import annotations

import math
import weakref
from typing import TYPE_CHECKING, Any

from ember.graph import Graph, Value

if TYPE_CHECKING:
    from ember.capture.loops.region import Group
    from ember.capture.variables.containers import IteratorVariable

Interval = tuple[int, int]


# Per graph: where each value is made (`id` of the value -> position in `graph.nodes`), the
# number of nodes indexed, and the last node indexed (a list changed behind it is indexed
# again).
_MADE: weakref.WeakKeyDictionary[Graph, list[Any]] = weakref.WeakKeyDictionary()


def producer(value: Value) -> Any:
    """The node of `value`'s graph that makes it (an output or an extra output), None for
    an input. Indexed once per graph as it grows, so that the ranges of a body unrolled over
    many trips cost no scan of every node per question."""
    graph = value.graph
    nodes = graph.nodes
    entry = _MADE.get(graph)
    if entry is None or entry[1] > len(nodes) or (
            entry[1] and nodes[entry[1] - 1] is not entry[2]):
        entry = [{}, 0, None]
        _MADE[graph] = entry
    index = entry[0]
    for k in range(entry[1], len(nodes)):
        node = nodes[k]
        index[id(node.out)] = k
        for extra in node.extra:
            index[id(extra)] = k
    if nodes:
        entry[1], entry[2] = len(nodes), nodes[-1]
    k = index.get(id(value))
    if k is None:
        return None
    node = nodes[k]
    if node.out is value or any(v is value for v in node.extra):
        return node
    # A node replaced in place (the same length, another node at `k`): scan.
    return next((n for n in nodes if n.out is value or any(v is value for v in n.extra)),
                None)


def record(graph: Graph, value: Value, interval: Interval) -> None:
    """`value`, an input of `graph`, lies in `interval` (both ends included) on every trip."""
    graph.value_ranges[id(value)] = interval


def record_floor(graph: Graph, value: Value, base: Value, constant: int) -> None:
    """`value`, an input of `graph`, is at least `base + constant` on every trip (`base` a
    value of `graph` too)."""
    graph.value_floors[id(value)] = (base, constant)


def record_range(graph: Graph, value: Value, r: range) -> None:
    """`value` takes the values of `r`, a range of at least one item."""
    if len(r):
        record(graph, value, (min(r[0], r[-1]), max(r[0], r[-1])))


def record_body(region: Graph, index: Value, groups: list[Group], iterator: IteratorVariable,
                bounds: tuple[Value, Value, Value] | None, stored: set[str]) -> None:
    """What capture knows of a loop body's integers: its index's range (`iterator`'s items
    left, or the run-time `bounds`) and floor, and the ranges of the integers the body reads
    but never assigns (an outer loop's index); `groups`: the body's parameters."""
    from ember.capture.variables.constant import ConstantVariable

    if bounds is None:
        origin = getattr(iterator, "origin", None)
        if isinstance(origin, ConstantVariable) and isinstance(origin.constant(), range):
            record_range(region, index, origin.constant()[iterator.index:])
        elif iterator.index < len(iterator.items):
            record(region, index, (iterator.index, len(iterator.items) - 1))
    else:
        lo, hi, step = (interval(v) for v in bounds)
        if lo is not None and hi is not None and step == (1, 1) and lo[0] < hi[1]:
            record(region, index, (lo[0], hi[1] - 1))
    base, constant = (None, 0) if bounds is None else offset_of(bounds[0])
    for group in groups:
        if any(name in stored for name in group.names):
            continue
        found = interval(group.initial)
        if found is not None:
            record(region, group.param, found)
        if group.initial is base and bounds is not None and interval(bounds[2]) == (1, 1):
            record_floor(region, index, group.param, constant)


def interval(value: Value, depth: int = 6) -> Interval | None:
    """The range of the 0-d integer `value`; None when capture cannot bound it."""
    if value.shape or value.dtype.kind not in "iu":
        return None
    known = value.graph.value_ranges.get(id(value))
    if known is not None or depth == 0:
        return known
    node = producer(value)
    if node is None:
        return None
    if node.op == "if":  # either path's value
        k = [v is value for v in (node.out, *node.extra)].index(True)
        paths = [interval(node.attrs[p].outputs[k], depth - 1) for p in ("then", "else")]
        if paths[0] is None or paths[1] is None:
            return None
        return min(paths[0][0], paths[1][0]), max(paths[0][1], paths[1][1])
    if node.op == "const":
        constant = node.attrs.get("value")
        return (int(constant), int(constant)) if isinstance(constant, int) else None
    parts = [interval(v, depth - 1) for v in node.inputs]
    if node.op == "bitwise_and" and len(parts) == 2:
        # `x & m` with `m` never negative lies in [0, m], whatever `x` is.
        highs = [p[1] for p in parts if p is not None and p[0] >= 0]
        if highs:
            return 0, min(highs)
    if any(p is None for p in parts):
        return None
    return _combine(node.op, parts)  # type: ignore[arg-type]


def _combine(op: str, parts: list[Interval]) -> Interval | None:
    if op == "add" and len(parts) == 2:
        (a, b), (c, d) = parts
        return a + c, b + d
    if op == "sub" and len(parts) == 2:
        (a, b), (c, d) = parts
        return a - d, b - c
    if op == "mul" and len(parts) == 2:
        (a, b), (c, d) = parts
        products = [a * c, a * d, b * c, b * d]
        return min(products), max(products)
    if op == "neg" and len(parts) == 1:
        (a, b), = parts
        return -b, -a
    if op in ("minimum", "maximum") and len(parts) == 2:
        pick = min if op == "minimum" else max
        (a, b), (c, d) = parts
        return pick(a, c), pick(b, d)
    return None


def offset_of(value: Value) -> tuple[Value | None, int]:
    """`value` as `base + constant` (base None for a constant), as index values are written."""
    node = producer(value)
    if node is None or node.out is not value:
        return value, 0
    if node.op == "const" and type(node.attrs.get("value")) is int:
        return None, node.attrs["value"]
    if node.op in ("add", "sub") and len(node.inputs) == 2:
        a, b = (offset_of(v) for v in node.inputs)
        if b[0] is None:
            return a[0], a[1] + (b[1] if node.op == "add" else -b[1])
        if a[0] is None and node.op == "add":
            return b[0], a[1] + b[1]
    return value, 0


def linear(value: Value, depth: int = 6) -> tuple[list[tuple[Value, int]], int] | None:
    """`value` as a sum of values times constants plus a constant (`(i + 1) * k` with `k` a
    constant is `i * k + k`), leaves written alike merged; None past `depth` levels of
    `add`, `sub`, `neg` and `mul` by a constant."""
    node = producer(value)
    if node is not None and node.out is not value:
        node = None
    if node is not None and node.op == "const" and type(node.attrs.get("value")) is int:
        return [], node.attrs["value"]
    if node is None or depth == 0 or node.op not in ("add", "sub", "neg", "mul") \
            or value.dtype.kind not in "iu":
        return [(value, 1)], 0
    parts = [linear(v, depth - 1) for v in node.inputs]
    if any(part is None for part in parts):
        return None
    if node.op == "neg":
        return _scaled(parts[0], -1)  # type: ignore[arg-type]
    a, b = parts
    if node.op == "mul":
        if not a[0]:  # type: ignore[index]
            return _scaled(b, a[1])  # type: ignore[arg-type, index]
        if not b[0]:  # type: ignore[index]
            return _scaled(a, b[1])  # type: ignore[arg-type, index]
        return [(value, 1)], 0
    return _summed(a, _scaled(b, -1) if node.op == "sub" else b)  # type: ignore[arg-type]


def _scaled(form: tuple[list[tuple[Value, int]], int], factor: int
            ) -> tuple[list[tuple[Value, int]], int]:
    return [(leaf, coef * factor) for leaf, coef in form[0]], form[1] * factor


def _summed(x: tuple[list[tuple[Value, int]], int], y: tuple[list[tuple[Value, int]], int]
            ) -> tuple[list[tuple[Value, int]], int]:
    terms = list(x[0])
    for leaf, coef in y[0]:
        k = next((k for k, (other, _) in enumerate(terms) if _alike(other, leaf)), None)
        if k is None:
            terms.append((leaf, coef))
        else:
            terms[k] = (leaf, terms[k][1] + coef)
    return [(leaf, coef) for leaf, coef in terms if coef], x[1] + y[1]


def constant_difference(x: Value, y: Value) -> int | None:
    """`x - y` where it is the same constant on every trip (`(i + 1) * k - i * k`), else
    None."""
    fx, fy = linear(x), linear(y)
    if fx is None or fy is None:
        return None
    terms, constant = _summed(fx, _scaled(fy, -1))
    return None if terms else constant


Position = Value | int


def _difference(x: Position, y: Position) -> tuple[float, float]:
    """Bounds of `x - y` on every trip (infinite where unknown)."""
    (bx, cx) = (None, x) if isinstance(x, int) else offset_of(x)
    (by, cy) = (None, y) if isinstance(y, int) else offset_of(y)
    low, high = -math.inf, math.inf
    if (bx is None and by is None) or (bx is not None and by is not None
                                       and _alike(bx, by)):
        return cx - cy, cx - cy
    if by is not None:
        floor = by.graph.value_floors.get(id(by))
        if floor is not None and bx is not None and _alike(bx, floor[0]):
            high = cx - floor[1] - cy  # y >= base + c
    if bx is not None:
        floor = bx.graph.value_floors.get(id(bx))
        if floor is not None and by is not None and _alike(by, floor[0]):
            low = floor[1] + cx - cy
    ix = (x, x) if isinstance(x, int) else interval(x)
    iy = (y, y) if isinstance(y, int) else interval(y)
    if ix is not None and iy is not None:
        low, high = max(low, ix[0] - iy[1]), min(high, ix[1] - iy[0])
    return low, high


def _alike(x: Value, y: Value) -> bool:
    from ember.capture.loops.runs import _same_value

    return _same_value(x, y)


def less(x: Position, y: Position) -> bool:
    """Whether `x < y` on every trip."""
    return _difference(x, y)[1] < 0


def at_most(x: Position, y: Position) -> bool:
    """Whether `x <= y` on every trip."""
    return _difference(x, y)[1] <= 0


def never_negative(x: Position) -> bool:
    if isinstance(x, int):
        return x >= 0
    found = interval(x)
    return found is not None and found[0] >= 0
