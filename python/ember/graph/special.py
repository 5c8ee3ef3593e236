"""The functions the core's `erf` and `erfc` ops mean, which NumPy lacks: scipy.special's
ufuncs where scipy is installed, else the C library's through Python's `math`, element by
element, with scipy's dtypes (`f->f` for float32, `d->d` for every other number). The eager
backend runs them and type inference asks them for the result's dtype."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np


def _by_element(name: str) -> Callable[..., Any]:
    scalar = getattr(math, name)

    def fn(x: Any, out: np.ndarray | None = None) -> Any:
        a = np.asarray(x)
        dtype = np.dtype(np.float32 if a.dtype == np.float32 else np.float64)
        flat = [scalar(float(v)) for v in a.astype(np.float64).ravel()]
        result = np.array(flat, dtype=np.float64).reshape(a.shape).astype(dtype)
        if out is not None:
            out[...] = result
            return out
        return result if a.ndim else dtype.type(result)

    fn.__name__ = name
    return fn


def _lookup(name: str) -> Callable[..., Any]:
    try:
        import scipy.special
    except ImportError:
        return _by_element(name)
    return getattr(scipy.special, name)


FUNCTIONS = {"erf": _lookup("erf"), "erfc": _lookup("erfc")}
