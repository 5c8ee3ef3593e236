"""Products of a row and a small matrix in a loop body: `scores = X[i].dot(W)`, `np.dot(x[i],
W)`, `v @ W` with `W` of static shape and at most `vectors.MAX_LENGTH` columns.

The result is a vector (`loops/vectors.py`): one 0-d value per element, each a sum of
products folded as the elements are loaded (straight-line for at most
`windows._UNROLLED_ELEMENTS` terms, else one inner loop op carrying every element's sum, so
each element of the row is loaded once), instead of a `matmul` array op, whose set-up on
every trip makes the whole body a graph run per trip. The row may be a vector, a lazy window
(`X[i]` of more than eight elements), window arithmetic, or a 1-d array of the body; the
matrix an array of the body or a lazy window. The sums are of NumPy's `matmul` dtype and run
in order, as BLAS's `gemv` of a row and a matrix accumulates them (within float rounding).
A matrix times a row (`W @ h`) keeps the array op (which the optimiser may write out element
by element for short rows: `passes/scalarize.rs`): BLAS sums its dot products in another
order, whose last bits a data-dependent stopping test can see (the iteration count of a
BFGS loop). Bool and
complex operands, and products of more than `_MAX_TERMS` terms, where the extern kernel's
speed pays for its set-up, keep the array op too."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ember import numpy_api
from ember.capture.loops import vectors, windows
from ember.capture.loops.run_exprs import _Body, _Nested
from ember.capture.loops.window_exprs import LazyWindowVariable, WindowExprVariable
from ember.capture.loops.window_reductions import _folded, _Inline
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.graph import Value
from ember.graph.graph import array_math

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

# Terms (rows times columns) past which the `matmul` op stays.
_MAX_TERMS = 4096

# The element of an operand at (body, coordinates): ints where the sums are straight-line.
Getter = Callable[[_Body, list[Value | int]], Value]


def matmul(tx: Interpreter, a: VariableTracker, b: VariableTracker) -> VariableTracker | None:
    """`a @ b` (and `np.dot`, `a.dot(b)`) of a row and a small matrix in a loop body, as a
    vector; None for other operands (the array op runs them)."""
    if tx.graph.parent is None:
        return None
    row, matrix = _operand(a, 1), _operand(b, 2)
    if row is None or matrix is None:
        return None
    (n,), row_at, row_dtype = row
    shape, matrix_at, matrix_dtype = matrix
    inner, outer = shape
    if n != inner or not 0 < outer <= vectors.MAX_LENGTH or n * outer > _MAX_TERMS or n == 0:
        return None  # NumPy's error for mismatched lengths comes from the array op
    dtype = np.result_type(row_dtype, matrix_dtype)
    if dtype.kind not in "iuf":
        return None
    for operand in (a, b):
        check = getattr(operand, "check", None)
        if check is not None:
            check()  # NumPy reads the view now

    def term(body: _Body, k: Value | int, j: int) -> Value:
        x = row_at(body, [k])
        y = matrix_at(body, [k, j])
        with array_math():
            return numpy_api.binary_op(body.graph, "*", x, y)

    with tx.graph.one_call():
        return vectors.VectorVariable(_sums(tx, n, outer, term, dtype))


def _sums(tx: Interpreter, n: int, m: int, term: Callable[[_Body, Value | int, int], Value],
          dtype: np.dtype) -> list[Value]:
    """For each `j < m` the sum over `k < n` of `term(k, j)`, in `dtype`."""
    g = tx.graph
    top = _Inline(g)
    if n <= windows._UNROLLED_ELEMENTS:
        sums = [g.const(dtype.type(0))] * m
        for k in range(n):
            for j in range(m):
                sums[j] = _folded(g, "add", sums[j], term(top, k, j), dtype)
        return sums
    region = g.region("loop")
    k = region.add_input(np.int64, (), weak=True)
    carried = [region.add_input(dtype, (), scalar=True) for _ in range(m)]
    body = _Nested(region, top)
    new = [_folded(region, "add", carried[j], term(body, k, j), dtype)
           for j in range(m)]
    region.set_outputs([region.const(True, weak=False), *new])
    return g.loop(g.const(0), g.const(n), g.const(1), [g.const(dtype.type(0))] * m,
                  body.invariants, region)


def _operand(vt: VariableTracker, ndim: int
             ) -> tuple[tuple[int, ...], Getter, np.dtype] | None:
    """The static shape, element getter and dtype of an operand of `ndim` dimensions."""
    if isinstance(vt, vectors.VectorVariable):
        if ndim != 1:
            return None
        elements = vt.elements

        def pick(body: _Body, coords: list[Value | int]) -> Value:
            assert isinstance(coords[0], int)  # at most eight elements: straight-line
            return elements[coords[0]]

        return (len(elements),), pick, vt.dtype
    if isinstance(vt, (LazyWindowVariable, WindowExprVariable)):
        shape = tuple(vt.shape)
        if len(shape) != ndim:
            return None
        if isinstance(vt, LazyWindowVariable):
            dtype = vt.base_value.dtype
        else:
            dtype = vt.dtype
        at = vt.at

        def element(body: _Body, coords: list[Value | int]) -> Value:
            return at(body, _values(body, coords))

        return shape, element, np.dtype(dtype)
    from ember.capture.loops.region import BodyArray
    from ember.capture.variables.views import SliceView

    if type(vt) not in (ArrayVariable, BodyArray, SliceView):
        return None
    value = vt.value
    shape = value.shape
    if len(shape) != ndim or not all(isinstance(d, int) for d in shape):
        return None

    def load(body: _Body, coords: list[Value | int]) -> Value:
        return body.graph.op("load", [body.outer(value), *_values(body, coords)])

    return tuple(shape), load, np.dtype(value.dtype)


def _values(body: _Body, coords: list[Value | int]) -> list[Value]:
    return [body.graph.const(c) if isinstance(c, int) else c for c in coords]
