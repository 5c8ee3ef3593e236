"""Rows, columns and fixed-size slices at a run-time position inside loop bodies: `pos[j]`,
`A[i, 1:-1]`, `path[:, k]`, `for row in X`.

Their shape is known when the body is traced, only their position is a loop value, so NumPy's
view is read as a *window*: a copy gathered element by element (`load`s into a new array,
an inner `loop` op when it is long), and written back by scattering (`store`s) when the
body assigns to the same index (`A[i, 1:-1] = v`, `acc[i] += f`). A copy behaves as the view
as long as neither changes while the copy is in use, which the window checks: it refuses
to be updated in place (`row += 1` must write through to the array) and refuses to be read
once its array has changed since the gather; the enclosing loop is then not a loop op.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.loops import intervals, vectors
from ember.capture.loops.runs import DynamicSliceVariable
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.graph import Graph, Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

# Windows of at most this many elements are gathered and scattered by straight-line loads
# and stores; longer ones by an inner loop op, so the body does not grow with their size.
_UNROLLED_ELEMENTS = 8
# Windows of whole trailing axes at least this large are read by a `gather` op, not copied.
_GATHERED_ELEMENTS = 2048


@dataclass(frozen=True)
class Axis:
    """One axis of the indexed array: at one position (`at`, a 0-d integer value), or a
    range `offset + start, offset + start + step, ...` of `length` elements kept in the
    window, where `offset` is a 0-d integer value (`img[i:i + K]`) or None (zero)."""

    at: Value | None = None
    start: int = 0
    step: int = 1
    length: int = 0
    offset: Value | None = None


def runtime(axes: list[Axis]) -> list[Value]:
    """The run-time values the axes' positions depend on, in axis order (`at` or
    `offset`): what a loop op building the window takes as invariants."""
    return [axis.at if axis.at is not None else axis.offset  # type: ignore[misc]
            for axis in axes if axis.at is not None or axis.offset is not None]


class WindowVariable(ArrayVariable):
    """A gathered copy standing for a view of `base` at a run-time position."""

    def __init__(self, value: Value, base: ArrayVariable) -> None:
        self.base = base
        self.base_value = base.value
        super().__init__(value)

    @property  # type: ignore[override]
    def value(self) -> Value:
        if self.base.value is not self.base_value:
            raise graph_break("loop_body", what="a row or slice at a run-time index read "
                                                "after its array changed")
        return self._value

    @value.setter
    def value(self, value: Value) -> None:
        self._value = value

    def describe(self) -> str:
        return f"a view of {self.base.describe()} at a run-time index"

    def is_fresh(self, tx: Interpreter) -> bool:
        return False  # an update must reach the array it views

    def is_mutable_input(self, tx: Interpreter) -> bool:
        return False


def _is_loop_int(vt: VariableTracker) -> bool:
    return (isinstance(vt, ArrayVariable) and not vt.value.shape
            and vt.value.dtype.kind in "iu")


def fixed_slice(tx: Interpreter, part: VariableTracker, size: int | str,
                check: bool = False) -> Axis | None:
    """A slice with loop-value bounds whose length is known when the body is traced, as a
    window axis: `lo:lo + c` (or `i * k:(i + 1) * k` with `k` a constant) where `lo`, by
    what capture knows of its range (`loops/intervals.py`), never counts from the end and
    `lo + c` never passes the axis's end, so NumPy never clips it (`img[i:i + K]` with `i`
    in `range(H - K + 1)`). Along an axis of symbolic size, whose end capture cannot compare,
    both are run-time checks that send the frame to Python where NumPy would clip or count
    from the end (added when `check`: the caller takes the window). None otherwise: its
    length is a run-time value (`loops/runs.py`)."""
    if not isinstance(part, DynamicSliceVariable) or part.step is not None:
        return None
    bounds = []
    for vt in (part.start, part.stop):
        if _is_loop_int(vt):
            bounds.append(vt.value)  # type: ignore[attr-defined]
        elif isinstance(vt, ConstantVariable) and type(vt.constant()) is int:
            bounds.append(tx.graph.const(vt.constant()))
        else:
            return None
    length = intervals.constant_difference(bounds[1], bounds[0])
    if intervals.offset_of(bounds[0])[0] is None or length is None or length <= 0:
        return None
    if isinstance(size, str):
        if check:
            from ember.capture.loops import frame_branches, sizes

            graph = tx.graph
            end = sizes.value_in(graph, size)
            frame_branches.add_check(tx, graph.op("logical_or", [
                graph.op("lt", [bounds[0], graph.const(0)]),
                graph.op("gt", [bounds[1], end])]))
        return Axis(length=length, offset=bounds[0])
    first, last = intervals.interval(bounds[0]), intervals.interval(bounds[1])
    if first is None or last is None or first[0] < 0 or last[1] > size:
        return None
    return Axis(length=length, offset=bounds[0])


def fixed_slices(tx: Interpreter, array: ArrayVariable, parts: list[VariableTracker]) -> bool:
    """Whether every slice with loop-value bounds in `parts` is a `fixed_slice`. One such
    slice along an axis of symbolic size is a run instead (`loops/runs.py`), which clips
    its bounds as NumPy does where a window would send the frame to Python."""
    shape = array.value.shape
    axis = 0
    dynamic = [p for p in parts if isinstance(p, DynamicSliceVariable)]
    for part in parts:
        if isinstance(part, DynamicSliceVariable) and (
                axis >= len(shape) or fixed_slice(tx, part, shape[axis]) is None
                or (len(dynamic) == 1 and isinstance(shape[axis], str))):
            return False
        if not (isinstance(part, ConstantVariable) and part.constant() is None):
            axis += 1
    return True


def window_axes(tx: Interpreter, array: ArrayVariable, index: VariableTracker,
                short_rows: bool = False, constant: bool = False) -> list[Axis] | None:
    """The axes of `array[index]` when the index holds a loop value and keeps at least one
    axis, each other part an int or a slice of constants; None when no part is a loop
    value. Refuses the other indexes mixing loop values with slices. `short_rows`: also
    the axes of a row at constant positions that a vector holds (`C[j]` of an unrolled
    loop), so that its elements are loaded rather than viewed. `constant`: also the axes of
    a slice at constant positions of an array of static shape (`dW[:, 0] += X[i]`, read
    there only as the read of an augmented assignment: `augmented_subscript`), loaded and
    stored element by element rather than viewed and written as a whole new array."""
    from ember.capture.variables.containers import TupleVariable

    parts = list(index.items) if isinstance(index, TupleVariable) else [index]
    if not any(_is_loop_int(p) or isinstance(p, DynamicSliceVariable) for p in parts) and not (
            short_rows and _short_row(array, parts)) and not (
            constant and _constant_place(array, parts)):
        return None
    shape = array.value.shape
    if len(parts) > len(shape):
        raise graph_break("loop_body", what=f"too many indices for {array.describe()}")
    if len(parts) == len(shape) and not any(
            isinstance(p, DynamicSliceVariable) or isinstance(p, ConstantVariable)
            and isinstance(p.constant(), slice) for p in parts):
        return None  # one element: `load`
    parts += [ConstantVariable(slice(None))] * (len(shape) - len(parts))
    axes: list[Axis] = []
    for part, size in zip(parts, shape, strict=True):
        if _is_loop_int(part):
            # A position only: its load checks it against the size, symbolic or not.
            axes.append(Axis(at=part.value))  # type: ignore[attr-defined]
            continue
        fixed = fixed_slice(tx, part, size, check=True)
        if fixed is not None:
            axes.append(fixed)
            continue
        constant = part.constant() if isinstance(part, ConstantVariable) else None
        if isinstance(size, str):
            # A whole axis of symbolic size (`out[:, i] = z`): its length is the body's
            # value of the size (`_symbolic_extent`).
            if constant != slice(None):
                raise graph_break("loop_body", what="a run-time index of an array of "
                                                    "symbolic shape")
            axes.append(Axis(length=size))  # type: ignore[arg-type]
            continue
        if type(constant) is int:
            if not -size <= constant < size:
                raise graph_break("loop_body", what=f"an index {constant} out of range")
            axes.append(Axis(at=tx.graph.const(constant % size)))
        elif isinstance(constant, slice) and all(
                b is None or type(b) is int for b in (constant.start, constant.stop,
                                                      constant.step)):
            start, stop, step = constant.indices(size)
            axes.append(Axis(start=start, step=step, length=len(range(start, stop, step))))
        else:
            raise graph_break("loop_body", what=f"an index {part.describe()} next to a "
                                                "run-time one")
    if not is_symbolic(axes) and math.prod(_shape(axes)) == 0:
        # NumPy still checks the run-time position of an empty slice; no load would.
        raise graph_break("loop_body", what="an empty slice at a run-time index")
    return axes


def _is_new_axis(part: VariableTracker) -> bool:
    return isinstance(part, ConstantVariable) and part.constant() is None


def with_new_axes(tx: Interpreter, array: ArrayVariable, index: VariableTracker
                  ) -> WindowVariable | None:
    """`x[:, i:i + K, None]`: the window of the index without its `None`s, with an axis of
    length 1 at each, lazy (`window_exprs.LazyWindowVariable`); None when the index has no
    `None` or is no window's."""
    from ember.capture.loops.window_exprs import LazyWindowVariable
    from ember.capture.variables.containers import TupleVariable

    parts = list(index.items) if isinstance(index, TupleVariable) else [index]
    if not any(_is_new_axis(p) for p in parts):
        return None
    axes = window_axes(tx, array, TupleVariable([p for p in parts if not _is_new_axis(p)]))
    if axes is None:
        return None
    positions, kept = [], 0
    for part in parts:
        if _is_new_axis(part):
            positions.append(kept)
        elif _is_loop_int(part) or (isinstance(part, ConstantVariable)
                                    and type(part.constant()) is int):
            continue
        kept += 1
    return LazyWindowVariable(tx.graph, array, axes, tuple(positions))


