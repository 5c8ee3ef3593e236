"""Python operators on trackers (`BINARY_OP`, `COMPARE_OP`, `IS_OP`, `CONTAINS_OP`, unary):
constants are computed at capture time, arrays become graph ops through `numpy_api`,
sequences are concatenated and repeated item by item."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ember import numpy_api
from ember.capture.breaks import graph_break
from ember.capture.variables import choice, masked, prefixes, scalar
from ember.capture.variables.array import (
    ArrayVariable,
    call_numpy_api,
    to_api,
    wrap_api_result,
)
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import (
    BINARY_OPERATORS,
    COMPARE_OPERATORS,
    UNARY_OPERATORS,
    ConstantVariable,
    fold,
    is_constant_value,
)
from ember.capture.variables.containers import (
    DictVariable,
    ListVariable,
    SequenceVariable,
    TupleVariable,
    claim,
)
from ember.capture.variables.scalar import PythonScalarVariable, is_python_number
from ember.graph import OPS, Graph, Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter


def _constant_result(value: object, what: str) -> VariableTracker:
    if not is_constant_value(value):
        raise graph_break("type", what=f"the result of {what}", type=type(value).__name__)
    return ConstantVariable(value)


def _items(vt: VariableTracker, tx: Interpreter) -> list[VariableTracker] | None:
    """The items of a tuple/list tracker or constant tuple, else None."""
    if isinstance(vt, SequenceVariable):
        return vt.items
    if isinstance(vt, ConstantVariable) and isinstance(vt.value, tuple):
        return vt.unpack(tx)
    return None


def _operand(vt: VariableTracker) -> object:
    """An operand of an array operator: a run-time Python number is a weak scalar input."""
    return vt.graph_value() if isinstance(vt, PythonScalarVariable) else to_api(vt)


def _check_sequence_repeat(tx: Interpreter, a: VariableTracker, b: VariableTracker) -> None:
    """`seq * x` of a list or tuple and a NumPy scalar (not a 0-d array): Python repeats the
    sequence by an integer's value and raises TypeError for any other number, neither of
    which is NumPy's multiply, so it runs in Python."""
    for seq, other in ((a, b), (b, a)):
        if (_items(seq, tx) is None or not isinstance(other, ArrayVariable)
                or not (other.value.scalar or other.value.weak)):
            continue
        if other.value.dtype.kind in "iu":
            raise graph_break("data_dependent_value",
                              what="a list or tuple repeated by a NumPy integer")
        raise graph_break("user_error", type="TypeError",
                          message="can't multiply sequence by non-int of type "
                                  f"'numpy.{other.value.dtype.type.__name__}'")


def _check_python_ints(tx: Interpreter, x: object, y: object) -> None:
    """A run-time Python int beyond the range of the integer array it meets (NumPy's
    OverflowError, or its comparison of the numbers) runs the frame as plain Python."""
    from ember.capture.loops import frame_branches
    from ember.numpy_api.elementwise import python_ints_out_of_range

    failed = python_ints_out_of_range(tx.graph, [x, y])
    if failed is not None:
        frame_branches.add_check(tx, failed)


def _scalars_meet(a: VariableTracker, b: VariableTracker) -> bool:
    """Python numbers, one known only at run time: Python computes it, in the entry."""
    return ((isinstance(a, PythonScalarVariable) or isinstance(b, PythonScalarVariable))
            and is_python_number(a) and is_python_number(b))


