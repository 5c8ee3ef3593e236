"""Advanced indexing with integer arrays computed at run time: `x[idx]`, `x[:, idx]`,
`x[i_arr, j_arr]`, `x[idx] = v`, `np.take`, `np.take_along_axis`, `ufunc.at`.

A gather outside loop bodies is the `gather` op. The others, and gathers inside loop bodies,
are a loop nest (`loop_nest.py`) over the indexing result's shape, reading the index
arrays with `load` and moving elements with `load`/`store`: the native code bounds-checks
every index and raises NumPy's `IndexError` message. The result's shape follows NumPy's rule:
the index arrays broadcast together to a shape B; B replaces the indexed axes where they are
adjacent, and comes first otherwise. An integer next to an index array is an index array of
shape ()."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.shapes import Dim, broadcast_shapes, dim_terms
from ember.numpy_api.loop_nest import Body, Hoist, LoopNest, element_of

_VALID = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer "
          "or boolean arrays are valid indices")


def is_index_array(item: object) -> bool:
    """Whether an index item is a traced integer array (of any rank, 0-d included)."""
    return isinstance(item, Value) and item.dtype.kind in "iu"


@dataclass
class Plan:
    """An advanced index resolved against an array: per axis either an index value (a
    broadcast index array, or a constant for an integer) or a slice's (start, step,
    length); where the broadcast index shape sits in the result."""

    array: Value
    axes: list[Value | tuple[int, int, int]]
    index_shape: tuple[int, ...]
    result_dims: list[tuple[str, int]]  # ("axis", array axis) or ("index", axis of B)

    @property
    def result_shape(self) -> tuple[int, ...]:
        return tuple(self.index_shape[j] if kind == "index" else self._length(j)
                     for kind, j in self.result_dims)

    def _length(self, axis: int) -> int:
        spec = self.axes[axis]
        assert isinstance(spec, tuple)
        return spec[2]

    @property
    def index_arrays(self) -> list[Value]:
        return [a for a in self.axes if isinstance(a, Value)]

    def index_depth(self) -> int:
        """The loop depth at which every axis of B has its loop index."""
        positions = [p for p, (kind, _) in enumerate(self.result_dims) if kind == "index"]
        return positions[-1] + 1 if positions else 0

    def hoist(self, offset: int) -> Hoist:
        """Reads the index arrays (invariants `offset..`) at the current index of B."""
        count = len(self.index_arrays)

        def read(graph: Graph, indices: list[Value], invariants: list[Value]) -> list[Value]:
            b = [indices[p] for p, (kind, _) in enumerate(self.result_dims) if kind == "index"]
            return [element_of(graph, a, b) for a in invariants[offset:offset + count]]

        return read

    def source(self, graph: Graph, indices: list[Value], loaded: list[Value]) -> list[Value]:
        """The array's index per axis at the result position `indices`."""
        by_axis = {j: indices[p] for p, (kind, j) in enumerate(self.result_dims)
                   if kind == "axis"}
        values = iter(loaded)
        out: list[Value] = []
        for axis, spec in enumerate(self.axes):
            if isinstance(spec, Value):
                out.append(next(values))
                continue
            start, step, _ = spec
            k = by_axis[axis]
            if step != 1:
                k = graph.op("mul", [k, graph.const(step)])
            out.append(k if start == 0 else graph.op("add", [k, graph.const(start)]))
        return out

    def nest(self, body: Body, offset: int) -> LoopNest:
        """The loop nest over the result, the index arrays passed at invariants `offset..`
        and read once per index of B (appended to the invariants after that)."""
        return LoopNest(self.result_shape, body, {self.index_depth(): self.hoist(offset)})


