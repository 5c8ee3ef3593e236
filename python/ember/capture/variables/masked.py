"""`x[mask]` for a boolean array `mask`: a selection whose length only the data knows.

It never becomes an array of the graph. It is kept as the array's values in their places
(unselected places hold 1, so that arithmetic on them raises no floating-point flag) and the
mask, and what users do with a selection is expressed on those: arithmetic with scalars or
with one value per selected row (`x[m] * 2`, `x[m] += v`), reductions (`x[m].sum()`,
`np.mean(x[m])`, `x[m].max(axis=0)`: the unselected places replaced by the reduction's
identity; elementwise ufuncs that raise no flag at 1, `np.maximum(x[m], 1e-12)`,
`np.log(x[m])`, computed with 1 in the unselected places; `var`/`std` as NumPy's two passes, the deviations of unselected places zero; `np.median` of a 1-d float64 selection), assignment back through the same mask (`x[m] = x[m] * 2`: `where`), gathers at a
selection of integers (`table[idx[m]]`, a selection under `m`), products of selected rows
(`X[m].T @ X[m]`, an array of a known shape; `X[m] @ w`, a selection under `m`), and its
length (`len(x[m])`, `.shape`, `.size`: a Python int counted from the mask, as for
`np.nonzero`). Anything else (indexing it, passing it to other functions) is a graph break."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ember import numpy_api
from ember.capture.breaks import graph_break
from ember.capture.variables.array import ArrayVariable, call_numpy_api, to_api
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.capture.variables.containers import TupleVariable
from ember.graph import Graph, Value
from ember.graph.ops import OPS
from ember.graph.value import Node
from ember.numpy_api.convert import as_numpy_scalar
from ember.numpy_api.counting import nonzero_count
from ember.numpy_api.scalars import numbers_in_graph

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

_REDUCTIONS = ("sum", "prod", "max", "min", "any", "all", "mean", "var", "std")
_ARITHMETIC = ("+", "-", "*", "/", "//", "%", "**", "&", "|", "^")
# Ops whose result depends on nothing but their operands and attributes.
_PURE_KINDS = ("elementwise", "creation", "reduction", "shape")


def _refuse(what: str) -> Exception:
    if not numbers_in_graph.get():
        # Differentiating: at the break the selection would be made in Python, where its
        # values carry no gradient. A NumPy refusal makes that a clear error instead.
        return graph_break("numpy", reason=f"{what} of a boolean-mask selection")
    return graph_break("data_dependent_value", what=f"{what} of a boolean-mask selection")


class MaskedVariable(VariableTracker):
    """`array[mask]`: `values` has the array's shape, `mask` its leading axes."""

    def __init__(self, values: Value, mask: Value) -> None:
        self.values = values
        self.mask = mask

    def type_name(self) -> str:
        return "ndarray"

    def python_type(self) -> type:
        return np.ndarray

    def describe(self) -> str:
        return "a boolean-mask selection (of a length only the data knows)"

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        if name in _REDUCTIONS:
            return MaskedMethodVariable(self, name)
        if name == "T" and self.mask.ndim == 1 and self.values.ndim <= 2:
            return self if self.values.ndim == 1 else MaskedTransposeVariable(self)
        if name == "dtype":
            return ConstantVariable(self.values.dtype)
        if name == "astype":
            from ember.capture.variables.prefixes import SelectionAstype

            return SelectionAstype(self)
        if name == "ndim":
            return ConstantVariable(1 + self.values.ndim - self.mask.ndim)
        if name == "shape":
            rows = self.values.shape[self.mask.ndim:]
            return TupleVariable([self.len_variable(tx), *map(ConstantVariable, rows)])
        if name == "size":
            row = int(np.prod(self.values.shape[self.mask.ndim:]))
            count = self.count(tx.graph)
            if row != 1:
                count = tx.graph.op("mul", [count, tx.graph.const(row, weak=True)])
            return ArrayVariable(count)
        raise _refuse(f".{name}")

    def length(self, tx: Interpreter) -> int:
        raise _refuse("len()")

    def len_variable(self, tx: Interpreter) -> VariableTracker:
        """`len(x[m])`: how many places the mask selects, a Python int."""
        return ArrayVariable(self.count(tx.graph))

    def count(self, graph: Graph) -> Value:
        """The number of selected rows as a Python int (weak `int64[]`)."""
        count = nonzero_count(graph, self.mask)
        return graph.op("astype", [count], dtype=np.dtype(np.int64), weak=True)

    def getitem(self, tx: Interpreter, index: VariableTracker) -> VariableTracker:
        if (index.is_constant() and type(index.constant()) is int
                and self.values.ndim == self.mask.ndim and self.mask.size
                and not any(isinstance(d, str) for d in self.mask.shape)):
            return ArrayVariable(element(tx.graph, self, index.constant()))
        raise _refuse("indexing")

    def selected(self, graph: Graph, fill: object) -> Value:
        """The values, `fill` in every unselected place."""
        return graph.op("where", [self.spread(graph), self.values,
                                  graph.const(self.values.dtype.type(fill))])

    def spread(self, graph: Graph) -> Value:
        """The mask with size-1 axes for the array's trailing axes."""
        extra = self.values.ndim - self.mask.ndim
        if not extra:
            return self.mask
        return graph.op("reshape", [self.mask], shape=[*self.mask.shape, *[1] * extra])