def binary_op(tx: Interpreter, op: str, a: VariableTracker, b: VariableTracker
              ) -> VariableTracker:
    a, b = choice.settled(tx.graph, a, b), choice.settled(tx.graph, b, a)
    if op in choice.LIFTED:
        lifted = choice.lift_binary(tx, a, b, lambda x, y: binary_op(tx, op, x, y))
        if lifted is not None:
            return lifted
    if _scalars_meet(a, b):
        return scalar.binary(op, a, b)
    viewed = prefixes.view_arithmetic(tx, op, a, b)
    if viewed is not None:
        return viewed
    a, b = prefixes.aligned(tx, *prefixes.selections(tx.graph, a, b))
    if isinstance(a, masked.MaskedVariable | masked.MaskedTransposeVariable) or isinstance(
            b, masked.MaskedVariable | masked.MaskedTransposeVariable):
        return masked.binary(tx, op, a, b)
    if isinstance(a, ArrayVariable) or isinstance(b, ArrayVariable):
        if op == "*":
            _check_sequence_repeat(tx, a, b)
        a, b = _python_bools(tx, op, a, b)
        if op in ("/", "//", "%"):
            b = _python_divisor(tx, a, b)
        a, infinite = _python_dividend(tx, op, a, b)
        if _python_number(a) and _python_number(b):
            _refuse_big_ints(op, a, b)
        x, y = _operand(a), _operand(b)
        _check_python_ints(tx, x, y)
        result = call_numpy_api(f"operator {op}", numpy_api.binary_op, tx.graph, op, x, y)
        if _python_number(a) and _python_number(b):
            _python_result(tx, result)
        elif isinstance(result, Value) and tx.graph.parent is not None:
            from ember.capture.loops import mixed_picks

            mixed_picks.int_arithmetic(tx, result)
        if infinite is not None:
            result = _nan_where(tx.graph, infinite, result)
        return wrap_api_result(result)
    if a.is_constant() and b.is_constant():
        value = fold(f"operator {op}", BINARY_OPERATORS[op], a.constant(), b.constant())
        return _constant_result(value, f"operator {op}")
    left, right = _items(a, tx), _items(b, tx)
    if op == "+" and left is not None and right is not None:
        a_list, b_list = isinstance(a, ListVariable), isinstance(b, ListVariable)
        if a_list != b_list:
            raise graph_break("user_error", type="TypeError",
                              message="can only concatenate a list to a list, a tuple to a tuple")
        return (ListVariable if a_list else TupleVariable)(left + right)
    if op == "*":
        for seq, items, count in ((a, left, b), (b, right, a)):
            if items is not None and count.is_constant() and type(count.constant()) is int:
                return (ListVariable if isinstance(seq, ListVariable) else TupleVariable)(
                    items * count.constant())
    if isinstance(a, choice.ChoiceVariable) or isinstance(b, choice.ChoiceVariable):
        # A number whose type the data decide: as if Python read it (a loop may still
        # capture the operator as one loop op, where it is a value of the body).
        raise graph_break("data_dependent_value",
                          what=f"operator {op} on {a.describe()} and {b.describe()}")
    raise graph_break("type", what=f"operator {op} on {a.describe()} and {b.describe()}",
                      type=f"{a.type_name()}, {b.type_name()}")


_BOOL_AS_INT = frozenset({"+", "-", "*", "/", "//", "%", "**"})


def _python_number(vt: VariableTracker) -> bool:
    """A Python bool, int or float: a constant, a weak (0-d) graph value, or one the entry
    computes."""
    if isinstance(vt, ArrayVariable):
        return vt.value.weak
    return is_python_number(vt)


def _refuse_big_ints(op: str, a: VariableTracker, b: VariableTracker) -> None:
    """`h ^ b` of Python ints, one a constant past int64 (FNV's offset basis): Python's
    exact result, which NumPy's int64 cannot hold, so the frame runs as plain Python."""
    for vt in (a, b):
        value = vt.constant() if vt.is_constant() else None
        if type(value) is int and not -(2**63) <= value < 2**63:
            raise graph_break("big_int", what=f"operator {op} on {value:#x}")


def _python_result(tx: Interpreter, result: object) -> None:
    """Python's semantics for the op of Python numbers that made `result`: ints exact,
    `**` of floats raising where it overflows (`loops/python_checks.py`)."""
    from ember.capture.loops import python_checks

    if not isinstance(result, Value):
        return
    if result.dtype == np.int64:
        python_checks.exact_int(tx, result)
        return
    node = tx.graph.nodes[-1] if tx.graph.nodes else None
    if node is not None and node.out is result and node.op == "pow":
        python_checks.checked_power(tx, *node.inputs, result)