def _short_row(array: ArrayVariable, parts: list[VariableTracker]) -> bool:
    """`array[parts]` is a row of a vector's length picked by constant ints."""
    shape = array.value.shape
    if not 0 < len(parts) < len(shape) or any(
            not (isinstance(p, ConstantVariable) and type(p.constant()) is int) for p in parts):
        return False
    rest = shape[len(parts):]
    return len(rest) == 1 and isinstance(rest[0], int) and 0 < rest[0] <= vectors.MAX_LENGTH


def augmented_subscript(tx: Interpreter) -> bool:
    """Whether the subscript being read is the read of `x[i] op= y` (`COPY 2; COPY 2;
    BINARY_SUBSCR`), whose result is stored straight back: a window read there at constant
    positions is never held as NumPy's view (`row = M[0]; row += 1` keeps the view)."""
    ip = getattr(tx, "ip", 0)
    if ip < 3:
        return False
    read = tx.instructions[ip - 3:ip]
    return [(i.opname, i.arg) for i in read] == [("COPY", 2), ("COPY", 2),
                                                  ("BINARY_SUBSCR", None)]


def _constant_place(array: ArrayVariable, parts: list[VariableTracker]) -> bool:
    """`array[parts]` picks constant positions along some axes of an array of static shape
    and constant slices along at least one other, keeping an element (`dW[:, 0]`)."""
    shape = array.value.shape
    if not 0 < len(parts) <= len(shape) or not all(isinstance(d, int) for d in shape):
        return False
    picked, kept = 0, len(shape) - len(parts)
    for part, size in zip(parts, shape):
        constant = part.constant() if isinstance(part, ConstantVariable) else None
        if type(constant) is int:
            picked += 1
        elif isinstance(constant, slice) and all(
                b is None or type(b) is int for b in (constant.start, constant.stop,
                                                      constant.step)) and constant.step != 0:
            if not len(range(*constant.indices(size))):
                return False
            kept += 1
        else:
            return False
    return picked > 0 and kept > 0 and all(d > 0 for d in shape)


