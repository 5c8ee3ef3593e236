"""Polynomials: `np.polyval` (Horner's rule, NumPy's own loop) and `np.convolve` (the product
of two coefficient sequences), for coefficient sequences of a length known while tracing.

Both unroll over the coefficients, so they refuse sequences longer than `MAX_TERMS` (a graph
op per term) and the frame runs them in NumPy."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.numpy_api.convert import as_array, to_value
from ember.numpy_api.creation import zeros_like
from ember.numpy_api.elementwise import binary_op
from ember.numpy_api.indexing import getitem

MAX_TERMS = 64


def _terms(x: Value, what: str) -> int:
    """The length of a 1-d coefficient sequence, within `MAX_TERMS`."""
    if x.ndim != 1 or isinstance(x.shape[0], str):
        raise Unsupported(f"{what} of a coefficient array that is not 1-d of a known length")
    if x.shape[0] > MAX_TERMS:
        raise Unsupported(f"{what} of more than {MAX_TERMS} coefficients")
    return int(x.shape[0])


def polyval(graph: Graph, p: object, x: object) -> Any:
    """NumPy's loop: `y = zeros_like(x)`, then `y = y * x + pv` for each coefficient `pv`
    (a NumPy scalar of p's dtype), so dtypes, rounding and warnings are NumPy's."""
    coefficients = as_array(graph, to_value(graph, p, "np.polyval"))
    at = as_array(graph, to_value(graph, x, "np.polyval"))  # np.asanyarray(x)
    y: Any = zeros_like(graph, at)
    for i in range(_terms(coefficients, "np.polyval")):
        y = binary_op(graph, "+", binary_op(graph, "*", y, at),
                      getitem(graph, coefficients, i))
    return y


def convolve(graph: Graph, a: object, v: object, mode: object = "full") -> Value:
    """`np.convolve`: the longer sequence, zero-padded on both sides, times each element of
    the shorter, shifted and summed (NumPy's correlate sums the same products per output,
    in another order); then the part `mode` keeps."""
    if mode not in ("full", "same", "valid"):
        raise Unsupported(f"np.convolve with mode={mode!r}")
    a_value = to_value(graph, a, "np.convolve")
    v_value = to_value(graph, v, "np.convolve")
    if a_value.ndim == 0 or v_value.ndim == 0:  # array(..., ndmin=1)
        raise Unsupported("np.convolve of a scalar")
    if a_value.ndim != 1 or v_value.ndim != 1:
        raise ValueError("object too deep for desired array")
    if a_value.dtype == np.bool_ or v_value.dtype == np.bool_:
        raise Unsupported("np.convolve of booleans")
    if isinstance(a_value.shape[0], str) and isinstance(v_value.shape[0], str):
        raise Unsupported("np.convolve of two arrays of symbolic lengths")
    if isinstance(a_value.shape[0], str) or isinstance(v_value.shape[0], str):
        if isinstance(a_value.shape[0], int):
            a_value, v_value = v_value, a_value
        # The symbolic one is the longer wherever the graph runs (NumPy swaps by length).
        graph.require_size(a_value.shape[0], v_value.shape[0])  # type: ignore[arg-type]
    elif v_value.shape[0] > a_value.shape[0]:
        a_value, v_value = v_value, a_value
    n, m = a_value.shape[0], int(v_value.shape[0])
    if m == 0:
        raise ValueError("a cannot be empty" if n == 0 else "v cannot be empty")
    _terms(v_value, "np.convolve")
    dtype = np.result_type(a_value.dtype, v_value.dtype)
    longer = a_value if a_value.dtype == dtype else graph.op("astype", [a_value], dtype=dtype)
    if m > 1:
        zeros = graph.full((m - 1,), 0, dtype)
        longer = graph.op("concatenate", [zeros, longer, zeros], axis=0)
    total: Any = None
    for j in range(m):
        # `longer[m-1-j : m-1-j + n+m-1]`, its stop counted from the end so that a symbolic
        # length takes it too.
        term = binary_op(graph, "*", getitem(graph, longer, slice(m - 1 - j, -j or None)),
                         getitem(graph, v_value, j))
        total = term if total is None else binary_op(graph, "+", total, term)
    if total.dtype != dtype:
        total = graph.op("astype", [total], dtype=dtype)
    # The n (same) or n-m+1 (valid) outputs from the middle of the n+m-1, bounds as above.
    if mode == "same":
        return getitem(graph, total, slice((m - 1) // 2, -(m - 1 - (m - 1) // 2) or None))
    if mode == "valid":
        return getitem(graph, total, slice(m - 1, -(m - 1) or None))
    return total


def correlate(graph: Graph, a: object, v: object, mode: object = "valid") -> Value:
    """np.correlate of real sequences: the convolution with `v` reversed. Where `v` is the
    longer, NumPy correlates the other way round and reverses the result, so an uneven
    `same` window is cut one element further right."""
    v_value = to_value(graph, v, "np.correlate")
    if v_value.ndim != 1:
        return convolve(graph, a, v_value, mode)
    reversed_v = getitem(graph, v_value, slice(None, None, -1))
    m = v_value.shape[0]
    n = to_value(graph, a, "np.correlate").shape[0] if mode == "same" else 0
    if mode != "same" or (isinstance(n, int) and isinstance(m, int) and m <= n):
        return convolve(graph, a, reversed_v, mode)
    if not isinstance(n, int) or not isinstance(m, int):
        raise Unsupported("np.correlate(mode='same') of a sequence of symbolic length")
    left = (n - 1) - (n - 1) // 2
    return getitem(graph, convolve(graph, a, reversed_v, "full"), slice(left, left + m))


def functions() -> dict[Any, Any]:
    return {np.polyval: polyval, np.convolve: convolve, np.correlate: correlate}