def _python_divisor(tx: Interpreter, a: VariableTracker, b: VariableTracker
                    ) -> VariableTracker:
    """The divisor of `/`, `//` or `%` between Python numbers (weak values, at least one):
    Python raises ZeroDivisionError where NumPy gives inf or 0 with a warning, so a zero
    divisor is a run-time check that runs the frame as plain Python
    (`frame_branches.add_check`), and the division takes 1 in its place meanwhile."""
    from ember.capture.loops import frame_branches

    if not (_python_number(a) and _python_number(b)):
        return b
    if isinstance(b, PythonScalarVariable):
        b = ArrayVariable(b.graph_value())
    if not isinstance(b, ArrayVariable):
        if b.constant() == 0:
            raise graph_break("user_error", type="ZeroDivisionError", message="division by zero")
        return b
    graph, value = tx.graph, b.value
    zero = graph.op("eq", [value, graph.const(0)])
    frame_branches.add_check(tx, zero)
    one = graph.op("astype", [graph.const(1)], dtype=value.dtype, weak=True)
    safe = graph.op("where", [zero, one, value])
    return ArrayVariable(graph.op("astype", [safe], dtype=value.dtype, weak=True))


def _python_dividend(tx: Interpreter, op: str, a: VariableTracker, b: VariableTracker
                     ) -> tuple[VariableTracker, Value | None]:
    """The dividend of `//` or `%` between Python numbers: an infinite float gives NaN in
    Python with no warning, where NumPy warns of an invalid value; the op takes 0.0 in its
    place, and where it was infinite the result is NaN (`_nan_where`)."""
    if op not in ("//", "%") or not (_python_number(a) and _python_number(b)):
        return a, None
    if not (isinstance(a, ArrayVariable) and a.value.dtype.kind == "f"):
        return a, None
    graph, value = tx.graph, a.value
    infinite = graph.op("isinf", [value])
    safe = graph.op("where", [infinite, graph.const(0.0), value])
    return ArrayVariable(graph.op("astype", [safe], dtype=value.dtype, weak=True)), infinite


def _nan_where(graph: Graph, infinite: Value, result: object) -> object:
    if not isinstance(result, Value):
        return result
    chosen = graph.op("where", [infinite, graph.const(float("nan")), result])
    return graph.op("astype", [chosen], dtype=result.dtype, weak=True)


def _python_bools(tx: Interpreter, op: str, a: VariableTracker, b: VariableTracker
                  ) -> tuple[VariableTracker, VariableTracker]:
    """Between Python numbers, a bool in arithmetic is the int it stands for (`(i > 0) + (i >
    1)` is 2, where NumPy's bool add is a logical or): weak bool values become weak ints."""
    if op not in _BOOL_AS_INT or not (_python_number(a) and _python_number(b)):
        return a, b

    def as_int(vt: VariableTracker) -> VariableTracker:
        if isinstance(vt, ArrayVariable) and vt.value.dtype == np.bool_:
            return ArrayVariable(tx.graph.op("astype", [vt.value], dtype=np.int64, weak=True))
        return vt

    return as_int(a), as_int(b)


def inplace_op(tx: Interpreter, op: str, a: VariableTracker, b: VariableTracker,
               *, stored_back: bool = False) -> VariableTracker:
    """`a op= b`: NumPy arrays are updated in place (so aliases see it), lists extended,
    everything else rebinds like `a = a op b`. `stored_back`: `a` is the temporary view of
    `x[i] op= b`, which the next instruction stores into `x`, so the new contents are
    returned as a new array instead."""
    if isinstance(a, ListVariable) and op in ("+", "*"):
        return _list_inplace(tx, op, a, b)
    if not isinstance(a, ArrayVariable) or a.value.scalar or a.value.weak:
        return binary_op(tx, op, a, b)  # immutable: `a op= b` rebinds
    if not (stored_back or a.is_fresh(tx) or a.is_mutable_input(tx)) or (
            stored_back and a.of_broadcast_view()):  # NumPy's `out=` raises or warns first
        raise graph_break("inplace", name=a.describe())
    result = binary_op(tx, op, a, b)
    assert isinstance(result, ArrayVariable)
    if stored_back:
        return ArrayVariable(_cast_into(tx, a.value, result.value, broadcast=False))
    return write_into(tx, a, result.value, broadcast=False)


