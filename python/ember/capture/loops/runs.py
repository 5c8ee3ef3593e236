"""Slices whose bounds are loop values (`L[i, :i]`, `x[:i]`, `A[i, j:]`) inside loop bodies.

Their length is known only at run time, so they never become arrays of the graph: a slice is
kept as a *run* (an array, the fixed indices of its other axes, the bounds along one axis),
and what may be done with it are the reductions NumPy users write over such slices, each
lowered to an inner `loop` op over the run's elements: `run.sum()`, `np.sum(run)`,
`run @ other`, `np.dot(run, other)`; arithmetic on runs and stores into them are
`run_exprs.py`'s. Anything else refuses (the enclosing loop is then not a loop op). A product needs both runs to have the same bounds written the same way over axes
of the same size, so that their lengths agree for every trip, as NumPy requires."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.loops import intervals
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.graph import Graph, Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter


class DynamicSliceVariable(VariableTracker):
    """`lo:hi` where a bound is a loop value; `lo:hi:step` (`is_p[i * i::i]`) with `step` a
    loop value or a positive constant, taken only where a loop op visits the run's
    elements in order (stores, sums, run arithmetic): elsewhere a stepped run refuses."""

    def __init__(self, start: VariableTracker, stop: VariableTracker,
                 step: VariableTracker | None = None) -> None:
        self.start = start
        self.stop = stop
        self.step = step

    def type_name(self) -> str:
        return "slice"

    def describe(self) -> str:
        return "a slice with run-time bounds"


def _is_loop_int(vt: VariableTracker) -> bool:
    return (isinstance(vt, ArrayVariable) and not vt.value.shape
            and vt.value.dtype.kind in "iu")


def build_slice(tx: Interpreter, parts: list[VariableTracker]) -> DynamicSliceVariable | None:
    """BUILD_SLICE inside a loop body with a loop value as a bound; None otherwise."""
    if tx.graph.parent is None or not any(_is_loop_int(p) for p in parts):
        return None
    step = parts[2] if len(parts) == 3 else None
    if isinstance(step, ConstantVariable) and step.constant() in (None, 1):
        step = None
    if step is not None and not (_is_loop_int(step) or (
            isinstance(step, ConstantVariable) and type(step.constant()) is int
            and step.constant() > 0)):
        raise graph_break("loop_body", what="a slice with run-time bounds and a step "
                                            f"{step.describe()}")
    for part in parts[:2]:
        if not (_is_loop_int(part) or (isinstance(part, ConstantVariable)
                                       and (part.constant() is None
                                            or type(part.constant()) is int))):
            raise graph_break("loop_body", what=f"a slice bound {part.describe()}")
    if step is not None and _is_loop_int(step):
        # A step the data or the loop gives that is not positive (NumPy reverses, or
        # raises its ValueError for 0): the frame runs as plain Python.
        from ember.capture.loops.frame_branches import add_check

        add_check(tx, tx.graph.op("le", [step.value, tx.graph.const(0)]))  # type: ignore[attr-defined]
    return DynamicSliceVariable(parts[0], parts[1], step)


def step_of(graph: Graph, bounds: DynamicSliceVariable) -> Value:
    """A run's step as a value of `graph` (1 for `lo:hi`)."""
    step = bounds.step
    if step is None:
        return graph.const(1)
    if isinstance(step, ConstantVariable):
        return graph.const(step.constant())
    return step.value  # type: ignore[attr-defined]


def refuse_stepped(*runs: Any) -> None:
    """Refuses (the enclosing loop is not a loop op) where an operation needs a run's
    elements at consecutive positions."""
    for run in runs:
        if isinstance(run, RunVariable) and run.bounds.step is not None:
            raise graph_break("loop_body", what=f"{run.describe()} with a step, "
                                                "beyond stores and sums")


