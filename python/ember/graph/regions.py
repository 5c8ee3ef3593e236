"""IR version 2: element access (`load`, `store`) and the ops that run regions (`loop`, `if`).

A region is a `Graph` of its own (a func of the module, docs/IR.md) that sees nothing but its
parameters. `Graph.loop` and `Graph.if_` check a region's signature against the op's operands
as the contract states it, and define the op's several results."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.graph.infer import Inferred
from ember.graph.value import Value

if TYPE_CHECKING:
    from ember.graph.graph import Graph

REGION_OPS = frozenset({"loop", "if"})
ELEMENT_OPS = frozenset({"load", "store"})
V2_OPS = REGION_OPS | ELEMENT_OPS


def _check_indices(name: str, array: Value, indices: Sequence[Value]) -> None:
    if array.weak:
        raise TypeError(f"{name}: the array operand is a Python scalar")
    if len(indices) != array.ndim:
        raise TypeError(f"{name}: {array.type_str} takes {array.ndim} indices, "
                        f"got {len(indices)}")
    for index in indices:
        if index.shape or index.dtype.kind not in "iu":
            raise TypeError(f"{name}: index {index.type_str} is not a 0-d integer")


def load(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
         attrs: dict[str, Any]) -> Inferred:
    """`a[i, j]` of every axis: a NumPy scalar of a's dtype."""
    array, *indices = inputs
    _check_indices(name, array, indices)
    return Inferred(array.dtype, (), scalar=True)


def store(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
          attrs: dict[str, Any]) -> Inferred:
    """A copy of `a` with one element set: a's type."""
    array, value, *indices = inputs
    _check_indices(name, array, indices)
    if value.shape:
        raise TypeError(f"{name}: the stored value {value.type_str} is not 0-d")
    return Inferred(array.dtype, array.shape, scalar=array.scalar)


def refuse(name: str, fn: Callable[..., Any] | None, inputs: Sequence[Value],
           attrs: dict[str, Any]) -> Inferred:
    raise TypeError(f"{name} defines several results: build it with Graph.loop or Graph.if_")


def same_type(a: Value, b: Value) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.weak == b.weak


def check_loop(body: Graph, lo: Value, hi: Value, step: Value, carried: Sequence[Value],
               invariant: Sequence[Value]) -> None:
    for bound in (lo, hi, step):
        if bound.shape or bound.dtype.kind not in "iu":
            raise TypeError(f"loop: bound {bound.type_str} is not a 0-d integer")
    params = body.inputs
    expected = 1 + len(carried) + len(invariant)
    if len(params) != expected:
        raise TypeError(f"loop: @{body.name} takes {len(params)} params, the op passes "
                        f"{expected}")
    index = params[0]
    if not (index.weak and index.dtype == np.int64 and not index.shape):
        raise TypeError(f"loop: @{body.name}'s first param is {index.type_str}, not i64[] weak")
    for param, operand in zip(params[1:], [*carried, *invariant], strict=True):
        if not same_type(param, operand):
            raise TypeError(f"loop: @{body.name} param {param.type_str} is passed "
                            f"{operand.type_str}")
    results = body.outputs
    if len(results) != 1 + len(carried):
        raise TypeError(f"loop: @{body.name} returns {len(results)} values, not "
                        f"{1 + len(carried)}")
    go = results[0]
    if go.dtype != np.bool_ or go.shape:
        raise TypeError(f"loop: @{body.name}'s first result is {go.type_str}, not bool[]")
    for result, operand in zip(results[1:], carried, strict=True):
        if not same_type(result, operand):
            raise TypeError(f"loop: @{body.name} returns {result.type_str} for a carried "
                            f"{operand.type_str}")


def check_if(cond: Value, args: Sequence[Value], then: Graph, orelse: Graph) -> None:
    if cond.dtype != np.bool_ or cond.shape:
        raise TypeError(f"if: condition {cond.type_str} is not bool[]")
    for region in (then, orelse):
        if len(region.inputs) != len(args) or not all(
            same_type(p, a) for p, a in zip(region.inputs, args, strict=True)
        ):
            raise TypeError(f"if: @{region.name}'s params do not match the op's operands")
    if len(then.outputs) != len(orelse.outputs) or not all(
        same_type(a, b) for a, b in zip(then.outputs, orelse.outputs, strict=True)
    ):
        raise TypeError(f"if: @{then.name} and @{orelse.name} return different types")


def region_funcs(graph: Graph) -> list[Graph]:
    """The funcs `graph`'s region ops name, depth first in the order they are named, each
    once: what follows the entry func in the module text."""
    order: list[Graph] = []
    seen: set[int] = set()
    stack = list(reversed(_named(graph)))
    while stack:
        func = stack.pop()
        if id(func) in seen:
            continue
        seen.add(id(func))
        order.append(func)
        stack.extend(reversed(_named(func)))
    return order


def _named(func: Graph) -> list[Graph]:
    return [node.attrs[a] for node in func.nodes if node.op in REGION_OPS
            for a in ("body", "then", "else") if a in node.attrs]


def uses_v2(graph: Graph) -> bool:
    return any(node.op in V2_OPS for node in graph.nodes)


_CONDITIONS = frozenset("eq ne lt le gt ge isnan isinf isfinite".split())
# Elementwise ops that never raise a floating-point flag, so NumPy never warns about them.
_QUIET = frozenset("eq ne lt le gt ge logical_and logical_or logical_xor logical_not isnan "
                   "isinf isfinite signbit bitwise_and bitwise_or bitwise_xor invert where "
                   "copy maximum minimum fmax fmin".split())


