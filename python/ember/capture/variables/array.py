"""Arrays as graph values, and calls into `ember.numpy_api` (NumPy's surface as graph ops).

Arguments cross into `numpy_api` as `Value`s (arrays) or plain Python objects (constants,
tuples/lists of either); results come back as `Value`s, tuples of them, or Python objects.
Errors NumPy itself would raise (a shape mismatch, a bad axis) become a break that runs the
frame as plain Python, so the user gets NumPy's exception from their own line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ember import numpy_api
from ember.capture.breaks import from_numpy_api, graph_break
from ember.capture.loops import elements
from ember.capture.sources import Source
from ember.capture.variables import slices
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import (
    ConstantVariable,
    is_constant_value,
    is_namedtuple_type,
)
from ember.errors import Unsupported
from ember.graph import Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

# Ops whose result may share memory with their first operand in NumPy (views): an array
# produced by one, or viewed by one, is never updated in place during capture.
VIEW_OPS = frozenset(
    {"reshape", "transpose", "broadcast_to", "expand_dims", "squeeze", "slice", "flip"}
)


_METHODS_MAY_RETURN_A_VIEW = frozenset({
    "astype", "conj", "conjugate", "diagonal", "ravel", "reshape", "squeeze", "swapaxes",
    "transpose"})


def fresh_result(graph: Any, result: Any, first_node: int) -> Any:
    """`result` as a new array: copied where the handler built it from view ops alone of an
    array that existed before it ran (its nodes from `first_node` on)."""
    if not isinstance(result, Value) or result.scalar or result.weak:
        return result
    made = {id(v): n for n in graph.nodes[first_node:] for v in (n.out, *n.extra)}
    value = result
    while id(value) in made:
        node = made[id(value)]
        if node.op not in VIEW_OPS:
            return result
        value = node.inputs[0]
    return graph.op("copy", [result])


def call_numpy_api(what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Call a `numpy_api` entry point, turning its refusals and NumPy errors into breaks.
    NumPy math a handler does on constants that sets a floating-point flag (`np.float32(1e300)`
    overflows in the cast) is not done at capture: NumPy warns on every call, so the call runs
    in Python."""
    try:
        with np.errstate(all="raise", under="ignore"):  # NumPy ignores underflow by default
            return fn(*args, **kwargs)
    except FloatingPointError as exc:
        raise graph_break("side_effect", what=f"{what} ({exc})") from exc
    except Unsupported as exc:
        raise from_numpy_api(exc) from exc
    except (TypeError, ValueError, IndexError, ZeroDivisionError, OverflowError) as exc:
        raise graph_break("user_error", type=type(exc).__name__, message=f"{what}: {exc}") from exc


def to_api(vt: VariableTracker) -> Any:
    """The `numpy_api` argument for a tracker: a Value, a constant, or a tuple/list of them."""
    from ember.capture.variables.containers import ListVariable, TupleVariable
    from ember.capture.variables.scalar import PythonScalarVariable

    if isinstance(vt, ArrayVariable):
        return vt.value
    from ember.capture.loops.vectors import VectorVariable, materialise

    if isinstance(vt, VectorVariable):
        return materialise(None, vt).value
    if isinstance(vt, PythonScalarVariable):
        if vt.python_class is int:  # an axis, a size, an index: specialised on
            return vt.specialise().constant()
        return vt.graph_value()  # a weak scalar, as NumPy takes a Python number
    if isinstance(vt, TupleVariable):
        return tuple(to_api(item) for item in vt.items)
    if isinstance(vt, ListVariable):
        return [to_api(item) for item in vt.items]
    if vt.is_constant():
        return vt.constant()
    raise graph_break("type", what=f"{vt.describe()} as a NumPy argument", type=vt.type_name())


