"""NaN-ignoring reductions: np.nanmax nanmin nanargmax nanargmin nanmean nanvar nanstd
nanmedian, as NumPy's `lib/_nanfunctions_impl.py` computes them (np.nansum lives with
np.sum).

NumPy replaces NaN by a neutral value and reduces; where a slice holds no number at all it
warns from Python ('All-NaN slice encountered', 'Mean of empty slice', 'Degrees of freedom
<= 0 for slice') or raises (the arg reductions). Those slices are found at run time: the
graph then raises (`convert.rerun_unless`) and the frame runs as plain Python, so NumPy
gives its own values, warnings and errors there. Integer and bool arrays hold no NaN: NumPy
calls the plain reduction."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.shapes import normalize_axes
from ember.numpy_api import reductions
from ember.numpy_api.shape_ops import reshape_value
from ember.numpy_api.convert import (
    NO_VALUE,
    any_value,
    as_numpy_scalar,
    axis_arg,
    dtype_arg,
    reject,
    rerun_unless,
    static_number,
    to_value,
)

_INTP = np.dtype(np.intp)


def _operand(graph: Graph, a: object, fn: Any, what: str, **kwargs: Any) -> Value | Any:
    """`a` as a graph value; NumPy's own result (a constant) for Python numbers only."""
    if not any_value([a]):
        return fn(a, **kwargs)
    return to_value(graph, a, what)


def _axes(x: Value, axis: object, what: str) -> list[int] | None:
    axes = normalize_axes(axis_arg(axis, what), x.ndim)
    if axes is not None and not axes and x.ndim:
        raise Unsupported(f"{what} over no axes")
    if any(isinstance(x.shape[i], str) or x.shape[i] == 0
           for i in (range(x.ndim) if axes is None else axes)):
        raise Unsupported(f"{what} over empty or symbolic axes")
    return None if axes is None else list(axes)


def _keep(keepdims: object) -> bool:
    return keepdims is not NO_VALUE and bool(keepdims)


def _nan_mask(graph: Graph, x: Value) -> Value:
    return graph.op("isnan", [x])


def _every(graph: Graph, mask: Value, axes: list[int] | None, keepdims: bool) -> Value:
    return graph.op("all", [mask], axis=axes, keepdims=keepdims)


def _rerun_if_any(graph: Graph, bad: Value) -> None:
    rerun_unless(graph, graph.op("logical_not", [
        graph.op("any", [bad], axis=None, keepdims=False)]))


def _zeros_of_both_signs(graph: Graph, x: Value, axes: list[int] | None, keep: bool,
                         extreme: Value) -> Value:
    """Slices whose extreme is a zero and that hold zeros of both signs: which of them
    np.fmax.reduce keeps follows its loop's order, so NumPy answers there."""
    zero = graph.op("eq", [x, graph.const(0.0, x.dtype, weak=False)])
    sign = graph.op("signbit", [x])
    negative = graph.op("any", [graph.op("logical_and", [zero, sign])], axis=axes,
                        keepdims=keep)
    positive = graph.op("any", [graph.op("logical_and", [zero, graph.op("logical_not", [sign])])],
                        axis=axes, keepdims=keep)
    at_zero = graph.op("eq", [extreme, graph.const(0.0, x.dtype, weak=False)])
    return graph.op("logical_and", [at_zero, graph.op("logical_and", [negative, positive])])


def _extreme_like(op: str) -> Any:
    fill = -np.inf if op == "max" else np.inf
    fn = getattr(np, f"nan{op}")

    def handler(graph: Graph, a: object, axis: object = None, out: object = None,
                keepdims: object = NO_VALUE, initial: object = NO_VALUE,
                where: object = NO_VALUE) -> Any:
        what = f"np.nan{op}"
        reject(what, out=out, initial=initial, where=where)
        x = _operand(graph, a, fn, what, axis=axis, keepdims=_keep(keepdims))
        if not isinstance(x, Value):
            return x
        axes = _axes(x, axis, what)
        keep = _keep(keepdims)
        if x.dtype.kind != "f":
            return graph.op(op, [x], axis=axes, keepdims=keep)
        nan = _nan_mask(graph, x)
        filled = graph.op("where", [nan, graph.const(fill, x.dtype, weak=False), x])
        extreme = graph.op(op, [filled], axis=axes, keepdims=keep)
        empty = _every(graph, nan, axes, keep)
        _rerun_if_any(graph, graph.op("logical_or", [
            empty, _zeros_of_both_signs(graph, x, axes, keep, extreme)]))
        # NaN where a slice holds none (NumPy's answer, reached here only without a rerun).
        return as_numpy_scalar(graph, graph.op(
            "where", [empty, graph.const(np.nan, x.dtype, weak=False), extreme]))

    handler.__name__ = f"nan{op}"
    return handler


