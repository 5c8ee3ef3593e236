"""`ufunc.accumulate` and `ufunc.reduce` of the binary ufuncs without a scan or reduction op of
their own (`np.maximum.accumulate`, `np.subtract.accumulate`, `np.bitwise_or.reduce`,
`np.logical_xor.reduce`...) as NumPy's loop runs them: an element loop along the axis,
`out[k + 1] = op(out[k], x[k + 1])`, in the dtype NumPy's accumulate gives. A reduction is the
accumulation's last element (of a vector, a loop carrying the running value alone).

Where the graph holds no loop ops (a differentiated graph), `np.maximum`/`np.minimum`
accumulate as a masked reduction instead: `out[i] = max(x[j] for j <= i)` over an `(n, n)`
lower-triangular mask, whose gradient the `max` rule gives; their `reduce` is `max`/`min`.
`np.logaddexp` reduces there as a log-sum-exp shifted by the maximum, and
accumulates as one over the same mask."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import OPS, Graph, Value
from ember.graph.dtypes import check_supported
from ember.graph.shapes import normalize_axis
from ember.numpy_api.convert import static_int
from ember.numpy_api.indexing import getitem
from ember.numpy_api.loop_nest import LoopNest
from ember.numpy_api.shape_ops import reshape_value
from ember.quiet import quiet

# The ufuncs whose accumulate and reduce run as an element loop, by their op's name.
_SCANNED = ("sub", "div", "maximum", "minimum", "fmax", "fmin", "hypot", "logaddexp",
            "logical_and", "logical_or", "logical_xor", "bitwise_and",
            "bitwise_or", "bitwise_xor")
OPS_OF = {OPS[name].numpy: name for name in _SCANNED}
# Which of two zeros of opposite signs np.fmax.reduce keeps follows its vector loop's order,
# not the sequential one: these reductions stay NumPy's.
_ORDERED_REDUCTIONS = (np.fmax, np.fmin)


def _scan_dtype(ufunc: np.ufunc, x: Value, what: str) -> np.dtype:
    """The dtype of NumPy's accumulation (its error where it has no loop for `x`)."""
    with quiet():
        dtype = ufunc.accumulate(np.zeros((1,), x.dtype)).dtype
    return check_supported(dtype, what)


def _scanned(graph: Graph, ufunc: np.ufunc, x: Value, axis: int, what: str) -> Value:
    """The accumulation of `x` along `axis`: one loop over every other axis and the
    positions after the first of this one."""
    op = OPS_OF[ufunc]
    dtype = _scan_dtype(ufunc, x, what)
    if any(isinstance(d, str) for d in x.shape):
        raise Unsupported(f"{what} of an array with symbolic dimensions")
    x = x if x.dtype == dtype else graph.op("astype", [x], dtype=dtype, weak=False)
    out = graph.op("copy", [x], scalar=False)
    n = x.shape[axis]
    if n < 2 or 0 in x.shape:
        return out

    def body(g: Graph, indices: list[Value], carried: list[Value], inv: list[Value]
             ) -> list[Value]:
        after = [*indices]
        after[axis] = g.op("add", [indices[axis], g.const(1)])
        total = g.op(op, [g.op("load", [carried[0], *indices]),
                          g.op("load", [carried[0], *after])])
        if total.dtype != dtype:
            raise Unsupported(f"{what} of {dtype} (another loop)")
        g.warns_as(total, "accumulate")
        return [g.op("store", [carried[0], total, *after])]

    shape = (*x.shape[:axis], n - 1, *x.shape[axis + 1:])
    (result,) = LoopNest(shape, body).run(graph, [out], [])
    return result


# Running extremes a graph without loop ops computes as a masked reduction, by op name.
_MASKED = {"maximum": "max", "minimum": "min"}
# The longest axis a masked running extreme spans (its mask holds the square of it).
_MASKED_MAX_LEN = 2048
# Log-sum-exps a graph without loop ops computes shifted by their maximum: the op, its
# exponential and its logarithm.
_SHIFTED = {"logaddexp": ("exp", "log")}


