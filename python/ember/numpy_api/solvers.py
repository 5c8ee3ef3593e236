"""np.linalg's solvers and factorisations as graph ops computed by NumPy's own LAPACK:
np.linalg.solve, inv, det, slogdet, cholesky, eigh, eigvalsh, lstsq and svd; pinv and
matrix_rank written as NumPy writes them, around svd.

Each is written as `numpy/linalg/_linalg.py` writes it: the operands checked as stacks of
square matrices, cast to float64 (NumPy's `signature='dd->d'`: every real dtype is solved in
double), the op, and the result cast back to float32 where every operand was float32. A
singular matrix (or one that is not positive definite) makes the compiled graph raise, and
the frame runs again as Python for NumPy's own `LinAlgError`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.shapes import symbolic_mismatch
from ember.numpy_api.convert import to_value
from ember.numpy_api.indexing import getitem
from ember.numpy_api.shape_ops import array_arg, reshape_value

_SOLVE1 = "(m,m),(m)->(m)"
_SOLVE = "(m,m),(m,n)->(m,n)"


def _operand(graph: Graph, a: object, what: str) -> Value:
    """An operand as `np.asarray` makes it, rejected as `_commonType` rejects it."""
    x = array_arg(graph, a, what)
    if x.dtype.kind == "f" and x.dtype not in (np.float32, np.float64):
        raise TypeError(f"array type {x.dtype.name} is unsupported in linalg")
    return x


def _square(graph: Graph, a: object, what: str) -> Value:
    """`_assert_stacked_square`: at least 2-D, the last two dimensions equal."""
    x = _operand(graph, a, what)
    if x.ndim < 2:
        raise np.linalg.LinAlgError(
            f"{x.ndim}-dimensional array given. Array must be at least two-dimensional")
    if x.shape[-1] != x.shape[-2]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")
    return x


def _double(graph: Graph, x: Value) -> Value:
    return x if x.dtype == np.float64 else graph.op("astype", [x], dtype=np.float64)


def _result(graph: Graph, r: Value, *operands: Value) -> Value:
    """`r.astype(result_t, copy=False)`: float32 when every operand is float32."""
    if all(x.dtype == np.float32 for x in operands):
        return graph.op("astype", [r], dtype=np.float32)
    return r


def _core_mismatch(name: str, signature: str, got: object, want: object) -> Exception:
    """NumPy's error; for a symbolic dim, a refusal (sizes equal at capture need not be
    the same symbol: an int argument given as a size beside an array's length)."""
    if isinstance(got, str) or isinstance(want, str):
        return symbolic_mismatch(f"{name} of symbolic core dimensions {got!r} and {want!r}",
                                 got, want)
    return ValueError(f"{name}: Input operand 1 has a mismatch in its core dimension 0, with "
                      f"gufunc signature {signature} (size {got} is different from {want})")


def solve(graph: Graph, a: object, b: object) -> Value:
    """np.linalg.solve: `b` of one dimension is one right-hand side (NumPy's `solve1`), else
    a stack of `(m, n)` matrices whose batch broadcasts with `a`'s."""
    x = _square(graph, a, "np.linalg.solve")
    y = _operand(graph, b, "np.linalg.solve")
    m = x.shape[-1]
    if y.ndim == 1:
        if y.shape[0] != m:
            raise _core_mismatch("solve1", _SOLVE1, y.shape[0], m)
        column = graph.op("expand_dims", [_double(graph, y)], axis=[1])
        r = graph.op("solve", [_double(graph, x), column])
        r = graph.op("squeeze", [r], axis=[r.ndim - 1])
    else:
        if y.ndim < 2:
            raise ValueError(f"solve: Input operand 1 does not have enough dimensions (has "
                             f"{y.ndim}, gufunc core with signature {_SOLVE} requires 2)")
        if y.shape[-2] != m:
            raise _core_mismatch("solve", _SOLVE, y.shape[-2], m)
        r = graph.op("solve", [_double(graph, x), _double(graph, y)])
    return _result(graph, r, x, y)


def _of_square(graph: Graph, op: str, a: object, what: str) -> Value:
    x = _square(graph, a, what)
    return _result(graph, graph.op(op, [_double(graph, x)]), x)


def inv(graph: Graph, a: object) -> Value:
    return _of_square(graph, "inv", a, "np.linalg.inv")


def det(graph: Graph, a: object) -> Value:
    return _of_square(graph, "det", a, "np.linalg.det")


def cholesky(graph: Graph, a: object, /, *, upper: object = False) -> Value:
    """np.linalg.cholesky: the lower factor, or with `upper=True` the upper one."""
    if isinstance(upper, Value):
        raise Unsupported("np.linalg.cholesky with a computed upper=")
    op = "cholesky_upper" if upper else "cholesky"
    return _of_square(graph, op, a, "np.linalg.cholesky")