def _list_inplace(tx: Interpreter, op: str, a: ListVariable, b: VariableTracker
                  ) -> VariableTracker:
    """`lst += b` and `lst *= n`: Python tries the number protocol first, so an array (or a
    NumPy scalar) on the right gives NumPy's `lst + b` and leaves the list alone; otherwise
    the list is extended or repeated in place (its aliases see it)."""
    from ember.capture.loops.vectors import VectorVariable

    if isinstance(b, (ArrayVariable, VectorVariable, masked.MaskedVariable)):
        return binary_op(tx, op, a, b)
    if op == "+":
        items = b.unpack(tx)
        claim(tx, a)
        a.items.extend(items)
        return a
    count = scalar.structural(b)
    if not (count.is_constant() and type(count.constant()) in (int, bool)):
        return binary_op(tx, op, a, b)
    claim(tx, a)
    a.items[:] = a.items * count.constant()
    return a


def write_into(tx: Interpreter, target: ArrayVariable, result: Value, *,
               broadcast: bool = True) -> ArrayVariable:
    """Store a ufunc's `result` into `target` as `out=` (and `target op= ...`) do: cast with
    'same_kind', the result broadcast to the target's shape where `broadcast`. The target
    must be the frame's own array or an argument nothing views (it is updated functionally
    and written back)."""
    if not (target.is_fresh(tx) or target.is_mutable_input(tx)):
        raise graph_break("inplace", name=target.describe())
    new = _cast_into(tx, target.value, result, broadcast=broadcast)
    if new is not target.value and new.ndim > 1:
        # The array is still the target's memory: what is computed from it later follows
        # the target's layout, not the order of the ufunc's fresh output.
        tx.graph.layouts[new.id] = ("alias", target.value.id)
    target.update_in_place(new)
    if target.source is not None:
        tx.tracer.mark_mutated(target)
    return target


def _cast_into(tx: Interpreter, target: Value, new: Value, *, broadcast: bool) -> Value:
    shape = tuple(target.shape)
    broadcasted = tuple(new.shape) != shape
    if broadcasted:
        try:
            fits = broadcast and np.broadcast_shapes(tuple(new.shape), shape) == shape
        except (TypeError, ValueError):  # symbolic or incompatible sizes
            fits = False
        if not fits:
            raise graph_break(
                "user_error", type="ValueError",
                message=f"non-broadcastable output operand with shape {shape} doesn't "
                        f"match the broadcast shape {tuple(new.shape)}",
            )
        new = tx.graph.op("broadcast_to", [new], shape=list(shape))
    if new.dtype != target.dtype:
        check_same_kind(new.dtype, target.dtype)
        ufunc = _producing_ufunc(tx.graph, new)
        new = tx.graph.op("astype", [new], dtype=target.dtype)
        if ufunc is not None:
            # NumPy casts inside the ufunc's loop, and its warnings name the ufunc.
            tx.graph.warns_as(new, ufunc)
    elif broadcasted:
        # The target's memory holds every element: not a broadcast view of fewer.
        new = tx.graph.op("copy", [new])
    if new.scalar and not target.scalar:
        # A 0-d array stays one: a ufunc of 0-d operands gives a scalar, `out=` the array.
        new = tx.graph.op("copy", [new], scalar=False)
    return new


def check_same_kind(result: np.dtype, target: np.dtype) -> None:
    """NumPy's casting rule for a ufunc's result stored into its `out=` (`a op= b`)."""
    if not np.can_cast(result, target, "same_kind"):
        raise graph_break(
            "user_error", type="UFuncTypeError",
            message=f"Cannot cast ufunc output from dtype('{result}') to "
                    f"dtype('{target}') with casting rule 'same_kind'",
        )


