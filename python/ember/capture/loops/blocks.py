"""2-d slices whose bounds are loop values on both axes inside loop bodies, and the
products that make such blocks: Doolittle's `A[k + 1:, k + 1:] -= np.outer(A[k + 1:, k],
A[k, k + 1:])`, Cholesky's `L[j + 1:, :j] @ L[j, :j]`.

Their shape is known only at run time, so, like the 1-d runs of `runs.py`, a block is lazy:
a `BlockVariable` holds the runs giving the bounds of its rows and of its columns, and how to
build its element `(r, c)` inside a loop body. Operations: `+ - * /` of blocks of alike bounds
(`runs._same_bounds`, per axis), 0-d values and Python numbers; `np.outer` of two runs; `.T`;
`sum` over all or one axis; `block @ run` and `run @ block` (a run over the block's rows or
columns, each element an inner loop); and stores into a 2-d slice (`=` and the in-place
operators), one loop op over the rows holding one over the columns, carrying the target. The
right side may read the target, from the carried array, at the element being stored, and in
rows or columns the stored block never reaches (`A[k + 1:, k]` beside columns from `k + 1`,
`runs.outside`); NumPy evaluates the right side first, and neither read can see a stored
element. Anything else refuses (the loop is then not a loop op)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.loops.run_exprs import (
    RunExprVariable,
    _aligned,
    _Body,
    _loop_over,
    _Nested,
    _operand,
    _ReadsTarget,
)
from ember.capture.loops.runs import (
    DynamicSliceVariable,
    RunVariable,
    _same_bounds,
    outside,
)
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.graph import Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

BlockElement = Callable[[_Body, Value, Value], Value]
_OPS = {"+": "add", "-": "sub", "*": "mul", "/": "div"}


@dataclass(frozen=True)
class Place:
    """Where a block store writes: the array before the store, the runs bounding its rows
    and its columns."""

    array: Value
    rows: RunVariable
    cols: RunVariable


@dataclass(eq=False)
class BlockVariable(VariableTracker):
    """A 2-d block of run-time shape: `element(body, r, c)` builds element `(r, c)` (array
    indices along `rows` and `cols`) in `body`. `place`: set for a plain slice of an array."""

    rows: RunVariable
    cols: RunVariable
    element: BlockElement
    place: Place | None = None

    def type_name(self) -> str:
        return "ndarray"

    def describe(self) -> str:
        return "a 2-d slice with run-time bounds"

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        if name == "T":
            return transpose(self)
        if name == "sum":
            return _SumMethod(self)
        if name in ("max", "min"):
            return _ExtremumMethod(self, name)
        raise graph_break("loop_body", what=f"{self.describe()}.{name}")


@dataclass(eq=False)
class _ExtremumMethod(VariableTracker):
    block: BlockVariable
    name: str

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        if args or kwargs:
            raise graph_break("loop_body", what=f"{self.name}() with arguments of "
                                                f"{self.block.describe()}")
        return block_extremum(tx, self.block, self.name)


def block_extremum(tx: Interpreter, block: BlockVariable, name: str) -> VariableTracker:
    """`block.max()`, `np.min(block)` (a morphological window `img[i0:i1, j0:j1]`): each
    row's extremum by an inner loop op, then theirs (`run_exprs.extremum`, which also
    checks that there is a row); a block without columns is a run-time check too, as NumPy
    raises for it."""
    from ember.capture.loops import frame_branches, run_exprs
    from ember.capture.loops.runs import _bound

    probe = _Body(tx.graph.region("loop"))
    k = probe.graph.add_input(np.int64, (), weak=True)
    dtype = block.element(probe, k, k).dtype
    cols, graph = block.cols, tx.graph
    size = cols.array.value.shape[cols.axis]
    frame_branches.add_check(tx, graph.op("le", [_bound(graph, cols.bounds.stop, size, size),
                                                 _bound(graph, cols.bounds.start, size, 0)]))
    largest = name == "max"
    rows = _row_sums(tx, block, dtype, block.element, "maximum" if largest else "minimum",
                     run_exprs._extreme(dtype, lowest=largest))
    if isinstance(rows, RunExprVariable):
        found = run_exprs.extremum(tx, rows, name)
        if found is not None:
            return found
    raise graph_break("loop_body", what=f"{name}() of {block.describe()}")


@dataclass(eq=False)
class _SumMethod(VariableTracker):
    block: BlockVariable

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        return block_sum(tx, self.block, args, kwargs)


def block_sum(tx: Interpreter, block: BlockVariable, args: list[VariableTracker],
              kwargs: dict[str, VariableTracker]) -> VariableTracker:
    """`block.sum()`, `np.sum(block, axis=1)`: sums along the columns (a run over the rows),
    along the rows (of the transposed block), or of those sums (`run_exprs.reduce`)."""
    from ember.capture.loops import run_exprs

    axis_vt = args[0] if len(args) == 1 and not kwargs else kwargs.get("axis")
    axis = axis_vt.constant() if isinstance(axis_vt, ConstantVariable) else None
    if len(args) + len(kwargs) > 1 or set(kwargs) - {"axis"} or (
            axis_vt is not None and axis not in (None, 0, 1, -1, -2)):
        raise graph_break("loop_body", what=f"sum() with these arguments of {block.describe()}")
    probe = _Body(tx.graph.region("loop"))
    k = probe.graph.add_input(np.int64, (), weak=True)
    dtype = np.sum(np.zeros(1, block.element(probe, k, k).dtype)).dtype
    if axis in (0, -2):
        block = transpose(block)
    sums = _row_sums(tx, block, dtype, block.element)
    if axis is not None:
        return sums
    found = run_exprs.reduce(tx, sums, None) if isinstance(sums, RunExprVariable) else None
    if found is None:
        from ember.capture.loops import window_reductions

        found = window_reductions.reduce_all(tx, np.sum, sums)  # type: ignore[arg-type]
    return found


def transpose(block: BlockVariable) -> BlockVariable:
    element = block.element
    return BlockVariable(block.cols, block.rows, lambda body, r, c: element(body, c, r))


def block_of(array: ArrayVariable, parts: list[VariableTracker]) -> BlockVariable | None:
    """`array[lo0:hi0, lo1:hi1]` of a 2-d array, a bound a loop value (`X[j + 1:]`: the
    columns a whole slice); None otherwise."""
    from ember.capture.loops.runs import _constant_slice

    if array.value.ndim == 2 and len(parts) == 1:
        parts = [*parts, ConstantVariable(slice(None))]
    parts = [_constant_slice(p) for p in parts]
    if array.value.ndim != 2 or len(parts) != 2 or not all(
            isinstance(p, DynamicSliceVariable) for p in parts):
        return None
    if any(p.step is not None for p in parts):  # type: ignore[attr-defined]
        raise graph_break("loop_body", what="a 2-d slice with run-time bounds and a step")
    rows, cols = (RunVariable(array, [None, None], axis, p)  # type: ignore[arg-type]
                  for axis, p in enumerate(parts))
    return BlockVariable(rows, cols, _plain_element(array, rows, cols),
                         Place(array.value, rows, cols))


def _same_place(a: Place, b: Place) -> bool:
    return a.array is b.array and _same_bounds(a.rows, b.rows) and _same_bounds(a.cols, b.cols)


def _outside(place: Place, run: RunVariable) -> bool:
    """Whether the 1-d run of the stored array shares no element with the stored block: its
    fixed index lies outside the block's rows or columns."""
    fixed = run.indices[1 - run.axis]
    return outside(fixed, place.cols if run.axis == 0 else place.rows)


