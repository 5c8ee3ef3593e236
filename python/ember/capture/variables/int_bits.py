"""`n.bit_length()` and `n.bit_count()` of a Python int the graph computes (a loop index, a
bitmask of a subset DP: `low = mask & -mask; bit = low.bit_length() - 1`), and
`x.bit_count()` of a NumPy integer scalar: branch-free elementwise ops on the magnitude as
uint64 (so that `-2**63` counts 64 bits, as Python's does), a Python int (weak int64) as
both Python and NumPy return."""

from __future__ import annotations

import numpy as np

from ember.graph import Graph, Value

_U64 = np.dtype(np.uint64)


def _magnitude(graph: Graph, x: Value) -> Value:
    if x.dtype.kind == "u":
        return graph.op("astype", [x], dtype=_U64, weak=False, scalar=True)
    return graph.op("astype", [graph.op("abs", [x])], dtype=_U64, weak=False, scalar=True)


def _u64(graph: Graph, number: int) -> Value:
    return graph.const(np.uint64(number))


def _python_int(graph: Graph, n: Value) -> Value:
    return graph.op("astype", [n], dtype=np.dtype(np.int64), weak=True, scalar=False)


def bit_length(graph: Graph, x: Value) -> Value:
    """Halving search for the highest set bit: six shifts and selects."""
    u = _magnitude(graph, x)
    n = _u64(graph, 0)
    for shift in (32, 16, 8, 4, 2, 1):
        high = graph.op("right_shift", [u, _u64(graph, shift)])
        big = graph.op("ne", [high, _u64(graph, 0)])
        u = graph.op("where", [big, high, u])
        n = graph.op("where", [big, graph.op("add", [n, _u64(graph, shift)]), n])
    n = graph.op("add", [n, graph.op("astype", [graph.op("ne", [u, _u64(graph, 0)])],
                                     dtype=_U64, weak=False, scalar=True)])
    return _python_int(graph, n)


def bit_count(graph: Graph, x: Value) -> Value:
    """The set bits of the magnitude by the SWAR popcount (pairs, nibbles, bytes summed by
    one wrapping multiply)."""
    v = _magnitude(graph, x)

    def shr(a: Value, k: int) -> Value:
        return graph.op("right_shift", [a, _u64(graph, k)])

    def mask(a: Value, m: int) -> Value:
        return graph.op("bitwise_and", [a, _u64(graph, m)])

    v = graph.op("sub", [v, mask(shr(v, 1), 0x5555555555555555)])
    v = graph.op("add", [mask(v, 0x3333333333333333), mask(shr(v, 2), 0x3333333333333333)])
    v = mask(graph.op("add", [v, shr(v, 4)]), 0x0F0F0F0F0F0F0F0F)
    return _python_int(graph, shr(graph.op("mul", [v, _u64(graph, 0x0101010101010101)]), 56))


def method(value: Value, name: str):  # type: ignore[no-untyped-def]
    """The handler of `name` for `value`, None where NumPy or Python has no such method
    (a 0-d array has neither; a NumPy integer has `bit_count` only)."""
    if value.ndim != 0 or value.dtype.kind not in "iu":
        return None
    if name == "bit_length" and value.weak:
        return lambda graph, x: bit_length(graph, x)
    if name == "bit_count" and (value.weak or value.scalar):
        return lambda graph, x: bit_count(graph, x)
    return None
