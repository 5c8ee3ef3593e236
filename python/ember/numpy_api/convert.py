"""Turning the arguments NumPy functions receive into graph values and static Python data."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ember.errors import Unsupported, complex_number
from ember.graph import Graph, Value
from ember.graph.dtypes import as_dtype

# NumPy's "argument not given" marker for parameters such as `initial` and `mean`.
NO_VALUE: Any = np._NoValue


def is_value(x: object) -> bool:
    return isinstance(x, Value)


def any_value(args: Sequence[object]) -> bool:
    return any(isinstance(a, Value) or (isinstance(a, (list, tuple)) and any_value(a))
               for a in args)


def to_value(graph: Graph, x: object, what: str) -> Value:
    """A graph value for an array argument: Values pass through, Python scalars become weak
    constants, NumPy scalars strong ones, lists and tuples the arrays np.asarray makes of
    them. Anything else cannot be traced."""
    if isinstance(x, Value):
        return x
    if isinstance(x, (bool, int, float)):
        return graph.const(x)
    if isinstance(x, (np.bool_, np.integer, np.floating)):
        return graph.const(x)
    if isinstance(x, (list, tuple)):  # converted as NumPy does, with np.asarray
        from ember.numpy_api.literals import constant_array, literal_value

        if any_value([x]):
            return literal_value(graph, x, None)
        return constant_array(graph, np.asarray(x))
    if isinstance(x, (complex, np.complexfloating)):
        raise complex_number(f"{what}: an argument {x!r}")
    raise Unsupported(f"{what}: argument of type {type(x).__name__}")


# The most elements a value computed from constants alone may have to be evaluated while
# tracing (an axis order NumPy's own code builds with `np.argsort(axis)`, `np.arange(ndim)`).
_KNOWN_ELEMENTS = 64


def known_value(x: Value) -> np.ndarray | None:
    """`x` evaluated while tracing, op by op as the eager backend runs it, where the graph
    computes it from constants alone (no input, no region) and it is small; None otherwise."""
    from ember.backends.eager import run_node

    producers = {id(out): node for node in x.graph.nodes for out in node.results}
    memo: dict[int, Any] = {}

    def evaluate(v: Value, depth: int) -> Any:
        if id(v) in memo:
            return memo[id(v)]
        node = producers.get(id(v))
        if node is None or node.extra or node.op in ("loop", "if") or depth > 64 or any(
                isinstance(d, str) for d in v.shape) or np.prod(v.shape) > _KNOWN_ELEMENTS:
            raise LookupError(v)
        args = [evaluate(i, depth + 1) for i in node.inputs]
        memo[id(v)] = run_node(node, args)
        return memo[id(v)]

    try:
        with np.errstate(all="ignore"):
            return np.asarray(evaluate(x, 0))
    except Exception:  # noqa: BLE001 -- anything not evaluable here stays unknown
        return None


def known_ints(x: Value, what: str) -> np.ndarray:
    """The integers a small value computed from constants alone holds, else Unsupported."""
    known = known_value(x)
    if known is None or known.dtype.kind not in "biu" or known.ndim > 1:
        raise Unsupported(f"{what}: an integer argument computed from array data")
    return known


def static_int(x: object, what: str) -> int:
    """An argument that must be known while tracing (a size, an axis, an index); a 0-d
    integer the graph computes from constants alone is evaluated."""
    if isinstance(x, Value):
        known = known_ints(x, what)
        if known.ndim:
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(known)
    return operator.index(x)  # type: ignore[arg-type]


def static_number(x: object, what: str) -> bool | int | float:
    if isinstance(x, Value):
        raise Unsupported(f"{what}: a scalar argument computed from array data")
    if isinstance(x, np.generic):
        return x.item()  # type: ignore[no-any-return]
    if isinstance(x, (bool, int, float)):
        return x
    raise Unsupported(f"{what}: argument of type {type(x).__name__}")


def axis_arg(axis: object, what: str, lists: bool = False
             ) -> int | tuple[int, ...] | None:
    """`axis=`: None, an int, or a tuple of ints (reductions refuse lists as NumPy does;
    `lists=True` for functions such as np.expand_dims that take any sequence)."""
    if axis is None:
        return None
    if isinstance(axis, tuple) or (lists and isinstance(axis, list)):
        return tuple(static_int(a, what) for a in axis)
    return static_int(axis, what)


def shape_arg(shape: object, what: str) -> tuple[int | str, ...]:
    """A shape: an int or a sequence of ints; symbolic dims (strings) are kept."""
    if isinstance(shape, (list, tuple)):
        return tuple(d if isinstance(d, str) else static_int(d, what) for d in shape)
    if isinstance(shape, str):
        return (shape,)
    if isinstance(shape, Value) and shape.ndim == 1:
        return tuple(int(d) for d in known_ints(shape, what))
    return (static_int(shape, what),)


def dtype_arg(dtype: object, what: str) -> np.dtype | None:
    if dtype is None:
        return None
    if isinstance(dtype, Value):
        raise Unsupported(f"{what}: dtype given as an array")
    return as_dtype(dtype, what)


def reject(what: str, **given: object) -> None:
    """Refuse arguments ember does not trace (out=, where=, order=...), naming them."""
    for name, value in given.items():
        if value is not None and value is not NO_VALUE:
            raise Unsupported(f"{what} with {name}=")


def as_numpy_scalar(graph: Graph, value: Value) -> Value:
    """A 0-d result as NumPy returns it through PyArray_Return: a NumPy scalar."""
    if value.ndim == 0 and not value.scalar and not value.weak:
        return graph.op("squeeze", [value], axis=[], scalar=True)
    return value


def as_array(graph: Graph, value: Value) -> Value:
    """A NumPy scalar or Python scalar as the 0-d array np.asarray makes of it."""
    if value.scalar or value.weak:
        return graph.op("squeeze", [value], axis=[], scalar=False, weak=False)
    return value


def rerun_unless(graph: Graph, ok: Value) -> None:
    """The graph raises unless the 0-d bool `ok` holds at run time (a load past the end of a
    one-element array: an IndexError), so the frame runs again as plain Python and NumPy
    gives its own result, warning or error for a case the graph does not follow."""
    index = graph.op("where", [ok, graph.const(0), graph.const(1)])
    graph.op("load", [graph.full((1,), 0, np.int8), index])
