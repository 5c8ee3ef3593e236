"""State shared by every interpreter of one capture (the frame and the functions inlined
into it): the graph, its inputs with their sources, the guards and the variable builder."""

from __future__ import annotations

import functools
import weakref
from dataclasses import dataclass
from types import FunctionType
from typing import Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.builder import VariableBuilder
from ember.capture.guards import SYMBOLIC_DIM, GuardBuilder, symbolic_entry
from ember.capture.loops.inputs import refuse_first_read
from ember.capture.marks import marked_dims
from ember.capture.sources import BuiltinsDictSource, GlobalsDictSource, LocalSource, Source
from ember.capture.variables.base import CellVariable, VariableTracker
from ember.capture.variables.scalar import ComputedSource, PythonScalarVariable
from ember.capture.variables.slices import ViewSource
from ember.config import config
from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.shapes import dim_example, dim_symbols, substitute

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1

# Automatic dynamic shapes: per array source name (`L['x']`), the dims to make symbolic.
DynamicDims = dict[str, frozenset[int]]


@dataclass(frozen=True)
class GraphInput:
    """A graph parameter and how the entry reloads it; `scalar`: a NumPy scalar argument,
    passed to the graph as a 0-d array."""

    value: Value
    source: Source
    scalar: bool
    example: Any


