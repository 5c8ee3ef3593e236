"""The op table: every IR op's name, arity, attribute schema (in print order), type rule and
the NumPy function it means. docs/IR.md is the contract. The elementwise ops, reductions and
scans, with their NumPy functions, come from the Rust core's op table (`_core.op_table`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ember import _core
from ember.graph import infer, regions, special

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


def _core_table() -> dict[str, dict[str, Any]]:
    """The core's ops that mean one NumPy function, by class: `{class: {IR name: function}}`.
    The Rust op table is the one list of them; a name NumPy lacks (but the error functions,
    `special.py`) fails here, at import."""
    table: dict[str, dict[str, Any]] = {}
    for cls, name, numpy_name in _core.op_table():
        fn = special.FUNCTIONS.get(name) or functools.reduce(getattr, numpy_name.split("."), np)
        table.setdefault(cls, {})[name] = fn
    return table


_TABLE = _core_table()
_BINARY = _TABLE["binary"]
_UNARY = _TABLE["unary"]
_REDUCTIONS = _TABLE["reduce"]

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
_define(" ".join(_TABLE["arg_reduce"]), 1, (("axis", "axis"), ("keepdims", "bool")),
        infer.arg_reduction, "reduction", _TABLE["arg_reduce"])
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
_define("gather", None, (("axis", "int"),), infer.gather, "other")
_define("scatter_add", None, (("axis", "int"), ("shape", "dims")), infer.scatter_add, "other")
_define("cumsum cumprod", 1, (("axis", "int"),), infer.scan, "other", _TABLE["scan"])
_define("sort argsort sort_default argsort_default", 1, (("axis", "int"),), infer.sort, "other",
        _TABLE["scan"])
_define("solve", 2, (), infer.linalg, "other", _TABLE["linalg"])
_define("lstsq", 3, (), infer.linalg, "other", _TABLE["linalg"])
_define(" ".join(name for name in _TABLE["linalg"] if name not in ("solve", "lstsq")), 1, (),
        infer.linalg, "other", _TABLE["linalg"])


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
