"""Building matrices: `np.diag` of a vector (`linalg.diag` hands it here), `np.meshgrid`,
`np.column_stack`, `np.select`, `np.kron`, `np.vander`, each as NumPy's own definition in
graph ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.shapes import dim_product
from ember.numpy_api.convert import as_array, static_int, to_value
from ember.numpy_api.shape_ops import _arrays, array_arg, concatenate, reshape_value


def _static_dims(x: Value, what: str) -> tuple[int, ...]:
    if any(isinstance(d, str) for d in x.shape):
        raise Unsupported(f"{what} of an array with symbolic dimensions")
    return tuple(int(d) for d in x.shape)


def diag_of_vector(graph: Graph, x: Value, k: object = 0) -> Value:
    """`np.diag` of a vector: a square matrix of zeros with `x` on diagonal `k`, each element
    placed by `where` (never multiplied, so NaN and -0.0 are kept as NumPy stores them)."""
    (n,) = _static_dims(x, "np.diag")
    offset = static_int(k, "np.diag")
    size = n + abs(offset)
    if abs(offset):
        x = graph.op("concatenate", [x, graph.full((abs(offset),), 0, x.dtype)], axis=0)
    # Row i holds v[i] at column i + k (k >= 0); column j holds v[j] at row j - k (k < 0).
    spread = graph.op("reshape", [x], shape=[size, 1] if offset >= 0 else [1, size])
    on_diagonal = graph.op("eye", [], k=offset, shape=(size, size), dtype=np.dtype(np.bool_))
    return graph.op("where", [on_diagonal, spread, graph.const(x.dtype.type(0))])


def meshgrid(graph: Graph, *xi: object, copy: object = True, sparse: object = False,
             indexing: object = "xy") -> tuple[Value, ...]:
    """Each vector broadcast along the others' axes (the first two swapped for 'xy'), as
    fresh arrays."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    if sparse or not copy:
        raise Unsupported("np.meshgrid with sparse=True or copy=False (views)")
    vectors = [reshape_value(graph, as_array(graph, to_value(graph, x, "np.meshgrid")), (-1,))
               for x in xi]
    shape = [v.shape[0] for v in vectors]
    if indexing == "xy" and len(vectors) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    grids = []
    for i, v in enumerate(vectors):
        axis = (1 - i if i < 2 else i) if indexing == "xy" and len(vectors) > 1 else i
        spread = [1] * len(vectors)
        spread[axis] = v.shape[0]
        along = graph.op("reshape", [v], shape=spread)
        grid = graph.op("copy", [graph.op("broadcast_to", [along], shape=shape)])
        graph.layouts[grid.id] = "c"  # NumPy copies each broadcast view in C order
        grids.append(grid)
    return tuple(grids)


def column_stack(graph: Graph, tup: object) -> Value:
    """Vectors as columns (`v[:, None]`), matrices as they are, joined along axis 1."""
    columns = []
    for v in _arrays(graph, tup, "np.column_stack"):
        v = as_array(graph, v)
        if v.ndim < 2:
            v = reshape_value(graph, v, (-1, 1))
        columns.append(v)
    return concatenate(graph, columns, 1)


def select(graph: Graph, condlist: object, choicelist: object, default: object = 0) -> Value:
    """NumPy's loop from the last condition to the first, each choice written where its
    condition holds over the default: a chain of `where`, in the choices' common dtype."""
    if not isinstance(condlist, (list, tuple)) or not isinstance(choicelist, (list, tuple)):
        raise Unsupported("np.select of other than lists of conditions and choices")
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if not condlist:
        raise ValueError("select with an empty condition list is not possible")
    conditions = [to_value(graph, c, "np.select") for c in condlist]
    for i, c in enumerate(conditions):
        if c.dtype != np.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    choices = [to_value(graph, c, "np.select") for c in [*choicelist, default]]
    dtype = np.result_type(*[_stand_in(c) for c in choices])
    result = choices[-1]
    for cond, choice in zip(reversed(conditions), reversed(choices[:-1]), strict=True):
        result = graph.op("where", [cond, choice, result])
    if result.dtype != dtype or result.weak:
        result = graph.op("astype", [result], dtype=dtype, weak=False)
    if result.ndim == 0 or result.scalar:
        result = as_array(graph, result)
    return result


def kron(graph: Graph, a: object, b: object) -> Any:
    """np.kron: both operands given the same rank (ones prepended), their axes interleaved
    (`a`'s outer, `b`'s inner), multiplied by broadcasting and reshaped."""
    from ember.numpy_api.elementwise import apply

    if not isinstance(a, Value) and not isinstance(b, Value):
        return np.kron(a, b)  # type: ignore[arg-type]
    x, y = (array_arg(graph, v, "np.kron") for v in (a, b))
    if x.ndim == 0 or y.ndim == 0:
        return apply(graph, "mul", [x, y], operator=False)
    nd = max(x.ndim, y.ndim)
    xs = (1,) * (nd - x.ndim) + x.shape
    ys = (1,) * (nd - y.ndim) + y.shape
    outer = graph.op("expand_dims", [reshape_value(graph, x, xs)], axis=list(range(1, 2 * nd, 2)))
    inner = graph.op("expand_dims", [reshape_value(graph, y, ys)], axis=list(range(0, 2 * nd, 2)))
    product = apply(graph, "mul", [outer, inner], operator=False)
    return reshape_value(graph, product,
                         tuple(dim_product((i, j)) for i, j in zip(xs, ys, strict=True)))


def _stand_in(v: Value) -> object:
    """What np.result_type sees of a choice: a Python scalar stays one (NEP 50's weak
    promotion), an array its dtype."""
    if v.weak:
        return v.dtype.type(0).item()
    return v.dtype


def vander(graph: Graph, x: object, N: object = None, increasing: object = False) -> Value:
    """np.vander: columns of ones and the running products of `x` (NumPy's
    `multiply.accumulate`), in the dtype `x`'s promotes with int to, the highest power first
    unless `increasing`."""
    v = to_value(graph, x, "np.vander")
    if v.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    (n,) = _static_dims(v, "np.vander")
    columns = n if N is None else static_int(N, "np.vander")
    dtype = np.promote_types(v.dtype, int)
    if columns <= 0:
        if columns < 0:
            raise ValueError("negative dimensions are not allowed")
        return graph.full((n, 0), 0, dtype)
    v = v if v.dtype == dtype else graph.op("astype", [v], dtype=dtype, weak=False)
    parts = [graph.full((n, 1), 1, dtype)]
    if columns > 1:
        repeated = graph.op("broadcast_to", [graph.op("expand_dims", [v], axis=[1])],
                            shape=(n, columns - 1))
        parts.append(graph.op("cumprod", [repeated], axis=1))
    table = concatenate(graph, parts, axis=1) if len(parts) > 1 else parts[0]
    # A new array, as NumPy's: callers update it in place (np.polyfit scales its columns).
    return table if increasing else graph.op("copy", [graph.op("flip", [table], axis=[1])])


def functions() -> dict[Any, Any]:
    return {np.meshgrid: meshgrid, np.column_stack: column_stack, np.select: select,
            np.kron: kron, np.vander: vander}

