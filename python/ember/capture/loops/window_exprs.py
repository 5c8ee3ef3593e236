"""Elementwise arithmetic on windows longer than a vector, and stores of it into windows:
`y1[:, j] = a1 * imgIn[:, j] + b1 * y1[:, j - 1] + b2 * y1[:, j - 2]`,
`p[1:N - 1, j] += q[1:N - 1, j - 1] * 2.0` in a loop body.

A window read (`loops/windows.py`) of more than `_UNROLLED_ELEMENTS` elements is kept lazy,
a `LazyWindowVariable`: its array, the array's value when it was read and its axes.
Arithmetic on such windows (operators, unary `-` and `abs`, ufuncs; of one shape), arrays of
that shape, 0-d values and Python numbers is a `WindowExprVariable` that knows how to build
its element `k` (flat, C order) inside a loop body, with NumPy's rules for each element's op
(NEP 50: a Python number is weak, a 0-d value promotes as the array would). Stored into a
window of its shape, it is one loop op carrying the target and storing element by element:
no array is gathered, computed and scattered on every trip. Anything else reads the lazy
value, built then as `windows.gather` or a loop op filling a new array: the window or
expression as it was when read (the values it was built from are the graph's values of that
moment).

NumPy evaluates the right side before it stores. The store reads the target, from the array
it carries, only at the element being stored (the same window, or one differing only in the
positions of its one-position axes, `reach[k]` beside `reach[i]`) or in a window that can share
no element with the stored one (one index of one axis differs from the stored window's by a
constant that is no multiple of the axis size: `y1[:, j - 1]` beside `y1[:, j]`). A right side
that reads it anywhere else, or a store NumPy's casting of `+=` would reject, is not lowered:
the value is computed first and scattered as before."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ember import numpy_api
from ember.capture.breaks import graph_break
from ember.capture.loops import intervals, lazy_reads, vectors, windows
from ember.capture.loops.run_exprs import _Body, _ReadsTarget
from ember.capture.loops.runs import _same_value
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.graph import Graph, Value
from ember.graph.graph import array_math

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

Element = Callable[[_Body, Value], Value]
# An element at coordinates (one value per axis of the expression): what arithmetic and
# reductions build from, without dividing a flat position back into coordinates.
At = Callable[[_Body, list[Value]], Value]
_OPS = {"+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>"}
# `v -= w` of whole arrays in a branch of a loop body, `v` at most this long, is an element
# loop: an array op there makes the branch a graph run on its own (about a microsecond a
# trip, taken or not), where loads and stores keep the whole loop native.
_BRANCH_ELEMENTS = 4096


class LazyWindowVariable(windows.WindowVariable):
    """A window not gathered yet: gathered in `graph` when its value is read."""

    def __init__(self, graph: Graph, base: ArrayVariable, axes: list[windows.Axis],
                 new_axes: tuple[int, ...] = ()) -> None:
        self.base = base
        self.base_value = base.value
        self.source = None
        self.graph = graph
        self.axes = axes
        # `x[:, i:i + K, None]`: axes of length 1 at `new_axes`, which change no element's
        # flat position.
        self.new_axes = new_axes
        shape = list(windows._shape(axes))
        for axis in new_axes:
            shape.insert(axis, 1)
        self.shape = tuple(shape)
        self._value: Value | None = None

    def check(self) -> None:
        if self.base.value is not self.base_value:
            raise graph_break("loop_body", what="a row or slice at a run-time index read "
                                                "after its array changed")

    @property  # type: ignore[override]
    def value(self) -> Value:
        self.check()
        if self._value is None:
            gathered = windows.gather(self.graph, self.base, self.axes)
            if isinstance(gathered, vectors.VectorVariable):
                gathered = vectors.materialise(None, gathered)  # type: ignore[assignment]
            value = gathered.value
            if self.new_axes:
                value = self.graph.op("expand_dims", [value], axis=list(self.new_axes))
            self._value = value
        return self._value

    @value.setter
    def value(self, value: Value) -> None:
        self._value = value

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        return _getattr(self, tx, name)

    def element(self, body: _Body, k: Value) -> Value:
        return self.at(body, windows._coords(body.graph, k, self.shape))

    def at(self, body: _Body, coords: list[Value]) -> Value:
        g = body.graph
        coords = [c for axis, c in enumerate(coords) if axis not in self.new_axes]
        source = self.base_value
        target = body.target
        if target is not None and source is target[0]:
            if not isinstance(target[1], list) or body.shifted or not (
                    _aligned(self.axes, target[1])
                    or _disjoint(self.axes, target[1], source.shape)):
                raise _ReadsTarget
            array = target[2]  # read before element `k` is stored, or never stored
        else:
            array = body.outer(source)
        positions = [body.outer(v) for v in windows.runtime(self.axes)]
        return g.op("load", [array, *windows._array_indices(g, self.axes, coords, positions)])


class WindowExprVariable(ArrayVariable):
    """Elementwise ops on lazy windows: `at(body, coords)` builds the element at `coords`
    in `body`; the array itself is filled in `graph` when its value is read."""

    def __init__(self, graph: Graph, shape: tuple[int, ...], dtype: np.dtype, at: At) -> None:
        self.graph = graph
        self.shape = shape
        self.dtype = dtype
        self.at = lazy_reads.tracked(at)
        self.source = None
        self._value: Value | None = None

    def element(self, body: _Body, k: Value) -> Value:
        return self.at(body, windows._coords(body.graph, k, self.shape))

    @property  # type: ignore[override]
    def value(self) -> Value:
        if self._value is None:
            self._value = _fill(self.graph, self.shape, self.dtype, self.at)
        return self._value

    @value.setter
    def value(self, value: Value) -> None:
        self._value = value

    def describe(self) -> str:
        return f"arithmetic on rows at a run-time index {self.dtype}{list(self.shape)}"

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        return _getattr(self, tx, name)


class ReshapedWindowVariable(WindowExprVariable):
    """`w.reshape(shape)` or `w.ravel()` of a lazy window or window expression: its elements
    in C order under another shape, each read through `w`, so that storing it into a row
    (`cols[k] = x[c, i:i + h, j:j + w].reshape(-1)`) stays one element loop instead of a
    filled array. NumPy may return a view of `w`'s array: updates in place refuse."""

    def __init__(self, lazy: LazyWindowVariable | WindowExprVariable, shape: tuple[int, ...]
                 ) -> None:
        old = lazy.shape
        dtype = lazy.base_value.dtype if isinstance(lazy, LazyWindowVariable) else lazy.dtype

        def at(body: _Body, coords: list[Value]) -> Value:
            if isinstance(lazy, LazyWindowVariable):
                lazy.check()
            flat = _flat(body.graph, coords, shape)
            return lazy.at(body, windows._coords(body.graph, flat, old))

        super().__init__(lazy.graph, shape, dtype, at)
        self.lazy = lazy

    @property  # type: ignore[override]
    def value(self) -> Value:
        if isinstance(self.lazy, LazyWindowVariable):
            self.lazy.check()
        return WindowExprVariable.value.fget(self)  # type: ignore[attr-defined]

    @value.setter
    def value(self, value: Value) -> None:
        self._value = value

    def is_fresh(self, tx: Interpreter) -> bool:
        return False  # an update must reach what it may view

    def is_mutable_input(self, tx: Interpreter) -> bool:
        return False


