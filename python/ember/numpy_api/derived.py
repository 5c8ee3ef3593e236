"""NumPy functions ember has no op of its own for, as NumPy defines them from ops it has:
`np.deg2rad`/`np.radians`, `np.rad2deg`/`np.degrees` (a product by a constant in the ufunc's
result dtype), `np.heaviside`, `np.inner`, `np.vdot`, `np.vecdot`, and `np.result_type` of traced arrays
(a constant: dtypes are known at capture)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.numpy_api.convert import any_value, to_value
from ember.numpy_api.elementwise import apply
from ember.numpy_api.shape_ops import reshape_value
from ember.quiet import quiet


def _example(v: object) -> object:
    """What NumPy's type resolution sees of an argument: a 0-d array of a traced value's
    dtype (a Python number for a weak one), or the object itself."""
    if isinstance(v, Value):
        return {"b": False, "i": 0, "u": 0, "f": 0.0}[v.dtype.kind] if v.weak else \
            np.zeros((), v.dtype)
    return v


def _result_dtype(fn: np.ufunc, args: list[object]) -> np.dtype:
    with quiet():
        return np.asarray(fn(*(_example(a) for a in args))).dtype


def _scaling(fn: np.ufunc, numerator: float, denominator: float) -> Any:
    def handler(graph: Graph, x: object, /, out: object = None, **kwargs: object) -> Any:
        if out is not None or kwargs:
            raise Unsupported(f"np.{fn.__name__} with out= or ufunc keywords")
        if not any_value([x]):
            return fn(x)
        v = to_value(graph, x, f"np.{fn.__name__}")
        dtype = _result_dtype(fn, [v])
        if v.dtype != dtype:
            v = graph.op("astype", [v], dtype=dtype)
        # NumPy multiplies by the quotient computed in the result dtype (`NPY_PIf / 180.0f`).
        kind = np.dtype(dtype).type
        with quiet():
            factor = kind(numerator) / kind(denominator)
        scale = graph.const(factor, dtype, weak=False)
        return apply(graph, "mul", [v, scale], operator=False)

    handler.__name__ = fn.__name__
    return handler


def heaviside(graph: Graph, x1: object, x2: object, /, out: object = None,
              **kwargs: object) -> Any:
    """np.heaviside: 0 below zero, 1 above, `x2` at zero, NaN where `x1` is NaN."""
    if out is not None or kwargs:
        raise Unsupported("np.heaviside with out= or ufunc keywords")
    if not any_value([x1, x2]):
        return np.heaviside(x1, x2)
    dtype = _result_dtype(np.heaviside, [x1, x2])
    x, h = (graph.op("astype", [to_value(graph, a, "np.heaviside")], dtype=dtype)
            for a in (x1, x2))
    zero, one = (graph.const(c, dtype, weak=False) for c in (0, 1))
    sign = graph.op("where", [graph.op("lt", [x, zero]), zero, one])
    at_zero = graph.op("where", [graph.op("eq", [x, zero]), h, sign])
    return graph.op("where", [graph.op("isnan", [x]), x, at_zero])


def inner(graph: Graph, a: object, b: object, /) -> Any:
    """np.inner: the product over the last axes of both (a product of 0-d operands)."""
    from ember.numpy_api.linalg import tensordot

    if not any_value([a, b]):
        return np.inner(a, b)
    x, y = (to_value(graph, v, "np.inner") for v in (a, b))
    if x.ndim == 0 or y.ndim == 0:
        return apply(graph, "mul", [x, y], operator=False)
    if x.shape[-1] != y.shape[-1]:
        raise ValueError("shapes not aligned")
    result = tensordot(graph, x, y, ([x.ndim - 1], [y.ndim - 1]))
    if result.ndim == 0:  # np.inner of vectors gives a scalar
        result = graph.op("squeeze", [result], axis=[], scalar=True)
    return result


def vdot(graph: Graph, a: object, b: object, /) -> Any:
    """np.vdot of real arrays: the dot product of both flattened."""
    from ember.numpy_api.linalg import dot

    if not any_value([a, b]):
        return np.vdot(a, b)
    x, y = (reshape_value(graph, to_value(graph, v, "np.vdot"), (-1,)) for v in (a, b))
    if x.shape[0] != y.shape[0]:
        raise ValueError("cannot reshape array")
    return dot(graph, x, y)


def result_type(graph: Graph, *arrays_and_dtypes: object) -> np.dtype:
    """np.result_type: a constant, from the traced arrays' dtypes (Python numbers weak)."""
    return np.result_type(*(_example(a) for a in arrays_and_dtypes))


def vecdot(graph: Graph, x1: object, x2: object, /, *, axis: object = -1, **ufunc: object
           ) -> Any:
    """np.vecdot (and `np.linalg.vecdot`, NumPy's Python around it) of real numbers: the
    sum of the products over one axis of each, the rest broadcast, in the product's dtype."""
    from ember.numpy_api.shape_ops import moveaxis

    if ufunc:
        raise Unsupported("np.vecdot with out=, axes= or other ufunc keywords")
    if not any_value([x1, x2]):
        return np.vecdot(x1, x2, axis=axis)
    x, y = (to_value(graph, v, "np.vecdot") for v in (x1, x2))
    if x.dtype.kind not in "iuf" or y.dtype.kind not in "iuf" or type(axis) is not int:
        raise Unsupported("np.vecdot of booleans or with an axis that is not an int")
    for i, v in enumerate((x, y)):
        if v.ndim == 0:
            raise ValueError(f"vecdot: Input operand {i} does not have enough dimensions (has "
                             "0, gufunc core with signature (n),(n)->() requires 1)")
        if not -v.ndim <= axis < v.ndim:
            raise np.exceptions.AxisError(axis, v.ndim)
    x, y = (moveaxis(graph, v, axis, -1) for v in (x, y))
    if x.shape[-1] != y.shape[-1]:
        raise ValueError("vecdot: Input operand 1 has a mismatch in its core dimension 0, with "
                         "gufunc signature (n),(n)->() (size "
                         f"{y.shape[-1]} is different from {x.shape[-1]})")
    product = apply(graph, "mul", [x, y], operator=False)
    total = graph.op("sum", [product], axis=[product.ndim - 1], keepdims=False)
    if total.dtype != product.dtype:
        total = graph.op("astype", [total], dtype=product.dtype)
    return total


def functions() -> dict[Any, Any]:
    radians = _scaling(np.deg2rad, math.pi, 180.0)
    degrees = _scaling(np.rad2deg, 180.0, math.pi)
    return {np.deg2rad: radians, np.radians: radians, np.rad2deg: degrees,
            np.degrees: degrees, np.heaviside: heaviside, np.inner: inner, np.vdot: vdot,
            np.result_type: result_type, np.vecdot: vecdot}
