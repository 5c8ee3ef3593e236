"""The op table: every IR op's name, arity, attribute schema (in print order), type rule and
the NumPy function it means. docs/IR.md is the contract; this table is its one home in Python."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ember.graph import infer, regions

# Attribute kinds: how a value is checked and printed.
#   number: bool | int | float     dtype: np.dtype        bool: bool        int: int
#   axes:   list[int] | None       axis: int | None       ints: list[int]   dims: list[int | str]
#   func:   a Graph (a region of the module, printed `@name`)
AttrKind = str


@dataclass(frozen=True)
class OpDef:
    name: str
    arity: int | None  # None: one or more operands
    attrs: tuple[tuple[str, AttrKind], ...]
    rule: infer.Rule
    numpy: Callable[..., Any] | None  # the NumPy function (ufunc) the op means
    kind: str  # elementwise, reduction, shape, creation, other
    type_params: tuple[str, ...] = ()  # keywords of Graph.op giving the type, never printed


OPS: dict[str, OpDef] = {}


def _define(names: str, arity: int | None, attrs: tuple[tuple[str, AttrKind], ...],
            rule: infer.Rule, kind: str, numpy: dict[str, Any] | None = None,
            type_params: tuple[str, ...] = ()) -> None:
    for name in names.split():
        fn = numpy[name] if numpy is not None else None
        OPS[name] = OpDef(name, arity, attrs, rule, fn, kind, type_params)


_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power,
    "maximum": np.maximum, "minimum": np.minimum, "fmax": np.fmax, "fmin": np.fmin,
    "arctan2": np.arctan2, "hypot": np.hypot, "copysign": np.copysign,
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal,
    "logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor,
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
    "left_shift": np.left_shift, "right_shift": np.right_shift,
}
_UNARY = {
    "neg": np.negative, "positive": np.positive, "abs": np.absolute, "sign": np.sign,
    "square": np.square, "reciprocal": np.reciprocal,
    "sqrt": np.sqrt, "cbrt": np.cbrt, "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1,
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "arcsin": np.arcsin, "arccos": np.arccos,
    "arctan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "arcsinh": np.arcsinh, "arccosh": np.arccosh, "arctanh": np.arctanh,
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint,
    "logical_not": np.logical_not, "bitwise_not": np.invert, "isnan": np.isnan,
    "isinf": np.isinf, "isfinite": np.isfinite, "signbit": np.signbit,
}
_REDUCTIONS = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "mean": np.mean,
               "any": np.any, "all": np.all}

_define(" ".join(_BINARY), 2, (), infer.elementwise, "elementwise", _BINARY)
_define(" ".join(_UNARY), 1, (), infer.elementwise, "elementwise", _UNARY)
_define("where", 3, (), infer.where, "elementwise", {"where": np.where})
_define("astype", 1, (("dtype", "dtype"),), infer.astype, "elementwise")
_define("const", 0, (("value", "number"),), infer.const, "creation",
        type_params=("dtype",))
_define("full", 0, (("value", "number"),), infer.creation, "creation",
        type_params=("shape", "dtype"))
_define("arange", 0, (("start", "number"), ("step", "number")), infer.creation, "creation",
        type_params=("shape", "dtype"))
_define("eye", 0, (("k", "int"),), infer.creation, "creation", type_params=("shape", "dtype"))
_define(" ".join(_REDUCTIONS), 1, (("axis", "axes"), ("keepdims", "bool")), infer.reduction,
        "reduction", _REDUCTIONS)
_define("argmax argmin", 1, (("axis", "axis"), ("keepdims", "bool")), infer.arg_reduction,
        "reduction", {"argmax": np.argmax, "argmin": np.argmin})
_define("reshape", 1, (("shape", "dims"),), infer.reshape, "shape")
_define("transpose", 1, (("perm", "ints"),), infer.transpose, "shape")
_define("broadcast_to", 1, (("shape", "dims"),), infer.broadcast_to, "shape")
_define("expand_dims", 1, (("axis", "ints"),), infer.expand_dims, "shape")
_define("squeeze", 1, (("axis", "ints"),), infer.squeeze, "shape")
_define("slice", 1, (("start", "ints"), ("stop", "ints"), ("step", "ints")), infer.slice_,
        "shape")
_define("flip", 1, (("axis", "ints"),), infer.flip, "shape")
_define("concatenate", None, (("axis", "int"),), infer.concatenate, "shape")
_define("matmul", 2, (), infer.matmul, "other", {"matmul": np.matmul})
_define("copy", 1, (), infer.copy, "other")
_define("load", None, (), regions.load, "other")
_define("store", None, (), regions.store, "other")
_define("loop", None, (("body", "func"), ("carried", "int")), regions.refuse, "region")
_define("if", None, (("then", "func"), ("else", "func")), regions.refuse, "region")
_define("cumsum cumprod", 1, (("axis", "int"),), infer.scan, "other",
        {"cumsum": np.cumsum, "cumprod": np.cumprod})
_define("sort argsort", 1, (("axis", "int"),), infer.sort, "other",
        {"sort": np.sort, "argsort": np.argsort})


def check_attr(op: str, name: str, kind: AttrKind, value: Any) -> Any:
    """Validate one attribute and return it in its stored form (lists, np.dtype, plain ints)."""
    def is_int(v: Any) -> bool:
        return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))

    ok: bool
    if kind == "number":
        ok = isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating))
        if ok:
            value = value.item() if isinstance(value, np.generic) else value
    elif kind == "dtype":
        value = np.dtype(value)
        ok = True
    elif kind == "bool":
        ok = isinstance(value, (bool, np.bool_))
        value = bool(value)
    elif kind == "int":
        ok = is_int(value)
        value = int(value) if ok else value
    elif kind == "axis":
        ok = value is None or is_int(value)
        value = None if value is None else int(value) if ok else value
    elif kind == "func":
        from ember.graph.graph import Graph

        ok = isinstance(value, Graph)
    elif kind in ("ints", "axes", "dims"):
        if kind == "axes" and value is None:
            return None
        if is_int(value):
            value = [value]
        ok = isinstance(value, (list, tuple)) and all(
            is_int(v) or (kind == "dims" and isinstance(v, str)) for v in value
        )
        value = [v if isinstance(v, str) else int(v) for v in value] if ok else value
    else:
        raise AssertionError(kind)
    if not ok:
        raise TypeError(f"{op}: attribute {name}={value!r} is not a valid {kind}")
    return value