def _flat(g: Graph, coords: list[Value], shape: tuple[int, ...]) -> Value:
    """The C-order position of the element at `coords` of `shape`."""
    flat = coords[-1] if coords else g.const(0)
    stride = 1
    for axis in range(len(shape) - 2, -1, -1):
        stride *= shape[axis + 1]
        flat = g.op("add", [g.op("mul", [coords[axis], g.const(stride)]), flat])
    return flat


class _ReshapeMethod(VariableTracker):
    """`w.reshape(...)`, `w.ravel()`, `w.flatten()` of a lazy window: with constant shapes
    and no `order=`, a `ReshapedWindowVariable` (`flatten` a fresh copy); else the array's
    method."""

    def __init__(self, lazy: LazyWindowVariable | WindowExprVariable, name: str) -> None:
        self.lazy = lazy
        self.name = name

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        shape = None
        if not kwargs and all(isinstance(a, ConstantVariable) for a in args):
            values = [a.constant() for a in args]
            if self.name == "reshape":
                wanted = values[0] if len(values) == 1 else values
                try:
                    shape = np.empty(self.lazy.shape, dtype=np.bool_).reshape(wanted).shape
                except (TypeError, ValueError):
                    shape = None  # NumPy's own error, from the array's method
            elif not values:
                shape = (math.prod(self.lazy.shape),)
        if shape is None:
            method = ArrayVariable.getattr(self.lazy, tx, self.name)
            return method.call(tx, args, kwargs)
        reshaped = ReshapedWindowVariable(self.lazy, shape)
        if self.name == "flatten":  # always a copy: a plain expression of the elements
            return WindowExprVariable(reshaped.graph, shape, reshaped.dtype, reshaped.at)
        return reshaped