class MaskedTransposeVariable(VariableTracker):
    """`x[m].T` of a 2-d selection of rows: only its product with a selection of the same
    rows is defined (`X[m].T @ X[m]`, `X[m].T @ y[m]`: normal equations on the rows a mask
    keeps), a sum over the selected rows, so an array of a known shape."""

    def __init__(self, selection: MaskedVariable) -> None:
        self.selection = selection

    def type_name(self) -> str:
        return "ndarray"

    def python_type(self) -> type:
        return np.ndarray

    def describe(self) -> str:
        return "the transpose of a boolean-mask selection"

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        if name == "T":
            return self.selection
        raise _refuse(f".T.{name}")


def _matmul(tx: Interpreter, a: VariableTracker, b: VariableTracker) -> VariableTracker:
    """`x[m].T @ y[m]`: the selected rows' products summed, the unselected rows zero, an
    array; `x[m] @ w` of a 2-d selection and a 1-d or 2-d array: one product per selected
    row, a selection under the same mask."""
    graph = tx.graph
    if isinstance(a, MaskedTransposeVariable) and isinstance(b, MaskedVariable):
        if b.mask.ndim != 1 or not same_mask(a.selection.mask, b.mask):
            raise _refuse("a product with another mask")
        left = graph.op("transpose", [a.selection.selected(graph, 0)], perm=[1, 0])
        return ArrayVariable(call_numpy_api("operator @", numpy_api.binary_op, graph, "@",
                                            left, b.selected(graph, 0)))
    if isinstance(a, MaskedVariable) and not isinstance(b, (MaskedVariable,
                                                            MaskedTransposeVariable)):
        w = to_api(b)
        if a.mask.ndim != 1 or a.values.ndim != 2 or not isinstance(w, Value) or \
                w.scalar or w.ndim not in (1, 2):
            raise _refuse("operator @")
        return MaskedVariable(call_numpy_api("operator @", numpy_api.binary_op, graph, "@",
                                             a.values, w), a.mask)
    raise _refuse("operator @")


def select(tx: Interpreter, array: ArrayVariable, mask: Value) -> MaskedVariable:
    """`array[mask]`, checking the mask's shape as NumPy does."""
    x = array.value
    if mask.ndim > x.ndim:
        raise IndexError(f"too many indices for array: array is {x.ndim}-dimensional, but "
                         f"{mask.ndim} were indexed")
    for axis, (m, d) in enumerate(zip(mask.shape, x.shape, strict=False)):
        if m != d:
            raise IndexError(f"boolean index did not match indexed array along axis {axis}; "
                             f"size of axis is {d} but size of corresponding boolean axis "
                             f"is {m}")
    selection = MaskedVariable(x, mask)
    one = True if x.dtype == np.bool_ else 1
    return MaskedVariable(selection.selected(tx.graph, one), mask)


