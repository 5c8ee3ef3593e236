"""Python's semantics for graph ops on Python numbers (weak 0-d values: `int(a[i])`, a loop
index, a carried `h = h * 31 + x`), where NumPy's would differ: Python ints never overflow,
`int()` of a NaN or infinity raises, `math.exp` and `**` of floats raise OverflowError
rather than give infinity, and NumPy refuses to store a float out of an int array's range.

Each is a run-time check (`frame_branches.add_check`): when it fails the frame runs again as
plain Python, which gives Python's result or exception. Ops whose operands capture can bound
(`loops/intervals.py`: loop indices, narrow ints) need none. Where the op itself would raise a
floating-point flag on the failing input, it computes on a safe value instead, so that no
NumPy warning comes before Python's behaviour."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ember.capture.loops import frame_branches
from ember.capture.loops.intervals import Interval, _combine, interval
from ember.graph import Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.graph import Graph

_INT64 = (-(2**63), 2**63 - 1)
_TWO_63 = float(2**63)


def _producer(graph: Graph, value: Value):
    return next((n for n in reversed(graph.nodes) if n.out is value), None)


def _fits(found: Interval | None) -> bool:
    return found is not None and _INT64[0] <= found[0] and found[1] <= _INT64[1]


def exact_int(tx: Interpreter, result: Value) -> None:
    """`result`, a Python int computed by one op of Python ints, is exact: else the frame
    runs as Python (whose int does not overflow)."""
    graph = tx.graph
    node = _producer(graph, result)
    if node is None or result.dtype != np.int64 or result.shape:
        return
    parts = [interval(v) for v in node.inputs]
    known = [p for p in parts if p is not None]
    if len(known) == len(parts) and _fits(_combine(node.op, known)):
        return
    count = parts[-1]
    if _masked_next(tx) and (node.op in ("add", "sub", "mul") or (
            node.op == "left_shift" and count is not None and 0 <= count[0]
            and count[1] <= 63)):
        return  # `(h * 0x01000193) & 0xFFFFFFFF`: the low bits survive int64's wrap
    if count is not None and (
            (node.op == "right_shift" and 0 <= count[0] and count[1] <= 63)
            or (node.op == "floordiv" and not count[0] <= -1 <= count[1])):
        return  # `h >> 3`, `h // 2`: nothing to check
    if node.op == "left_shift" and count is not None and 0 <= count[0] and count[1] <= 62:
        # A count of known range: the shift lost bits iff shifting back differs.
        back = graph.op("right_shift", [result, node.inputs[1]])
        frame_branches.add_check(tx, graph.op("ne", [back, node.inputs[0]]))
        return
    failed = _int_overflow(graph, node.op, node.inputs, result)
    if failed is not None:
        frame_branches.add_check(tx, failed)


# NB_AND and NB_INPLACE_AND, the `&` of BINARY_OP.
_AND = (1, 14)


def _masked_next(tx: Interpreter) -> bool:
    """Whether the int just computed goes straight into `& m`, `m` a constant in [0, 2**63)
    (`(k * 0xCC9E2D51) & 0xFFFFFFFF`, `m & (h << 5)`): the result keeps only bits below
    63, which int64 arithmetic gets right even where it wraps (two's complement keeps the
    low 64 bits of a sum, difference, product and shift), so Python's exact int is not
    needed. The value is on the stack only, so nothing else reads it."""
    insts, i = tx.instructions, tx.ip
    if i < len(insts) and insts[i].opname == "BINARY_OP" and insts[i].arg in _AND:
        below = tx.stack[-1] if tx.stack else None
        return below is not None and below.is_constant() and _mask(below.constant())
    return (i + 1 < len(insts) and insts[i].opname == "LOAD_CONST" and _mask(insts[i].argval)
            and insts[i + 1].opname == "BINARY_OP" and insts[i + 1].arg in _AND)


def _mask(value: object) -> bool:
    return type(value) is int and 0 <= value < 2**63


def _int_overflow(graph: Graph, op: str, inputs: list[Value], r: Value) -> Value | None:
    """A 0-d bool: the int64 op wrapped (or, for shifts, Python raises on its count)."""
    const = graph.const

    def negative(v: Value) -> Value:
        return graph.op("lt", [v, const(0)])

    if op in ("add", "sub"):
        a, b = inputs
        # Two's complement: a sum overflowed iff both operands' signs differ from its sign.
        x = graph.op("bitwise_xor", [a, r])
        y = graph.op("bitwise_xor", [b if op == "add" else a, r if op == "add" else b])
        return negative(graph.op("bitwise_and", [x, y]))
    if op == "mul":
        # The product in float64 rounds monotonically: every overflow lands at or past 2**63
        # (a product just short of it may too, which only costs running as Python).
        wide = graph.op("mul", [graph.op("astype", [v], dtype=np.float64, weak=True)
                                for v in inputs])
        return graph.op("ge", [graph.op("abs", [wide]), const(_TWO_63)])
    if op == "left_shift":
        a, k = inputs
        back = graph.op("right_shift", [r, graph.op("minimum", [graph.op(
            "maximum", [k, const(0)]), const(62)])])
        lost = graph.op("logical_or", [graph.op("gt", [k, const(62)]),
                                       graph.op("ne", [back, a])])
        lost = graph.op("logical_and", [graph.op("ne", [a, const(0)]), lost])
        return graph.op("logical_or", [negative(k), lost])  # a negative count: ValueError
    if op == "right_shift":  # a negative count raises; one past 63 is left to Python
        k = inputs[1]
        return graph.op("logical_or", [negative(k), graph.op("gt", [k, const(63)])])
    if op in ("neg", "abs"):
        return graph.op("eq", [inputs[0], const(_INT64[0])])
    if op == "floordiv":
        a, b = inputs
        return graph.op("logical_and", [graph.op("eq", [a, const(_INT64[0])]),
                                         graph.op("eq", [b, const(-1)])])
    if op == "pow":
        wide = graph.op("pow", [graph.op("astype", [v], dtype=np.float64, weak=True)
                                for v in inputs])
        return graph.op("logical_not", [graph.op("lt", [graph.op("abs", [wide]),
                                                        const(_TWO_63)])])
    return None


def to_int(tx: Interpreter, x: Value) -> Value:
    """`x`, a float about to become a Python int (`int()`, `math.floor`, `round`), checked to
    be finite and within int64 (else Python raises, or gives a wider int), with 0 in its
    place where it is not, so that the cast raises no flag."""
    graph = tx.graph
    wide = graph.op("astype", [x], dtype=np.float64, weak=True)
    inside = graph.op("lt", [graph.op("abs", [wide]), graph.const(_TWO_63)])  # NaN: false
    outside = graph.op("logical_not", [inside])
    frame_branches.add_check(tx, outside)
    return graph.op("where", [outside, graph.const(0.0), wide], scalar=True)


def uint64_to_int(tx: Interpreter, x: Value) -> Value:
    """`x`, a uint64 about to become a Python int (`int(x[i])`): one past int64 (a Python
    int wider than the graph's int64) sends the frame to Python, with 0 in its place."""
    graph = tx.graph
    outside = graph.op("gt", [x, graph.const(np.uint64(2**63 - 1))])
    frame_branches.add_check(tx, outside)
    return graph.op("where", [outside, graph.const(np.uint64(0)), x], scalar=True)


def checked_power(tx: Interpreter, x: Value, y: Value, result: Value) -> Value:
    """`result`, `math.pow(x, y)` or `x ** y` of Python floats: where it overflowed from
    finite operands (Python raises OverflowError), or is `0.0 ** -1` (ZeroDivisionError) or
    a negative number to a fractional power (a complex number, or math's ValueError), the
    frame runs as Python. (`math.exp` and friends check their argument: `scalars._DOMAINS`.)"""
    graph = tx.graph
    finite = [graph.op("isfinite", [v]) for v in (x, y)]
    overflow = graph.op("logical_and", [graph.op("isinf", [result]),
                                        graph.op("logical_and", finite)])
    zero = graph.op("logical_and", [graph.op("eq", [x, graph.const(0.0)]),
                                    graph.op("lt", [y, graph.const(0.0)])])
    fraction = graph.op("logical_and", [finite[1], graph.op("ne", [y, graph.op("floor", [y])])])
    fraction = graph.op("logical_and", [graph.op("lt", [x, graph.const(0.0)]), fraction])
    failed = graph.op("logical_or", [overflow, graph.op("logical_or", [zero, fraction])])
    frame_branches.add_check(tx, failed)
    return result


def storable(tx: Interpreter, dtype: np.dtype, element: Value) -> Value:
    """`element` about to be stored into an array of `dtype`: NumPy converts a float to an
    int array's type through a Python int, which raises for NaN, infinity and values out of
    the type's range, and refuses an int out of it; such a store runs the frame as Python."""
    if dtype.kind not in "iu" or element.dtype.kind not in "iuf":
        return element
    graph = tx.graph
    info = np.iinfo(dtype)
    if element.dtype.kind == "f":
        wide = graph.op("astype", [element], dtype=np.float64, weak=True)
        # Truncation toward zero fits iff min - 1 < x < max + 1 (int64's bound rounds to
        # -2**63, which then only runs -2.0**63 itself as Python).
        low, high = float(info.min) - 1, float(info.max) + 1
        inside = graph.op("logical_and", [graph.op("gt", [wide, graph.const(low)]),
                                          graph.op("lt", [wide, graph.const(high)])])
        safe = graph.const(0.0)
    else:
        bounds = np.iinfo(element.dtype)
        known = interval(element) or (bounds.min, bounds.max)
        if info.min <= known[0] and known[1] <= info.max:
            return element
        inside = graph.op("logical_and", [graph.op("ge", [element, graph.const(int(info.min))]),
                                          graph.op("le", [element, graph.const(int(info.max))])])
        safe = graph.const(0)
    outside = graph.op("logical_not", [inside])
    frame_branches.add_check(tx, outside)
    chosen = graph.op("where", [outside, safe, element], scalar=element.scalar)
    return graph.op("astype", [chosen], dtype=element.dtype, weak=element.weak) \
        if chosen.dtype != element.dtype or chosen.weak != element.weak else chosen
