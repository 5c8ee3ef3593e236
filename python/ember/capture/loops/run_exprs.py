"""Elementwise arithmetic on slices with run-time bounds (`loops/runs.py`), and stores into
them: `C[i, :i + 1] *= beta`, `C[:i, j] += alpha * B[i, j] * A[i, :i]`, `y[:k] = 0.0`,
`cov[i:M, i] = data[:, i] @ data[:, i:M] / n`.

A run's elements exist only inside a loop over its bounds, so arithmetic on runs stays
lazy: a `RunExprVariable` holds how to compute its `k`-th element inside a loop body. It is
reduced (`.sum()`, `@`) by one inner loop op, or stored into a run by one loop op carrying
the target array (`store` per element). Operands are runs, 0-d values and Python numbers;
runs of bounds not written alike (`runs._same_bounds`) are aligned by their clipped starts,
their lengths checked equal at run time (`_aligned`). 2-d slices with run-time bounds (`A[:,
lo:hi]`, whose products with vectors are runs of inner loops) are `blocks.py`'s. Anything
else refuses, as for runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.loops import lazy_reads, partial_sums
from ember.capture.loops.frame_branches import add_check
from ember.capture.loops.runs import (RunVariable, _bound, _same_bounds, _same_value, disjoint,
                                      refuse_stepped, step_of)
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.graph import Graph, Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

_OPS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "**": "pow", "//": "floordiv",
        "%": "mod"}
# Bitwise ops of bool and integer elements (`T[i, v:] |= T[i - 1, :m - v]`).
_BITWISE = {"&": "bitwise_and", "|": "bitwise_or", "^": "bitwise_xor", "<<": "left_shift",
            ">>": "right_shift"}
# Comparisons give bool elements, which `np.sum` counts (`np.sum(d[i + 1:] * s > 0)`).
_COMPARISONS = {"<": "lt", "<=": "le", "==": "eq", "!=": "ne", ">": "gt", ">=": "ge"}


class _Body:
    """A loop body being built: outer values become its invariant inputs, once each."""

    def __init__(self, body: Graph) -> None:
        self.graph = body
        self.invariants: list[Value] = []
        self._inputs: dict[int, Value] = {}
        # A store's target (the array before the loop, the run stored into, the carried
        # array): read only at the element being stored, from the carried array.
        self.target: tuple[Value, RunVariable, Value] | None = None
        self.shifted = False  # building an element at another index than the trip's (flip)
        # A store by mirrored pairs (`store`): the target may be read at the mirrored index.
        self.pairwise = False

    def carried_target(self) -> Value:
        """The store's target as this body carries it."""
        assert self.target is not None
        return self.target[2]

    def outer(self, value: Value) -> Value:
        if self.target is not None and value is self.target[0]:
            raise _ReadsTarget
        return self._input_for(value)

    def _input_for(self, value: Value) -> Value:
        """The body's input standing for `value` of an enclosing graph (one per value)."""
        found = self._inputs.get(id(value))
        if found is None:
            found = self.graph.add_input(value.dtype, value.shape, weak=value.weak,
                                         scalar=value.scalar)
            self._inputs[id(value)] = found
            self.invariants.append(value)
        return found


class _Nested(_Body):
    """The body of a loop op inside another body (its index and carried inputs added
    first): a value of any enclosing graph becomes an invariant input, passed down level
    by level; the store's target goes along."""

    def __init__(self, graph: Graph, parent: _Body, carried: Value | None = None) -> None:
        """`carried`: the target as this body carries it (an input already added); else
        the target, if any, is read as the parent has it."""
        super().__init__(graph)
        self.parent = parent
        # Its elements are at other indices than the one a store writes (an inner product's
        # terms): the target is read here only where no store reaches.
        self.shifted = True
        # The element a block store writes in this body: (row, column), as its values.
        self.stored_at: tuple[Value, Value] | None = None
        if parent.target is not None:
            # Passed down only when read (`carried_target`): an unused carried array given
            # to an inner loop would still be an operand of every trip.
            array, place, _ = parent.target
            self.target = (array, place, carried)  # type: ignore[assignment]

    def carried_target(self) -> Value:
        assert self.target is not None
        if self.target[2] is None:
            array, place, _ = self.target
            self.target = (array, place, self.outer(self.parent.carried_target()))
        return self.target[2]

    def outer(self, value: Value) -> Value:
        if self.target is not None and value is self.target[0]:
            raise _ReadsTarget
        if value.graph is self.graph:
            return value
        if value.graph is not self.parent.graph:
            value = self.parent.outer(value)
        return self._input_for(value)


