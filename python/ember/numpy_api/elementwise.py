"""Operators, ufuncs and the other elementwise functions (`np.clip`, `np.where`)."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import OPS, Graph, Value
from ember.graph.dtypes import check_supported, representative
from ember.graph.shapes import broadcast_shapes, format_shape
from ember.numpy_api.convert import (
    any_value,
    as_numpy_scalar,
    dtype_arg,
    static_int,
    to_value,
)
from ember.numpy_api.literals import constant_array
from ember.quiet import quiet

BINARY_OPERATORS = {
    "+": "add", "-": "sub", "*": "mul", "/": "div", "//": "floordiv", "%": "mod", "**": "pow",
    "&": "bitwise_and", "|": "bitwise_or", "^": "bitwise_xor", "<<": "left_shift",
    ">>": "right_shift",
}
COMPARE_OPERATORS = {"<": "lt", "<=": "le", "==": "eq", "!=": "ne", ">": "gt", ">=": "ge"}
UNARY_OPERATORS = {"-": "neg", "+": "positive", "~": "bitwise_not", "abs": "abs"}

Handler = Callable[..., Any]


def _stand_in(v: Value, keep_rank: bool) -> object:
    """What a dry run of NumPy gets for v: a Python scalar for a weak value, else a zero of
    v's dtype, 0-d so that it broadcasts with anything (shape errors are ours to raise), or of
    v's rank with no elements where the rank decides the error (matmul)."""
    if v.weak:
        return representative(v.dtype, True)
    if keep_rank and v.ndim:
        return np.empty((0,) * v.ndim, v.dtype)
    return np.zeros((), v.dtype)


def check_python_scalars(fn: Callable[..., Any], args: list[object]) -> None:
    """Let NumPy itself reject Python scalars it cannot combine with the arrays' dtypes
    (`int8_array + 1000` is an OverflowError), by a dry run on empty stand-ins."""
    if not any(isinstance(a, int) and not isinstance(a, bool) for a in args):
        return
    stand_ins = [_stand_in(a, fn is np.matmul) if isinstance(a, Value) else a for a in args]
    with quiet():
        fn(*stand_ins)


def check_python_floats(what: str, args: list[object]) -> None:
    """A finite Python float the arrays' float dtype cannot hold (`float32_array + 1e40`):
    NumPy casts it to that dtype first, which warns "overflow encountered in cast" however
    many elements there are (none) and whether or not the result is used. Left to NumPy."""
    floats = [a for a in args if type(a) is float and math.isfinite(a)]
    dtypes = [a.dtype for a in args if isinstance(a, Value) and not a.weak]
    if not floats or not dtypes:
        return
    dtype = np.result_type(*dtypes, *floats)
    if dtype.kind == "f" and any(abs(f) > np.finfo(dtype).max for f in floats):
        raise Unsupported(f"{what} of a Python float {dtype} cannot hold")


def python_ints_out_of_range(graph: Graph, values: list[object]) -> Value | None:
    """For a Python int known only at run time (a weak int value) meeting an integer array of
    a narrower dtype, where NumPy raises OverflowError for an int beyond that dtype's range
    (and compares the numbers): a 0-d bool, true where it is beyond; None where nothing can
    be (no such int, or capture bounds it: a loop index, a narrow int)."""
    ints = [v for v in values if isinstance(v, Value) and v.weak and v.dtype.kind == "i"]
    dtypes = [v.dtype for v in values
              if isinstance(v, Value) and not v.weak and v.dtype.kind in "iu"]
    if not ints or not dtypes or len(dtypes) != len(values) - len(ints):
        return None
    dtype = np.result_type(*dtypes)
    if dtype == np.int64:
        return None
    info = np.iinfo(dtype)
    from ember.capture.loops.intervals import interval

    failed = None
    for v in ints:
        known = interval(v)
        if known is not None and info.min <= known[0] and known[1] <= info.max:
            continue
        beyond = graph.op("lt", [v, graph.const(max(int(info.min), -2**63), np.int64, weak=False)])
        if info.max < 2**63:
            high = graph.op("gt", [v, graph.const(int(info.max), np.int64, weak=False)])
            beyond = graph.op("logical_or", [beyond, high])
        failed = beyond if failed is None else graph.op("logical_or", [failed, beyond])
    return failed


def _check_pow(x: Value, y: object) -> None:
    if (isinstance(y, int) and not isinstance(y, bool) and y < 0 and x.dtype.kind in "biu"):
        raise ValueError("Integers to negative integer powers are not allowed.")


_COMPARISONS = {"lt": operator.lt, "le": operator.le, "eq": operator.eq, "ne": operator.ne,
                "gt": operator.gt, "ge": operator.ge}


