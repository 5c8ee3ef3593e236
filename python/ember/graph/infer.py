"""Type inference rules: the dtype, shape, weakness and scalar-ness of an op's result.

Result dtypes are asked of NumPy itself (the ufunc or function evaluated on empty stand-ins),
so promotion follows NumPy 2 and NEP 50 exactly, including the errors NumPy raises for dtype
combinations it has no loop for. Shapes are computed here, symbolic dims included.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from ember.errors import Unsupported
from ember.graph.dtypes import WEAK_DTYPES, check_supported, representative
from ember.graph.shapes import (
    Shape,
    Size,
    broadcast_shapes,
    dim_sum,
    format_shape,
    normalize_axes,
    normalize_axis,
    symbolic_mismatch,
    symbolic_slice,
)
from ember.graph.value import Value
from ember.quiet import quiet


class Inferred(NamedTuple):
    dtype: np.dtype
    shape: Shape
    weak: bool = False
    scalar: bool = False


_WEAK_RESULT_DTYPES = frozenset(WEAK_DTYPES.values())

Rule = Callable[[str, Callable[..., Any] | None, Sequence[Value], dict[str, Any]], Inferred]


@functools.lru_cache(maxsize=4096)
def _numpy_dtype(fn: Callable[..., Any], what: str,
                 operands: tuple[tuple[np.dtype, bool], ...]) -> np.dtype:
    args = [representative(dt, weak) for dt, weak in operands]
    with quiet():
        result = fn(*args)
    return check_supported(np.asarray(result).dtype, what)


def numpy_dtype(fn: Callable[..., Any], what: str, inputs: Sequence[Value]) -> np.dtype:
    """The dtype NumPy's `fn` gives for these operands (weak ones as Python scalars)."""
    return _numpy_dtype(fn, what, tuple((v.dtype, v.weak) for v in inputs))


def elementwise(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
                attrs: dict[str, Any]) -> Inferred:
    """Ufuncs: NumPy's loop dtype, broadcast shape; weak only when every operand is weak; a
    0-d result is a NumPy scalar, as ufuncs return."""
    assert fn is not None
    dtype = numpy_dtype(fn, f"np.{fn.__name__}", inputs)
    shape = broadcast_shapes(*(v.shape for v in inputs))
    # Python scalars in, a Python scalar out; unless NumPy's loop gives a dtype no Python
    # scalar has (`np.floor_divide(True, True)` is an int8): then it is a NumPy scalar.
    weak = all(v.weak for v in inputs) and dtype in _WEAK_RESULT_DTYPES
    return Inferred(dtype, shape, weak, scalar=not shape and not weak)


def where(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
          attrs: dict[str, Any]) -> Inferred:
    cond, x, y = inputs
    if cond.dtype != np.bool_:
        raise TypeError(f"where: condition must be bool, got {cond.dtype}")
    dtype = numpy_dtype(np.where, "np.where", inputs)
    return Inferred(dtype, broadcast_shapes(cond.shape, x.shape, y.shape))


def astype(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
           attrs: dict[str, Any]) -> Inferred:
    (x,) = inputs
    return Inferred(attrs["dtype"], x.shape, scalar=x.scalar)


def copy(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
         attrs: dict[str, Any]) -> Inferred:
    (x,) = inputs
    return Inferred(x.dtype, x.shape)


def _reduced_shape(x: Value, axes: tuple[int, ...] | None, keepdims: bool) -> Shape:
    reduced = range(x.ndim) if axes is None else axes
    if keepdims:
        return tuple(1 if i in reduced else d for i, d in enumerate(x.shape))
    return tuple(d for i, d in enumerate(x.shape) if i not in reduced)


_UFUNC_NAMES = {"max": "maximum", "min": "minimum"}  # as NumPy's messages name them


@functools.lru_cache(maxsize=1024)
def _reduction_dtype(fn: Callable[..., Any], name: str, dtype: np.dtype) -> np.dtype:
    with np.errstate(all="ignore"):
        result = fn(np.zeros((1,), dtype))
    return check_supported(np.asarray(result).dtype, f"np.{name}")


def reduction(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
              attrs: dict[str, Any]) -> Inferred:
    """sum prod max min mean any all: NumPy's result dtype (sum of small ints is i64, mean of
    ints f64), the reduced shape; a 0-d result is a NumPy scalar."""
    assert fn is not None
    (x,) = inputs
    axes = normalize_axes(attrs["axis"], x.ndim)
    attrs["axis"] = None if axes is None else list(axes)
    reduced = range(x.ndim) if axes is None else axes
    if name in ("max", "min") and any(x.shape[i] == 0 for i in reduced):
        raise ValueError(
            f"zero-size array to reduction operation {_UFUNC_NAMES[name]} which has no identity"
        )
    dtype = _reduction_dtype(fn, name, x.dtype)
    shape = _reduced_shape(x, axes, attrs["keepdims"])
    return Inferred(dtype, shape, scalar=not shape)


