"""Python functions, which capture inlines: the callee's bytecode runs in a nested
interpreter with its own locals, sharing the graph, the guards and the sources."""

from __future__ import annotations

from types import CodeType, FunctionType
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.bytecode import CO_VARARGS, CO_VARKEYWORDS
from ember.capture.sources import STABLE_GLOBALS, AttrSource, ItemSource, Source
from ember.capture.variables.base import CellVariable, VariableTracker
from ember.capture.variables.containers import DictVariable, TupleVariable
from ember.capture.variables.objects import numpy_python_function

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter


class FunctionVariable(VariableTracker):
    """What inlining needs from a function: code, globals, defaults, closure cells."""

    code: CodeType
    fn_globals: dict[str, Any]
    globals_source: Source | None  # None: the captured frame's own globals
    name: str

    def defaults(self, tx: Interpreter) -> list[VariableTracker]:
        raise NotImplementedError

    def kwdefaults(self, tx: Interpreter) -> dict[str, VariableTracker]:
        raise NotImplementedError

    def closure_cells(self, tx: Interpreter) -> list[CellVariable]:
        raise NotImplementedError

    def describe(self) -> str:
        if self.source is not None:
            return self.source.name()
        return f"function {self.name}"

    def python_type(self) -> type:
        return FunctionType

    def truth(self, tx: Interpreter) -> bool:
        return True

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        return tx.inline_call(self, args, kwargs)


class UserFunctionVariable(FunctionVariable):
    """A function object read from the frame (guarded by identity)."""

    def __init__(self, fn: FunctionType, source: Source | None) -> None:
        self.fn = fn
        self.source = source
        self.code = fn.__code__
        self.fn_globals = fn.__globals__
        self.name = fn.__qualname__

    def _member(self, name: str) -> Source | None:
        return AttrSource(self.source, name) if self.source is not None else None

    def bind_globals(self, tx: Interpreter) -> None:
        if self.fn_globals is tx.root_globals:
            self.globals_source = None
        elif self.source is not None:
            self.globals_source = AttrSource(self.source, "__globals__")
        elif numpy_python_function(self.fn) is self.fn:
            self.globals_source = STABLE_GLOBALS
        else:
            raise graph_break("call", name=f"{self.name} (globals of another module)")

    def _by_code(self) -> bool:
        """Whether the function is guarded by its code rather than by identity (a nested
        function, see builder.py): then what it holds is guarded where it is read."""
        return "<locals>" in self.name and self.source is not None

    def defaults(self, tx: Interpreter) -> list[VariableTracker]:
        src = self._member("__defaults__")
        if not self._by_code():
            return [tx.wrap(v, ItemSource(src, i) if src else None)
                    for i, v in enumerate(self.fn.__defaults__ or ())]
        found = tx.wrap(self.fn.__defaults__, src)  # guards how many there are
        return [] if found.is_constant() and found.constant() is None else found.unpack(tx)

    def kwdefaults(self, tx: Interpreter) -> dict[str, VariableTracker]:
        src = self._member("__kwdefaults__")
        if not self._by_code():
            return {k: tx.wrap(v, ItemSource(src, k) if src else None)
                    for k, v in (self.fn.__kwdefaults__ or {}).items()}
        found = tx.wrap(self.fn.__kwdefaults__, src)
        if found.is_constant() and found.constant() is None:
            return {}
        if not isinstance(found, DictVariable):
            raise graph_break("type", what=f"keyword defaults of {self.describe()}",
                              type=found.type_name())
        return dict(found.items)

    def closure_cells(self, tx: Interpreter) -> list[CellVariable]:
        cells = []
        closure_src = self._member("__closure__")
        for i, name in enumerate(self.code.co_freevars):
            src = AttrSource(ItemSource(closure_src, i), "cell_contents") if closure_src else None
            cells.append(tx.source_cell(self.fn.__closure__[i], src, name))
        return cells


class NestedFunctionVariable(FunctionVariable):
    """A function created during capture by MAKE_FUNCTION (a nested def, lambda or
    comprehension): its defaults and closure cells are trackers."""

    def __init__(self, code: CodeType, fn_globals: dict[str, Any],
                 globals_source: Source | None, defaults: list[VariableTracker],
                 kwdefaults: dict[str, VariableTracker], closure: list[CellVariable]) -> None:
        self.code = code
        self.fn_globals = fn_globals
        self.globals_source = globals_source
        self._defaults = defaults
        self._kwdefaults = kwdefaults
        self._closure = closure
        self.name = code.co_qualname

    def bind_globals(self, tx: Interpreter) -> None:
        pass

    def children(self) -> list[VariableTracker]:
        return [*self._defaults, *self._kwdefaults.values(), *self._closure]

    def defaults(self, tx: Interpreter) -> list[VariableTracker]:
        return self._defaults

    def kwdefaults(self, tx: Interpreter) -> dict[str, VariableTracker]:
        return self._kwdefaults

    def closure_cells(self, tx: Interpreter) -> list[CellVariable]:
        return self._closure