@dataclass(eq=False)
class RunVariable(VariableTracker):
    """`array[..., lo:hi, ...]`: one axis sliced by run-time bounds, every other axis indexed
    by one integer."""

    array: ArrayVariable
    indices: list[Value | None]  # None at `axis`
    axis: int
    bounds: DynamicSliceVariable

    def type_name(self) -> str:
        return "ndarray"

    def describe(self) -> str:
        return f"a slice of {self.array.describe()} with run-time bounds"

    def children(self) -> list[VariableTracker]:
        return [self.array]

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        from ember.capture.loops import run_exprs

        if name in ("sum", "copy"):
            return RunMethodVariable(self, name)
        if name == "mean":
            return run_exprs.MeanMethod(self)
        if name in run_exprs.EXTREMA:
            return run_exprs.ExtremumMethod(self, name)
        raise graph_break("loop_body", what=f"{self.describe()}.{name}")

    def getitem(self, tx: Interpreter, index: VariableTracker) -> VariableTracker:
        """`run[0]`, `run[-1]`: one element, a `load`."""
        from ember.capture.loops import elements

        return elements.load(tx, self.array, self._element(tx, index))

    def setitem(self, tx: Interpreter, index: VariableTracker, value: VariableTracker) -> None:
        """`run[0] = v`: a `store` into the run's array, which the run views."""
        from ember.capture.loops import elements

        elements.store(tx, self.array, self._element(tx, index), value)

    def _element(self, tx: Interpreter, index: VariableTracker) -> list[Value]:
        """The array's index of the run's element `index` (a constant int; negative counts
        from the run's end). Out of the run's range it is the axis's size, so that the
        `load` or `store` raises NumPy's IndexError."""
        if not (isinstance(index, ConstantVariable) and type(index.constant()) is int):
            raise graph_break("loop_body", what=f"indexing {self.describe()} with "
                                                f"{index.describe()}")
        refuse_stepped(self)
        graph, at = tx.graph, index.constant()
        size = self.array.value.shape[self.axis]
        lo = _bound(graph, self.bounds.start, size, 0)
        hi = _bound(graph, self.bounds.stop, size, size)
        length = graph.op("maximum", [graph.op("sub", [hi, lo]), graph.const(0)])
        if at >= 0:
            inside = graph.op("lt", [graph.const(at), length])
            position = graph.op("add", [lo, graph.const(at)])
        else:
            inside = graph.op("le", [graph.const(-at), length])
            position = graph.op("add", [hi, graph.const(at)])
        position = graph.op("where", [inside, position, graph.const(size)])
        return [position if i is None else i for i in self.indices]


@dataclass(eq=False)
class RunMethodVariable(VariableTracker):
    run: RunVariable
    name: str

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        if args or kwargs:
            raise graph_break("loop_body", what=f"{self.name}() with arguments of a run-time "
                                                "slice")
        if self.name == "copy":
            return copy_run(tx, self.run)
        return reduce_runs(tx, [self.run])


def copy_run(tx: Interpreter, run: RunVariable) -> RunVariable:
    """`run.copy()`: its elements in a new array (`materialise`)."""
    from ember.capture.loops import run_exprs

    return materialise(tx, run, run_exprs._run_element(run))


def materialise(tx: Interpreter, like: RunVariable, element: Any) -> RunVariable:
    """The elements `element` builds over `like`'s bounds, computed now by one loop op
    into a new 1-d array the size of `like`'s axis, at their positions, and viewed by a run
    of the same bounds (its length is still known only at run time)."""
    from ember.capture.loops import run_exprs

    probe = run_exprs._Body(tx.graph.region("loop"))
    dtype = element(probe, probe.graph.add_input(np.int64, (), weak=True)).dtype
    size = like.array.value.shape[like.axis]
    empty = tx.graph.full((size,), False if dtype == np.bool_ else 0, dtype)

    def fill(body: run_exprs._Body, k: Value, carried: list[Value]) -> list[Value]:
        return [body.graph.op("store", [carried[0], element(body, k), k])]

    (filled,) = run_exprs._loop_over(tx, like, [empty], fill)
    return RunVariable(ArrayVariable(filled), [None], 0, like.bounds)