def gather_selected(tx: Interpreter, array: ArrayVariable, index: MaskedVariable
                    ) -> MaskedVariable:
    """`a[idx[m]]`: the rows of `a` at a selection of integers, a selection under the same
    mask. The unselected places gather row 0 (holding 1 afterwards), so only the selected
    indices are checked against `a`'s length, as NumPy checks them."""
    idx = index.values
    if idx.dtype.kind not in "iu" or idx.ndim != index.mask.ndim or array.value.ndim == 0:
        raise _refuse("indexing with a selection that is not of integers")
    if array.value.shape[0] == 0:
        raise _refuse("indexing an empty array")
    graph = tx.graph
    safe = graph.op("where", [index.mask, idx, graph.const(idx.dtype.type(0))])
    rows = call_numpy_api("indexing with a selection", numpy_api.getitem, graph, array.value,
                          safe)
    return MaskedVariable(MaskedVariable(rows, index.mask).selected(
        graph, True if rows.dtype == np.bool_ else 1), index.mask)


def element(graph: Graph, selection: MaskedVariable, i: int | Value) -> Value:
    """`x[mask][i]`: the element where the running count of the mask first passes `i`
    (`count + i` for negative `i`; `i` a Python int or a run-time integer). Where no such
    element is selected the load reads past the end, so the graph raises and the frame
    reruns for NumPy's IndexError."""
    return _element(graph, selection, i, safe=False)[0]


def element_or_missing(graph: Graph, selection: MaskedVariable, i: int | Value
                       ) -> tuple[Value, Value]:
    """`element`'s value, reading the first element where there is no such element, and a
    0-d bool that holds where there is none (for whoever reads it to raise NumPy's
    IndexError then)."""
    read, found = _element(graph, selection, i, safe=True)
    return read, graph.op("logical_not", [found])


def _element(graph: Graph, selection: MaskedVariable, i: int | Value, safe: bool
             ) -> tuple[Value, Value]:
    size = int(np.prod(selection.mask.shape))
    mask = graph.op("reshape", [selection.mask], shape=[size])
    values = graph.op("reshape", [selection.values], shape=[size])
    ranks = graph.op("cumsum", [graph.op("astype", [mask], dtype=np.dtype(np.int64))], axis=0)
    count = graph.op("load", [ranks, graph.const(size - 1)])
    wanted = _wanted_rank(graph, count, i)
    place = graph.op("argmax", [graph.op("gt", [ranks, wanted])], axis=None, keepdims=False)
    found = graph.op("logical_and", [graph.op("ge", [wanted, graph.const(np.int64(0))]),
                                     graph.op("lt", [wanted, count])])
    missing = graph.const(0 if safe else size)
    read = graph.op("load", [values, graph.op("where", [found, place, missing])])
    return as_numpy_scalar(graph, read), found


def _wanted_rank(graph: Graph, count: Value, i: int | Value) -> Value:
    """The rank (from 0) of the selected element `i` names: negative ones count from the end."""
    if isinstance(i, int):
        return graph.op("add", [count, graph.const(np.int64(i))]) if i < 0 else graph.const(
            np.int64(i))
    i = graph.op("astype", [i], dtype=np.dtype(np.int64))
    negative = graph.op("lt", [i, graph.const(np.int64(0))])
    return graph.op("where", [negative, graph.op("add", [count, i]), i])


