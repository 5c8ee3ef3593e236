"""scipy.linalg's Cholesky family for 2-d float matrices, from NumPy's routines: `cholesky`
(upper by default, as scipy's), `cho_factor` (the factor with the other triangle left as the
argument's, as LAPACK's in-place factorisation leaves it), `cho_solve` and `solve_triangular`
(`np.linalg.solve` of the matrix's triangle; `trans=1` the transpose's). They take effect once
the program has imported `scipy.linalg`; the values are scipy's within rounding, and
`check_finite` reruns the frame as plain Python where an argument holds inf or nan, so scipy
raises its own ValueError."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.numpy_api.convert import rerun_unless, to_value
from ember.numpy_api.creation import tril, triu
from ember.numpy_api.solvers import cholesky as np_cholesky
from ember.numpy_api.solvers import solve


def _matrix(graph: Graph, a: object, what: str, square: bool = True) -> Value:
    x = to_value(graph, a, what)
    if x.dtype.kind in "biu":
        x = graph.op("astype", [x], dtype=np.dtype(np.float64), weak=False)
    if x.dtype.kind != "f" or (square and (x.ndim != 2 or x.shape[0] != x.shape[1])) or \
            any(isinstance(d, str) or d == 0 for d in x.shape):
        raise Unsupported(f"{what} of other than a non-empty float matrix")
    return x


def _flag(value: object, what: str) -> bool:
    if isinstance(value, Value):
        raise Unsupported(f"{what} with a computed flag")
    return bool(value)


def _finite(graph: Graph, check: object, *values: Value) -> None:
    if _flag(check, "check_finite="):
        for v in values:
            rerun_unless(graph, graph.op("all", [graph.op("isfinite", [v])], axis=None,
                                         keepdims=False))


def cholesky(graph: Graph, a: object, lower: object = False, overwrite_a: object = False,
             check_finite: object = True) -> Value:
    x = _matrix(graph, a, "scipy.linalg.cholesky")
    _finite(graph, check_finite, x)
    return np_cholesky(graph, x, upper=not _flag(lower, "scipy.linalg.cholesky"))


def cho_factor(graph: Graph, a: object, lower: object = False, overwrite_a: object = False,
               check_finite: object = True) -> Any:
    x = _matrix(graph, a, "scipy.linalg.cho_factor")
    _finite(graph, check_finite, x)
    low = _flag(lower, "scipy.linalg.cho_factor")
    factor = np_cholesky(graph, x, upper=not low)
    rest = triu(graph, x, 1) if low else tril(graph, x, -1)
    return graph.op("add", [factor, rest]), low


def solve_triangular(graph: Graph, a: object, b: object, trans: object = 0,
                     lower: object = False, unit_diagonal: object = False,
                     overwrite_b: object = False, check_finite: object = True) -> Value:
    what = "scipy.linalg.solve_triangular"
    x = _matrix(graph, a, what)
    y = _matrix(graph, b, what, square=False)
    if y.ndim not in (1, 2) or y.shape[0] != x.shape[0]:
        raise Unsupported(f"{what} of a right-hand side of shape {y.shape}")
    if trans not in (0, 1, "N", "T"):
        raise Unsupported(f"{what} with trans={trans!r}")
    _finite(graph, check_finite, x, y)
    low = _flag(lower, what)
    part = tril(graph, x) if low else triu(graph, x)
    if _flag(unit_diagonal, what):
        eye = graph.eye(x.shape[0], x.shape[0], 0, x.dtype)
        part = graph.op("add", [graph.op("where", [graph.op("astype", [eye], dtype=np.bool_),
                                                   graph.full((1, 1), 0, x.dtype), part]),
                                eye])
    if trans in (1, "T"):
        part = graph.op("transpose", [part], perm=[1, 0])
    result = solve(graph, part, y)
    if x.dtype == np.float32 and y.dtype == np.float32:
        return result
    return result if result.dtype == np.float64 else graph.op(
        "astype", [result], dtype=np.dtype(np.float64), weak=False)


def cho_solve(graph: Graph, c_and_lower: object, b: object, overwrite_b: object = False,
              check_finite: object = True) -> Value:
    what = "scipy.linalg.cho_solve"
    if not isinstance(c_and_lower, tuple) or len(c_and_lower) != 2:
        raise Unsupported(f"{what} of other than a (factor, lower) pair")
    c, lower = c_and_lower
    low = _flag(lower, what)
    first = solve_triangular(graph, c, b, trans=0 if low else 1, lower=low,
                             check_finite=check_finite)
    return solve_triangular(graph, c, first, trans=1 if low else 0, lower=low,
                            check_finite=check_finite)


_NAMES = {"cholesky": cholesky, "cho_factor": cho_factor, "cho_solve": cho_solve,
          "solve_triangular": solve_triangular}


def functions(module: Any) -> dict[Any, Any]:
    return {getattr(module, name): handler for name, handler in _NAMES.items()
            if hasattr(module, name)}
