"""Slices of argument arrays that the graph cannot express with sizes it knows, taken by the
entry instead.

`x[:n]`, `x[n:]`, `x[a:b]`, `x[:, :n]` with run-time ints `n`, `a`, `b` at the frame's level
(and `x[::2]` along a symbolic axis, whose length the graph cannot write as a dim of its
symbol) would be specialised on their bounds, so each new bound would compile again. When
the array is an argument not yet updated, the view is instead one more graph input: the
entry takes it in Python (`input_view`: Python's own clamping of bounds, its IndexError)
and the graph sees an array whose sliced axes carry a symbol, bound from the view's shape at
each call as any input's. The view is read-only for capture (updating it, or its base while
it is held, is refused as for any view: see `ArrayVariable.viewed`), and a view whose
symbolic axis is below the least size the graph needs sends the call to plain Python rather
than binding a symbol to 0 or 1: the compiled graph refuses a symbol below 2 (as both
backends do), `take_view` a view below what later slices of it need.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.sources import Embedder, Source
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.capture.variables.scalar import PythonScalarVariable, structural
from ember.graph.shapes import python_slice

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.capture.variables.array import ArrayVariable


class RuntimeSliceVariable(VariableTracker):
    """`a:b:c` at the frame's level with a run-time int among its parts (the others are
    constants): kept unspecialised until the subscript that uses it decides."""

    def __init__(self, parts: list[VariableTracker]) -> None:
        self.parts = parts

    def describe(self) -> str:
        return "slice(" + ", ".join(p.describe() for p in self.parts) + ")"

    def type_name(self) -> str:
        return "slice"

    def python_type(self) -> type:
        return slice

    def children(self) -> tuple[VariableTracker, ...]:
        return tuple(self.parts)

    def specialise(self) -> ConstantVariable:
        """The slice as a constant, guarded on the run-time ints it was built from."""
        return ConstantVariable(slice(*[structural(p).constant() for p in self.parts]))

    def example(self) -> slice:
        return slice(*[_example(p) for p in self.parts])


def runtime_slice(tx: Interpreter, parts: list[VariableTracker]) -> RuntimeSliceVariable | None:
    """BUILD_SLICE's tracker when a part is a run-time int at the frame's level; None
    otherwise."""
    if tx.graph.parent is not None or not any(_runtime_int(p) for p in parts):
        return None
    if all(_runtime_int(p) or (p.is_constant() and type(p.constant()) in (int, type(None)))
           for p in parts):
        return RuntimeSliceVariable(parts)
    return None


def has_runtime_slice(index: VariableTracker) -> bool:
    from ember.capture.variables.containers import TupleVariable

    items = index.items if isinstance(index, TupleVariable) else [index]
    return any(isinstance(i, RuntimeSliceVariable) for i in items)


def specialised(index: VariableTracker) -> VariableTracker:
    """`index` with every run-time slice in it made a guarded constant (the subscript of an
    object other than an argument array, an assignment, a slice not taken as a view)."""
    from ember.capture.variables.containers import TupleVariable

    if isinstance(index, RuntimeSliceVariable):
        return index.specialise()
    if isinstance(index, TupleVariable) and has_runtime_slice(index):
        return TupleVariable([specialised(i) for i in index.items])
    return index


def input_view(tx: Interpreter, array: ArrayVariable, index: VariableTracker,
               ) -> ArrayVariable | None:
    """`array[index]` as a graph input the entry takes (see the module's doc), or None where
    it cannot be: `array` is not an argument as it was passed, an index part is not a
    constant or a slice, or a symbolic axis of the view would be below 2 in this call."""
    from ember.capture.variables.array import ArrayVariable
    from ember.capture.variables.containers import TupleVariable

    tracer = tx.tracer
    if tx.graph.parent is not None or array.value.scalar:
        return None
    chain = _view_chain(tracer, array.value)
    if chain is None:
        return None
    base, nodes = chain
    parts = index.items if isinstance(index, TupleVariable) else [index]
    if not all(isinstance(p, RuntimeSliceVariable) or _plain_index(p) for p in parts):
        return None
    example_index = tuple(p.example() if isinstance(p, RuntimeSliceVariable) else p.constant()
                          for p in parts)
    try:
        example = _apply_chain(base.example, nodes)[example_index]
    except (IndexError, TypeError, ValueError):
        return None  # Python's error, raised where the frame runs as Python
    axes = _view_axes(array.value.shape, parts)
    if any(kind != "static" and size < 2 for (kind, _), size in zip(axes, example.shape)):
        return None
    shape = tuple(_view_dim(tracer, kind, dim, size)
                  for (kind, dim), size in zip(axes, example.shape, strict=True))
    source = ViewSource(base.source, tuple(nodes), tuple(parts), shape, tracer.graph)
    value = tracer.add_view_input(example, shape, source)
    tracer.input_views.append((array.value, value))
    return ArrayVariable(value)


# Views the entry can take again from the argument without knowing any size.
_CHAIN_OPS = ("slice", "transpose", "flip", "expand_dims", "squeeze")


def _view_chain(tracer: Any, value: Any) -> tuple[Any, list[Any]] | None:
    """The argument `value` is a view of, and the view ops from it to `value` (the first
    first), where each takes no size (`x.T`, `x[1:]`); None otherwise."""
    producers = {id(n.out): n for n in tracer.graph.nodes}
    nodes: list[Any] = []
    while True:
        found = next((i for i in tracer.inputs if i.value is value and not i.scalar), None)
        if found is not None:
            return found, nodes[::-1]
        node = producers.get(id(value))
        if node is None or node.op not in _CHAIN_OPS:
            return None
        nodes.append(node)
        value = node.inputs[0]


def view_root(tracer: Any, value: Any) -> Any:
    """The argument's value that `value` views through size-free view ops (itself if none)."""
    chain = _view_chain(tracer, value)
    return value if chain is None else chain[0].value


def _apply_chain(array: np.ndarray, nodes: list[Any]) -> np.ndarray:
    """The view ops of `nodes` applied to `array` by NumPy, as `Rebuilder.view_expr` writes
    them for the entry."""
    for node in nodes:
        attrs = node.attrs
        if node.op == "slice":
            array = array[tuple(map(python_slice, attrs["start"], attrs["stop"], attrs["step"]))]
        elif node.op == "transpose":
            array = array.transpose(tuple(attrs["perm"]))
        else:
            array = getattr(np, node.op)(array, tuple(attrs["axis"]))
    return array


def _view_axes(base_shape: tuple, parts: list[VariableTracker]) -> list[tuple[str, Any]]:
    """Per axis of the view, how its size is known: "static" (a static dim, or a new axis),
    "same" (a symbolic dim taken whole; with it) or "new" (sliced by run-time bounds, or a
    symbolic dim sliced; with the base's dim and the slice, which decide its length)."""
    kept = sum(1 for p in parts if not (_is(p, None) or _is(p, Ellipsis)))
    axes: list[tuple[str, Any]] = []
    axis = 0
    for part in parts:
        if _is(part, Ellipsis):
            axes += [_whole(d) for d in base_shape[axis:axis + len(base_shape) - kept]]
            axis += len(base_shape) - kept
        elif _is(part, None):
            axes.append(("static", None))
        else:
            dim = base_shape[axis]
            axis += 1
            if isinstance(part, RuntimeSliceVariable):
                axes.append(("new", (dim, _part_key(part))))
            elif part.constant() == slice(None):
                axes.append(_whole(dim))
            elif isinstance(part.constant(), slice):
                new = isinstance(dim, str)
                axes.append(("new", (dim, _part_key(part))) if new else ("static", dim))
    return axes + [_whole(d) for d in base_shape[axis:]]


def _whole(dim: Any) -> tuple[str, Any]:
    return ("same" if isinstance(dim, str) else "static", dim)


def _view_dim(tracer: Any, kind: str, dim: Any, size: int) -> Any:
    if kind == "static":
        return size
    if kind == "same":
        return dim
    return tracer.view_symbol(dim, size)


def _part_key(part: VariableTracker) -> tuple:
    """What decides a sliced axis's length besides the base's dim: the same run-time ints
    (by identity) and constants give the same length in every call."""
    if isinstance(part, RuntimeSliceVariable):
        return tuple(_part_key(p) for p in part.parts)
    if isinstance(part, PythonScalarVariable):
        return ("run-time", id(part))
    value = part.constant()
    if isinstance(value, slice):  # not hashable before Python 3.12
        return ("constant", value.start, value.stop, value.step)
    return ("constant", value)


def _plain_index(part: VariableTracker) -> bool:
    if not part.is_constant():
        return False
    value = part.constant()
    return (value is None or value is Ellipsis or isinstance(value, slice)
            or type(value) is int)


def _is(part: VariableTracker, value: Any) -> bool:
    return part.is_constant() and part.constant() is value


def _runtime_int(part: VariableTracker) -> bool:
    return isinstance(part, PythonScalarVariable) and part.python_class is int


def _example(part: VariableTracker) -> Any:
    return part.example if isinstance(part, PythonScalarVariable) else part.constant()


class ViewSource(Source):
    """A graph input that is a view of an argument, taken by the entry (`input_view`); its
    leaves are guarded where they are read; its sizes are checked by the graph (see the
    module's doc)."""

    def __init__(self, base: Source, nodes: tuple[Any, ...], parts: tuple[VariableTracker, ...],
                 shape: tuple, graph: Any) -> None:
        self.base = base
        self.nodes = nodes  # view ops from the argument to the array indexed (`x.T`)
        self.parts = parts
        self.shape = shape
        self.graph = graph  # for the least sizes its symbols need, known once capture ends

    def name(self) -> str:
        return f"{self.base.name()}[" + ", ".join(_describe(p) for p in self.parts) + "]"

    def accessors(self) -> tuple[tuple, ...]:
        return ()

    def root(self) -> Source:
        return self.base.root()

    def reload(self, emb: Embedder) -> str:
        array = self.base.reload(emb)
        for node in self.nodes:
            array = emb.view_expr(node, array)  # type: ignore[attr-defined]
        index = "(" + "".join(f"{_part_expr(emb, p)}, " for p in self.parts) + ")"
        minimums = self._minimums()
        if max(minimums, default=0) <= 2:  # the compiled graph refuses a symbol below 2
            return f"{array}[{index}]"
        return f"{emb.embed(take_view, 'take_view')}({array}, {index}, {minimums!r})"

    def _minimums(self) -> tuple[int, ...]:
        """The least size of each axis of the view (0: a static axis, which the graph
        checks), known once capture has ended."""
        return tuple(self.graph.size_minimums.get(d, 2) if isinstance(d, str) else 0
                     for d in self.shape)

    def direct_read(self, emb: Any) -> tuple[int, tuple] | None:
        """The view as the native fast path reads it (`dispatch/direct.rs: Read::Index`): the
        argument's slot and per index part `(kind, bounds)` (kind 0 an int, 1 a slice; each
        bound `(0, 0)` None, `(1, k)` the int k, `(2, slot)` an int argument). None where
        it reads more than that (a view of a view, an int computed from arguments, a least
        size above 2)."""
        slot = _slot(emb, self.base.reload(emb))
        if slot is None or self.nodes or max(self._minimums(), default=0) > 2:
            return None
        parts = []
        for part in self.parts:
            if isinstance(part, RuntimeSliceVariable):
                bounds = [_direct_bound(emb, p) for p in part.parts]
                bounds += [(0, 0)] * (3 - len(bounds))
                if None in bounds:
                    return None
                parts.append((1, tuple(bounds)))
                continue
            value = part.constant()
            if isinstance(value, slice):
                bounds = [_direct_bound(emb, ConstantVariable(b))
                          for b in (value.start, value.stop, value.step)]
                if None in bounds:
                    return None
                parts.append((1, tuple(bounds)))
            elif type(value) is int and abs(value) < 2**62:
                parts.append((0, ((1, value), (0, 0), (0, 0))))
            else:
                return None  # a new axis, an ellipsis
        return slot, tuple(parts)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)


