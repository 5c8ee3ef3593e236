"""Generated entries: the Python function the frame hook runs instead of a captured frame.

The entry takes the frame's argument slots, reloads each graph input by its source, calls the
backend's compiled graph once and rebuilds the function's return value (arrays, NumPy scalars
for `scalar` values, constants, tuples/lists/dicts). Its filename starts with `<ember` so the
hook never captures it. If the compiled graph raises (an error NumPy raises only at run time),
the entry runs the original function as plain Python so the user sees NumPy's exception from
their own line.
"""

from __future__ import annotations

import keyword
import math
from collections.abc import Callable
from types import CodeType, FunctionType
from typing import Any

import numpy as np

from ember import stats
from ember.capture.breaks import graph_break
from ember.capture.bytecode import CO_VARARGS, CO_VARKEYWORDS, argument_names
from ember.capture.sources import ClosureSource, Source
from ember.capture.tracer import Tracer
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.capture.variables.containers import DictVariable, ListVariable, TupleVariable
from ember.capture.variables.functions import UserFunctionVariable
from ember.capture.variables.objects import ModuleVariable, OpaqueVariable, UserObjectVariable
from ember.graph import Value

_LITERAL_TYPES = (type(None), bool, int, str)


class EntryCodegen:
    """Builds the entry's source text and the namespace it runs in."""

    def __init__(self, tracer: Tracer) -> None:
        self.tracer = tracer
        self.namespace: dict[str, Any] = {
            "__ember_g": tracer.root_globals,
            "__ember_b": tracer.root_builtins,
            "__ember_asarray": np.asarray,
        }
        self.params = [_param_name(name, i)
                       for i, name in enumerate(argument_names(tracer.code))]
        self.outputs: list[Value] = []
        self._embedded: dict[int, str] = {}
        # (graph input position, output index) per argument array updated in place.
        self.writebacks = [
            (next(k for k, i in enumerate(tracer.inputs) if i.source == vt.source),
             self.output(vt.value))
            for vt in tracer.mutated
        ]
        self.attribute_lines = [
            f"{self.embed(setattr, 'setattr')}({self.reload(obj.source)}, {name!r}, "
            f"{self.expr(value)})"
            for obj in tracer.attribute_stores
            for name, value in obj.stored.items()
        ]

    # Embedder protocol (sources.py)
    def globals_name(self) -> str:
        return "__ember_g"

    def builtins_name(self) -> str:
        return "__ember_b"

    def local_name(self, index: int) -> str:
        return self.params[index]

    def embed(self, obj: Any, hint: str) -> str:
        key = id(obj)
        if key not in self._embedded:
            name = f"__ember_c{len(self._embedded)}"
            self._embedded[key] = name
            self.namespace[name] = obj
        return self._embedded[key]

    def reload(self, source: Source) -> str:
        root = source.root()
        if isinstance(root, ClosureSource):  # embedded by identity: guard that identity
            self.tracer.guards.add(root, ("ID_MATCH", root.value))
        return source.reload(self)

    # ---- the return value ---------------------------------------------------------------------

    def output(self, value: Value) -> int:
        for i, v in enumerate(self.outputs):
            if v is value:
                return i
        self.outputs.append(value)
        return len(self.outputs) - 1

    def expr(self, vt: VariableTracker) -> str:
        """A Python expression that rebuilds `vt` in the entry."""
        if isinstance(vt, ArrayVariable):
            return self._array(vt)
        if isinstance(vt, ConstantVariable):
            return self._constant(vt.value)
        if isinstance(vt, (TupleVariable, ListVariable, DictVariable)) and vt.source is not None:
            return self.reload(vt.source)
        if isinstance(vt, TupleVariable):
            items = [self.expr(i) for i in vt.items]
            return "(" + "".join(f"{i}, " for i in items).rstrip(" ") + ")"
        if isinstance(vt, ListVariable):
            return "[" + ", ".join(self.expr(i) for i in vt.items) + "]"
        if isinstance(vt, DictVariable):
            pairs = (f"{self._constant(k)}: {self.expr(v)}" for k, v in vt.items.items())
            return "{" + ", ".join(pairs) + "}"
        if isinstance(vt, (UserObjectVariable, ModuleVariable, UserFunctionVariable,
                           OpaqueVariable)) and vt.source is not None:
            return self.reload(vt.source)
        if vt.is_constant():
            return self._constant(vt.constant())
        raise graph_break("type", what=f"returning {vt.describe()}", type=vt.type_name())

    def _array(self, vt: ArrayVariable) -> str:
        if any(m is vt for m in self.tracer.mutated):  # the argument itself, updated
            return self.reload(vt.source)
        for graph_input in self.tracer.inputs:
            if graph_input.value is vt.value:
                return self.reload(graph_input.source)
        out = f"__ember_out[{self.output(vt.value)}]"
        if vt.value.weak:
            return f"{out}.item()"
        if vt.value.scalar:
            return f"{out}[()]"
        return out

    def _constant(self, value: Any) -> str:
        if type(value) in _LITERAL_TYPES:
            return repr(value)
        if type(value) is float and math.isfinite(value):
            return repr(value)
        return self.embed(value, "constant")

    # ---- the function ------------------------------------------------------------------------

    def input_exprs(self) -> list[str]:
        exprs = []
        for graph_input in self.tracer.inputs:
            e = self.reload(graph_input.source)
            exprs.append(f"__ember_asarray({e})" if graph_input.scalar else e)
        return exprs

    def build(self, result: str, compiled: Callable | None, fallback: Callable,
              name: str) -> tuple[FunctionType, str]:
        params = ", ".join(self.params)
        lines = [f"def __ember_entry({params}):"]
        if compiled is None:
            lines += [f"    {line}" for line in self.attribute_lines]
            lines.append(f"    return {result}")
        else:
            self.namespace["__ember_graph"] = compiled
            self.namespace["__ember_fallback"] = fallback
            call = ", ".join(self.input_exprs())
            if self.writebacks:
                self.namespace["__ember_unsafe"] = _unsafe_writeback
                self.namespace["__ember_copyto"] = np.copyto
                targets = tuple(k for k, _ in self.writebacks)
                lines += [
                    f"    __ember_in = ({call},)",
                    f"    if __ember_unsafe(__ember_in, {targets!r}):",
                    f"        return __ember_fallback({params})",
                ]
                call = "*__ember_in"
            lines += [
                "    try:",
                f"        __ember_out = __ember_graph({call})",
                "    except Exception:",
                "        pass",
                "    else:",
                *(f"        __ember_copyto(__ember_in[{k}], __ember_out[{o}])"
                  for k, o in self.writebacks),
                *(f"        {line}" for line in self.attribute_lines),
                f"        return {result}",
                "    # the compiled graph raised: rerun as Python for NumPy's own error",
                f"    return __ember_fallback({params})",
            ]
        source = "\n".join(lines) + "\n"
        code = compile(source, f"<ember entry {name}>", "exec")
        exec(code, self.namespace)  # noqa: S102 - our own generated source
        entry = self.namespace["__ember_entry"]
        entry.__qualname__ = entry.__name__ = f"__ember_entry_{name}"
        return entry, source