class BoundMethodVariable(VariableTracker):
    """`obj.method` for a Python function found on the object's class."""

    def __init__(self, function: VariableTracker, receiver: VariableTracker) -> None:
        self.function = function
        self.receiver = receiver

    def children(self) -> tuple[VariableTracker, ...]:
        return (self.function, self.receiver)

    def describe(self) -> str:
        return f"{self.receiver.describe()}.{self.function.describe().rsplit('.', 1)[-1]}"

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        return self.function.call(tx, [self.receiver, *args], kwargs)


class PartialVariable(VariableTracker):
    """`functools.partial(fn, *args, **kwargs)`: a call passes the stored arguments first."""

    def __init__(self, function: VariableTracker, args: list[VariableTracker],
                 kwargs: dict[str, VariableTracker], source: Source | None = None) -> None:
        self.function = function
        self.args = args
        self.kwargs = kwargs
        self.source = source

    def describe(self) -> str:
        return self.source.name() if self.source else f"partial({self.function.describe()})"

    def children(self) -> list[VariableTracker]:
        return [self.function, *self.args, *self.kwargs.values()]

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        return self.function.call(tx, [*self.args, *args], {**self.kwargs, **kwargs})


class PartialTypeVariable(VariableTracker):
    """The `functools.partial` class: calling it builds a `PartialVariable`."""

    def __init__(self, source: Source | None) -> None:
        self.source = source

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        if not args:
            raise graph_break("user_error", type="TypeError",
                              message="type 'partial' takes at least one argument")
        return PartialVariable(args[0], list(args[1:]), dict(kwargs))


class DisabledFunctionVariable(VariableTracker):
    """A function marked with `ember.disable`: calling it is always a break."""

    def __init__(self, fn: Any, source: Source | None) -> None:
        self.fn = fn
        self.source = source

    @property
    def reads_run_time_values(self) -> bool:
        """Whether the function reads arrays or floats through its closure or the object it
        is bound to: run in Python, what it returns may be computed from them unseen."""
        fn = self.fn
        held: list[Any] = []
        owner = getattr(fn, "__self__", None)
        if owner is not None:
            held.extend(getattr(owner, "__dict__", {}).values())
            fn = getattr(fn, "__func__", fn)
        for cell in getattr(fn, "__closure__", None) or ():
            try:
                held.append(cell.cell_contents)
            except ValueError:  # an empty cell
                continue
        return any(isinstance(v, (np.ndarray, np.generic, float)) for v in held)

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        raise graph_break("disabled", name=getattr(self.fn, "__qualname__", repr(self.fn)))


def bind_arguments(tx: Interpreter, fn: FunctionVariable, args: list[VariableTracker],
                   kwargs: dict[str, VariableTracker]) -> dict[str, VariableTracker]:
    """Bind a call's arguments to the callee's parameters as CPython does (positional,
    keyword, defaults, `*args`, `**kwargs`); errors are Python's TypeError."""
    code = fn.code
    nargs, nkwonly = code.co_argcount, code.co_kwonlyargcount
    names = code.co_varnames
    positional = names[:nargs]
    kwonly = names[nargs : nargs + nkwonly]
    has_varargs = bool(code.co_flags & CO_VARARGS)
    has_varkw = bool(code.co_flags & CO_VARKEYWORDS)

    def error(message: str) -> Exception:
        return graph_break("user_error", type="TypeError", message=f"{fn.name}() {message}")

    bound: dict[str, VariableTracker] = {}
    for name, value in zip(positional, args):
        bound[name] = value
    extra = args[len(positional):]
    if extra and not has_varargs:
        raise error(f"takes {nargs} positional arguments but {len(args)} were given")
    extra_kw: dict[str, VariableTracker] = {}
    for key, value in kwargs.items():
        if key in bound:
            raise error(f"got multiple values for argument '{key}'")
        if (key in positional and key not in names[: code.co_posonlyargcount]) or key in kwonly:
            bound[key] = value
        elif has_varkw:
            extra_kw[key] = value
        else:
            raise error(f"got an unexpected keyword argument '{key}'")
    defaults = fn.defaults(tx)
    first_default = nargs - len(defaults)
    for i, name in enumerate(positional):
        if name not in bound:
            if i < first_default:
                raise error(f"missing required positional argument: '{name}'")
            bound[name] = defaults[i - first_default]
    kwdefaults = fn.kwdefaults(tx)
    for name in kwonly:
        if name not in bound:
            if name not in kwdefaults:
                raise error(f"missing required keyword-only argument: '{name}'")
            bound[name] = kwdefaults[name]
    slot = nargs + nkwonly
    if has_varargs:
        bound[names[slot]] = TupleVariable(list(extra))
        slot += 1
    if has_varkw:
        bound[names[slot]] = DictVariable(extra_kw)
    return bound
