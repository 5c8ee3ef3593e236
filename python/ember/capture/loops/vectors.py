"""Short 1-d windows as vectors of 0-d values: `d = pos[i] - pos[j]`, `np.sum(d * d)`,
`forces[i] += f` in a loop body compute element by element, on registers, instead of as
arrays of three elements (each array op in a native loop body costs an array's set-up).

A vector holds one 0-d graph value per element. Elementwise operators and ufuncs apply to
each element with NumPy's own rules (0-d values promote as 1-d arrays do); `sum`, `dot`,
`@` and constant indexing reduce or pick; assigning one to a window scatters its elements.
Anything else (a NumPy function ember has no per-element rule for) gets the vector as an
array, built element by element. A vector gathered from an array stands for NumPy's view
exactly as a window does (`loops/windows.py`): it refuses to be updated in place and to be
read after its array changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ember import numpy_api
from ember.capture.breaks import graph_break
from ember.capture.loops.elements import element_at
from ember.capture.variables.array import ArrayVariable, call_numpy_api
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.graph import Graph, Value
from ember.graph.graph import array_math

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

# Windows up to this length become vectors.
MAX_LENGTH = 8
_REDUCTIONS = {np.sum: "+", np.prod: "*", np.max: "max", np.min: "min"}


class VectorVariable(VariableTracker):
    """A 1-d array of `len(elements)` elements, each a 0-d value of one dtype."""

    def __init__(self, elements: list[Value], base: ArrayVariable | None = None) -> None:
        self._elements = elements
        self.base = base
        self.base_value = base.value if base is not None else None

    @property
    def elements(self) -> list[Value]:
        if self.base is not None and self.base.value is not self.base_value:
            raise graph_break("loop_body", what="a row or slice at a run-time index read "
                                                "after its array changed")
        return self._elements

    @property
    def dtype(self) -> np.dtype:
        return self._elements[0].dtype

    def describe(self) -> str:
        return f"an array {self.dtype}[{len(self._elements)}]"

    def type_name(self) -> str:
        return "ndarray"

    def python_type(self) -> type:
        return np.ndarray

    def length(self, tx: Interpreter) -> int:
        return len(self._elements)

    def unpack(self, tx: Interpreter) -> list[VariableTracker]:
        return [ArrayVariable(v) for v in self.elements]

    def getitem(self, tx: Interpreter, index: VariableTracker) -> VariableTracker:
        if isinstance(index, ConstantVariable) and type(index.constant()) is int:
            k, n = index.constant(), len(self._elements)
            if -n <= k < n:
                return ArrayVariable(self.elements[k])
        return materialise(tx, self).getitem(tx, index)

    def setitem(self, tx: Interpreter, index: VariableTracker, value: VariableTracker) -> None:
        raise graph_break("loop_body", what="item assignment to a row at a run-time index "
                                            "(it must reach the array it views)")

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        if name in ("sum", "prod", "max", "min"):
            return _MethodVariable(self, getattr(np, name))
        if name == "dot":
            return _MethodVariable(self, np.dot)
        if name in ("argmin", "argmax"):
            return _ArgMethodVariable(self, getattr(np, name))
        if name in ("shape", "size", "ndim", "dtype"):
            return ConstantVariable({"shape": (len(self._elements),), "ndim": 1,
                                     "size": len(self._elements), "dtype": self.dtype}[name])
        return materialise(tx, self).getattr(tx, name)


class _MethodVariable(VariableTracker):
    def __init__(self, vector: VectorVariable, fn: Any) -> None:
        self.vector = vector
        self.fn = fn

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        found = numpy_call(tx, self.fn, None, [self.vector, *args], kwargs)
        assert found is not None
        return found


class _ArgMethodVariable(_MethodVariable):
    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        from ember.capture.loops import small_extrema

        if not args:
            found = small_extrema.arg_extremum(tx, self.fn, [self.vector], kwargs)
            if found is not None:
                return found
        return materialise(tx, self.vector).getattr(tx, self.fn.__name__).call(tx, args, kwargs)


def gather(graph: Graph, array: ArrayVariable, indices: list[list[Value]]) -> VectorVariable:
    """A vector of `array`'s elements at `indices` (one index list per element)."""
    return VectorVariable([element_at(graph, array.value, index) for index in indices], array)