def _example_shape(graph: Graph, shape: tuple, what: str) -> tuple[int, ...]:
    """A shape with each symbolic dim at its size in the call being captured: NumPy's own
    errors come from stand-ins of it (symbolic dims keep their relations in later calls)."""
    examples = graph.root.symbol_examples
    out: list[int] = []
    for d in shape:
        if isinstance(d, str):
            terms, constant = dim_terms(d)
            total = constant
            for product, coefficient in terms.items():
                if any(symbol not in examples for symbol in product):
                    raise Unsupported(f"{what} with symbolic dimensions")
                total += coefficient * int(np.prod([examples[x] for x in product]))
            d = total
        out.append(int(d))
    return tuple(out)


def symbolic_gather(graph: Graph, a: Value, items: tuple[object, ...]
                    ) -> tuple[Value, list[tuple[str, int]]] | None:
    """`x[idx]`, `x[:, idx]` of an array with symbolic dims, outside loop bodies: one index
    array of integers on one axis, every other axis whole. The `gather` op takes it as it
    is (the schedule sizes it per binding, its step wraps and checks each index against the
    axis with NumPy's `IndexError`), with the result's dims as `Plan.result_dims` names them;
    None for any other index, which `plan` sizes."""
    if graph is not graph.root or not any(isinstance(d, str) for d in a.shape):
        return None
    arrays = [k for k, item in enumerate(items) if isinstance(item, Value)]
    whole = all(isinstance(item, slice) and item == slice(None)
                for k, item in enumerate(items) if k not in arrays)
    if len(arrays) != 1 or not whole or len(items) > a.ndim:
        return None
    index = items[arrays[0]]
    assert isinstance(index, Value)
    if not is_index_array(index) or index.dtype == np.bool_:
        return None
    axis = arrays[0]
    if graph.loop_ops and _run_length(graph, a.shape[axis + 1:]) < _RUN and all(
            graph.size_carried(symbol) for d in index.shape if isinstance(d, str)
            for product in dim_terms(d)[0] for symbol in product):
        return None  # each index moves a few elements: element loops (`gather`)
    result_dims = [*(("axis", k) for k in range(axis)), *(("index", j) for j in range(index.ndim)),
                   *(("axis", k) for k in range(axis + 1, a.ndim))]
    return graph.op("gather", [a, index], axis=axis), result_dims


def plan(graph: Graph, a: Value, index: object) -> Plan:
    """Resolve `a[index]` where index holds at least one integer index array."""
    items = index if isinstance(index, tuple) else (index,)
    # Symbolic dims are taken whole (an index array on one, or `:`) and index arrays may
    # have them: the loop nest runs over their run-time sizes (`LoopNest`).
    shape = _example_shape(graph, a.shape, "advanced indexing")
    for item in items:
        if item is None:
            raise Unsupported("np.newaxis next to an index array")
        if isinstance(item, (list, np.ndarray)):
            raise Unsupported("a list index next to an index array")
        if isinstance(item, Value) and item.dtype == np.bool_:
            raise Unsupported("boolean mask indexing has a data-dependent result shape")
        if isinstance(item, Value) and not is_index_array(item):
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        if isinstance(item, (bool, np.bool_)):
            raise Unsupported("indexing with a boolean scalar")
        if not (item is Ellipsis or isinstance(item, (slice, Value, int, np.integer))):
            raise IndexError(_VALID)
    if sum(item is Ellipsis for item in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(1 for item in items if item is not Ellipsis)
    if consumed > a.ndim:
        raise IndexError(f"too many indices for array: array is {a.ndim}-dimensional, but "
                         f"{consumed} were indexed")
    has_ellipsis = any(item is Ellipsis for item in items)
    expanded: list[object] = []
    for item in (*items, *([] if has_ellipsis else [Ellipsis])):
        expanded.extend([slice(None)] * (a.ndim - consumed) if item is Ellipsis else [item])
    _dry_run(graph, shape, a.dtype, expanded)

    axes: list[Value | tuple[int, int, int]] = []
    for axis, item in enumerate(expanded):
        if isinstance(item, slice) and isinstance(a.shape[axis], str):
            if item != slice(None):
                raise Unsupported("a slice of a symbolic dimension next to an index array")
            axes.append((0, 1, a.shape[axis]))  # type: ignore[arg-type]
        elif isinstance(item, slice):
            start, stop, step = item.indices(shape[axis])
            axes.append((start, step, len(range(start, stop, step))))
        elif isinstance(item, Value):
            axes.append(item)
        elif isinstance(a.shape[axis], str):
            raise Unsupported("an integer index of a symbolic dimension next to an index array")
        else:
            i = int(item)  # type: ignore[call-overload]
            if not -shape[axis] <= i < shape[axis]:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size "
                                 f"{shape[axis]}")
            axes.append(graph.const(i % shape[axis]))
    indexed = [axis for axis, spec in enumerate(axes) if isinstance(spec, Value)]
    index_shape = broadcast_shapes(*[axes[k].shape for k in indexed])  # type: ignore[union-attr]
    others = [("axis", axis) for axis in range(a.ndim) if axis not in indexed]
    b_dims = [("index", j) for j in range(len(index_shape))]
    if indexed == list(range(indexed[0], indexed[-1] + 1)):
        cut = sum(1 for _, axis in others if axis < indexed[0])
        result_dims = [*others[:cut], *b_dims, *others[cut:]]
    else:
        result_dims = [*b_dims, *others]
    found = Plan(a, axes, tuple(index_shape), result_dims)
    if 0 in found.result_shape and 0 not in index_shape:
        # NumPy still checks every index against its axis; an empty loop would not.
        raise Unsupported("index arrays selecting from an array with an empty axis")
    return found