def run_of(tx: Interpreter, array: ArrayVariable, index: VariableTracker
           ) -> VariableTracker | None:
    """`array[index]` as a run, when the index holds a slice with run-time bounds (`A[:, lo:hi]`
    as the columns `run_exprs` multiplies), or as run arithmetic when the index is a run of
    integers (`x[cols]`, `run_exprs.take`)."""
    from ember.capture.loops.elements import index_value
    from ember.capture.variables.containers import TupleVariable

    from ember.capture.loops import run_exprs, windows

    if isinstance(index, (RunVariable, run_exprs.RunExprVariable)):
        return run_exprs.take(tx, array, index)
    parts = index.items if isinstance(index, TupleVariable) else [index]
    if not any(isinstance(p, DynamicSliceVariable) for p in parts):
        parts = _symbolic_row(array, list(parts))
        if parts is None:
            return None  # static slices at a loop index are windows (`loops/windows.py`)
    if windows.fixed_slices(tx, array, list(parts)):
        return None  # `img[i:i + K, j:j + K]`: a window of static shape too
    if any(_is_loop_int(p) for p in parts):
        # `A[i, -3:]`: a constant slice next to a loop index is a run too.
        parts = [_constant_slice(p) for p in parts]
    axes = [k for k, p in enumerate(parts) if isinstance(p, DynamicSliceVariable)]
    if not axes:
        return None
    from ember.capture.loops import blocks

    block = blocks.block_of(array, list(parts))
    if block is not None:
        return block
    from ember.capture.loops import row_lists

    listed = row_lists.row_runs(tx, array, list(parts))
    if listed is not None:
        return listed
    if len(axes) > 1 or len(parts) != array.value.ndim:
        raise graph_break("loop_body", what="a slice with run-time bounds of an n-d result")
    indices: list[Value | None] = []
    for k, part in enumerate(parts):
        indices.append(None if k == axes[0] else index_value(tx, part))
    return RunVariable(array, indices, axes[0], parts[axes[0]])  # type: ignore[arg-type]


def updated_in_place(tx: Interpreter, view: VariableTracker, result: VariableTracker
                     ) -> VariableTracker:
    """`v op= w` where `v` is a local slice with run-time bounds (`v = H[k + 1:, k]; v /=
    vnorm`): NumPy updates the array it views, so the result is stored into the run (one
    loop op) and `v` stays the run, reading the array; a block, or a result the run cannot
    take, refuses."""
    from ember.capture.loops import run_exprs

    if isinstance(view, RunVariable) and run_exprs.store(tx, view.array, view, result):
        return view
    raise graph_break("loop_body", what=f"an update in place of {view.describe()}")


def run_parts(run: RunVariable) -> list[Value] | None:
    """The run-time values a run is built from (its bounds that are no constants, its
    integer indices), for a branch's paths to take as entries; None where one is neither a
    constant nor a value of the array's graph."""
    if run.bounds.step is not None:
        return None
    parts: list[Value] = []
    for bound in (run.bounds.start, run.bounds.stop):
        if isinstance(bound, ConstantVariable):
            continue
        if not isinstance(bound, ArrayVariable) or bound.value.graph is not run.array.value.graph:
            return None
        parts.append(bound.value)
    return parts + [index for index in run.indices if index is not None]


def run_in(run: RunVariable, array: ArrayVariable, parts: list[Value]) -> RunVariable:
    """`run` over a path's stand-in of its array, its `run_parts` replaced by `parts`."""
    taken = iter(parts)

    def bound(vt: VariableTracker) -> VariableTracker:
        return vt if isinstance(vt, ConstantVariable) else ArrayVariable(next(taken))

    start, stop = bound(run.bounds.start), bound(run.bounds.stop)
    indices = [None if index is None else next(taken) for index in run.indices]
    return RunVariable(array, indices, run.axis, DynamicSliceVariable(start, stop))


# The ops bounds are written with that a branch's path computes again (`k + 1`).
_REPLAYED = ("add", "sub", "mul", "neg", "minimum", "maximum", "where", "lt", "astype", "const")


def replayed(value: Value, known: dict[int, Value], graph: Graph, depth: int = 4
             ) -> Value | None:
    """`value` of the enclosing graph computed again in `graph` (a branch's path) from the
    path's stand-ins `known` (by the enclosing value's id), so that a run's bounds stay
    alike (`_same_value`) with bounds the path writes the same way; None where it is
    computed otherwise."""
    if id(value) in known:
        return known[id(value)]
    made = {id(n.out): n for n in value.graph.nodes if not n.extra}
    node = made.get(id(value))
    if depth == 0 or node is None or node.op not in _REPLAYED:
        return None
    inputs = [replayed(v, known, graph, depth - 1) for v in node.inputs]
    if any(v is None for v in inputs):
        return None
    attrs = dict(node.attrs)
    if node.op in ("const", "astype"):
        attrs["dtype"] = value.dtype
    return graph.op(node.op, inputs, weak=value.weak, scalar=value.scalar,  # type: ignore[arg-type]
                    **attrs)