def _shape(axes: list[Axis]) -> tuple[int, ...]:
    return tuple(axis.length for axis in axes if axis.at is None)


def is_symbolic(axes: list[Axis]) -> bool:
    """Whether a window axis is a whole axis of symbolic size."""
    return any(isinstance(axis.length, str) for axis in axes)


def _symbolic_extent(graph: Graph, shape: tuple) -> tuple[Value, list[Value]]:
    """A window with axes of symbolic size: its element count as a value of `graph` (a loop
    body: the sizes' run-time values) and each axis's length as a value."""
    from ember.capture.loops import sizes

    lengths = [sizes.value_in(graph, n) if isinstance(n, str) else graph.const(int(n))
               for n in shape]
    total = lengths[0]
    for length in lengths[1:]:
        total = graph.op("mul", [total, length])
    return total, lengths


def _symbolic_coords(graph: Graph, flat: Value, lengths: list[Value]) -> list[Value]:
    """The window position of element `flat` (C order), the axes' lengths values."""
    coords: list[Value] = []
    stride: Value | None = None
    for k in reversed(range(len(lengths))):
        coord = flat if stride is None else graph.op("floordiv", [flat, stride])
        if k:
            coord = graph.op("mod", [coord, lengths[k]])
        coords.append(coord)
        stride = lengths[k] if stride is None else graph.op("mul", [stride, lengths[k]])
    return coords[::-1]


