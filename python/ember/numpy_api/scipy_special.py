"""scipy.special's log-sum-exp family and logistic sigmoid, written as scipy computes them with
NumPy operations: `logsumexp`, `softmax`, `log_softmax` and `expit` (`erf` and `erfc`: in
`scipy_erf.py`). They take effect once the
program has imported `scipy.special` (ember never imports it), and give scipy's values within
rounding, its dtypes (integers as float64, float32 kept) and no warnings, as scipy gives none."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.shapes import normalize_axes
from ember.numpy_api.convert import as_array, as_numpy_scalar, axis_arg, to_value


_ALL = ("divide", "over", "under", "invalid")


@contextlib.contextmanager
def _ignoring(graph: Graph, *categories: str) -> Iterator[None]:
    """The ops added inside ignore the floating-point `categories`, as scipy's own
    `np.errstate` blocks do."""
    outer = graph.errstate
    modes = dict(outer or ())
    modes.update((c, "ignore") for c in categories)
    graph.set_errstate(tuple(modes.items()))
    try:
        yield
    finally:
        graph.set_errstate(outer)


def _floats(graph: Graph, a: object, what: str) -> Value:
    x = as_array(graph, to_value(graph, a, what))
    if x.dtype.kind in "biu":
        return graph.op("astype", [x], dtype=np.dtype(np.float64), weak=False)
    if x.dtype.kind != "f":
        raise Unsupported(f"{what} of {x.dtype}")
    if any(isinstance(d, str) or d == 0 for d in x.shape):
        raise Unsupported(f"{what} of an empty or symbolically shaped array")
    return x


def _zero(graph: Graph, x: Value) -> Value:
    return graph.full((1,) * x.ndim, 0, x.dtype)


def _finite_max(graph: Graph, x: Value, axis: object) -> tuple[Value, Value]:
    """The maximum along `axis` (kept), and that maximum with infinities and nan as 0."""
    top = graph.op("max", [x], axis=axis, keepdims=True)
    return top, graph.op("where", [graph.op("isfinite", [top]), top, _zero(graph, x)])


def _squeezed(graph: Graph, x: Value, axis: object, keepdims: object) -> Value:
    if keepdims:
        return x
    axes = normalize_axes(axis, x.ndim)
    return graph.op("squeeze", [x], axis=list(range(x.ndim) if axes is None else axes))


def logsumexp(graph: Graph, a: object, axis: object = None, b: object = None,
              keepdims: object = False, return_sign: object = False) -> Any:
    """scipy's: the maximal elements apart, `log1p(sum(exp(a - max)) / m) + log(m) + max`
    over the others, with `m` the maximum's count."""
    what = "scipy.special.logsumexp"
    if b is not None or return_sign:
        raise Unsupported(f"{what} with b= or return_sign=")
    x = _floats(graph, a, what)
    ax = axis_arg(axis, what, lists=True)
    with _ignoring(graph, *_ALL):
        top, shift = _finite_max(graph, x, ax)
        ties = graph.op("eq", [x, top])
        count = graph.op("sum", [graph.op("astype", [ties], dtype=x.dtype)], axis=ax,
                         keepdims=True)
        rest = graph.op("where", [ties, _zero(graph, x),
                                  graph.op("exp", [graph.op("sub", [x, shift])])])
        total = graph.op("div", [graph.op("sum", [rest], axis=ax, keepdims=True), count])
        out = graph.op("add", [graph.op("add", [graph.op("log1p", [total]),
                                                graph.op("log", [count])]), top])
    return as_numpy_scalar(graph, _squeezed(graph, out, ax, keepdims))


def softmax(graph: Graph, x: object, axis: object = None) -> Value:
    what = "scipy.special.softmax"
    v = _floats(graph, x, what)
    ax = axis_arg(axis, what, lists=True)
    shifted = graph.op("exp", [graph.op("sub", [v, graph.op("max", [v], axis=ax,
                                                            keepdims=True)])])
    return graph.op("div", [shifted, graph.op("sum", [shifted], axis=ax, keepdims=True)])


def log_softmax(graph: Graph, x: object, axis: object = None) -> Value:
    what = "scipy.special.log_softmax"
    v = _floats(graph, x, what)
    ax = axis_arg(axis, what, lists=True)
    _, shift = _finite_max(graph, v, ax)
    shifted = graph.op("sub", [v, shift])
    total = graph.op("sum", [graph.op("exp", [shifted])], axis=ax, keepdims=True)
    with _ignoring(graph, "divide"):
        log_total = graph.op("log", [total])
    return graph.op("sub", [shifted, log_total])


def expit(graph: Graph, x: object, out: object = None, **kwargs: object) -> Any:
    """`1 / (1 + exp(-x))`, from `exp(-|x|)` on both sides so that nothing overflows."""
    what = "scipy.special.expit"
    if out is not None or kwargs:
        raise Unsupported(f"{what} with out= or other ufunc arguments")
    value = to_value(graph, x, what)
    v = _floats(graph, value, what)
    with _ignoring(graph, *_ALL):
        small = graph.op("exp", [graph.op("neg", [graph.op("abs", [v])])])
        one = graph.full((1,) * v.ndim, 1, v.dtype)
        denominator = graph.op("add", [one, small])
        result = graph.op("where", [graph.op("ge", [v, _zero(graph, v)]),
                                    graph.op("div", [one, denominator]),
                                    graph.op("div", [small, denominator])])
    return as_numpy_scalar(graph, result) if value.ndim == 0 else result


_NAMES = {"logsumexp": logsumexp, "softmax": softmax, "log_softmax": log_softmax,
          "expit": expit}


def functions() -> dict[Any, Any]:
    """The handlers by scipy's function objects, once the program has imported scipy.special;
    empty before."""
    from ember.numpy_api import scipy_erf

    module = sys.modules.get("scipy.special")
    if module is None:
        return {}
    return {getattr(module, name): handler for name, handler in {**_NAMES,
                                                                 **scipy_erf.NAMES}.items()
            if hasattr(module, name)}
