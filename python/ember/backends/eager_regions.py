"""The eager backend's funcs: a graph or region run node by node, with `loop`, `if`, `load`
and `store` as NumPy and Python run them (docs/IR.md, version 2).

`store` is functional in the IR; here it writes into the array in place when that cannot be
seen: the array's buffer belongs to the func (a carried copy, or an earlier store's result),
no view of it was taken, and the stored-into version is never read again. Otherwise it copies.
Arrays the caller passed in (the user's inputs) are never written."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ember.graph import Graph, Node, Value
from ember.graph.dtypes import weak_python_type

Array = Any

# Ops whose NumPy result may share memory with their first operand.
_VIEW_OPS = frozenset({"reshape", "transpose", "broadcast_to", "expand_dims", "squeeze",
                       "slice", "flip"})


def _last_uses(graph: Graph) -> dict[int, int]:
    """For each value, the index of the last node reading it (outputs read at the end)."""
    last: dict[int, int] = {}
    for n, node in enumerate(graph.nodes):
        for v in node.inputs:
            last[v.id] = n
    for v in graph.outputs:
        last[v.id] = len(graph.nodes)
    return last


def run_func(graph: Graph, args: Sequence[Array], sizes: dict[str, int],
             owned: Sequence[bool]) -> tuple[list[Array], list[bool]]:
    """The func's results for `args` (already in the ops' form: Python scalars for weak
    values), and for each whether the func hands over a buffer no one else holds. `owned[i]`:
    the caller gives up argument i's buffer."""
    from ember.backends.eager import run_node

    env: dict[int, Array] = {v.id: a for v, a in zip(graph.inputs, args, strict=True)}
    mine = {v.id for v, o in zip(graph.inputs, owned, strict=True) if o}
    last = _last_uses(graph)
    for n, node in enumerate(graph.nodes):
        operands = [env[v.id] for v in node.inputs]

        def handed(position: int, node: Node = node, n: int = n) -> bool:
            v = node.inputs[position]
            return v.id in mine and last.get(v.id) == n and all(
                w is not v for w in node.inputs[position + 1:])

        if node.op == "loop":
            results, flags = _run_loop(node, operands, sizes, handed)
        elif node.op == "if":
            results, flags = _run_if(node, operands, sizes, handed)
        elif node.op == "store":
            results, flags = [_store(operands, in_place=handed(0))], [True]
        elif node.op == "load":
            results, flags = [_load(node, operands)], [False]
        else:
            results, flags = [run_node(node, operands, sizes)], [False]
            if node.op in _VIEW_OPS:
                mine.discard(node.inputs[0].id)  # a view would see later in-place stores
        for out, result, flag in zip(node.results, results, flags, strict=True):
            env[out.id] = result
            if flag:
                mine.add(out.id)
    values = [env[v.id] for v in graph.outputs]
    flags: list[bool] = []
    given: set[int] = set()
    for v in graph.outputs:
        flags.append(v.id in mine and v.id not in given)
        given.add(v.id)
    return values, flags


def _index(node: Node, operands: Sequence[Array]) -> tuple[int, ...]:
    return tuple(int(i) for i in operands)


def _load(node: Node, operands: Sequence[Array]) -> Array:
    array, *indices = operands
    return np.asarray(array)[_index(node, indices)]


def _store(operands: Sequence[Array], *, in_place: bool) -> Array:
    array, value, *indices = operands
    out = array if in_place else np.array(array, copy=True)
    index = tuple(int(i) for i in indices)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        converted = np.asarray(value).astype(out.dtype)
    out[index] = converted
    return out


def _as_param(value: Value, arg: Array) -> Array:
    if value.weak:
        return weak_python_type(value.dtype)(np.asarray(arg).item())
    return arg


def _fresh(values: Sequence[Array], flags: Sequence[bool]) -> list[Array]:
    """The carried arrays the loop may write into: copies of the ones it does not own."""
    return [v if f or not isinstance(v, np.ndarray) else np.array(v, copy=True)
            for v, f in zip(values, flags, strict=True)]


def _run_loop(node: Node, operands: Sequence[Array], sizes: dict[str, int],
              handed: Any) -> tuple[list[Array], list[bool]]:
    body: Graph = node.attrs["body"]
    carried_count: int = node.attrs["carried"]
    lo, hi, step = (int(b) for b in operands[:3])
    if step == 0:
        raise ValueError("range() arg 3 must not be zero")
    carried = list(operands[3:3 + carried_count])
    invariant = list(operands[3 + carried_count:])
    flags = [handed(3 + j) for j in range(carried_count)]
    carried = _fresh(carried, flags)
    owned = [True] * carried_count
    params = body.inputs
    for i in range(lo, hi, step):
        args = [i, *(_as_param(p, a) for p, a in zip(params[1:], [*carried, *invariant],
                                                     strict=True))]
        results, result_flags = run_func(body, args, sizes,
                                         [False, *owned, *[False] * len(invariant)])
        go, carried = results[0], results[1:]
        owned = result_flags[1:]
        carried = _fresh(carried, owned)
        owned = [True] * carried_count
        if not bool(go):
            break
    return carried, [isinstance(c, np.ndarray) for c in carried]


def _run_if(node: Node, operands: Sequence[Array], sizes: dict[str, int],
            handed: Any) -> tuple[list[Array], list[bool]]:
    cond, *args = operands
    region: Graph = node.attrs["then"] if bool(cond) else node.attrs["else"]
    owned = [handed(1 + j) for j in range(len(args))]
    params = [_as_param(p, a) for p, a in zip(region.inputs, args, strict=True)]
    return run_func(region, params, sizes, owned)