class _ReadsTarget(Exception):
    """A store's right side reads its target at other elements than the one stored: NumPy
    evaluates it first, so `store` computes it into a temporary."""


Element = Callable[[_Body, Value], Value]


@dataclass(eq=False)
class RunExprVariable(VariableTracker):
    """Elementwise ops on runs: `element(body, k)` builds the `k`-th element in `body`."""

    like: RunVariable
    element: Element

    def __post_init__(self) -> None:
        self.element = lazy_reads.tracked(self.element)

    def type_name(self) -> str:
        return "ndarray"

    def describe(self) -> str:
        return "arithmetic on a slice with run-time bounds"

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        if name == "sum":
            return _SumVariable(self)
        if name == "mean":
            return MeanMethod(self)
        if name in EXTREMA:
            return ExtremumMethod(self, name)
        raise graph_break("loop_body", what=f"{self.describe()}.{name}")


@dataclass(eq=False)
class ExtremumMethod(VariableTracker):
    """`run.max`, `expr.argmin`...: called without arguments."""

    operand: VariableTracker
    name: str

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        found = None if args or kwargs else extremum(tx, self.operand, self.name)
        if found is None:
            raise graph_break("loop_body", what=f"{self.name}() with arguments of a run-time "
                                                "slice")
        return found


@dataclass(eq=False)
class _SumVariable(VariableTracker):
    expr: RunExprVariable

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        found = None if args or kwargs else reduce(tx, self.expr, None)
        if found is None:
            raise graph_break("loop_body", what="sum() with arguments of a run-time slice")
        return found


@dataclass(eq=False)
class MeanMethod(VariableTracker):
    """`run.mean`, `expr.mean`: called without arguments."""

    operand: VariableTracker

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        found = None if args or kwargs else mean(tx, self.operand)
        if found is None:
            raise graph_break("loop_body", what="mean() with arguments of a run-time slice")
        return found


def mean(tx: Interpreter, vt: VariableTracker) -> VariableTracker | None:
    """`run.mean()`, `np.mean(expr)`: the sum of the elements in NumPy's mean dtype
    (float64 for bool and integers, the float's own otherwise) by one inner loop op,
    divided by the length. An empty run is a run-time check: NumPy warns and gives NaN."""
    found = _operand(vt)
    if found is None or found[0] is None:
        return None
    like, element = found
    kind = _element_kind(tx, element)
    if kind not in "biuf":
        return None
    graph = tx.graph
    probe = _Body(graph.region("loop"))
    dtype = np.dtype(np.float64) if kind in "biu" else element(
        probe, probe.graph.add_input(np.int64, (), weak=True)).dtype

    def trip(body: _Body, k: Value, carried: list[Value]) -> list[Value]:
        term = body.graph.op("astype", [element(body, k)], dtype=dtype, scalar=True)
        return [body.graph.op("add", [carried[0], term])]

    (total,) = _loop_over(tx, like, [graph.const(dtype.type(0))], trip)
    _, length = _start_and_length(graph, like)
    add_check(tx, graph.op("eq", [length, graph.const(0)]))
    count = graph.op("astype", [length], dtype=dtype, scalar=True)
    return ArrayVariable(graph.op("div", [total, count]))


