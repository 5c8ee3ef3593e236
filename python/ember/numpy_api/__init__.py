"""NumPy's surface as graph ops: what capture calls for operators, `np.*` functions, array
methods, attributes and indexing on traced arrays.

Handlers are called as `handler(graph, *args, **kwargs)` (methods with the array first) with
`Value`s and plain Python objects, and return a `Value`, a tuple of them, or a plain Python
object (a constant: `np.sqrt(2.0)` is computed right away). Anything ember cannot trace raises
`ember.errors.Unsupported` naming the NumPy function; where NumPy raises, the same exception
type is raised with NumPy's message.
"""

from __future__ import annotations

import sys
import types

from collections.abc import Callable
from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.numpy_api import (
    composites,
    counting,
    creation,
    derived,
    einsum,
    elementwise,
    histogram,
    interpolation,
    linalg,
    manipulation,
    matrices,
    nan_reductions,
    norms,
    order_statistics,
    polynomials,
    reductions,
    scalars,
    scipy_linalg,
    scipy_special,
    shape_ops,
    solvers,
    sorting,
    stride_tricks,
)
from ember.numpy_api.assignment import Selected, setitem
from ember.numpy_api.elementwise import binary_op, compare_op, unary_op
from ember.numpy_api.indexing import getitem
from ember.numpy_api.take import (put_along_axis, take_along_axis, ufunc_at, ufunc_outer,
                                  unravel_index)

Handler = Callable[..., Any]

_FUNCTIONS: dict[Any, Handler] = {
    **elementwise.functions(), **reductions.functions(), **shape_ops.functions(),
    **creation.functions(), **linalg.functions(), **manipulation.functions(),
    **norms.functions(), **einsum.functions(), **sorting.functions(), **counting.functions(),
    **histogram.functions(), **interpolation.functions(), **derived.functions(),
    **polynomials.functions(), **matrices.functions(), **solvers.functions(), **order_statistics.functions(),
    **nan_reductions.functions(), **composites.functions(), **stride_tricks.functions(),
    np.take_along_axis: take_along_axis, np.put_along_axis: put_along_axis,
    np.unravel_index: unravel_index,
}
# NumPy's own Python code calls some C functions without their array-function dispatcher
# (`np.block`: `concatenate.__wrapped__`): the same functions, the same handlers.
_FUNCTIONS.update({fn.__wrapped__: handler for fn, handler in list(_FUNCTIONS.items())
                   if isinstance(getattr(fn, "__wrapped__", None), types.BuiltinFunctionType)})
# Functions that update their first argument in place and return None: their handler
# returns the argument's new value, which capture writes into it.
IN_PLACE = frozenset({np.put_along_axis, np.copyto, np.fill_diagonal})
_METHODS: dict[str, Handler] = {
    **reductions.methods(), **shape_ops.methods(), **linalg.methods(), **manipulation.methods(),
    **scalars.methods(),
    **sorting.methods(),
    "clip": elementwise.clip, "round": elementwise.round_, "fill": creation.fill,
    "nonzero": counting.nonzero,
}


# scipy's modules whose functions have handlers, added once the program has imported them.
_SCIPY = {"scipy.special": lambda m: scipy_special.functions(),
          "scipy.linalg": lambda m: scipy_linalg.functions(m)}
_SCIPY_ADDED: set[str] = set()


def lookup_function(fn: object) -> Handler | None:
    """The handler for a NumPy function object (`np.add`, `np.sum`...), or None; scipy.special's
    and scipy.linalg's (`scipy_special`, `scipy_linalg`) once the program has imported them."""
    try:
        found = _FUNCTIONS.get(fn)
    except TypeError:  # unhashable
        return None
    if found is None and len(_SCIPY_ADDED) < len(_SCIPY):
        for name, handlers in _SCIPY.items():
            if name not in _SCIPY_ADDED and name in sys.modules:
                _SCIPY_ADDED.add(name)
                _FUNCTIONS.update(handlers(sys.modules[name]))
        found = _FUNCTIONS.get(fn)
    return found


def lookup_method(name: str) -> Handler | None:
    """The handler for `array.name(...)`, called as `handler(graph, array, *args, **kwargs)`."""
    return _METHODS.get(name)


def get_attribute(value: Value, name: str) -> Any:
    """`array.name` for a non-method attribute: static data, or a Value for `.T`."""
    graph: Graph = value.graph
    if name == "shape":
        return value.shape
    if name == "ndim":
        return value.ndim
    if name == "dtype":
        return value.dtype
    if name == "size":
        if value.size is None:
            raise Unsupported(f"ndarray.size of symbolic shape {value.shape}")
        return value.size
    if name == "itemsize":
        return value.dtype.itemsize
    if name == "nbytes":
        if value.size is None:
            raise Unsupported(f"ndarray.nbytes of symbolic shape {value.shape}")
        return value.size * value.dtype.itemsize
    if name in ("T", "mT"):
        if name == "mT":
            if value.ndim < 2:
                raise ValueError("matrix transpose with ndim < 2 is undefined")
            perm = [*range(value.ndim - 2), value.ndim - 1, value.ndim - 2]
            return graph.op("transpose", [value], perm=perm)
        return shape_ops.transpose(graph, value)
    if name == "real":
        return value
    if name in _METHODS:
        raise Unsupported(f"ndarray.{name} used as a value rather than called")
    raise Unsupported(f"ndarray.{name}")


__all__ = [
    "IN_PLACE", "Selected", "binary_op", "compare_op", "get_attribute", "getitem", "lookup_function", "lookup_method",
    "setitem", "ufunc_at", "ufunc_outer", "unary_op",
]