def slogdet(graph: Graph, a: object) -> Any:
    """np.linalg.slogdet: `SlogdetResult(sign, logabsdet)`, NumPy scalars for one matrix."""
    x = _square(graph, a, "np.linalg.slogdet")
    both = graph.op("slogdet", [_double(graph, x)])
    return np.linalg._linalg.SlogdetResult(*(_result(graph, _part(graph, both, i), x)
                                              for i in (0, 1)))


def _part(graph: Graph, both: Value, i: int) -> Value:
    """Sign (0) or log (1) from the op's last axis: a NumPy scalar for one matrix (`both[0]`:
    `both[..., 0]` would be a 0-d array), else an array of its own, as NumPy's gufunc gives
    each output (a view would share memory with the other)."""
    if both.ndim == 1:
        return getitem(graph, both, i)
    return graph.op("copy", [getitem(graph, both, (..., i))])


def _uplo(UPLO: object, what: str) -> str:
    if not isinstance(UPLO, str):
        raise Unsupported(f"{what} with a computed UPLO=")
    uplo = UPLO.upper()
    if uplo not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return "" if uplo == "L" else "_upper"


def eigh(graph: Graph, a: object, UPLO: object = "L") -> Any:
    """np.linalg.eigh: `EighResult(eigenvalues, eigenvectors)`, from one op whose rows are
    the values, then the vectors (each sliced into an array of its own)."""
    op = "eigh" + _uplo(UPLO, "np.linalg.eigh")
    x = _square(graph, a, "np.linalg.eigh")
    both = graph.op(op, [_double(graph, x)])
    m = x.shape[-1]
    values = getitem(graph, both, (..., 0, slice(None)))
    vectors = getitem(graph, both, (..., slice(1, m + 1), slice(None)))
    return np.linalg._linalg.EighResult(
        *(_result(graph, graph.op("copy", [v]), x) for v in (values, vectors)))


def eigvalsh(graph: Graph, a: object, UPLO: object = "L") -> Value:
    return _of_square(graph, "eigvalsh" + _uplo(UPLO, "np.linalg.eigvalsh"), a,
                      "np.linalg.eigvalsh")


def lstsq(graph: Graph, a: object, b: object, rcond: object = None) -> Any:
    """np.linalg.lstsq of one matrix of full rank: `(x, residuals, rank, s)`, the rank the
    constant `min(m, n)`. A matrix below full rank makes the compiled graph fail, and the
    frame runs as Python for NumPy's result, whose residuals then have another shape."""
    what = "np.linalg.lstsq"
    x, y = _operand(graph, a, what), _operand(graph, b, what)
    vector = y.ndim == 1
    if vector:
        y = graph.op("expand_dims", [y], axis=[1])
    for v in (x, y):
        if v.ndim != 2:
            raise np.linalg.LinAlgError(
                f"{v.ndim}-dimensional array given. Array must be two-dimensional")
    (m, n), (m2, k) = x.shape, y.shape
    if any(isinstance(d, str) for d in (m, n, m2, k)):
        raise Unsupported(f"{what} of symbolic dimensions")
    if m != m2:
        raise np.linalg.LinAlgError("Incompatible dimensions")
    if 0 in (m, n, k):
        raise Unsupported(f"{what} of an empty matrix")
    if rcond is None:
        rcond = float(np.finfo(np.float64).eps) * max(n, m)
    r = to_value(graph, rcond, what)
    if r.ndim != 0:
        raise Unsupported(f"{what} with an array rcond")
    packed = graph.op("lstsq", [_double(graph, x), _double(graph, y), _double(graph, r)])

    def part(start: int, stop: int) -> Value:
        return graph.op("copy", [getitem(graph, packed, slice(start, stop))])

    solution = reshape_value(graph, part(0, n * k), (n,) if vector else (n, k))
    if m > n:
        residuals = part(n * k, n * k + k)
    else:
        residuals = graph.full((0,), 0.0, np.float64)
    singular = part(n * k + k, n * k + k + min(m, n))
    return (_result(graph, solution, x, y), _result(graph, residuals, x, y),
            np.int32(min(m, n)), _result(graph, singular, x, y))


