"""The variable builder: wraps a Python value read from the frame (with its source) into a
tracker, and records the guard that keeps the capture valid for that value."""

from __future__ import annotations

import builtins
import collections
import copy
import functools
import heapq
import itertools
import types
from typing import TYPE_CHECKING, Any

import numpy as np

from ember import numpy_api
from ember.capture.breaks import graph_break
from ember.capture.resume.continuation import ResumableIterator
from ember.capture.sources import AttrSource, ItemSource, LocalSource, Source
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.numpy_calls import NumpyFunctionVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.builtins import BuiltinVariable
from ember.capture.variables.constant import (
    ConstantVariable,
    is_constant_value,
    is_foldable,
    is_namedtuple_type,
)
from ember.capture.variables.containers import (
    DictVariable,
    IteratorVariable,
    ListVariable,
    NamedTupleVariable,
    TupleVariable,
)
from ember.capture.variables.functions import (
    BoundMethodVariable,
    DisabledFunctionVariable,
    PartialTypeVariable,
    PartialVariable,
    UserFunctionVariable,
)
from ember.capture.variables.objects import (
    ModuleVariable,
    OpaqueVariable,
    UserObjectVariable,
    numpy_python_function,
)
from ember.capture.variables.draws import wrap_random
from ember.capture.variables.scalar import PythonScalarVariable
from ember.markers import ember_attribute

if TYPE_CHECKING:
    from ember.capture.tracer import Tracer

_BUILTIN_FUNCTIONS = frozenset(
    v for v in vars(builtins).values() if isinstance(v, (types.BuiltinFunctionType, type))
) | {itertools.product, itertools.combinations, itertools.permutations, itertools.chain,
     collections.deque, heapq.heappush, heapq.heappop, heapq.heapreplace, heapq.heappushpop,
     functools.reduce, copy.copy, copy.deepcopy, np.ndenumerate}
# EQUALS_MATCH compares these exactly; other constants are guarded by identity.
_EQUALS_TYPES = (type(None), bool, int, float, str)


def _equals_matchable(value: Any, weak_floats: bool = False) -> bool:
    """Whether `value` is guarded by equality and captured as a constant. With weak floats
    (a differentiated function) a tuple holding a Python float is not: its floats must be
    run-time inputs that carry gradients, as a float passed alone is."""
    if type(value) is tuple:  # a NamedTuple's type is guarded too (`NamedTupleVariable`)
        return all(_equals_matchable(v, weak_floats) for v in value)
    return type(value) in _EQUALS_TYPES and not (weak_floats and type(value) is float)


def _is_plain_object(value: Any) -> bool:
    """An instance of a user class whose attributes capture may read."""
    cls = type(value)
    return (
        (hasattr(value, "__dict__") or hasattr(cls, "__slots__"))
        and cls.__module__ not in ("builtins", "numpy")
        and not isinstance(value, (type, types.ModuleType, types.FunctionType))
    )