# Ufuncs whose operands a Python int known at run time enters as data (a weak scalar, as
# `a + n` takes it), not as a guarded constant: one graph for every value.
def shape_to_api(vt: VariableTracker) -> Any:
    """A shape argument for `numpy_api`: as `to_api`, except that a size of an argument read
    at run time (`n = len(x)`, `x.shape[0] - 1`) stays the symbolic dim it stands for
    (`s0`, `s0-1`), so that `np.zeros(n)` keeps the graph symbolic."""
    from ember.capture.variables.containers import ListVariable, TupleVariable

    if isinstance(vt, (TupleVariable, ListVariable)):
        return tuple(shape_to_api(item) for item in vt.items)
    from ember.capture.variables.int_dims import symbolic_dim

    dim = symbolic_dim(vt)
    return to_api(vt) if dim is None else dim


def _size_tracker(tx: Interpreter, dim: str, what: str) -> VariableTracker:
    """The run-time int a symbolic dim stands for: its symbols' sizes read by the entry
    (`Tracer.symbolic_size`), combined as the dim's terms say (`4*s0` is four times `s0`)."""
    from ember.capture.variables import scalar
    from ember.graph.shapes import dim_terms

    terms, constant = dim_terms(dim)
    total: VariableTracker | None = ConstantVariable(constant) if constant else None
    for product, coefficient in terms.items():
        term: VariableTracker | None = ConstantVariable(coefficient) if coefficient != 1 else None
        for symbol in product:
            size = tx.tracer.symbolic_size(symbol)
            if size is None:
                raise graph_break("dynamic_shape", what=what)
            term = size if term is None else scalar.binary("*", term, size)
        assert term is not None
        total = term if total is None else scalar.binary("+", total, term)
    assert total is not None
    return total


def wrap_api_result(result: Any) -> VariableTracker:
    """A tracker for what `numpy_api` returned."""
    from ember.capture.variables.containers import (
        ListVariable,
        NamedTupleVariable,
        TupleVariable,
    )

    if isinstance(result, Value):
        return ArrayVariable(result)
    if isinstance(result, tuple) and any(isinstance(r, Value) for r in result):
        items = [wrap_api_result(r) for r in result]
        if is_namedtuple_type(type(result)):  # np.linalg.slogdet's SlogdetResult
            return NamedTupleVariable(items, type(result), None)
        return TupleVariable(items)
    if isinstance(result, list):
        return ListVariable([wrap_api_result(r) for r in result])
    if is_constant_value(result):
        return ConstantVariable(result)
    raise graph_break("type", what="a NumPy result", type=type(result).__name__)


