"""Python values known at capture time: numbers, strings, None, tuples of constants, dtypes,
NumPy scalars, slices, ranges, classes. Capture computes on them directly (shapes, sizes,
`is None` tests), so they never reach the graph except as `const` operands."""

from __future__ import annotations

import operator
import types
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.sources import AttrSource, Source
from ember.capture.variables.base import VariableTracker

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

BINARY_OPERATORS = {
    "+": operator.add, "&": operator.and_, "//": operator.floordiv, "<<": operator.lshift,
    "@": operator.matmul, "*": operator.mul, "%": operator.mod, "|": operator.or_,
    "**": operator.pow, ">>": operator.rshift, "-": operator.sub, "/": operator.truediv,
    "^": operator.xor,
}
COMPARE_OPERATORS = {
    "<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
    ">": operator.gt, ">=": operator.ge,
}
UNARY_OPERATORS = {"-": operator.neg, "+": operator.pos, "~": operator.invert,
                   "not": operator.not_}

# Values of these types cannot change, so reading their attributes and calling their methods
# at capture time has no effect the compiled code would have to repeat.
IMMUTABLE_TYPES = (
    int, float, bool, complex, str, bytes, type(None), tuple, frozenset, slice, range,
    type(Ellipsis), type(NotImplemented), np.dtype, np.generic, np.finfo, np.iinfo,
    type(np._NoValue),  # NumPy's "argument not given" sentinel, compared by identity
)

# Callables whose result depends only on their (constant) arguments.
FOLDABLE_CALLABLES = frozenset({
    int, float, bool, complex, str, tuple, slice, range, abs, round, divmod, pow, len, min, max,
    sum, any, all, sorted, repr, isinstance, issubclass, hash, chr, ord, frozenset,
    np.dtype, np.finfo, np.iinfo, np.result_type, np.promote_types, np.can_cast, np.issubdtype,
    operator.index, np.lib.array_utils.normalize_axis_index,  # (as NumPy's own code uses them)
    np.lib.array_utils.normalize_axis_tuple,
})


def is_constant_value(value: Any) -> bool:
    """Whether `value` can be tracked as a constant: immutable values, classes and tuples of
    those."""
    if isinstance(value, tuple):
        return all(is_constant_value(v) for v in value)
    return isinstance(value, (IMMUTABLE_TYPES, type))


def is_foldable(fn: Any) -> bool:
    """Whether calling `fn` on constants may be done at capture time."""
    if isinstance(getattr(type(fn), "__hash__", None), types.FunctionType):
        return False  # hashing it would run its class's code
    try:
        if fn in FOLDABLE_CALLABLES:
            return True
    except TypeError:
        return False
    if isinstance(fn, type) and issubclass(fn, np.generic):
        return True
    module = getattr(fn, "__module__", None) or ""
    return module == "math" and isinstance(fn, types.BuiltinFunctionType)


