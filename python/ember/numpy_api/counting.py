"""`np.bincount` and `np.histogram` (equal bins over a given range), as loop ops that add
each element into its bin.

Their result lengths must be known while tracing: `bincount` needs `minlength=`, and a value
past it (or a negative one) makes the compiled graph raise `IndexError` (the bin index is out
of bounds), so the frame runs again as Python and NumPy gives its own longer result or error.
`histogram` follows NumPy's fast path for equal bins step by step: the same bin edges
(`np.linspace` in the bin dtype), the same scaled index in float64, the same one-bin
corrections against the edges, so every value lands in NumPy's bin."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.numpy_api.convert import static_int, to_value
from ember.numpy_api.creation import linspace
from ember.numpy_api.loop_nest import LoopNest
from ember.numpy_api.shape_ops import array_arg, reshape_value


def _flat_length(x: Value, what: str) -> int:
    if any(isinstance(d, str) for d in x.shape):
        raise Unsupported(f"{what} of an array with symbolic dimensions")
    return int(np.prod(x.shape, dtype=np.int64))


def bincount(graph: Graph, x: object, weights: object = None, minlength: object = 0) -> Value:
    what = "np.bincount"
    values = array_arg(graph, x, what)
    length = static_int(minlength, what)
    if length < 0:
        raise ValueError("'minlength' must not be negative")
    if values.ndim != 1:
        raise ValueError("object too deep for desired array" if values.ndim > 1 else
                         "object of too small depth for desired array")
    if not np.can_cast(values.dtype, np.intp, "safe"):
        raise TypeError(f"Cannot cast array data from dtype('{values.dtype}') to "
                        "dtype('int64') according to the rule 'safe'")
    if length == 0:
        raise Unsupported("np.bincount without minlength= (its length is the largest value)")
    n = _flat_length(values, what)
    invariants = [values]
    out_dtype = np.dtype(np.int64)
    if weights is not None:
        w = array_arg(graph, weights, what)
        if tuple(w.shape) != tuple(values.shape):
            raise ValueError("The weights and list don't have the same length.")
        if w.dtype != np.float64:
            w = graph.op("astype", [w], dtype=np.dtype(np.float64))
        invariants.append(w)
        out_dtype = np.dtype(np.float64)

    def body(g: Graph, indices: list[Value], carried: list[Value], inv: list[Value]
             ) -> list[Value]:
        value = g.op("load", [inv[0], *indices])
        if value.dtype != np.int64:
            value = g.op("astype", [value], dtype=np.dtype(np.int64), scalar=True)
        # A negative value is sent past the end, so the store raises instead of wrapping.
        negative = g.op("lt", [value, g.const(0)])
        at = g.op("where", [negative, g.const(length), value])
        step = g.op("load", [inv[1], *indices]) if len(inv) > 1 else g.const(np.int64(1))
        total = g.op("add", [g.op("load", [carried[0], at]), step])
        return [g.op("store", [carried[0], total, at])]

    (out,) = LoopNest((n,), body).run(graph, [graph.full((length,), 0, out_dtype)],
                                      invariants)
    return out


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


def _outer_edges(range_: object) -> tuple[Any, Any]:
    if range_ is None:
        raise Unsupported("np.histogram without range= (its edges come from the data)")
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
    first, last = _outer_edges(range)
    bin_dtype = np.result_type(first, last, np.empty(0, x.dtype))
    if bin_dtype.kind in "iu":
        bin_dtype = np.result_type(bin_dtype, float)
    known = np.linspace(first, last, n_bins + 1, endpoint=True, dtype=bin_dtype)
    if np.any(known[:-1] >= known[1:]):
        raise ValueError(f"Too many bins for data range. Cannot create {n_bins} finite-sized "
                         "bins.")
    edges = linspace(graph, first, last, n_bins + 1, True, False, bin_dtype)
    assert isinstance(edges, Value)
    denom = _unsigned_subtract(last, first)
    # An integer range subtracts as uint64; a float array divided by it computes in float64,
    # which holds the difference exactly below 2**53.
    denom = graph.const(np.float64(denom) if denom.dtype.kind == "u" else denom)
    invariants = [x, edges]
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
        raw = g.op("load", [inv[0], *indices])
        keep = g.op("logical_and", [g.op("ge", [raw, _edge(g, first)]),
                                    g.op("le", [raw, _edge(g, last)])])
        value = raw if raw.dtype == bin_dtype else g.op("astype", [raw], dtype=bin_dtype,
                                                         scalar=True)
        value = g.op("where", [keep, value, g.const(bin_dtype.type(first))])
        scaled = g.op("mul", [g.op("div", [g.op("sub", [value, _edge(g, first)]), inv[-1]]),
                              g.const(n_bins)])
        index = g.op("astype", [scaled], dtype=np.dtype(np.int64), scalar=True)
        index = g.op("sub", [index, g.op("eq", [index, g.const(n_bins)])])
        below = g.op("lt", [value, g.op("load", [inv[1], index])])
        index = g.op("sub", [index, below])
        upper = g.op("load", [inv[1], g.op("add", [index, g.const(1)])])
        above = g.op("logical_and", [g.op("ge", [value, upper]),
                                     g.op("ne", [index, g.const(n_bins - 1)])])
        index = g.op("add", [index, above])
        index = g.op("where", [keep, index, g.const(0)])
        if len(inv) > 3:
            step = g.op("where", [keep, g.op("load", [inv[2], *indices]), g.const(0.0)])
        else:
            step = g.op("astype", [keep], dtype=np.dtype(np.int64), scalar=True)
        total = g.op("add", [g.op("load", [carried[0], index]), step])
        return [g.op("store", [carried[0], total, index])]

    count_dtype = np.dtype(np.int64 if weights is None else np.float64)
    initial = graph.full((n_bins,), 0, count_dtype)
    (hist,) = LoopNest((_flat_length(x, what),), body).run(
        graph, [initial], [*invariants, denom])
    if w_dtype is not None and w_dtype != count_dtype:
        hist = graph.op("astype", [hist], dtype=w_dtype)
    if density:
        widths = graph.op("sub", [_slice(graph, edges, 1, n_bins + 1),
                                  _slice(graph, edges, 0, n_bins)])
        total = graph.op("sum", [hist], axis=None, keepdims=False)
        hist = graph.op("div", [graph.op("div", [hist, widths]), total])
    return hist, edges


def _edge(graph: Graph, edge: Any) -> Value:
    return graph.const(edge.item() if isinstance(edge, np.generic) else edge)


def _slice(graph: Graph, v: Value, start: int, stop: int) -> Value:
    return graph.op("slice", [v], start=[start], stop=[stop], step=[1])


def functions() -> dict[Any, Any]:
    return {np.bincount: bincount, np.histogram: histogram}
