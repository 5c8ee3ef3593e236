"""The attributes ember puts on the objects it makes (`__ember_original__` on a compiled
function, `__ember_disabled__` on a function ember must not capture), read so that a user's
object cannot answer for them: a class with `__getattr__` answers every name."""

from __future__ import annotations

import inspect
from typing import Any


def ember_attribute(value: object, name: str, default: Any = None) -> Any:
    """`value.name` if `value` or its type really has that attribute, else `default`."""
    try:
        inspect.getattr_static(value, name)
    except AttributeError:
        return default
    return getattr(value, name, default)