def _coords(graph: Graph, flat: Value, shape: tuple[int, ...]) -> list[Value]:
    """The window position of element `flat` (C order)."""
    coords: list[Value] = []
    stride = math.prod(shape)
    for size in shape:
        stride //= size
        coord = graph.op("floordiv", [flat, graph.const(stride)]) if stride > 1 else flat
        if size * stride < math.prod(shape):
            coord = graph.op("mod", [coord, graph.const(size)])
        coords.append(coord)
    return coords


def _array_indices(graph: Graph, axes: list[Axis], coords: list[Value],
                   positions: list[Value]) -> list[Value]:
    """The array's index of the window element at `coords`; `positions`: the `runtime`
    values as this graph sees them."""
    found: list[Value] = []
    at = iter(positions)
    window = iter(coords)
    for axis in axes:
        if axis.at is not None:
            found.append(next(at))
            continue
        coord = next(window)
        if axis.step != 1:
            coord = graph.op("mul", [coord, graph.const(axis.step)])
        if axis.start:
            coord = graph.op("add", [coord, graph.const(axis.start)])
        if axis.offset is not None:
            coord = graph.op("add", [coord, next(at)])
        found.append(coord)
    return found


def _const_coords(graph: Graph, flat: int, shape: tuple[int, ...]) -> list[Value]:
    return [graph.const(int(c)) for c in np.unravel_index(flat, shape)]


def _element_indices(graph: Graph, axes: list[Axis], flat: int, shape: tuple[int, ...],
                     positions: list[Value]) -> list[Value]:
    """The array's index of window element `flat`, its window axes constants."""
    coords = iter(int(c) for c in np.unravel_index(flat, shape))
    at = iter(positions)
    found: list[Value] = []
    for axis in axes:
        if axis.at is not None:
            found.append(next(at))
            continue
        coord = graph.const(axis.start + axis.step * next(coords))
        found.append(coord if axis.offset is None else graph.op("add", [next(at), coord]))
    return found


def gather(graph: Graph, array: ArrayVariable, axes: list[Axis]
           ) -> WindowVariable | vectors.VectorVariable:
    """`array[index]` as a window (a copy of the viewed elements)."""
    source = array.value
    shape = _shape(axes)
    positions = runtime(axes)
    if is_symbolic(axes):
        return _gather_symbolic(graph, array, axes, shape, positions)
    total = math.prod(shape)
    if len(shape) == 1 and total <= vectors.MAX_LENGTH:
        return vectors.gather(graph, array, [
            _element_indices(graph, axes, k, shape, positions) for k in range(total)])
    out = graph.full(shape, False if source.dtype == np.bool_ else 0, source.dtype)
    if total <= _UNROLLED_ELEMENTS:
        for flat in range(total):
            element = graph.op("load", [source, *_element_indices(graph, axes, flat, shape,
                                                                  positions)])
            out = graph.op("store", [out, element, *_const_coords(graph, flat, shape)])
        return WindowVariable(out, array)
    leading = _leading_positions(axes, source.shape)
    if leading and total >= _GATHERED_ELEMENTS:
        # `draws[t]` of a grid read by whole-array ops: NumPy's indexing of the leading axes
        # (negative positions count from the end, one out of range raises), which kernels
        # reading it take in place of a copy; a copy by loop ops costs more.
        del out
        for at in leading:
            source = graph.op("gather", [source, at], axis=0)
        return WindowVariable(source, array)
    if len(shape) > 1 and shape[-1] > 1:
        return WindowVariable(_gather_rows(graph, source, axes, shape, positions, out), array)
    body = graph.region("loop")
    flat_index = body.add_input(np.int64, (), weak=True)
    acc = body.add_input(out.dtype, shape)
    inner = body.add_input(source.dtype, source.shape)
    inner_positions = [body.add_input(p.dtype, (), weak=p.weak) for p in positions]
    coords = _coords(body, flat_index, shape)
    element = body.op("load", [inner, *_array_indices(body, axes, coords, inner_positions)])
    body.set_outputs([body.const(True, weak=False), body.op("store", [acc, element, *coords])])
    (result,) = graph.loop(graph.const(0), graph.const(total), graph.const(1), [out],
                           [source, *positions], body)
    return WindowVariable(result, array)