class Tracer:
    def __init__(self, func: FunctionType, *, dynamic: bool | DynamicDims | None = None,
                 scalars: bool | None = None) -> None:
        self.func = func
        self.code = func.__code__
        self.root_globals = func.__globals__
        builtins = func.__builtins__
        self.root_builtins: dict[str, Any] = builtins if isinstance(builtins, dict) else vars(
            builtins)
        self.graph = Graph(self.code.co_name)
        # Through a weak reference: the graph outlives the capture (the compiled entry keeps
        # it), and a tracer it held would keep the function, its code and globals alive.
        tracer = weakref.ref(self)
        self.graph.size_reader = lambda symbol: (
            t.size_value(symbol) if (t := tracer()) is not None else None)
        self.graph.size_carried = lambda symbol: (
            (t := tracer()) is not None and t.carries_size(symbol))
        self.guards = GuardBuilder()
        # The globals and builtins dicts by identity, first (the cheapest checks): a function
        # made from this code with other globals (one code object exec'd in two namespaces)
        # gets its own entry.
        self.guards.add(GlobalsDictSource(), ("ADDRESS_MATCH", self.root_globals))
        self.guards.add(BuiltinsDictSource(), ("ADDRESS_MATCH", self.root_builtins))
        self.builder = VariableBuilder(self)
        self.inputs: list[GraphInput] = []
        # Random draws the entry makes ahead of the graph, in program order (`draws.py`).
        self.draws: list[Any] = []
        self.draw_shadows: dict[int, Any] = {}  # a copy of each generator, drawn from alike
        # Loop ops whose body draws (learned by an earlier capture, `draws.DrawInLoop`), the
        # loops being traced with their blocks, each region's trip number, and where each
        # such loop's range starts.
        self.draw_loops: dict[Any, Any] = {}
        self.draw_loop_stack: list[tuple[Any, Any]] = []
        self.loop_trips: dict[int, Any] = {}
        self.loop_trip_starts: dict[Any, int] = {}
        # Symbolic sizes: True makes every dim symbolic, a mapping only the dims it names
        # (automatic dynamic shapes: the dims seen to change), None or False none; arrays'
        # own marks (`ember.mark_dynamic`/`mark_static`) apply except under False.
        self.dynamic = bool(dynamic)
        self.dynamic_dims: DynamicDims | None = dynamic if isinstance(dynamic, dict) else None
        self.every_dim_dynamic = dynamic is True
        self.honour_marks = dynamic is not False
        # Python ints and floats read from the frame are run-time values, not constants.
        self.dynamic_scalars = self.dynamic if scalars is None else bool(scalars)
        self.weak_floats = _options_weak_floats()
        # Captured static only because the call's sizes are below what symbolic slices need.
        self.symbolic_later = False
        # A resume function continuing inside a loop: lists it receives are append-only.
        self.loop_resume = False
        # Whether a symbolic size was read as a Python int (see `symbolic_size`): a capture
        # that then fails is tried again with static shapes, as one that read none refuses.
        self.symbolic_sizes_read = False
        self.symbols: dict[int, str] = {}  # size -> symbol ("duck sizing": equal sizes share)
        # Int arguments given as sizes (`np.zeros(n)`): symbol -> the argument's tracker
        # (`int_symbol`); `named_int_symbols`: the names earlier attempts of this capture gave.
        self.int_symbols: dict[str, PythonScalarVariable] = {}
        self.named_int_symbols: dict[Source, str] = {}
        # Int arguments whose size met an array's dim of the same size in an earlier attempt
        # (`tied_sizes`): their symbol is that dim's.
        self.tied_ints: set[Source] = set()
        # Views of argument arrays taken by the entry (`variables/slices.py`): (the
        # argument's value, the view's input value).
        self.input_views: list[tuple[Value, Value]] = []
        self.view_symbols: dict[tuple, str] = {}  # see `view_symbol`
        # The sliced axes of views tied to a dim of the same length in an earlier attempt
        # (`tied_sizes`), by the order of the views' symbols: that dim instead of a symbol.
        self.tied_views: dict[int, Any] = {}
        self.view_order: dict[str, int] = {}
        self.symbols_before_views: int | None = None
        self.instructions_run = 0
        # Argument arrays updated in place; the entry writes their final values back.
        self.mutated: list[VariableTracker] = []
        # np.unique's inverses by id: (the inverse, the slice its count makes) (`prefixes.py`)
        self.unique_inverses: dict[int, tuple[Any, Any]] = {}
        # Counts every change capture makes outside the values it computes (a container, an
        # attribute, a cell, a global, an argument updated in place): a generator that made
        # any ran ahead of its consumer (`Interpreter.inline_call`).
        self.effects = 0
        # Views that only lived on the stack of `x[i] op= y` and so alias nothing.
        self.temporary_views: list[Value] = []
        # The interpreters running now: the frame's and those of the calls inlined into it.
        self.frames: list[Any] = []
        # Objects whose attributes were assigned; the entry replays the assignments.
        self.attribute_stores: list[VariableTracker] = []
        # Lists and dicts read from the frame and mutated, globals and closure cells assigned:
        # the entry writes their final contents back after the graph.
        self.container_stores: list[VariableTracker] = []
        self.global_stores: dict[str, VariableTracker] = {}
        self.cell_stores: list[VariableTracker] = []
        self.cells_by_id: dict[int, CellVariable] = {}
        self.cell_aliases: list[tuple[CellVariable, CellVariable]] = []
        # Loops (code, FOR_ITER offset) that cannot be one loop op, found by earlier attempts
        # of this capture, and whether the backend runs loop ops at all (capture/loops).
        # Loops that refused to be loop ops -> whether a carried array changes shape in them.
        self.unrolled_loops: dict[tuple[Any, int], bool] = {}
        self.long_loops: set[tuple[Any, int]] = set()  # short loops past the op budget
        # `while` loops on Python values being unrolled now: key -> [nodes made when the
        # loop was entered, trips] (`whiles.count_trip`).
        self.while_trips: dict[tuple[Any, int], list[int]] = {}
        # Arrays read from globals or attributes that loop bodies take as pseudo-locals
        # (`loops/inputs.py`): those read when the frame starts, and each pseudo-local's source.
        self.preloads: dict[Source, Any] = {}
        self.input_locals: dict[str, Source] = {}
        # Attributes a loop body rebinds (`self.x = ...`): the object takes the loop op's
        # result (`inputs.store_attribute`).
        self.attribute_rebinds: set[Source] = set()
        self.fixed_inputs: set[str] = set()  # pseudo-locals no body may rebind now
        # The long loops being unrolled now (`loops.UnrollAccount`): a graph break inside one
        # whose trips are cheap would cost a graph call per trip, more than NumPy's own ops,
        # so it runs the frame as plain Python instead.
        self.long_unrolls: list[Any] = []
        self.loop_ops = True
        # Frame-level branches on 0-d values (code, jump offset) and how earlier attempts of
        # this capture left each to be captured (`loops/frame_branches.py`), and whether one
        # is being captured now.
        self.branch_modes: dict[tuple[Any, int], str] = {}
        # (loop or branch key, local) for loops over ranges of loop values whose trips, and
        # branches whose paths (True: `then`), change the local's type: it keeps its old type
        # where they make no trip, or the other path is taken (`loops/ranges.py`).
        self.typed_by_trips: dict[tuple[tuple[Any, int], str], bool | None] = {}
        self.frame_branch = False
        # 0-d bools of the graph: where one is true after the graph ran, the frame runs as
        # plain Python instead (`math.sqrt` of a negative value raises there).
        self.rerun_checks: list[Any] = []
        # Loop bodies being traced (`loops.body.Body`): where each is, and whose frame.
        self.loop_bodies: list[Any] = []
        # Paths of branches running on through a written-out inner loop's trips, one inside
        # another (`loops/branches.py`).
        self.paths_through = 0
        # (code, index) where the rest of a frame after a loop op that may return is being
        # traced -> how many such traces of it are nested (`returns.after_loop`).
        self.rests_traced: dict[tuple[Any, int], int] = {}

    def wrap(self, value: Any, source: Source | None) -> VariableTracker:
        return self.builder.wrap(value, source)

    def add_array_input(self, array: np.ndarray, source: Source) -> Value:
        symbolic = self._symbolic_dims(array, source)
        shape: tuple[int | str, ...] = tuple(
            self._symbol(d) if i in symbolic else d for i, d in enumerate(array.shape))
        if any(isinstance(d, str) for d in shape):
            self.dynamic = True
        refuse_first_read(self, source, array)
        value = self._input(array.dtype, shape, False)
        guarded = tuple(SYMBOLIC_DIM if isinstance(d, str) else d for d in shape)
        self.guards.add(source, ("ARRAY_MATCH", array.dtype, guarded, None))
        self.inputs.append(GraphInput(value, source, False, array))
        return value

    def add_view_input(self, example: np.ndarray, shape: tuple, source: Source) -> Value:
        """A view of an argument the entry takes (`variables/slices.py`): unguarded, since
        its leaves are guarded where they were read and the view checks its own sizes."""
        value = self._input(example.dtype, shape, False)
        self.inputs.append(GraphInput(value, source, False, example))
        return value

    def view_symbol(self, key: tuple, size: int) -> str:
        """The symbol of a sliced axis of such a view: shared only with views sliced the
        same way (the same base dim and bounds, `key`), whose length is always the same;
        never with an argument's dim (`x[:n]` of all of `x` in this call is not `x` in the
        next, and `x[:k]` is not `x[k:]`)."""
        if self.symbols_before_views is None:
            self.symbols_before_views = len(self.graph.symbol_examples)
        if key not in self.view_symbols:
            order = len(self.view_symbols)
            tied = self.tied_views.get(order)
            if tied is not None and tied[0] == "view":
                tied = list(self.view_symbols.values())[tied[1]]
            elif tied is not None:  # views' symbols named by their order (see `tied_sizes`)
                dims = list(self.view_symbols.values())
                tied = substitute(tied[1], {f"view{j}": dims[j] for j in tied[2]})
            if tied is not None and dim_example(tied, self.graph.symbol_examples) == size:
                self.view_symbols[key] = tied
            else:
                self.view_symbols[key] = self._new_symbol(size)
                self.view_order[self.view_symbols[key]] = order
        return self.view_symbols[key]

    def guard_size_minimums(self) -> None:
        """Raise the least size the ARRAY_MATCH guards admit for each symbol the graph slices
        (`Graph.require_size`: `x[2:]` needs 4 to leave 2)."""
        minimums = self.graph.size_minimums
        if not minimums:
            return
        for graph_input in self.inputs:
            shape = graph_input.value.shape
            if (graph_input.scalar or not any(d in minimums for d in shape)
                    or isinstance(graph_input.source, (ViewSource, IntSizeSource))):
                continue  # a view checks its own least sizes (`slices.take_view`), an int
                # argument its guard (`guard_int_symbols`)
            old = tuple(SYMBOLIC_DIM if isinstance(d, str) else d for d in shape)
            new = tuple(symbolic_entry(minimums.get(d, 2)) if isinstance(d, str) else d
                        for d in shape)
            dtype = graph_input.example.dtype
            self.guards.replace(graph_input.source, ("ARRAY_MATCH", dtype, old, None),
                                ("ARRAY_MATCH", dtype, new, None))

    def _symbolic_dims(self, array: np.ndarray, source: Source) -> set[int]:
        """The dims of an argument array that get a symbol (if their size is 2 or more)."""
        if self.dynamic_dims is not None:
            dims = set(self.dynamic_dims.get(source.name(), ()))
        else:
            dims = set(range(array.ndim)) if self.every_dim_dynamic else set()
        if self.honour_marks:
            for dim, dynamic in marked_dims(array).items():
                if dynamic:
                    dims.add(dim)
                else:
                    dims.discard(dim)
        return dims

    def _symbol(self, size: int) -> int | str:
        """Sizes 0 and 1 stay static (they change broadcasting and emptiness); others become
        symbols, one per distinct size."""
        if size < 2:
            return size
        if size not in self.symbols:
            self.symbols[size] = self._new_symbol(size)
        return self.symbols[size]

    def _new_symbol(self, size: int, symbol: str | None = None) -> str:
        count = len(self.graph.symbol_examples)
        while symbol is None or symbol in self.graph.symbol_examples:
            symbol, count = f"s{count}", count + 1
        self.graph.symbol_examples[symbol] = size
        return symbol

    def scalar_input(self, scalar: PythonScalarVariable) -> Value:
        """The weak 0-d input carrying a Python scalar computed at run time into the graph
        (one per scalar; the entry evaluates it before the call)."""
        source = ComputedSource(scalar)
        # Inside a region (a loop body, a branch's path) the frame's input is no value of
        # the region's graph: only what enters it as a parameter may be read there. A
        # number read from an attribute or a global (`p.alpha`) is read at the frame's start
        # instead and enters each body as a pseudo-local (`loops/inputs.py`).
        if (scalar.op is None and scalar.source is not None
                and not isinstance(scalar.source, LocalSource)):
            refuse_first_read(self, scalar.source, scalar.example)
            from ember.capture.variables.array import ArrayVariable

            held = self.builder.cache.get(scalar.source)
            if isinstance(held, ArrayVariable) and held.value.graph is self.graph:
                return held.value  # the body's stand-in (a namedtuple's field read again)
        self._refuse_in_loop_body(scalar.describe())
        for graph_input in self.inputs:
            if graph_input.source == source:
                return graph_input.value
        dtype = {bool: np.bool_, int: np.int64, float: np.float64}[scalar.python_class]
        try:
            value = self.graph.add_input(dtype, (), weak=True)
        except Unsupported as exc:
            raise graph_break("type", what=f"{scalar.describe()} ({exc.reason})",
                              type=scalar.type_name()) from exc
        example = scalar.example
        if scalar.python_class is int and not _INT64_MIN <= example <= _INT64_MAX:
            raise graph_break("type", what=f"{scalar.describe()} (outside int64)", type="int")
        self.inputs.append(GraphInput(value, source, True, np.asarray(example, dtype)))
        return value

    def symbolic_size(self, symbol: str) -> Any:
        """The run-time Python int a symbolic dim stands for (`x.shape[0]`, `len(x)`), read by
        the entry from the first argument array that carries the symbol, so the graph stays
        symbolic: it goes in as a weak scalar where it is data (`total / n`), and is a guarded
        constant where it is structure (a `range` bound, a reshape size), as any run-time int.
        None where it has no such source."""
        from ember.capture.sources import AttrSource, ItemSource
        from ember.capture.variables.scalar import PythonScalarVariable

        if symbol in self.int_symbols:
            self.symbolic_sizes_read = True
            return self.int_symbols[symbol]
        for graph_input in self.inputs:
            shape = graph_input.value.shape
            if (graph_input.scalar or symbol not in shape
                    or isinstance(graph_input.source, ViewSource)):
                continue  # a view's size is not read back from the view
            axis = shape.index(symbol)
            source = ItemSource(AttrSource(graph_input.source, "shape"), axis)
            self.symbolic_sizes_read = True
            return PythonScalarVariable(self, int, int(graph_input.example.shape[axis]),
                                        source=source, symbol=symbol)
        return None

    def size_value(self, symbol: str) -> Value | None:
        """The run-time size of `symbol` as a weak 0-d int64 input of the entry graph (the
        int `symbolic_size` reads), for element loops over a symbolic dim (`LoopNest`)."""
        size = self.symbolic_size(symbol)
        return None if size is None else size.graph_value()

    def carries_size(self, symbol: str) -> bool:
        """Whether `size_value` finds the size of `symbol` (an argument, not only a view the
        entry takes, carries it), reading nothing."""
        return symbol in self.int_symbols or any(
            not i.scalar and symbol in i.value.shape and not isinstance(i.source, ViewSource)
            for i in self.inputs)

    def int_symbol(self, scalar: PythonScalarVariable) -> str | None:
        """The symbol an int argument stands for where it gives a size (`np.zeros(n)`,
        `np.arange(n)`, `x.reshape(n, -1)`) under dynamic capture, so that one graph serves
        every `n` of 2 or more: a symbol of its own (never shared with an array's dim of the
        same size, which another call need not equal), bound from a graph input of that
        length the entry makes (`IntSizeSource`), and an INT_AT_LEAST guard in place of
        the value (0 and 1 are specialised, as array sizes are). Only an argument seen to
        change (listed in the dynamic dims, `policy._mark_changed_ints`) or under
        `dynamic=True`; None where it cannot (a value below 2, not an argument)."""
        from ember.capture.sources import LocalSource

        if scalar.symbol is not None:
            return scalar.symbol
        if (scalar.op is not None or scalar.python_class is not int
                or not isinstance(scalar.source, LocalSource) or scalar.example < 2
                or not (self.every_dim_dynamic or scalar.source.name() in (
                    self.dynamic_dims or ()))
                or scalar.example > _INT64_MAX or self.graph.parent is not None):
            return None
        if scalar.source in self.tied_ints:
            symbol = self._symbol(scalar.example)  # bound from the carrier and the arrays
        else:
            symbol = self._new_symbol(scalar.example, self.named_int_symbols.get(scalar.source))
        value = self.graph.add_input(np.dtype(np.bool_), (symbol,))
        example = np.empty(scalar.example, np.bool_)
        self.inputs.append(GraphInput(value, IntSizeSource(scalar.source), False, example))
        self.int_symbols[symbol] = scalar
        scalar.symbol = symbol
        self.dynamic = self.symbolic_sizes_read = True
        return symbol

    def tied_sizes(self, exc: Unsupported) -> tuple[set[Source], dict[int, Any]]:
        """The int arguments to tie to the array dims of their size, where `exc` refuses two
        dims that must be equal (`shapes.symbolic_mismatch`), that were equal at capture, and
        that differ by an int argument's own symbol (`n_nodes` beside `len(injections)` in
        `np.linalg.solve(G[1:, 1:], injections[1:])` with `G` of `(n_nodes, n_nodes)`).
        Tied, the int's symbol is the arrays', so the graph is symbolic; a call where they
        differ is refused by the graph's binding and runs as Python, as for two arrays that
        shared a size at capture."""
        cause: BaseException | None = exc
        seen: set[int] = set()
        while cause is not None and not hasattr(cause, "mismatched") and id(cause) not in seen:
            seen.add(id(cause))
            cause = cause.__cause__  # refusals are renamed on their way out (`from_numpy_api`)
        dims = getattr(cause, "mismatched", None)
        if dims is None:
            return set(), {}
        examples = self.graph.symbol_examples
        a, b = (dim_example(d, examples) for d in dims)
        if a is None or a != b:
            return set(), {}
        ints = {self.int_symbols[s].source for d in dims for s in dim_symbols(d)
                if s in self.int_symbols} - self.tied_ints
        if ints:
            return ints, {}
        # A view's sliced axis (its own symbol) against a dim made before it: the view's
        # length is that dim (`img[p:p + H]` against `np.zeros((H, W))`, two views sliced
        # alike by different bounds); the graph checks it on every call.
        made = list(examples)
        views = [d for d in dims if d in self.view_order]
        if not views:
            return set(), {}
        view = max(views, key=made.index)
        other = dims[1] if view == dims[0] else dims[0]
        if other in self.view_order:  # named by its order: ties renumber later symbols
            return set(), {self.view_order[view]: ("view", self.view_order[other])}
        before = self.symbols_before_views or 0
        views_in = {s: self.view_order[s] for s in dim_symbols(other) if s in self.view_order}
        if not all(made.index(s) < before for s in dim_symbols(other) - set(views_in)):
            return set(), {}
        other = substitute(other, {s: f"view{j}" for s, j in views_in.items()})
        return set(), {self.view_order[view]: ("dim", other, tuple(views_in.values()))}

    def guard_int_symbols(self) -> None:
        """Each int argument that is a symbol is guarded on its least size, not its value."""
        for symbol, scalar in self.int_symbols.items():
            minimum = max(2, self.graph.size_minimums.get(symbol, 2))
            self.guards.add(scalar.source, ("INT_AT_LEAST", minimum))

    def add_weak_float_input(self, example: float, source: Source) -> Value:
        """A Python float argument as a weak 0-d input (`Options.weak_floats`), handed to the
        graph as the float object itself (the tape follows differentiated leaves by
        identity)."""
        self._refuse_in_loop_body(source.name())
        value = self.graph.add_input(np.float64, (), weak=True)
        self.inputs.append(GraphInput(value, source, False, example))
        return value

    def add_scalar_input(self, scalar: np.generic, source: Source) -> Value:
        refuse_first_read(self, source, scalar)
        value = self._input(scalar.dtype, (), True)
        self.inputs.append(GraphInput(value, source, True, np.asarray(scalar)))
        return value

    def _refuse_in_loop_body(self, what: str) -> None:
        # A region sees only its parameters: a new input of the frame found while a loop
        # body is traced cannot enter it.
        if self.graph.parent is not None:
            raise graph_break("loop_body", what=f"reading {what}, not a local of the frame,")

    def _input(self, dtype: np.dtype, shape: tuple, scalar: bool) -> Value:
        self._refuse_in_loop_body("an array")
        try:
            return self.graph.add_input(dtype, shape, scalar=scalar)
        except Unsupported as exc:  # a dtype ember does not compile (float16, complex...)
            raise graph_break("type", what=f"an array argument ({exc.reason})",
                              type=str(dtype)) from exc

    def is_input_source(self, source: Source) -> bool:
        return any(i.source == source and not i.scalar for i in self.inputs)

    def mark_mutated(self, vt: VariableTracker) -> None:
        self.effects += 1
        if all(m is not vt for m in self.mutated):
            self.mutated.append(vt)

    def mark_attribute_store(self, obj: VariableTracker) -> None:
        self.effects += 1
        if all(o is not obj for o in self.attribute_stores):
            self.attribute_stores.append(obj)

    def claim_container(self, container: VariableTracker) -> None:
        """A list or dict read from the frame is mutated by capture: the entry writes its
        contents back (after checking that it shares the object with no other list or dict
        it read, see `EntryCodegen.alias_check`)."""
        if all(c is not container for c in self.container_stores):
            self.container_stores.append(container)

    def cell_for(self, raw: Any, source: Source | None, name: str) -> CellVariable:
        """The tracker of a real cell (the frame function's, or a function's read from the
        frame): one per cell object, so a nested function and the frame writing the same
        `nonlocal` see each other's writes. A second path to a known cell is recorded for the
        entry to check that the paths still meet (`cell_aliases`)."""
        known = self.cells_by_id.get(id(raw))
        vt = CellVariable(None, source, name)
        vt.raw = raw  # type: ignore[attr-defined]
        if known is None:
            self.cells_by_id[id(raw)] = vt  # `vt.raw` keeps the id valid while capture runs
            return vt
        self.cell_aliases.append((known, vt))
        return known

    def mark_cell_store(self, cell: VariableTracker) -> None:
        self.effects += 1
        if all(c is not cell for c in self.cell_stores):
            self.cell_stores.append(cell)

    def held_values(self) -> set[int]:
        """Ids of the graph values that trackers can still reach: what the running frames hold
        (stacks, locals, cells) and what the entry will write out (attributes, globals, cells,
        lists and dicts). An array updated in place is safe from a view no one holds."""
        return set(self._holders())

    def holders(self, value: Value) -> int:
        """How many distinct trackers still reachable hold `value`: more than one where an
        identity view (`a[-1:]` of a one-row `a`, `np.asarray(a)`) gave a second array the
        same graph value, which an update in place of either must show."""
        return self._holders().get(id(value), 0)

    def _holders(self) -> dict[int, int]:
        roots: list[Any] = [*self.attribute_stores, *self.global_stores.values(),
                            *self.cell_stores, *self.container_stores]
        for frame in self.frames:
            roots += [*frame.stack, *frame.locals.values(), *frame.cells.values()]
        held: dict[int, int] = {}
        seen: set[int] = set()
        while roots:
            vt = roots.pop()
            if id(vt) in seen:
                continue
            seen.add(id(vt))
            value = getattr(vt, "value", None)
            # A slice that follows its base (`views.SliceView`) never shows old contents.
            if isinstance(value, Value) and not getattr(vt, "follows_base", False):
                held[id(value)] = held.get(id(value), 0) + 1
            roots.extend(vt.children())
        return held

    def tick(self) -> None:
        self.instructions_run += 1
        if self.instructions_run > config.instruction_limit:
            raise graph_break("unroll", limit=config.instruction_limit)


def _options_weak_floats() -> bool:
    from ember.capture.policy import current_options

    return current_options().weak_floats


class IntSizeSource(Source):
    """The graph input that binds an int argument's symbol (`Tracer.int_symbol`): an array
    of that many elements, never read (`np.empty(n, np.bool_)`, made by `CARRIER`, which
    the native fast path calls too)."""

    CARRIER = functools.partial(np.empty, dtype=np.bool_)

    def __init__(self, base: Source) -> None:
        self.base = base

    def name(self) -> str:
        return f"np.empty({self.base.name()})"

    def accessors(self) -> tuple[tuple, ...]:
        return ()

    def root(self) -> Source:
        return self.base.root()

    def reload(self, emb: Any) -> str:
        return f"{emb.embed(self.CARRIER, 'carrier')}({self.base.reload(emb)})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IntSizeSource) and other.base == self.base

    def __hash__(self) -> int:
        return hash(("IntSizeSource", self.base))
