"""Array creation: zeros ones full empty, their *_like forms, arange linspace eye identity."""

from __future__ import annotations

import math
import operator
import warnings
from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.dtypes import as_dtype
from ember.graph.shapes import dim_terms, make_dim
from ember.numpy_api.convert import (
    any_value,
    as_array,
    dtype_arg,
    shape_arg,
    static_number,
    to_value,
)
from ember.numpy_api.literals import constant_array, literal_value
from ember.numpy_api.shape_ops import contiguous_view, reshape_value


def _check_layout(what: str, order: str, like: object = None, fortran: bool = False) -> None:
    if order not in ("C", "K", "A") and not (fortran and order == "F"):
        raise Unsupported(f"{what} with order={order!r}")
    if like is not None:
        raise Unsupported(f"{what} with like=")


def _in_order(graph: Graph, x: Value, order: str) -> Value:
    """`x`, a fresh array, allocated in Fortran order for `order='F'` (a copy whose layout
    rule says so: `graph/layouts.py`); values do not depend on the order."""
    if order != "F" or x.ndim < 2:
        return x
    made = graph.op("copy", [x])
    graph.layouts[made.id] = "f"
    return made


def _full(graph: Graph, what: str, shape: tuple[int | str, ...], fill: object,
          dtype: np.dtype | None) -> Value:
    if isinstance(fill, Value):
        value = fill if dtype is None or fill.dtype == dtype else graph.op(
            "astype", [fill], dtype=dtype)
        if value.ndim:
            raise Unsupported(f"{what} with an array fill value")
        return graph.op("broadcast_to", [value], shape=list(shape))
    number = static_number(fill, what)
    dt = dtype if dtype is not None else np.asarray(fill).dtype
    np.full((), number, dt)  # NumPy's own error or floating-point flag for the cast
    return graph.full(shape, number, as_dtype(dt, what))


def zeros(graph: Graph, shape: object, dtype: object = float, order: str = "C", *,
          device: object = None, like: object = None) -> Value:
    _check_layout("np.zeros", order, like, fortran=True)
    return _in_order(graph, _full(graph, "np.zeros", shape_arg(shape, "np.zeros"), 0,
                                  dtype_arg(dtype, "np.zeros")), order)


def ones(graph: Graph, shape: object, dtype: object = None, order: str = "C", *,
         device: object = None, like: object = None) -> Value:
    _check_layout("np.ones", order, like, fortran=True)
    return _in_order(graph, _full(graph, "np.ones", shape_arg(shape, "np.ones"), 1,
                                  dtype_arg(float if dtype is None else dtype, "np.ones")),
                     order)


def empty(graph: Graph, shape: object, dtype: object = float, order: str = "C", *,
          device: object = None, like: object = None) -> Value:
    """np.empty's contents are undefined; zeros are one valid choice."""
    _check_layout("np.empty", order, like, fortran=True)
    return _in_order(graph, _full(graph, "np.empty", shape_arg(shape, "np.empty"), 0,
                                  dtype_arg(dtype, "np.empty")), order)


def ndarray(graph: Graph, shape: object, dtype: object = float, buffer: object = None,
            offset: object = 0, strides: object = None, order: object = None) -> Value:
    """`np.ndarray(shape, dtype)`, the low-level constructor, without a buffer: np.empty."""
    if buffer is not None or strides is not None:
        raise Unsupported("np.ndarray with buffer= or strides= (a view of existing memory)")
    return empty(graph, shape, dtype, "C" if order is None else order)


def fill(graph: Graph, a: Value, value: object) -> Value:
    """`a.fill(value)`: the array's new contents, which capture writes into it. A constant is
    stored as NumPy stores it (found by NumPy itself: an error or a warning there runs the
    call in NumPy); a traced value only where it casts safely."""
    if isinstance(value, Value):
        if not np.can_cast(value.dtype, a.dtype, "safe") or value.ndim:
            raise Unsupported("ndarray.fill with a traced value that does not cast safely")
        return _full(graph, "ndarray.fill", a.shape, value, a.dtype)
    probe = np.empty((), a.dtype)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            probe.fill(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError, Warning) as exc:
        raise Unsupported(f"ndarray.fill with {value!r} ({exc})") from exc
    return graph.full(a.shape, probe.item(), a.dtype)


