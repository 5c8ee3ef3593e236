"""`np.histogram(x, bins=int, range=, weights=, density=)`: NumPy's fast path for equal bins,
step by step, as one loop op adding each element into its bin.

The same outer edges (the range, or the data's min and max, widened by 0.5 when equal), the
same bin edges (`np.linspace` in the bin dtype, computed in the graph when they come from the
data), the same scaled index (`(x - first) / (last - first) * bins` in the dtypes NumPy's
`_unsigned_subtract` gives), the same one-bin corrections against the edges, values outside
the range and NaN dropped: every value lands in NumPy's bin. Where NumPy raises on data
(a non-finite range from the data, bins too narrow to be distinct), the graph raises
`IndexError` from a load past an end and the frame reruns in NumPy."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.numpy_api.convert import static_int, to_value
from ember.numpy_api.creation import linspace
from ember.numpy_api.loop_nest import LoopNest
from ember.numpy_api.shape_ops import array_arg, reshape_value


def _unsigned_subtract(a: Any, b: Any) -> Any:
    """NumPy's `_unsigned_subtract` of the histogram range: signed integers subtract as
    their unsigned type (a NumPy scalar), floats in their common type."""
    dt = np.result_type(a, b)
    unsigned = {np.dtype(t): np.dtype(u) for t, u in (
        (np.byte, np.ubyte), (np.short, np.ushort), (np.intc, np.uintc), (np.int_, np.uint),
        (np.longlong, np.ulonglong))}
    if dt in unsigned:
        return np.subtract(np.asarray(a, dtype=dt), np.asarray(b, dtype=dt), casting="unsafe",
                           dtype=unsigned[dt])
    return np.subtract(a, b, dtype=dt)


def _static_edges(range_: object) -> tuple[Any, Any]:
    if isinstance(range_, Value) or not isinstance(range_, (tuple, list)) or len(range_) != 2:
        raise Unsupported("np.histogram with a range that is not two numbers")
    first, last = range_
    for edge in (first, last):
        if isinstance(edge, (Value, bool, np.bool_)) or not isinstance(
                edge, (int, float, np.integer, np.floating)):
            raise Unsupported("np.histogram with a range computed from array data")
    if first > last:
        raise ValueError("max must be larger than min in range parameter.")
    if not (np.isfinite(first) and np.isfinite(last)):
        raise ValueError(f"supplied range of [{first}, {last}] is not finite")
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


class Edges:
    """The outer edges as graph values, the bin dtype, the bin edges and `last - first`."""

    def __init__(self, graph: Graph, x: Value, n_bins: int, range_: object) -> None:
        if range_ is None and x.shape[0] != 0:
            self._from_data(graph, x, n_bins)
            return
        first, last = (0, 1) if range_ is None else _static_edges(range_)
        self.dtype = _bin_dtype(np.result_type(first, last, np.empty(0, x.dtype)))
        known = np.linspace(first, last, n_bins + 1, endpoint=True, dtype=self.dtype)
        if np.any(known[:-1] >= known[1:]):
            raise ValueError(f"Too many bins for data range. Cannot create {n_bins} "
                             "finite-sized bins.")
        edges = linspace(graph, first, last, n_bins + 1, True, False, self.dtype)
        assert isinstance(edges, Value)
        self.edges = edges
        self.first, self.last = (graph.const(e.item() if isinstance(e, np.generic) else e)
                                 for e in (first, last))
        denom = _unsigned_subtract(last, first)
        # An integer range subtracts as uint64; a float array divided by it computes in
        # float64, which holds the difference exactly below 2**53.
        self.denom = graph.const(np.float64(denom) if denom.dtype.kind == "u" else denom)

    def _from_data(self, graph: Graph, x: Value, n_bins: int) -> None:
        lo = graph.op("min", [x], axis=None, keepdims=False)
        hi = graph.op("max", [x], axis=None, keepdims=False)
        if x.dtype.kind in "iu":
            # NumPy widens an empty range by 0.5, which makes the edges float64; the index
            # arithmetic is float64 either way (the unsigned difference over a float array).
            lo, hi = (graph.op("astype", [v], dtype=np.dtype(np.float64)) for v in (lo, hi))
        same = graph.op("eq", [lo, hi])
        self.first = graph.op("where", [same, graph.op("sub", [lo, graph.const(0.5)]), lo])
        self.last = graph.op("where", [same, graph.op("add", [hi, graph.const(0.5)]), hi])
        self.dtype = _bin_dtype(self.first.dtype)
        self.denom = graph.op("sub", [self.last, self.first])
        self.edges = _linspace(graph, self.first, self.last, n_bins + 1)
        finite = graph.op("logical_and", [graph.op("isfinite", [self.first]),
                                          graph.op("isfinite", [self.last])])
        rising = graph.op("all", [graph.op("lt", [_cut(graph, self.edges, 0, n_bins),
                                                  _cut(graph, self.edges, 1, n_bins + 1)])],
                          axis=None, keepdims=False)
        valid = graph.op("logical_and", [finite, rising])
        # NumPy raises ValueError here: a load past the end makes the graph raise instead.
        graph.op("load", [self.edges, graph.op("where", [valid, graph.const(0),
                                                         graph.const(n_bins + 1)])])


def _bin_dtype(dtype: np.dtype) -> np.dtype:
    return np.result_type(dtype, float) if dtype.kind in "iu" else dtype


def _linspace(graph: Graph, start: Value, stop: Value, num: int) -> Value:
    """NumPy's linspace of two 0-d float values, op for op: `arange * step + start` (or
    `arange / div * delta` where the step is 0), the last element `stop`."""
    div = num - 1
    delta = graph.op("sub", [stop, start])
    step = graph.op("div", [delta, graph.const(div)])
    ramp = graph.arange(0, 1, num, start.dtype)
    scaled = graph.op("where", [graph.op("eq", [step, graph.const(0)]),
                                graph.op("mul", [graph.op("div", [ramp, graph.const(div)]),
                                                 delta]),
                                graph.op("mul", [ramp, step])])
    values = graph.op("add", [scaled, start])
    is_last = graph.op("eq", [graph.arange(0, 1, num, np.int64), graph.const(div)])
    return graph.op("where", [is_last, stop, values])


def _cut(graph: Graph, v: Value, start: int, stop: int) -> Value:
    return graph.op("slice", [v], start=[start], stop=[stop], step=[1])


def histogram(graph: Graph, a: object, bins: object = 10, range: object = None,
              density: object = None, weights: object = None) -> tuple[Value, Value]:
    what = "np.histogram"
    if isinstance(bins, (str, list, tuple, Value, np.ndarray)):
        raise Unsupported("np.histogram with bins other than a number of equal bins")
    n_bins = static_int(bins, what)
    if n_bins < 1:
        raise ValueError("`bins` must be positive, when an integer")
    x = reshape_value(graph, array_arg(graph, a, what), (-1,))
    if x.dtype == np.bool_:
        raise Unsupported("np.histogram of booleans (NumPy converts them with a warning)")
    if isinstance(x.shape[0], str):
        raise Unsupported("np.histogram of an array with symbolic dimensions")
    found = Edges(graph, x, n_bins, range)
    bin_dtype = found.dtype
    invariants = [x, found.edges, found.first, found.last, found.denom]
    w_dtype = None
    if weights is not None:
        w = reshape_value(graph, to_value(graph, weights, what), (-1,))
        if tuple(w.shape) != tuple(x.shape):
            raise ValueError("weights should have the same shape as a.")
        w_dtype = w.dtype
        if w.dtype.kind not in "biuf":
            raise Unsupported("np.histogram with weights of this dtype")
        invariants.append(graph.op("astype", [w], dtype=np.dtype(np.float64)))

    def body(g: Graph, indices: list[Value], carried: list[Value], inv: list[Value]
             ) -> list[Value]:
        data, edges, first, last, denom = inv[:5]
        raw = g.op("load", [data, *indices])
        keep = g.op("logical_and", [g.op("ge", [raw, first]), g.op("le", [raw, last])])
        value = raw if raw.dtype == bin_dtype else g.op("astype", [raw], dtype=bin_dtype,
                                                         scalar=True)
        start = first if first.dtype == bin_dtype else g.op("astype", [first], dtype=bin_dtype,
                                                            scalar=True)
        value = g.op("where", [keep, value, start])
        scaled = g.op("mul", [g.op("div", [g.op("sub", [value, first]), denom]),
                              g.const(n_bins)])
        index = g.op("astype", [scaled], dtype=np.dtype(np.int64), scalar=True)
        index = g.op("sub", [index, g.op("eq", [index, g.const(n_bins)])])
        below = g.op("lt", [value, g.op("load", [edges, index])])
        index = g.op("sub", [index, below])
        upper = g.op("load", [edges, g.op("add", [index, g.const(1)])])
        above = g.op("logical_and", [g.op("ge", [value, upper]),
                                     g.op("ne", [index, g.const(n_bins - 1)])])
        index = g.op("where", [keep, g.op("add", [index, above]), g.const(0)])
        if weights is not None:
            step = g.op("where", [keep, g.op("load", [inv[5], *indices]), g.const(0.0)])
        else:
            step = g.op("astype", [keep], dtype=np.dtype(np.int64), scalar=True)
        total = g.op("add", [g.op("load", [carried[0], index]), step])
        return [g.op("store", [carried[0], total, index])]

    count_dtype = np.dtype(np.int64 if weights is None else np.float64)
    initial = graph.full((n_bins,), 0, count_dtype)
    (hist,) = LoopNest((int(x.shape[0]),), body).run(graph, [initial], invariants)
    if w_dtype is not None and w_dtype != count_dtype:
        hist = graph.op("astype", [hist], dtype=w_dtype)
    if density:
        widths = graph.op("sub", [_cut(graph, found.edges, 1, n_bins + 1),
                                  _cut(graph, found.edges, 0, n_bins)])
        total = graph.op("sum", [hist], axis=None, keepdims=False)
        hist = graph.op("div", [graph.op("div", [hist, widths]), total])
    return hist, found.edges


def functions() -> dict[Any, Any]:
    return {np.histogram: histogram}