def unused_flag_raisers(region: Graph, python_numbers: bool = True) -> list[str]:
    """The ops of `region` that may raise a floating-point flag (NumPy's warnings and errors)
    and whose values nothing uses: a temporary the program names or drops and never reads
    (`t = np.sqrt(a[i])`, `1.0 / x` as a statement, `t` rebound before it is read) with the
    ops only it reads, in `region` or an `if` it holds; or one that only decides a condition
    that decides nothing: one left unused (`if np.sqrt(x) > 1: pass`, `c or True`) or an
    `if` whose arms do the same (`c and False` before a `break`, `1 if c else 1`). Dead-code
    elimination drops them, and with them their warnings. Values capture makes for its own
    checks (index arithmetic, bounds, carried values) are never named: they do not count.
    Without `python_numbers`, a Python number named (`r = math.sqrt(t)`, whose checks raise
    as Python does) does not count either."""
    kept, used = live_values(region), live_values(region, False)
    # The dead values the program named, and what only they read.
    named: set[int] = set()
    for node in reversed(region.nodes):
        if any(id(v) in kept for v in node.results):
            continue
        if any((v.id in region.named and (python_numbers or not v.weak)) or id(v) in named
               for v in node.results) or (
                node.op == "if" and (node.attrs["then"].named or node.attrs["else"].named)):
            named.update(id(v) for v in (node.out, *node.extra, *node.inputs))
    dead = [node.op for node in region.nodes
            if not any(id(v) in kept for v in node.results) and may_raise(node) and (
                any(id(v) in named for v in node.results)
                or any(id(v) in used for v in node.results))]
    for node in region.nodes:  # an `if`'s arms name their own temporaries
        if node.op == "if" and any(id(v) in kept for v in node.results):
            dead += [op for a in ("then", "else")
                     for op in unused_flag_raisers(node.attrs[a], python_numbers)]
    return dead


def live_values(region: Graph, skip_same_conditions: bool = True) -> set[int]:
    """The values (by `id`) of `region` its outputs read, directly or not; unless
    `skip_same_conditions`, conditions count as read wherever an op reads them."""
    from ember.graph.ops import OPS

    seen = {id(v) for v in region.outputs}
    for node in reversed(region.nodes):
        if OPS[node.op].kind not in _DROPPED or any(id(v) in seen for v in node.results) or (
                not skip_same_conditions and node.op in _CONDITIONS):
            same = skip_same_conditions and node.op == "if" and _same_region(
                node.attrs["then"], node.attrs["else"])
            seen.update(id(v) for v in node.inputs[1 if same else 0:])
    return seen


# The kinds of ops dead-code elimination drops where nothing reads their results: a region
# op (a nested loop filling an array never read) goes with every op of its regions.
_DROPPED = ("elementwise", "reduction", "region")


def may_raise(node: Any) -> bool:
    """Whether `node` may raise a floating-point flag: a flag-raising elementwise op or
    reduction, or a region op one of whose regions holds one."""
    from ember.graph.ops import OPS

    kind = OPS[node.op].kind
    if kind == "region":
        return any(may_raise(inner) for a in ("body", "then", "else") if a in node.attrs
                   for inner in node.attrs[a].nodes)
    return kind in ("elementwise", "reduction") and not _quiet(node)


def _quiet(node: Any) -> bool:
    if node.out.weak:  # Python numbers' arithmetic (an index plus one) warns of nothing
        return True
    if node.op == "astype":
        source, target = node.inputs[0].dtype, node.out.dtype
        return source.kind in "biu" or target == np.bool_ or source == target or (
            source.kind == target.kind == "f" and target.itemsize >= source.itemsize)
    if all(v.dtype.kind in "biu" for v in (node.out, *node.inputs)):
        # Integer ops flag division by zero (and `MIN // -1`), and raise on a negative
        # power, unless a constant rules them out. A NumPy scalar's overflow
        # (`scalar_overflow.py`) is not kept for a temporary never read.
        if node.op not in _INT_FLAGS:
            return True
        other = _constant(node.inputs[1])
        if node.op == "pow":
            return other is not None and other >= 0
        return other is not None and other != 0 and (node.op != "floordiv" or other != -1)
    return node.op in _QUIET


_INT_FLAGS = frozenset("floordiv mod fmod pow".split())


def _constant(value: Any) -> Any:
    """The number a 0-d `const` value holds, or None."""
    for node in reversed(value.graph.nodes):
        if node.out is value:
            if node.op == "const" and not node.inputs and np.ndim(node.attrs["value"]) == 0:
                return node.attrs["value"]
            return None
    return None



def _same_region(a: Graph, b: Graph) -> bool:
    """Whether regions `a` and `b` compute the same results from the same params, node by
    node (ops, attributes and types alike; nested regions count as different)."""
    if len(a.inputs) != len(b.inputs) or len(a.nodes) != len(b.nodes):
        return False
    names: dict[int, object] = {}
    for k, (x, y) in enumerate(zip(a.inputs, b.inputs)):
        names[id(x)] = names[id(y)] = ("param", k)
    for k, (x, y) in enumerate(zip(a.nodes, b.nodes)):
        if (x.op != y.op or x.op in ("if", "loop") or not _same_attrs(x.attrs, y.attrs)
                or x.extra or y.extra
                or x.out.type_str != y.out.type_str
                or [names.get(id(v), v) for v in x.inputs]
                != [names.get(id(v), v) for v in y.inputs]):
            return False
        names[id(x.out)] = names[id(y.out)] = ("node", k)
    return [names.get(id(v), v) for v in a.outputs] == [names.get(id(v), v) for v in b.outputs]


def _same_attrs(a: dict[str, Any], b: dict[str, Any]) -> bool:
    try:
        return bool(a == b)
    except ValueError:  # an array attribute: compared element by element
        return False