def full(graph: Graph, shape: object, fill_value: object, dtype: object = None,
         order: str = "C", *, device: object = None, like: object = None) -> Value:
    _check_layout("np.full", order, like, fortran=True)
    return _in_order(graph, _full(graph, "np.full", shape_arg(shape, "np.full"), fill_value,
                                  dtype_arg(dtype, "np.full")), order)


def _like(name: str, fill: object) -> Any:
    what = f"np.{name}"

    def handler(graph: Graph, a: object, dtype: object = None, order: str = "K",
                subok: bool = True, shape: object = None, *, device: object = None) -> Value:
        _check_layout(what, order, fortran=True)
        proto = to_value(graph, a, what)
        dt = dtype_arg(dtype, what) or proto.dtype
        target = proto.shape if shape is None else shape_arg(shape, what)
        made = _full(graph, what, target, fill, dt)
        if order in ("C", "F") and isinstance(made, Value):
            graph.layouts[made.id] = order.lower()
        elif shape is None and isinstance(made, Value):
            graph.layouts[made.id] = ("like", proto.id)
        return made

    handler.__name__ = name
    return handler


zeros_like = _like("zeros_like", 0)


def full_like(graph: Graph, a: object, fill_value: object, dtype: object = None,
              order: str = "K", subok: bool = True, shape: object = None, *,
              device: object = None) -> Value:
    return _like("full_like", fill_value)(graph, a, dtype, order, subok, shape)