def _plain_element(array: ArrayVariable, rows: RunVariable, cols: RunVariable
                   ) -> BlockElement:
    source = array.value
    place = Place(source, rows, cols)

    def element(body: _Body, r: Value, c: Value) -> Value:
        target = body.target
        if target is not None and source is target[0] and isinstance(target[1], RunVariable):
            stored = target[1]  # a run: read where it never stores (`L[j + 1:, :j]`, `j`)
            if not outside(stored.indices[1 - stored.axis], rows if stored.axis == 1 else cols):
                raise _ReadsTarget
            return body.graph.op("load", [body.carried_target(), r, c])
        if target is not None and source is target[0]:
            # NumPy reads the right side first: only the element being stored, read just
            # before its store, still holds what NumPy read.
            if not (isinstance(target[1], Place) and _same_place(place, target[1])
                    and isinstance(body, _Nested) and body.stored_at is not None
                    and body.stored_at[0] is r and body.stored_at[1] is c):
                raise _ReadsTarget
            return body.graph.op("load", [target[2], r, c])
        return body.graph.op("load", [body.outer(source), r, c])

    return element


def _whole(tx: Interpreter, vt: VariableTracker) -> tuple[RunVariable, Callable] | None:
    """A 1-d operand of static length (an array, a row or column at a loop index) as a run
    over all its elements."""
    from ember.capture.loops import vectors, window_exprs

    if isinstance(vt, vectors.VectorVariable):
        vt = vectors.materialise(tx, vt)
    if isinstance(vt, window_exprs.WindowExprVariable):
        vt = ArrayVariable(vt.value)  # computed once, not once per use of each element
    if window_exprs.is_lazy(vt):
        shape, element = vt.shape, vt.element  # type: ignore[attr-defined]
    elif isinstance(vt, ArrayVariable) and vt.value.ndim == 1:
        value = vt.value
        shape = value.shape

        def element(body: _Body, k: Value) -> Value:
            return body.graph.op("load", [body.outer(value), k])
    else:
        return None
    if len(shape) != 1 or not isinstance(shape[0], int):
        return None
    whole = DynamicSliceVariable(ConstantVariable(None), ConstantVariable(None))
    length = tx.graph.full(shape, 0, np.int8)  # stands for the axis only: never read
    return RunVariable(ArrayVariable(length), [None], 0, whole), element