def _dry_run(graph: Graph, shape: tuple[int, ...], dtype: np.dtype, expanded: list[object]
             ) -> None:
    """Index a zero-strided stand-in with zero index arrays of the same shapes, so that
    NumPy raises its own error for index arrays that do not broadcast together."""
    stand_in = np.broadcast_to(np.zeros((), dtype), shape)
    dummy = tuple(np.zeros(_example_shape(graph, item.shape, "an index array"), np.intp)
                  if isinstance(item, Value) else item for item in expanded)
    try:
        stand_in[dummy]
    except IndexError as exc:
        if "shape mismatch" in str(exc):
            raise


def _zeros(graph: Graph, shape: tuple[int, ...], dtype: np.dtype) -> Value:
    return graph.full(shape, False if dtype == np.bool_ else 0, dtype)


def gather(graph: Graph, found: Plan) -> Value:
    """`a[index]`: a new array of the result's shape (a NumPy scalar when it is 0-d). Outside
    loop bodies it is one `gather` op where the graph is differentiated (the op has a gradient
    rule, loops have none) or where each index moves a run of elements (the op's extern step
    copies runs faster than loads); else, and inside loop bodies, a loop nest of element loads
    (faster where each index moves one element)."""
    if graph is graph.root and (not graph.loop_ops or _moves_runs(found)):
        return _gather_op(graph, found)
    return _gather_loops(graph, found)


# The least number of elements each index must move for the `gather` op to beat element
# loops (measured on 1-d and 2-d gathers: at 64 it is about twice as fast, at 1 three to four
# times slower).
_RUN = 8


def _moves_runs(found: Plan) -> bool:
    """Whether the axes after the indexed ones hold at least `_RUN` elements."""
    last = max(axis for axis, spec in enumerate(found.axes) if isinstance(spec, Value))
    trailing = [spec[2] for spec in found.axes[last + 1:] if isinstance(spec, tuple)]
    return _run_length(found.array.graph, trailing) >= _RUN


def _run_length(graph: Graph, trailing: Sequence[Dim]) -> int:
    """The elements each index moves: symbolic dims at their size in the call captured."""
    try:
        return int(np.prod(_example_shape(graph, tuple(trailing), "a gather")))
    except Unsupported:
        return _RUN  # a size nothing gives an example of