def _getattr(lazy: ArrayVariable, tx: Interpreter, name: str) -> VariableTracker:
    """`w.sum` ... folds the elements (`window_reductions.py`); `w.copy` is the array its
    value already is (a gathered or filled copy); `w.reshape`, `w.ravel` and `w.flatten`
    read the elements under another shape; anything else is the array's."""
    from ember.capture.loops import window_reductions

    if name in window_reductions.METHODS:
        return window_reductions.ReductionMethod(lazy, name)
    if name in ("shape", "ndim", "size") and isinstance(lazy, _LAZY):
        shape = tuple(lazy.shape)  # type: ignore[attr-defined]
        return ConstantVariable({"shape": shape, "ndim": len(shape),
                                 "size": math.prod(shape)}[name])
    if name == "copy":
        return _CopyMethod(lazy)
    if name == "astype":
        return _AstypeMethod(lazy)
    if name in ("reshape", "ravel", "flatten") and isinstance(
            lazy, LazyWindowVariable | WindowExprVariable):
        return _ReshapeMethod(lazy, name)
    return ArrayVariable.getattr(lazy, tx, name)


class _CopyMethod(VariableTracker):
    def __init__(self, lazy: ArrayVariable) -> None:
        self.lazy = lazy

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        if args or kwargs:
            return ArrayVariable.getattr(self.lazy, tx, "copy").call(tx, args, kwargs)
        return ArrayVariable(self.lazy.value)


class _AstypeMethod(VariableTracker):
    """`w.astype(dtype)` of a lazy window: each element cast, still lazy (`adj[v].astype(
    np.int64)` subtracted from an array is one element loop); with other arguments, the
    array's method."""

    def __init__(self, lazy: ArrayVariable) -> None:
        self.lazy = lazy

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        from ember.numpy_api.convert import dtype_arg

        dtype = None
        if len(args) == 1 and not kwargs and args[0].is_constant():
            try:
                dtype = dtype_arg(args[0].constant(), "astype")
            except Exception:  # NumPy's own error, from the array's method
                dtype = None
        found = None
        if dtype is not None:
            found = _lazy_of(tx, [self.lazy], lambda g, xs: xs[0] if xs[0].dtype == dtype
                             else g.op("astype", [xs[0]], dtype=dtype))
        if found is None:
            return ArrayVariable.getattr(self.lazy, tx, "astype").call(tx, args, kwargs)
        return found


_LAZY = (LazyWindowVariable, WindowExprVariable)


def is_lazy(vt: VariableTracker) -> bool:
    return isinstance(vt, _LAZY)


def window(graph: Graph, array: ArrayVariable, axes: list[windows.Axis]) -> VariableTracker:
    """`array[index]` at a run-time position: lazy when longer than a straight-line gather
    or n-d (whose elements a reduction folds without gathering them)."""
    shape = windows._shape(axes)
    if windows.is_symbolic(axes):
        return windows.gather(graph, array, axes)
    if (math.prod(shape) >= windows._GATHERED_ELEMENTS
            and windows._leading_positions(axes, array.value.shape)):
        # `draws[t]` of a grid: whole-array ops on it (one fused kernel a trip) beat element
        # loops over thousands of elements, which no longer keep the body native anyway.
        return windows.gather(graph, array, axes)
    if math.prod(shape) > windows._UNROLLED_ELEMENTS or len(shape) > 1:
        return LazyWindowVariable(graph, array, axes)
    return windows.gather(graph, array, axes)