def _leading_positions(axes: list[Axis], shape: tuple) -> list[Value]:
    """The positions of a window that picks positions along leading axes and keeps every
    other axis whole (`x[t]`, `x[i, j]`); empty for other windows."""
    count = next((k for k, axis in enumerate(axes) if axis.at is None), len(axes))
    if any(axis.at is not None or axis.offset is not None
           or (axis.start, axis.step, axis.length) != (0, 1, size)
           for axis, size in zip(axes[count:], shape[count:])):
        return []
    return [axis.at for axis in axes[:count]]  # type: ignore[misc]


def _gather_rows(graph: Graph, source: Value, axes: list[Axis], shape: tuple[int, ...],
                 positions: list[Value], out: Value) -> Value:
    """An n-d window copied row by row (`fill_rows`)."""

    def element(body: Any, coords: list[Value]) -> Value:
        return body.graph.op("load", [body.outer(source), *_array_indices(
            body.graph, axes, coords, [body.outer(p) for p in positions])])

    return fill_rows(graph, shape, out, element)


def fill_rows(graph: Graph, shape: tuple[int, ...], out: Value,
              element: Callable[[Any, list[Value]], Value]) -> Value:
    """`out` (of `shape`, n-d) with each element `element(body, coords)` built in a loop
    body (`run_exprs._Body`): a loop op over the rows (their coordinates worked out once a
    row) around one over the last axis, whose index is the coordinate, rather than one
    loop dividing every element's flat position back into coordinates."""
    from ember.capture.loops.run_exprs import _Body, _Nested

    rows = _Body(graph.region("loop"))
    row = rows.graph.add_input(np.int64, (), weak=True)
    acc = rows.graph.add_input(out.dtype, shape)
    prefix = _coords(rows.graph, row, shape[:-1])
    inner = _Nested(rows.graph.region("loop"), rows)
    k = inner.graph.add_input(np.int64, (), weak=True)
    carried = inner.graph.add_input(out.dtype, shape)
    coords = [inner.outer(c) for c in prefix] + [k]
    inner.graph.set_outputs([inner.graph.const(True, weak=False), inner.graph.op(
        "store", [carried, element(inner, coords), *coords])])
    (filled,) = rows.graph.loop(rows.graph.const(0), rows.graph.const(shape[-1]),
                                rows.graph.const(1), [acc], inner.invariants, inner.graph)
    rows.graph.set_outputs([rows.graph.const(True, weak=False), filled])
    (result,) = graph.loop(graph.const(0), graph.const(math.prod(shape[:-1])), graph.const(1),
                           [out], rows.invariants, rows.graph)
    return result


def _gather_symbolic(graph: Graph, array: ArrayVariable, axes: list[Axis], shape: tuple,
                     positions: list[Value]) -> WindowVariable:
    source = array.value
    total, lengths = _symbolic_extent(graph, shape)
    out = graph.full(shape, False if source.dtype == np.bool_ else 0, source.dtype)
    body = graph.region("loop")
    flat_index = body.add_input(np.int64, (), weak=True)
    acc = body.add_input(out.dtype, shape)
    inner_source = body.add_input(source.dtype, source.shape)
    inner_positions = [body.add_input(p.dtype, (), weak=p.weak) for p in positions]
    inner_lengths = [body.add_input(n.dtype, (), weak=n.weak) for n in lengths]
    coords = _symbolic_coords(body, flat_index, inner_lengths)
    element = body.op("load", [inner_source, *_array_indices(body, axes, coords,
                                                             inner_positions)])
    body.set_outputs([body.const(True, weak=False), body.op("store", [acc, element, *coords])])
    (result,) = graph.loop(graph.const(0), total, graph.const(1), [out],
                           [source, *positions, *lengths], body)
    return WindowVariable(result, array)


