"""Instances of plain user classes created during capture (`sc = StandardScaler()`).

The class's `__init__` is inlined; the instance's attributes live here as trackers, so its
methods inline and read them as locals. Nothing runs in Python until a graph break or the
result needs the object: the rebuilt entry then makes it with `cls.__new__(cls)` and fills
its `__dict__` in the order the attributes were first assigned, as Python would have.

Only classes whose instances behave exactly that way qualify: `type` as metaclass,
`object.__new__`, a Python `__init__` (or none), no `__setattr__`, `__getattribute__`,
`__getattr__`, `__slots__` or `__del__`. Anything else is a call capture refuses.
"""

from __future__ import annotations

import inspect
import types
from typing import TYPE_CHECKING, Any

from ember.capture.breaks import graph_break
from ember.capture.sources import AttrSource, Source
from ember.capture.variables.base import VariableTracker

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class defined by a class statement


def plain_class(cls: Any) -> bool:
    """Whether `cls()` makes an instance whose state is exactly its `__dict__`, set only by
    Python code of the class (see the module docstring)."""
    if not isinstance(cls, type) or type(cls) is not type or not cls.__flags__ & _HEAPTYPE:
        return False
    bases = cls.__mro__[:-1]
    if cls.__mro__[-1] is not object or not all(b.__flags__ & _HEAPTYPE for b in bases):
        return False
    if any("__slots__" in vars(b) for b in bases):
        return False
    if (cls.__new__ is not object.__new__ or cls.__setattr__ is not object.__setattr__
            or cls.__getattribute__ is not object.__getattribute__
            or cls.__delattr__ is not object.__delattr__):
        return False
    if any(hasattr(cls, name) for name in ("__getattr__", "__del__")):
        return False
    init = inspect.getattr_static(cls, "__init__")
    return init is object.__init__ or isinstance(init, types.FunctionType)


def construct(tx: Interpreter, cls_vt: VariableTracker, args: list[VariableTracker],
              kwargs: dict[str, VariableTracker]) -> VariableTracker:
    """`cls(*args, **kwargs)` for a plain class read from the frame (`cls_vt.source`)."""
    cls = cls_vt.constant()
    obj = NewObjectVariable(cls, cls_vt.source, tx.tracer.graph)
    init = inspect.getattr_static(cls, "__init__")
    if init is object.__init__:
        if args or kwargs:
            raise graph_break("user_error", type="TypeError",
                              message=f"{cls.__name__}() takes no arguments")
        return obj
    fn = tx.wrap(init, AttrSource(cls_vt.source, "__init__"))
    result = fn.call(tx, [obj, *args], kwargs)
    if not (result.is_constant() and result.constant() is None):
        raise graph_break("user_error", type="TypeError",
                          message="__init__() should return None")
    return obj


class NewObjectVariable(VariableTracker):
    """An instance of a plain user class made during capture; `attrs` is its `__dict__`."""

    def __init__(self, cls: type, cls_source: Source, graph: Any) -> None:
        self.cls = cls
        self.cls_source = cls_source
        self.graph = graph
        self.attrs: dict[str, VariableTracker] = {}

    def describe(self) -> str:
        return f"a new {self.cls.__qualname__}"

    def type_name(self) -> str:
        return self.cls.__qualname__

    def python_type(self) -> type:
        return self.cls

    def children(self) -> list[VariableTracker]:
        return list(self.attrs.values())

    def truth(self, tx: Interpreter) -> bool:
        if hasattr(self.cls, "__bool__") or hasattr(self.cls, "__len__"):
            return super().truth(tx)
        return True

    def _mutable_here(self, tx: Interpreter, what: str) -> None:
        # A loop body is traced once for all its trips: an object from outside it would
        # change once, not once per trip.
        if tx.tracer.graph is not self.graph:
            raise graph_break("loop_body", what=what)

    def setattr(self, tx: Interpreter, name: str, value: VariableTracker) -> None:
        self._mutable_here(tx, f"assignment to {self.describe()}.{name}")
        static = inspect.getattr_static(self.cls, name, None)
        if hasattr(type(static), "__set__") or hasattr(type(static), "__delete__"):
            raise graph_break("side_effect", what=f"assignment to {self.describe()}.{name} "
                                                  "through a descriptor")
        self.attrs[name] = value  # a rebound name keeps its place, as in a dict

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        try:
            static = inspect.getattr_static(self.cls, name)
        except AttributeError:
            static = None
            if name not in self.attrs:
                raise graph_break(
                    "user_error", type="AttributeError",
                    message=f"{self.cls.__name__!r} object has no attribute {name!r}",
                ) from None
        data_descriptor = static is not None and hasattr(type(static), "__set__")
        if name in self.attrs and not data_descriptor:
            return self.attrs[name]
        if name.startswith("__") and name.endswith("__"):
            raise graph_break("attribute", name=name, what=self.describe())
        source = AttrSource(self.cls_source, name)
        if isinstance(static, property) and isinstance(static.fget, types.FunctionType):
            getter = tx.wrap(static.fget, AttrSource(source, "fget"))
            return getter.call(tx, [self], {})
        if isinstance(static, types.FunctionType):
            from ember.capture.variables.functions import BoundMethodVariable

            return BoundMethodVariable(tx.wrap(getattr(self.cls, name), source), self)
        if isinstance(static, (staticmethod, classmethod)) or not hasattr(type(static),
                                                                           "__get__"):
            return tx.wrap(getattr(self.cls, name), source)
        raise graph_break("attribute", name=name, what=self.describe())


def new_object(cls: type) -> Any:
    """The instance the rebuilt entry fills (`__dict__.update`), made without `__init__`."""
    return cls.__new__(cls)