def _run_element(vt: VariableTracker, tx: Interpreter) -> tuple[RunVariable, Callable] | None:
    """A run operand's bounds and element, reading a block store's target from the carried
    array where the run is outside the stored block; also a 1-d operand of static length
    (`_whole`). Run arithmetic is computed first (`runs.materialise`): a product reads each
    of its elements once per row or column, and NumPy computes it before any store."""
    from ember.capture.loops.runs import materialise, refuse_stepped

    if not isinstance(vt, (RunVariable, RunExprVariable)):
        return _whole(tx, vt)
    if isinstance(vt, RunExprVariable):
        vt = materialise(tx, vt.like, vt.element)
    found = _operand(vt)
    if found is None or found[0] is None:
        return None
    run, element = found
    refuse_stepped(run)
    if not isinstance(vt, RunVariable):
        return run, element

    def read(body: _Body, k: Value) -> Value:
        target = body.target
        if target is not None and vt.array.value is target[0] and isinstance(target[1], Place):
            if not _outside(target[1], vt):
                raise _ReadsTarget
            indices = [k if i is None else body.outer(i) for i in vt.indices]
            return body.graph.op("load", [body.carried_target(), *indices])
        return element(body, k)

    return run, read


def outer(tx: Interpreter, a: VariableTracker, b: VariableTracker) -> BlockVariable:
    """`np.outer(u, v)` of two runs (or run arithmetic)."""
    left, right = _run_element(a, tx), _run_element(b, tx)
    if left is None or right is None:
        raise graph_break("loop_body", what=f"np.outer of {a.describe()} and {b.describe()}")
    (rows, ea), (cols, eb) = left, right
    return BlockVariable(rows, cols, lambda body, r, c: body.graph.op(
        "mul", [ea(body, r), eb(body, c)]))


def _scalar(vt: VariableTracker) -> Callable[[_Body], Value] | None:
    if isinstance(vt, ArrayVariable) and not vt.value.shape:
        value = vt.value
        return lambda body: body.outer(value)
    if isinstance(vt, ConstantVariable) and type(vt.constant()) in (bool, int, float):
        number = vt.constant()
        return lambda body: body.graph.const(number)
    return None