def whole(array: ArrayVariable) -> RunVariable | None:
    """A 1-d array as a run over all of it (`A[i, :i] @ x[:i]`'s partner written `x`),
    so that it meets runs elementwise with their lengths checked; None for others."""
    from ember.capture.loops.runs import DynamicSliceVariable

    if not isinstance(array, ArrayVariable) or array.value.ndim != 1 or array.value.weak:
        return None
    return RunVariable(array, [None], 0, DynamicSliceVariable(ConstantVariable(None),
                                                              ConstantVariable(None)))


def _same_place(a: RunVariable, b: RunVariable) -> bool:
    return (a.axis == b.axis and _same_bounds(a, b) and all(
        (x is None) == (y is None) and (x is None or _same_value(x, y))  # type: ignore[arg-type]
        for x, y in zip(a.indices, b.indices, strict=True)))


def _mirrored(a: RunVariable, b: RunVariable) -> bool:
    """`A[lo:hi, c]` and `A[c, lo:hi]` of a 2-d `A` (a symmetric fill): element `k` of one
    and element `k'` of the other are one element only where `k == k' == c`."""
    return (len(a.indices) == 2 and a.axis != b.axis and _same_bounds(a, b)
            and _same_value(a.indices[1 - a.axis], b.indices[1 - b.axis]))  # type: ignore[arg-type]


def _run_element(run: RunVariable) -> Element:
    def element(body: _Body, k: Value) -> Value:
        indices = [k if index is None else body.outer(index) for index in run.indices]
        target = body.target
        if target is not None and run.array.value is target[0] and isinstance(
                target[1], RunVariable) and (
                (not body.shifted and (_same_place(run, target[1])
                                       or _mirrored(run, target[1])))
                or (body.shifted and body.pairwise and _same_place(run, target[1]))):
            # NumPy reads the whole right side first; the element read at `k` is stored
            # only at `k`, after the read, so the carried array still holds it.
            return body.graph.op("load", [target[2], *indices])
        if target is not None and isinstance(target[1], RunVariable) and disjoint(
                run, target[1]):
            # Another row of the target (`A[k, k:]` beside a store into `A[i, k:]`, `i`
            # from `k + 1`): the store never reaches it.
            return body.graph.op("load", [body.carried_target(), *indices])
        return body.graph.op("load", [body.outer(run.array.value), *indices])

    return element


def _operand(vt: VariableTracker) -> tuple[RunVariable | None, Element] | None:
    """What an operand contributes: its run (None for a scalar) and its element."""
    if isinstance(vt, RunExprVariable):
        return vt.like, vt.element
    if isinstance(vt, RunVariable):
        # Its elements as the array holds them now: arithmetic on it is a new array, which
        # a later store into the array (`R[i - 1, j:] = top` before `R[i, j:] = bottom`,
        # both computed first) does not change.
        now = RunVariable(ArrayVariable(vt.array.value), vt.indices, vt.axis, vt.bounds)
        return vt, _run_element(now)
    if isinstance(vt, ArrayVariable) and not vt.value.shape:
        value = vt.value
        return None, lambda body, k: body.outer(value)
    if isinstance(vt, ConstantVariable) and type(vt.constant()) in (bool, int, float):
        number = vt.constant()
        return None, lambda body, k: body.graph.const(number)
    return None


def take(tx: Interpreter, array: ArrayVariable, index: VariableTracker) -> RunExprVariable:
    """`x[cols]` of a 1-d `x` and a run (or run arithmetic) of integers `cols`: element `k`
    is `x[cols[k]]`, a `load` (a negative index counts from the end, one out of range
    raises NumPy's IndexError) in whatever loop reduces or stores it (spmv's
    `vals @ x[A_col[A_row[i]:A_row[i + 1]]]`)."""
    like, element = _operand(index)  # type: ignore[misc]
    probe = _Body(tx.graph.region("loop"))
    dtype = element(probe, probe.graph.add_input(np.int64, (), weak=True)).dtype
    if array.value.ndim == 2 and dtype.kind in "iu" and isinstance(array.value.shape[1], int):
        return _take_rows(tx, array, like, element)  # type: ignore[arg-type]
    if array.value.ndim != 1 or dtype.kind not in "iu":
        raise graph_break("loop_body", what=f"indexing {array.describe()} with "
                                            f"{index.describe()} of {dtype}")
    source = array.value
    return RunExprVariable(like, lambda body, k: body.graph.op(
        "load", [body.outer(source), element(body, k)]))