def _symbolic_row(array: ArrayVariable, parts: list[VariableTracker]
                  ) -> list[VariableTracker] | None:
    """`A[i]`, `A[i, :]`, `A[:, j]` at loop indices where the whole axis kept has a symbolic
    size: the index as a run over that axis (its length is the run-time size), the axes
    not indexed filled with `:`; None for any other index (a window of static shape, or no
    loop index)."""
    shape = array.value.shape
    if not any(_is_loop_int(p) for p in parts) or len(parts) > len(shape):
        return None
    parts = parts + [ConstantVariable(slice(None))] * (len(shape) - len(parts))
    kept = [k for k, p in enumerate(parts) if not _is_loop_int(p)]
    if len(kept) != 1 or not isinstance(shape[kept[0]], str):
        return None
    part = parts[kept[0]]
    if not (isinstance(part, ConstantVariable) and isinstance(part.constant(), slice)
            and part.constant().step in (None, 1)):
        return None
    if any(not _is_loop_int(p) and k != kept[0] for k, p in enumerate(parts)):
        return None
    return [_constant_slice(p) for p in parts]


def _constant_slice(part: VariableTracker) -> VariableTracker:
    if isinstance(part, ConstantVariable) and isinstance(part.constant(), slice):
        bounds = part.constant()
        if bounds.step in (None, 1):
            return DynamicSliceVariable(ConstantVariable(bounds.start),
                                        ConstantVariable(bounds.stop))
    return part


def _bound(graph: Graph, vt: VariableTracker, size: int | str, default: int | str) -> Value:
    """A slice bound as `slice.indices` normalises it (step 1): negatives count from the
    end, then clamped to [0, size]. A symbolic `size` is its run-time value in the body
    (`loops/sizes.py`)."""
    if isinstance(size, str):
        from ember.capture.loops.sizes import value_in

        end = value_in(graph, size)
        if isinstance(vt, ConstantVariable) and vt.constant() is None:
            return end if default == size else graph.const(default)
        value = graph.const(vt.constant()) if isinstance(vt, ConstantVariable) else (
            vt.value)  # type: ignore[attr-defined]
    else:
        if isinstance(vt, ConstantVariable):
            constant = vt.constant()
            if constant is None:
                return graph.const(default)
            return graph.const(slice(constant, None).indices(size)[0])
        end = graph.const(size)
        value = vt.value  # type: ignore[attr-defined]
    shifted = graph.op("where", [graph.op("lt", [value, graph.const(0)]),
                                 graph.op("add", [value, end]), value])
    return graph.op("minimum", [graph.op("maximum", [shifted, graph.const(0)]), end])


# `load` too: an array updated in place is a new value, so two loads of one array value at
# alike indices read one element (`indptr[i]` written twice).
_PURE = {"add", "sub", "mul", "neg", "minimum", "maximum", "where", "lt", "astype", "const",
         "load"}


def _same_value(x: Value, y: Value, depth: int = 4) -> bool:
    """Whether `x` and `y` are one value or computed alike from the same values (`i + 1`
    written twice): the pure ops that bounds are written with, a few levels deep."""
    if x is y:
        return True
    if depth == 0 or x.graph is not y.graph:
        return False
    made = {id(n.out): n for n in x.graph.nodes if not n.extra}
    nx, ny = made.get(id(x)), made.get(id(y))
    return (nx is not None and ny is not None and nx.op == ny.op and nx.op in _PURE
            and nx.attrs == ny.attrs and x.dtype == y.dtype and x.weak == y.weak
            and len(nx.inputs) == len(ny.inputs)
            and all(_same_value(a, b, depth - 1) for a, b in zip(nx.inputs, ny.inputs)))


def _plain(vt: VariableTracker, default: int) -> intervals.Position | None:
    """A bound that never counts from the end, as a value or an int; None otherwise."""
    if isinstance(vt, ConstantVariable):
        value = vt.constant()
        value = default if value is None else value
        return value if type(value) is int and value >= 0 else None
    value = vt.value  # type: ignore[attr-defined]
    return value if intervals.never_negative(value) else None