def same_mask(a: Value, b: Value, depth: int = 8) -> bool:
    """Whether two masks are one computation: `x[x > 0] = x[x > 0] ** -1.5` builds `x > 0`
    twice. Values never change, so the same pure op on the same operands (compared the same
    way, `depth` ops deep) gives the same mask."""
    if a is b:
        return True
    if depth == 0 or a.graph is not b.graph or (a.dtype, a.shape, a.weak, a.scalar) != (
            b.dtype, b.shape, b.weak, b.scalar):
        return False
    na, nb = _producer(a), _producer(b)
    if na is None or nb is None or na.op != nb.op or OPS[na.op].kind not in _PURE_KINDS:
        return False
    if len(na.inputs) != len(nb.inputs) or not _same_attrs(na, nb):
        return False
    return all(same_mask(x, y, depth - 1) for x, y in zip(na.inputs, nb.inputs, strict=True))


def _producer(value: Value) -> Node | None:
    """The node defining `value` (None for a graph input)."""
    return next((n for n in reversed(value.graph.nodes) if n.out is value), None)


def _same_attrs(a: Node, b: Node) -> bool:
    try:
        return bool(a.attrs == b.attrs)
    except (TypeError, ValueError):  # attributes that do not compare as one bool
        return False


def _operand(tx: Interpreter, vt: VariableTracker, mask: Value, rows: int) -> Any:
    """An operand that is the same for every selected element: a scalar, or an array of the
    shape of one selected row (broadcasting against the trailing axes)."""
    if isinstance(vt, MaskedVariable):
        if not same_mask(vt.mask, mask):
            raise _refuse("arithmetic with another mask")
        return vt.values
    value = to_api(vt)
    if isinstance(value, Value) and value.ndim > rows:
        raise _refuse("arithmetic with an array of one value per element")
    return value


def binary(tx: Interpreter, op: str, a: VariableTracker, b: VariableTracker
           ) -> VariableTracker:
    """`selection op other` (either side), a new selection under the same mask."""
    if op == "@":
        return _matmul(tx, a, b)
    masked = a if isinstance(a, MaskedVariable) else b
    assert isinstance(masked, MaskedVariable)
    if op not in _ARITHMETIC:
        raise _refuse(f"operator {op}")
    rows = masked.values.ndim - masked.mask.ndim
    left = _operand(tx, a, masked.mask, rows)
    right = _operand(tx, b, masked.mask, rows)
    result = call_numpy_api(f"operator {op}", numpy_api.binary_op, tx.graph, op, left, right)
    return MaskedVariable(result, masked.mask)


def unary(tx: Interpreter, op: str, selection: MaskedVariable) -> VariableTracker:
    """`-selection`, `+selection`, `~selection`, `abs(selection)`: a new selection under the
    same mask (none of them raises a flag for the unselected places)."""
    if op == "abs":
        result = call_numpy_api("abs()", numpy_api.lookup_function(np.absolute), tx.graph,
                                selection.values)
    else:
        result = call_numpy_api(f"operator {op}", numpy_api.unary_op, tx.graph, op,
                                selection.values)
    return MaskedVariable(result, selection.mask)


def compare(tx: Interpreter, op: str, a: VariableTracker, b: VariableTracker
            ) -> VariableTracker:
    masked = a if isinstance(a, MaskedVariable) else b
    assert isinstance(masked, MaskedVariable)
    rows = masked.values.ndim - masked.mask.ndim
    left = _operand(tx, a, masked.mask, rows)
    right = _operand(tx, b, masked.mask, rows)
    result = call_numpy_api(f"operator {op}", numpy_api.compare_op, tx.graph, op, left, right)
    return MaskedVariable(result, masked.mask)


class MaskedMethodVariable(VariableTracker):
    def __init__(self, selection: MaskedVariable, name: str) -> None:
        self.selection = selection
        self.name = name

    def describe(self) -> str:
        return f"{self.selection.describe()}.{self.name}"

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        return reduce(tx, self.name, self.selection, args, kwargs)