def _fill(graph: Graph, shape: tuple[int, ...], dtype: np.dtype, at: At) -> Value:
    if len(shape) > 1 and shape[-1] > 1:
        out = graph.full(shape, False if dtype == np.bool_ else 0, dtype)
        return windows.fill_rows(graph, shape, out, at)
    body = _Body(graph.region("loop"))
    k = body.graph.add_input(np.int64, (), weak=True)
    acc = body.graph.add_input(dtype, shape)
    coords = windows._coords(body.graph, k, shape)
    stored = body.graph.op("store", [acc, at(body, coords), *coords])
    body.graph.set_outputs([body.graph.const(True, weak=False), stored])
    out = graph.full(shape, False if dtype == np.bool_ else 0, dtype)
    (result,) = graph.loop(graph.const(0), graph.const(math.prod(shape)), graph.const(1),
                           [out], body.invariants, body.graph)
    return result


def _same_place(a: list[windows.Axis], b: list[windows.Axis]) -> bool:
    return len(a) == len(b) and all(
        (x.at is None) == (y.at is None) and (x.offset is None) == (y.offset is None)
        and (_same_value(x.at, y.at) if x.at is not None  # type: ignore[arg-type]
             else (x.start, x.step, x.length) == (y.start, y.step, y.length) and (
                 x.offset is None or _same_value(x.offset, y.offset)))  # type: ignore[arg-type]
        for x, y in zip(a, b, strict=True))


def _aligned(a: list[windows.Axis], b: list[windows.Axis]) -> bool:
    """Whether the windows differ at most in the positions of their one-position axes
    (`reach[k]` beside a store into `reach[i]`): element `k` of one is then element `k` of
    the other or no element of it, so it is read before any store reaches it."""
    return len(a) == len(b) and all(
        (x.at is None) == (y.at is None) and (x.at is not None or (
            (x.start, x.step, x.length) == (y.start, y.step, y.length)
            and (x.offset is None) == (y.offset is None)
            and (x.offset is None or _same_value(x.offset, y.offset))))  # type: ignore[arg-type]
        for x, y in zip(a, b, strict=True))


def _disjoint(a: list[windows.Axis], b: list[windows.Axis], shape: tuple) -> bool:
    """Whether the windows can share no element: at one axis both take one position, and
    the positions differ by a constant that is no multiple of the axis size (a negative
    index counts from the end)."""
    for x, y, size in zip(a, b, shape, strict=True):
        if x.at is None or y.at is None or not isinstance(size, int):
            continue
        (bx, cx), (by, cy) = intervals.offset_of(x.at), intervals.offset_of(y.at)
        same = bx is None and by is None or (
            bx is not None and by is not None and _same_value(bx, by))
        if same and (cx - cy) % size != 0:
            return True
    return False


def _element(tx: Interpreter, vt: VariableTracker) -> tuple[At, tuple[int, ...]] | None:
    """An operand's element at coordinates, and its shape."""
    from ember.capture.operators import _operand
    from ember.capture.variables.scalar import PythonScalarVariable

    if isinstance(vt, LazyWindowVariable):
        vt.check()  # NumPy reads the view now
        return _current(vt), vt.shape
    if isinstance(vt, WindowExprVariable):
        return _current(vt), vt.shape
    if isinstance(vt, ArrayVariable):
        value = vt.value
        shape = tuple(value.shape)
        if not all(isinstance(size, int) for size in shape):
            return None
        if not shape:
            return (lambda body, k: body.outer(value)), ()
        source, new_axes = _unexpanded(value)
        return (lambda body, coords: body.graph.op("load", [body.outer(source), *[
            c for axis, c in enumerate(coords) if axis not in new_axes]])), shape
    if isinstance(vt, ConstantVariable) and isinstance(vt.constant(), np.generic) and (
            vt.constant().dtype.kind in "biuf"):
        scalar = vt.constant()  # a NumPy scalar folded at capture: strong, of its dtype
        return (lambda body, k: body.graph.const(scalar)), ()
    if isinstance(vt, PythonScalarVariable) or (
            isinstance(vt, ConstantVariable) and type(vt.constant()) in (bool, int, float)):
        number = _operand(vt)
        if isinstance(number, Value):
            return (lambda body, k: body.outer(number)), ()  # type: ignore[arg-type]
        return (lambda body, k: number), ()  # type: ignore[return-value]
    return None


def _current(lazy: LazyWindowVariable | WindowExprVariable) -> At:
    """`lazy`'s element at coordinates: loaded from its array once that was built, else
    built from what it was computed from. Capture builds the array when an update in place
    is about to consume an array it reads (`ArrayVariable.viewed` reads every live
    tracker's value); from then on the elements must come from it, since the graph may not
    read a value after an update consumed it (arrays stored into are used linearly)."""
    def at(body: _Body, coords: list[Value]) -> Value:
        if lazy._value is None:
            return lazy.at(body, coords)
        return body.graph.op("load", [body.outer(lazy._value), *coords])

    return at