def scan(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
         attrs: dict[str, Any]) -> Inferred:
    """cumsum cumprod along one axis: the dtype NumPy accumulates in (that of sum / prod),
    the input's shape."""
    assert fn is not None
    (x,) = inputs
    attrs["axis"] = normalize_axes(attrs["axis"], x.ndim)[0]  # type: ignore[index]
    return Inferred(_reduction_dtype(fn, name, x.dtype), x.shape)


def sort(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
         attrs: dict[str, Any]) -> Inferred:
    """sort argsort sort_default argsort_default along one axis (NaN last): the input's dtype,
    or int64 positions; the input's shape."""
    (x,) = inputs
    attrs["axis"] = normalize_axes(attrs["axis"], x.ndim)[0]  # type: ignore[index]
    return Inferred(x.dtype if name.startswith("sort") else np.dtype(np.int64), x.shape)


def _gathered_shape(name: str, shape: Shape, indices: Sequence[Value], axis: int) -> Shape:
    """`shape[:axis] + B + shape[axis+k:]` for `k` integer index arrays broadcasting to B."""
    if not indices or axis + len(indices) > len(shape):
        raise ValueError(f"{name}: {len(indices)} index array(s) from axis {axis} of a "
                         f"{len(shape)}-d array")
    if any(v.dtype.kind not in "iu" for v in indices):
        raise IndexError("arrays used as indices must be of integer type")
    b = broadcast_shapes(*(v.shape for v in indices))
    return (*shape[:axis], *b, *shape[axis + len(indices):])


def gather(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
           attrs: dict[str, Any]) -> Inferred:
    """`data[:, ..., i_0, ..., i_k-1, ...]` on the axes from `axis` on: the data's dtype, the
    indexed axes replaced by the index arrays' broadcast shape; 0-d is a NumPy scalar."""
    data, *indices = inputs
    shape = _gathered_shape(name, data.shape, indices, attrs["axis"])
    return Inferred(data.dtype, shape, scalar=not shape)


def scatter_add(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
                attrs: dict[str, Any]) -> Inferred:
    """Zeros of `shape` with `updates` added where `gather` with the same indices reads:
    `updates` has exactly the gathered shape."""
    updates, *indices = inputs
    shape = tuple(attrs["shape"])
    want = _gathered_shape(name, shape, indices, attrs["axis"])
    if tuple(updates.shape) != want:
        raise ValueError(f"scatter_add: updates of shape {format_shape(updates.shape, ',')} "
                         f"where the indexed positions have shape {format_shape(want, ',')}")
    return Inferred(updates.dtype, shape)


def arg_reduction(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
                  attrs: dict[str, Any]) -> Inferred:
    (x,) = inputs
    axes = normalize_axes(attrs["axis"], x.ndim)
    attrs["axis"] = axis = None if axes is None else axes[0]
    reduced = range(x.ndim) if axes is None else axes
    if any(x.shape[i] == 0 for i in reduced) or (axis is None and x.size == 0):
        raise ValueError(f"attempt to get {name} of an empty sequence")
    shape = _reduced_shape(x, axes, attrs["keepdims"])
    return Inferred(np.dtype(np.int64), shape, scalar=not shape)


def reshape(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
            attrs: dict[str, Any]) -> Inferred:
    (x,) = inputs
    shape = tuple(attrs["shape"])
    if Size(shape) != Size(x.shape):
        if x.size is None or Size(shape).static is None:
            raise Unsupported(f"reshape of {format_shape(x.shape)} into {format_shape(shape)}")
        raise ValueError(
            f"cannot reshape array of size {x.size} into shape {format_shape(shape, ',')}"
        )
    return Inferred(x.dtype, shape)


def transpose(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
              attrs: dict[str, Any]) -> Inferred:
    (x,) = inputs
    perm = attrs["perm"]
    if len(perm) != x.ndim:
        raise ValueError("axes don't match array")
    perm = [normalize_axis(a, x.ndim) for a in perm]
    if len(set(perm)) != len(perm):
        raise ValueError("repeated axis in transpose")
    attrs["perm"] = perm
    return Inferred(x.dtype, tuple(x.shape[a] for a in perm))


def broadcast_to(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
                 attrs: dict[str, Any]) -> Inferred:
    (x,) = inputs
    shape = tuple(attrs["shape"])
    if len(shape) < x.ndim:
        raise ValueError("input operand has more dimensions than allowed by the axis remapping")
    ok = all(
        d == 1 or d == t for d, t in zip(x.shape, shape[len(shape) - x.ndim:], strict=True)
    )
    if not ok:
        raise ValueError(
            "operands could not be broadcast together with remapped shapes [original->remapped]: "
            f"{format_shape(x.shape, ',')}  and requested shape {format_shape(shape, ',')}"
        )
    return Inferred(x.dtype, shape)