def flip(tx: Interpreter, vt: VariableTracker) -> VariableTracker | None:
    """`np.flip(run)` of a 1-d run or run arithmetic: element `k` of `x[lo:hi]` reversed is
    `x[lo + hi - 1 - k]`; None for other operands."""
    found = _operand(vt)
    if found is None or found[0] is None:
        return None
    like, element = found
    refuse_stepped(like)
    size = like.array.value.shape[like.axis]
    graph = tx.graph
    lo = _bound(graph, like.bounds.start, size, 0)
    hi = _bound(graph, like.bounds.stop, size, size)
    last = graph.op("sub", [graph.op("add", [lo, hi]), graph.const(1)])

    def flipped(body: _Body, k: Value) -> Value:
        mirrored = body.graph.op("sub", [body.outer(last), k])
        shifted, body.shifted = body.shifted, True
        try:
            return element(body, mirrored)
        finally:
            body.shifted = shifted

    return RunExprVariable(like, flipped)


def binary(tx: Interpreter, op: str, a: VariableTracker, b: VariableTracker
           ) -> VariableTracker | None:
    """`a op b` elementwise (arithmetic or a comparison) where an operand is a run or run
    arithmetic; None when this module has no rule for it (the caller refuses)."""
    bitwise = _BITWISE.get(op.rstrip("="))
    name = _COMPARISONS.get(op) or _OPS.get(op.rstrip("=")) or bitwise
    left, right = _operand(a), _operand(b)
    if name is None or left is None or right is None:
        return None
    runs = [r for r in (left[0], right[0]) if r is not None]
    if not runs:
        return None
    ea, eb = left[1], right[1]
    if len(runs) == 2:
        eb = _aligned(tx, runs[0], runs[1], eb)
    if bitwise and not all(_element_kind(tx, e) in "biu" for e in (ea, eb)):
        return None  # NumPy's TypeError, raised in Python
    return RunExprVariable(runs[0], lambda body, k: body.graph.op(name, [ea(body, k),
                                                                         eb(body, k)]))


def _element_kind(tx: Interpreter, element: Element) -> str:
    probe = _Body(tx.graph.region("loop"))
    return element(probe, probe.graph.add_input(np.int64, (), weak=True)).dtype.kind


def _aligned(tx: Interpreter, like: RunVariable, other: RunVariable, element: Element
             ) -> Element:
    """`other`'s elements at `like`'s positions. A run of other bounds (`T[i - 1, :m - v]`
    beside `T[i, v:]`, lengths equal only by the data) is read shifted by the difference of
    the clipped starts, and a run-time check sends the frame to Python where the clipped
    lengths differ (NumPy broadcasts a length of 1, or raises its ValueError)."""
    if _same_bounds(like, other):
        return element
    refuse_stepped(like, other)
    graph = tx.graph
    start, length = _start_and_length(graph, like)
    other_start, other_length = _start_and_length(graph, other)
    add_check(tx, graph.op("ne", [length, other_length]))
    offset = graph.op("sub", [other_start, start])

    def shifted(body: _Body, k: Value) -> Value:
        at = body.graph.op("add", [k, body.outer(offset)])
        was, body.shifted = body.shifted, True
        try:
            return element(body, at)
        finally:
            body.shifted = was

    return shifted