def _arg_like(op: str) -> Any:
    fill = -np.inf if op == "argmax" else np.inf
    fn = getattr(np, f"nan{op}")

    def handler(graph: Graph, a: object, axis: object = None, out: object = None, *,
                keepdims: object = NO_VALUE) -> Any:
        what = f"np.nan{op}"
        reject(what, out=out)
        x = _operand(graph, a, fn, what, axis=axis, keepdims=_keep(keepdims))
        if not isinstance(x, Value):
            return x
        ax = axis_arg(axis, what)
        if isinstance(ax, tuple):
            raise TypeError("'tuple' object cannot be interpreted as an integer")
        _axes(x, ax, what)
        if x.dtype.kind == "f":
            nan = _nan_mask(graph, x)
            # NumPy raises ValueError('All-NaN slice encountered') for such a slice.
            _rerun_if_any(graph, _every(graph, nan, None if ax is None else [ax], False))
            x = graph.op("where", [nan, graph.const(fill, x.dtype, weak=False), x])
        return graph.op(op, [x], axis=ax, keepdims=_keep(keepdims))

    handler.__name__ = f"nan{op}"
    return handler


def _divide_by_count(graph: Graph, total: Value, count: Value) -> Value:
    """NumPy's `_divide_by_count`: the division computed as NumPy's type rules make it
    (float32 by an intp count in float64) and cast back into the total's dtype."""
    quotient = graph.op("div", [total, count])
    if quotient.dtype != total.dtype:
        quotient = graph.op("astype", [quotient], dtype=total.dtype)
    return quotient


def _counted(graph: Graph, x: Value, nan: Value, axes: list[int] | None, keep: bool,
             dtype: np.dtype | None) -> tuple[Value, Value]:
    """The sum of the numbers of each slice (NaN counted as zero) and how many there are."""
    zeros = graph.op("where", [nan, graph.const(0.0, x.dtype, weak=False), x])
    total = graph.op("sum", [zeros if dtype is None or dtype == x.dtype else
                             graph.op("astype", [zeros], dtype=dtype)],
                     axis=axes, keepdims=keep)
    count = graph.op("sum", [graph.op("astype", [graph.op("logical_not", [nan])],
                                      dtype=_INTP)], axis=axes, keepdims=keep)
    return total, count


def nanmean(graph: Graph, a: object, axis: object = None, dtype: object = None,
            out: object = None, keepdims: object = NO_VALUE, *,
            where: object = NO_VALUE) -> Any:
    what = "np.nanmean"
    reject(what, out=out, where=where)
    x = _operand(graph, a, np.nanmean, what, axis=axis, dtype=dtype, keepdims=_keep(keepdims))
    if not isinstance(x, Value):
        return x
    axes = _axes(x, axis, what)
    keep = _keep(keepdims)
    if x.dtype.kind != "f":
        return reductions.mean(graph, x, axis=axis, dtype=dtype, keepdims=keep)
    total, count = _counted(graph, x, _nan_mask(graph, x), axes, keep, dtype_arg(dtype, what))
    # NumPy warns 'Mean of empty slice' for a slice without numbers.
    _rerun_if_any(graph, graph.op("eq", [count, graph.const(0)]))
    return as_numpy_scalar(graph, _divide_by_count(graph, total, count))


def _nanvar(graph: Graph, what: str, fn: Any, a: object, axis: object, dtype: object,
            out: object, ddof: object, keepdims: object, where: object, mean: object,
            correction: object) -> Value | Any:
    """NumPy's nanvar, op for op: the mean of the numbers of each slice (kept dims), their
    squared deviations with NaN as zero, summed and divided by the count less `ddof`."""
    reject(what, out=out, where=where, mean=mean)
    if correction is not NO_VALUE:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    x = _operand(graph, a, fn, what, axis=axis, dtype=dtype, ddof=ddof, keepdims=_keep(keepdims))
    if not isinstance(x, Value):
        return x
    keep = _keep(keepdims)
    if x.dtype.kind != "f":
        return reductions.var(graph, x, axis=axis, dtype=dtype, ddof=ddof, keepdims=keep)
    if dtype_arg(dtype, what) is not None:
        raise Unsupported(f"{what} with dtype=")
    axes = _axes(x, axis, what)
    nan = _nan_mask(graph, x)
    total, count = _counted(graph, x, nan, axes, True, None)
    centre = _divide_by_count(graph, total, count)
    deviations = graph.op("where", [nan, graph.const(0.0, x.dtype, weak=False),
                                    graph.op("sub", [x, centre])])
    squares = graph.op("sum", [graph.op("mul", [deviations, deviations])], axis=axes,
                       keepdims=keep)
    if not keep:
        count = graph.op("sum", [graph.op("astype", [graph.op("logical_not", [nan])],
                                          dtype=_INTP)], axis=axes, keepdims=False)
    ddof_value = static_number(ddof, what)
    dof = graph.op("sub", [count, graph.const(ddof_value)])
    # NumPy warns 'Degrees of freedom <= 0 for slice' and gives NaN there.
    _rerun_if_any(graph, graph.op("le", [dof, graph.const(0)]))
    return _divide_by_count(graph, squares, dof)