def row_axes(shape: tuple[int | str, ...], index: Value) -> list[Axis]:
    """The axes of `array[index]`, a whole row of an n-d array (`for row in X`)."""
    if any(isinstance(size, str) for size in shape[1:]):
        raise graph_break("loop_body", what="iteration over the rows of an array of symbolic "
                                            "shape")
    if 0 in shape[1:]:
        raise graph_break("loop_body", what="iteration over empty rows")
    return [Axis(at=index), *[Axis(length=size) for size in shape[1:]]]


def _numbers_row(tx: Interpreter, value: VariableTracker, dtype: np.dtype
                 ) -> vectors.VectorVariable | None:
    """`stack[top] = lo, hi, eps`: a tuple or list of numbers as the short row NumPy makes
    of it, each converted to the array's type as NumPy converts it; None for anything else."""
    from ember.capture.loops import python_checks
    from ember.capture.variables.containers import ListVariable, TupleVariable
    from ember.capture.variables.scalar import PythonScalarVariable

    if not isinstance(value, (TupleVariable, ListVariable)):
        return None
    elements = []
    for item in value.items:
        if isinstance(item, ArrayVariable) and item.value.shape == ():
            element = item.value
        elif isinstance(item, PythonScalarVariable):
            element = item.graph_value()
        elif isinstance(item, ConstantVariable) and type(item.constant()) in (bool, int, float):
            element = tx.graph.const(item.constant())
        else:
            return None
        elements.append(python_checks.storable(tx, dtype, element))
    return vectors.VectorVariable(elements, None)


def scatter(tx: Interpreter, array: ArrayVariable, axes: list[Axis],
            value: VariableTracker) -> None:
    """`array[index] = value`: the value broadcast to the window and stored element by
    element, as NumPy copies it into the view."""
    from ember.capture.variables.scalar import PythonScalarVariable

    if not (array.is_fresh(tx) or array.is_mutable_input(tx)):
        raise graph_break("inplace", name=array.describe())
    from ember.capture.loops import window_exprs

    if not is_symbolic(axes) and window_exprs.store(tx, array, axes, value):
        return
    graph, target = tx.graph, array.value
    shape = _shape(axes)
    positions = runtime(axes)
    if is_symbolic(axes):
        _scatter_symbolic(tx, array, axes, shape, positions, value)
        return
    value = _numbers_row(tx, value, target.dtype) or value
    if isinstance(value, vectors.VectorVariable) and len(shape) == 1 and len(
            value.elements) == shape[0]:
        for k, element in enumerate(value.elements):
            index = _element_indices(graph, axes, k, shape, positions)
            target = graph.op("store", [target, element, *index])
        array.update_in_place(target)
        if array.source is not None:
            tx.tracer.mark_mutated(array)
        return
    if isinstance(value, vectors.VectorVariable):
        value = vectors.materialise(tx, value)
    if isinstance(value, ArrayVariable):
        new = value.value
    elif isinstance(value, PythonScalarVariable):
        new = value.graph_value()
    elif isinstance(value, ConstantVariable) and type(value.constant()) in (bool, int, float):
        constant = value.constant()
        if type(constant) is int and target.dtype.kind in "iu" and not (
                np.iinfo(target.dtype).min <= constant <= np.iinfo(target.dtype).max):
            raise graph_break("loop_body", what=f"Python int {constant} out of the bounds of "
                                                f"{target.dtype}")
        new = graph.const(constant)
    else:
        raise graph_break("loop_body", what=f"assigning {value.describe()} to a slice at a "
                                            "run-time index")
    while new.ndim > len(shape) and new.shape[0] == 1:
        new = graph.op("squeeze", [new], axis=[0])
    if tuple(new.shape) != shape:
        try:
            np.broadcast_shapes(tuple(new.shape), shape)
            if np.broadcast_shapes(tuple(new.shape), shape) != shape:
                raise ValueError
        except ValueError:
            raise graph_break("loop_body", what=f"assigning {new.type_str} to a slice of "
                                                f"shape {shape}") from None
        new = graph.op("broadcast_to", [new], shape=shape)
    total = math.prod(shape)
    if total <= _UNROLLED_ELEMENTS:
        for flat in range(total):
            element = graph.op("load", [new, *_const_coords(graph, flat, shape)])
            target = graph.op("store", [target, element,
                                        *_element_indices(graph, axes, flat, shape, positions)])
    else:
        body = graph.region("loop")
        flat_index = body.add_input(np.int64, (), weak=True)
        acc = body.add_input(target.dtype, target.shape)
        inner = body.add_input(new.dtype, new.shape)
        inner_positions = [body.add_input(p.dtype, (), weak=p.weak) for p in positions]
        coords = _coords(body, flat_index, shape)
        element = body.op("load", [inner, *coords])
        stored = body.op("store", [acc, element, *_array_indices(body, axes, coords,
                                                                 inner_positions)])
        body.set_outputs([body.const(True, weak=False), stored])
        (target,) = graph.loop(graph.const(0), graph.const(total), graph.const(1),
                               [target], [new, *positions], body)
    array.update_in_place(target)
    if array.source is not None:
        tx.tracer.mark_mutated(array)