def _start_and_length(graph: Graph, run: RunVariable) -> tuple[Value, Value]:
    """A run's clipped start and its length (never negative)."""
    size = run.array.value.shape[run.axis]
    lo = _bound(graph, run.bounds.start, size, 0)
    hi = _bound(graph, run.bounds.stop, size, size)
    span = graph.op("maximum", [graph.op("sub", [hi, lo]), graph.const(0)])
    if run.bounds.step is None:
        return lo, span
    step = step_of(graph, run.bounds)  # positive (`runs.build_slice`)
    rounded = graph.op("sub", [graph.op("add", [span, step]), graph.const(1)])
    return lo, graph.op("floordiv", [rounded, step])


def _loop_over(tx: Interpreter, like: RunVariable, carried: list[Value],
               build: Callable[[_Body, Value, list[Value]], list[Value]]) -> list[Value]:
    """A loop op over `like`'s bounds carrying `carried`; `build(body, k, carried)` gives
    the carried values after a trip."""
    graph = tx.graph
    size = like.array.value.shape[like.axis]
    lo = _bound(graph, like.bounds.start, size, 0)
    hi = _bound(graph, like.bounds.stop, size, size)
    body = _Body(graph.region("loop"))
    k = body.graph.add_input(np.int64, (), weak=True)
    inner = [body.graph.add_input(c.dtype, c.shape, scalar=c.scalar) for c in carried]
    outs = build(body, k, inner)
    body.graph.set_outputs([body.graph.const(True, weak=False), *outs])
    return graph.loop(lo, hi, step_of(graph, like.bounds), carried, body.invariants,
                      body.graph)


def reduce(tx: Interpreter, a: VariableTracker, b: VariableTracker | None
           ) -> VariableTracker | None:
    """`a.sum()` (`b` None) or `a @ b` where an operand is run arithmetic."""
    operands = [_operand(v) for v in (a, b) if v is not None]
    if any(o is None or o[0] is None for o in operands):
        return None
    runs = [o[0] for o in operands]  # type: ignore[index]
    elements = [o[1] for o in operands]  # type: ignore[index]
    if len(runs) == 2:
        elements[1] = _aligned(tx, runs[0], runs[1], elements[1])  # type: ignore[arg-type]

    def trip(body: _Body, k: Value, carried: list[Value]) -> list[Value]:
        values = [e(body, k) for e in elements]
        term = values[0] if len(values) == 1 else body.graph.op("mul", values)
        total = body.graph.op("add", [carried[0], term])
        if total.dtype != carried[0].dtype:
            total = body.graph.op("astype", [total], dtype=carried[0].dtype, scalar=True)
        return [total]

    probe = _Body(tx.graph.region("loop"))
    k = probe.graph.add_input(np.int64, (), weak=True)
    probes = [e(probe, k) for e in elements]
    zeros = [np.zeros(1, p.dtype) for p in probes]
    dtype = np.sum(zeros[0]).dtype if len(zeros) == 1 else np.dot(*zeros).dtype
    like = runs[0]
    if like.bounds.step is None:
        # Partial sums kept apart (`partial_sums`): one running sum waits on each add.
        graph = tx.graph
        size = like.array.value.shape[like.axis]

        def term(body: _Body, k: Value) -> Value:
            values = [e(body, k) for e in elements]
            return values[0] if len(values) == 1 else body.graph.op("mul", values)

        return ArrayVariable(partial_sums.sum_loop(
            graph, _bound(graph, like.bounds.start, size, 0),
            _bound(graph, like.bounds.stop, size, size), dtype,
            lambda: _Body(graph.region("loop")), term))
    (result,) = _loop_over(tx, like, [tx.graph.const(dtype.type(0))], trip)
    return ArrayVariable(result)


def norm(tx: Interpreter, vt: VariableTracker) -> VariableTracker | None:
    """`np.linalg.norm(run)` of float elements: NumPy's `sqrt(x.dot(x))` for a 1-d real
    array, the product by one inner loop op; None for other operands."""
    found = _operand(vt)
    if found is None or found[0] is None or _element_kind(tx, found[1]) != "f":
        return None
    squares = reduce(tx, vt, vt)
    if squares is None:
        return None
    return ArrayVariable(tx.graph.op("sqrt", [squares.value]))  # type: ignore[attr-defined]


