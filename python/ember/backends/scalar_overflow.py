"""NumPy's overflow check of integer scalar math, in native code.

An operator on NumPy integer scalars (`np.int64(2**62) * 4`, `-np.int8(-128)`,
`abs(np.int8(-128))`, `s + 1` for a scalar `s = x.sum()`) is computed by NumPy's scalar math,
not by the ufunc: it wraps as the ufunc does, but warns "overflow encountered in scalar
multiply" (or raises `FloatingPointError` under `np.errstate(over='raise')`). Array integer
ops, ufunc calls on scalars (`np.add(s, t)`), `**`, `%` and shifts wrap silently. `//`
already raises NumPy's flags natively (`MIN // -1`).

Capture marks such a node (`Node.warns_as` "scalar add", ...). The eager backend computes it
with the Python operator on NumPy scalars, so NumPy itself warns. For native code,
`with_checks` gives a copy of the graph in which each marked `add`, `sub`, `mul`, `neg` and
`abs` of an integer dtype is followed by its overflow condition, computed with IR ops (sign
bits for `add` and `sub`, or one compare against a bound where an operand is a constant of
the graph; the distance of the f64 product for `mul`), and by an f64 product
`1e300 * 1e300` taken in exactly the runs where the condition holds: it raises the overflow
flag natively, so the run is redone op by op with NumPy (`fp_rerun`), which gives NumPy's
own warning. The product feeds the result through a `where` whose test never holds, which
keeps it computed; the rerun runs the original graph, without the checks. Where nothing reads
the result (`q = b * big` never read, `-v` as a statement), NumPy still warns: the product
then also feeds a 0-d output of the graph or region through such a `where`
(`_Builder.anchor`), so dead-code elimination keeps the check.
"""

from __future__ import annotations

import copy
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ember.graph import Graph, Node, Value
from ember.graph.regions import REGION_OPS, live_values

# The NumPy scalar operator each checked op is (what the eager backend calls).
SCALAR_OPERATORS: dict[str, Callable[..., Any]] = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "neg": operator.neg,
    "abs": abs,
}
_BOOL = np.dtype(bool)
_F64 = np.dtype(np.float64)


def checks_overflow(node: Node) -> bool:
    """Whether NumPy checks `node` for integer overflow: scalar math of an integer dtype."""
    return (node.op in SCALAR_OPERATORS and node.out.dtype.kind in "iu"
            and node.warns_as is not None and node.warns_as.startswith("scalar "))


def with_checks(graph: Graph) -> Graph:
    """`graph`, or a copy of it (and of the regions its loop and if ops run) with the
    overflow conditions of its checked nodes raising the overflow flag."""
    nodes: list[Node] = []
    changed = False
    builder = _Builder(graph, nodes)
    kept = live_values(graph)
    unread: list[Value] = []  # the `never` tests of checks whose results nothing reads
    for node in graph.nodes:
        if node.op in REGION_OPS:
            attrs = {a: with_checks(r) if a in ("body", "then", "else") else r
                     for a, r in node.attrs.items()}
            if any(attrs[a] is not node.attrs[a] for a in attrs):
                node = Node(node.op, node.inputs, attrs, node.out, node.extra, node.where,
                            node.warns_as, node.call, node.errstate)
                changed = True
            nodes.append(node)
        elif checks_overflow(node) and not (node.op == "abs" and node.out.dtype.kind == "u"):
            never = builder.checked(node)
            if not any(id(v) in kept for v in node.results):
                unread.append(never)
            changed = True
        else:
            nodes.append(node)
    if not changed:
        return graph
    result = copy.copy(graph)
    result.nodes = nodes
    if unread:
        result.outputs = builder.anchor(list(graph.outputs), unread)
    return result