def _gather_loops(graph: Graph, found: Plan) -> Value:
    """The gather as a loop nest over the result, one element load per position."""
    a = found.array
    arrays = found.index_arrays

    def body(g: Graph, indices: list[Value], carried: list[Value], inv: list[Value]
             ) -> list[Value]:
        loaded = inv[1 + len(arrays):]
        element = g.op("load", [inv[0], *found.source(g, indices, loaded)])
        if not carried:
            return [element]
        return [g.op("store", [carried[0], element, *indices])]

    shape = found.result_shape
    initial = [_zeros(graph, shape, a.dtype)] if shape else []
    (out,) = found.nest(body, 1).run(graph, initial, [a, *arrays])
    return out


def _gather_op(graph: Graph, found: Plan) -> Value:
    """The `gather` op on the sliced array; index arrays on axes that are not adjacent are
    moved to the front first (a transposed view), where NumPy puts their shape."""
    a = _sliced(graph, found)
    indexed = [axis for axis, spec in enumerate(found.axes) if isinstance(spec, Value)]
    if indexed != list(range(indexed[0], indexed[-1] + 1)):
        perm = [*indexed, *(axis for axis in range(a.ndim) if axis not in indexed)]
        a = graph.op("transpose", [a], perm=perm)
        indexed = list(range(len(indexed)))
    return graph.op("gather", [a, *found.index_arrays], axis=indexed[0])


def add_at(graph: Graph, found: Plan, value: Value) -> Value:
    """`a` after `np.add.at(a, index, value)` in a differentiated graph: `a` plus a
    `scatter_add` of `value` (which has a gradient rule; element loops have none). The sum of
    the values at a repeated position is added once, so float results may differ from NumPy's
    running sum by rounding."""
    _refuse_slices(graph, found, "np.add.at")
    _refuse_symbolic(found, "np.add.at")
    return graph.op("add", [found.array, _scatter_add(graph, found, value)])


def _refuse_symbolic(found: Plan, what: str) -> None:
    if any(isinstance(d, str) for d in (*found.array.shape, *found.index_shape)):
        raise Unsupported(f"{what} with symbolic dimensions in a differentiated function")


def _refuse_slices(graph: Graph, found: Plan, what: str) -> None:
    if _sliced(graph, found) is not found.array:
        raise Unsupported(f"{what} with slices next to the index arrays in a differentiated "
                          "function")


def _scatter_add(graph: Graph, found: Plan, value: Value) -> Value:
    """An array of the indexed array's shape and dtype, zero but where the index writes:
    there the sum of the elements of `value` (broadcast to the indexing result) sent to each
    position."""
    a = found.array
    value = _as_result(graph, found, value)
    indexed = [axis for axis, spec in enumerate(found.axes) if isinstance(spec, Value)]
    if indexed == list(range(indexed[0], indexed[-1] + 1)):
        return graph.op("scatter_add", [value, *found.index_arrays], axis=indexed[0],
                        shape=list(a.shape))
    # The index arrays' shape comes first: scatter into the array with the indexed axes
    # moved to the front, then move them back.
    perm = [*indexed, *(axis for axis in range(a.ndim) if axis not in indexed)]
    moved = graph.op("scatter_add", [value, *found.index_arrays], axis=0,
                     shape=[a.shape[axis] for axis in perm])
    return graph.op("transpose", [moved], perm=[perm.index(axis) for axis in range(a.ndim)])