def expand_dims(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
                attrs: dict[str, Any]) -> Inferred:
    (x,) = inputs
    ndim = x.ndim + len(attrs["axis"])
    axes = normalize_axes(attrs["axis"], ndim)
    assert axes is not None
    attrs["axis"] = list(axes)
    rest = iter(x.shape)
    return Inferred(x.dtype, tuple(1 if i in axes else next(rest) for i in range(ndim)))


def squeeze(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
            attrs: dict[str, Any]) -> Inferred:
    (x,) = inputs
    axes = normalize_axes(attrs["axis"], x.ndim)
    assert axes is not None
    if any(x.shape[a] != 1 for a in axes):
        raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    attrs["axis"] = list(axes)
    return Inferred(x.dtype, tuple(d for i, d in enumerate(x.shape) if i not in axes))


def slice_(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
           attrs: dict[str, Any]) -> Inferred:
    (x,) = inputs
    start, stop, step = attrs["start"], attrs["stop"], attrs["step"]
    if not len(start) == len(stop) == len(step) == x.ndim:
        raise ValueError(f"slice: one start/stop/step per axis needed, array has {x.ndim}")
    shape: list[int] = []
    for d, a, b, s in zip(x.shape, start, stop, step, strict=True):
        if isinstance(d, str):
            # Bounds from the front or counted from the end (`shapes.python_slice`); the core
            # resolves them once the size is known.
            length = symbolic_slice(d, a, b, s)
            if length is None:
                raise Unsupported(f"slicing symbolic dimension {d!r} by {a}:{b}:{s}")
            shape.append(length)
            continue
        if s == 0 or (a, b, s) != slice(a, b if b >= 0 else None, s).indices(d):
            raise ValueError(f"slice: ({a}, {b}, {s}) is not normalised for size {d}")
        shape.append(len(range(a, b, s)))
    return Inferred(x.dtype, tuple(shape))


def flip(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
         attrs: dict[str, Any]) -> Inferred:
    (x,) = inputs
    axes = normalize_axes(attrs["axis"], x.ndim)
    assert axes is not None
    attrs["axis"] = list(axes)
    return Inferred(x.dtype, x.shape)


def _concatenate(*arrays: np.ndarray) -> np.ndarray:
    return np.concatenate(arrays)


def concatenate(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
                attrs: dict[str, Any]) -> Inferred:
    first = inputs[0]
    if first.ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = normalize_axes(attrs["axis"], first.ndim)[0]  # type: ignore[index]
    attrs["axis"] = axis
    for i, v in enumerate(inputs):
        if v.ndim != first.ndim:
            raise ValueError(
                "all the input arrays must have same number of dimensions, but the array at "
                f"index 0 has {first.ndim} dimension(s) and the array at index {i} has "
                f"{v.ndim} dimension(s)"
            )
        for d in range(first.ndim):
            if d != axis and v.shape[d] != first.shape[d]:
                if isinstance(v.shape[d], str) or isinstance(first.shape[d], str):
                    # NumPy's message names the sizes: decided again on static shapes.
                    raise Unsupported(f"concatenating symbolic dimension {first.shape[d]!r} "
                                      f"with {v.shape[d]!r}")
                raise ValueError(
                    "all the input array dimensions except for the concatenation axis must match "
                    f"exactly, but along dimension {d}, the array at index 0 has size "
                    f"{first.shape[d]} and the array at index {i} has size {v.shape[d]}"
                )
    dtype = _numpy_dtype(_concatenate, "np.concatenate", tuple((v.dtype, False) for v in inputs))
    shape = list(first.shape)
    # The sum of the operands' sizes in normal form (`[x[1:], zeros(1)]` is `s0`, `[x, x]`
    # is `2*s0`).
    shape[axis] = dim_sum(v.shape[axis] for v in inputs)
    return Inferred(dtype, tuple(shape))


_SIGNATURE = "(n?,k),(k,m?)->(n?,m?)"


def _matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.matmul(a.reshape(0, 0), b.reshape(0, 0))


