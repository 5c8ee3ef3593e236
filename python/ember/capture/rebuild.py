"""Rebuilding trackers as Python values in a generated entry.

An entry must turn what capture knew into real objects: the function's return value, and at
a graph break the frame's whole live state (value stack, locals, cells) for the step function.
`Rebuilder.expr(vt)` gives a Python expression for a tracker: arrays come from the graph's
outputs (or are the inputs themselves), values read from the frame are reloaded by their
source, constants are literals or embedded objects, and things capture built (lists, dicts,
iterators, closures, bound methods) are built again. A mutable value is built once, by a
statement of the `prelude`, so that every reference to it shares one object, as in Python.

Anything that cannot be rebuilt is a graph break (the frame then runs as plain Python).
"""

from __future__ import annotations

import collections
import functools
import math
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.resume.continuation import ResumableIterator
from ember.capture.sources import AttrSource, ClosureSource, Source
from ember.capture.tracer import Tracer
from ember.capture.variables import new_objects, scalar
from ember.capture.variables.new_objects import NewObjectVariable
from ember.capture.variables.array import (
    VIEW_OPS,
    ArrayMethodVariable,
    ArrayVariable,
)
from ember.capture.variables.base import (
    CellVariable,
    DeferredAttributeVariable,
    NullVariable,
    VariableTracker,
)
from ember.capture.variables.builtins import BuiltinVariable
from ember.capture.variables.choice import ChoiceVariable
from ember.capture.variables.constant import (
    ConstantMethodVariable,
    ConstantVariable,
    ExceptionVariable,
    FormattedVariable,
)
from ember.capture.variables.containers import (
    ContainerMethodVariable,
    DictVariable,
    IteratorVariable,
    DequeVariable,
    ListVariable,
    NamedTupleVariable,
    SequenceVariable,
    TupleVariable,
)
from ember.capture.variables.functions import (
    BoundMethodVariable,
    DisabledFunctionVariable,
    NestedFunctionVariable,
    PartialTypeVariable,
    PartialVariable,
    UserFunctionVariable,
)
from ember.capture.variables.datalen import DataSliceVariable, DataViewVariable
from ember.capture.variables.numpy_calls import NumpyFunctionVariable
from ember.capture.variables.masked import MaskedVariable
from ember.capture.variables import appended
from ember.capture.variables.appended import AppendedListVariable
from ember.capture.variables.nonzero import NonzeroIndexVariable
from ember.capture.variables.objects import ModuleVariable, OpaqueVariable, UserObjectVariable
from ember.capture.variables.draws import DrawMethodVariable, GeneratorVariable
from ember.capture.variables.scalar import PythonScalarVariable
from ember.capture.variables.slices import RuntimeSliceVariable
from ember.graph import Node, Value
from ember.graph.shapes import dim_terms, python_slice

_LITERAL_TYPES = (type(None), bool, int, str)
FUNCTION = "__ember_func"  # the entry's first parameter, where it takes the frame's function


def _make_function(code: types.CodeType, fn_globals: dict[str, Any], defaults: tuple,
                   kwdefaults: dict[str, Any], closure: tuple | None) -> types.FunctionType:
    """What MAKE_FUNCTION builds, for a function capture created in the frame."""
    fn = types.FunctionType(code, fn_globals, code.co_name, defaults or None, closure)
    fn.__qualname__ = code.co_qualname
    if kwdefaults:
        fn.__kwdefaults__ = kwdefaults
    return fn


def _read_only(view: np.ndarray) -> np.ndarray:
    """A view as NumPy hands out some (`np.diagonal`): not writable (nor are views of it)."""
    view.flags.writeable = False
    return view