def _shifted_log_sum(graph: Graph, op: str, x: Value, axis: int) -> Value:
    """`np.logaddexp.reduce(x, axis)` as `m + log(sum(exp(x - m)))` with `m` the maximum
    along the axis (0 where that is infinite or nan, whose sum then gives NumPy's result):
    the same value up to rounding, its gradient the `max`, `exp` and `log` rules'."""
    exp, log = _SHIFTED[op]
    top = graph.op("max", [x], axis=[axis], keepdims=True)
    shift = graph.op("where", [graph.op("isfinite", [top]), top,
                               graph.full((1,) * x.ndim, 0, x.dtype)])
    total = graph.op("sum", [graph.op(exp, [graph.op("sub", [x, shift])])], axis=[axis],
                     keepdims=False)
    return graph.op("add", [graph.op(log, [total]),
                            graph.op("squeeze", [shift], axis=[axis])])


def _masked_scan(graph: Graph, ufunc: np.ufunc, x: Value, axis: int, what: str) -> Value:
    """The running maximum or minimum of `x` along `axis` as the reduction of `x` repeated
    along a new axis and masked to the positions up to each one."""
    op = OPS_OF[ufunc]
    reduction = _MASKED.get(op)
    dtype = _scan_dtype(ufunc, x, what)
    n = x.shape[axis]
    if any(isinstance(d, str) for d in x.shape) or n > _MASKED_MAX_LEN:
        raise Unsupported(f"{what} of a long or symbolic axis in a graph without loop ops")
    x = x if x.dtype == dtype else graph.op("astype", [x], dtype=dtype, weak=False)
    if n < 2 or 0 in x.shape:
        return graph.op("copy", [x], scalar=False)
    last = x.ndim - 1
    perm = [d for d in range(x.ndim) if d != axis] + [axis]
    moved = x if axis == last else graph.op("transpose", [x], perm=perm)
    rows = graph.op("expand_dims", [graph.arange(0, 1, n, np.int64)], axis=[1])
    cols = graph.op("expand_dims", [graph.arange(0, 1, n, np.int64)], axis=[0])
    upto = graph.op("ge", [rows, cols])
    if dtype.kind == "f":
        fill = np.inf if reduction == "min" else -np.inf
    else:
        info = np.iinfo(dtype) if dtype.kind in "iu" else None
        if info is None:
            raise Unsupported(f"{what} of {dtype} in a graph without loop ops")
        fill = info.min if reduction == "max" else info.max
    spread = graph.op("expand_dims", [moved], axis=[last])
    masked = graph.op("where", [upto, spread, graph.full((1,), fill, dtype)])
    if reduction is None:
        out = _shifted_log_sum(graph, op, masked, last + 1)
    else:
        out = graph.op(reduction, [masked], axis=[last + 1], keepdims=False)
    if axis != last:
        out = graph.op("transpose", [out], perm=[int(i) for i in np.argsort(perm)])
    return out


def _folded(graph: Graph, ufunc: np.ufunc, x: Value, what: str) -> Value:
    """The reduction of a vector: its first element combined with each next one in a loop
    that carries the running value alone (no array of partial results)."""
    op = OPS_OF[ufunc]
    dtype = _scan_dtype(ufunc, x, what)
    if isinstance(x.shape[0], str):
        raise Unsupported(f"{what} of an array with symbolic dimensions")
    x = x if x.dtype == dtype else graph.op("astype", [x], dtype=dtype, weak=False)
    first = graph.op("copy", [getitem(graph, x, 0)], scalar=False)

    def body(g: Graph, indices: list[Value], carried: list[Value], inv: list[Value]
             ) -> list[Value]:
        total = g.op(op, [carried[0], g.op("load", [inv[0], g.op("add", [indices[0],
                                                                         g.const(1)])])])
        g.warns_as(total, "reduce")
        return [total]

    (result,) = LoopNest((x.shape[0] - 1,), body).run(graph, [first], [x])
    return result