def _producing_ufunc(graph: Graph, value: Value) -> str | None:
    """The name of the ufunc whose result `value` is (through a broadcast), if it is one."""
    for node in reversed(graph.nodes):
        if node.out is not value:
            continue
        if node.op == "broadcast_to":
            return _producing_ufunc(graph, node.inputs[0])
        fn = OPS[node.op].numpy
        return fn.__name__ if isinstance(fn, np.ufunc) else None
    return None


def compare_op(tx: Interpreter, op: str, a: VariableTracker, b: VariableTracker
               ) -> VariableTracker:
    lifted = choice.lift_binary(tx, a, b, lambda x, y: compare_op(tx, op, x, y))
    if lifted is not None:
        return lifted
    if _scalars_meet(a, b):
        return scalar.binary(op, a, b)
    a, b = prefixes.selections(tx.graph, a, b)
    if isinstance(a, masked.MaskedVariable) or isinstance(b, masked.MaskedVariable):
        return masked.compare(tx, op, a, b)
    if isinstance(a, ArrayVariable) or isinstance(b, ArrayVariable):
        x, y = _operand(a), _operand(b)
        _check_python_ints(tx, x, y)
        result = call_numpy_api(f"operator {op}", numpy_api.compare_op, tx.graph, op, x, y)
        return wrap_api_result(result)
    if a.is_constant() and b.is_constant():
        value = fold(f"operator {op}", COMPARE_OPERATORS[op], a.constant(), b.constant())
        return _constant_result(value, f"operator {op}")
    if op in ("==", "!="):
        equal = _tuples_equal(tx, a, b)
        if equal is not None:
            return equal if op == "==" else unary_op(tx, "not", equal)
    raise graph_break("type", what=f"comparison {op} of {a.describe()} and {b.describe()}",
                      type=f"{a.type_name()}, {b.type_name()}")


def _tuples_equal(tx: Interpreter, a: VariableTracker, b: VariableTracker
                  ) -> VariableTracker | None:
    """`(r, c) == goal` in a loop body, of tuples of ints and bools (constants or 0-d
    integer values of the graph): a Python bool, the `and` of the items' equalities (False
    for tuples of other lengths); None for others (floats, whose NaN an item's identity
    makes equal in Python, nested or array items, lists)."""
    from ember.capture.loops import scalars as loop_scalars
    from ember.capture.loops.branches import _truth

    def tuple_items(vt: VariableTracker) -> list[VariableTracker] | None:
        if isinstance(vt, TupleVariable) or (
                isinstance(vt, ConstantVariable) and isinstance(vt.value, tuple)):
            return _items(vt, tx)
        return None

    def integral(vt: VariableTracker) -> bool:
        if isinstance(vt, ConstantVariable):
            return type(vt.constant()) in (int, bool)
        return (isinstance(vt, ArrayVariable) and not vt.value.shape
                and vt.value.dtype.kind in "biu")

    xs, ys = tuple_items(a), tuple_items(b)
    if not loop_scalars.in_body(tx) or xs is None or ys is None:
        return None
    if not all(integral(v) for v in (*xs, *ys)):
        return None
    if len(xs) != len(ys):
        return ConstantVariable(False)
    graph = tx.graph
    equal: Value | None = None
    for x, y in zip(xs, ys, strict=True):
        if x.is_constant() and y.is_constant():
            if x.constant() != y.constant():
                return ConstantVariable(False)
            continue
        item = compare_op(tx, "==", x, y)
        truth = _truth(tx, item.value)  # type: ignore[attr-defined]
        equal = truth if equal is None else graph.op("logical_and", [equal, truth])
    if equal is None:
        return ConstantVariable(True)
    return ArrayVariable(graph.op("astype", [equal], dtype=np.bool_, weak=True))


def is_op(tx: Interpreter, a: VariableTracker, b: VariableTracker) -> bool:
    """`a is b`: decided when both are constants, when they are the same tracker, or when one
    is None and the other a tracked non-constant (arrays, containers, objects are not None)."""
    if a is b:
        return True
    if a.is_constant() and b.is_constant():
        return a.constant() is b.constant()
    for x, y in ((a, b), (b, a)):
        if x.is_constant() and x.constant() is None and not y.is_constant():
            return False
    raise graph_break("type", what=f"identity test of {a.describe()} and {b.describe()}",
                      type=f"{a.type_name()}, {b.type_name()}")


