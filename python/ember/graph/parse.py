"""Read ember IR text back into a `Graph` (the inverse of `to_ir`), for graphs the Rust core
builds, such as the forward and backward halves of a differentiated graph."""

from __future__ import annotations

import re
from typing import Any

from ember.graph.dtypes import FROM_IR_NAME as _DTYPES
from ember.graph.graph import Graph
from ember.graph.ops import OPS
from ember.graph.value import Value

_HEADER = re.compile(r"func @(\w+)\((.*)\) -> \((.*)\) \{")
_PARAM = re.compile(r"%\d+: (\w+)\[([^\]]*)\]( weak)?")
_STMT = re.compile(r"\s*%(\d+) = (\w+)\(([^)]*)\)(.*) : (\w+)\[([^\]]*)\]( weak)?$")
_ATTR = re.compile(r" (\w+)=(\[[^\]]*\]|\S+)")


def from_ir(text: str) -> Graph:
    """The graph of IR text printed by ember (Python or Rust)."""
    lines = text.strip().splitlines()
    header = _HEADER.match(lines[1])
    if header is None:
        raise ValueError(f"not an ember IR function header: {lines[1]!r}")
    graph = Graph(header.group(1))
    values: list[Value] = []
    for param in _PARAM.finditer(header.group(2)):
        dtype, dims, weak = param.groups()
        values.append(graph.add_input(_DTYPES[dtype], _dims(dims), weak=bool(weak)))
    for line in lines[2:-2]:
        stmt = _STMT.match(line)
        if stmt is None:
            raise ValueError(f"not an ember IR statement: {line!r}")
        _, op, operands, attrs, dtype, dims, weak = stmt.groups()
        inputs = [values[int(v.strip()[1:])] for v in operands.split(",") if v.strip()]
        kwargs = {name: _attr(value) for name, value in _ATTR.findall(attrs)}
        params = OPS[op].type_params
        if "dtype" in params:
            kwargs["dtype"] = _DTYPES[dtype]
        if "shape" in params:
            kwargs["shape"] = _dims(dims)
        # The text's weakness is the printer's: Python's own inference would call a ufunc of
        # weak operands weak, where NumPy (and the core) give a NumPy scalar (`np.exp(2.0)`).
        values.append(graph.op(op, inputs, weak=bool(weak), **kwargs))
    ret = lines[-2].strip()[len("return"):]
    graph.set_outputs([values[int(v.strip()[1:])] for v in ret.split(",") if v.strip()])
    return graph


def append_statements(text: str, graph: Graph, known: dict[int, Value], start: int
                      ) -> list[Value]:
    """Append to `graph` the statements of the IR `text` numbered `start` and on that the
    returned values depend on, reading the values numbered below `start` from `known` (IR
    number -> a value of `graph`); returns the values the function returns. The statements
    before `start` are not parsed at all; the others no returned value needs are left out
    (capture would otherwise keep them as unused results, for floating-point flags that
    only a program's own statements raise)."""
    lines = text.strip().splitlines()
    statements = []
    for line in lines[2:-2]:
        stmt = _STMT.match(line)
        if stmt is None:
            raise ValueError(f"not an ember IR statement: {line!r}")
        if int(stmt.group(1)) >= start:
            statements.append(stmt.groups())
    ret = [int(v.strip()[1:]) for v in lines[-2].strip()[len("return"):].split(",")
           if v.strip()]
    live = set(ret)
    for number, _, operands, *_ in reversed(statements):
        if int(number) in live:
            live.update(int(v.strip()[1:]) for v in operands.split(",") if v.strip())
    values = dict(known)
    for number, op, operands, attrs, dtype, dims, weak in statements:
        if int(number) not in live:
            continue
        inputs = [values[int(v.strip()[1:])] for v in operands.split(",") if v.strip()]
        kwargs = {name: _attr(value) for name, value in _ATTR.findall(attrs)}
        params = OPS[op].type_params
        if "dtype" in params:
            kwargs["dtype"] = _DTYPES[dtype]
        if "shape" in params:
            kwargs["shape"] = _dims(dims)
        if op == "const":
            kwargs["weak"] = bool(weak)
        values[int(number)] = graph.op(op, inputs, **kwargs)
    return [values[v] for v in ret]


def _dims(text: str) -> tuple[int | str, ...]:
    return tuple(int(d) if d.lstrip("-").isdigit() else d for d in text.split(",") if d)


def _attr(text: str) -> Any:
    if text.startswith("["):
        return [_attr(item) for item in text[1:-1].split(",") if item]
    if text in ("true", "false"):
        return text == "true"
    if text == "none":
        return None
    if text in _DTYPES:
        return _DTYPES[text]
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if re.fullmatch(r"[a-z_][a-z0-9_]*(-\d+)?", text) and text not in ("inf", "nan"):
        return text  # a symbolic dim (`s0`, or `s0-1`: less a constant)
    return float(text)