def accumulate(graph: Graph, ufunc: np.ufunc, a: Value, axis: object = 0) -> Value:
    what = f"np.{ufunc.__name__}.accumulate"
    if axis is None:
        raise Unsupported(f"{what} with axis=None")
    ax = normalize_axis(static_int(axis, what), a.ndim)
    if not graph.root.loop_ops and (OPS_OF[ufunc] in _MASKED or OPS_OF[ufunc] in _SHIFTED):
        return _masked_scan(graph, ufunc, a, ax, what)
    return _scanned(graph, ufunc, a, ax, what)


def reduce(graph: Graph, ufunc: np.ufunc, a: Value, axis: object = 0,
           keepdims: object = False) -> Value:
    what = f"np.{ufunc.__name__}.reduce"
    if axis is None:
        a, axis = reshape_value(graph, a, (-1,)), 0
    elif not isinstance(axis, int) and not (isinstance(axis, tuple) and len(axis) == 1):
        raise Unsupported(f"{what} over several axes")
    ax = normalize_axis(static_int(axis if isinstance(axis, int) else axis[0], what), a.ndim)
    lead = (slice(None),) * ax
    if a.shape[ax] == 0:
        if ufunc.identity is None:
            raise ValueError(f"zero-size array to reduction operation {ufunc.__name__} "
                             "which has no identity")
        shape = (*a.shape[:ax], *a.shape[ax + 1:])
        last = graph.full(shape, ufunc.identity, _scan_dtype(ufunc, a, what))
    elif not graph.root.loop_ops and OPS_OF[ufunc] in _MASKED:
        last = graph.op(_MASKED[OPS_OF[ufunc]], [a], axis=[ax], keepdims=False)
        if last.dtype != _scan_dtype(ufunc, a, what):
            raise Unsupported(f"{what} of {a.dtype}")
    elif not graph.root.loop_ops and OPS_OF[ufunc] in _SHIFTED:
        dtype = _scan_dtype(ufunc, a, what)
        a = a if a.dtype == dtype else graph.op("astype", [a], dtype=dtype, weak=False)
        last = _shifted_log_sum(graph, OPS_OF[ufunc], a, ax)
    elif a.ndim == 1:
        last = _folded(graph, ufunc, a, what)
    else:
        # A new array, as NumPy's reduction gives, not a view of the accumulation
        last = graph.op("copy", [getitem(graph, _scanned(graph, ufunc, a, ax, what),
                                         (*lead, -1))])
        graph.layouts[last.id] = "c"
    if keepdims:
        last = graph.op("expand_dims", [last], axis=[ax])
    return last if last.ndim else graph.op("squeeze", [last], axis=[], scalar=True)


def handler(ufunc: np.ufunc, name: str) -> Any:
    """The `numpy_api`-style handler of `ufunc.accumulate` or `ufunc.reduce`, or None."""
    if ufunc not in OPS_OF or (name == "reduce" and ufunc in _ORDERED_REDUCTIONS):
        return None
    what = f"np.{ufunc.__name__}.{name}"

    def scan(graph: Graph, a: object, axis: object = 0, dtype: object = None,
             out: object = None, **kwargs: object) -> Any:
        if dtype is not None or out is not None or set(kwargs) - (
                {"keepdims"} if name == "reduce" else set()):
            raise Unsupported(f"{what} with dtype=, out=, initial= or where=")
        if not isinstance(a, Value) or a.ndim == 0:
            raise Unsupported(f"{what} of a 0-d value")
        if name == "accumulate":
            return accumulate(graph, ufunc, a, axis)
        return reduce(graph, ufunc, a, axis, **kwargs)

    return scan