class ArrayVariable(VariableTracker):
    """An array (or NumPy scalar, when `value.scalar`) computed by the graph.

    Mutable only through `update_in_place`, which `x += y` uses on arrays created in this
    frame; every alias of the Python object shares this tracker and so sees the update."""

    def __init__(self, value: Value, source: Source | None = None) -> None:
        self.value = value
        self.source = source

    def describe(self) -> str:
        if self.source is not None:
            return self.source.name()
        for node in reversed(self.value.graph.nodes):
            if node.out is self.value:
                return f"the {node.op} result {self.value.type_str}"
        return f"an array {self.value.type_str}"

    def type_name(self) -> str:
        return "ndarray"

    def python_type(self) -> type:
        if self.value.weak:  # a Python scalar passed in or computed from one
            return {"b": bool, "i": int, "u": int, "f": float}[self.value.dtype.kind]
        return self.value.dtype.type if self.value.scalar else np.ndarray

    def truth(self, tx: Interpreter) -> bool:
        raise graph_break("data_dependent_branch", name=self.describe())

    def length(self, tx: Interpreter) -> int:
        if self.value.ndim == 0:
            raise graph_break("user_error", type="TypeError", message="len() of unsized object")
        n = self.value.shape[0]
        if isinstance(n, str):
            raise graph_break("dynamic_shape", what=f"len({self.describe()})")
        return n

    def size_variable(self, tx: Interpreter, axis: int, what: str) -> VariableTracker:
        """The size of `axis` as a tracker: a constant, or the run-time int of a symbolic
        dim: outside loop bodies read by the entry (`Tracer.symbolic_size`), inside one
        the body's value of it (`loops/sizes.py`), a weak int64 as any int the graph
        computes."""
        n = self.value.shape[axis]
        if not isinstance(n, str):
            return ConstantVariable(n)
        if tx.graph.parent is not None:
            from ember.capture.loops import sizes as loop_sizes

            return ArrayVariable(loop_sizes.value_in(tx.graph, n))
        return _size_tracker(tx, n, what)

    def len_variable(self, tx: Interpreter) -> VariableTracker:
        """`len(x)`: see `size_variable`."""
        if self.value.ndim == 0:
            raise graph_break("user_error", type="TypeError", message="len() of unsized object")
        return self.size_variable(tx, 0, f"len({self.describe()})")

    def unpack(self, tx: Interpreter) -> list[VariableTracker]:
        if self.value.ndim == 0:
            raise graph_break("user_error", type="TypeError",
                              message="iteration over a 0-d array")
        return [self.getitem(tx, ConstantVariable(i)) for i in range(self.length(tx))]

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        handler = numpy_api.lookup_method(name)
        if handler is not None:
            return ArrayMethodVariable(self, name, handler)
        if name in ("bit_length", "bit_count"):
            from ember.capture.variables.int_bits import method

            handler = method(self.value, name)
            if handler is not None:
                return ArrayMethodVariable(self, name, handler)
        if name in ("shape", "size") and any(isinstance(d, str) for d in self.value.shape):
            from ember.capture.variables import scalar
            from ember.capture.variables.containers import TupleVariable

            what = f"{self.describe()}.{name}"
            sizes = [self.size_variable(tx, k, what) for k in range(self.value.ndim)]
            if name == "shape":
                return TupleVariable(sizes)
            total = sizes[0]
            for size in sizes[1:]:
                total = (ConstantVariable(total.constant() * size.constant())
                         if total.is_constant() and size.is_constant()
                         else scalar.binary("*", total, size))
            return total
        if name == "strides":
            from ember.capture.variables import strided

            found = strided.strides_of(tx, self)
            if found is not None:
                return found
        result = call_numpy_api(f"attribute {name}", numpy_api.get_attribute, self.value, name)
        if name == "real" and result is self.value:
            return self  # `x.real` of a real array is `x` itself
        if isinstance(result, tuple) and any(isinstance(d, str) for d in result):
            raise graph_break("dynamic_shape", what=f"{self.describe()}.{name}")
        return wrap_api_result(result)

    def getitem(self, tx: Interpreter, index: VariableTracker) -> VariableTracker:
        from ember.capture.variables.containers import TupleVariable
        from ember.capture.variables.scalar import PythonScalarVariable

        from ember.capture.variables import choice

        index = choice.settled_index(tx.graph, index)

        if tx.graph.parent is not None:
            from ember.capture.loops.runs import run_of

            run = run_of(tx, self, index)
            if run is not None:
                return run
            from ember.capture.loops import windows

            expanded = windows.with_new_axes(tx, self, index)
            if expanded is not None:
                return expanded
            axes = windows.window_axes(tx, self, index, short_rows=True,
                                       constant=windows.augmented_subscript(tx))
            if axes is not None:
                from ember.capture.loops import window_exprs

                return window_exprs.window(tx.graph, self, axes)
            split = elements.rows_then_gather(tx, index)
            if split is not None:
                # `scores[q, top]`: the row at run-time `q`, then the gather `[top]`.
                return self.getitem(tx, split[0]).getitem(tx, split[1])
            indices = elements.element_indices(tx, self, index)
            if indices is not None:
                return elements.load(tx, self, indices)
        from ember.capture.variables import datalen

        if datalen.has_data_slice(index):
            return datalen.data_view(tx, self, index)
        if slices.has_runtime_slice(index):
            index = slices.symbolic_bounds(self, index)
        if slices.has_runtime_slice(index):
            view = slices.input_view(tx, self, index)
            if view is not None:
                return view
            index = slices.specialised(index)
        if (isinstance(index, ArrayVariable) and index.value.dtype == np.bool_
                and index.value.ndim and not self.value.scalar):
            from ember.capture.variables import masked

            return call_numpy_api("boolean mask indexing", masked.select, tx, self,
                                  index.value)
        from ember.capture.variables.masked import MaskedVariable, gather_selected
        from ember.capture.variables.prefixes import as_selection

        index = as_selection(tx.graph, index, nonzero=False)
        if isinstance(index, MaskedVariable) and not self.value.scalar:
            return gather_selected(tx, self, index)
        from ember.capture.variables.nonzero import NonzeroIndexVariable, select_at

        if isinstance(index, NonzeroIndexVariable) and not self.value.scalar:
            selected = select_at(tx, self, index)
            if selected is not None:
                return selected
            index = as_selection(tx.graph, index)
            if isinstance(index, MaskedVariable):
                return gather_selected(tx, self, index)
        index = slices.from_end(self, index)
        parts = index.items if isinstance(index, TupleVariable) else [index]
        if any(isinstance(p, PythonScalarVariable) for p in parts):
            # A loop's index changes on every trip: indexing with it runs in Python rather
            # than compiling a graph per position.
            raise graph_break("data_dependent_value",
                              what=f"indexing {self.describe()} with a run-time int")
        try:
            api_index = to_api(index)
            result = call_numpy_api("indexing", numpy_api.getitem, tx.graph, self.value,
                                    api_index)
        except Unsupported as exc:
            # A slice the graph cannot size from its symbols (`x[::2]` of a symbolic axis):
            # taken by the entry where `x` is an argument.
            symbolic = any(isinstance(d, str) for d in self.value.shape)
            view = (slices.input_view(tx, self, index)
                    if symbolic and exc.kind != "user_error" else None)
            if view is None:
                raise
            return view
        from ember.capture.variables import views

        view = views.follows(self, api_index, result, tx.tracer)
        return view if view is not None else wrap_api_result(result)

    def setitem(self, tx: Interpreter, index: VariableTracker, value: VariableTracker) -> None:
        from ember.capture.variables import choice

        value = choice.stored(tx, value, self.value.dtype)
        index = choice.settled_index(tx.graph, index)
        if type(value) is ArrayVariable and value.value.shape == () and (
                value.value.scalar or value.value.weak):
            from ember.capture.loops import python_checks

            element = python_checks.storable(tx, self.value.dtype, value.value)
            value = value if element is value.value else ArrayVariable(element)
        if tx.graph.parent is not None:
            from ember.capture.loops import blocks, run_exprs, windows
            from ember.capture.loops.runs import RunVariable, run_of

            run = run_of(tx, self, index)
            if isinstance(run, RunVariable) and run_exprs.store(tx, self, run, value):
                return
            from ember.capture.loops import row_lists

            if isinstance(run, row_lists.RowRunsVariable):
                row_lists.store(tx, self, run, value)
                return
            if isinstance(run, blocks.BlockVariable) and run.place is not None:
                blocks.store(tx, self, run.place, value)
                return

            axes = windows.window_axes(tx, self, index, constant=True)
            if axes is not None:
                windows.scatter(tx, self, axes, value)
                return
            indices = elements.element_indices(tx, self, index)
            if indices is not None:
                elements.store(tx, self, indices, value)
                return
        if not (self.is_fresh(tx) or self.is_mutable_input(tx)):
            super().setitem(tx, index, value)
        from ember.capture.variables.masked import MaskedVariable, same_mask
        from ember.capture.variables.prefixes import scatter_selected

        scattered = None if type(index) is ArrayVariable else scatter_selected(
            tx, self.value, index, value)
        if scattered is not None:
            self.update_in_place(scattered)
            if self.source is not None:
                tx.tracer.mark_mutated(self)
            return
        if isinstance(value, MaskedVariable):
            if not (isinstance(index, ArrayVariable) and same_mask(index.value, value.mask)):
                raise graph_break("data_dependent_value", what="assigning a boolean-mask "
                                                                "selection through another index")
            new = call_numpy_api("item assignment", numpy_api.setitem, tx.graph, self.value,
                                 index.value, numpy_api.Selected(value.values))
        else:
            from ember.capture.variables import int_data

            index = slices.from_end(self, index)
            stored = int_data.stored(tx, self.value, value)
            new = call_numpy_api("item assignment", numpy_api.setitem, tx.graph, self.value,
                                 to_api(index), to_api(value) if stored is None else stored)
        self.update_in_place(new)
        if self.source is not None:
            tx.tracer.mark_mutated(self)

    def is_mutable_input(self, tx: Interpreter) -> bool:
        """Whether this is an argument array no other traced array views, so an update can be
        traced functionally and written back into it by the entry (which first checks that
        no other argument shares its memory)."""
        return (self.source is not None and tx.tracer.is_input_source(self.source)
                and not self.viewed(tx))

    def is_fresh(self, tx: Interpreter) -> bool:
        """Whether this array is owned by the frame alone: created by a non-view op and never
        viewed since, so updating it in place cannot be seen through another array."""
        if self.source is not None or self.viewed(tx) or any(
                view is self.value for _, view, _ in self.value.graph.root.opaque_views
        ) or self.of_broadcast_view():
            return False
        graph = self.value.graph
        for node in reversed(graph.nodes):
            if any(out is self.value for out in node.results):
                return node.op not in VIEW_OPS or self._sole_view_of_fresh(tx, node)
        return False

    def of_broadcast_view(self) -> bool:
        """Whether this array is NumPy's broadcast view (`np.broadcast_to`) or a view of
        one, which NumPy does not let the program write to as it would a fresh array."""
        graph = self.value.graph
        marked = graph.root.broadcast_views
        if not marked:
            return False
        made = {id(out): n for n in graph.nodes for out in n.results}
        value = self.value
        while True:
            if id(value) in marked:
                return True
            node = made.get(id(value))
            if node is None or node.op not in VIEW_OPS or not isinstance(node.inputs[0], Value):
                return False
            value = node.inputs[0]

    def _sole_view_of_fresh(self, tx: Interpreter, node: Any) -> bool:
        """Whether this view (`np.linalg.solve`'s squeezed column, `x.reshape(-1)` of an
        op's result) is the only array through which its base can be seen: the base made by
        a non-view op, neither it nor any other view of it held by a tracker."""
        base = node.inputs[0]
        if not isinstance(base, Value) or not (base.graph is self.value.graph is tx.graph):
            return False
        if any(base is out for _, out, _ in self.value.graph.root.opaque_views):
            return False
        made = next((n for n in reversed(base.graph.nodes)
                     if any(out is base for out in n.results)), None)
        if made is None or made.op in VIEW_OPS:
            return False
        reached = _reached(base, view_edges(tx.graph), ())
        reached.discard(id(self.value))
        return tx.tracer.holders(self.value) <= 1 and not (reached & tx.tracer.held_values())

    def viewed(self, tx: Interpreter) -> bool:
        """Whether a view of this array (or a view of a view) is still held by a tracker: it
        would have to show the update, which the functional graph does not do. Views used
        and dropped (`x.T` inside an expression) do not count."""
        if tx.tracer.holders(self.value) > 1:
            return True  # an identity view holds the same value
        # Views by graph ops (a NumPy scalar, `x[i]` of every axis, is a copy, not a view),
        # and views the entry takes before the graph (`variables/slices.py`), of each other.
        extra = [*tx.tracer.input_views,
                 *((base, view) for base, view, _ in tx.graph.root.opaque_views)]
        views = _reached(self.value, view_edges(tx.graph), extra)
        views.discard(id(self.value))
        if not views:
            return False
        temporary = {id(t) for t in tx.tracer.temporary_views}
        return bool((views - temporary) & tx.tracer.held_values())

    def update_in_place(self, value: Value) -> None:
        self.value = value
        self.notify_followers()

    @property
    def followers(self) -> list[Any]:
        """Weak references to the slices of this array that follow it (`views.SliceView`)."""
        return self.__dict__.setdefault("_followers", [])

    def notify_followers(self) -> None:
        from ember.capture.variables.views import alive

        for view in alive(self):
            view.follow()