class _Builder:
    """Appends nodes to `nodes`, with fresh values numbered past the graph's own."""

    def __init__(self, graph: Graph, nodes: list[Node]) -> None:
        self.graph = graph
        self.nodes = nodes
        self.next_id = graph._next_id
        self.where: tuple[str, int, str] | None = None
        # The int constants of the graph, by value id (an operand known exactly).
        self.constants = {id(n.out): n.attrs.get("value") for n in graph.nodes
                          if n.op == "const" and n.out.shape == ()}

    def op(self, name: str, inputs: tuple[Value, ...], dtype: np.dtype,
           attrs: dict[str, Any] | None = None) -> Value:
        out = Value(self.graph, self.next_id, dtype, (), False, True)
        self.next_id += 1
        self.nodes.append(Node(name, inputs, attrs or {}, out, where=self.where))
        return out

    def const(self, value: float, dtype: np.dtype) -> Value:
        return self.op("const", (), dtype, {"value": value})

    def cast(self, v: Value, dtype: np.dtype) -> Value:
        return v if v.dtype == dtype and not v.weak else self.op("astype", (v,), dtype,
                                                                  {"dtype": dtype})

    def checked(self, node: Node) -> None:
        """`node` computed into a new value, its overflow condition raising the flag, and
        `node.out` defined as that value again."""
        self.where = node.where
        t = node.out.dtype
        raw = self.op(node.op, node.inputs, t, node.attrs)
        wraps = self.overflows(node.op, node.inputs, raw)
        # 1e300 * 1e300 raises the overflow flag (inf), 1.0 * 1e300 raises none; neither
        # is 0, so the result is `raw`, kept after the product.
        big = self.const(1e300, _F64)
        product = self.op("mul", (self.op("where", (wraps, big, self.const(1.0, _F64)), _F64),
                                  big), _F64)
        never = self.op("eq", (product, self.const(0.0, _F64)), _BOOL)
        self.nodes.append(Node("where", (never, self.const(0, t), raw), {}, node.out,
                               where=node.where, warns_as=node.warns_as))
        return never

    def constant_bound(self, op: str, operands: tuple[Value, ...],
                       t: np.dtype) -> tuple[str, int, int | None] | None:
        """Where one operand of a signed `add`/`sub` is a constant `k` of this graph,
        `(compare, position of the other operand v, limit)` such that the op overflows
        exactly when `compare(v, limit)` (limit None: never, k = 0); else None.
        x + k, k + x: above MAX - k for k > 0, below MIN - k for k < 0;
        x - k: below MIN + k for k > 0, above MAX + k for k < 0;
        k - x: below k - MAX for k >= 0, above k - MIN for k < 0."""
        info = np.iinfo(t)
        known = [self.constants.get(id(v)) for v in operands]
        for position, k in enumerate(known):
            if type(k) is not int or not info.min <= k <= info.max:
                continue
            other = 1 - position
            if op == "add" or position == 1:
                if k == 0:
                    return ("lt", other, None)
                up = (op == "add") == (k > 0)  # x + k, k > 0 and x - k, k < 0 go up
                if up:
                    return ("gt", other, int(info.max) - abs(k))
                return ("lt", other, int(info.min) + abs(k))
            if k >= 0:  # k - x
                return ("lt", other, k - int(info.max))
            return ("gt", other, k - int(info.min))
        return None

    def anchor(self, outputs: list[Value], tests: list[Value]) -> list[Value]:
        """`outputs` with one 0-d number among them (not a 0-d array, whose identity may
        matter) passed through a `where` on each of `tests` (never true), so the checks they
        end stay computed; unchanged where there is none."""
        numbers = [k for k, v in enumerate(outputs) if v.shape == () and (v.scalar or v.weak)]
        numbers.sort(key=lambda k: outputs[k].dtype == _BOOL)  # a bool last (`go`)
        if not numbers:
            return outputs
        k = numbers[0]
        value = outputs[k]
        zero = self.const(False if value.dtype == _BOOL else 0, value.dtype)
        for never in tests:
            out = Value(self.graph, self.next_id, value.dtype, (), value.weak, value.scalar)
            self.next_id += 1
            self.nodes.append(Node("where", (never, zero, value), {}, out))
            value = out
        outputs[k] = value
        return outputs

    def overflows(self, op: str, operands: tuple[Value, ...], r: Value) -> Value:
        """Whether `r = op(*operands)`, wrapped in `r`'s dtype, is not the exact result."""
        t = r.dtype
        if op == "mul":
            # The f64 product is far from r: r is 2**bits or more away from a wrapped x * y,
            # while rounding keeps the f64 product within 2**14 of an x * y that fits (exact
            # below 32 bits); 2**(bits/2) lies between. (No division, whose latency a loop's
            # carried chain would pay.) Promotion keeps values: the operands convert as
            # they are.
            x, y = (self.cast(v, _F64) for v in operands)
            product = self.op("mul", (x, y), _F64)
            distance = self.op("abs", (self.op("sub", (product, self.cast(r, _F64)), _F64),),
                               _F64)
            return self.op("gt", (distance, self.const(2.0 ** (4 * t.itemsize), _F64)), _BOOL)
        xs = [self.cast(v, t) for v in operands]
        signed = t.kind == "i"
        zero = self.const(0, t)
        if op in ("neg", "abs"):
            (x,) = xs
            if not signed:  # -x wraps for every x but 0
                return self.op("ne", (x, zero), _BOOL)
            return self.op("eq", (x, self.const(int(np.iinfo(t).min), t)), _BOOL)
        x, y = xs
        if not signed:  # add: r < x; sub: x < y
            return self.op("lt", (r, x) if op == "add" else (x, y), _BOOL)
        bound = self.constant_bound(op, operands, t)
        if bound is not None:  # one compare where an operand is a constant (`d[i] + 1`)
            compare, v, limit = bound
            if limit is None:
                return self.const(False, _BOOL)
            return self.op(compare, (xs[v], self.const(limit, t)), _BOOL)
        # add: both operands' signs differ from the result's; sub: the operands' signs
        # differ, and x's from the result's
        a, b = (x, y) if op == "add" else (x, x)
        c, d = (r, r) if op == "add" else (y, r)
        both = self.op("bitwise_and", (self.op("bitwise_xor", (a, c), t),
                                       self.op("bitwise_xor", (b, d), t)), t)
        return self.op("lt", (both, zero), _BOOL)