def fold(what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Call `fn` at capture time; an exception becomes a break that runs the frame as plain
    Python, so the user sees Python's own error. NumPy math that sets a floating-point flag
    (`np.int8(127) + np.int8(1)`, `np.float64(1e308) * 10`) is not folded: NumPy warns on
    every call, so the instruction runs in Python between two graphs."""
    try:
        with np.errstate(all="raise"):
            return fn(*args, **kwargs)
    except FloatingPointError as exc:
        raise graph_break("side_effect", what=f"{what} ({exc})") from exc
    except Exception as exc:
        raise graph_break("user_error", type=type(exc).__name__, message=f"{what}: {exc}") from exc


# Py_TPFLAGS_IMMUTABLETYPE: builtin and extension types, whose attributes cannot be set.
_IMMUTABLE_TYPE = 1 << 8


class ConstantVariable(VariableTracker):
    """An immutable Python value."""

    def __init__(self, value: Any, source: Source | None = None) -> None:
        self.value = value
        self.source = source

    def describe(self) -> str:
        if self.source is not None:
            return self.source.name()
        return repr(self.value)

    def type_name(self) -> str:
        return type(self.value).__name__

    def is_constant(self) -> bool:
        return True

    def constant(self) -> Any:
        return self.value

    def python_type(self) -> type:
        return type(self.value)

    def truth(self, tx: Interpreter) -> bool:
        return bool(fold("truth value", bool, self.value))

    def unpack(self, tx: Interpreter) -> list[VariableTracker]:
        if not isinstance(self.value, (tuple, range, str, bytes, frozenset)):
            return super().unpack(tx)
        return [ConstantVariable(v) for v in self.value]

    def length(self, tx: Interpreter) -> int:
        return fold("len()", len, self.value)

    def getitem(self, tx: Interpreter, index: VariableTracker) -> VariableTracker:
        if not index.is_constant():
            return super().getitem(tx, index)
        return ConstantVariable(fold("indexing", operator.getitem, self.value, index.constant()))

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        if name.startswith("__") or not isinstance(self.value, IMMUTABLE_TYPES + (type,)):
            return super().getattr(tx, name)
        if isinstance(self.value, type) and not self.value.__flags__ & _IMMUTABLE_TYPE:
            # A class defined in Python: its attributes can be set again (`Config.lr = 0.5`),
            # so what is read is guarded through its source like any other value.
            if self.source is None or tx is None:
                return super().getattr(tx, name)
            attr = fold(f"attribute {name}", getattr, self.value, name)
            return tx.wrap(attr, AttrSource(self.source, name))
        attr = fold(f"attribute {name}", getattr, self.value, name)
        if isinstance(attr, (types.BuiltinMethodType, types.MethodWrapperType)) or (
            callable(attr) and not isinstance(attr, type)
        ):
            return ConstantMethodVariable(self.value, name, attr)
        if is_constant_value(attr):
            return ConstantVariable(attr)
        return super().getattr(tx, name)

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        if isinstance(self.value, type) and issubclass(self.value, BaseException):
            return ExceptionVariable(self.value, args, kwargs)
        if isinstance(self.value, type) and is_namedtuple_type(self.value):
            return _namedtuple(self.value, args, kwargs)
        if self.value is np.errstate and not args:
            from ember.capture.variables.errstate import errstate_call

            block = errstate_call(kwargs)
            if block is not None:
                return block
        if _float_scalar_type(self.value) and len(args) == 1 and not kwargs:
            converted = _to_float_scalar(tx, self.value, args[0])
            if converted is not None:
                return converted
        if not is_foldable(self.value):
            from ember.capture.variables import new_objects

            if self.source is not None and new_objects.plain_class(self.value):
                return new_objects.construct(tx, self, args, kwargs)
            return super().call(tx, args, kwargs)
        from ember.capture.loops import scalars as loop_scalars

        if not kwargs and not all(a.is_constant() for a in args):
            found = loop_scalars.math_call(tx, self.value, args,
                                           checked=loop_scalars.raises_like_python(tx))
            if found is not None:
                return found
        return fold_call(self.value, self.describe(), args, kwargs)


def _float_scalar_type(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, np.floating) and value is not np.longdouble


def _to_float_scalar(tx: Interpreter, cls: type, arg: VariableTracker) -> VariableTracker | None:
    """`np.float64(v)` of a 0-d number: the NumPy scalar, cast as `astype` casts (NumPy's
    own `a.dtype.type(a / b)`); of anything else (an array: NumPy returns an array) None."""
    from ember.capture.variables.array import ArrayVariable

    if not isinstance(arg, ArrayVariable) or arg.value.shape or arg.value.dtype.kind not in "biuf":
        return None
    return ArrayVariable(tx.graph.op("astype", [arg.value], dtype=np.dtype(cls), weak=False,
                                     scalar=True))


def is_namedtuple_type(cls: type) -> bool:
    """A `collections.namedtuple` / `typing.NamedTuple` class with the stock accessors."""
    import inspect

    fields = getattr(cls, "_fields", None)
    return (
        isinstance(fields, tuple)
        and issubclass(cls, tuple)
        and cls.__getattribute__ is tuple.__getattribute__
        and getattr(cls, "__new__", None) is not None
        and all(type(inspect.getattr_static(cls, f, None)).__name__ == "_tuplegetter"
                for f in fields)
    )


def _namedtuple(cls: type, args: list[VariableTracker],
                kwargs: dict[str, VariableTracker]) -> VariableTracker:
    """`Point(x, y=...)`: its fields bound as the generated `__new__` binds them."""
    from ember.capture.variables.containers import NamedTupleVariable

    fields = cls._fields  # type: ignore[attr-defined]
    defaults = {k: ConstantVariable(v) for k, v in cls._field_defaults.items()}  # type: ignore[attr-defined]
    if len(args) > len(fields) or set(kwargs) - set(fields):
        raise graph_break("user_error", type="TypeError",
                          message=f"{cls.__name__}() got unexpected arguments")
    bound = dict(zip(fields, args))
    for name, value in kwargs.items():
        if name in bound:
            raise graph_break("user_error", type="TypeError",
                              message=f"{cls.__name__}() got multiple values for {name!r}")
        bound[name] = value
    missing = [f for f in fields if f not in bound and f not in defaults]
    if missing:
        raise graph_break("user_error", type="TypeError",
                          message=f"{cls.__name__}() missing arguments {missing}")
    return NamedTupleVariable([bound.get(f, defaults.get(f)) for f in fields], cls, None)


class ExceptionVariable(VariableTracker):
    """An exception instance about to be raised: raising is a graph break where the exception
    is built (from the class and the arguments kept here) and raised in Python."""

    def __init__(self, cls: type[BaseException], args: list[VariableTracker] | None = None,
                 kwargs: dict[str, VariableTracker] | None = None) -> None:
        self.cls = cls
        self.args = args
        self.kwargs = kwargs or {}

    def describe(self) -> str:
        return f"{self.cls.__name__}(...)"

    def children(self) -> list[VariableTracker]:
        return [*(self.args or ()), *self.kwargs.values()]

    def python_type(self) -> type:
        return self.cls


class FormattedVariable(VariableTracker):
    """An f-string with parts known only at run time (an array formatted): built in Python,
    where it is used outside the graph (a graph break rebuilds it from its parts)."""

    def __init__(self, parts: list[tuple[VariableTracker, Any, str] | str]) -> None:
        # A part is a literal string, or (value, conversion: str/repr/ascii/None, spec).
        self.parts = parts

    def describe(self) -> str:
        return "an f-string"

    def children(self) -> list[VariableTracker]:
        return [p[0] for p in self.parts if not isinstance(p, str)]

    def type_name(self) -> str:
        return "str"

    def python_type(self) -> type:
        return str


class ConstantMethodVariable(VariableTracker):
    """A method of an immutable constant (`shape.index`, `dtype.newbyteorder`...)."""

    def __init__(self, owner: Any, name: str, method: Any) -> None:
        self.owner = owner
        self.name = name
        self.method = method

    def describe(self) -> str:
        return f"{type(self.owner).__name__}.{self.name}"

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        if (self.name == "join" and isinstance(self.owner, str) and len(args) == 1
                and not kwargs and not args[0].is_constant()):
            return _join(tx, self.owner, args[0])
        return fold_call(self.method, self.describe(), args, kwargs)


def _join(tx: Interpreter, separator: str, iterable: VariableTracker) -> VariableTracker:
    """`sep.join(strings)` where some strings are f-strings built in Python: one more."""
    parts: list = []
    for i, item in enumerate(iterable.unpack(tx)):
        if i and separator:
            parts.append(separator)
        if isinstance(item, FormattedVariable):
            parts += item.parts
        elif item.is_constant() and isinstance(item.constant(), str):
            parts.append(item.constant())
        else:
            raise graph_break("call", name=f"str.join of {item.describe()}")
    return FormattedVariable(parts)


def fold_call(fn: Any, what: str, args: list[VariableTracker],
              kwargs: dict[str, VariableTracker]) -> VariableTracker:
    """Call `fn` on constant arguments at capture time; the result must be a constant too, or
    a new list of constants (`str.split`)."""
    from ember.capture.variables.containers import ListVariable

    if not all(a.is_constant() for a in args) or not all(v.is_constant() for v in kwargs.values()):
        raise graph_break("call", name=f"{what} with non-constant arguments")
    result = fold(what, fn, *[a.constant() for a in args],
                  **{k: v.constant() for k, v in kwargs.items()})
    if type(result) is list and all(is_constant_value(v) for v in result):
        return ListVariable([ConstantVariable(v) for v in result])
    if not is_constant_value(result):
        raise graph_break("type", what=f"the result of {what}", type=type(result).__name__)
    return ConstantVariable(result)