def _slot(emb: Any, name: str) -> int | None:
    return emb.params.index(name) if name in emb.params else None


def _direct_bound(emb: Any, part: VariableTracker) -> tuple[int, int] | None:
    """A slice bound as `direct_read` gives it; None where it is neither a constant int (or
    None) nor an int argument."""
    if isinstance(part, PythonScalarVariable):
        slot = _slot(emb, emb.expr(part))
        return None if slot is None else (2, slot)
    value = part.constant()
    if value is None:
        return (0, 0)
    return (1, value) if type(value) is int and abs(value) < 2**62 else None


def take_view(base: np.ndarray, index: tuple, minimums: tuple[int, ...]) -> np.ndarray:
    """`base[index]`, as the graph input it is, where a later slice of it needs more than 2
    along a symbolic axis: a view below that raises, and the entry runs the frame as
    Python."""
    view = base[index]
    for size, minimum in zip(view.shape, minimums, strict=True):
        if size < minimum:
            raise ValueError("a view's size is below what its compiled graph takes")
    return view


def _part_expr(emb: Any, part: VariableTracker) -> str:
    if isinstance(part, (RuntimeSliceVariable, PythonScalarVariable)):
        return emb.expr(part)  # `Rebuilder.expr`: `slice(...)` of the bounds' expressions
    return emb.constant(part.constant())