class ArrayMethodVariable(VariableTracker):
    """`x.sum`, `x.reshape`...: a method of an array, dispatched to `numpy_api`."""

    def __init__(self, array: ArrayVariable, name: str, handler: Any) -> None:
        self.array = array
        self.name = name
        self.handler = handler

    def describe(self) -> str:
        return f"{self.array.describe()}.{self.name}"

    def children(self) -> tuple[VariableTracker, ...]:
        return (self.array,)

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        if self.name == "sort" and not args and not kwargs:
            from ember.capture.loops import small_sorts

            if small_sorts.sort_in_place(tx, self.array):
                return ConstantVariable(None)
        if self.name in ("argmin", "argmax") and not args:
            from ember.capture.loops import small_extrema

            found = small_extrema.arg_extremum(tx, getattr(np, self.name), [self.array], kwargs)
            if found is not None:
                return found
        if self.name == "dot" and len(args) == 1 and not kwargs and tx.graph.parent is not None:
            from ember.capture.loops import small_products

            found = small_products.matmul(tx, self.array, args[0])
            if found is not None:
                return found
        if self.name == "nonzero" and not args and not kwargs:
            from ember.capture.variables.nonzero import nonzero_of

            found = nonzero_of(tx, self.array)
            if found is not None:
                return found
        if self.name == "clip" and "out" in kwargs:  # as np.clip(x, ..., out=)
            from ember.capture.variables.numpy_calls import NumpyFunctionVariable

            return NumpyFunctionVariable(np.clip, self.handler).call(
                tx, [self.array, *args], kwargs)
        convert = shape_to_api if self.name == "reshape" else to_api
        first_node = len(tx.graph.nodes)
        result = call_numpy_api(
            f"ndarray.{self.name}", self.handler, tx.graph, self.array.value,
            *[convert(a) for a in args], **{k: to_api(v) for k, v in kwargs.items()},
        )
        if self.name not in _METHODS_MAY_RETURN_A_VIEW | {"sort", "fill"}:
            result = fresh_result(tx.graph, result, first_node)
        if self.name in ("sort", "fill"):  # update the array in place and return None
            from ember.capture.operators import write_into

            write_into(tx, self.array, result, broadcast=False)
            return ConstantVariable(None)
        if self.name == "astype" and result is self.array.value:
            copy = kwargs.get("copy")
            if copy is not None and copy.is_constant() and copy.constant() is False:
                return self.array  # NumPy returns the array itself: no cast, no copy asked
        if self.name in ("squeeze", "conj", "conjugate") and result is self.array.value:
            return self.array  # nothing to squeeze, a real array: NumPy returns it itself
        return wrap_api_result(result)