def materialise(tx: Interpreter | None, vector: VectorVariable) -> ArrayVariable:
    """The vector as a new array of the graph."""
    elements = vector.elements
    graph = elements[0].graph
    out = graph.full((len(elements),), False if vector.dtype == np.bool_ else 0, vector.dtype)
    for k, element in enumerate(elements):
        out = graph.op("store", [out, element, graph.const(k)])
    return ArrayVariable(out)


def _per_element(tx: Interpreter, operands: list[VariableTracker]
                 ) -> list[list[object]] | None:
    """The operands of each element's op: a vector's k-th element, a 0-d value or a Python
    number as is. None when an operand is of another kind (an n-d array)."""
    from ember.capture.operators import _operand

    length = {len(v.elements) for v in operands if isinstance(v, VectorVariable)}
    if len(length) != 1:
        return None  # vectors of different lengths: NumPy's broadcasting error, in NumPy
    n = length.pop()
    columns: list[list[object]] = []
    for vt in operands:
        if isinstance(vt, VectorVariable):
            columns.append(list(vt.elements))
        elif isinstance(vt, ArrayVariable) and not vt.value.shape:
            columns.append([vt.value] * n)
        elif isinstance(vt, ArrayVariable) and tuple(vt.value.shape) in ((n,), (1,)):
            # A 1-d array of the vector's length (`C[j]` of an unrolled loop), or one element
            # broadcast.
            graph = vt.value.graph
            picks = [graph.const(k if vt.value.shape[0] == n else 0) for k in range(n)]
            columns.append([element_at(graph, vt.value, [k]) for k in picks])
        elif not isinstance(vt, ArrayVariable) and vt.python_type() in (bool, int, float):
            columns.append([_operand(vt)] * n)
        else:
            return None
    return [list(row) for row in zip(*columns, strict=True)]


def _vector(results: list[Any]) -> VectorVariable | None:
    if all(isinstance(r, Value) and not r.shape and not r.weak for r in results) and len(
            {r.dtype for r in results}) == 1:
        return VectorVariable(results)
    return None


def binary(tx: Interpreter, op: str, a: VariableTracker, b: VariableTracker, *,
           inplace: bool, stored_back: bool, compare: bool = False) -> VariableTracker | None:
    """`a op b` with a vector operand; None when neither is one."""
    if not (isinstance(a, VectorVariable) or isinstance(b, VectorVariable)):
        return None
    if inplace and not stored_back:
        if isinstance(a, VectorVariable) and not _sole_owner(tx, a):
            # `f += 1` on a row must reach its array; on a computed vector it would be seen
            # by its aliases. Neither is a per-element rebinding.
            raise graph_break("loop_body", what="an in-place update of a short row")
        if not isinstance(a, VectorVariable):
            return _update_array(tx, op, a, b)  # `w += lr * X[i]`
    rows = _per_element(tx, [a, b])
    if rows is None:
        result = _materialised(tx, [a, b], lambda x, y: _apply_operator(tx, op, x, y, compare))
        if inplace and isinstance(a, VectorVariable) and isinstance(result, ArrayVariable):
            from ember.capture.operators import check_same_kind

            # `a[i:i + 1] += np.float32(1)` into bools: NumPy's `out=` casting rule raises.
            check_same_kind(result.value.dtype, a.elements[0].dtype)
        return result
    fn = numpy_api.compare_op if compare else numpy_api.binary_op
    with tx.graph.one_call(), array_math():
        results = [call_numpy_api(f"operator {op}", fn, tx.graph, op, x, y) for x, y in rows]
    if inplace and isinstance(a, VectorVariable):  # `row op= y` is the ufunc with `out=row`
        from ember.capture.operators import check_same_kind

        for result, element in zip(results, a.elements, strict=True):
            check_same_kind(result.dtype, element.dtype)
    vector = _vector(results)
    if vector is None:
        raise graph_break("loop_body", what=f"operator {op} on a short row")
    if inplace and not stored_back:
        # A computed vector one local alone holds (`scores -= np.max(scores)` after
        # `scores = X[i].dot(W)`): its elements updated where it stands.
        assert isinstance(a, VectorVariable)
        a._elements = [r if r.dtype == e.dtype else tx.graph.op("astype", [r], dtype=e.dtype)
                       for r, e in zip(vector._elements, a._elements, strict=True)]
        return a
    return vector