def _describe(part: VariableTracker) -> str:
    if isinstance(part, RuntimeSliceVariable):
        return ":".join("" if _is(p, None) else p.describe() for p in part.parts)
    return repr(part.constant())


def from_end(array: Any, index: VariableTracker) -> VariableTracker:
    """`index` with each run-time int that is its axis's symbolic size less a constant
    (`x[n - 1]` for `n = len(x)`, `y[len(y) - 2, j]`) as the constant counted from the end
    (`-1`, `-2`), which one graph takes for every size; the axis is required to hold it.
    Items past the first that is not an int or a slice are left as they are."""
    from ember.capture.variables.int_dims import int_terms
    from ember.capture.variables.containers import TupleVariable
    from ember.graph.shapes import dim_terms

    items = list(index.items) if isinstance(index, TupleVariable) else [index]
    shape = array.value.shape
    changed = False
    for axis, item in enumerate(items):
        if axis >= len(shape):
            break
        if isinstance(item, PythonScalarVariable):
            found = int_terms(item, fixed=True, new_symbols=False, guard=False)
            dim = shape[axis]
            if found is None or not isinstance(dim, str):
                continue
            terms, constant = found
            own, own_constant = dim_terms(dim)
            if terms == own and own_constant - constant >= 1:
                back = own_constant - constant
                array.value.graph.require_size(dim, back)
                for leaf in item.leaves():
                    if leaf.symbol is None:  # an int argument that never changed: its value
                        leaf.tracer.guards.add(leaf.source, ("EQUALS_MATCH", leaf.example))
                items[axis] = ConstantVariable(-back)
                changed = True
        elif not (isinstance(item, ConstantVariable)
                  and isinstance(item.constant(), (int, slice))
                  and not isinstance(item.constant(), bool)):
            break
    if not changed:
        return index
    return TupleVariable(items) if isinstance(index, TupleVariable) else items[0]