def _block_element(vt: VariableTracker, like: BlockVariable, tx: Interpreter | None = None
                   ) -> BlockElement | None:
    if isinstance(vt, BlockVariable):
        if not (_same_bounds(vt.rows, like.rows) and _same_bounds(vt.cols, like.cols)):
            raise graph_break("loop_body", what="arithmetic on 2-d run-time slices whose "
                                                "shapes may differ")
        return vt.element
    scalar = _scalar(vt)
    if scalar is not None:
        return lambda body, r, c: scalar(body)
    return _row_broadcast(tx, vt, like)


def _row_broadcast(tx: Interpreter, vt: VariableTracker, like: BlockVariable
                   ) -> BlockElement | None:
    """A 1-d operand of static length (`_whole`) against a block whose columns are a whole
    axis of that length (`X[j + 1:] += v`, `A[:j] -= A[j]`): NumPy broadcasts it along the
    rows, element `c` for column `c`. None for anything else (lengths that may differ
    refuse, as NumPy may raise)."""
    if tx is None or isinstance(vt, (RunVariable, RunExprVariable)):
        return None
    found = _whole(tx, vt)
    if found is None:
        return None
    run, element = found
    if _static_length(like.cols) != run.array.value.shape[0]:
        return None
    return lambda body, r, c: element(body, c)


def binary(tx: Interpreter, op: str, a: VariableTracker, b: VariableTracker
           ) -> VariableTracker | None:
    """`a op b` where an operand is a block; None when neither is one."""
    like = next((v for v in (a, b) if isinstance(v, BlockVariable)), None)
    if like is None:
        return None
    if op == "@" and isinstance(a, BlockVariable):
        return _matvec(tx, a, b)
    if op == "@" and not isinstance(a, BlockVariable):
        return _matvec(tx, transpose(b), a)  # type: ignore[arg-type]
    name = _OPS.get(op.rstrip("="))
    ea, eb = _block_element(a, like, tx), _block_element(b, like, tx)
    if name is None or ea is None or eb is None:
        raise graph_break("loop_body", what=f"operator {op} on {a.describe()} and "
                                            f"{b.describe()}")
    return BlockVariable(like.rows, like.cols, lambda body, r, c: body.graph.op(
        name, [ea(body, r, c), eb(body, r, c)]))


def _matvec(tx: Interpreter, block: BlockVariable, vt: VariableTracker) -> VariableTracker:
    """`block @ run`: element `r` is the sum over the block's columns of `(r, c)` times the
    run's element `c`; the run's bounds are the columns'."""
    found = _run_element(vt, tx)
    if found is None:
        raise graph_break("loop_body", what=f"{block.describe()} @ {vt.describe()}")
    element = _aligned(tx, block.cols, found[0], found[1])
    probe = _Body(tx.graph.region("loop"))
    k = probe.graph.add_input(np.int64, (), weak=True)
    dtype = np.dot(np.zeros(1, block.element(probe, k, k).dtype),
                   np.zeros(1, element(probe, k).dtype)).dtype
    return _row_sums(tx, block, dtype, lambda body, r, c: body.graph.op(
        "mul", [block.element(body, r, c), element(body, c)]))