def _beyond_the_range(graph: Graph, op: str, args: list[object]) -> Value | None:
    """An integer array compared with a Python int beyond its dtype's range: NumPy compares
    the numbers (`uint8_array > -1` is all true, `uint8_array == 256` all false), so every
    element has one answer (the int as the dtype would wrap)."""
    arrays = [a for a in args if isinstance(a, Value)]
    if len(args) != 2 or len(arrays) != 1:
        return None
    x = arrays[0]
    other = args[1] if args[0] is x else args[0]
    if x.weak or x.dtype.kind not in "iu" or type(other) is not int:
        return None
    info = np.iinfo(x.dtype)
    if info.min <= other <= info.max:
        return None
    pair = (info.min, other) if args[0] is x else (other, info.min)
    return graph.op("eq" if _COMPARISONS[op](*pair) else "ne", [x, x])


def apply(graph: Graph, op: str, args: list[object], *, operator: bool) -> Any:
    """`op` over the arguments. An operator on Python scalars only gives a Python scalar
    (weak); a NumPy function gives a NumPy scalar. Without any array argument NumPy is simply
    called (the result is a constant)."""
    fn = OPS[op].numpy
    assert fn is not None
    what = f"np.{fn.__name__}"
    if not any_value(args):
        try:
            with np.errstate(all="raise"):
                result = fn(*args)
        except FloatingPointError as exc:
            # NumPy warns on every call: not a constant of the graph
            raise Unsupported(f"{what} of constants sets a floating-point flag ({exc})") from exc
        if type(result) is np.ndarray:
            return constant_array(graph, result)
        return result
    check_python_scalars(fn, args)
    check_python_floats(what, args)
    if op in _COMPARISONS:
        decided = _beyond_the_range(graph, op, args)
        if decided is not None:
            return decided
    values = [to_value(graph, a, what) for a in args]
    if op == "pow":
        _check_pow(values[0], args[1])
    if operator or not all(v.weak for v in values):
        result = graph.op(op, values)
        if operator and result.scalar and all(v.scalar or v.weak for v in values):
            # NumPy's scalar math, not the ufunc, computes an operator on NumPy scalars: its
            # warnings name "scalar divide", "scalar add"...
            graph.warns_as(result, f"scalar {fn.__name__}")
        return result
    return graph.op(op, values, weak=False, scalar=True)


def _type_name(x: object) -> str:
    """The type name Python's operator errors print for an operand."""
    if isinstance(x, Value):
        return type(x.dtype.type(0).item()).__name__ if x.weak else \
            f"numpy.{x.dtype.type.__name__}"
    return type(x).__name__ if not isinstance(x, np.generic) else f"numpy.{type(x).__name__}"


def binary_op(graph: Graph, op: str, a: object, b: object) -> Any:
    """`a <op> b` for op in `+ - * / // % ** @ & | ^ << >>`."""
    if op == "@":
        from ember.numpy_api.linalg import matmul  # linalg builds on this module

        def is_array(x: object) -> bool:
            return isinstance(x, Value) and not x.scalar and not x.weak

        if not is_array(a) and not is_array(b):  # NumPy scalars have no `@`
            raise TypeError(f"unsupported operand type(s) for @: '{_type_name(a)}' and "
                            f"'{_type_name(b)}'")
        return matmul(graph, a, b)
    if op not in BINARY_OPERATORS:
        raise Unsupported(f"operator {op!r} on arrays")
    shortcut = _power_shortcut(a, b) if op == "**" else None
    if shortcut is not None:
        return apply(graph, shortcut, [a], operator=True)
    return apply(graph, BINARY_OPERATORS[op], [a, b], operator=True)


def _power_shortcut(a: object, b: object) -> str | None:
    """The ufunc `ndarray.__pow__` (and `**=`) computes `a ** b` with instead of np.power
    (NumPy's `fast_scalar_power`), for an exact Python int or float exponent: `** 2` is
    np.square of any array (a bool array squares to int8 where np.power gives int64), `** -1`
    np.reciprocal and `** 0.5` np.sqrt of a float array. Their values differ from power's
    (`sqrt(-0.0)` is -0.0) and their warnings name them ("invalid value encountered in
    sqrt")."""
    if not isinstance(a, Value) or a.scalar or a.weak:
        return None
    if type(b) is int and b == 2:
        return "square"
    if a.dtype.kind != "f":
        return None
    if type(b) is int and b == -1:
        return "reciprocal"
    if type(b) is float and b == 0.5:
        return "sqrt"
    return None


def compare_op(graph: Graph, op: str, a: object, b: object) -> Any:
    """`a <op> b` for op in `< <= == != > >=`."""
    if op not in COMPARE_OPERATORS:
        raise Unsupported(f"comparison {op!r} on arrays")
    for x in (a, b):
        if not isinstance(x, (Value, bool, int, float, np.generic)):
            raise Unsupported(f"comparing an array with {type(x).__name__}")
    return apply(graph, COMPARE_OPERATORS[op], [a, b], operator=True)