def matmul(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
           attrs: dict[str, Any]) -> Inferred:
    """np.matmul: 1-D operands promoted to matrices and the added axis removed again."""
    x, y = inputs
    for i, v in enumerate(inputs):
        if v.ndim == 0:
            raise ValueError(
                f"matmul: Input operand {i} does not have enough dimensions (has 0, gufunc core "
                f"with signature {_SIGNATURE} requires 1)"
            )
    xs = (1, *x.shape) if x.ndim == 1 else x.shape
    ys = (*y.shape, 1) if y.ndim == 1 else y.shape
    if xs[-1] != ys[-2]:
        if isinstance(xs[-1], str) or isinstance(ys[-2], str):
            raise symbolic_mismatch(f"matmul of symbolic core dimensions {xs[-1]!r} and "
                                    f"{ys[-2]!r}", xs[-1], ys[-2])
        raise ValueError(
            f"matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
            f"signature {_SIGNATURE} (size {ys[-2]} is different from {xs[-1]})"
        )
    batch = broadcast_shapes(xs[:-2], ys[:-2])
    shape = batch + ((xs[-2],) if x.ndim > 1 else ()) + ((ys[-1],) if y.ndim > 1 else ())
    dtype = numpy_dtype(_matmul, "np.matmul", inputs)
    return Inferred(dtype, shape, scalar=not shape)


def linalg(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
           attrs: dict[str, Any]) -> Inferred:
    """The np.linalg ops: f64 stacks of square matrices (`solve`'s right-hand sides `(..., m,
    k)`, batch broadcast); `det` of one matrix is a NumPy scalar, as NumPy's gufunc gives."""
    a = inputs[0]
    if any(v.dtype != np.float64 for v in inputs):
        raise TypeError(f"{name} takes float64 operands")
    if name != "lstsq" and not name.startswith("svd") and (
            a.ndim < 2 or a.shape[-1] != a.shape[-2]):
        raise ValueError(f"{name}: the last 2 dimensions of {format_shape(a.shape, ',')} "
                         "must be square")
    if name == "lstsq":
        return _lstsq(inputs)
    if name.startswith("svd"):
        return _svd(name, a)
    batch, m = a.shape[:-2], a.shape[-1]
    if name == "solve":
        b = inputs[1]
        if b.ndim < 2 or b.shape[-2] != m:
            raise ValueError(f"solve: right-hand sides {format_shape(b.shape, ',')} do not "
                             f"match the matrices {format_shape(a.shape, ',')}")
        shape = broadcast_shapes(batch, b.shape[:-2]) + b.shape[-2:]
    else:
        core = {"det": (), "slogdet": (2,), "eigvalsh": (m,), "eigvalsh_upper": (m,)}
        if name.startswith("eigh"):
            if isinstance(m, str):
                raise Unsupported(f"{name} of symbolic size {m!r}")
            core[name] = (m + 1, m)  # the values, then the vectors: one row more
        shape = batch + core.get(name, (m, m))
    return Inferred(np.dtype(np.float64), shape, scalar=not shape)


def svd_parts(name: str, m: int, n: int) -> tuple[int, int, int]:
    """The sizes of `u`, `s` and `vh` in the last axis of an `svd` op of `(m, n)` matrices."""
    k = min(m, n)
    return {"svd": (m * m, k, n * n), "svd_reduced": (m * k, k, k * n)}.get(name, (0, k, 0))


def _svd(name: str, a: Value) -> Inferred:
    if a.ndim < 2 or any(isinstance(d, str) for d in a.shape[-2:]):
        raise ValueError(f"{name} of {format_shape(a.shape, ',')}")
    m, n = a.shape[-2:]
    return Inferred(np.dtype(np.float64), (*a.shape[:-2], sum(svd_parts(name, m, n))))


def _lstsq(inputs: Sequence[Value]) -> Inferred:
    """`lstsq(a, b, rcond)` of static sizes: the solution, residuals and singular values
    flattened into one vector."""
    a, b, rcond = inputs
    sizes = (*a.shape, *b.shape)
    if (a.ndim, b.ndim, rcond.ndim) != (2, 2, 0) or a.shape[0] != b.shape[0] or any(
            isinstance(d, str) for d in sizes):
        raise ValueError(f"lstsq of {format_shape(a.shape, ',')} and "
                         f"{format_shape(b.shape, ',')}")
    (m, n), k = a.shape, b.shape[1]
    return Inferred(np.dtype(np.float64), (n * k + k + min(m, n),))


def const(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
          attrs: dict[str, Any]) -> Inferred:
    """A NumPy scalar of the given dtype, or without one the Python scalar `value` (weak)."""
    dtype = attrs.pop("dtype", None)
    if dtype is None:
        return Inferred(WEAK_DTYPES[type(attrs["value"])], (), weak=True)
    return Inferred(dtype, (), scalar=True)


def creation(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
             attrs: dict[str, Any]) -> Inferred:
    """full, arange, eye: the result's shape and dtype are given (they are its IR type)."""
    shape = tuple(attrs.pop("shape"))
    dtype = attrs.pop("dtype")
    if any(isinstance(d, int) and d < 0 for d in shape):
        raise ValueError("negative dimensions are not allowed")
    if (name == "arange" and len(shape) != 1) or (name == "eye" and len(shape) != 2):
        raise ValueError(f"{name}: wrong number of dimensions {format_shape(shape)}")
    return Inferred(dtype, shape)