def _unexpanded(value: Value) -> tuple[Value, set[int]]:
    """`w[np.newaxis]` as `w` and the axes of length 1 it inserts: its elements are loaded
    from `w`, rather than an `expand_dims` run on every trip (an array op in a native loop
    body costs set-up)."""
    node = next((n for n in value.graph.nodes if n.out is value), None)
    if node is None or node.op != "expand_dims":
        return value, set()
    inserted = {a % value.ndim for a in node.attrs["axis"]}
    return node.inputs[0], inserted


def _broadcast(at: At, shape: tuple[int, ...], to: tuple[int, ...]) -> At:
    """`at` of an operand of `shape` read at coordinates of `to`, the shape it broadcasts
    to (a weight `w[np.newaxis]` against a batch of windows)."""
    if shape == to:
        return at
    lead = len(to) - len(shape)
    return lambda body, coords: at(body, [
        coords[lead + axis] if size != 1 else body.graph.const(0)
        for axis, size in enumerate(shape)])


def binary(tx: Interpreter, op: str, a: VariableTracker, b: VariableTracker, *,
           inplace: bool, stored_back: bool) -> VariableTracker | None:
    """`a op b` elementwise where an operand is a lazy window or window arithmetic; None
    when this module has no rule for it (the caller computes it on arrays)."""
    if op not in _OPS:
        return None
    if inplace and not stored_back:
        return _into_array(tx, op, a, b)
    result = _lazy_of(tx, [a, b], lambda g, xs: numpy_api.binary_op(g, op, xs[0], xs[1]))
    if inplace and isinstance(a, windows.WindowVariable) and result is not None:
        from ember.capture.operators import check_same_kind

        check_same_kind(result.dtype, a.base.value.dtype)  # `row op= y` has `out=row`
    return result


def _into_array(tx: Interpreter, op: str, a: VariableTracker, b: VariableTracker
                ) -> VariableTracker | None:
    """`v -= expr` of an array of static shape the frame may update and lazy `expr` (or, in
    a branch, of a short `v` and any array or number): one loop op storing each element into
    `v` (read only at the element stored), as `store` into a window over all of `v`; None
    otherwise (the array path runs it)."""
    if not (isinstance(a, ArrayVariable) and not isinstance(a, _LAZY)
            and (isinstance(b, _LAZY) or _short_in_branch(tx, a))
            and a.value.shape and all(isinstance(n, int) for n in a.value.shape)
            and (a.is_fresh(tx) or a.is_mutable_input(tx))):
        return None
    axes = [windows.Axis(length=n) for n in a.value.shape]
    whole = LazyWindowVariable(tx.graph, a, axes)
    found = _lazy_of(tx, [whole, b], lambda g, xs: numpy_api.binary_op(g, op, xs[0], xs[1]))
    if found is None or not store(tx, a, axes, found):
        return None
    return a


def _short_in_branch(tx: Interpreter, a: ArrayVariable) -> bool:
    """Whether `a` is updated in a branch of a loop body and short enough for an element
    loop (`_BRANCH_ELEMENTS`)."""
    graph = tx.graph
    shape = a.value.shape
    return (graph.kind in ("then", "else") and graph.parent is not None
            and graph.parent.kind == "loop" and all(isinstance(n, int) for n in shape)
            and math.prod(shape) <= _BRANCH_ELEMENTS)