def reduce(tx: Interpreter, name: str, selection: MaskedVariable,
           args: list[VariableTracker], kwargs: dict[str, VariableTracker]) -> VariableTracker:
    """`selection.name(axis=None)` (`var`/`std` also with `ddof=`) over the selected
    elements."""
    allowed = {"axis", "ddof"} if name in ("var", "std") else {"axis"}
    if len(args) > 1 or set(kwargs) - allowed:
        raise _refuse(f".{name}() with arguments other than {' and '.join(sorted(allowed))}")
    ddof = to_api(kwargs["ddof"]) if "ddof" in kwargs else 0
    if not isinstance(ddof, int) or isinstance(ddof, bool):
        raise _refuse(f".{name}() with a ddof that is not a Python int")
    axis_vt = args[0] if args else kwargs.get("axis")
    axis = None if axis_vt is None else to_api(axis_vt)
    graph = tx.graph
    values = selection.values
    rows = values.ndim - selection.mask.ndim
    if axis is None:
        axes: list[int] | None = None
    elif isinstance(axis, int) and -(rows + 1) <= axis <= rows:
        axis %= rows + 1
        if axis:
            return _reduce_rows(tx, name, selection, axis + selection.mask.ndim - 1)
        axes = list(range(selection.mask.ndim))
    else:
        raise _refuse(f".{name}() with axis={axis!r}")
    dtype = values.dtype
    if name in ("var", "std"):
        return ArrayVariable(_scalar_result(graph, _variance(tx, selection, axes, ddof,
                                                             name == "std")))
    if name in ("max", "min"):
        _raise_if_empty(graph, selection)
        fill = _extreme(dtype, low=name == "max")
    else:
        fill = {"sum": -0.0 if dtype.kind == "f" else 0, "mean": -0.0 if dtype.kind == "f" else 0,
                "prod": 1, "any": False, "all": True}[name]
    filled = selection.selected(graph, fill)
    op = "sum" if name == "mean" else name
    if name == "mean" and dtype.kind in "biu":
        filled = graph.op("astype", [filled], dtype=np.dtype(np.float64))
    # (A graph without loop ops, one to differentiate, sums as before.)
    exact = _numpy_order_sum(graph, selection) if (
        op == "sum" and dtype.kind == "f" and axes is None and tx.tracer.loop_ops) else None
    result = exact if exact is not None else graph.op(op, [filled], axis=axes, keepdims=False)
    if name == "mean":
        spread = graph.op("broadcast_to", [selection.spread(graph)], shape=list(values.shape))
        count = graph.op("sum", [spread], axis=axes, keepdims=False)
        _rerun_unless_counted(tx, count, 1)
        mean = graph.op("div", [result, count])
        result = mean if mean.dtype == result.dtype else graph.op(
            "astype", [mean], dtype=result.dtype)
    return ArrayVariable(_scalar_result(graph, result))


# The longest selection whose float sum follows NumPy's order exactly (`_numpy_order_sum`):
# NumPy adds at most this many elements without splitting them in two.
_PAIRWISE_LEAF = 128


