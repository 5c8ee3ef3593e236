"""Modules, user objects holding arrays as attributes (`self.w`), and opaque values."""

from __future__ import annotations

import inspect
import types
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.sources import AttrSource, Source
from ember.capture.variables.base import VariableTracker
from ember.numpy_api import index_tricks

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

# Modules whose attributes are taken as fixed for the life of the process, so reading them
# installs no guard (NumPy's functions and constants, math's).
STABLE_MODULES = frozenset({"numpy", "math"})


def is_stable_module(module: types.ModuleType) -> bool:
    return module.__name__.split(".", 1)[0] in STABLE_MODULES


class ModuleVariable(VariableTracker):
    """A module (`np`, `math`, a user module)."""

    def __init__(self, module: types.ModuleType, source: Source | None) -> None:
        self.module = module
        self.source = source

    def describe(self) -> str:
        return self.source.name() if self.source is not None else self.module.__name__

    def python_type(self) -> type:
        return types.ModuleType

    def truth(self, tx: Interpreter) -> bool:
        return True

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        try:
            value = getattr(self.module, name)
        except AttributeError:
            raise graph_break(
                "user_error", type="AttributeError",
                message=f"module {self.module.__name__!r} has no attribute {name!r}",
            ) from None
        if is_stable_module(self.module) and not isinstance(value, types.ModuleType):
            # Read as a constant (no source: not a run-time scalar), but guarded through the
            # module's dict, so a patched `np.sqrt` or `math.pi` is seen.
            if self.source is not None:
                tx.tracer.guards.add(self.source, ("MODULE_ATTR_IS", name, value))
            if self.module is np and any(value is trick for trick in index_tricks.TRICKS):
                return IndexTrickVariable(value)
            return tx.wrap(value, None)
        source = AttrSource(self.source, name) if self.source is not None else None
        return tx.wrap(value, source)


def numpy_python_function(value: Any) -> types.FunctionType | None:
    """The Python implementation of a NumPy function written in Python: behind its
    array-function dispatcher (`np.fliplr.__wrapped__`) or the function itself."""
    if isinstance(value, types.FunctionType):
        wrapped = value  # one without array arguments, so not dispatched (`np.tri`)
    elif type(value).__name__ == "_ArrayFunctionDispatcher":
        wrapped = getattr(value, "__wrapped__", None)
    else:
        return None
    if not isinstance(wrapped, types.FunctionType):
        return None
    return wrapped if (wrapped.__module__ or "").split(".")[0] == "numpy" else None


def plain_attribute(obj: Any, name: str) -> tuple[str, Any]:
    """Classify `obj.name` without running user code: ("instance", value),
    ("function", fn) for a method on the class, ("class", value) for other class data,
    ("static", fn) for a staticmethod, ("property", prop) for a Python-level property
    getter, ("missing", None), or ("other", descriptor)."""
    cls = type(obj)
    if cls.__getattribute__ is not object.__getattribute__ or hasattr(cls, "__getattr__"):
        return "other", None
    try:
        static = inspect.getattr_static(obj, name)
    except AttributeError:
        return "missing", None
    instance_dict = getattr(obj, "__dict__", {})
    # getattr_static already prefers a data descriptor on the class to the instance dict.
    if name in instance_dict and static is instance_dict[name]:
        return "instance", static
    if isinstance(static, types.MemberDescriptorType):  # a __slots__ attribute
        try:
            return "instance", getattr(obj, name)
        except AttributeError:
            return "missing", None
    if isinstance(static, property) and isinstance(static.fget, types.FunctionType):
        return "property", static
    if isinstance(static, staticmethod):
        return "static", static.__func__
    if isinstance(static, types.FunctionType):
        return "function", static
    if hasattr(type(static), "__get__"):
        return "other", static
    return "class", static