def _scatter_op(graph: Graph, found: Plan, value: Value) -> Value:
    """`a[index] = value` in a differentiated graph, from ops with gradient rules: the values
    of the last write to each position (`_last_writes`) scattered with `scatter_add`, taken
    by `where` over the positions written at all. The gradient then reaches `a` where nothing
    was written and each value where its write is the one that stays."""
    a = found.array
    _refuse_slices(graph, found, "item assignment through index arrays")
    _refuse_symbolic(found, "item assignment through index arrays")
    if a.dtype == np.bool_:
        raise Unsupported("item assignment through index arrays into a bool array in a "
                          "differentiated function")
    if 0 in found.index_shape:
        return a
    last = _on_result(graph, found, _last_writes(graph, found))
    kept = graph.op("where", [last, _as_result(graph, found, value), graph.full((), 0, a.dtype)])
    written = graph.op("gt", [_scatter_add(graph, found, graph.full((), 1, a.dtype)),
                              graph.full((), 0, a.dtype)])
    return graph.op("where", [written, _scatter_add(graph, found, kept), a])


def _last_writes(graph: Graph, found: Plan) -> Value:
    """Per position of the index shape B, whether no later position (in C order, NumPy's
    order of assignment) writes the same element: the positions sorted stably by the element
    they write, each last of its run."""
    a = found.array
    b = list(found.index_shape)
    count = int(np.prod(b))
    target: Value | None = None
    for axis, spec in enumerate(found.axes):
        if not isinstance(spec, Value):
            continue
        index = spec if tuple(spec.shape) == tuple(b) else \
            graph.op("broadcast_to", [spec], shape=b)
        index = graph.op("astype", [index], dtype=np.dtype(np.int64)) \
            if index.dtype != np.int64 else index
        wrapped = graph.op("mod", [index, graph.const(np.int64(a.shape[axis]))])
        target = wrapped if target is None else graph.op(
            "add", [graph.op("mul", [target, graph.const(np.int64(a.shape[axis]))]), wrapped])
    assert target is not None
    if count == 1:
        return graph.full(b, True, np.bool_)
    flat = graph.op("reshape", [target], shape=[count])
    order = graph.op("argsort", [flat], axis=0)
    ordered = graph.op("gather", [flat, order], axis=0)
    differs = graph.op("ne", [graph.op("slice", [ordered], start=[0], stop=[count - 1], step=[1]),
                              graph.op("slice", [ordered], start=[1], stop=[count], step=[1])])
    last_sorted = graph.op("concatenate", [differs, graph.full((1,), True, np.bool_)], axis=0)
    # argsort of a permutation is its inverse: back from sorted order to C order.
    last = graph.op("gather", [last_sorted, graph.op("argsort", [order], axis=0)], axis=0)
    return graph.op("reshape", [last], shape=b)


def _as_result(graph: Graph, found: Plan, value: Value) -> Value:
    """`value` in the indexed array's dtype, broadcast to the indexing result's shape."""
    a = found.array
    value = graph.op("astype", [value], dtype=a.dtype) if value.dtype != a.dtype else value
    if tuple(value.shape) != found.result_shape:
        value = graph.op("broadcast_to", [value], shape=list(found.result_shape))
    return value


def _on_result(graph: Graph, found: Plan, per_index: Value) -> Value:
    """A value over the index shape B broadcast to the indexing result's shape."""
    dims = [kind == "index" for kind, _ in found.result_dims]
    first = dims.index(True)
    shaped = graph.op("reshape", [per_index], shape=[
        *[1] * first, *found.index_shape, *[1] * (len(dims) - first - len(found.index_shape))])
    return graph.op("broadcast_to", [shaped], shape=list(found.result_shape))


def _sliced(graph: Graph, found: Plan) -> Value:
    """The array with the plan's slices applied (a view; the array itself when none)."""
    a = found.array
    starts: list[int] = []
    stops: list[int] = []
    steps: list[int] = []
    for axis, spec in enumerate(found.axes):
        start, step, length = (0, 1, a.shape[axis]) if isinstance(spec, Value) else spec
        if isinstance(length, str):  # a symbolic dim, whole
            starts.append(0)
            stops.append(-1)
            steps.append(1)
            continue
        stop = start + length * step  # clamped as `slice.indices` normalises it
        starts.append(start)
        stops.append(min(stop, a.shape[axis]) if step > 0 else max(stop, -1))
        steps.append(step)
    whole = [-1 if isinstance(d, str) else d for d in a.shape]
    if starts == [0] * a.ndim and steps == [1] * a.ndim and stops == whole:
        return a
    return graph.op("slice", [a], start=starts, stop=stops, step=steps)