EXTREMA = ("max", "min", "argmax", "argmin")


def extremum(tx: Interpreter, vt: VariableTracker, name: str) -> VariableTracker | None:
    """`run.max()`, `np.argmax(np.abs(run))`... (`name` of `EXTREMA`): one loop op over the
    run carrying the best element so far (and its position), with NumPy's rules: a NaN
    wins, the first of equal ones is taken; None for operands that are no run. An empty
    run is a run-time check (`frame_branches.add_check`): the frame then runs as plain
    Python, where NumPy raises its ValueError."""
    from ember.capture.loops import frame_branches

    found = _operand(vt)
    if found is None or found[0] is None:
        return None
    like, element = found
    refuse_stepped(like)
    graph = tx.graph
    size = like.array.value.shape[like.axis]
    lo = _bound(graph, like.bounds.start, size, 0)
    hi = _bound(graph, like.bounds.stop, size, size)
    frame_branches.add_check(tx, graph.op("le", [hi, lo]))
    probe = _Body(graph.region("loop"))
    dtype = element(probe, probe.graph.add_input(np.int64, (), weak=True)).dtype
    largest = name in ("max", "argmax")
    worst = _extreme(dtype, lowest=largest)

    def trip(body: _Body, k: Value, carried: list[Value]) -> list[Value]:
        g = body.graph
        v = element(body, k)
        if v.dtype != dtype or v.weak:
            v = g.op("astype", [v], dtype=dtype, scalar=True)
        best = carried[0]
        if name in ("max", "min"):
            return [g.op("maximum" if largest else "minimum", [best, v])]
        better = g.op("gt" if largest else "lt", [v, best])
        if dtype.kind == "f":  # the first NaN is the answer
            nan_first = g.op("logical_and", [g.op("isnan", [v]),
                                             g.op("logical_not", [g.op("isnan", [best])])])
            better = g.op("logical_or", [better, nan_first])
        at = g.op("astype", [g.op("sub", [k, body.outer(lo)])], dtype=np.int64, scalar=True)
        return [g.op("where", [better, v, best], scalar=True),
                g.op("where", [better, at, carried[1]], scalar=True)]

    carried = [graph.const(worst)]
    if name.startswith("arg"):
        carried.append(graph.const(np.int64(0)))
    results = _loop_over(tx, like, carried, trip)
    return ArrayVariable(results[-1])


def _extreme(dtype: np.dtype, *, lowest: bool) -> np.generic:
    """The value every element beats or equals, as a NumPy scalar of `dtype`."""
    if dtype.kind == "f":
        return dtype.type(-np.inf if lowest else np.inf)
    if dtype.kind == "b":
        return np.bool_(not lowest)
    info = np.iinfo(dtype)
    return dtype.type(info.min if lowest else info.max)


def ufunc(tx: Interpreter, fn: np.ufunc, handler: object, args: list[VariableTracker]
          ) -> VariableTracker | None:
    """`np.abs(run)`, `np.sqrt(expr)`, `np.maximum(dp[i - 1, w:], dp[i - 1, :m - w] + c)`:
    a ufunc of one or two operands, elementwise; None where no operand is a run or an
    operand is none of a run, run arithmetic or a scalar."""
    from ember.capture.variables.array import call_numpy_api

    operands = [_operand(a) for a in args]
    if handler is None or any(o is None for o in operands):
        return None
    runs = [o[0] for o in operands if o[0] is not None]  # type: ignore[index]
    if not runs:
        return None
    like = runs[0]
    elements = [o[1] if o[0] is None else _aligned(tx, like, o[0], o[1])  # type: ignore[index]
                for o in operands]
    name = f"np.{fn.__name__}"
    return RunExprVariable(like, lambda body, k: call_numpy_api(
        name, handler, body.graph, *[e(body, k) for e in elements]))


