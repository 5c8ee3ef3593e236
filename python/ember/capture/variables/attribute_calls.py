"""`getattr` and `hasattr` called in captured code: an attribute read at capture, the default
only where no object of the value's type can have the attribute, and `hasattr` folded only for
values whose attributes cannot change."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.errors import Unsupported

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter


def getattr_rule(tx: Interpreter, args: list[VariableTracker],
                 kwargs: dict[str, VariableTracker]) -> VariableTracker | None:
    if len(args) in (2, 3) and args[1].is_constant():
        try:
            return args[0].getattr(tx, args[1].constant())
        except Exception as exc:
            if len(args) == 3 and _never_has(args[0], args[1].constant()):
                return args[2]  # `getattr(x, "_value", x)` of an ndarray
            if len(args) == 2:
                raise
            # Not the default: a refused read is no AttributeError (`getattr(x, "flags",
            # None)`), and a missing attribute cannot be guarded (it may be set later).
            raise graph_break("call", name="getattr() with a default") from exc
    return None


def _never_has(vt: VariableTracker, name: Any) -> bool:
    """Whether no object of `vt`'s type has attribute `name`: an immutable type (ndarray,
    float) without it, whose objects have no `__dict__` and no `__getattr__`."""
    try:
        cls = vt.python_type()
    except Unsupported:
        return False
    return (type(name) is str and isinstance(cls, type) and bool(cls.__flags__ & 1 << 8)
            and cls.__dictoffset__ == 0 and not hasattr(cls, "__getattr__")
            and not hasattr(cls, name))


# Values whose attributes never change (a class may gain one later): `hasattr` folds.
_FIXED_ATTRIBUTES = (type(None), bool, int, float, complex, str, bytes, tuple, range, slice)


def hasattr_rule(tx: Interpreter, args: list[VariableTracker],
                 kwargs: dict[str, VariableTracker]) -> VariableTracker | None:
    if len(args) == 2 and args[1].is_constant() and args[0].is_constant():
        obj = args[0].constant()
        if type(obj) in _FIXED_ATTRIBUTES or type(obj).__module__ == "numpy" and isinstance(
                obj, (np.generic, np.dtype)):
            return ConstantVariable(hasattr(obj, args[1].constant()))
    return None
