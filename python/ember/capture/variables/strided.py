"""`x.strides` and `np.lib.stride_tricks.as_strided(x, shape, strides)` of an argument array.

An argument's strides are a guard (ARRAY_MATCH with strides: a call with another layout
captures again), so `x.strides` is a constant tuple. `as_strided` of such an argument is a
gather from `x.ravel()`: each element of the view is the byte offset `sum(i_k * strides_k)`
from `x`'s first element, mapped at capture to the element of `x` stored there (a constant
index array). A view reaching memory `x` does not own, or between its elements, is refused,
as is `as_strided` of any other array, whose layout capture does not know. The view NumPy
returns shares `x`'s memory; the graph's is a copy, a view capture cannot follow
(`Graph.opaque_views`, as `sliding_window_view`'s)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.errors import Unsupported

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

_AS_STRIDED = np.lib.stride_tricks.as_strided


def _refusal(reason: str) -> Unsupported:
    return graph_break("numpy", reason=reason)


def _argument(tx: Interpreter, array: Any) -> Any:
    """The graph input (`GraphInput`) that is this array variable's value, an argument of
    static shape read from the frame; None for any other array."""
    from ember.capture.variables.slices import ViewSource

    if tx.graph.parent is not None:
        return None
    for graph_input in tx.tracer.inputs:
        if (graph_input.value is array.value and not graph_input.scalar
                and isinstance(graph_input.example, np.ndarray)
                and not isinstance(graph_input.source, ViewSource)):
            return graph_input
    return None


def _guard_strides(tx: Interpreter, graph_input: Any) -> tuple[int, ...]:
    example = graph_input.example
    check = ("ARRAY_MATCH", example.dtype, tuple(example.shape), None)
    new = ("ARRAY_MATCH", example.dtype, tuple(example.shape), tuple(example.strides))
    try:
        tx.tracer.guards.replace(graph_input.source, check, new)
    except StopIteration:  # guarded already
        pass
    return tuple(example.strides)


def strides_of(tx: Interpreter, array: Any) -> VariableTracker | None:
    """`x.strides` of an argument: its strides, guarded; None for other arrays."""
    if any(isinstance(d, str) for d in array.value.shape):
        raise graph_break("dynamic_shape", what=f"{array.describe()}.strides")
    graph_input = _argument(tx, array)
    if graph_input is None:
        return None
    return ConstantVariable(_guard_strides(tx, graph_input))


def _ints(vt: VariableTracker | None, what: str) -> tuple[int, ...] | None:
    if vt is None or (vt.is_constant() and vt.constant() is None):
        return None
    if not vt.is_constant():
        raise _refusal(f"as_strided with a {what} computed at run time")
    value = vt.constant()
    try:
        return tuple(int(v) for v in (value if np.iterable(value) else (value,)))
    except (TypeError, ValueError):
        raise _refusal(f"as_strided with a {what} of {value!r}") from None


def _element_index(example: np.ndarray, shape: tuple[int, ...],
                   strides: tuple[int, ...]) -> np.ndarray:
    """For each element of `as_strided(example, shape, strides)`, the position in
    `example.ravel()` of the element stored at its address."""
    item = example.itemsize
    if any(s % item for s in (*strides, *example.strides)):
        raise _refusal("as_strided with strides that are not multiples of the item size")
    own = [s // item for s in example.strides]
    low = sum(min(0, (n - 1) * s) for n, s in zip(example.shape, own)) if example.size else 0
    high = sum(max(0, (n - 1) * s) for n, s in zip(example.shape, own)) if example.size else -1
    view = [s // item for s in strides]
    size = int(np.prod(shape))
    if size:
        reach_low = sum(min(0, (n - 1) * s) for n, s in zip(shape, view))
        reach_high = sum(max(0, (n - 1) * s) for n, s in zip(shape, view))
        if reach_low < low or reach_high > high:
            raise _refusal("as_strided reaching memory outside its argument")
    # Each element's offset from the first (in items) -> its position in the ravel.
    at = np.full(high - low + 1, -1, np.int64)
    offsets = np.zeros(example.shape, np.int64)
    for k, s in enumerate(own):
        shape_k = [1] * example.ndim
        shape_k[k] = example.shape[k]
        offsets = offsets + np.arange(example.shape[k], dtype=np.int64).reshape(shape_k) * s
    at[offsets.ravel() - low] = np.arange(example.size, dtype=np.int64)
    wanted = np.zeros(shape, np.int64)
    for k, s in enumerate(view):
        shape_k = [1] * len(shape)
        shape_k[k] = shape[k]
        wanted = wanted + np.arange(shape[k], dtype=np.int64).reshape(shape_k) * s
    index = at[wanted - low] if size else wanted
    if size and (index < 0).any():
        raise _refusal("as_strided reaching memory between its argument's elements")
    return index


def as_strided(tx: Interpreter, args: list[VariableTracker],
               kwargs: dict[str, VariableTracker]) -> VariableTracker | None:
    """`as_strided(x, shape=None, strides=None, subok=False, writeable=True)` of an
    argument array: a gather of `x.ravel()` by the constant index of each view element."""
    from ember.capture.variables.array import ArrayVariable
    from ember.numpy_api.take import take

    names = ("x", "shape", "strides", "subok", "writeable")
    if len(args) > len(names) or set(kwargs) - set(names):
        return None
    bound = dict(zip(names, args)) | kwargs
    x = bound.get("x")
    if not isinstance(x, ArrayVariable):
        return None
    if any(isinstance(d, str) for d in x.value.shape):
        raise graph_break("dynamic_shape", what="as_strided of a symbolic shape")
    graph_input = _argument(tx, x)
    if graph_input is None:
        raise _refusal("as_strided of an array that is not an argument (its memory layout "
                          "is unknown to capture)")
    example = graph_input.example
    shape = _ints(bound.get("shape"), "shape")
    strides = _ints(bound.get("strides"), "strides")
    shape = tuple(example.shape) if shape is None else shape
    strides = tuple(example.strides) if strides is None else strides
    if len(shape) != len(strides) or any(n < 0 for n in shape):
        return None  # NumPy's own error, raised in Python
    index = _element_index(example, shape, strides)
    _guard_strides(tx, graph_input)
    graph = tx.graph
    flat = graph.op("reshape", [x.value], shape=[int(example.size)])
    result = take(graph, flat, _index_value(graph, example, shape, strides, index), 0, "raise")
    graph.root.opaque_views.append((x.value, result, functools.partial(
        _AS_STRIDED, shape=shape, strides=strides)))
    return ArrayVariable(result)


def _index_value(graph: Any, example: np.ndarray, shape: tuple[int, ...],
                 strides: tuple[int, ...], index: np.ndarray) -> Any:
    """The graph value of `index`: for a C-contiguous argument, where an element's position
    in the ravel is its offset in items, a sum of one `arange` per view axis; else the
    constant itself."""
    from ember.numpy_api.literals import constant_array

    if not example.flags.c_contiguous:
        return constant_array(graph, index)
    i64 = np.dtype(np.int64)
    total = graph.full(tuple(shape), 0, i64)
    for k, (n, s) in enumerate(zip(shape, strides)):
        step = s // example.itemsize
        if n <= 1 or step == 0:
            continue
        along = graph.op("reshape", [graph.arange(0, step, n, i64)],
                         shape=[1] * k + [n] + [1] * (len(shape) - k - 1))
        total = graph.op("add", [total, along])
    return total