def store(tx: Interpreter, target: ArrayVariable, run: RunVariable, value: VariableTracker
          ) -> bool:
    """`target[run] = value`, elementwise over the run's bounds; False when `value` is none
    of a run, run arithmetic or a scalar."""
    found = _operand(value)
    if found is None:
        return False
    source, element = found
    if source is not None:
        element = _aligned(tx, run, source, element)
    if not (target.is_fresh(tx) or target.is_mutable_input(tx)):
        raise graph_break("inplace", name=target.describe())
    computed_before_store(tx, target, value)
    if _reads_target(tx, target, run, element, pairwise=False):
        if not _reads_target(tx, target, run, element, pairwise=True):
            _store_pairs(tx, target, run, element)
            return True
        element = _evaluated_first(tx, target, run, element)

    dtypes = []

    def trip(body: _Body, k: Value, carried: list[Value]) -> list[Value]:
        body.target = (target.value, run, carried[0])
        v = element(body, k)
        dtypes.append(v.dtype)
        if not np.can_cast(v.dtype, carried[0].dtype, "same_kind"):
            raise graph_break("loop_body", what=f"storing {v.dtype} into a "
                                                f"{carried[0].dtype} slice")
        indices = [k if index is None else body.outer(index) for index in run.indices]
        return [body.graph.op("store", [carried[0], v, *indices])]

    (result,) = _loop_over(tx, run, [target.value], trip)
    target.update_in_place(result)
    if target.source is not None:
        tx.tracer.mark_mutated(target)
    if isinstance(value, RunExprVariable) and dtypes == [result.dtype]:
        # Stored again (`a[i:M, i] = a[i, i:M] = expr`), it is read back from this store
        # while the array still holds it, rather than computed twice.
        value.element = _read_back(value.element, target, result,
                                   RunVariable(ArrayVariable(result), run.indices, run.axis,
                                               run.bounds))
    return True


def computed_before_store(tx: Interpreter, target: ArrayVariable,
                          stored: VariableTracker | None) -> None:
    """Run arithmetic a local or the stack holds that reads `target` (`bottom = -s * R[i -
    1, j:] + c * R[i, j:]` while `top` is stored into `R[i - 1, j:]`) is computed now into a
    temporary, as NumPy computed it: the store consumes the array as it is (stores are
    linear), which the arithmetic, built later where it is used, could not read. `stored`:
    the value being stored, which the store itself reads first."""
    from ember.capture.loops.runs import materialise

    done: dict[int, VariableTracker] = {}

    def before(vt: VariableTracker) -> VariableTracker:
        if not isinstance(vt, RunExprVariable) or vt is stored:
            return vt
        if id(vt) not in done:
            probe = _Body(tx.graph.region("loop"))
            probe.target = (target.value, None, None)  # type: ignore[assignment]
            try:
                vt.element(probe, probe.graph.add_input(np.int64, (), weak=True))
                done[id(vt)] = vt
            except _ReadsTarget:
                done[id(vt)] = materialise(tx, vt.like, vt.element)
        return done[id(vt)]

    for name, vt in list(tx.locals.items()):
        tx.locals[name] = before(vt)
    tx.stack[:] = [before(vt) for vt in tx.stack]


def _reads_target(tx: Interpreter, target: ArrayVariable, run: RunVariable,
                  element: Element, pairwise: bool) -> bool:
    """Whether the right side reads the target at other elements than the one stored (and,
    with `pairwise`, than its mirror in the run)."""
    probe = _Body(tx.graph.region("loop"))
    probe.pairwise = pairwise
    k = probe.graph.add_input(np.int64, (), weak=True)
    v = target.value
    probe.target = (v, run, probe.graph.add_input(v.dtype, v.shape, scalar=v.scalar))
    try:
        element(probe, k)
    except _ReadsTarget:
        return True
    return False


