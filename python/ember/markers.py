"""The attributes ember puts on the objects it makes (`__ember_original__` on a compiled
function, `__ember_disabled__` on a function ember must not capture), read so that a user's
object cannot answer for them: a class with `__getattr__` answers every name."""

from __future__ import annotations

import inspect
import types
from typing import Any

import numpy as np

# Types that define neither attribute: their instances answer for one only from their own
# `__dict__` (functions, ufuncs, NumPy's function dispatchers) or not at all (builtins), read
# without `inspect.getattr_static`'s walk of the MRO.
_OWN_DICT = frozenset({types.FunctionType, np.ufunc, type(np.sum)})
_NO_DICT = frozenset({types.BuiltinFunctionType})


def ember_attribute(value: object, name: str, default: Any = None) -> Any:
    """`value.name` if `value` or its type really has that attribute, else `default`."""
    kind = type(value)
    if kind in _OWN_DICT:
        return value.__dict__.get(name, default)  # type: ignore[attr-defined]
    if kind in _NO_DICT:
        return default
    try:
        inspect.getattr_static(value, name)
    except AttributeError:
        return default
    return getattr(value, name, default)