def _numpy_order_sum(graph: Graph, selection: MaskedVariable) -> Value | None:
    """NumPy's float sum of the selected elements bit for bit: NumPy sums the `k` elements
    `x[mask]` gathers (pairwise, `lower/pairwise.rs`), so element `r` of them (by rank) goes
    to running sum `r % 8` while `r < k - k % 8`, the eight sums are combined as
    `((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7))` and the last `k % 8` elements added in order (all
    of them, onto -0.0, where `k < 8`). A sum over the whole masked array with zeros in the
    unselected places rounds otherwise, and a comparison of two such sums (`err <
    best_err`) can then pick another winner than NumPy. One loop op over the places, for
    arrays of at most `_PAIRWISE_LEAF` elements (NumPy splits longer ones); None beyond."""
    values, mask = selection.values, selection.mask
    if values.ndim != mask.ndim or any(not isinstance(d, int) for d in values.shape):
        return None
    n = int(np.prod(values.shape))
    if n > _PAIRWISE_LEAF:
        return None
    dtype, i64 = values.dtype, np.dtype(np.int64)
    flat_values = graph.op("reshape", [values], shape=[n])
    flat_mask = graph.op("reshape", [mask], shape=[n])
    count = graph.op("sum", [graph.op("astype", [flat_mask], dtype=i64)], axis=None,
                     keepdims=False)
    lanes_end = graph.op("sub", [count, graph.op("mod", [count, graph.const(np.int64(8))])])

    def zero(g: Graph) -> Value:
        return g.op("astype", [g.const(-0.0)], dtype=dtype, weak=False, scalar=True)

    body = graph.region("loop")
    i = body.add_input(np.int64, (), weak=True)
    rank = body.add_input(i64, (), weak=False, scalar=True)
    lanes = [body.add_input(dtype, (), weak=False, scalar=True) for _ in range(8)]
    total = body.add_input(dtype, (), weak=False, scalar=True)
    b_values = body.add_input(dtype, (n,))
    b_mask = body.add_input(np.bool_, (n,))
    b_end = body.add_input(i64, (), weak=False, scalar=True)
    v = body.op("astype", [body.op("load", [b_values, i])], dtype=dtype, scalar=True)
    picked = body.op("load", [b_mask, i])
    in_lanes = body.op("logical_and", [picked, body.op("lt", [rank, b_end])])
    lane = body.op("mod", [rank, body.const(np.int64(8))])
    new_lanes = []
    for j, s in enumerate(lanes):
        here = body.op("logical_and", [in_lanes, body.op("eq", [lane, body.const(np.int64(j))])])
        new_lanes.append(_same(body, body.op("where", [here, body.op("add", [s, v]), s]), s))
    first_tail = body.op("logical_and", [picked, body.op("eq", [rank, b_end])])
    later_tail = body.op("logical_and", [picked, body.op("gt", [rank, b_end])])
    after = _same(body, body.op("where", [later_tail, body.op("add", [total, v]), total]), total)
    new_total = _same(body, body.op("where", [first_tail, body.op("add", [
        _combined(body, new_lanes), v]), after]), total)
    new_rank = _same(body, body.op("add", [rank, body.op("astype", [picked], dtype=i64)]), rank)
    body.set_outputs([body.const(True, weak=False), new_rank, *new_lanes, new_total])
    start = graph.op("astype", [graph.const(np.int64(0))], dtype=i64, weak=False, scalar=True)
    end = graph.op("astype", [lanes_end], dtype=i64, weak=False, scalar=True)
    results = graph.loop(graph.const(0), graph.const(n), graph.const(1),
                         [start, *[zero(graph) for _ in range(8)], zero(graph)],
                         [flat_values, flat_mask, end], body)
    final_lanes, final_total = results[1:9], results[9]
    no_tail = graph.op("eq", [lanes_end, count])
    found = graph.op("where", [no_tail, _combined(graph, final_lanes), final_total],
                     scalar=True)
    # Nothing selected: the sum's identity, +0.0.
    empty = graph.op("eq", [count, graph.const(np.int64(0))])
    plus_zero = graph.op("astype", [graph.const(0.0)], dtype=dtype, weak=False, scalar=True)
    return graph.op("where", [empty, plus_zero, found], scalar=True)


def _same(graph: Graph, value: Value, like: Value) -> Value:
    """`value` of `like`'s exact type (a loop op's carried values keep theirs)."""
    if (value.dtype, value.weak, value.scalar) == (like.dtype, like.weak, like.scalar):
        return value
    return graph.op("astype", [value], dtype=like.dtype, weak=like.weak, scalar=like.scalar)


def _combined(graph: Graph, lanes: list[Value]) -> Value:
    """NumPy's combination of its eight running sums."""
    add = lambda a, b: _same(graph, graph.op("add", [a, b]), a)  # noqa: E731
    return add(add(add(lanes[0], lanes[1]), add(lanes[2], lanes[3])),
               add(add(lanes[4], lanes[5]), add(lanes[6], lanes[7])))


def _scalar_result(graph: Graph, result: Value) -> Value:
    """A 0-d reduction result as the NumPy scalar NumPy returns."""
    if not result.shape:
        result = graph.op("squeeze", [result], axis=[], scalar=True)
    return result