def symbolic_bounds(array: Any, index: VariableTracker) -> VariableTracker:
    """`index` with each bound of a run-time slice that is its axis's symbolic size less a
    constant (`img[p:p + H]` with `H = len(img) - 2` and `p` at most 2, `x[k:len(x) - 1]`)
    as that constant counted from the end (`-2`, or None for the end itself), so the slice
    is the graph's own over every size rather than a view the entry takes or a bound
    specialised per size. The axis is required to hold the constant (a bound below 0 would
    count from the end in Python)."""
    from ember.capture.variables.containers import TupleVariable
    from ember.capture.variables.int_dims import int_terms
    from ember.graph.shapes import dim_terms

    items = list(index.items) if isinstance(index, TupleVariable) else [index]
    shape = array.value.shape
    if len(items) > len(shape) or any(_is(p, None) or _is(p, Ellipsis) for p in items):
        return index
    changed = False
    for axis, item in enumerate(items):
        dim = shape[axis]
        if not isinstance(item, RuntimeSliceVariable) or not isinstance(dim, str):
            continue
        start, stop, step = (list(item.parts) + [ConstantVariable(None)] * 3)[:3]
        if not (_is(step, None) or (step.is_constant() and step.constant() == 1)):
            continue
        parts = [start, stop, step]
        for i in (0, 1):
            part = parts[i]
            if not isinstance(part, PythonScalarVariable):
                continue
            found = int_terms(part, fixed=True, new_symbols=False, guard=False)
            own, own_constant = dim_terms(dim)
            if found is None or found[0] != own or own_constant - found[1] < (1 - i):
                continue
            if any(_changes(leaf) for leaf in part.leaves()):
                continue  # an int argument seen to change stays a run-time bound
            back = own_constant - found[1]
            array.value.graph.require_size(dim, max(back, 2))
            for leaf in part.leaves():
                if leaf.symbol is None:  # an int argument that never changed: its value
                    leaf.tracer.guards.add(leaf.source, ("EQUALS_MATCH", leaf.example))
            parts[i] = ConstantVariable(-back if back else None)
            changed = True
        if any(_runtime_int(p) for p in parts):
            items[axis] = RuntimeSliceVariable(parts)
        else:
            items[axis] = ConstantVariable(slice(*[p.constant() for p in parts]))
    if not changed:
        return index
    return TupleVariable(items) if isinstance(index, TupleVariable) else items[0]


def _changes(leaf: PythonScalarVariable) -> bool:
    """Whether a run-time int that is no size is one that changes between calls (listed
    among the dynamic dims, or every int under `dynamic=True`), which a guard on its value
    would recompile for."""
    tracer = leaf.tracer
    return leaf.symbol is None and (tracer.every_dim_dynamic or leaf.source is None or (
        leaf.source.name() in (tracer.dynamic_dims or ())))
