"""`reduce` / `accumulate` of NumPy's binary ufuncs that have a reduction or scan of their own
(`np.add.reduce` is `np.sum` over axis 0, `np.multiply.accumulate` is `np.cumprod`), and of
the others `numpy_api.scans` runs as element loops. `outer` and `at` are `numpy_api.take`'s
(`UfuncMethodVariable`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember import numpy_api
from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.numpy_api import scans

_REDUCE = {np.add: np.sum, np.multiply: np.prod, np.maximum: np.max, np.minimum: np.min,
           np.logical_and: np.all, np.logical_or: np.any}
_ACCUMULATE = {np.add: np.cumsum, np.multiply: np.cumprod}
METHODS = ("reduce", "accumulate")


def method_handler(ufunc: np.ufunc, handler: Any, name: str) -> Any:
    """The `numpy_api`-style handler of `ufunc.<name>`; None when ember has none."""
    if ufunc.nin != 2 or name not in METHODS:
        return None
    what = f"np.{ufunc.__name__}.{name}"
    table = _REDUCE if name == "reduce" else _ACCUMULATE
    target = table.get(ufunc)
    if target is None:
        return scans.handler(ufunc, name)
    inner = numpy_api.lookup_function(target)
    if inner is None:
        return None

    def reduce(graph: Graph, a: object, axis: object = 0, dtype: object = None,
               out: object = None, **kwargs: object) -> Any:
        if dtype is not None or out is not None or (
                name == "accumulate" and kwargs) or set(kwargs) - {"keepdims"}:
            raise Unsupported(f"{what} with dtype=, out=, initial= or where=")
        if not isinstance(a, Value) or a.ndim == 0:
            raise Unsupported(f"{what} of a 0-d value")
        if name == "accumulate" and axis is None:
            raise Unsupported(f"{what} with axis=None")
        return inner(graph, a, axis=axis, **kwargs)

    return reduce
