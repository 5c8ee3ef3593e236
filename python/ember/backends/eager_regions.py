"""The eager backend's funcs: a graph or region run node by node, with `loop`, `if`, `load`
and `store` as NumPy and Python run them (docs/IR.md, version 2).

`store` is functional in the IR; here it writes into the array in place when that cannot be
seen: the array's buffer belongs to the func (a carried copy, or an earlier store's result),
no view of it was taken, and the stored-into version is never read again. Otherwise it copies.
Arrays the caller passed in (the user's inputs) are never written."""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from ember.graph import Graph, Node, Value
from ember.graph.dtypes import weak_python_type
from ember.quiet import quiet

Array = Any

# Ops whose NumPy result may share memory with their first operand.
_VIEW_OPS = frozenset({"reshape", "transpose", "broadcast_to", "expand_dims", "squeeze",
                       "slice", "flip"})


_LAST_USES: weakref.WeakKeyDictionary[Graph, dict[int, int]] = weakref.WeakKeyDictionary()


def _last_uses(graph: Graph) -> dict[int, int]:
    """For each value, the index of the last node reading it (outputs read at the end);
    computed once per func, since a loop body runs once per trip."""
    last = _LAST_USES.get(graph)
    if last is None:
        last = {}
        for n, node in enumerate(graph.nodes):
            for v in node.inputs:
                last[v.id] = n
        for v in graph.outputs:
            last[v.id] = len(graph.nodes)
        _LAST_USES[graph] = last
    return last


_CAST_OPERANDS: weakref.WeakKeyDictionary[Graph, frozenset[int]] = weakref.WeakKeyDictionary()


def _cast_operands(graph: Graph) -> frozenset[int]:
    """The values a cast that warns as its ufunc (`Node.warns_as`) reads, directly or through
    a `broadcast_to`: their nodes' warnings wait for the cast's (`run_node(defer=)`)."""
    found = _CAST_OPERANDS.get(graph)
    if found is None:
        producers = {node.out.id: node for node in graph.nodes if node.op != "loop"
                     and node.op != "if"}
        ids: set[int] = set()
        for node in graph.nodes:
            if node.warns_as is None or node.op != "astype":
                continue
            v = node.inputs[0]
            while v.id in producers and v.id not in ids:
                ids.add(v.id)
                producer = producers[v.id]
                if producer.op != "broadcast_to":
                    break
                v = producer.inputs[0]
        found = _CAST_OPERANDS[graph] = frozenset(ids)
    return found


def _handed(node: Node, position: int, n: int, mine: set[int], last: dict[int, int]) -> bool:
    """Whether operand `position` of node `n` is a buffer of the func read for the last
    time (and not also a later operand of the node)."""
    v = node.inputs[position]
    return v.id in mine and last.get(v.id) == n and all(
        w is not v for w in node.inputs[position + 1:])


def run_func(graph: Graph, args: Sequence[Array], sizes: dict[str, int],
             owned: Sequence[bool]) -> tuple[list[Array], list[bool]]:
    """The func's results for `args` (already in the ops' form: Python scalars for weak
    values), and for each whether the func hands over a buffer no one else holds. `owned[i]`:
    the caller gives up argument i's buffer."""
    from ember.backends import fp_warnings
    from ember.backends.eager import run_node

    rec = fp_warnings.recorder()
    if rec is not None:
        rec.calls_given.clear()  # a loop body's next trip makes its NumPy calls again
    env: dict[int, Array] = {v.id: a for v, a in zip(graph.inputs, args, strict=True)}
    mine = {v.id for v, o in zip(graph.inputs, owned, strict=True) if o}
    last = _last_uses(graph)
    deferred = _cast_operands(graph)
    for n, node in enumerate(graph.nodes):
        op = node.op
        operands = [env[v.id] for v in node.inputs]
        if op == "load":
            env[node.out.id] = _load(operands)
            continue
        if op == "const" and node.out.weak:
            # a Python number: nothing to compute, nothing that could warn (a loop body's
            # constants run once per trip)
            env[node.out.id] = weak_python_type(node.out.dtype)(
                np.asarray(node.attrs["value"]).item())
            continue
        if op == "store":
            env[node.out.id] = _store(operands, in_place=_handed(node, 0, n, mine, last))
            mine.add(node.out.id)
            continue
        if op == "loop" or op == "if":
            handed = [_handed(node, p, n, mine, last) for p in range(len(operands))]
            run = _run_loop if op == "loop" else _run_if
            results, flags = run(node, operands, sizes, handed)
            for out, result, flag in zip(node.results, results, flags, strict=True):
                env[out.id] = result
                if flag:
                    mine.add(out.id)
            continue
        rule = graph.layouts.get(node.out.id)
        target = env.get(rule[1]) if isinstance(rule, tuple) and rule[0] == "alias" else None
        laid_out = _in_place_layout(node, target)
        result = run_node(node, operands, sizes, defer=node.out.id in deferred, out=laid_out)
        if laid_out is None and target is not None:
            result = _copy_in_place_layout(result, target)
        env[node.out.id] = result
        if op in _VIEW_OPS:
            mine.discard(node.inputs[0].id)  # a view would see later in-place stores
    values = [env[v.id] for v in graph.outputs]
    flags: list[bool] = []
    given: set[int] = set()
    for v in graph.outputs:
        flags.append(v.id in mine and v.id not in given)
        given.add(v.id)
    return values, flags


