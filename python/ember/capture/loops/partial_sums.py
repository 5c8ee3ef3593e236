"""Float sums and inner products over runs (`np.dot(x[:-lag], x[lag:])`, `row[:i].sum()`)
as loop ops that keep `LANES` partial sums: one running sum is a chain of dependent adds,
each waiting for the one before (four cycles each), where NumPy's `dot` and `sum` keep
several in flight. The main loop steps by `LANES` elements, adding the k-th element of each
group to the k-th partial sum; the partial sums are added pairwise; a second loop adds the
elements left over, one at a time. NumPy sums in blocks as well (pairwise summation, BLAS
kernels), so the result is as close to its as the one running sum was."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ember.graph import Graph, Value

LANES = 4


def sum_loop(graph: Graph, lo: Value, hi: Value, dtype: np.dtype, new_body: Callable[[], Any],
             term: Callable[[Any, Value], Value]) -> Value:
    """The sum of `term(body, k)` for `k` in `range(lo, hi)`, in `dtype`. `new_body()` gives
    a body being built (`.graph`, `.invariants`, outer values taken as invariant inputs
    when `term` reads them); `term` may be built several times in one body."""
    zero = graph.const(dtype.type(0))
    if dtype.kind != "f":
        return _loop(graph, lo, hi, 1, [zero], new_body, term)[0]
    count = graph.op("maximum", [graph.op("sub", [hi, lo]), graph.const(np.int64(0))])
    whole = graph.op("mul", [graph.op("floordiv", [count, graph.const(np.int64(LANES))]),
                             graph.const(np.int64(LANES))])
    mid = graph.op("add", [lo, whole])
    partial = _loop(graph, lo, mid, LANES, [zero] * LANES, new_body, term)
    while len(partial) > 1:
        partial = [graph.op("add", partial[i:i + 2]) for i in range(0, len(partial), 2)]
    return _loop(graph, mid, hi, 1, partial, new_body, term)[0]


def _loop(graph: Graph, lo: Value, hi: Value, lanes: int, carried: list[Value],
          new_body: Callable[[], Any], term: Callable[[Any, Value], Value]) -> list[Value]:
    body = new_body()
    k = body.graph.add_input(np.int64, (), weak=True)
    sums = [body.graph.add_input(c.dtype, c.shape, scalar=c.scalar) for c in carried]
    outs = []
    for lane, acc in enumerate(sums):
        at = k if lane == 0 else body.graph.op("add", [k, body.graph.const(lane)])
        total = body.graph.op("add", [acc, term(body, at)])
        if total.dtype != acc.dtype:
            total = body.graph.op("astype", [total], dtype=acc.dtype, scalar=True)
        outs.append(total)
    body.graph.set_outputs([body.graph.const(True, weak=False), *outs])
    return graph.loop(lo, hi, graph.const(lanes), carried, body.invariants, body.graph)
