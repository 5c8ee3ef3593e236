"""`np.median`, and `np.percentile` / `np.quantile` with the linear and midpoint methods of
float64 data and the lower, higher and nearest methods of any real data, from a `sort` along
the axis (NumPy partitions; the elements picked are the same).

The quantiles are constants of the call, so the positions each one reads and its weight are
worked out at capture exactly as NumPy works them out (`_get_indexes`, `_lerp`), and the
graph only picks and interpolates. A slice whose last sorted element is NaN gives NaN, as
NumPy's check of it does. `overwrite_input=True` (NumPy then leaves the input partitioned,
in an order of its own) is refused."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.numpy_api.convert import as_numpy_scalar, reject, rerun_unless, static_int
from ember.numpy_api.reductions import mean
from ember.numpy_api.shape_ops import array_arg, reshape_value
from ember.numpy_api.sorting import sort

def _sorted(graph: Graph, a: object, axis: object, what: str) -> tuple[Value, Value, int]:
    """The array as given, sorted along the axis (flattened when None), and that axis."""
    x = array_arg(graph, a, what)
    if x.dtype.kind not in "biuf":
        raise Unsupported(f"{what} of {x.dtype} data")
    ax = 0 if axis is None else static_int(axis, what)
    s = sort(graph, x, axis=axis if axis is None else ax)
    ax = ax % s.ndim
    if s.shape[ax] == 0 or any(isinstance(d, str) for d in s.shape):
        raise Unsupported(f"{what} of an empty or symbolic-size axis")
    return x, s, ax


def _at(graph: Graph, s: Value, ax: int, lo: int, hi: int) -> Value:
    """`s` from `lo` to `hi` along `ax`."""
    starts = [lo if d == ax else 0 for d in range(s.ndim)]
    stops = [hi if d == ax else s.shape[d] for d in range(s.ndim)]
    return graph.op("slice", [s], start=starts, stop=stops, step=[1] * s.ndim)


def _pick(graph: Graph, s: Value, ax: int, i: int) -> Value:
    return graph.op("squeeze", [_at(graph, s, ax, i, i + 1)], axis=[ax])


def _nan_where_last_is(graph: Graph, s: Value, ax: int, result: Value, keep: bool) -> Value:
    """NaN where the slice's last sorted element is NaN (NaNs sort last)."""
    if s.dtype.kind != "f":
        return result
    last = _at(graph, s, ax, s.shape[ax] - 1, s.shape[ax]) if keep else (
        _pick(graph, s, ax, s.shape[ax] - 1))
    nan = graph.const(result.dtype.type(np.nan))
    return graph.op("where", [graph.op("isnan", [last]), nan, result], scalar=result.scalar)


def rerun_at_signed_zeros(graph: Graph, x: Value, result: Value) -> None:
    """NumPy picks its elements with a partition, which leaves zeros of both signs in an
    order of its own: where `x` holds a -0.0 and a result is a zero, NumPy answers."""
    if x.dtype.kind != "f":
        return
    zero = graph.const(0.0, x.dtype, weak=False)
    negative_zero = graph.op("logical_and", [graph.op("eq", [x, zero]),
                                             graph.op("signbit", [x])])
    at_zero = graph.op("eq", [result, graph.const(0.0, result.dtype, weak=False)])
    bad = graph.op("logical_and", [graph.op("any", [negative_zero], axis=None, keepdims=False),
                                   graph.op("any", [at_zero], axis=None, keepdims=False)])
    rerun_unless(graph, graph.op("logical_not", [bad]))


def median(graph: Graph, a: object, axis: object = None, out: object = None,
           overwrite_input: object = False, keepdims: object = False) -> Any:
    reject("np.median", out=out, overwrite_input=overwrite_input or None)
    x, s, ax = _sorted(graph, a, axis, "np.median")
    n = s.shape[ax]
    k = n // 2
    middle = _at(graph, s, ax, k - 1 if n % 2 == 0 else k, k + 1)
    keep = bool(keepdims)
    result = mean(graph, middle, axis=ax, keepdims=keep)
    result = _nan_where_last_is(graph, s, ax, result, keep)
    rerun_at_signed_zeros(graph, x, result)
    if keep and axis is None:
        result = reshape_value(graph, result, (1,) * x.ndim)
    return as_numpy_scalar(graph, result)