def unary_op(graph: Graph, op: str, a: object) -> Any:
    """`-a`, `+a`, `~a`, `abs(a)`. `not a` needs the array's truth value: unsupported."""
    if op == "not":
        raise Unsupported("`not` on an array needs its truth value (bool() of array data)")
    if op not in UNARY_OPERATORS:
        raise Unsupported(f"unary operator {op!r} on arrays")
    return apply(graph, UNARY_OPERATORS[op], [a], operator=True)


def _ufunc_handler(op: str) -> Handler:
    fn = OPS[op].numpy
    assert isinstance(fn, np.ufunc)
    nin = fn.nin

    def handler(graph: Graph, *args: object, out: object = None, where: object = True,
                casting: str = "same_kind", order: str = "K", dtype: object = None,
                subok: bool = True) -> Any:
        what = f"np.{fn.__name__}"
        if len(args) == nin + 1 and out is None:  # `out` given positionally (None: none)
            *args, out = args
        if len(args) != nin:
            raise TypeError(f"{what}() takes from {nin} to {nin + 1} positional arguments but "
                            f"{len(args)} were given")
        if out is not None:
            raise Unsupported(f"{what} with out= (writes into an existing array)")
        if where is not True:
            raise Unsupported(f"{what} with where=")
        dt = dtype_arg(dtype, what)
        if casting != "same_kind" or order != "K":
            raise Unsupported(f"{what} with casting= or order=")
        if dt is not None:
            return _with_dtype(graph, op, what, list(args), dt)
        return apply(graph, op, list(args), operator=False)

    handler.__name__ = fn.__name__
    return handler


def _with_dtype(graph: Graph, op: str, what: str, args: list[object], dt: np.dtype) -> Any:
    """A ufunc with `dtype=`: every operand cast to `dt` (NumPy's `same_kind` rule; others
    are left to NumPy, which raises) and the loop of `dt` run, as `np.multiply(a, w,
    dtype=np.float64)` in NumPy's own `np.average`. Predicates, whose `dtype=` names the
    loop and not the result, are left to NumPy."""
    if op in _COMPARISONS or op.startswith("logical_") or op in (
            "isnan", "isinf", "isfinite", "signbit"):
        raise Unsupported(f"{what} with dtype=")
    cast = []
    for arg in args:
        value = to_value(graph, arg, what)
        if not np.can_cast(value.dtype, dt, "same_kind"):
            raise Unsupported(f"{what} with dtype={dt} of a {value.dtype} operand")
        # A Python number stays weak: it takes `dt`'s loop as NumPy converts it (NEP 50),
        # with NumPy's overflow flag where `dt` cannot hold it.
        cast.append(value if value.dtype == dt or value.weak else
                    graph.op("astype", [value], dtype=dt, weak=False))
    result = apply(graph, op, cast, operator=False)
    if not isinstance(result, Value) or result.dtype != dt:
        raise Unsupported(f"{what} with dtype={dt}: another loop")
    return result


def clip(graph: Graph, a: object, a_min: object = None, a_max: object = None, out: object = None,
         *, min: object = None, max: object = None, **kwargs: object) -> Any:
    """np.clip(a, lo, hi) = minimum(maximum(a, lo), hi), NumPy's own definition."""
    lo = a_min if min is None else min
    hi = a_max if max is None else max
    if out is not None or kwargs:
        raise Unsupported("np.clip with out= or ufunc keywords")
    if not any_value([a, lo, hi]):
        return np.clip(a, lo, hi)  # type: ignore[call-overload]
    check_python_scalars(np.clip, [a, lo, hi])
    check_python_floats("np.clip", [a, lo, hi])
    shapes = [v.shape if isinstance(v, Value) else np.shape(v)
              for v in (a, lo, hi) if v is not None]
    try:
        broadcast_shapes(*shapes)
    except ValueError:  # NumPy's message names all three operands
        raise ValueError("operands could not be broadcast together with shapes "
                         + " ".join(format_shape(s, ",") for s in shapes) + " ") from None
    # np.clip turns a Python scalar `a` into an array (strong), its bounds stay weak.
    x = graph.const(a, np.asarray(a).dtype, weak=False) if isinstance(
        a, (bool, int, float)) and not isinstance(a, np.generic) else to_value(graph, a, "np.clip")
    if x.dtype.kind in "iu" and not x.weak:
        # A Python int bound beyond the dtype's range clips nothing (NumPy drops it; a bound
        # on the wrong side of the range raised NumPy's OverflowError in the dry run).
        info = np.iinfo(x.dtype)
        if type(lo) is int and lo < info.min:
            lo = None
        if type(hi) is int and hi > info.max:
            hi = None
    if lo is None and hi is None:
        if x.dtype == np.bool_:
            np.clip(np.zeros(1, np.bool_), None, None)  # NumPy's error: no positive for bool
        clipped = graph.op("copy", [x], scalar=x.ndim == 0)
        graph.layouts[clipped.id] = "map"  # a ufunc's result, not np.copy's
        return clipped
    # Promotion is associative over ember's dtypes, so maximum then minimum computes in the
    # dtype np.clip would use for all three operands at once.
    # On a tie of signed zeros NumPy's loop for two bounds of one element each keeps `a`;
    # its loop for bounds that are arrays, and np.maximum/np.minimum for one bound, keep the
    # bound (`maximum(x, y)` keeps `y` on ties).
    keep_a = lo is not None and hi is not None and all(
        all(type(d) is int and d == 1 for d in (b.shape if isinstance(b, Value) else np.shape(b)))
        for b in (lo, hi))
    result = x
    for bound, op in ((lo, "maximum"), (hi, "minimum")):
        if bound is not None:
            b = to_value(graph, bound, "np.clip")
            result = graph.op(op, [b, result] if keep_a else [result, b])
    return result


