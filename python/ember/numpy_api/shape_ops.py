"""Functions that rearrange arrays: reshape, transpose, axes, joining, broadcasting, casts."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.shapes import Size, format_shape, normalize_axes, normalize_axis
from ember.numpy_api.convert import (
    as_array,
    axis_arg,
    dtype_arg,
    shape_arg,
    static_int,
    to_value,
)


def array_arg(graph: Graph, a: object, what: str) -> Value:
    """The array argument; a Python scalar becomes the 0-d array np.asarray makes of it."""
    if isinstance(a, (bool, int, float)) and not isinstance(a, np.generic):
        return graph.op("const", [], value=a, dtype=np.asarray(a).dtype, scalar=False)
    if not isinstance(a, Value):
        return to_value(graph, a, what)
    return a


def resolve_shape(x: Value, shape: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """A reshape target with its one negative (unknown) dimension computed, as NumPy does."""
    unknown = [i for i, d in enumerate(shape) if isinstance(d, int) and d < 0]
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension")
    if not unknown:
        return shape
    known = Size(d for i, d in enumerate(shape) if i != unknown[0])
    dim = Size(x.shape).divide(known)
    if dim is None:
        if x.size is None or known.static is None:
            raise Unsupported(f"reshape of {format_shape(x.shape)} into {format_shape(shape)}")
        # NumPy's message spells the unknown dimension "newaxis".
        requested = tuple("newaxis" if i == unknown[0] else d for i, d in enumerate(shape))
        raise ValueError(f"cannot reshape array of size {x.size} into shape "
                         f"{format_shape(requested, ',')}")
    return shape[: unknown[0]] + (dim,) + shape[unknown[0] + 1:]


def reshape_value(graph: Graph, x: Value, shape: tuple[int | str, ...]) -> Value:
    target = resolve_shape(x, shape)
    if target == x.shape:
        return x
    return graph.op("reshape", [x], shape=list(target))


def reshape(graph: Graph, a: object, shape: object = None, order: str = "C", *,
            newshape: object = None, copy: object = None) -> Value:
    if order != "C" or copy is not None:
        raise Unsupported("np.reshape with order= or copy=")
    x = array_arg(graph, a, "np.reshape")
    return reshape_value(graph, x, shape_arg(newshape if shape is None else shape,
                                             "np.reshape"))


def reshape_method(graph: Graph, a: object, *shape: object, order: str = "C",
                   copy: object = None) -> Value:
    if not shape:
        raise TypeError("reshape() takes exactly 1 argument (0 given)")
    target = shape[0] if len(shape) == 1 else shape
    return reshape(graph, a, target, order, copy=copy)


def transpose(graph: Graph, a: object, axes: object = None) -> Value:
    x = array_arg(graph, a, "np.transpose")
    if axes is None:
        perm = list(range(x.ndim))[::-1]
    else:
        perm = [static_int(p, "np.transpose") for p in shape_arg(axes, "np.transpose")]
    if perm == list(range(x.ndim)):
        return x
    return graph.op("transpose", [x], perm=perm)


def transpose_method(graph: Graph, a: object, *axes: object) -> Value:
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list)) or (
            isinstance(axes[0], Value) and axes[0].ndim == 1)):
        return transpose(graph, a, axes[0])
    return transpose(graph, a, axes or None)


def swapaxes(graph: Graph, a: object, axis1: object, axis2: object) -> Value:
    x = array_arg(graph, a, "np.swapaxes")
    i = normalize_axis(static_int(axis1, "np.swapaxes"), x.ndim, "axis1")
    j = normalize_axis(static_int(axis2, "np.swapaxes"), x.ndim, "axis2")
    perm = list(range(x.ndim))
    perm[i], perm[j] = perm[j], perm[i]
    return transpose(graph, x, perm)


def moveaxis(graph: Graph, a: object, source: object, destination: object) -> Value:
    x = array_arg(graph, a, "np.moveaxis")
    src, dst = (normalize_axes_ordered(axis_arg(arg, "np.moveaxis", lists=True), x.ndim, name)
                for arg, name in ((source, "source"), (destination, "destination")))
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of "
                         "elements")
    order = [n for n in range(x.ndim) if n not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return transpose(graph, x, order)


def normalize_axes_ordered(axis: int | tuple[int, ...] | None, ndim: int,
                           argname: str) -> list[int]:
    """NumPy's normalize_axis_tuple: checked axes in the order given, no repeats."""
    items = (axis,) if isinstance(axis, int) else tuple(axis or ())
    axes = [normalize_axis(a, ndim, argname) for a in items]
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in `{argname}` argument")
    return axes


def expand_dims(graph: Graph, a: object, axis: object) -> Value:
    x = array_arg(graph, a, "np.expand_dims")
    ax = axis_arg(axis, "np.expand_dims", lists=True)
    items = (ax,) if isinstance(ax, int) else tuple(ax or ())
    ndim = x.ndim + len(items)
    axes = [normalize_axis(i, ndim) for i in items]
    if len(set(axes)) != len(axes):
        raise ValueError("repeated axis")
    return graph.op("expand_dims", [x], axis=sorted(axes))