def _broadcast_arrays_view(base: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """`base` broadcast to `shape` as `np.broadcast_arrays` hands it out: writable, warning
    on a write."""
    return np.broadcast_arrays(base, np.broadcast_to(np.zeros((), bool), shape))[0]


def _reshape_view(base: np.ndarray, shape: tuple[int, ...], computed: np.ndarray) -> np.ndarray:
    """`base` reshaped without a copy where NumPy's reshape gives a view, else `computed`."""
    try:
        return np.reshape(base, shape, copy=False)
    except ValueError:
        return computed


def _contiguous_view(fn: Callable[[np.ndarray], np.ndarray], base: np.ndarray,
                     computed: np.ndarray) -> np.ndarray:
    """`fn(base)` (`np.ravel`...) where it is a view of a C-contiguous `base`, else
    `computed` (the copy `fn` would make)."""
    return fn(base) if base.flags.c_contiguous else computed


class Rebuilder:
    """Expressions for trackers, and the namespace and statements they need."""

    def __init__(self, tracer: Tracer, params: list[str]) -> None:
        self.tracer = tracer
        self.params = params
        # Nothing that can reach the frame's function (its globals, the function itself) is
        # stored here: the entry lives in the code's cache, which the garbage collector
        # cannot see, so such a reference would keep function and code alive forever. The
        # entry reads them from the frame's function, its first parameter.
        self.namespace: dict[str, Any] = {"__ember_asarray": np.asarray}
        self.outputs: list[Value] = []
        self.prelude: list[str] = []
        self._embedded: dict[int, str] = {}
        self._built: dict[int | tuple[str, int], str] = {}
        self._owners: dict[int, int] = {}  # graph value -> the tracker rebuilt as it
        self._producer_of: dict[int, Node] | None = None

    # Embedder protocol (sources.py)
    def globals_name(self) -> str:
        return "__ember_g"

    def builtins_name(self) -> str:
        return "__ember_b"

    def local_name(self, index: int) -> str:
        return self.params[index]

    def function_name(self) -> str:
        return FUNCTION

    def embed(self, obj: Any, hint: str) -> str:
        key = id(obj)
        if key not in self._embedded:
            name = f"__ember_c{len(self._embedded)}"
            self._embedded[key] = name
            self.namespace[name] = obj
        return self._embedded[key]

    def reload(self, source: Source) -> str:
        return source.reload(self)

    def output(self, value: Value) -> int:
        for i, v in enumerate(self.outputs):
            if v is value:
                return i
        self.outputs.append(value)
        return len(self.outputs) - 1

    # ---- expressions ---------------------------------------------------------------------------

    def expr(self, vt: VariableTracker) -> str:
        """A Python expression for `vt`'s value after the graph has run."""
        if isinstance(vt, ArrayVariable):
            return self._array(vt)
        if isinstance(vt, AppendedListVariable):
            count = (self.constant(vt.known_length) if vt.known_length is not None
                     else self._value(vt.count))
            helper = self.embed(appended.rebuild, "rebuild_list")
            flags = self._value(vt.flags) if vt.flags is not None else "None"
            head = self._value(vt.head) if vt.head is not None else "0"
            other = repr(vt.rebuild_kind(other=True)) if vt.flags is not None else "None"
            return self._once(vt, f"{helper}({self._value(vt.buffer)}, {count}, "
                                  f"{vt.rebuild_kind()!r}, {vt.iterator}, {flags}, {head}, "
                                  f"{vt.deque}, {other})")
        if isinstance(vt, MaskedVariable):
            # `x[mask]` as NumPy makes it, from the values in place and the mask.
            return self._once(vt, f"{self._value(vt.values)}[{self._value(vt.mask)}]")
        if isinstance(vt, NonzeroIndexVariable) and not self.tracer.mutated:
            # NumPy's own np.nonzero of the array the graph computed: its scan runs several
            # times faster than the graph's compaction (a running count and a scatter), and
            # its index arrays are NumPy's. (With arguments updated in place the array could
            # be read back from their new contents: the graph's positions then.)
            nonzero = self.embed(np.nonzero, "nonzero")
            rows = self._once(vt.positions, f"{nonzero}({self._value(vt.positions.x)})")
            return self._once(vt, f"{rows}[{vt.axis}]")
        buffer = (vt.positions.buffer(self.tracer.graph)
                  if isinstance(vt, NonzeroIndexVariable) else None)
        if buffer is not None:
            # One column of the positions the graph put first, a view as NumPy's indices are.
            rows = self._once(buffer, f"{self._value(buffer)}[:{self._value(vt.count)}]")
            return self._once(vt, f"{rows}[:, {vt.axis}]")
        if isinstance(vt, DataViewVariable):
            # The buffer sliced by bounds the graph computed, as NumPy slices it.
            index = "".join(f"{self.expr(i)}, " for i in vt.items)
            view = f"{self._value(vt.base)}[{index}]"
            return self._once(vt, f"{view}.copy().T" if vt.transposed else view)
        if isinstance(vt, GeneratorVariable):
            return vt.reload(self)
        if isinstance(vt, DrawMethodVariable):
            return f"{vt.generator.reload(self)}.{vt.method}"
        if isinstance(vt, ConstantVariable):
            if vt.source is not None and not self.is_literal(vt.value):
                # A class or other object read from the frame: reloaded (it is guarded by
                # identity), not embedded, as it may reach the function being compiled.
                return self.reload(vt.source)
            return self.constant(vt.value)
        if vt.source is not None and isinstance(vt, (
                SequenceVariable, DictVariable, IteratorVariable, UserObjectVariable,
                ModuleVariable, UserFunctionVariable, OpaqueVariable, PartialVariable,
                DisabledFunctionVariable)):
            # Reloaded: what capture changed in it is written back (`store_lines`).
            return self.reload(vt.source)
        if isinstance(vt, NamedTupleVariable):
            fields = ", ".join(self.expr(i) for i in vt.items)
            return f"{self.embed(vt.cls, vt.cls.__name__)}({fields})"
        if isinstance(vt, TupleVariable):
            items = [self.expr(i) for i in vt.items]
            return "(" + "".join(f"{i}, " for i in items).rstrip(" ") + ")"
        if isinstance(vt, (ListVariable, DictVariable, IteratorVariable, NestedFunctionVariable,
                           CellVariable)):
            return self._built_once(vt)
        if isinstance(vt, NewObjectVariable):
            return self._new_object(vt)
        if isinstance(vt, (BuiltinVariable, NumpyFunctionVariable, PartialTypeVariable)):
            return self.embed(vt.constant() if not isinstance(vt, PartialTypeVariable)
                              else functools.partial, "callable")
        if isinstance(vt, (UserFunctionVariable, DisabledFunctionVariable)):
            return self.embed(vt.fn, "function")
        if isinstance(vt, ModuleVariable):
            return self.embed(vt.module, "module")
        if isinstance(vt, OpaqueVariable):
            return self.embed(vt.value, "value")
        if isinstance(vt, UserObjectVariable) and not vt.stored:
            return self.embed(vt.obj, "object")  # read from a stable module: fixed
        if isinstance(vt, ConstantMethodVariable):
            return self.embed(vt.method, "method")
        if isinstance(vt, (ArrayMethodVariable, ContainerMethodVariable,
                           DeferredAttributeVariable)):
            owner = {ArrayMethodVariable: "array", ContainerMethodVariable: "owner",
                     DeferredAttributeVariable: "obj"}[type(vt)]
            return f"({self.expr(getattr(vt, owner))}).{vt.name}"
        if isinstance(vt, BoundMethodVariable):
            method = self.embed(types.MethodType, "MethodType")
            return f"{method}({self.expr(vt.function)}, {self.expr(vt.receiver)})"
        if isinstance(vt, PartialVariable):
            args = [self.expr(a) for a in vt.args]
            args += [f"{k}={self.expr(v)}" for k, v in vt.kwargs.items()]
            partial = self.embed(functools.partial, "partial")
            return f"{partial}({', '.join([self.expr(vt.function), *args])})"
        if isinstance(vt, FormattedVariable):
            return self._fstring(vt)
        if isinstance(vt, ChoiceVariable):
            return (f"({self.expr(vt.if_true)} if {self.expr(vt.flag)} "
                    f"else {self.expr(vt.if_false)})")
        if isinstance(vt, PythonScalarVariable):
            return scalar.render(vt, lambda leaf: self.reload(leaf.source))
        if isinstance(vt, (RuntimeSliceVariable, DataSliceVariable)):  # `x[:n, f()]` at `f()`
            parts = ", ".join(self.expr(p) for p in vt.parts)
            return f"{self.embed(slice, 'slice')}({parts})"
        if isinstance(vt, ExceptionVariable) and vt.args is not None:
            args = [self.expr(a) for a in vt.args]
            args += [f"{k}={self.expr(v)}" for k, v in vt.kwargs.items()]
            return f"{self.embed(vt.cls, vt.cls.__name__)}({', '.join(args)})"
        if vt.is_constant() and not isinstance(vt, NullVariable):
            return self.constant(vt.constant())
        raise graph_break("type", what=f"rebuilding {vt.describe()}", type=vt.type_name())

    def _fstring(self, vt: FormattedVariable) -> str:
        pieces = []
        fmt = self.embed(format, "format")
        for part in vt.parts:
            if isinstance(part, str):
                pieces.append(repr(part))
                continue
            value, conversion, spec = part
            text = self.expr(value)
            if conversion is not None:
                text = f"{self.embed(conversion, conversion.__name__)}({text})"
            pieces.append(f"{fmt}({text}, {spec!r})")
        return "''.join((" + "".join(f"{p}, " for p in pieces) + "))"

    def _built_once(self, vt: VariableTracker) -> str:
        """A statement of the prelude builds `vt`; the expression is its name."""
        key = id(vt)
        if key in self._built:
            return self._built[key]
        name = f"__ember_v{len(self._built)}"
        self._built[key] = name  # before the items: a list may contain itself
        self.prelude.append(f"{name} = {self._construct(vt)}")
        return name

    def _new_object(self, vt: NewObjectVariable) -> str:
        """An instance made during capture: made first (its attributes may refer to it),
        then its `__dict__` filled in assignment order."""
        key = id(vt)
        if key in self._built:
            return self._built[key]
        name = f"__ember_v{len(self._built)}"
        self._built[key] = name
        self.prelude.append(f"{name} = {self.embed(new_objects.new_object, 'new_object')}"
                            f"({self.embed(vt.cls, vt.cls.__name__)})")
        pairs = "".join(f"{k!r}: {self.expr(v)}, " for k, v in vt.attrs.items())
        self.prelude.append(f"{name}.__dict__.update({{{pairs}}})")
        return name

    def _construct(self, vt: VariableTracker) -> str:
        if isinstance(vt, DequeVariable):
            items = "".join(f"{self.expr(i)}, " for i in vt.items)
            return f"{self.embed(collections.deque, 'deque')}(({items}))"
        if isinstance(vt, ListVariable):
            return "[" + ", ".join(self.expr(i) for i in vt.items) + "]"
        if isinstance(vt, DictVariable):
            pairs = (f"{self.constant(k)}: {self.expr(v)}" for k, v in vt.items.items())
            return "{" + ", ".join(pairs) + "}"
        if isinstance(vt, IteratorVariable):
            from ember.capture.loops.ranges import DynamicRangeIterator

            if isinstance(vt, DynamicRangeIterator):
                # Its items exist only as a loop op's trips: nothing Python could resume.
                raise graph_break("type", what="an iterator over places known only at run "
                                               "time", type="iterator")
            rest = vt.items[vt.index:]
            items = "".join(f"{self.expr(i)}, " for i in rest)
            return f"{self.embed(ResumableIterator, 'ResumableIterator')}(({items}))"
        if isinstance(vt, CellVariable):
            return self.cell(vt)
        assert isinstance(vt, NestedFunctionVariable)
        defaults = "".join(f"{self.expr(d)}, " for d in vt.defaults(None))
        kwdefaults = ", ".join(f"{k!r}: {self.expr(v)}" for k, v in vt.kwdefaults(None).items())
        cells = vt.closure_cells(None)
        closure = "(" + "".join(f"{self.expr(c)}, " for c in cells) + ")" if cells else "None"
        make = self.embed(_make_function, "make_function")
        fn_globals = (self.globals_name() if vt.fn_globals is self.tracer.root_globals
                      else self.embed(vt.fn_globals, "globals"))
        return (f"{make}({self.embed(vt.code, 'code')}, {fn_globals}, "
                f"({defaults}), {{{kwdefaults}}}, {closure})")

    def cell(self, vt: CellVariable) -> str:
        """A real cell for a cell tracker: the frame function's own cell where it came from
        its closure (entries serve every function of the code), the very cell of a function
        read from the frame (guarded by identity), otherwise a new cell with the contents."""
        raw = getattr(vt, "raw", None)
        if raw is not None:
            source = vt.cell_source
            if isinstance(source, ClosureSource):
                return f"{self.function_name()}.__closure__[{source.index}]"
            if isinstance(source, AttrSource) and source.attr == "cell_contents":
                return self.reload(source.base)  # `fn.__closure__[i]` of a function read
            return self.embed(raw, "cell")
        cell_type = self.embed(types.CellType, "CellType")
        if vt.contents is None:
            return f"{cell_type}()"
        return f"{cell_type}({self.expr(vt.contents)})"

    def _array(self, vt: ArrayVariable) -> str:
        if any(m is vt for m in self.tracer.mutated):  # the argument itself, updated
            return self.reload(vt.source)
        expr = self._value(vt.value)
        if vt.source is not None:
            return expr
        if vt.value.scalar or vt.value.weak:
            # One object however often referenced (`v = out[1]` is `out[1]`); the entry
            # inlines one referenced once (`EntryCodegen.inline_single_uses`).
            return self._once(vt, expr)
        if self._is_argument(vt.value):
            # Another object over the argument's memory (`x[::-1]` of an empty or length-1
            # `x`, which capture reduces to `x`): NumPy gives a new view, not `x` itself.
            return self._once(vt, f"{expr}.view()")
        owner = self._owners.setdefault(id(vt.value), id(vt))
        if owner != id(vt):
            # Two Python objects with one graph value (`t[::-1]` of an empty `t`): the second
            # is another view of the first, as NumPy's indexing gives.
            return self._once(vt, f"{expr}.view()")
        return expr  # a view is taken once per value (`_value`), however often referenced

    def _once(self, vt: VariableTracker | Value, expr: str) -> str:
        """`expr` evaluated once, by a statement of the prelude, for every reference to `vt`
        (a tracker, or a graph value: every view of it is then taken from one array)."""
        key: int | tuple[str, int] = ("value", id(vt)) if isinstance(vt, Value) else id(vt)
        if key not in self._built:
            name = f"__ember_v{len(self._built)}"
            self._built[key] = name
            self.prelude.append(f"{name} = {expr}")
        return self._built[key]

    def _is_argument(self, value: Value) -> bool:
        return any(i.value is value for i in self.tracer.inputs) or any(
            m.value is value for m in self.tracer.mutated)

    def _value(self, value: Value) -> str:
        """An array the graph computed; a view (transpose, slice, reshape...) is taken again
        from its base, as NumPy returns it, so that it shares the base's memory."""
        for graph_input in self.tracer.inputs:
            if graph_input.value is value:
                return self.reload(graph_input.source)
        for mutated in self.tracer.mutated:
            # The argument updated in place: the entry writes the new contents back into it,
            # so views of it are taken from the argument itself and see them, as in NumPy.
            if mutated.value is value:
                return self.reload(mutated.source)
        # A differentiated graph hands out its results (never views NumPy takes of them
        # again): the tape follows the gradient through the arrays it returned.
        if not (value.scalar or value.weak) and self.tracer.graph.root.loop_ops:
            for base, view, take_view in self.tracer.graph.root.opaque_views:
                if view is value:
                    return self._once(value, f"{self.embed(take_view, 'take_view')}("
                                             f"{self._value(base)})")
            node = self._producers().get(id(value))
            if node is not None and node.op in VIEW_OPS:
                base = self._value(node.inputs[0])
                contiguous = self.tracer.graph.root.contiguous_views.get(value.id)
                if contiguous is not None:
                    return self._contiguous_view(value, contiguous, base)
                if node.op == "reshape" and self._reaches_mutated(node.inputs[0]):
                    # Taken before the write-back: a reshape that must copy would copy the old
                    # contents, so it takes the graph's result instead (a copy, as NumPy's is).
                    computed = f"__ember_out[{self.output(value)}]"
                    return self._once(value, f"{self.embed(_reshape_view, 'reshape_view')}("
                                             f"{base}, {self._dims(node.attrs['shape'])}, "
                                             f"{computed})")
                # Once per value: a reshape that copies (of a non-contiguous argument) is one
                # array, and views of it (`t[::-1]` of `t = a.reshape(-1)`) share its memory.
                view = self.view_expr(node, base)
                if self.tracer.graph.root.broadcast_views.get(id(value)) == "broadcast_arrays":
                    view = (f"{self.embed(_broadcast_arrays_view, 'broadcast_arrays_view')}("
                            f"{base}, {self._dims(node.attrs['shape'])})")
                if value.id in self.tracer.graph.root.read_only:
                    view = f"{self.embed(_read_only, 'read_only')}({view})"
                return self._once(value, view)
        out = f"__ember_out[{self.output(value)}]"
        if value.weak:
            return f"{out}.item()"
        if value.scalar:
            return f"{out}[()]"
        return out

    def _contiguous_view(self, value: Value, fn: str, base: str) -> str:
        """`value` taken with NumPy's `fn` (a view only of a C-contiguous array,
        `Graph.contiguous_views`); of an argument updated in place, taken before the
        write-back, a copy is the graph's result."""
        node = self._producers()[id(value)]
        if not self._reaches_mutated(node.inputs[0]):
            return self._once(value, f"{self.embed(np, 'np')}.{fn}({base})")
        computed = f"__ember_out[{self.output(value)}]"
        return self._once(value, f"{self.embed(_contiguous_view, 'contiguous_view')}("
                                 f"{self.embed(getattr(np, fn), fn)}, {base}, {computed})")

    def _reaches_mutated(self, value: Value) -> bool:
        """Whether `value` is an updated argument, or a view of one."""
        while True:
            if any(m.value is value for m in self.tracer.mutated):
                return True
            node = self._producers().get(id(value))
            if node is None or node.op not in VIEW_OPS:
                return False
            value = node.inputs[0]

    def _producers(self) -> dict[int, Node]:
        if self._producer_of is None:
            self._producer_of = {id(n.out): n for n in self.tracer.graph.nodes}
        return self._producer_of

    def view_expr(self, node: Node, base: str) -> str:
        """`node` (a view op) applied to `base` in NumPy."""
        attrs = node.attrs
        if node.op == "slice":
            index = tuple(map(python_slice, attrs["start"], attrs["stop"], attrs["step"]))
            return f"{base}[{self.embed(index, 'index')}]"
        if node.op == "transpose":
            return f"{base}.transpose({tuple(attrs['perm'])!r})"
        np_name = self.embed(np, "np")
        if node.op in ("reshape", "broadcast_to"):
            return f"{np_name}.{node.op}({base}, {self._dims(attrs['shape'])})"
        return f"{np_name}.{node.op}({base}, {tuple(attrs['axis'])!r})"

    def _dims(self, dims: list[int | str]) -> str:
        """A shape as an expression; a symbolic size is computed from its symbols (`2*s0` is
        twice `s0`), each read off an input that has it."""
        return "(" + "".join(f"{self._dim(d)}, " for d in dims) + ")"

    def _dim(self, d: int | str) -> str:
        terms, constant = dim_terms(d)
        parts = [repr(constant)]
        for product, coefficient in terms.items():
            parts.append("*".join([repr(coefficient), *map(self._symbol, product)]))
        return "+".join(parts) if terms else repr(constant)

    def _symbol(self, symbol: str) -> str:
        found = next(((i, axis) for i in self.tracer.inputs
                      for axis, size in enumerate(i.value.shape) if size == symbol), None)
        if found is None:
            raise graph_break("dynamic_shape", what=f"size {symbol}")
        graph_input, axis = found
        return f"{self.reload(graph_input.source)}.shape[{axis}]"

    @staticmethod
    def is_literal(value: Any) -> bool:
        """Whether `constant` writes `value` as a literal rather than embedding it."""
        return type(value) in _LITERAL_TYPES or (type(value) is float and math.isfinite(value))

    def constant(self, value: Any) -> str:
        if self.is_literal(value):
            return repr(value)
        return self.embed(value, "constant")