def _sole_owner(tx: Interpreter, vector: VectorVariable) -> bool:
    """`vector` views no array, was computed in this graph, and one local alone holds it
    (no other local, stack item, cell or container), so updating it in place is seen
    through that local only, as NumPy's update of the array would be."""
    if vector.base is not None or any(e.graph is not tx.graph for e in vector._elements):
        return False
    held = [*tx.locals.values(), *tx.stack, *(cell.contents for cell in tx.cells.values())]
    if sum(vt is vector for vt in held) != 1:
        return False
    pending = [vt for vt in held if vt is not vector]
    while pending:
        vt = pending.pop()
        if vt is vector:
            return False
        items = getattr(vt, "items", None)
        if isinstance(items, (list, tuple)):
            pending.extend(i for i in items if isinstance(i, VariableTracker))
    return True


def _update_array(tx: Interpreter, op: str, a: VariableTracker, b: VariableTracker
                  ) -> VariableTracker | None:
    """`w += lr * X[i]`: a 1-d array of the vector's length, the frame's own or a carried
    one, updated element by element with loads and stores (which a branch of a loop body
    computes natively, where an array op could not run); None for anything else (`total
    += row` broadcasting into rows), which updates it as an array."""
    assert isinstance(b, VectorVariable)
    n = len(b.elements)
    if not (isinstance(a, ArrayVariable) and tuple(a.value.shape) == (n,)
            and not a.value.weak and (a.is_fresh(tx) or a.is_mutable_input(tx))):
        return None
    rows = _per_element(tx, [a, b])
    assert rows is not None
    graph = tx.graph
    with array_math():
        results = [call_numpy_api(f"operator {op}=", numpy_api.binary_op, graph, op, x, y)
                   for x, y in rows]
    dtype = a.value.dtype
    if not all(np.can_cast(r.dtype, dtype, "same_kind") for r in results):
        return None  # NumPy's casting error, raised by the array path
    new = a.value
    for k, r in enumerate(results):
        cast = r if r.dtype == dtype else graph.op("astype", [r], dtype=dtype)
        new = graph.op("store", [new, cast, graph.const(k)])
    a.update_in_place(new)
    if a.source is not None:
        tx.tracer.mark_mutated(a)
    return a


def _apply_operator(tx: Interpreter, op: str, a: VariableTracker, b: VariableTracker,
                    compare: bool) -> VariableTracker:
    from ember.capture import operators

    if compare:
        return operators.compare_op(tx, op, a, b)
    return operators.binary_op(tx, op, a, b)


def _materialised(tx: Interpreter, operands: list[VariableTracker], fn: Any) -> Any:
    return fn(*[materialise(tx, v) if isinstance(v, VectorVariable) else v for v in operands])


def unary(tx: Interpreter, op: str, a: VectorVariable) -> VariableTracker:
    if op == "not":
        raise graph_break("loop_body", what="the truth value of a short row")
    with tx.graph.one_call():
        if op == "abs":
            handler = numpy_api.lookup_function(np.absolute)
            results = [call_numpy_api("abs()", handler, tx.graph, x) for x in a.elements]
        else:
            results = [call_numpy_api(f"operator {op}", numpy_api.unary_op, tx.graph, op, x)
                       for x in a.elements]
    vector = _vector(results)
    if vector is None:
        raise graph_break("loop_body", what=f"operator {op} on a short row")
    return vector