def _rerun_unless_counted(tx: Interpreter, count: Value, at_least: int) -> None:
    """NumPy's mean of nothing, and its var/std with no degree of freedom left, warn with
    texts of their own ("Mean of empty slice", "Degrees of freedom <= 0 for slice"): where
    a statistic counts fewer than `at_least` elements (`count`: the elements of each, all
    equal), the frame reruns as Python (`frame_branches.add_check`)."""
    from ember.capture.loops.frame_branches import add_check

    graph = tx.graph
    if 0 in count.shape:
        return  # no statistic at all: nothing to warn about
    first = graph.op("load", [count, *[graph.const(0)] * count.ndim]) if count.shape else count
    add_check(tx, graph.op("lt", [first, graph.const(at_least)]))


def _variance(tx: Interpreter, selection: MaskedVariable, axes: list[int] | None, ddof: int,
              root: bool) -> Value:
    """NumPy's `var` (`std` with `root`) of the selected elements over `axes`: the mean of
    each, then the sum of squared deviations over `max(count - ddof, 0)`, in the values'
    float dtype (float64 for integers and bools)."""
    graph = tx.graph
    values = selection.values
    dtype = values.dtype if values.dtype.kind == "f" else np.dtype(np.float64)
    if values.dtype != dtype:
        values = graph.op("astype", [values], dtype=dtype)
    mask = graph.op("broadcast_to", [selection.spread(graph)], shape=list(values.shape))
    zero = graph.const(dtype.type(-0.0))

    def counted(keepdims: bool) -> Value:
        return graph.op("sum", [mask], axis=axes, keepdims=keepdims)

    def in_dtype(x: Value) -> Value:
        return x if x.dtype == dtype else graph.op("astype", [x], dtype=dtype)

    _rerun_unless_counted(tx, counted(False), max(1, ddof + 1))
    total = graph.op("sum", [graph.op("where", [mask, values, zero])], axis=axes, keepdims=True)
    mean = in_dtype(graph.op("div", [total, counted(True)]))
    deviation = graph.op("where", [mask, graph.op("sub", [values, mean]), zero])
    squares = graph.op("sum", [graph.op("mul", [deviation, deviation])], axis=axes,
                       keepdims=False)
    dof = graph.op("maximum", [graph.op("sub", [counted(False), graph.const(ddof)]),
                               graph.const(0)])
    variance = in_dtype(graph.op("div", [squares, dof]))
    return graph.op("sqrt", [variance]) if root else variance


def _reduce_rows(tx: Interpreter, name: str, selection: MaskedVariable, axis: int
                 ) -> VariableTracker:
    """A reduction along an axis of each selected row: NumPy's own reduction of every row,
    selected or not, and a selection under the same mask."""
    handler = numpy_api.lookup_method(name)
    reduced = call_numpy_api(f"ndarray.{name}", handler, tx.graph, selection.values, axis)
    one = True if reduced.dtype == np.bool_ else 1
    return MaskedVariable(MaskedVariable(reduced, selection.mask).selected(tx.graph, one),
                          selection.mask)


def _extreme(dtype: np.dtype, *, low: bool) -> object:
    if dtype == np.bool_:
        return not low
    if dtype.kind == "f":
        return -np.inf if low else np.inf
    info = np.iinfo(dtype)
    return info.min if low else info.max


def _raise_if_empty(graph: Graph, selection: MaskedVariable) -> None:
    """NumPy's max/min of nothing raises ValueError: a load past the end of the mask when
    nothing is selected makes the graph raise, and the frame reruns in NumPy."""
    flat = graph.op("reshape", [selection.mask], shape=[int(np.prod(selection.mask.shape))])
    anything = graph.op("any", [flat], axis=None, keepdims=False)
    index = graph.op("where", [anything, graph.const(0), graph.const(flat.shape[0])])
    graph.op("load", [flat, index])