def _in_place_layout(node: Node, target: Array | None) -> np.ndarray | None:
    """The array a ufunc's `node` writes into when the program wrote its result into `target`
    in place (`a **= b`) and `target` has negative strides: NumPy runs its scalar loops for
    such operands and outputs, not its vector loops, and their flags differ (`power` raises
    none for `0 ** -inf` there). None elsewhere (a fresh array, NumPy's own layout)."""
    if target is None:
        return None
    from ember.backends.eager import ufunc_out

    if not _negative_strides(target) or not ufunc_out(node) \
            or tuple(target.shape) != tuple(node.out.shape):
        return None
    return _like_target(target, node.out.dtype)


def _copy_in_place_layout(result: Array, target: np.ndarray) -> Array:
    """`result` (of an op that takes no `out=`) copied into `target`'s layout, so that the ops
    reading it next see the strides the program gave them."""
    if not _negative_strides(target) or not isinstance(result, np.ndarray) \
            or result.shape != target.shape:
        return result
    laid_out = _like_target(target, result.dtype)
    laid_out[...] = result
    return laid_out


def _negative_strides(target: Any) -> bool:
    return isinstance(target, np.ndarray) and any(s < 0 for s in target.strides)


def _like_target(target: np.ndarray, dtype: np.dtype) -> np.ndarray:
    flips = tuple(slice(None, None, -1) if s < 0 else slice(None) for s in target.strides)
    return np.empty_like(target, dtype=dtype)[flips]


def _load(operands: Sequence[Array]) -> Array:
    array, *indices = operands
    return array[tuple(int(i) for i in indices)]


def _store(operands: Sequence[Array], *, in_place: bool) -> Array:
    array, value, *indices = operands
    out = array if in_place else np.array(array, copy=True)
    index = tuple(int(i) for i in indices)
    if _stores_unchanged(value, out.dtype):
        out[index] = value
        return out
    with quiet():
        converted = np.asarray(value).astype(out.dtype)
    out[index] = converted
    return out


def _stores_unchanged(value: Array, dtype: np.dtype) -> bool:
    """Whether `value` goes into an array of `dtype` as it is, with no cast that could round,
    wrap or warn: a value of that dtype, a Python float into float64, a Python bool into bool,
    a Python int of int64's range into int64 (the common stores of a loop body)."""
    kind = type(value)
    if kind is float:
        return dtype == np.float64
    if kind is int:
        return dtype == np.int64 and -(1 << 63) <= value < (1 << 63)
    if kind is bool:
        return dtype == np.bool_
    return getattr(value, "dtype", None) == dtype


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
    flags = handed[3:3 + carried_count]
    carried = _fresh(carried, flags)
    owned = [True] * carried_count
    params = body.inputs
    weak = [p.weak for p in params[1:1 + carried_count]]
    invariant = [_as_param(p, a) for p, a in zip(params[1 + carried_count:], invariant,
                                                strict=True)]
    owned_args = [False, *owned, *[False] * len(invariant)]
    for i in range(lo, hi, step):
        args = [i, *(_as_param(p, a) if w else a
                     for p, a, w in zip(params[1:], carried, weak, strict=False)), *invariant]
        results, result_flags = run_func(body, args, sizes, owned_args)
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
    owned = handed[1:]
    params = [_as_param(p, a) for p, a in zip(region.inputs, args, strict=True)]
    return run_func(region, params, sizes, owned)