def numpy_call(tx: Interpreter, fn: Any, handler: Any, args: list[VariableTracker],
               kwargs: dict[str, VariableTracker]) -> VariableTracker | None:
    """`np.fn(*args)` with a vector argument; None when no argument is one."""
    if not any(isinstance(a, VectorVariable) for a in [*args, *kwargs.values()]):
        return None
    if fn in (np.nonzero, np.where) and len(args) == 1:
        return None  # index arrays of a length only the data knows: `variables/nonzero.py`
    graph = tx.graph
    if fn in _REDUCTIONS and len(args) == 1 and not kwargs:
        with graph.one_call():
            return ArrayVariable(_fold(tx, _REDUCTIONS[fn], args[0].elements))  # type: ignore[attr-defined]
    if fn in (np.dot, np.matmul) and len(args) == 2 and not kwargs:
        found = matmul(tx, args[0], args[1])
        if found is None:
            from ember.capture.loops import small_products

            found = small_products.matmul(tx, args[0], args[1])  # `np.dot(pos[i], R)`
        if found is not None:
            return found
    if isinstance(fn, np.ufunc) and handler is not None and not kwargs:
        rows = _per_element(tx, args)
        if rows is not None:
            with graph.one_call():
                results = [call_numpy_api(f"np.{fn.__name__}", handler, graph, *row)
                           for row in rows]
            vector = _vector(results)
            if vector is not None:
                return vector
    from ember.capture.variables.array import wrap_api_result

    materialised = [materialise(tx, a) if isinstance(a, VectorVariable) else a for a in args]
    if handler is None:
        raise graph_break("loop_body", what=f"np.{getattr(fn, '__name__', fn)} of a short row")
    from ember.capture.variables.array import to_api

    return wrap_api_result(call_numpy_api(
        f"np.{getattr(fn, '__name__', fn)}", handler, graph, *[to_api(a) for a in materialised],
        **{k: to_api(v) for k, v in kwargs.items()}))


def matmul(tx: Interpreter, a: VariableTracker, b: VariableTracker) -> VariableTracker | None:
    """`a @ b` of a vector and a vector or 1-d array (`X[i] @ w`, `X[i].dot(w)` of a
    sample and the weights); None for other operands."""
    vector = a if isinstance(a, VectorVariable) else b
    if not isinstance(vector, VectorVariable):
        return None
    pair = [_as_vector(v, len(vector.elements)) for v in (a, b)]
    if pair[0] is None or pair[1] is None:
        return None
    return _dot(tx, pair[0], pair[1])


def _as_vector(vt: VariableTracker, n: int) -> VectorVariable | None:
    """A vector, or a 1-d array of `n` elements read element by element now."""
    if isinstance(vt, VectorVariable):
        return vt
    if isinstance(vt, ArrayVariable) and tuple(vt.value.shape) == (n,):
        graph = vt.value.graph
        return VectorVariable([element_at(graph, vt.value, [graph.const(k)]) for k in range(n)])
    return None


def _dot(tx: Interpreter, a: VectorVariable, b: VectorVariable) -> VariableTracker:
    if len(a.elements) != len(b.elements):
        raise graph_break("loop_body", what="a product of rows of different lengths")
    with tx.graph.one_call():
        products = []
        for x, y in zip(a.elements, b.elements, strict=True):
            with array_math():
                products.append(call_numpy_api("np.dot", numpy_api.binary_op, tx.graph, "*",
                                               x, y))
            tx.graph.warns_as(products[-1], "dot")
        return ArrayVariable(_fold(tx, "+", products, "dot"))


def _fold(tx: Interpreter, op: str, elements: list[Value], name: str = "reduce") -> Value:
    """NumPy's reduction of the elements, in order (within rounding of its pairwise sum),
    in the dtype `np.sum`/`np.prod`/`np.max`/`np.min` give; its warnings name `name` (the
    ufunc's "reduce", or "dot"), as NumPy's do."""
    graph = tx.graph
    dtype = elements[0].dtype
    if op in ("+", "*"):
        reduced = (np.sum if op == "+" else np.prod)(np.zeros(1, dtype)).dtype
        if reduced != dtype:
            elements = [graph.op("astype", [e], dtype=reduced) for e in elements]
    if op == "+" and name == "reduce" and len(elements) == 8:
        # NumPy's pairwise sum adds eight elements as a tree (fewer in order): its rounding,
        # and the flags it raises (`inf + -inf` met only in the tree), are the tree's.
        while len(elements) > 1:
            pairs = []
            for x, y in zip(elements[::2], elements[1::2], strict=True):
                with array_math():
                    pairs.append(numpy_api.binary_op(graph, op, x, y))
                graph.warns_as(pairs[-1], name)
            elements = pairs
        return elements[0]
    total = elements[0]
    for element in elements[1:]:
        if op in ("+", "*"):
            with array_math():
                total = numpy_api.binary_op(graph, op, total, element)
            graph.warns_as(total, name)
        else:
            total = graph.op("maximum" if op == "max" else "minimum", [total, element])
    return total