def _quantile(graph: Graph, a: object, q: object, axis: object, method: object,
              keepdims: object, what: str, scale: float) -> Any:
    if method not in _METHODS or keepdims:
        raise Unsupported(f"{what} with method={method!r} or keepdims=")
    if isinstance(q, Value) or not isinstance(q, (int, float, list, tuple)):
        raise Unsupported(f"{what} of quantiles computed in the graph")
    x, s, ax = _sorted(graph, a, axis, what)
    if x.dtype != np.float64 and method in ("linear", "midpoint"):
        raise Unsupported(f"{what} of {x.dtype} data")
    quantiles = np.true_divide(q, 100) if scale == 100 else np.asanyarray(q)
    if quantiles.dtype.kind not in "iuf" or quantiles.ndim > 1:
        raise Unsupported(f"{what} with these quantiles")
    if not (np.all(quantiles >= 0) and np.all(quantiles <= 1)):
        bound = "[0, 100]" if scale == 100 else "[0, 1]"
        raise ValueError(f"{'Percentiles' if scale == 100 else 'Quantiles'} must be in the "
                         f"range {bound}")
    n = s.shape[ax]
    values = [_one(graph, s, ax, n, float(v), quantiles.dtype.kind, method)
              for v in quantiles.ravel()]
    if quantiles.ndim == 0:
        result = values[0]
    else:
        result = graph.op("concatenate", [graph.op("expand_dims", [v], axis=[0])
                                          for v in values], axis=0)
    result = _nan_where_last_is(graph, s, ax, result, False) if quantiles.ndim == 0 else (
        _nan_where_last_is(graph, graph.op("expand_dims", [s], axis=[0]), ax + 1, result, False))
    rerun_at_signed_zeros(graph, x, result)
    return as_numpy_scalar(graph, result)


# NumPy's `_QuantileMethods` ember computes: each position's virtual index from `(n - 1) * q`
# (the discrete ones pick the element there, in the data's dtype).
_METHODS = {
    "linear": lambda virtual: virtual,
    "lower": lambda virtual: int(np.floor(virtual)),
    "higher": lambda virtual: int(np.ceil(virtual)),
    "nearest": lambda virtual: int(np.around(virtual)),
    "midpoint": lambda virtual: 0.5 * (np.floor(virtual) + np.ceil(virtual)),
}


def _one(graph: Graph, s: Value, ax: int, n: int, quantile: float, kind: str,
         method: object) -> Value:
    """One quantile as NumPy's method computes it: the element at an integer virtual index,
    else the two neighbours of the virtual index and `_lerp` between them (from the right
    one where the weight is at least a half); the midpoint's weight is a half unless the
    index is whole."""
    virtual = _METHODS[method]((n - 1) * quantile)  # type: ignore[index]
    if kind in "iu" and method == "linear":  # an integer index: the element itself
        return _pick(graph, s, ax, int(virtual))
    if isinstance(virtual, int):
        return _pick(graph, s, ax, virtual)
    previous = int(np.floor(virtual))
    following = previous + 1
    if virtual >= n - 1:
        previous = following = n - 1
    gamma = np.float64(virtual) - np.float64(previous)
    if method == "midpoint":
        gamma = np.float64(0.0 if virtual % 1 == 0 else 0.5)
    a, b = _pick(graph, s, ax, previous), _pick(graph, s, ax, following)
    diff = graph.op("sub", [b, a])
    if gamma >= 0.5:
        return graph.op("sub", [b, graph.op("mul", [diff, graph.const(np.float64(1) - gamma)])])
    return graph.op("add", [a, graph.op("mul", [diff, graph.const(gamma)])])


def percentile(graph: Graph, a: object, q: object, axis: object = None, out: object = None,
               overwrite_input: object = False, method: object = "linear",
               keepdims: object = False, *, weights: object = None,
               interpolation: object = None) -> Any:
    reject("np.percentile", out=out, weights=weights, interpolation=interpolation,
           overwrite_input=overwrite_input or None)
    return _quantile(graph, a, q, axis, method, keepdims, "np.percentile", 100)


def quantile(graph: Graph, a: object, q: object, axis: object = None, out: object = None,
             overwrite_input: object = False, method: object = "linear",
             keepdims: object = False, *, weights: object = None,
             interpolation: object = None) -> Any:
    reject("np.quantile", out=out, weights=weights, interpolation=interpolation,
           overwrite_input=overwrite_input or None)
    return _quantile(graph, a, q, axis, method, keepdims, "np.quantile", 1)


def functions() -> dict[Any, Any]:
    return {np.median: median, np.percentile: percentile, np.quantile: quantile}