def svd(graph: Graph, a: object, full_matrices: object = True, compute_uv: object = True,
        hermitian: object = False) -> Any:
    """np.linalg.svd: `SVDResult(U, S, Vh)` (or the singular values alone), from one op whose
    last axis holds `u`, `s` and `vh` one after the other (each copied out on its own)."""
    from ember.graph.infer import svd_parts

    what = "np.linalg.svd"
    if any(isinstance(flag, Value) for flag in (full_matrices, compute_uv, hermitian)):
        raise Unsupported(f"{what} with computed flags")
    if hermitian:
        raise Unsupported(f"{what} with hermitian=True")
    x = _operand(graph, a, what)
    if x.ndim < 2:
        raise np.linalg.LinAlgError(
            f"{x.ndim}-dimensional array given. Array must be at least two-dimensional")
    m, n = x.shape[-2:]
    if isinstance(m, str) or isinstance(n, str):
        raise Unsupported(f"{what} of symbolic dimensions")
    if 0 in (m, n):
        raise Unsupported(f"{what} of an empty matrix")
    op = "svdvals" if not compute_uv else "svd" if full_matrices else "svd_reduced"
    packed = graph.op(op, [_double(graph, x)])
    sizes = svd_parts(op, m, n)
    if not compute_uv:
        return _result(graph, packed, x)
    k, batch = min(m, n), x.shape[:-2]
    shapes = ((*batch, m, sizes[0] // m), (*batch, k), (*batch, sizes[2] // n, n))
    parts, start = [], 0
    for size, shape in zip(sizes, shapes, strict=True):
        part = getitem(graph, packed, (..., slice(start, start + size)))
        parts.append(_result(graph, reshape_value(graph, graph.op("copy", [part]), shape), x))
        start += size
    return np.linalg._linalg.SVDResult(*parts)


def _swap_last(graph: Graph, x: Value) -> Value:
    perm = [*range(x.ndim - 2), x.ndim - 1, x.ndim - 2]
    return graph.op("transpose", [x], perm=perm)


def _tolerance(graph: Graph, value: object, what: str) -> Value:
    """`asarray(value)[..., newaxis]` of a number: a strong 0-d float64 (broadcast alike)."""
    if isinstance(value, Value) or not isinstance(value, (int, float, np.number)):
        raise Unsupported(f"{what} with a computed or array tolerance")
    return graph.const(np.float64(value))


def pinv(graph: Graph, a: object, rcond: object = None, hermitian: object = False, *,
         rtol: object = np._NoValue) -> Value:  # type: ignore[attr-defined]
    """np.linalg.pinv: `vt.T @ (s_inv[..., None] * u.T)` from the reduced svd, `s_inv` the
    reciprocals of the singular values above `rcond` times the largest, else 0."""
    what = "np.linalg.pinv"
    if hermitian is not False:
        raise Unsupported(f"{what} with hermitian=")
    x = _operand(graph, a, what)
    if rcond is None:
        if rtol is np._NoValue:  # type: ignore[attr-defined]
            rcond = 1e-15
        elif rtol is None:
            if x.ndim < 2 or not all(isinstance(d, int) for d in x.shape[-2:]):
                raise Unsupported(f"{what} of this shape with rtol=None")
            rcond = max(x.shape[-2:]) * float(np.finfo(x.dtype).eps)
        else:
            rcond = rtol
    elif rtol is not np._NoValue:  # type: ignore[attr-defined]
        raise ValueError("`rtol` and `rcond` can't be both set.")
    cut = _tolerance(graph, rcond, what)
    u, s, vt = svd(graph, x, full_matrices=False)
    largest = graph.op("max", [s], axis=[s.ndim - 1], keepdims=True)
    large = graph.op("gt", [s, graph.op("mul", [cut, largest])])
    # 1 / s only where it is kept: a zero singular value divides nothing.
    safe = graph.op("where", [large, s, graph.const(1)])
    s_inv = graph.op("where", [large, graph.op("div", [graph.const(1), safe]), graph.const(0)])
    scaled = graph.op("mul", [graph.op("expand_dims", [s_inv], axis=[s_inv.ndim]),
                              _swap_last(graph, u)])
    return graph.op("matmul", [_swap_last(graph, vt), scaled])


def matrix_rank(graph: Graph, A: object, tol: object = None, hermitian: object = False, *,
                rtol: object = None) -> Value:
    """np.linalg.matrix_rank of a stack of matrices: the singular values above the
    tolerance, counted."""
    from ember.numpy_api.counting import nonzero_count

    what = "np.linalg.matrix_rank"
    if rtol is not None and tol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    if hermitian is not False:
        raise Unsupported(f"{what} with hermitian=")
    x = _operand(graph, A, what)
    if x.ndim < 2:
        raise Unsupported(f"{what} of fewer than 2 dimensions (a Python int of the data)")
    s = svd(graph, x, compute_uv=False)
    if tol is None:
        largest = graph.op("max", [s], axis=[s.ndim - 1], keepdims=True)
        if rtol is None:
            if not all(isinstance(d, int) for d in x.shape[-2:]):
                raise Unsupported(f"{what} of symbolic dimensions")
            factor = graph.const(max(x.shape[-2:]) * float(np.finfo(s.dtype).eps))
        else:
            factor = _tolerance(graph, rtol, what)
        bound = graph.op("mul", [largest, factor])
    else:
        bound = _tolerance(graph, tol, what)
    return nonzero_count(graph, graph.op("gt", [s, bound]), axis=-1)


def functions() -> dict[Any, Any]:
    return {np.linalg.solve: solve, np.linalg.inv: inv, np.linalg.det: det,
            np.linalg.slogdet: slogdet, np.linalg.cholesky: cholesky, np.linalg.eigh: eigh,
            np.linalg.eigvalsh: eigvalsh, np.linalg.lstsq: lstsq, np.linalg.svd: svd,
            np.linalg.pinv: pinv, np.linalg.matrix_rank: matrix_rank}