def contains_op(tx: Interpreter, item: VariableTracker, container: VariableTracker,
                negated: bool = False) -> VariableTracker:
    """`item in container` (`not in` where `negated`)."""
    from ember.capture.variables.appended import AppendedListVariable

    from ember.capture.variables.built_lists import contains, from_items

    if isinstance(container, AppendedListVariable):
        return contains(tx, container, item, negated)
    constant_set = isinstance(container, ConstantVariable) and isinstance(
        container.constant(), (frozenset, set, tuple))
    if (isinstance(container, DictVariable) or constant_set) and not item.is_constant():
        from ember.capture.variables import dict_lookups

        found = dict_lookups.contains(
            tx, container.constant() if constant_set else container, item, negated)
        if found is not None:
            return found
    if type(container) in (ListVariable, TupleVariable) and tx.graph.parent is None and (
            built := from_items(tx, container.items)) is not None:  # type: ignore[attr-defined]
        # `v in out` of numbers the graph computes: searched in a buffer of them (a NaN
        # looked for, which only identity finds, reruns the frame as Python).
        return contains(tx, built, item, negated)
    return ConstantVariable(_contains(tx, item, container) != negated)


def _contains(tx: Interpreter, item: VariableTracker, container: VariableTracker) -> bool:
    if isinstance(container, DictVariable):
        return container.contains(item)
    if container.is_constant() and item.is_constant():
        return bool(fold("operator in", lambda x, c: x in c, item.constant(),
                         container.constant()))
    items = _items(container, tx)
    if items is not None and item.is_constant() and all(i.is_constant() for i in items):
        return item.constant() in [i.constant() for i in items]
    raise graph_break("type", what=f"`in` test on {container.describe()}",
                      type=container.type_name())


def unary_op(tx: Interpreter, op: str, a: VariableTracker) -> VariableTracker:
    if op == "not":
        from ember.capture.loops import scalars as loop_scalars

        a = choice.truth(tx.graph, a)
        negated = loop_scalars.logical_not(tx, a) if loop_scalars.in_body(tx) else None
        return negated if negated is not None else ConstantVariable(not a.truth(tx))
    if isinstance(a, PythonScalarVariable):
        return scalar.unary(op, a)
    if choice.liftable(tx.graph, a):
        lifted = choice.lift(tx, a, lambda side: unary_op(tx, op, side))  # type: ignore[arg-type]
        if lifted is not None:
            return lifted
    from ember.capture.loops.vectors import VectorVariable, unary

    if isinstance(a, VectorVariable):
        return unary(tx, op, a)
    from ember.capture.loops import window_exprs

    if window_exprs.is_lazy(a):
        found = window_exprs.unary(tx, op, a)
        if found is not None:
            return found
    (a,) = prefixes.selections(tx.graph, a)
    if isinstance(a, masked.MaskedVariable):
        return masked.unary(tx, op, a)
    if isinstance(a, ArrayVariable):
        if op == "abs":
            handler = numpy_api.lookup_function(np.absolute)
            result = call_numpy_api("abs()", handler, tx.graph, a.value)
            if isinstance(result, Value) and a.value.scalar:
                # NumPy's scalar math, not the ufunc: "overflow encountered in scalar absolute"
                tx.graph.warns_as(result, "scalar absolute")
        else:
            result = call_numpy_api(f"operator {op}", numpy_api.unary_op, tx.graph, op, a.value)
        if a.value.weak and isinstance(result, Value):
            _python_result(tx, result)
            if not result.weak:  # `abs()` of a Python number is one, where `np.abs`'s is not
                result = tx.graph.op("astype", [result], dtype=result.dtype, weak=True)
        return wrap_api_result(result)
    if a.is_constant():
        fn = abs if op == "abs" else UNARY_OPERATORS[op]
        return _constant_result(fold(f"operator {op}", fn, a.constant()), f"operator {op}")
    raise graph_break("type", what=f"operator {op} on {a.describe()}", type=a.type_name())