def where(graph: Graph, condition: object, x: object = None, y: object = None) -> Any:
    """np.where(c, x, y). The one-argument form (np.nonzero) has a data-dependent shape."""
    if x is None or y is None:
        raise Unsupported("np.where with one argument (np.nonzero) has a data-dependent shape")
    check_python_scalars(np.where, [condition, x, y])
    check_python_floats("np.where", [x, y])
    c = to_value(graph, condition, "np.where")
    if c.dtype != np.bool_:
        c = graph.op("astype", [c], dtype=np.bool_)
    return graph.op("where", [c, to_value(graph, x, "np.where"), to_value(graph, y, "np.where")])


def round_(graph: Graph, a: object, decimals: object = 0, out: object = None) -> Any:
    """np.round as NumPy's PyArray_Round computes it: rint, or multiply by 10**decimals, rint,
    divide (the other way round for negative decimals); integers in float64 and cast back."""
    if out is not None:
        raise Unsupported("np.round with out=")
    if not any_value([a]):
        return np.round(a, decimals)  # type: ignore[call-overload]
    x = to_value(graph, a, "np.round")
    d = static_int(decimals, "np.round")
    if x.dtype.kind == "b" and d != 0:
        np.round(np.zeros((1,), x.dtype), d)  # NumPy's own casting error
    if x.dtype.kind in "iu" and d >= 0:  # nothing to round, but still a new array
        return as_numpy_scalar(graph, graph.op("copy", [x], scalar=x.scalar))
    if d == 0:
        return graph.op("rint", [x])
    factor = graph.const(float(10 ** abs(d)))
    scale, unscale = ("mul", "div") if d > 0 else ("div", "mul")
    y = graph.op("rint", [graph.op(scale, [x, factor])])
    y = graph.op(unscale, [y, factor])
    if y.dtype != x.dtype:  # integers are rounded in float64 and cast back
        y = graph.op("astype", [y], dtype=x.dtype)
    return as_numpy_scalar(graph, y)


def fabs(graph: Graph, x: object, /, **kwargs: object) -> Any:
    """np.fabs: the absolute value in NumPy's float loop for the dtype."""
    if kwargs:
        raise Unsupported("np.fabs with ufunc keywords")
    if not any_value([x]):
        return np.fabs(x)  # type: ignore[call-overload]
    v = to_value(graph, x, "np.fabs")
    dtype = check_supported(np.fabs(np.empty(0, v.dtype)).dtype, "np.fabs")
    if v.dtype != dtype:
        v = graph.op("astype", [v], dtype=dtype)
    return graph.op("abs", [v], weak=False)


def float_power(graph: Graph, x1: object, x2: object, /, **kwargs: object) -> Any:
    """np.float_power: power computed in float64."""
    if kwargs:
        raise Unsupported("np.float_power with ufunc keywords")
    if not any_value([x1, x2]):
        return np.float_power(x1, x2)  # type: ignore[call-overload]
    a, b = (to_value(graph, v, "np.float_power") for v in (x1, x2))
    a, b = (v if v.dtype == np.float64 else graph.op("astype", [v], dtype=np.float64)
            for v in (a, b))
    return graph.op("pow", [a, b], weak=False, scalar=not broadcast_shapes(a.shape, b.shape))


def functions() -> dict[Any, Handler]:
    """Every ufunc of the op table under its NumPy object (aliases share the object)."""
    table: dict[Any, Handler] = {}
    for name, opdef in OPS.items():
        if opdef.kind == "elementwise" and isinstance(opdef.numpy, np.ufunc):
            table[opdef.numpy] = _ufunc_handler(name)
    table[np.clip] = clip
    table[np.where] = where
    table[np.round] = table[np.around] = round_
    table[np.fabs] = fabs
    table[np.float_power] = float_power
    return table