def _lazy_of(tx: Interpreter, operands: list[VariableTracker],
             each: Callable[[Graph, list[object]], object]) -> VariableTracker | None:
    """Elementwise `each(graph, elements)` of the operands, one of them lazy; None when an
    operand has no element here or the op refuses on elements (the array path runs it)."""
    if not any(isinstance(v, _LAZY) for v in operands):
        return None
    found = [_element(tx, v) for v in operands]
    if any(f is None or any(isinstance(n, str) for n in f[1]) for f in found):
        return None  # an operand of symbolic shape: the array path
    try:
        shape = tuple(np.broadcast_shapes(*[f[1] for f in found]))  # type: ignore[index]
    except ValueError:
        return None  # the array path raises NumPy's error
    parts = [_broadcast(e, s, shape) for e, s in found]  # type: ignore[misc]

    def at(body: _Body, coords: list[Value]) -> Value:
        # Built once per body: `d = a - b; e = d * d` reads `d` twice, and a chain of such
        # steps would otherwise grow the body exponentially.
        built = body.__dict__.setdefault("window_elements", {})
        key = (id(at), *map(id, coords))
        found = built.get(key)
        if found is not None:
            return found[2]
        with array_math():
            result = each(body.graph, [p(body, coords) for p in parts])  # type: ignore[misc]
        if not isinstance(result, Value) or result.shape:
            raise graph_break("loop_body", what="an op on rows at a run-time index")
        built[key] = (at, coords, result)
        return result

    probe = _Body(tx.graph.region("loop"))
    k = probe.graph.add_input(np.int64, (), weak=True)
    try:
        dtype = at(probe, windows._coords(probe.graph, k, shape)).dtype
    except Exception:  # NumPy's own error or a refusal: the array path gives it
        return None
    return WindowExprVariable(tx.graph, shape, dtype, at)


def unary(tx: Interpreter, op: str, a: VariableTracker) -> VariableTracker | None:
    """`-a`, `abs(a)` of a lazy window or window arithmetic."""
    if op == "-":
        return _lazy_of(tx, [a], lambda g, xs: numpy_api.unary_op(g, op, xs[0]))
    if op == "abs":
        handler = numpy_api.lookup_function(np.absolute)
        return _lazy_of(tx, [a], lambda g, xs: handler(g, xs[0]))
    return None


def numpy_call(tx: Interpreter, fn: object, handler: object, args: list[VariableTracker],
               kwargs: dict[str, VariableTracker]) -> VariableTracker | None:
    """A ufunc (`np.exp`, `np.maximum`) of lazy windows, element by element; a reduction
    of one over all its elements (`window_reductions.py`)."""
    from ember.capture.loops import window_reductions

    found = window_reductions.numpy_call(tx, fn, args, kwargs)
    if found is not None:
        return found
    if not (isinstance(fn, np.ufunc) and handler is not None and not kwargs
            and len(args) == fn.nin and fn.nout == 1):
        return None
    return _lazy_of(tx, args, lambda g, xs: handler(g, *xs))  # type: ignore[operator]


def store(tx: Interpreter, array: ArrayVariable, axes: list[windows.Axis],
          value: VariableTracker) -> bool:
    """`array[index] = value` of lazy window arithmetic of the window's shape, element by
    element in one loop op; False when not lowered (the caller scatters the value)."""
    shape = windows._shape(axes)
    if not isinstance(value, _LAZY) or value.shape != shape:
        return False
    if isinstance(value, LazyWindowVariable):
        value.check()
    at = _current(value)
    target = array.value
    total = math.prod(shape)
    if total <= windows._UNROLLED_ELEMENTS and isinstance(value, LazyWindowVariable):
        return False  # a short copy: scattered straight-line
    probe = _Body(tx.graph.region("loop"))
    k = probe.graph.add_input(np.int64, (), weak=True)
    probe.target = (target, axes, probe.graph.add_input(target.dtype, target.shape,
                                                        scalar=target.scalar))
    try:
        dtype = at(probe, windows._coords(probe.graph, k, shape)).dtype
    except _ReadsTarget:
        return False
    if not np.can_cast(dtype, target.dtype, "same_kind"):
        return False
    body = _Body(tx.graph.region("loop"))
    k = body.graph.add_input(np.int64, (), weak=True)
    carried = body.graph.add_input(target.dtype, target.shape, scalar=target.scalar)
    body.target = (target, axes, carried)  # type: ignore[assignment]
    coords = windows._coords(body.graph, k, shape)
    new = at(body, coords)
    positions = [body.outer(v) for v in windows.runtime(axes)]
    stored = body.graph.op("store", [carried, new, *windows._array_indices(
        body.graph, axes, coords, positions)])
    body.graph.set_outputs([body.graph.const(True, weak=False), stored])
    graph = tx.graph
    (result,) = graph.loop(graph.const(0), graph.const(total), graph.const(1), [target],
                           body.invariants, body.graph)
    array.update_in_place(result)
    if array.source is not None:
        tx.tracer.mark_mutated(array)
    return True