class VariableBuilder:
    """Wraps values for one capture; a source is wrapped once, so aliasing by source is kept."""

    def __init__(self, tracer: Tracer) -> None:
        self.tracer = tracer
        self.cache: dict[Source, VariableTracker] = {}
        # Each list and dict read from the frame, by id (the frame keeps them alive while
        # capture runs), so that one reached by two paths is one tracker; the entry checks
        # that the paths still meet (`alias_pairs`) and that mutated ones are not shared.
        self.containers: dict[int, VariableTracker] = {}
        self.alias_pairs: list[tuple[Source, Source]] = []

    def wrap(self, value: Any, source: Source | None) -> VariableTracker:
        if source is not None and source in self.cache:
            return self.cache[source]
        known = self.containers.get(id(value)) if type(value) in (list, dict) else None
        if known is not None and source is not None:
            self.alias_pairs.append((known.source, source))
            self.cache[source] = known
            return known
        vt = self._wrap(value, source)
        if source is not None:
            self.cache[source] = vt
        return vt

    def _guard(self, source: Source | None, *check: Any) -> None:
        if source is not None:
            self.tracer.guards.add(source, tuple(check))

    def _wrap(self, value: Any, source: Source | None) -> VariableTracker:
        guard = self._guard
        if type(value) is np.ndarray:
            if source is None:
                raise graph_break("type", what="an array created outside the graph",
                                  type="ndarray")
            return ArrayVariable(self.tracer.add_array_input(value, source), source)
        if isinstance(value, np.generic) and source is not None:
            guard(source, "TYPE_MATCH", type(value))
            return ArrayVariable(self.tracer.add_scalar_input(value, source), source)
        if type(value) is float and self.tracer.weak_floats and source is not None:
            guard(source, "TYPE_MATCH", float)
            return ArrayVariable(self.tracer.add_weak_float_input(value, source), source)
        if type(value) in (float, int) and self.tracer.dynamic_scalars and source is not None:
            guard(source, "TYPE_MATCH", type(value))
            return PythonScalarVariable(self.tracer, type(value), value, source=source)
        if _equals_matchable(value, self.tracer.weak_floats and source is not None):
            guard(source, "EQUALS_MATCH", value)
            return ConstantVariable(value, source)
        if isinstance(value, types.ModuleType):
            guard(source, "ID_MATCH", value)
            return ModuleVariable(value, source)
        if isinstance(value, tuple) and type(value) is tuple:
            guard(source, "TYPE_MATCH", tuple)
            guard(source, "LEN_MATCH", len(value))
            return TupleVariable(self._items(value, source), source)
        if isinstance(value, tuple) and is_namedtuple_type(type(value)) and source is not None:
            guard(source, "TYPE_MATCH", type(value))
            return NamedTupleVariable(self._items(value, source), type(value), source)
        if isinstance(value, range) and source is not None:
            guard(source, "TYPE_MATCH", range)
            for part in ("start", "stop", "step"):
                guard(AttrSource(source, part), "EQUALS_MATCH", getattr(value, part))
            return ConstantVariable(value, source)
        if type(value) is list and source is not None:
            guard(source, "TYPE_MATCH", list)

            def materialize(value: list = value, source: Source = source) -> list:
                guard(source, "LEN_MATCH", len(value))
                return self._items(value, source)

            reads_break = self.tracer.loop_resume and isinstance(source, LocalSource)
            return self._container(value, ListVariable.lazy(source, materialize, reads_break,
                                                            value))
        if type(value) is list:
            return ListVariable(self._items(value, None))
        if type(value) is dict:
            if not all(_equals_matchable(k) for k in value):
                guard(source, "TYPE_MATCH", dict)
                return OpaqueVariable(value, source)
            guard(source, "TYPE_MATCH", dict)
            guard(source, "DICT_KEYS_MATCH", tuple(value.keys()))
            items = {k: self.wrap(v, ItemSource(source, k) if source else None)
                     for k, v in value.items()}
            return self._container(value, DictVariable(items, source))
        return self._wrap_callable_or_object(value, source)

    def _container(self, value: Any, vt: VariableTracker) -> VariableTracker:
        if vt.source is not None:
            self.containers[id(value)] = vt
        return vt

    def _items(self, value: list | tuple, source: Source | None) -> list[VariableTracker]:
        return [self.wrap(v, ItemSource(source, i) if source else None)
                for i, v in enumerate(value)]

    def _wrap_callable_or_object(self, value: Any, source: Source | None) -> VariableTracker:
        guard = self._guard
        drawn = wrap_random(self, value, source)
        if drawn is not None:
            return drawn
        if type(value) is ResumableIterator and source is not None:
            guard(source, "TYPE_MATCH", ResumableIterator)
            if self.tracer.dynamic_scalars:
                # Resumed at another position each time (a loop with a break inside): its
                # FOR_ITER runs in Python rather than unrolling from a guarded position.
                return OpaqueVariable(value, source)
            items = self.wrap(value.items, AttrSource(source, "items"))
            guard(AttrSource(source, "index"), "EQUALS_MATCH", value.index)
            return IteratorVariable(items.unpack(None), source, value.index)
        if (isinstance(value, types.BuiltinMethodType) and type(value.__self__) in (list, dict)
                and source is not None):
            # `lst.append` handed on at a graph break (a call's method on the stack).
            guard(source, "TYPE_MATCH", types.BuiltinMethodType)
            name = self.wrap(value.__name__, AttrSource(source, "__name__")).constant()
            owner = self.wrap(value.__self__, AttrSource(source, "__self__"))
            return owner.getattr(None, name)
        original = ember_attribute(value, "__ember_original__")
        if original is not None:  # an ember.compile wrapper: inline the function it wraps
            guard(source, "ID_MATCH", value)
            return UserFunctionVariable(original, None) if source is None else (
                self.wrap(original, _wrapped_source(source))
            )
        if value is functools.partial:
            guard(source, "ID_MATCH", value)
            return PartialTypeVariable(source)
        if type(value) is functools.partial and source is not None:
            guard(source, "TYPE_MATCH", functools.partial)
            fn = self.wrap(value.func, AttrSource(source, "func"))
            args_source = AttrSource(source, "args")
            guard(args_source, "LEN_MATCH", len(value.args))
            args = self._items(value.args, args_source)
            kwargs = self.wrap(value.keywords, AttrSource(source, "keywords"))
            if isinstance(kwargs, DictVariable):
                return PartialVariable(fn, args, dict(kwargs.items), source)
        if ember_attribute(value, "__ember_disabled__", False):
            guard(source, "ID_MATCH", value)
            from ember.autodiff.inline import variable_for

            gradient = variable_for(value, source, self.wrap)
            return DisabledFunctionVariable(value, source) if gradient is None else gradient
        if isinstance(value, types.FunctionType) and is_foldable(value):
            # NumPy's argument checks written in Python (`normalize_axis_tuple`): called on
            # constants at capture time rather than inlined.
            guard(source, "ID_MATCH", value)
            return ConstantVariable(value, source)
        handler = _numpy_handler(value)
        if handler is not None:
            guard(source, "ID_MATCH", value)
            return NumpyFunctionVariable(value, handler, source)
        wrapped = numpy_python_function(value)
        if wrapped is not None:
            # A NumPy function ember has no handler for, written in Python (`np.fliplr`,
            # `np.isclose`): inlined, NumPy's own module globals read as constants (as `np.*`
            # is: the function itself is what is guarded).
            guard(source, "ID_MATCH", value)
            inlined = UserFunctionVariable(wrapped, None)
            inlined.numpy_name = f"{value.__module__}.{value.__name__}"
            return inlined
        if isinstance(value, types.FunctionType) and _is_builtin(value):  # copy.copy
            guard(source, "ID_MATCH", value)
            return BuiltinVariable(value, source)
        if isinstance(value, types.FunctionType):
            if "<locals>" in value.__qualname__ and source is not None:
                # A nested function is made anew by each call of its parent (and by entries
                # at graph breaks): guard its code and globals; its defaults and cells are
                # read through it and guarded where they are used.
                guard(source, "TYPE_MATCH", types.FunctionType)
                guard(AttrSource(source, "__code__"), "ID_MATCH", value.__code__)
                guard(AttrSource(source, "__globals__"), "ID_MATCH", value.__globals__)
            else:
                guard(source, "ID_MATCH", value)
                if source is not None:
                    # `__code__` is writable: the same function object may run other code.
                    guard(AttrSource(source, "__code__"), "ID_MATCH", value.__code__)
            return UserFunctionVariable(value, source)
        if isinstance(value, types.MethodType) and isinstance(value.__func__, types.FunctionType):
            # A bound method passed in (`f(model.forward, x)`): its function and receiver.
            guard(source, "TYPE_MATCH", types.MethodType)
            fn = self.wrap(value.__func__, AttrSource(source, "__func__") if source else None)
            receiver = self.wrap(value.__self__,
                                 AttrSource(source, "__self__") if source else None)
            return BoundMethodVariable(fn, receiver)
        if _is_builtin(value):
            guard(source, "ID_MATCH", value)
            return BuiltinVariable(value, source)
        if is_constant_value(value) or is_foldable(value):
            guard(source, "ID_MATCH", value)
            return ConstantVariable(value, source)
        if _is_plain_object(value):
            guard(source, "TYPE_MATCH", type(value))
            return UserObjectVariable(value, source)
        # Every use of an opaque value breaks the graph, but its type is still read at capture
        # (`type(x)`, `isinstance`): the entry is only for values of that type.
        guard(source, "TYPE_MATCH", type(value))
        return OpaqueVariable(value, source)


def _wrapped_source(source: Source) -> Source:
    return AttrSource(source, "__ember_original__")


def user_hash(value: Any) -> bool:
    """Whether hashing `value` runs Python code of its class (a dataclass's `__hash__`):
    looking it up among known functions must not, as capture may see it half-built."""
    return isinstance(getattr(type(value), "__hash__", None), types.FunctionType)


def _numpy_handler(value: Any) -> Any:
    if user_hash(value):
        return None
    try:
        return numpy_api.lookup_function(value)
    except TypeError:  # unhashable values cannot be NumPy functions
        return None


def _is_builtin(value: Any) -> bool:
    if user_hash(value):
        return False
    try:
        return value in _BUILTIN_FUNCTIONS
    except TypeError:
        return False