def view_edges(graph: Any) -> dict[int, list[Any]]:
    """The graph's view ops (a NumPy scalar, `x[i]` of every axis, is a copy, not a view):
    `id(base)` -> the views of it. Kept on the graph's `NodeList` and extended by the nodes
    appended since, so that asking after each op does not scan the whole graph again."""
    nodes = graph.nodes
    scans = getattr(nodes, "scans", None)
    kept = scans.get("views") if scans is not None else None
    if kept is None or kept[0] != nodes.version or kept[1] > len(nodes):
        kept = (getattr(nodes, "version", 0), 0, {})
    _, start, edges = kept
    for n in nodes[start:]:
        if n.op in VIEW_OPS and not n.out.scalar:
            edges.setdefault(id(n.inputs[0]), []).append(n.out)
    if scans is not None:
        scans["views"] = (nodes.version, len(nodes), edges)
    return edges


def _reached(value: Any, edges: dict[int, list[Any]], extra: list[tuple[Any, Any]]
             ) -> set[int]:
    """`id`s of `value` and of every view of it, views of views included, through the
    graph's view `edges` and the `(base, view)` pairs of `extra`."""
    more: dict[int, list[Any]] = {}
    for base, view in extra:
        more.setdefault(id(base), []).append(view)
    reached = {id(value)}
    pending = [id(value)]
    while pending:
        key = pending.pop()
        for view in (*edges.get(key, ()), *more.get(key, ())):
            if id(view) not in reached:
                reached.add(id(view))
                pending.append(id(view))
    return reached