# Ufuncs of selections (`np.maximum(Q[P > 0], 1e-12)`, `np.log(x[m])`): computed on every
# place, the unselected ones holding 1 first, where none of these raises a flag NumPy's
# selected elements alone would not.
_SELECTION_UFUNCS = (np.maximum, np.minimum, np.fmax, np.fmin, np.absolute, np.negative,
                     np.square, np.exp, np.log, np.log2, np.log10, np.log1p, np.sqrt, np.sin,
                     np.cos, np.tanh, np.floor, np.ceil, np.rint, np.sign)


def numpy_call(tx: Interpreter, fn: Any, args: list[VariableTracker],
               kwargs: dict[str, VariableTracker], handler: Any = None
               ) -> VariableTracker | None:
    """`np.sum(selection)`, `np.mean(...)`, `np.maximum(selection, 0.0)`, ...; None when no
    argument is a selection."""
    if not any(isinstance(a, MaskedVariable) for a in [*args, *kwargs.values()]):
        return None
    if fn in _SELECTION_UFUNCS and handler is not None and not kwargs:
        return _ufunc(tx, fn, handler, args)
    names = {np.sum: "sum", np.prod: "prod", np.max: "max", np.min: "min", np.amax: "max",
             np.amin: "min", np.any: "any", np.all: "all", np.mean: "mean", np.var: "var",
             np.std: "std"}
    if fn is np.median and len(args) == 1 and not kwargs and isinstance(args[0],
                                                                     MaskedVariable):
        return _median(tx, args[0])
    name = names.get(fn)
    if name is None or not args or not isinstance(args[0], MaskedVariable):
        raise _refuse(f"np.{getattr(fn, '__name__', fn)}")
    return reduce(tx, name, args[0], args[1:], kwargs)


def _median(tx: Interpreter, selection: MaskedVariable) -> VariableTracker:
    """`np.median` of a 1-d float64 selection: its values sorted with +inf in the unselected
    places (after every selected value but NaN), the middle one or the mean of the middle
    two at the count the run time knows; NaN where a selected value is NaN (NumPy sorts NaN
    last and gives NaN); an empty selection, where NumPy warns, reruns the frame as Python."""
    from ember.numpy_api.sorting import sort

    graph = tx.graph
    values = selection.values
    if values.ndim != 1 or values.dtype != np.float64:
        raise _refuse("np.median of other than a 1-d float64")
    count = selection.count(graph)
    _rerun_unless_counted(tx, count, 1)
    ordered = sort(graph, selection.selected(graph, np.inf))
    two = graph.const(2)
    upper = graph.op("load", [ordered, graph.op("floordiv", [count, two])])
    lower = graph.op("load", [ordered, graph.op("floordiv", [
        graph.op("sub", [count, graph.const(1)]), two])])
    middle = graph.op("div", [graph.op("add", [lower, upper]), graph.const(2.0)])
    odd = graph.op("eq", [graph.op("mod", [count, two]), graph.const(1)])
    result = graph.op("where", [odd, upper, middle])
    nan = graph.op("any", [graph.op("isnan", [selection.selected(graph, 0.0)])], axis=None,
                   keepdims=False)
    result = graph.op("where", [nan, graph.const(np.float64(np.nan)), result])
    return ArrayVariable(graph.op("astype", [result], dtype=result.dtype, scalar=True))


def _ufunc(tx: Interpreter, fn: Any, handler: Any, args: list[VariableTracker]
           ) -> MaskedVariable:
    """A ufunc of selections under one mask and of operands the same for every selected
    element: a selection under that mask."""
    mask = next(a.mask for a in args if isinstance(a, MaskedVariable))
    first = next(a for a in args if isinstance(a, MaskedVariable))
    rows = first.values.ndim - mask.ndim
    operands = []
    for a in args:
        if isinstance(a, MaskedVariable):
            if not same_mask(a.mask, mask):
                raise _refuse(f"np.{fn.__name__} with another mask")
            one = True if a.values.dtype == np.bool_ else 1
            operands.append(a.selected(tx.graph, one))
        else:
            operands.append(_operand(tx, a, mask, rows))
    result = call_numpy_api(f"np.{fn.__name__}", handler, tx.graph, *operands)
    return MaskedVariable(result, mask)