def outside(index: Value | None, run: RunVariable) -> bool:
    """Whether the position `index` on `run`'s axis is none of the run's on every trip:
    before its start or at or after its stop (neither counting from the end)."""
    if index is None or not intervals.never_negative(index):
        return False
    start = _plain(run.bounds.start, 0)
    stop = _plain(run.bounds.stop, run.array.value.shape[run.axis])  # type: ignore[arg-type]
    return (start is not None and intervals.less(index, start)) or (
        stop is not None and intervals.at_most(stop, index))


def disjoint(a: RunVariable, b: RunVariable) -> bool:
    """Whether runs of one array can share no element: at some axis both take one position
    and the positions differ, or one takes a position outside the other's bounds."""
    if a.array.value is not b.array.value:
        return False
    for x, y in zip(a.indices, b.indices, strict=True):
        if x is not None and y is not None and intervals.never_negative(x) and (
                intervals.never_negative(y)) and (intervals.less(x, y) or intervals.less(y, x)):
            return True
        if x is not None and y is None and outside(x, b):
            return True
        if x is None and y is not None and outside(y, a):
            return True
    return False


def _same_bounds(a: RunVariable, b: RunVariable) -> bool:
    def same(x: VariableTracker, y: VariableTracker) -> bool:
        if isinstance(x, ConstantVariable) and isinstance(y, ConstantVariable):
            return x.constant() == y.constant()
        if isinstance(x, ArrayVariable) and isinstance(y, ArrayVariable):
            return _same_value(x.value, y.value)
        return x is y

    steps = (a.bounds.step, b.bounds.step)
    return (a.array.value.shape[a.axis] == b.array.value.shape[b.axis]
            and same(a.bounds.start, b.bounds.start) and same(a.bounds.stop, b.bounds.stop)
            and (steps == (None, None) or None not in steps and same(*steps)))


def reduce_runs(tx: Interpreter, runs: list[RunVariable]) -> VariableTracker:
    """`runs[0].sum()` (one run) or `runs[0] @ runs[1]` (two of alike bounds: others are
    `run_exprs.reduce`'s), as an inner loop op."""
    graph = tx.graph
    first = runs[0]
    arrays = [r.array.value for r in runs]
    if len(runs) == 1:
        dtype = np.sum(np.zeros(1, arrays[0].dtype)).dtype
    else:
        dtype = np.dot(np.zeros(1, arrays[0].dtype), np.zeros(1, arrays[1].dtype)).dtype
    size = first.array.value.shape[first.axis]
    lo = _bound(graph, first.bounds.start, size, 0)
    hi = _bound(graph, first.bounds.stop, size, size)
    if first.bounds.step is None:
        from ember.capture.loops import partial_sums
        from ember.capture.loops.run_exprs import _Body

        def term(body: _Body, k: Value) -> Value:
            loaded = [body.graph.op("load", [body.outer(run.array.value), *[
                k if index is None else body.outer(index) for index in run.indices]])
                for run in runs]
            return loaded[0] if len(loaded) == 1 else body.graph.op("mul", loaded)

        return ArrayVariable(partial_sums.sum_loop(
            graph, lo, hi, dtype, lambda: _Body(graph.region("loop")), term))
    body = graph.region("loop")
    k = body.add_input(np.int64, (), weak=True)
    acc = body.add_input(dtype, (), scalar=True)
    invariants: list[Value] = []
    loaded: list[Value] = []
    for run in runs:
        array = body.add_input(run.array.value.dtype, run.array.value.shape)
        invariants.append(run.array.value)
        indices = []
        for index in run.indices:
            if index is None:
                indices.append(k)
            else:
                indices.append(body.add_input(index.dtype, (), weak=index.weak))
                invariants.append(index)
        loaded.append(body.op("load", [array, *indices]))
    term = loaded[0] if len(loaded) == 1 else body.op("mul", loaded)
    total = body.op("add", [acc, term])
    if total.dtype != dtype:
        total = body.op("astype", [total], dtype=dtype, scalar=True)
    body.set_outputs([body.const(True, weak=False), total])
    zero = graph.const(dtype.type(0))
    (result,) = graph.loop(lo, hi, step_of(graph, first.bounds), [zero], invariants, body)
    return ArrayVariable(result)


def is_lazy_run(*vts: VariableTracker) -> bool:
    """Whether any of `vts` is a run or run arithmetic (not yet an array)."""
    from ember.capture.loops import run_exprs

    return any(isinstance(v, (RunVariable, run_exprs.RunExprVariable)) for v in vts)


