"""`np.bincount` as a loop op that adds each element into its bin (`histogram.py` builds on
the same loop); `np.count_nonzero` as a sum.

Its length must be known while tracing: it needs `minlength=`, and a value past it (or a
negative one) makes the compiled graph raise `IndexError` (the bin index is out of bounds),
so the frame runs again as Python and NumPy gives its own longer result or error."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.numpy_api.convert import axis_arg, static_int
from ember.numpy_api.loop_nest import LoopNest
from ember.numpy_api.shape_ops import array_arg




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
    (n,) = values.shape  # a symbolic length loops over its run-time size
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


def nonzero_count(graph: Graph, x: Value, axis: object = None, keepdims: bool = False
                  ) -> Value:
    """How many elements of `x` are nonzero (NaN is): int64 counts along `axis`."""
    nonzero = x if x.dtype == np.bool_ else graph.op("ne", [x, graph.const(0)])
    ones = graph.op("astype", [nonzero], dtype=np.dtype(np.int64))
    return graph.op("sum", [ones], axis=axis_arg(axis, "np.count_nonzero"),
                    keepdims=keepdims)


def count_nonzero(graph: Graph, a: object, axis: object = None, *, keepdims: object = False
                  ) -> Value:
    """np.count_nonzero: an int64 scalar over the whole array, else an int64 array."""
    return nonzero_count(graph, array_arg(graph, a, "np.count_nonzero"), axis, bool(keepdims))


def nonzero(graph: Graph, a: object) -> Value:
    """np.nonzero: only its lengths are captured (`capture/variables/nonzero.py`)."""
    raise Unsupported("np.nonzero's indices have a data-dependent shape")


def chosen(graph: Graph, *args: Any, **kwargs: Any) -> Value:
    """np.argwhere, np.extract, np.compress: capture makes their results, of a length only
    the data knows (`capture/variables/datalen.py`); the forms it does not take are refused
    here."""
    raise Unsupported("np.argwhere, np.extract or np.compress of a form of no known length "
                      "(a 0-d or empty array, a condition of another length, another axis)")


def functions() -> dict[Any, Any]:
    return {np.bincount: bincount, np.count_nonzero: count_nonzero, np.nonzero: nonzero,
            np.argwhere: chosen, np.extract: chosen, np.compress: chosen}
