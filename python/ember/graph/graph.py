"""A graph of array operations in SSA form, built op by op as capture runs."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph.dtypes import WEAK_DTYPES, as_dtype, check_supported, python_value
from ember.graph.ops import OPS, check_attr
from ember.graph.printer import to_ir
from ember.graph.regions import check_if, check_loop, unused_flag_raisers
from ember.graph.shapes import Shape, dim_terms
from ember.graph.value import Node, Value

_NAME = re.compile(r"[a-z_][a-z0-9_]*")
_INT64 = np.iinfo(np.int64)
_WEAK_RESULT_DTYPES = frozenset(WEAK_DTYPES.values())


class NodeList(list):
    """`Graph.nodes`: a list that counts its changes other than appends (`version`), so that
    a scan of the nodes made once can be extended by the nodes appended since instead of
    redone (`scans`: what such scans keep, by name). Pickled and copied as a fresh one."""

    version = 0

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.scans: dict[str, Any] = {}

    def __reduce_ex__(self, protocol: Any) -> tuple:
        return (NodeList, (list(self),))

    def _changed(self) -> None:
        self.version += 1


def _counting(name: str) -> Any:
    method = getattr(list, name)

    def changed(self: NodeList, *args: Any, **kwargs: Any) -> Any:
        self._changed()
        return method(self, *args, **kwargs)

    changed.__name__ = name
    return changed


for _name in ("__setitem__", "__delitem__", "__iadd__", "__imul__", "extend", "insert", "pop",
              "remove", "clear", "sort", "reverse"):
    setattr(NodeList, _name, _counting(_name))


class Graph:
    """Inputs, nodes (each defining one Value) and outputs. `op` infers every result's type as
    NumPy would and raises NumPy's exception where NumPy itself would raise."""

    def __init__(self, name: str = "graph", parent: Graph | None = None) -> None:
        self.name = _ir_name(name)
        self.inputs: list[Value] = []
        self.outputs: list[Value] = []
        self.nodes: list[Node] = NodeList()
        self._next_id = 0
        # A region (a loop body, an if branch) knows the graph whose op runs it; the entry
        # graph numbers the module's regions so that their names are unique.
        self.parent = parent
        self.kind: str | None = None  # a region's kind: "loop", "then", "else"...
        self._regions_made = 0
        # The values (`Value.id`) the program names (stores to a local) or drops (an
        # expression statement): a flag-raising one never read is kept for its warnings
        # (`regions.unused_flag_raisers`); capture's own values are never named.
        self.named: set[int] = set()
        # The source location capture is at, shared by every graph of the module (see
        # `Node.where`); None outside capture.
        self._where: list[tuple[str, int, str] | None] = (
            parent._where if parent is not None else [None])
        # The NumPy call the nodes added now stand for together (`Node.call`), and the
        # number of the next one; shared like `_where`.
        self._call: list[int | None] = parent._call if parent is not None else [None, 0]
        # Nodes added to this graph and its regions, kept regions' and dropped ones' alike:
        # what building the module cost (`ember.stats()["traced_ops"]`).
        self._nodes_made: list[int] = parent._nodes_made if parent is not None else [0]
        # The `np.errstate` modes of the `with` block capture is in (`Node.errstate`), and
        # every category some block set to other than "ignore" (the native run reruns with
        # NumPy on those flags too); shared like `_where`.
        self._errstate: list[Any] = parent._errstate if parent is not None else [None, set()]
        # Whether the backend runs region ops: NumPy functions lowered to loop nests
        # (`numpy_api/loop_nest.py`) refuse where it does not. Read on the entry graph.
        self.loop_ops = True
        # The memory-order rule of values whose op alone does not say it (`layouts.py`):
        # value id -> "c", "map" or ("like", prototype id).
        self.layouts: dict[int, object] = {}
        # Capture's: the values of symbolic sizes in a loop body (`capture/loops/sizes.py`),
        # and, on the entry graph, the symbols whose sizes the frame read when it started.
        self.size_values: dict[str, Value] = {}
        self.preloaded_sizes: set[str] = set()
        # The least size of each symbol the graph's slices need (`require_size`), kept on
        # the entry graph; the guards admit no smaller one.
        self.size_minimums: dict[str, int] = {}
        # The size each symbol has in the call being captured (set by the tracer).
        self.symbol_examples: dict[str, int] = {}
        # The entry graph's reader of a symbol's run-time size as a weak 0-d int64 input
        # (`Tracer.size_value`), None where nothing carries it.
        self.size_reader: Callable[[str], Value | None] | None = None
        self.size_carried: Callable[[str], bool] = _carries_nothing
        # Views NumPy makes read-only (`np.diagonal`): rebuilt for the caller as such.
        self.read_only: set[int] = set()
        # Broadcast views NumPy hands out (`np.broadcast_to`, read-only; `np.broadcast_arrays`,
        # warning on write), `id()` -> the function: updating one, or a view of one, runs in
        # NumPy, which raises or warns and writes through to the base.
        self.broadcast_views: dict[int, str] = {}
        # Views NumPy takes that the graph computes as copies (`sliding_window_view`'s
        # gathers): (base, view, the NumPy call taking the view of a base array). They
        # forbid updating either in place; rebuilt for the caller as NumPy's views.
        self.opaque_views: list[tuple[Value, Value, Callable[[Any], Any]]] = []
        # Views NumPy takes only of C-contiguous arrays, copying any other (`np.ravel`,
        # `np.ascontiguousarray`): value id -> the NumPy function rebuilt for the caller with.
        self.contiguous_views: dict[int, str] = {}
        # Values NumPy computes whose elements the program then drops (the region of a
        # computed array an assignment overwrites): kept as extra results, for their
        # floating-point flags (`capture/convert.py: unused_results`).
        self.overwritten: list[Value] = []
        # The least and greatest value of some 0-d integer inputs of a region (a loop index
        # over a static range): id -> (lo, hi), read by `capture/loops/intervals.py`.
        self.value_ranges: dict[int, tuple[int, int]] = {}
        # The least value of some 0-d integer inputs as another input plus a constant (the
        # index of `range(k + 1, n)`): id -> (value, constant).
        self.value_floors: dict[int, tuple[Value, int]] = {}
        # The outputs (0-d bools) that, true, send the frame to plain Python instead: a run
        # where one is true has no effect of its own, warnings included.
        self.checks: tuple[int, ...] = ()
        # Called only by a frame's entry, which runs the frame as plain Python when the
        # graph raises an exception (`errors.RunFrameAsPython`).
        self.frame_fallback = False
        # Capture unrolled a Python loop of several trips into this graph: its frame as
        # Python makes far fewer calls than the graph has nodes.
        self.unrolled_loop = False

    def require_size(self, dim: str, minimum: int) -> None:
        """Record that the symbolic dim `dim` (`s0`, `s0-1`, `2*s0+1`) is at least `minimum`
        wherever this graph runs, with any dim it leaves at least 2. A dim in one symbol
        raises that symbol's least size; one that every binding (symbols of 2 or more, terms
        of positive coefficients) keeps large enough needs nothing."""
        terms, constant = dim_terms(dim)
        if all(c > 0 for c in terms.values()) and sum(c * 2 ** len(p) for p, c in
                                                       terms.items()) + constant >= minimum:
            return
        (product, coefficient), = terms.items() if len(terms) == 1 else ((("",), 0),)
        if len(product) != 1 or coefficient <= 0:
            raise Unsupported(f"a least size of the symbolic dimension {dim!r}",
                              "captured static", "dynamic_shape")
        name = product[0]
        minimum = -(-(minimum - constant) // coefficient)
        root = self.root
        if root.symbol_examples.get(name, minimum) < minimum:
            # Its guards would not admit the call being captured: captured static instead.
            exc = Unsupported(f"slicing symbolic dimension {dim!r} of a size below {minimum}",
                              "captured static for this size; larger ones stay symbolic",
                              "dynamic_shape")
            exc.below_minimum = True  # type: ignore[attr-defined]
            raise exc
        root.size_minimums[name] = max(root.size_minimums.get(name, 2), minimum)

    def at(self, where: tuple[str, int, str] | None) -> None:
        """Attribute the nodes added from now on to `where` (filename, line, module name)."""
        self._where[0] = where

    def set_errstate(self, modes: tuple[tuple[str, str], ...] | None) -> None:
        """Give the nodes added from now on `np.errstate` `modes` ((category, mode) pairs;
        None: the caller's errstate at run time)."""
        self._errstate[0] = modes
        self._errstate[1].update(c for c, m in modes or () if m != "ignore")

    @property
    def errstate_acts(self) -> set[str]:
        """The categories an `np.errstate` block of the graph does not ignore."""
        return self._errstate[1]

    @property
    def errstate(self) -> tuple[tuple[str, str], ...] | None:
        return self._errstate[0]

    @contextmanager
    def one_call(self) -> Iterator[None]:
        """Mark the nodes added inside as one NumPy call (`Node.call`): a short row's
        `np.sqrt(d)` captured element by element."""
        saved = self._call[0]
        self._call[1] = number = (self._call[1] or 0) + 1
        self._call[0] = number
        try:
            yield
        finally:
            self._call[0] = saved

    @property
    def nodes_made(self) -> int:
        """Nodes added to this graph's module so far, those of regions and of nodes later
        dropped included."""
        return self._nodes_made[0]

    @property
    def root(self) -> Graph:
        graph = self
        while graph.parent is not None:
            graph = graph.parent
        return graph

    def region(self, kind: str) -> Graph:
        """A new, empty region of this graph's module, named `<entry>_<kind><n>`."""
        root = self.root
        name = f"{root.name}_{kind}{root._regions_made}"
        root._regions_made += 1
        region = Graph(name, parent=self)
        region.kind = kind
        return region

    def loop(self, lo: Value, hi: Value, step: Value, carried: Sequence[Value],
             invariant: Sequence[Value], body: Graph) -> list[Value]:
        """`for i in range(lo, hi, step): (go, carried) = body(i, carried, invariant)`, stopping
        after a trip whose `go` is false: the carried values after the last trip."""
        operands = (lo, hi, step, *carried, *invariant)
        self._check_operands("loop", operands)
        check_loop(body, lo, hi, step, carried, invariant)
        dead = unused_flag_raisers(body)
        if dead:
            raise Unsupported(f"a loop body's {dead[0]} is never read, or decides an `if` whose "
                              "paths do the same (its warnings would be lost)")
        return self._multi("loop", operands, {"body": body, "carried": len(carried)},
                           list(carried))

    def if_(self, cond: Value, args: Sequence[Value], then: Graph, orelse: Graph
            ) -> list[Value]:
        """`then(args) if cond else orelse(args)`; only the taken region runs."""
        operands = (cond, *args)
        self._check_operands("if", operands)
        check_if(cond, args, then, orelse)
        return self._multi("if", operands, {"then": then, "else": orelse}, then.outputs)

    def _multi(self, name: str, operands: tuple[Value, ...], attrs: dict[str, Any],
               types: Sequence[Value]) -> list[Value]:
        if not types:
            raise TypeError(f"{name}: an op without results has no effect")
        outs = [self._value(t.dtype, t.shape, t.weak, t.scalar) for t in types]
        self._nodes_made[0] += 1
        self.nodes.append(Node(name, operands, attrs, outs[0], tuple(outs[1:]), self._where[0],
                               call=self._call[0], errstate=self._errstate[0]))
        return outs

    def _check_operands(self, name: str, inputs: Sequence[Value]) -> None:
        for v in inputs:
            if not isinstance(v, Value) or v.graph is not self:
                raise TypeError(f"{name}: operand {v!r} is not a value of this graph")

    def _value(self, dtype: np.dtype, shape: Shape, weak: bool, scalar: bool) -> Value:
        value = Value(self, self._next_id, dtype, shape, weak, scalar)
        self._next_id += 1
        return value

    def add_input(self, dtype: Any, shape: Sequence[int | str], *, weak: bool = False,
                  scalar: bool = False) -> Value:
        dt = check_supported(np.dtype(dtype), "an input")
        shape = tuple(d if isinstance(d, str) else int(d) for d in shape)
        if weak and (shape or dt not in WEAK_DTYPES.values()):
            raise ValueError(f"a weak input is a 0-d bool, i64 or f64, not {dt}{list(shape)}")
        value = self._value(dt, shape, weak, scalar and not weak)
        self.inputs.append(value)
        return value

    def op(self, name: str, inputs: Sequence[Value], *, scalar: bool | None = None,
           weak: bool | None = None, **attrs: Any) -> Value:
        """Append `name(*inputs, **attrs)` and return its result. `scalar` and `weak` override
        the inferred flags (a 0-d result NumPy returns as a scalar; a Python-scalar result)."""
        opdef = OPS.get(name)
        if opdef is None:
            raise Unsupported(f"ember IR has no op {name!r}")
        inputs = tuple(inputs)
        if (opdef.arity is None and not inputs) or opdef.arity not in (None, len(inputs)):
            raise TypeError(f"{name} takes {opdef.arity or 'one or more'} operands, "
                            f"got {len(inputs)}")
        self._check_operands(name, inputs)
        if attrs or opdef.attrs:
            schema = dict(opdef.attrs)
            unknown = set(attrs) - set(schema) - set(opdef.type_params)
            missing = set(schema) - set(attrs)
            if unknown or missing:
                raise TypeError(f"{name}: unknown attributes {sorted(unknown)}, "
                                f"missing {sorted(missing)}")
            checked = {a: check_attr(name, a, schema[a], attrs[a]) for a in schema}
            checked.update({p: attrs[p] for p in opdef.type_params if p in attrs})
            result = opdef.rule(name, opdef.numpy, inputs, checked)
            ordered = {a: checked[a] for a in schema}
        else:
            ordered = {}
            result = opdef.rule(name, opdef.numpy, inputs, ordered)
        out_weak = result.weak if weak is None else weak
        out_scalar = result.scalar if scalar is None else scalar
        if out_weak and (result.shape or result.dtype not in _WEAK_RESULT_DTYPES):
            raise ValueError(f"{name}: a weak result must be 0-d bool, i64 or f64")
        out = self._value(result.dtype, result.shape, out_weak, out_scalar and not out_weak)
        self._nodes_made[0] += 1
        self.nodes.append(Node(name, inputs, ordered, out, where=self._where[0],
                               call=self._call[0], errstate=self._errstate[0]))
        return out

    def warns_as(self, result: Value, ufunc: str) -> None:
        """Name `ufunc` in the floating-point warnings and errors of the node just added,
        where it computed `result` (`Node.warns_as`); NumPy's scalar math ("scalar add")
        is never named inside `array_math()`."""
        if ufunc.startswith("scalar ") and _array_math.get():
            return
        if self.nodes and self.nodes[-1].out is result:
            self.nodes[-1] = dataclasses.replace(self.nodes[-1], warns_as=ufunc)

    def const(self, value: bool | float | np.generic, dtype: Any = None, *,
              weak: bool = True) -> Value:
        """A 0-d constant. A Python scalar is weak unless `weak=False`; a NumPy scalar is
        always strong, of its own dtype unless `dtype` says otherwise."""
        if isinstance(value, np.generic):
            weak = False
            dtype = value.dtype if dtype is None else dtype
            value = value.item()
        if not isinstance(value, (bool, int, float)):
            raise Unsupported(f"constant {value!r} of type {type(value).__name__}")
        if weak:
            dt = WEAK_DTYPES[type(value)]
            if dtype is not None and np.dtype(dtype) != dt:
                raise ValueError(f"a weak {type(value).__name__} constant has dtype {dt}")
            if isinstance(value, int) and not isinstance(value, bool) and not (
                _INT64.min <= value <= _INT64.max
            ):
                raise Unsupported(f"Python int {value} does not fit in int64")
        else:
            dt = as_dtype(WEAK_DTYPES[type(value)] if dtype is None else dtype, "a constant")
        return self.op("const", [], value=python_value(value, dt), dtype=dt, weak=weak)

    def full(self, shape: Sequence[int], value: bool | float, dtype: Any) -> Value:
        dt = as_dtype(dtype, "np.full")
        return self.op("full", [], value=python_value(value, dt), shape=tuple(shape), dtype=dt)

    def arange(self, start: float, step: float, length: int | str, dtype: Any) -> Value:
        return self.op("arange", [], start=start, step=step, shape=(length,),
                       dtype=as_dtype(dtype, "np.arange"))

    def eye(self, n: int | str, m: int | str, k: int, dtype: Any) -> Value:
        return self.op("eye", [], k=k, shape=(n, m), dtype=as_dtype(dtype, "np.eye"))

    def set_outputs(self, values: Sequence[Value]) -> None:
        for v in values:
            if not isinstance(v, Value) or v.graph is not self:
                raise TypeError(f"output {v!r} is not a value of this graph")
        self.outputs = list(values)

    def to_ir(self) -> str:
        return to_ir(self)

    def __str__(self) -> str:
        return to_ir(self)

    def __getstate__(self) -> dict[str, Any]:
        # The size readers are the capture's (a stored entry's graph is pickled without them).
        state = dict(self.__dict__)
        state["size_reader"], state["size_carried"] = None, _carries_nothing
        return state

    def __repr__(self) -> str:
        return f"<Graph @{self.name}: {len(self.inputs)} inputs, {len(self.nodes)} nodes>"


def _ir_name(name: str) -> str:
    """A function name the IR grammar accepts ([a-z_][a-z0-9_]*), made from any Python name."""
    cleaned = re.sub(r"[^a-z0-9_]", "_", name.lower()) or "graph"
    if not _NAME.fullmatch(cleaned):
        cleaned = "_" + cleaned
    return cleaned


def _carries_nothing(symbol: str) -> bool:
    """No argument carries the run-time size of `symbol` (a graph no capture reads sizes for)."""
    return False


_array_math: ContextVar[bool] = ContextVar("ember_array_math", default=False)


@contextmanager
def array_math() -> Iterator[None]:
    """Ops added inside compute an array op of NumPy element by element (a short row's
    operators and sums in a loop body, a window expression): though their operands are 0-d,
    they are the ufunc's array math, whose integer results wrap silently and whose warnings
    name the ufunc ("in add"), not NumPy's scalar math ("in scalar add")."""
    token = _array_math.set(True)
    try:
        yield
    finally:
        _array_math.reset(token)