class UserObjectVariable(VariableTracker):
    """An instance of a user class read from the frame (guarded by its exact type)."""

    def __init__(self, obj: Any, source: Source | None) -> None:
        self.obj = obj
        self.source = source
        # Attributes assigned during capture, in order; the entry sets them on the object.
        self.stored: dict[str, VariableTracker] = {}

    def type_name(self) -> str:
        return type(self.obj).__qualname__

    def python_type(self) -> type:
        return type(self.obj)

    def children(self) -> list[VariableTracker]:
        return list(self.stored.values())

    def setattr(self, tx: Interpreter, name: str, value: VariableTracker) -> None:
        """`obj.name = value` for a plain instance attribute (no `__setattr__`, no descriptor
        on the class) holding an array or a constant."""
        from ember.capture.loops import inputs, refuse_in_loop_body
        from ember.capture.variables.array import ArrayVariable

        if name not in self.stored and self.source is not None and (
                tx.tracer.builder.cache.get(AttrSource(self.source, name)) is value):
            return  # the array it holds, updated in place (`self.w *= d`): nothing to store
        if tx.tracer.graph.parent is not None and inputs.store_attribute(tx, self, name, value):
            return
        refuse_in_loop_body(tx, f"assignment to {self.describe()}.{name}")
        cls = type(self.obj)
        settable = (
            self.source is not None
            and cls.__setattr__ is object.__setattr__
            and hasattr(self.obj, "__dict__")
            and not hasattr(type(inspect.getattr_static(cls, name, None)), "__set__")
        )
        from ember.capture.variables.scalar import PythonScalarVariable

        rebuildable = isinstance(value, (ArrayVariable, PythonScalarVariable))
        if not settable or not (rebuildable or value.is_constant()):
            raise graph_break("side_effect", what=f"assignment to {self.describe()}.{name}")
        self.stored.pop(name, None)  # keep the order of the last assignments
        self.stored[name] = value
        tx.tracer.mark_attribute_store(self)

    def truth(self, tx: Interpreter) -> bool:
        cls = type(self.obj)
        if hasattr(cls, "__bool__") or hasattr(cls, "__len__"):
            return super().truth(tx)
        return True

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        from ember.capture.variables.functions import BoundMethodVariable

        if name in self.stored:
            return self.stored[name]
        if self.source is None:
            return super().getattr(tx, name)
        kind, value = plain_attribute(self.obj, name)
        if kind in ("instance", "class"):
            return tx.wrap(value, AttrSource(self.source, name))
        if kind in ("function", "static"):
            if type(getattr(self.obj, "__dict__", None)) is dict:
                # An instance attribute of that name set later (`mock.patch.object(obj,
                # "method", ...)`) would shadow the class's function.
                tx.tracer.guards.add(AttrSource(self.source, "__dict__"), ("DICT_LACKS", name))
            owner = AttrSource(AttrSource(self.source, "__class__"), name)
            fn = tx.wrap(getattr(type(self.obj), name), owner)
            return fn if kind == "static" else BoundMethodVariable(fn, self)
        if kind == "property":  # inline the getter; `getattr(cls, name)` is the property
            prop = AttrSource(AttrSource(self.source, "__class__"), name)
            getter = tx.wrap(value.fget, AttrSource(prop, "fget"))
            return getter.call(tx, [self], {})
        if kind == "missing":
            raise graph_break(
                "user_error", type="AttributeError",
                message=f"{type(self.obj).__name__!r} object has no attribute {name!r}",
            )
        return super().getattr(tx, name)


    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        call = inspect.getattr_static(type(self.obj), "__call__", None)
        if self.source is None or not isinstance(call, types.FunctionType):
            return super().call(tx, args, kwargs)
        return self.getattr(tx, "__call__").call(tx, args, kwargs)


class IndexTrickVariable(VariableTracker):
    """`np.mgrid`, `np.ogrid`, `np.r_`, `np.c_`: indexing one builds arrays
    (`numpy_api.index_tricks`)."""

    def __init__(self, trick: Any) -> None:
        self.trick = trick

    def describe(self) -> str:
        return next(f"np.{name}" for name in ("mgrid", "ogrid", "r_", "c_")
                    if getattr(np, name) is self.trick)

    def python_type(self) -> type:
        return type(self.trick)

    def getitem(self, tx: Interpreter, index: VariableTracker) -> VariableTracker:
        from ember.capture.variables.array import call_numpy_api, to_api, wrap_api_result
        from ember.capture.variables.containers import TupleVariable
        from ember.capture.variables.prefixes import joined
        from ember import numpy_api

        if self.trick is np.r_ and type(index) is TupleVariable:  # selections among them
            found = joined(tx, index, numpy_api.lookup_function(np.concatenate), scalars=True)
            if found is not None:
                return found
        return wrap_api_result(call_numpy_api(self.describe(), index_tricks.index, tx.graph,
                                              self.trick, to_api(index)))


class OpaqueVariable(VariableTracker):
    """A value capture does not understand: every use of it is a break."""

    def __init__(self, value: Any, source: Source | None) -> None:
        self.value = value
        self.source = source

    def type_name(self) -> str:
        return type(self.value).__qualname__

    def describe(self) -> str:
        if self.source is not None:
            return self.source.name()
        name = getattr(self.value, "__qualname__", None)
        module = getattr(self.value, "__module__", None)
        if isinstance(name, str):
            return f"{module}.{name}" if isinstance(module, str) else name
        return f"a {self.type_name()} value"

    def python_type(self) -> type:
        return type(self.value)