def squeeze(graph: Graph, a: object, axis: object = None) -> Value:
    x = array_arg(graph, a, "np.squeeze")
    if axis is None:
        axes = [i for i, d in enumerate(x.shape) if d == 1]
    else:
        axes = list(normalize_axes(axis_arg(axis, "np.squeeze"), x.ndim) or ())
    if not axes:
        return x
    return graph.op("squeeze", [x], axis=axes)


def contiguous_view(graph: Graph, x: Value, shape: tuple[int | str, ...], fn: str) -> Value:
    """`x` reshaped as NumPy's `fn` does: a view where `x` is C-contiguous, else a copy.
    The graph's values have no layout, so the node is a reshape (one even to the same
    shape: a new array object) that the entry takes again with `fn` itself."""
    view = graph.op("reshape", [x], shape=list(resolve_shape(x, shape)))
    graph.root.contiguous_views[view.id] = fn
    return view


def ravel(graph: Graph, a: object, order: str = "C") -> Value:
    if order != "C":
        raise Unsupported("np.ravel with order=")
    return contiguous_view(graph, array_arg(graph, a, "np.ravel"), (-1,), "ravel")


def flatten(graph: Graph, a: object, order: str = "C") -> Value:
    if order != "C":
        raise Unsupported("ndarray.flatten with order=")
    x = array_arg(graph, a, "ndarray.flatten")
    return graph.op("copy", [reshape_value(graph, x, (-1,))])  # always a copy in NumPy


def _arrays(graph: Graph, arrays: object, what: str) -> list[Value]:
    if isinstance(arrays, Value) or not isinstance(arrays, (list, tuple)):
        raise Unsupported(f"{what} of something other than a list or tuple of arrays")
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    return [to_value(graph, a, what) for a in arrays]


def concatenate(graph: Graph, arrays: object, axis: object = 0, out: object = None,
                dtype: object = None, casting: str = "same_kind") -> Value:
    if out is not None or dtype is not None or casting != "same_kind":
        raise Unsupported("np.concatenate with out=, dtype= or casting=")
    values = _arrays(graph, arrays, "np.concatenate")
    if axis is None:
        values = [reshape_value(graph, v, (-1,)) for v in values]
        axis = 0
    result = graph.op("concatenate", values, axis=static_int(axis, "np.concatenate"))
    return result


def stack(graph: Graph, arrays: object, axis: object = 0, out: object = None,
          *, dtype: object = None, casting: str = "same_kind") -> Value:
    if out is not None or dtype is not None or casting != "same_kind":
        raise Unsupported("np.stack with out=, dtype= or casting=")
    values = _arrays(graph, arrays, "np.stack")
    if any(v.shape != values[0].shape for v in values):
        raise ValueError("all input arrays must have the same shape")
    ax = normalize_axis(static_int(axis, "np.stack"), values[0].ndim + 1)
    expanded = [graph.op("expand_dims", [v], axis=[ax]) for v in values]
    return graph.op("concatenate", expanded, axis=ax)


def _atleast(graph: Graph, v: Value, ndim: int) -> Value:
    """NumPy's atleast_{1,2,3}d: 0-d reshaped to ones; a 1-d array gets a leading axis (and
    for 3-d a trailing one), a 2-d array a trailing axis."""
    v = as_array(graph, v)
    if v.ndim >= ndim:
        return v
    if v.ndim == 0:
        return reshape_value(graph, v, (1,) * ndim)
    if ndim == 2:
        return graph.op("expand_dims", [v], axis=[0])
    return graph.op("expand_dims", [v], axis=[0, 2] if v.ndim == 1 else [2])


def _atleast_handler(ndim: int) -> Any:
    def handler(graph: Graph, *arys: object) -> Any:
        values = [_atleast(graph, array_arg(graph, a, f"np.atleast_{ndim}d"), ndim) for a in arys]
        return values[0] if len(values) == 1 else tuple(values)

    handler.__name__ = f"atleast_{ndim}d"
    return handler


def ndim(graph: Graph, a: object) -> int:
    return array_arg(graph, a, "np.ndim").ndim


def shape(graph: Graph, a: object) -> tuple[int | str, ...]:
    return array_arg(graph, a, "np.shape").shape


def size(graph: Graph, a: object, axis: object = None) -> int | str:
    x = array_arg(graph, a, "np.size")
    if axis is not None:
        return x.shape[normalize_axis(static_int(axis, "np.size"), x.ndim)]
    if x.size is None:
        raise Unsupported(f"np.size of symbolic shape {x.shape}")
    return x.size


def hstack(graph: Graph, tup: object, *, dtype: object = None,
           casting: str = "same_kind") -> Value:
    values = [_atleast(graph, v, 1) for v in _arrays(graph, tup, "np.hstack")]
    return concatenate(graph, values, 0 if values[0].ndim == 1 else 1, dtype=dtype,
                       casting=casting)


def vstack(graph: Graph, tup: object, *, dtype: object = None,
           casting: str = "same_kind") -> Value:
    values = [_atleast(graph, v, 2) for v in _arrays(graph, tup, "np.vstack")]
    return concatenate(graph, values, 0, dtype=dtype, casting=casting)