def nanvar(graph: Graph, a: object, axis: object = None, dtype: object = None,
           out: object = None, ddof: object = 0, keepdims: object = NO_VALUE, *,
           where: object = NO_VALUE, mean: object = NO_VALUE,
           correction: object = NO_VALUE) -> Any:
    v = _nanvar(graph, "np.nanvar", np.nanvar, a, axis, dtype, out, ddof, keepdims, where,
                mean, correction)
    return as_numpy_scalar(graph, v) if isinstance(v, Value) else v


def nanstd(graph: Graph, a: object, axis: object = None, dtype: object = None,
           out: object = None, ddof: object = 0, keepdims: object = NO_VALUE, *,
           where: object = NO_VALUE, mean: object = NO_VALUE,
           correction: object = NO_VALUE) -> Any:
    v = _nanvar(graph, "np.nanstd", np.nanstd, a, axis, dtype, out, ddof, keepdims, where,
                mean, correction)
    # An integer array's variance is np.var's, already a NumPy scalar where NumPy's is.
    return as_numpy_scalar(graph, graph.op("sqrt", [v])) if isinstance(v, Value) else v


def nanmedian(graph: Graph, a: object, axis: object = None, out: object = None,
              overwrite_input: object = False, keepdims: object = NO_VALUE) -> Any:
    """np.nanmedian of float data: each slice sorted (NaN last) and its `c` numbers' middle
    read at `c // 2` and `(c - 1) // 2`. Over the whole array, a vector or a long axis NumPy
    takes np.median of the numbers (the middle one, or the mean of two); over a short axis
    (`_nanmedian_small`'s masked median) half the sum of both, which is the same number
    unless doubling it overflows. Integer data hold no NaN: np.median."""
    from ember.numpy_api.order_statistics import median, rerun_at_signed_zeros
    from ember.numpy_api.take import take_along_axis

    what = "np.nanmedian"
    reject(what, out=out, overwrite_input=overwrite_input or None)
    x = _operand(graph, a, np.nanmedian, what, axis=axis, keepdims=_keep(keepdims))
    if not isinstance(x, Value):
        return x
    keep = _keep(keepdims)
    if x.dtype.kind != "f":
        return median(graph, x, axis=axis, keepdims=keep)
    axes = _axes(x, axis, what)
    if axes is not None and len(axes) != 1:
        raise Unsupported(f"{what} over several axes")
    whole = axes is None or x.ndim == 1
    data = reshape_value(graph, x, (-1,)) if axes is None else x
    ax = 0 if axes is None else axes[0]
    nan = _nan_mask(graph, data)
    count = graph.op("sum", [graph.op("astype", [graph.op("logical_not", [nan])], dtype=_INTP)],
                     axis=[ax], keepdims=True)
    _rerun_if_any(graph, graph.op("eq", [count, graph.const(0)]))  # 'All-NaN slice'
    ordered = graph.op("sort_default", [data], axis=ax)
    high = graph.op("floordiv", [count, graph.const(2)])
    low = graph.op("floordiv", [graph.op("sub", [count, graph.const(1)]), graph.const(2)])
    a_low, a_high = (graph.op("squeeze", [take_along_axis(graph, ordered, i, ax)], axis=[ax])
                     for i in (low, high))
    half = graph.op("div", [graph.op("add", [a_low, a_high]), graph.const(2.0)])
    if whole or data.shape[ax] >= 600:
        odd = graph.op("squeeze", [graph.op("eq", [graph.op("mod", [count, graph.const(2)]),
                                                   graph.const(1)])], axis=[ax])
        half = graph.op("where", [odd, a_high, half])
    rerun_at_signed_zeros(graph, data, half)
    if keep:
        half = reshape_value(graph, half, (1,) * x.ndim) if axes is None else (
            graph.op("expand_dims", [half], axis=[ax]))
    return as_numpy_scalar(graph, half)


def functions() -> dict[Any, Any]:
    return {np.nanmax: _extreme_like("max"), np.nanmin: _extreme_like("min"),
            np.nanargmax: _arg_like("argmax"), np.nanargmin: _arg_like("argmin"),
            np.nanmean: nanmean, np.nanvar: nanvar, np.nanstd: nanstd,
            np.nanmedian: nanmedian}