def _row_sums(tx: Interpreter, block: BlockVariable, dtype: np.dtype, term: BlockElement,
              combine: str = "add", start: np.generic | None = None) -> VariableTracker:
    """Element `r`: the sum over the block's columns of `term(r, c)`, in `dtype` (an inner
    loop op per element); with `combine` "maximum"/"minimum" from `start`, their extremum.
    A run over all of an axis of static length (`Q[:, :j] @ R[:j, j]`) is window arithmetic
    of that length instead (`window_exprs.py`), which arrays meet elementwise."""
    cols = block.cols
    first = dtype.type(0) if start is None else start

    def row(body: _Body, r: Value) -> Value:
        g = body.graph
        lo, hi = _bounds(body, cols, cols.array.value.shape[cols.axis])
        region = g.region("loop")
        c = region.add_input(np.int64, (), weak=True)
        acc = region.add_input(dtype, (), scalar=True)
        inner = _Nested(region, body)
        value = term(inner, inner.outer(r), c)
        if combine != "add" and (value.dtype != dtype or value.weak):
            value = inner.graph.op("astype", [value], dtype=dtype, scalar=True)
        total = inner.graph.op(combine, [acc, value])
        if total.dtype != dtype:
            total = inner.graph.op("astype", [total], dtype=dtype, scalar=True)
        inner.graph.set_outputs([inner.graph.const(True, weak=False), total])
        (result,) = g.loop(lo, hi, g.const(1), [g.const(first)], inner.invariants,
                           inner.graph)
        return result

    length = _static_length(block.rows)
    if length is not None:
        from ember.capture.loops.window_exprs import WindowExprVariable

        return WindowExprVariable(tx.graph, (length,), dtype,
                                  lambda body, coords: row(body, coords[0]))
    return RunExprVariable(block.rows, row)


def _static_length(run: RunVariable) -> int | None:
    """The length of a run over all of its axis (constant bounds from 0 to the end)."""
    start, stop = run.bounds.start, run.bounds.stop
    if run.bounds.step is not None or not (isinstance(start, ConstantVariable)
                                           and isinstance(stop, ConstantVariable)):
        return None
    size = run.array.value.shape[run.axis]
    if isinstance(size, str):
        return None
    lo, hi, _ = slice(start.constant(), stop.constant()).indices(size)
    return hi if lo == 0 and hi == size else None


def _bounds(body: _Body, run: RunVariable, size: int) -> tuple[Value, Value]:
    """The run's bounds as values of `body` (built in the graph that starts the loop)."""
    from ember.capture.loops.runs import _bound

    root = body
    while isinstance(root, _Nested):
        root = root.parent
    outer_graph = root.graph.parent
    assert outer_graph is not None
    lo = _bound(outer_graph, run.bounds.start, size, 0)
    hi = _bound(outer_graph, run.bounds.stop, size, size)
    return body.outer(lo), body.outer(hi)


def store(tx: Interpreter, target: ArrayVariable, place: Place, value: VariableTracker
          ) -> None:
    """`target[rows, cols] = value`, element by element: a loop op over the rows holding
    one over the columns, both carrying the target."""
    like = BlockVariable(place.rows, place.cols, lambda body, r, c: r)
    element = _block_element(value, like, tx)
    if element is None:
        raise graph_break("loop_body", what=f"assigning {value.describe()} to a 2-d slice "
                                            "with run-time bounds")
    if not (target.is_fresh(tx) or target.is_mutable_input(tx)):
        raise graph_break("inplace", name=target.describe())
    size = target.value.shape[1]

    def row(body: _Body, r: Value, carried: list[Value]) -> list[Value]:
        body.target = (target.value, place, carried[0])
        lo, hi = _bounds(body, place.cols, size)
        region = body.graph.region("loop")
        c = region.add_input(np.int64, (), weak=True)
        array = region.add_input(carried[0].dtype, carried[0].shape)
        inner = _Nested(region, body, carried=array)
        inner.stored_at = (inner.outer(r), c)
        new = element(inner, *inner.stored_at)
        if not np.can_cast(new.dtype, array.dtype, "same_kind"):
            raise graph_break("loop_body", what=f"storing {new.dtype} into a {array.dtype} "
                                                "slice")
        stored = inner.graph.op("store", [array, new, *inner.stored_at])
        inner.graph.set_outputs([inner.graph.const(True, weak=False), stored])
        g = body.graph
        return g.loop(lo, hi, g.const(1), [carried[0]], inner.invariants, inner.graph)

    try:
        (result,) = _loop_over(tx, place.rows, [target.value], row)
    except _ReadsTarget:
        raise graph_break("loop_body", what="a right side that reads the 2-d slice it is "
                                            "stored into elsewhere") from None
    target.update_in_place(result)
    if target.source is not None:
        tx.tracer.mark_mutated(target)