def broadcast_to(graph: Graph, array: object, shape: object, subok: bool = False) -> Value:
    x = to_value(graph, array, "np.broadcast_to")
    target = shape_arg(shape, "np.broadcast_to")
    if any(isinstance(d, int) and d < 0 for d in target):
        raise ValueError("all elements of broadcast shape must be non-negative")
    result = graph.op("broadcast_to", [x], shape=list(target))
    graph.root.broadcast_views[id(result)] = "broadcast_to"
    return result


def broadcast_arrays(graph: Graph, *args: object, subok: bool = False) -> tuple[Value, ...]:
    """np.broadcast_arrays: each array broadcast to the shape of all (as given where it has
    that shape already)."""
    arrays = [to_value(graph, a, "np.broadcast_arrays") for a in args]
    shapes = [tuple(a.shape) for a in arrays]
    if any(isinstance(d, str) for s in shapes for d in s):
        raise Unsupported("np.broadcast_arrays of symbolic shapes")
    shape = np.broadcast_shapes(*shapes)  # NumPy's error where they do not broadcast
    results = tuple(a if tuple(a.shape) == shape else
                    graph.op("broadcast_to", [a], shape=list(shape)) for a in arrays)
    graph.root.broadcast_views.update(
        (id(r), "broadcast_arrays") for r, a in zip(results, arrays) if r is not a)
    return results


def astype(graph: Graph, a: object, dtype: object, order: str = "K", casting: str = "unsafe",
           subok: bool = True, copy: bool = True) -> Value:
    x = to_value(graph, a, "astype")
    dt = dtype_arg(dtype, "astype")
    if order != "K" or casting != "unsafe":
        raise Unsupported("astype with order= or casting=")
    if dt == x.dtype and not x.weak:
        # NumPy copies unless told it need not (a copy is a new array, aliasing nothing).
        return x if copy is False or x.scalar else graph.op("copy", [x])
    cast = graph.op("astype", [x], dtype=dt)
    graph.layouts[cast.id] = ("like", x.id)  # order='K' as np.copy, not as a ufunc
    return cast


def np_astype(graph: Graph, x: object, dtype: object, /, *, copy: bool = True,
              device: object = None) -> Value:
    return astype(graph, x, dtype, copy=copy)


def scalar_type(dtype: np.dtype) -> Any:
    """`np.float32(x)`: a NumPy scalar of a 0-d value, an array cast of any other."""
    def handler(graph: Graph, value: object = 0) -> Any:
        if not isinstance(value, Value):
            if isinstance(value, (list, tuple)):
                raise Unsupported(f"np.{dtype.type.__name__} of a Python sequence")
            return dtype.type(value)
        if value.ndim == 0:
            if value.dtype == dtype and value.scalar:
                return value
            return graph.op("astype", [value], dtype=dtype, scalar=True)
        return value if value.dtype == dtype else graph.op("astype", [value], dtype=dtype)

    return handler


def copy(graph: Graph, a: object, order: str = "K", subok: bool = False) -> Value:
    return graph.op("copy", [to_value(graph, a, "np.copy")])


def copy_method(graph: Graph, a: object, order: str = "C") -> Value:
    x = to_value(graph, a, "ndarray.copy")
    copied = graph.op("copy", [x], scalar=x.scalar)
    if order == "C":  # the method's default, unlike np.copy's 'K'
        graph.layouts[copied.id] = "c"
    return copied


def flip(graph: Graph, m: object, axis: object = None) -> Value:
    x = array_arg(graph, m, "np.flip")
    axes = normalize_axes(axis_arg(axis, "np.flip", lists=True), x.ndim)
    # NumPy flips by indexing, `x[()]` for a 0-d array: a NumPy scalar.
    return graph.op("flip", [x], axis=list(range(x.ndim)) if axes is None else list(axes),
                    scalar=x.ndim == 0)


def functions() -> dict[Any, Any]:
    table: dict[Any, Any] = {
        np.reshape: reshape, np.transpose: transpose, np.swapaxes: swapaxes,
        np.moveaxis: moveaxis, np.expand_dims: expand_dims, np.squeeze: squeeze,
        np.ravel: ravel, np.concatenate: concatenate, np.stack: stack, np.hstack: hstack,
        np.vstack: vstack, np.broadcast_to: broadcast_to, np.broadcast_arrays: broadcast_arrays,
        np.astype: np_astype, np.copy: copy,
        np.flip: flip, np.permute_dims: transpose, np.concat: concatenate,
        np.atleast_1d: _atleast_handler(1), np.atleast_2d: _atleast_handler(2),
        np.atleast_3d: _atleast_handler(3), np.ndim: ndim, np.shape: shape, np.size: size,
    }
    for dt in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
               np.uint32, np.uint64, np.float32, np.float64):
        table[dt] = scalar_type(np.dtype(dt))
    return table


def methods() -> dict[str, Any]:
    return {
        "reshape": reshape_method, "transpose": transpose_method, "swapaxes": swapaxes,
        "squeeze": squeeze, "ravel": ravel, "flatten": flatten, "astype": astype,
        "copy": copy_method,
    }