def scatter(graph: Graph, found: Plan, value: Value) -> Value:
    """`a` after `a[index] = value`, elements written in index order (a repeated index keeps
    the last value written, as NumPy's assignment does): a loop nest, or in a differentiated
    graph `_scatter_op`. `value` is converted as `astype`
    converts, which is NumPy's unsafe casting of assignment."""
    shape = found.result_shape
    value_shape = tuple(value.shape)
    try:
        fits = broadcast_shapes(value_shape, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"shape mismatch: value array of shape "
                         f"{_example_shape(graph, value_shape, 'an assigned value')} could not "
                         f"be broadcast to indexing result of shape "
                         f"{_example_shape(graph, shape, 'an indexing result')}")
    if graph is graph.root and not graph.loop_ops:
        return _scatter_op(graph, found, value)
    return update(graph, found, [value], lambda g, old, new: new[0], reads_old=False)


Combine = Callable[[Graph, "Value | None", list[Value]], Value]


def update(graph: Graph, found: Plan, operands: list[Value], combine: Combine, *,
           reads_old: bool = True) -> Value:
    """`a` with each indexed element replaced by `combine(g, old, operand elements)`, in
    index order, so a repeated index sees what its previous visit wrote (`ufunc.at`)."""
    arrays = found.index_arrays
    k = len(operands)

    def body(g: Graph, indices: list[Value], carried: list[Value], inv: list[Value]
             ) -> list[Value]:
        at = found.source(g, indices, inv[k + len(arrays):])
        old = g.op("load", [carried[0], *at]) if reads_old else None
        new = [element_of(g, v, indices) for v in inv[:k]]
        return [g.op("store", [carried[0], combine(g, old, new), *at])]

    (out,) = found.nest(body, k).run(graph, [found.array], [*operands, *arrays])
    return out


def _i64(graph: Graph, v: Value) -> Value:
    if v.dtype == np.int64 and not v.weak:
        return v
    return graph.op("astype", [v], dtype=np.dtype(np.int64), scalar=True)


class Compacted:
    """Buffers holding chosen elements of 1-d arrays at their front, in order: `keep` (a 1-d
    bool array) chooses; `count` is how many it does (a weak int64). Each chosen element is
    stored at its rank among them, every other one at the last place, which is past the
    count wherever anything is not chosen."""

    def __init__(self, graph: Graph, keep: Value) -> None:
        n = keep.shape[0]
        self.graph = graph
        rank = graph.op("cumsum", [graph.op("astype", [keep], dtype=np.dtype(np.int64))],
                        axis=0)
        self.slot = graph.op("sub", [rank, graph.const(np.int64(1))])
        if isinstance(n, str):  # a symbolic length: its last place read at run time
            from ember.capture.loops.sizes import value_in

            last = graph.op("sub", [_i64(graph, value_in(graph, n)), graph.const(np.int64(1))])
            self.spare = last
        else:
            self.spare = last = graph.const(np.int64(n - 1))
        count = graph.op("load", [rank, last])
        self.count = graph.op("astype", [count], dtype=np.dtype(np.int64), weak=True)

    def stored(self, keep: Value, values: Value) -> Value:
        """`values` where `keep` (this one's choice, or one choosing as many elements, each
        in the rank of one of its own) is true, at the front of a buffer of their size."""
        graph = self.graph
        place = graph.op("where", [keep, self.slot, self.spare])
        empty = graph.full(values.shape, 0, values.dtype)
        return scatter(graph, plan(graph, empty, place), values)