def _unsafe_writeback(inputs: tuple[Any, ...], targets: tuple[int, ...]) -> bool:
    """Whether writing the updated arguments back could differ from NumPy: a read-only
    target, or one sharing memory with another argument the graph read (the graph saw that
    argument's old contents). The entry then runs the function as Python."""
    for k in targets:
        target = inputs[k]
        if not target.flags.writeable:
            return True
        for j, other in enumerate(inputs):
            if j != k and isinstance(other, np.ndarray) and np.may_share_memory(target, other):
                return True
    return False


def _param_name(name: str, index: int) -> str:
    if name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("__ember"):
        return name
    return f"__ember_arg{index}"


def make_fallback(func: FunctionType, disable: Callable[[bool], bool]) -> Callable:
    """Call `func` from the frame's argument slots with the frame hook off on this thread."""
    code: CodeType = func.__code__
    nargs, nkw = code.co_argcount, code.co_kwonlyargcount
    kwnames = code.co_varnames[nargs : nargs + nkw]
    has_varargs = bool(code.co_flags & CO_VARARGS)
    has_varkw = bool(code.co_flags & CO_VARKEYWORDS)

    def fallback(*slots: Any) -> Any:
        stats.count("entry_fallbacks")
        positional = list(slots[:nargs])
        kwargs = dict(zip(kwnames, slots[nargs : nargs + nkw]))
        at = nargs + nkw
        if has_varargs:
            positional.extend(slots[at])
            at += 1
        if has_varkw:
            kwargs.update(slots[at])
        previous = disable(False)
        try:
            return func(*positional, **kwargs)
        finally:
            disable(previous)

    return fallback