def arange(graph: Graph, start: object, stop: object = None, step: object = None,
           dtype: object = None, *, device: object = None, like: object = None) -> Value:
    """np.arange with static bounds: element i is start + i*step, len = ceil((stop-start)/step)."""
    _check_layout("np.arange", "C", like)
    if stop is None:
        start, stop = 0, start
    if isinstance(stop, str) and start == 0 and step in (None, 1):
        # np.arange(n) of a symbolic size: its length is that symbol
        dt = dtype_arg(dtype, "np.arange") or np.dtype(np.int64)
        return graph.arange(0, 1, stop, dt)  # type: ignore[arg-type]
    if isinstance(start, str) or isinstance(stop, str):
        return _symbolic_arange(graph, start, stop, step, dtype)
    bounds = [static_number(x, "np.arange") for x in (start, stop, 1 if step is None else step)]
    lo, hi, delta = bounds
    if delta == 0:
        raise ZeroDivisionError("division by zero")
    if all(isinstance(b, int) for b in bounds):
        length = max(0, -(-(hi - lo) // delta))
    else:
        length = max(0, math.ceil((hi - lo) / delta))
    given = [x for x in (start, stop, step) if x is not None]
    dt = dtype_arg(dtype, "np.arange") or np.result_type(*given)
    return graph.arange(lo, delta, length, as_dtype(dt, "np.arange"))


def _symbolic_arange(graph: Graph, start: object, stop: object, step: object,
                     dtype: object) -> Value:
    """np.arange between bounds that are symbolic sizes or ints (`np.arange(1, n + 1)`,
    `np.arange(n - 1, -1, -1)`) by a step of 1 or -1: its length is the dim between them
    (at least 2 in every binding, as a slice's), its first element the start's run-time
    value where that is symbolic."""
    from ember.capture.loops.sizes import value_in

    delta = 1 if step is None else step
    if type(delta) not in (int, float) or delta not in (1, -1) or not all(
            type(b) in (int, str) for b in (start, stop)):
        raise Unsupported("np.arange of a symbolic size with a step other than 1 or -1, or "
                          "bounds that are not ints")
    (hi_terms, hi), (lo_terms, lo) = dim_terms(stop), dim_terms(start)  # type: ignore[arg-type]
    if delta < 0:
        (hi_terms, hi), (lo_terms, lo) = (lo_terms, lo), (hi_terms, hi)
    terms = dict(hi_terms)
    for product, coefficient in lo_terms.items():
        terms[product] = terms.get(product, 0) - coefficient
    length = make_dim(terms, hi - lo)
    length = 0 if length is None else length
    if isinstance(length, str):
        graph.require_size(length, 2)
    # NumPy's dtype of Python ints and floats: int64, or float64 for a float step
    computed = np.dtype(type(delta) is float and np.float64 or np.int64)
    dt = dtype_arg(dtype, "np.arange") or computed
    if not isinstance(start, str):
        return graph.arange(computed.type(start), computed.type(delta), length, dt)
    ramp = graph.arange(computed.type(0), computed.type(delta), length, computed)
    out = graph.op("add", [ramp, value_in(graph, start)])
    return out if dt == out.dtype else graph.op("astype", [out], dtype=dt)


def linspace(graph: Graph, start: object, stop: object, num: object = 50,
             endpoint: bool = True, retstep: bool = False, dtype: object = None,
             axis: object = 0, *, device: object = None) -> Any:
    """NumPy's linspace, op for op: arange(num) * step + start, the last element set to stop.
    A symbolic `num` (`np.linspace(0, 1, len(x))`) divides by `num - 1` computed in the
    graph (the last element of the arange), as NumPy divides by the int."""
    if axis != 0:
        raise Unsupported("np.linspace with axis=")
    if isinstance(start, Value) or isinstance(stop, Value):
        return _linspace_of_values(graph, start, stop, num, endpoint, retstep, dtype)
    symbolic = isinstance(num, str)
    n = num if symbolic else operator.index(num)  # type: ignore[arg-type]
    if not symbolic and n < 0:  # type: ignore[operator]
        raise ValueError(f"Number of samples, {n}, must be non-negative.")
    dt = np.result_type(start, stop, 1.0)  # type: ignore[arg-type]  # float(num): weak
    target = dtype_arg(dtype, "np.linspace") or as_dtype(dt, "np.linspace")
    delta = np.subtract(stop, start, dtype=type(dt))  # type: ignore[call-overload]
    y = graph.arange(0, 1, n, dt)  # type: ignore[arg-type]
    step: Any = math.nan
    if symbolic:
        if retstep or 0 < abs(delta) < 1e-290:
            # the step as a Python float, or one that may round to 0 for some sizes
            raise Unsupported("np.linspace of a symbolic size with retstep= or a tiny range")
        from ember.numpy_api.indexing import getitem

        last = getitem(graph, y, -1)
        div = last if endpoint else graph.op("add", [last, graph.const(1.0, dt)])
        if delta == 0:
            y = graph.op("mul", [graph.op("div", [y, div]), graph.const(delta)])
        else:
            y = graph.op("mul", [y, graph.op("div", [graph.const(delta), div])])
    else:
        div = n - 1 if endpoint else n  # type: ignore[operator]
        if div > 0:
            step = delta / div
            if step == 0:
                y = graph.op("div", [y, graph.const(div)])
                y = graph.op("mul", [y, graph.const(delta)])
            else:
                y = graph.op("mul", [y, graph.const(step)])
        else:
            y = graph.op("mul", [y, graph.const(delta)])
    y = graph.op("add", [y, to_value(graph, start, "np.linspace")])
    if y.dtype != dt:
        y = graph.op("astype", [y], dtype=dt)  # `y += start` keeps y's dtype
    if endpoint and (symbolic or n > 1):  # type: ignore[operator]
        from ember.numpy_api.indexing import getitem

        head = getitem(graph, y, slice(None, -1))
        y = graph.op("concatenate", [head, graph.full((1,), static_number(stop, "np.linspace"),
                                                      dt)], axis=0)
    return _in_target(graph, y, target, step if retstep else None)


def _linspace_of_values(graph: Graph, start: object, stop: object, num: object,
                        endpoint: bool, retstep: bool, dtype: object) -> Any:
    """np.linspace between bounds the graph computes (`np.linspace(x.min(), x.max(), 5)`),
    of any shapes that broadcast: NumPy's steps op for op, its test of a step that rounds
    to zero (then `y / div * delta`) a `where` on the data."""
    from ember.numpy_api.derived import result_type

    what = "np.linspace"
    if isinstance(num, str):
        raise Unsupported("np.linspace of a symbolic size between array bounds")
    n = operator.index(num)  # type: ignore[arg-type]
    if n < 0:
        raise ValueError(f"Number of samples, {n}, must be non-negative.")
    lo, hi = (to_value(graph, b, what) for b in (start, stop))
    if any(isinstance(d, str) for b in (lo, hi) for d in b.shape):
        raise Unsupported("np.linspace between bounds of symbolic shape")
    dt = result_type(graph, lo, hi)
    if dt.kind not in "fc":
        dt = np.result_type(dt, 0.0)
    dt = as_dtype(dt, what)
    target = dtype_arg(dtype, what) or dt
    lo, hi = (graph.op("astype", [b], dtype=dt, weak=False) for b in (lo, hi))
    delta = graph.op("sub", [hi, lo])
    y = graph.arange(0, 1, n, dt)
    y = graph.op("reshape", [y], shape=[n, *[1] * delta.ndim])
    div = n - 1 if endpoint else n
    step: Any = math.nan
    if div > 0:
        step = graph.op("div", [delta, graph.const(div)])
        rounded = graph.op("any", [graph.op("eq", [step, graph.const(0)])], axis=None,
                           keepdims=False)
        scaled = graph.op("mul", [graph.op("div", [y, graph.const(div)]), delta])
        y = graph.op("where", [rounded, scaled, graph.op("mul", [y, step])])
    else:
        y = graph.op("mul", [y, delta])
    y = graph.op("add", [y, lo])
    if endpoint and n > 1:
        row = graph.arange(0, 1, n, np.dtype(np.int64))
        last = graph.op("eq", [row, graph.const(np.int64(n - 1))])
        last = graph.op("reshape", [last], shape=[n, *[1] * delta.ndim])
        y = graph.op("where", [last, hi, y])
    return _in_target(graph, y, target, step if retstep else None)


def eye(graph: Graph, N: object, M: object = None, k: object = 0, dtype: object = float,
        order: str = "C", *, device: object = None, like: object = None) -> Value:
    _check_layout("np.eye", order, like)
    n = N if isinstance(N, str) else operator.index(N)  # type: ignore[arg-type]
    m = n if M is None else M if isinstance(M, str) else operator.index(M)  # type: ignore
    if any(isinstance(d, int) and d < 0 for d in (n, m)):
        raise ValueError("negative dimensions are not allowed")
    return graph.eye(n, m, operator.index(k),  # type: ignore[arg-type]
                     dtype_arg(dtype, "np.eye") or np.dtype(float))


def identity(graph: Graph, n: object, dtype: object = None, *, like: object = None) -> Value:
    return eye(graph, n, dtype=float if dtype is None else dtype, like=like)


def asarray(graph: Graph, a: object, dtype: object = None, order: object = None, *,
            device: object = None, copy: object = None, like: object = None) -> Value:
    """np.asarray: an array unchanged (cast to `dtype`); scalars become 0-d arrays; a list of
    arrays of one shape is stacked."""
    _check_layout("np.asarray", order or "K", like)
    dt = dtype_arg(dtype, "np.asarray")
    if isinstance(a, (list, tuple)) and any_value([a]):
        return literal_value(graph, a, dt)
    if isinstance(a, (list, tuple)):
        return constant_array(graph, np.asarray(a, dtype=dt))
    x = as_array(graph, to_value(graph, a, "np.asarray"))
    if dt is not None and dt != x.dtype:
        cast = graph.op("astype", [x], dtype=dt)
        graph.layouts[cast.id] = ("like", x.id)
        x = cast
    if copy and x is a:
        x = graph.op("copy", [x])
    return x


def array(graph: Graph, object: object, dtype: object = None, *, copy: object = True,
          order: str = "K", subok: bool = False, ndmin: int = 0, like: object = None) -> Any:
    """np.array: a copy of a traced array (cast to `dtype`), or a nested list of traced
    values and Python scalars stacked as NumPy stacks it; without traced values, NumPy's own
    constant."""
    _check_layout("np.array", order, like, fortran=True)
    if not any_value([object]):
        made = np.array(object, dtype=dtype, copy=copy, order=order,  # type: ignore
                        subok=subok, ndmin=ndmin)
        return _in_order(graph, constant_array(graph, made), order) if type(
            made) is np.ndarray else made
    if copy is False:
        raise Unsupported("np.array with copy=False")
    dt = dtype_arg(dtype, "np.array")
    if isinstance(object, (list, tuple)):
        x = _in_order(graph, literal_value(graph, object, dt), order)
    else:
        x = as_array(graph, to_value(graph, object, "np.array"))
        if dt is not None and dt != x.dtype:
            cast = graph.op("astype", [x], dtype=dt)
            graph.layouts[cast.id] = ("like", x.id)
            x = cast
        elif copy is not None:  # copy=None: the array itself, as NumPy hands it back
            x = graph.op("copy", [x])
        if order == "F" and x.ndim > 1:
            if copy is None:
                raise Unsupported("np.array with order='F' and copy=None")
            graph.layouts[x.id] = "f"
    ndmin = operator.index(ndmin)  # type: ignore[arg-type]
    if ndmin > x.ndim:  # ones prepended: a view of the array
        x = reshape_value(graph, x, (1,) * (ndmin - x.ndim) + tuple(x.shape))
    return x


def ascontiguousarray(graph: Graph, a: object, dtype: object = None, *,
                      like: object = None) -> Value:
    x = asarray(graph, a, dtype, like=like)
    return contiguous_view(graph, x, (1,) if x.ndim == 0 else x.shape, "ascontiguousarray")


def asfortranarray(graph: Graph, a: object, dtype: object = None, *,
                   like: object = None) -> Value:
    """A view where `a` is Fortran-contiguous, else a Fortran-ordered copy: the graph's
    values have no layout, so, as for ascontiguousarray, the entry takes it again with
    NumPy's own function."""
    x = asarray(graph, a, dtype, like=like)
    view = contiguous_view(graph, x, (1,) if x.ndim == 0 else x.shape, "asfortranarray")
    graph.layouts[view.id] = "f"  # the array's own strides where it is already so
    return view


def _tri_mask(graph: Graph, m: Value, k: int) -> Value:
    """np.tri(N, M, k, bool) as NumPy builds it: arange(N)[:, None] >= arange(-k, M - k)
    (the aranges of symbolic sizes too, their lengths the dims)."""
    if m.ndim == 0:  # NumPy unpacks `m.shape[-2:]` into np.tri's arguments
        raise TypeError("tri() missing 1 required positional argument: 'N'")
    n, cols = m.shape[-2:] if m.ndim > 1 else (m.shape[-1], m.shape[-1])
    rows = graph.op("expand_dims", [graph.arange(0, 1, n, np.int64)], axis=[1])
    shifted = graph.op("expand_dims", [graph.arange(-k, 1, cols, np.int64)], axis=[0])
    return graph.op("ge", [rows, shifted])


def tril(graph: Graph, m: object, k: object = 0) -> Value:
    x = to_value(graph, m, "np.tril")
    mask = _tri_mask(graph, x, operator.index(k))  # type: ignore[arg-type]
    return graph.op("where", [mask, x, graph.full((1,), 0, x.dtype)])


def triu(graph: Graph, m: object, k: object = 0) -> Value:
    x = to_value(graph, m, "np.triu")
    mask = _tri_mask(graph, x, operator.index(k) - 1)  # type: ignore[arg-type]
    return graph.op("where", [mask, graph.full((1,), 0, x.dtype), x])


def _tri_indices(numpy_fn: Any) -> Any:
    """np.triu_indices / np.tril_indices of static sizes: NumPy's index arrays, made at
    capture and built in the graph as constants (NumPy's own code selects them by a mask, a
    selection whose length only the data would know)."""

    def indices(graph: Graph, n: object, k: object = 0, m: object = None) -> tuple[Value, ...]:
        if any(isinstance(v, (Value, str)) for v in (n, k, m)):
            raise Unsupported(f"np.{numpy_fn.__name__} of run-time sizes")
        return tuple(constant_array(graph, part) for part in numpy_fn(n, k, m))

    return indices


def functions() -> dict[Any, Any]:
    return {
        np.zeros: zeros, np.ones: ones, np.empty: empty, np.full: full, np.ndarray: ndarray,
        np.zeros_like: zeros_like, np.ones_like: _like("ones_like", 1),
        np.empty_like: _like("empty_like", 0), np.full_like: full_like,
        np.arange: arange, np.linspace: linspace, np.eye: eye, np.identity: identity,
        np.array: array, np.asarray: asarray, np.asanyarray: asarray,
        np.ascontiguousarray: ascontiguousarray, np.asfortranarray: asfortranarray,
        np.tril: tril, np.triu: triu,
        np.triu_indices: _tri_indices(np.triu_indices),
        np.tril_indices: _tri_indices(np.tril_indices),
    }


def _in_target(graph: Graph, y: Value, target: np.dtype, step: Any) -> Any:
    """np.linspace's samples in the requested dtype (integers by flooring), with the step
    where `retstep` asked for it (`step` not None)."""
    if target.kind in "iu":
        y = graph.op("floor", [y])
    if y.dtype != target:
        y = graph.op("astype", [y], dtype=target)
    return y if step is None else (y, step)
