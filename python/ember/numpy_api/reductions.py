"""Reductions as functions and methods: sum prod max min mean any all argmax argmin var std,
and the running cumsum cumprod."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.shapes import normalize_axes
from ember.numpy_api.convert import (
    NO_VALUE,
    any_value,
    as_array,
    axis_arg,
    dtype_arg,
    rerun_unless,
    static_int,
    static_number,
    to_value,
)
from ember.numpy_api.shape_ops import reshape_value


def _fold(graph: Graph, fn: Any, what: str, *args: Any, **kwargs: Any) -> Any:
    """A reduction or scan of Python scalars only: NumPy's own result, a constant (an array
    result, `np.cumsum([24, 36, 12])` as split points, a constant array of the graph)."""
    result = fn(*args, **kwargs)
    if isinstance(result, np.ndarray):
        from ember.numpy_api.literals import constant_array

        return constant_array(graph, result)
    return result


def _masks(where: object) -> bool:
    """Whether `where=` leaves elements out (`np._NoValue` is NumPy's own default passed on)."""
    return where is not True and where is not NO_VALUE


def _check_common(what: str, out: object, where: object = True,
                  initial: object = NO_VALUE) -> None:
    if out is not None:
        raise Unsupported(f"{what} with out= (writes into an existing array)")
    if _masks(where):
        raise Unsupported(f"{what} with where=")
    if initial is not NO_VALUE:
        raise Unsupported(f"{what} with initial=")


def _reduce(graph: Graph, op: str, a: object, axis: object, keepdims: object,
            dtype: object = None) -> Value:
    what = f"np.{op}"
    x = to_value(graph, a, what)
    dt = dtype_arg(dtype, what)
    if dt is not None and x.dtype != dt:
        x = graph.op("astype", [x], dtype=dt)
    # NumPy's own Python code passes its `np._NoValue` defaults on (np.nanmean).
    keep = keepdims is not NO_VALUE and bool(keepdims)
    out = graph.op(op, [x], axis=axis_arg(axis, what), keepdims=keep)
    if dt is not None and out.dtype != dt:
        # sum(int8, dtype=int8) wraps: summing in i64 and casting back gives the same result.
        out = graph.op("astype", [out], dtype=dt)
    return out


# The value a masked-out element of a reduction counts as (NumPy's identity of the ufunc).
_IDENTITY = {"sum": 0, "prod": 1}
# The ufunc combining `initial=` with a reduction's result.
_COMBINE = {"sum": "add", "prod": "mul", "max": "maximum", "min": "minimum"}


def _masked(graph: Graph, op: str, a: object, where: object, initial: object) -> object:
    """`a` with the elements `where=` leaves out replaced by what they count as: the
    identity (sum, prod), or `initial` (max and min have no identity: NumPy requires it)."""
    if not _masks(where):
        return a
    fill = _IDENTITY.get(op, initial)
    if fill is NO_VALUE:
        raise ValueError(f"reduction operation '{_COMBINE[op]}' does "
                         "not have an identity, so to use a where mask one has to specify "
                         "'initial'")
    x = as_array(graph, to_value(graph, a, f"np.{op}"))
    mask = as_array(graph, to_value(graph, where, f"np.{op}"))
    if mask.dtype != np.bool_:
        raise Unsupported(f"np.{op} with a where= mask that is not boolean")
    mask = graph.op("broadcast_to", [mask], shape=tuple(x.shape))
    fill_value = graph.const(x.dtype.type(static_number(fill, f"np.{op}")))
    return graph.op("where", [mask, x, fill_value])


def _with_initial(graph: Graph, op: str, result: Value, initial: object) -> Value:
    """The reduction's result combined with `initial=` (a number), in the result's dtype."""
    if initial is NO_VALUE:
        return result
    start = graph.const(result.dtype.type(static_number(initial, f"np.{op}")))
    return graph.op(_COMBINE[op], [result, start])


def _check_reducible(x: Value, axis: object, op: str) -> None:
    axes = normalize_axes(axis_arg(axis, f"np.{op}"), x.ndim)
    if _count(x, axes) in (0, None):
        raise Unsupported(f"np.{op} with initial= or where= over empty or symbolic axes")


def _sum_like(op: str) -> Any:
    def handler(graph: Graph, a: object, axis: object = None, dtype: object = None,
                out: object = None, keepdims: object = False, initial: object = NO_VALUE,
                where: object = True) -> Any:
        _check_common(f"np.{op}", out)
        if not any_value([a, where]):
            return _fold(graph, getattr(np, op), f"np.{op}", a, axis=axis, dtype=dtype,
                         keepdims=keepdims, initial=initial, where=where)
        if initial is not NO_VALUE or _masks(where):
            _check_reducible(to_value(graph, a, f"np.{op}"), axis, op)
        masked = _masked(graph, op, a, where, initial)
        return _with_initial(graph, op, _reduce(graph, op, masked, axis, keepdims, dtype),
                             initial)

    handler.__name__ = op
    return handler


def _max_like(op: str) -> Any:
    def handler(graph: Graph, a: object, axis: object = None, out: object = None,
                keepdims: object = False, initial: object = NO_VALUE,
                where: object = True) -> Any:
        _check_common(f"np.{op}", out)
        if not any_value([a, where]):
            return _fold(graph, getattr(np, op), f"np.{op}", a, axis=axis, keepdims=keepdims,
                         initial=initial, where=where)
        if initial is not NO_VALUE or _masks(where):
            _check_reducible(to_value(graph, a, f"np.{op}"), axis, op)
        masked = _masked(graph, op, a, where, initial)
        return _with_initial(graph, op, _reduce(graph, op, masked, axis, keepdims), initial)

    handler.__name__ = op
    return handler


def _any_like(op: str) -> Any:
    def handler(graph: Graph, a: object, axis: object = None, out: object = None,
                keepdims: object = False, *, where: object = True) -> Any:
        _check_common(f"np.{op}", out, where)
        if not any_value([a]):
            return _fold(graph, getattr(np, op), f"np.{op}", a, axis=axis, keepdims=keepdims)
        return _reduce(graph, op, a, axis, keepdims)

    handler.__name__ = op
    return handler


def mean(graph: Graph, a: object, axis: object = None, dtype: object = None, out: object = None,
         keepdims: object = False, *, where: object = True) -> Any:
    _check_common("np.mean", out)
    if not any_value([a, where]):
        return _fold(graph, np.mean, "np.mean", a, axis=axis, dtype=dtype, keepdims=keepdims,
                     where=where)
    x = to_value(graph, a, "np.mean")
    if _count(x, normalize_axes(axis_arg(axis, "np.mean"), x.ndim)) == 0:
        raise Unsupported("np.mean of an empty slice (NumPy warns 'Mean of empty slice')")
    if _masks(where):
        return _masked_mean(graph, x, axis, dtype, keepdims, where)
    return _reduce(graph, "mean", a, axis, keepdims, dtype)


def _masked_mean(graph: Graph, x: Value, axis: object, dtype: object, keepdims: object,
                 where: object) -> Value:
    """NumPy's `_mean` with `where=`: the masked sum over the count of the mask's elements,
    both in the mean's dtype (float64 for integers)."""
    dt = dtype_arg(dtype, "np.mean") or (x.dtype if x.dtype.kind == "f" else np.dtype("f8"))
    total = _reduce(graph, "sum", _masked(graph, "sum", x, where, NO_VALUE), axis, keepdims, dt)
    mask = as_array(graph, to_value(graph, where, "np.mean"))
    ones = graph.op("astype", [graph.op("broadcast_to", [mask], shape=tuple(x.shape))],
                    dtype=dt)
    count = _reduce(graph, "sum", ones, axis, keepdims)
    # A slice the mask leaves empty: NumPy warns 'Mean of empty slice' before dividing.
    rerun_unless(graph, graph.op("logical_not", [graph.op(
        "any", [graph.op("eq", [count, graph.const(0)])], axis=None, keepdims=False)]))
    return graph.op("div", [total, count])


def _count(x: Value, axes: tuple[int, ...] | None) -> int | None:
    """How many elements each result of a reduction over `axes` takes (None: symbolic)."""
    count = 1
    for i in range(x.ndim) if axes is None else axes:
        if isinstance(x.shape[i], str):
            return None
        count *= x.shape[i]  # type: ignore[assignment]
    return count


def _arg_like(op: str) -> Any:
    def handler(graph: Graph, a: object, axis: object = None, out: object = None, *,
                keepdims: object = False) -> Any:
        _check_common(f"np.{op}", out, True)
        if not any_value([a]):
            return _fold(graph, getattr(np, op), f"np.{op}", a, axis=axis, keepdims=keepdims)
        x = to_value(graph, a, f"np.{op}")
        ax = axis_arg(axis, f"np.{op}")
        if isinstance(ax, tuple):
            raise TypeError("'tuple' object cannot be interpreted as an integer")
        return graph.op(op, [x], axis=ax, keepdims=bool(keepdims))

    handler.__name__ = op
    return handler


def _var(graph: Graph, what: str, a: object, axis: object, dtype: object, out: object,
         ddof: object, keepdims: object, where: object, mean: object,
         correction: object) -> Value:
    """NumPy's `_var`, op for op. Its mean (sum, then true_divide by the intp count) is exactly
    np.mean, and so is its final sum and divide when ddof is 0; otherwise the sum of squares is
    divided by max(n - ddof, 0), as a strong intp or float64 (float32 sums are divided in
    float64 and cast back, as NumPy's `out=` division does)."""
    _check_common(what, out, where)
    if mean is not NO_VALUE or dtype is not None:
        raise Unsupported(f"{what} with mean= or dtype=")
    if correction is not NO_VALUE:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    x = to_value(graph, a, what)
    ddof_value = static_number(ddof, what)
    axes = normalize_axes(axis_arg(axis, what), x.ndim)
    axis_list = None if axes is None else list(axes)
    known = _count(x, axes)
    if known is not None and known <= ddof_value:
        # NumPy warns from Python ('Degrees of freedom <= 0 for slice'): run it as NumPy.
        raise Unsupported(f"{what} with no degrees of freedom")
    centre = graph.op("mean", [x], axis=axis_list, keepdims=True)
    squares = graph.op("square", [graph.op("sub", [x, centre])])
    if ddof_value == 0:
        return graph.op("mean", [squares], axis=axis_list, keepdims=bool(keepdims))
    if known is None:
        raise Unsupported(f"{what} with ddof over a symbolic dimension")
    count = known
    ssd = graph.op("sum", [squares], axis=axis_list, keepdims=bool(keepdims))
    dof = count - ddof_value
    divisor = np.intp(max(dof, 0)) if isinstance(dof, int) else np.float64(max(dof, 0.0))
    quotient = graph.op("div", [ssd, graph.const(divisor)])
    if quotient.dtype != ssd.dtype:
        quotient = graph.op("astype", [quotient], dtype=ssd.dtype)
    return quotient


def var(graph: Graph, a: object, axis: object = None, dtype: object = None, out: object = None,
        ddof: object = 0, keepdims: object = False, *, where: object = True,
        mean: object = NO_VALUE, correction: object = NO_VALUE) -> Any:
    if not any_value([a]):
        return _fold(graph, np.var, "np.var", a, axis=axis, ddof=ddof, keepdims=keepdims)
    return _var(graph, "np.var", a, axis, dtype, out, ddof, keepdims, where, mean, correction)


def std(graph: Graph, a: object, axis: object = None, dtype: object = None, out: object = None,
        ddof: object = 0, keepdims: object = False, *, where: object = True,
        mean: object = NO_VALUE, correction: object = NO_VALUE) -> Any:
    if not any_value([a]):
        return _fold(graph, np.std, "np.std", a, axis=axis, ddof=ddof, keepdims=keepdims)
    v = _var(graph, "np.std", a, axis, dtype, out, ddof, keepdims, where, mean, correction)
    return graph.op("sqrt", [v])


def ptp(graph: Graph, a: object, axis: object = None, out: object = None,
        keepdims: object = False) -> Any:
    """np.ptp: max minus min, as NumPy computes it."""
    _check_common("np.ptp", out, True)
    if not any_value([a]):
        return _fold(graph, np.ptp, "np.ptp", a, axis=axis, keepdims=keepdims)
    hi = _reduce(graph, "max", a, axis, keepdims)
    lo = _reduce(graph, "min", a, axis, keepdims)
    return graph.op("sub", [hi, lo])


def nansum(graph: Graph, a: object, axis: object = None, dtype: object = None,
           out: object = None, keepdims: object = False, initial: object = NO_VALUE,
           where: object = True) -> Any:
    """np.nansum: NaNs replaced by zero (a copy, as NumPy makes), then np.sum."""
    _check_common("np.nansum", out, where, initial)
    if not any_value([a]):
        return _fold(graph, np.nansum, "np.nansum", a, axis=axis, dtype=dtype, keepdims=keepdims)
    x = to_value(graph, a, "np.nansum")
    if x.dtype.kind == "f":
        zero = graph.const(0.0, x.dtype, weak=False)
        x = graph.op("where", [graph.op("isnan", [x]), zero, x])
    return _reduce(graph, "sum", x, axis, keepdims, dtype)


def count_nonzero(graph: Graph, a: object, axis: object = None, *,
                  keepdims: object = False) -> Any:
    """np.count_nonzero: NumPy's `a.astype(bool).sum(axis, dtype=np.intp)`."""
    if not any_value([a]):
        return _fold(graph, np.count_nonzero, "np.count_nonzero", a, axis=axis, keepdims=keepdims)
    x = to_value(graph, a, "np.count_nonzero")
    if x.dtype != np.bool_:
        x = graph.op("astype", [x], dtype=np.dtype(np.bool_))
    return _reduce(graph, "sum", x, axis, keepdims, np.intp)


def _scan_like(op: str) -> Any:
    """np.cumsum / np.cumprod: without an axis, over the flattened array; with `dtype=`,
    the elements are cast first and the running value kept in that dtype."""
    def handler(graph: Graph, a: object, axis: object = None, dtype: object = None,
                out: object = None) -> Any:
        what = f"np.{op}"
        if out is not None:
            raise Unsupported(f"{what} with out=")
        if not any_value([a]):
            return _fold(graph, getattr(np, op), what, a, axis=axis, dtype=dtype)
        x = as_array(graph, to_value(graph, a, what))
        if axis is None or x.ndim == 0:  # NumPy scans a 0-d array as one of shape (1,)
            x = reshape_value(graph, x, (-1,))
            axis = 0 if axis is None else axis
        dt = dtype_arg(dtype, what)
        if dt is not None and x.dtype != dt:
            x = graph.op("astype", [x], dtype=dt)
        result = graph.op(op, [x], axis=static_int(axis, what))
        if dt is not None and result.dtype != dt:
            # cumsum(int8, dtype=int8) wraps: accumulating in i64 and casting back agrees.
            result = graph.op("astype", [result], dtype=dt)
        return result

    handler.__name__ = op
    return handler


def functions() -> dict[Any, Any]:
    table: dict[Any, Any] = {
        np.sum: _sum_like("sum"), np.prod: _sum_like("prod"), np.mean: mean,
        np.max: _max_like("max"), np.min: _max_like("min"),
        np.any: _any_like("any"), np.all: _any_like("all"),
        np.argmax: _arg_like("argmax"), np.argmin: _arg_like("argmin"),
        np.var: var, np.std: std, np.ptp: ptp, np.nansum: nansum,
        np.count_nonzero: count_nonzero,
        np.cumsum: _scan_like("cumsum"), np.cumprod: _scan_like("cumprod"),
    }
    table[np.amax] = table[np.max]
    table[np.amin] = table[np.min]
    return table


def methods() -> dict[str, Any]:
    table = functions()
    return {name: table[fn] for name, fn in (
        ("sum", np.sum), ("prod", np.prod), ("mean", np.mean), ("max", np.max), ("min", np.min),
        ("any", np.any), ("all", np.all), ("argmax", np.argmax), ("argmin", np.argmin),
        ("var", np.var), ("std", np.std), ("cumsum", np.cumsum), ("cumprod", np.cumprod),
    )}