def _scatter_symbolic(tx: Interpreter, array: ArrayVariable, axes: list[Axis], shape: tuple,
                      positions: list[Value], value: VariableTracker) -> None:
    """`out[:, i] = z` along an axis of symbolic size: one loop op over the window's
    elements, the value an array of the window's shape or a number (NumPy's broadcasting
    of anything else is refused)."""
    from ember.capture.variables.scalar import PythonScalarVariable

    graph, target = tx.graph, array.value
    if isinstance(value, vectors.VectorVariable):
        value = vectors.materialise(tx, value)
    if isinstance(value, ArrayVariable):
        new = value.value
    elif isinstance(value, PythonScalarVariable):
        new = value.graph_value()
    elif isinstance(value, ConstantVariable) and type(value.constant()) in (bool, float) or (
            type(value.constant()) is int and (target.dtype.kind not in "iu" or np.iinfo(
                target.dtype).min <= value.constant() <= np.iinfo(target.dtype).max)):
        new = graph.const(value.constant())
    else:
        raise graph_break("loop_body", what=f"assigning {value.describe()} to a slice of "
                                            "symbolic size at a run-time index")
    while new.ndim > len(shape) and new.shape[0] == 1:
        new = graph.op("squeeze", [new], axis=[0])
    if new.ndim and tuple(new.shape) != tuple(shape):
        raise graph_break("loop_body", what=f"assigning {new.type_str} to a slice of shape "
                                            f"{shape} at a run-time index")
    total, lengths = _symbolic_extent(graph, shape)
    body = graph.region("loop")
    flat_index = body.add_input(np.int64, (), weak=True)
    acc = body.add_input(target.dtype, target.shape)
    inner_new = body.add_input(new.dtype, new.shape, weak=new.weak)
    inner_positions = [body.add_input(p.dtype, (), weak=p.weak) for p in positions]
    inner_lengths = [body.add_input(n.dtype, (), weak=n.weak) for n in lengths]
    coords = _symbolic_coords(body, flat_index, inner_lengths)
    element = body.op("load", [inner_new, *coords]) if new.ndim else inner_new
    stored = body.op("store", [acc, element, *_array_indices(body, axes, coords,
                                                             inner_positions)])
    body.set_outputs([body.const(True, weak=False), stored])
    (target,) = graph.loop(graph.const(0), total, graph.const(1), [target],
                           [new, *positions, *lengths], body)
    array.update_in_place(target)
    if array.source is not None:
        tx.tracer.mark_mutated(array)


def dead_at(tx: Interpreter, starts: tuple[int, ...]) -> set[int]:
    """The ids of the windows held only by locals that no path of a branch starting at
    `starts` reads before binding them again (`ix = Ix[i - r:i + r + 1, j - r:j + r + 1]`
    summed before an `if`): no path sees them, so none needs a copy standing for the view."""
    from ember.capture.resume import live_locals_at

    held = {id(vt) for vt in tx.locals.values() if isinstance(vt, WindowVariable)}
    if not held:
        return set()
    live = {name for start in starts
            for name in live_locals_at(tx.code, tx.instructions[start].offset)}
    varnames = set(tx.code.co_varnames)
    for name, vt in tx.locals.items():
        if name in live or name not in varnames:
            held.discard(id(vt))
    for vt in [*tx.stack, *(cell.contents for cell in tx.cells.values())]:
        held.discard(id(vt))
    return held
