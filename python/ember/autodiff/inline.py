"""`value_and_grad(f)(...)` and `grad(f)(...)` inside an `ember.compile`d function: captured
into the caller's graph instead of running in Python.

Capture inlines `f` as it inlines any Python function, so its ops join the current graph.
The ops the result depends on are copied into a graph of their own (the differentiated
leaves first among its parameters), the core builds its joint graph, and the joint graph's
backward statements are appended to the current graph, reading the forward values already
there. The gradients are then ordinary values of the graph: the update that follows
(`p - lr * g`, momentum, Adam) is captured after them, so one training step is one graph
that the code generator fuses as a whole, with no tape, no residuals handed between graphs
and no Python between forward and backward.

Whatever this cannot handle (a leaf that is not a float array of the graph, a result that is
not a 0-d float, an op without a gradient rule, a graph break inside `f`) breaks the graph
at the call, which then runs the Python path of `ember.autodiff.api`, with its own errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ember import _core
from ember.capture.breaks import graph_break
from ember.capture.sources import AttrSource, Source
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.containers import (
    DictVariable,
    ListVariable,
    NamedTupleVariable,
    TupleVariable,
)
from ember.graph import Graph, Value
from ember.graph.ops import OPS
from ember.graph.parse import append_statements
from ember.capture.variables.scalar import PythonScalarVariable
from ember.numpy_api.scalars import numbers_in_graph, python_number

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

# Set on `ember.grad` / `ember.value_and_grad` (the kind) and on the wrappers they return
# (kind, function, argnums, has_aux), so that capture recognises both.
TRANSFORM = "__ember_grad_transform__"
WRAPPER = "__ember_grad_wrapper__"


def variable_for(value: Any, source: Source | None, tx_wrap: Any) -> VariableTracker | None:
    """The tracker of a gradient transform or of a function it made, else None."""
    kind = getattr(value, TRANSFORM, None)
    if isinstance(kind, str):
        return GradTransformVariable(kind, source)
    made = getattr(value, WRAPPER, None)
    if isinstance(made, tuple):
        kind, fn, argnums, has_aux = made
        fn_source = AttrSource(source, "__wrapped__") if source is not None else None
        return GradFunctionVariable(kind, tx_wrap(fn, fn_source), argnums, has_aux, source)
    return None


def _constant(vt: VariableTracker | None, default: Any, what: str) -> Any:
    if vt is None:
        return default
    if not vt.is_constant():
        raise graph_break("type", what=f"{what} computed at run time", type=vt.type_name())
    return vt.constant()


class GradTransformVariable(VariableTracker):
    """`ember.grad` or `ember.value_and_grad` itself."""

    def __init__(self, kind: str, source: Source | None) -> None:
        self.kind = kind
        self.source = source

    def type_name(self) -> str:
        return "function"

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        names = ("fn", "argnums", "has_aux")
        bound = dict(zip(names, args, strict=False))
        for key, vt in kwargs.items():
            if key not in (*names, "backend") or key in bound:
                raise graph_break("call", name=f"ember.{self.kind} with argument {key!r}")
            bound[key] = vt
        if "fn" not in bound or len(args) > len(names):
            raise graph_break("call", name=f"ember.{self.kind} with these arguments")
        argnums = _constant(bound.get("argnums"), 0, "argnums")
        has_aux = _constant(bound.get("has_aux"), False, "has_aux")
        return GradFunctionVariable(self.kind, bound["fn"], argnums, bool(has_aux), None)


class GradFunctionVariable(VariableTracker):
    """The function `value_and_grad(fn, argnums, has_aux)` (or `grad(...)`) returned."""

    def __init__(self, kind: str, fn: VariableTracker, argnums: Any, has_aux: bool,
                 source: Source | None) -> None:
        self.kind = kind
        self.fn = fn
        self.argnums = argnums
        self.has_aux = has_aux
        self.source = source

    def type_name(self) -> str:
        return "function"

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        graph = tx.tracer.graph
        if graph.parent is not None:
            raise graph_break("loop_body", what=f"ember.{self.kind}")
        nums = _argnums(self.argnums, len(args))
        trees = [_flatten(args[i], graph) for i in nums]
        leaves = [leaf for tree in trees for leaf in tree[0]]
        _check_leaves(leaves, [a for i, a in enumerate(args) if i not in nums], kwargs)
        # A Python float leaf enters the function as a weak 0-d graph value, so that its
        # arithmetic there is graph ops the gradient follows (and promotes as a float does).
        args = list(args)
        for i, (tree_leaves, rebuild) in zip(nums, trees, strict=True):
            if any(leaf.value.weak for leaf in tree_leaves):
                args[i] = rebuild(tree_leaves)
        mark, views = len(graph.nodes), len(tx.tracer.input_views)
        # Loop and if ops have no gradient rule: loops in the differentiated function unroll,
        # and its gathers are `gather` ops rather than element loops (`numpy_api/gather.py`).
        root = graph.root
        loop_ops, tx.tracer.loop_ops = tx.tracer.loop_ops, False
        graph_loop_ops, root.loop_ops = root.loop_ops, False
        # Python numbers taken out of arrays (`float(v)`) are constants of the gradient.
        numbers = numbers_in_graph.set(False)
        try:
            out = tx.call_function(self.fn, args, kwargs)
        finally:
            tx.tracer.loop_ops = loop_ops
            root.loop_ops = graph_loop_ops
            numbers_in_graph.reset(numbers)
        _refuse_views_of_leaves(tx.tracer, views, leaves)
        value, aux = out, None
        if self.has_aux:
            if not isinstance(out, TupleVariable) or len(out.items) != 2:
                raise graph_break("call", name=f"ember.{self.kind} with has_aux=True of a "
                                               "function not returning a pair")
            value, aux = out.items
        if not (isinstance(value, ArrayVariable) and value.value.shape == ()
                and value.value.dtype.kind == "f"):
            raise graph_break("call", name=f"ember.{self.kind} of a function not returning "
                                           "a float scalar")
        grads = splice_gradients(graph, mark, [leaf.value for leaf in leaves], value.value)
        # The gradient of a float leaf is a Python float, as `ember.grad` on its own gives.
        grads = [python_number(graph, g, "a gradient") if leaf.value.weak else g
                 for leaf, g in zip(leaves, grads, strict=True)]
        grad_trees = []
        start = 0
        for (tree_leaves, rebuild) in trees:
            count = len(tree_leaves)
            grad_trees.append(rebuild([ArrayVariable(g) for g in grads[start:start + count]]))
            start += count
        g = grad_trees[0] if isinstance(self.argnums, int) else TupleVariable(grad_trees)
        if self.kind == "grad":
            return TupleVariable([g, aux]) if self.has_aux else g
        result = TupleVariable([value, aux]) if self.has_aux else value
        return TupleVariable([result, g])


def _argnums(argnums: Any, nargs: int) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums or any(not isinstance(i, int) or not -nargs <= i < nargs for i in nums):
        raise graph_break("call", name=f"a gradient function with argnums {argnums!r}")
    return tuple(i % nargs for i in nums)


def _flatten(vt: VariableTracker, graph: Graph) -> tuple[list[ArrayVariable], Any]:
    """The leaves of a pytree of trackers and a function rebuilding it from new leaves; a
    Python float leaf (a constant or a run-time input) becomes a weak 0-d graph value."""
    if isinstance(vt, ArrayVariable):
        return [vt], lambda new: new[0]
    if isinstance(vt, PythonScalarVariable) and vt.python_class is float:
        return [ArrayVariable(vt.graph_value())], lambda new: new[0]
    if vt.is_constant() and type(vt.constant()) is float:
        return [ArrayVariable(graph.const(vt.constant(), np.float64, weak=True))], \
            lambda new: new[0]
    if vt.is_constant() and vt.constant() is None:  # an empty subtree, as in JAX
        return [], lambda new: vt
    if isinstance(vt, DictVariable):
        keys = list(vt.items)
        parts = [_flatten(vt.items[k], graph) for k in keys]

        def rebuild_dict(new: list[VariableTracker]) -> VariableTracker:
            return DictVariable(dict(zip(keys, _rebuild(parts, new), strict=True)))

        return [leaf for part in parts for leaf in part[0]], rebuild_dict
    if isinstance(vt, (TupleVariable, ListVariable)):
        parts = [_flatten(item, graph) for item in vt.items]
        if isinstance(vt, NamedTupleVariable):
            cls = vt.cls

            def rebuild_seq(new: list[VariableTracker]) -> VariableTracker:
                return NamedTupleVariable(_rebuild(parts, new), cls, None)
        else:
            kind = type(vt)

            def rebuild_seq(new: list[VariableTracker]) -> VariableTracker:
                return kind(_rebuild(parts, new))

        return [leaf for part in parts for leaf in part[0]], rebuild_seq
    raise graph_break("type", what="a differentiated argument leaf", type=vt.type_name())


def _rebuild(parts: list[tuple[list, Any]], new: list[VariableTracker]) -> list:
    out, start = [], 0
    for leaves, rebuild in parts:
        out.append(rebuild(new[start:start + len(leaves)]))
        start += len(leaves)
    return out


def _check_leaves(leaves: list[ArrayVariable], others: list[VariableTracker],
                  kwargs: dict[str, VariableTracker]) -> None:
    """Leaves are told apart by their graph values: each must be a float array, appear once
    and not reach the function through another argument too."""
    seen: set[int] = set()
    for leaf in leaves:
        v = leaf.value
        if v.dtype.kind != "f":
            raise graph_break("type", what="a differentiated argument leaf", type=str(v.dtype))
        if id(v) in seen:
            raise graph_break("call", name="a gradient function given one array twice")
        seen.add(id(v))
    for vt in [*others, *kwargs.values()]:
        stack = [vt]
        while stack:
            item = stack.pop()
            if isinstance(item, ArrayVariable) and id(item.value) in seen:
                raise graph_break("call", name="a gradient function given a differentiated "
                                               "array also as a constant")
            if isinstance(item, DictVariable):
                stack += item.items.values()
            elif isinstance(item, (TupleVariable, ListVariable)):
                stack += item.items


def _refuse_views_of_leaves(tracer: Any, start: int, leaves: list[ArrayVariable]) -> None:
    """A view the entry takes (`x[:n]` with a run-time `n`, `capture/variables/slices.py`)
    is a graph input of its own: a gradient would not flow from it back to the argument it
    views, so a differentiated function taking one of a leaf breaks here (its Python path
    captures with static shapes)."""
    from ember.capture.variables.slices import view_root

    ids = {id(leaf.value) for leaf in leaves}
    for base, _ in tracer.input_views[start:]:
        if id(view_root(tracer, base)) in ids:
            raise graph_break("call", name="a gradient through a slice with run-time bounds "
                                           "of a differentiated argument")


def _replay(graph: Graph, op: str, inputs: Sequence[Value], out: Value,
            attrs: dict[str, Any]) -> Value:
    """`op` appended to `graph` with the type parameters and flags `out` had elsewhere."""
    kwargs = dict(attrs)
    params = OPS[op].type_params
    if "dtype" in params:
        kwargs["dtype"] = out.dtype
    if "shape" in params:
        kwargs["shape"] = out.shape
    if op == "const":
        return graph.op(op, inputs, weak=out.weak, **kwargs)
    return graph.op(op, inputs, **kwargs)


def splice_gradients(graph: Graph, mark: int, leaves: list[Value], loss: Value) -> list[Value]:
    """Append to `graph` the gradients of `loss` (computed by the nodes from `mark` on) with
    respect to `leaves`; returns one value per leaf."""
    forward = _loss_nodes(graph, mark, loss)
    sub = Graph(f"{graph.name}_loss")
    mapping: dict[int, Value] = {}
    outer: list[Value] = []

    def param(v: Value) -> Value:
        p = mapping.get(id(v))
        if p is None:
            p = mapping[id(v)] = sub.add_input(v.dtype, v.shape, weak=v.weak)
            outer.append(v)
        return p

    for leaf in leaves:
        param(leaf)
    copies = []
    for node in forward:
        if node.extra or node.op in ("loop", "if"):
            raise graph_break("call", name=f"a gradient through {node.op}")
        inputs = [param(v) for v in node.inputs]
        mapping[id(node.out)] = _replay(sub, node.op, inputs, node.out, node.attrs)
        copies.append(node.out)
    if not copies or copies[-1] is not loss:
        return [_zeros_or_seed(graph, leaf, leaf is loss) for leaf in leaves]
    sub.set_outputs([mapping[id(loss)]])
    try:
        # Only the joint graph is used: the cheapest split (no max-flow) will do.
        _, _, report = _core.joint_partition(sub.to_ir(), list(range(len(leaves))), [True],
                                             min_cut=False)
    except ValueError as exc:
        raise graph_break("numpy", reason=f"no gradient: {exc}") from exc
    # The joint graph: the sub-graph's parameters, the cotangent, the forward statements
    # copied in order, then the backward ones, which are the only ones parsed.
    known = {i: v for i, v in enumerate(outer)}
    known[len(outer)] = graph.op("full", [], value=1.0, shape=(), dtype=loss.dtype)
    for k, out in enumerate(copies):
        known[len(outer) + 1 + k] = out
    returned = append_statements(report["joint"], graph, known, len(known))
    return returned[1:]


def _zeros_or_seed(graph: Graph, leaf: Value, is_loss: bool) -> Value:
    return graph.op("full", [], value=1.0 if is_loss else 0.0, shape=leaf.shape,
                    dtype=leaf.dtype)


def _loss_nodes(graph: Graph, mark: int, loss: Value) -> list[Any]:
    """The nodes from `mark` on that `loss` depends on, in order."""
    needed = {id(loss)}
    chosen = []
    for node in reversed(graph.nodes[mark:]):
        if any(id(r) in needed for r in node.results):
            chosen.append(node)
            needed.update(id(v) for v in node.inputs)
    chosen.reverse()
    return chosen


def is_gradient_function(fn: Any) -> bool:
    """Whether `fn` is a function `grad` or `value_and_grad` returned."""
    return isinstance(getattr(fn, WRAPPER, None), tuple)


def compiled_gradient(fn: Any) -> Any:
    """What `ember.compile(value_and_grad(f))` compiles: a function calling the gradient
    function, whose frame capture takes (the gradient function's own frame, and any frame of
    ember's own files, is never captured), so that the forward and backward passes become one graph. Each gets a code
    object of its own, so that entries and recompile counts are per compiled function."""
    if not is_gradient_function(fn):
        return fn

    def gradient(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    name = getattr(fn, "__name__", "gradient")
    # Outside ember's own files and its `<ember...>` pseudo-files, whose frames the hook
    # never captures.
    gradient.__code__ = gradient.__code__.replace(co_name=name,
                                                  co_filename=f"<gradient of {name}>")
    gradient.__name__ = name
    gradient.__qualname__ = getattr(fn, "__qualname__", name)
    gradient.__doc__ = fn.__doc__
    gradient.__module__ = fn.__module__
    return gradient


def mark_transform(fn: Any, kind: str) -> None:
    setattr(fn, TRANSFORM, kind)


def mark_wrapper(wrapper: Any, kind: str, fn: Any, argnums: Any, has_aux: bool) -> None:
    setattr(wrapper, WRAPPER, (kind, fn, argnums, has_aux))
