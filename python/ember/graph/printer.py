"""Print a graph as ember IR text (docs/IR.md), byte for byte as the Rust printer does."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.graph.dtypes import ir_name
from ember.graph.ops import OPS

if TYPE_CHECKING:
    from ember.graph.graph import Graph
    from ember.graph.value import Value

IR_VERSION = 1


def format_float(x: float) -> str:
    """Shortest round-trip digits, always with '.' or 'e' (Python's repr does exactly this)."""
    if math.isnan(x):
        return "nan"
    return repr(float(x))


def format_attr(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, np.dtype):
        return ir_name(value)
    if isinstance(value, str):  # a symbolic dim in a shape list
        return value
    if hasattr(value, "nodes"):  # a region func of the module
        return f"@{value.name}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(format_attr(v) for v in value) + "]"
    raise TypeError(f"attribute value {value!r} has no IR form")


def to_ir(graph: Graph) -> str:
    """The module's IR text: the entry func, then the regions its loop and if ops name. The
    header says 1 for a single func without version-2 ops (so version-1 text is unchanged)."""
    from ember.graph.regions import region_funcs, uses_v2

    funcs = [graph, *region_funcs(graph)]
    version = 2 if len(funcs) > 1 or uses_v2(graph) else IR_VERSION
    return f"ember-ir {version}\n" + "".join(func_text(f) for f in funcs)


def func_text(graph: Graph) -> str:
    """One func: parameters numbered first, then each node's results in definition order."""
    number: dict[int, int] = {}

    def name(v: Value) -> str:
        return f"%{number[v.id]}"

    for v in graph.inputs:
        number[v.id] = len(number)
    params = ", ".join(f"{name(v)}: {v.type_str}" for v in graph.inputs)
    results = ", ".join(v.type_str for v in graph.outputs)
    lines = [f"func @{graph.name}({params}) -> ({results}) {{"]
    for node in graph.nodes:
        for out in node.results:
            number[out.id] = len(number)
        operands = ", ".join(name(v) for v in node.inputs)
        attrs = "".join(
            f" {attr}={format_attr(node.attrs[attr])}" for attr, _ in OPS[node.op].attrs
        )
        defined = ", ".join(name(v) for v in node.results)
        types = ", ".join(v.type_str for v in node.results)
        lines.append(f"  {defined} = {node.op}({operands}){attrs} : {types}")
    ret = ", ".join(name(v) for v in graph.outputs)
    lines.append("  return" + (f" {ret}" if ret else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"