def binary(tx: Interpreter, op: str, a: VariableTracker, b: VariableTracker) -> Any:
    """`a @ b` with run operands; None when neither is a run."""
    from ember.capture.loops import run_exprs

    from ember.capture.loops import blocks

    found = blocks.binary(tx, op, a, b)
    if found is not None:
        return found
    lazy = (RunVariable, run_exprs.RunExprVariable)
    if not (isinstance(a, lazy) or isinstance(b, lazy)):
        return None
    if (op == "@" and isinstance(a, RunVariable) and isinstance(b, RunVariable)
            and _same_bounds(a, b)):
        return reduce_runs(tx, [a, b])
    if op == "@" and isinstance(a, ArrayVariable) and not isinstance(a, lazy):
        a = run_exprs.whole(a) or a  # `x @ A[i, :]`: the array as a run of all of it
    if op == "@" and isinstance(b, ArrayVariable) and not isinstance(b, lazy):
        b = run_exprs.whole(b) or b
    found = (run_exprs.reduce(tx, a, b) if op == "@"
             else run_exprs.binary(tx, op, a, b))
    if found is not None:
        return found
    raise graph_break("loop_body", what=f"operator {op} on a slice with run-time bounds")


_EXTREMA = {np.max: "max", np.amax: "max", np.min: "min", np.amin: "min", np.argmax: "argmax",
            np.argmin: "argmin"}


def numpy_call(tx: Interpreter, fn: Any, args: list[VariableTracker],
               kwargs: dict[str, VariableTracker]) -> VariableTracker | None:
    """`np.sum(run)`, `np.dot(run, run)`; None when no argument is a run."""
    from ember.capture.loops import run_exprs

    from ember.capture.loops import blocks

    lazy = (RunVariable, run_exprs.RunExprVariable, blocks.BlockVariable)
    if not any(isinstance(a, lazy) for a in [*args, *kwargs.values()]):
        return None
    if fn is np.outer and len(args) == 2 and not kwargs:
        return blocks.outer(tx, args[0], args[1])
    if fn is np.sum and args and isinstance(args[0], blocks.BlockVariable):
        return blocks.block_sum(tx, args[0], args[1:], kwargs)
    if fn is np.dot and len(args) == 2 and not kwargs and any(
            isinstance(a, blocks.BlockVariable) for a in args):
        return blocks.binary(tx, "@", args[0], args[1])
    if fn is np.flip and len(args) == 1 and not kwargs:
        found = run_exprs.flip(tx, args[0])
        if found is not None:
            return found
    if fn is np.sum and len(args) == 1 and not kwargs and isinstance(args[0], RunVariable):
        return reduce_runs(tx, args)  # type: ignore[arg-type]
    if fn is np.dot and len(args) == 2 and not kwargs and all(
            isinstance(a, RunVariable) for a in args) and _same_bounds(*args):
        return reduce_runs(tx, args)  # type: ignore[arg-type]
    if fn in _EXTREMA and len(args) == 1 and not kwargs:
        if isinstance(args[0], blocks.BlockVariable) and _EXTREMA[fn] in ("max", "min"):
            return blocks.block_extremum(tx, args[0], _EXTREMA[fn])
        found = run_exprs.extremum(tx, args[0], _EXTREMA[fn])
        if found is not None:
            return found
    if isinstance(fn, np.ufunc) and fn.nout == 1 and len(args) == fn.nin <= 2 and (
            not kwargs):
        from ember import numpy_api

        found = run_exprs.ufunc(tx, fn, numpy_api.lookup_function(fn), args)
        if found is not None:
            return found
    found = None
    if fn is np.dot and len(args) == 2 and not kwargs:
        args = [run_exprs.whole(a) or a if isinstance(a, ArrayVariable) and not isinstance(
            a, lazy) else a for a in args]
    if fn in (np.sum, np.dot) and len(args) == (1 if fn is np.sum else 2) and not kwargs:
        found = run_exprs.reduce(tx, args[0], args[1] if fn is np.dot else None)
    if fn is np.mean and len(args) == 1 and not kwargs:
        found = run_exprs.mean(tx, args[0])
    if fn is np.linalg.norm and len(args) == 1 and not kwargs:
        found = run_exprs.norm(tx, args[0])
    if found is not None:
        return found
    raise graph_break("loop_body", what=f"np.{getattr(fn, '__name__', fn)} of a slice with "
                                        "run-time bounds")