def _store_pairs(tx: Interpreter, target: ArrayVariable, run: RunVariable,
                 element: Element) -> None:
    """A right side that reads the target only at the element stored and its mirror in the
    run (`y[:k] += alpha * np.flip(y[:k])`): one loop op over the first half of the run,
    computing the elements at `k` and at `lo + hi - 1 - k` from the array as it was, then
    storing both (the middle element of an odd run twice, with one value), which is what
    NumPy's evaluated right side gives, without a temporary."""
    refuse_stepped(run)
    graph = tx.graph
    size = target.value.shape[run.axis]
    lo = _bound(graph, run.bounds.start, size, 0)
    hi = _bound(graph, run.bounds.stop, size, size)
    last = graph.op("sub", [graph.op("add", [lo, hi]), graph.const(1)])
    half = graph.op("floordiv", [graph.op("add", [graph.op("sub", [hi, lo]),
                                                  graph.const(1)]), graph.const(2)])
    body = _Body(graph.region("loop"))
    k = body.graph.add_input(np.int64, (), weak=True)
    v = target.value
    carried = body.graph.add_input(v.dtype, v.shape, scalar=v.scalar)
    body.target, body.pairwise = (v, run, carried), True
    mirror = body.graph.op("sub", [body.outer(last), k])
    values = [element(body, k), element(body, mirror)]
    stored = carried
    for value, at in zip(values, (k, mirror), strict=True):
        if not np.can_cast(value.dtype, v.dtype, "same_kind"):
            raise graph_break("loop_body", what=f"storing {value.dtype} into a {v.dtype} slice")
        indices = [at if index is None else body.outer(index) for index in run.indices]
        stored = body.graph.op("store", [stored, value, *indices])
    body.graph.set_outputs([body.graph.const(True, weak=False), stored])
    (result,) = graph.loop(lo, graph.op("add", [lo, half]), graph.const(1), [v],
                           body.invariants, body.graph)
    target.update_in_place(result)
    if target.source is not None:
        tx.tracer.mark_mutated(target)


def _evaluated_first(tx: Interpreter, target: ArrayVariable, run: RunVariable,
                     element: Element) -> Element:
    """The right side computed over the run's bounds into a temporary (`y[:k] += alpha *
    np.flip(y[:k])`, as NumPy evaluates it before storing): one loop op fills it, its
    elements are then stored."""
    probe = _Body(tx.graph.region("loop"))
    dtype = element(probe, probe.graph.add_input(np.int64, (), weak=True)).dtype
    size = run.array.value.shape[run.axis]
    empty = tx.graph.full((size,), dtype.type(0).item(), dtype)

    def fill(body: _Body, k: Value, carried: list[Value]) -> list[Value]:
        return [body.graph.op("store", [carried[0], element(body, k), k])]

    (temporary,) = _loop_over(tx, run, [empty], fill)
    return lambda body, k: body.graph.op("load", [body.outer(temporary), k])


def _read_back(element: Element, target: ArrayVariable, stored: Value, run: RunVariable
               ) -> Element:
    stored_element = _run_element(run)

    def again(body: _Body, k: Value) -> Value:
        return (stored_element if target.value is stored else element)(body, k)

    return again


def _take_rows(tx: Interpreter, array: ArrayVariable, like: RunVariable, element: Element
               ) -> VariableTracker:
    """`table[ids[lo:hi]]` of a 2-d `table` whose rows have a static length: a block whose
    rows are the run's and whose columns are all of the table's (`blocks.py`); element
    `(r, c)` loads `table[ids[r], c]` (EmbeddingBag's `table[ids[a:b]].sum(axis=0)`)."""
    from ember.capture.loops.blocks import BlockVariable
    from ember.capture.loops.runs import DynamicSliceVariable

    source = array.value
    whole = DynamicSliceVariable(ConstantVariable(None), ConstantVariable(None))
    columns = tx.graph.full((source.shape[1],), 0, np.int8)  # stands for the axis: never read
    cols = RunVariable(ArrayVariable(columns), [None], 0, whole)
    return BlockVariable(like, cols, lambda body, r, c: body.graph.op(
        "load", [body.outer(source), element(body, r), c]))
