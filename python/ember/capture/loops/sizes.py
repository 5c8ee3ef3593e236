"""Symbolic sizes as values inside loop bodies.

A slice with run-time bounds of an axis whose size is symbolic (`x[i + 1:]` of an `x` of
`s0` elements, captured once for every size) needs the size at run time to clip its bounds
as NumPy does. A region sees only its parameters, so the size enters every loop body as a
pseudo-local of the frame, `.size#s0`: the run-time int the entry reads from the argument
that carries the symbol (`Tracer.symbolic_size`), made a weak 0-d graph input when the frame
starts. A body that needs a size the frame did not read restarts the capture
(`SizeInLoop`, caught by `convert.capture_frame`) with it read from the start, as
`loops/inputs.py` does for arrays; the body's stand-in of the pseudo-local is recorded on
the body's graph (`Graph.size_values`), where `value_in` finds it. So is a parameter
standing for a local the body never stores whose value is a size (`n = len(x)` before the
loop), under its dim: `dim_of` finds the dim of a body's int made of such values, which
keeps `np.empty(n)` in the body symbolic."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ember.capture.breaks import graph_break
from ember.graph import Graph, Value
from ember.graph.shapes import Terms, dim_terms, make_dim

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

SIZE = ".size#"


class SizeInLoop(Exception):
    """A loop body needs the run-time value of `symbol`: capture again with it read when
    the frame starts."""

    def __init__(self, symbol: str) -> None:
        super().__init__(f"the size {symbol} first needed inside a loop body")
        self.symbol = symbol
        self.int_symbols: dict[str, Any] = {}  # see `Tracer.int_symbol`


def preload(tx: Interpreter, symbols: set[str]) -> None:
    """The pseudo-locals of `symbols` in the root frame's locals."""
    from ember.capture.variables.array import ArrayVariable

    tx.graph.preloaded_sizes |= symbols
    for symbol in sorted(symbols):
        size = tx.tracer.symbolic_size(symbol)
        if size is not None:
            tx.locals[SIZE + symbol] = ArrayVariable(size.graph_value())


def inherit(caller: dict[str, Any], callee: dict[str, Any]) -> None:
    """An inlined function's frame sees the sizes its caller holds."""
    for name, vt in caller.items():
        if name.startswith(SIZE):
            callee[name] = vt


def record(region: Graph, name: str, param: Value) -> None:
    """A body's parameter standing for the pseudo-local `name`."""
    if name.startswith(SIZE):
        region.size_values[name[len(SIZE):]] = param


def record_invariant(region: Graph, outer: Any, param: Value) -> None:
    """A body's parameter standing for a local the body never stores whose value outside is
    a size (`n = len(u)` before the loop, `n - 1`, an enclosing body's own): recorded under
    its dim (a plain symbol serves `value_in` too), for `dim_of`."""
    from ember.capture.variables.array import ArrayVariable
    from ember.capture.variables.int_dims import int_terms

    if isinstance(outer, ArrayVariable):
        dim = dim_of(outer.value)
    else:
        found = int_terms(outer, new_symbols=False)
        dim = None if found is None else make_dim(*found)
    if isinstance(dim, str):
        region.size_values.setdefault(dim, param)


def value_in(graph: Graph, dim: str) -> Value:
    """The run-time value of the symbolic `dim` as a 0-d int64 value of `graph`, a loop
    body's region, or the entry graph (its symbols' sizes read by the entry)."""
    terms, constant = dim_terms(dim)
    total: Value | None = None
    for product, coefficient in terms.items():
        term: Value | None = None
        for symbol in product:
            found = graph.size_values.get(symbol)
            if found is None and graph.parent is None and graph.size_reader is not None:
                found = graph.size_reader(symbol)
            if found is None:
                if graph.parent is None or symbol in graph.root.preloaded_sizes:
                    raise graph_break("loop_body", what="a run-time slice of an axis of "
                                                        "symbolic size")
                raise SizeInLoop(symbol)
            term = found if term is None else graph.op("mul", [term, found])
        assert term is not None
        if coefficient != 1:
            term = graph.op("mul", [term, graph.const(coefficient)])
        total = term if total is None else graph.op("add", [total, term])
    if constant:
        total = graph.const(constant) if total is None else graph.op(
            "add", [total, graph.const(constant)])
    assert total is not None
    return total


def dim_of(value: Value) -> str | None:
    """The symbolic dim a loop body's 0-d int `value` equals, where the body computes it
    from sizes (`value_in`) and int constants by sums, differences and multiples (`n =
    len(d)`, `n - 1`, `2 * n`), so that `np.empty(n)` in the body stays symbolic; None for
    anything else."""
    graph = value.graph
    if graph.parent is None or value.ndim or value.dtype.kind not in "iu":
        return None
    found = _terms(graph, value, 0)
    dim = None if found is None else make_dim(*found)
    return dim if isinstance(dim, str) else None


def _terms(graph: Graph, value: Value, depth: int) -> tuple[Terms, int] | None:
    for dim, param in graph.size_values.items():
        if param is value:
            return dim_terms(dim)
    node = next((n for n in reversed(graph.nodes) if n.out is value), None)
    if node is None or depth > 8:
        return None
    if node.op == "const":
        v = node.attrs.get("value")
        return ({}, v) if type(v) is int else None
    if node.op not in ("add", "sub", "mul") or len(node.inputs) != 2:
        return None
    parts = [_terms(graph, x, depth + 1) for x in node.inputs]
    if parts[0] is None or parts[1] is None:
        return None
    (ta, ca), (tb, cb) = parts
    if node.op == "mul":
        if ta and tb:
            return None
        (terms, c), k = ((ta, ca), cb) if not tb else ((tb, cb), ca)
        return {p: v * k for p, v in terms.items()}, c * k
    sign = 1 if node.op == "add" else -1
    merged = dict(ta)
    for p, v in tb.items():
        merged[p] = merged.get(p, 0) + sign * v
    return merged, ca + sign * cb
