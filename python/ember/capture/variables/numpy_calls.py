"""Calls of NumPy functions and of ufunc methods during capture: `NumpyFunctionVariable`
hands its arguments to the function's `ember.numpy_api` handler (after the special forms
several kinds of value take: lists a loop op built, boolean-mask selections, data-length
results, loop bodies' rows and windows) and wraps what comes back; `UfuncMethodVariable` is
`np.add.at`, `np.multiply.outer`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ember import numpy_api
from ember.capture.breaks import graph_break
from ember.capture.variables.array import (
    ArrayVariable,
    call_numpy_api,
    fresh_result,
    shape_to_api,
    to_api,
    wrap_api_result,
)
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.capture.sources import Source


# Functions that return their array argument itself when it needs no conversion (np.array
# only with `copy=None`, np.squeeze with no axis of length 1, np.atleast_*d of an array of
# as many dimensions, np.diff with n=0, np.astype to its own dtype with copy=False: their
# handlers return the argument's value only then).
_RETURN_THE_ARRAY = (np.asarray, np.asanyarray, np.array, np.squeeze, np.atleast_1d,
                     np.atleast_2d, np.atleast_3d, np.diff, np.astype)


# NumPy functions and array methods that may return a view of (or the very) array they were
# given; every other one returns a new array, which a handler that built its result from view
# ops alone (`np.repeat(a, 1)`, `np.roll(a, 0)`) must copy to be.
_MAY_RETURN_A_VIEW = frozenset({
    np.array, np.asarray, np.asanyarray, np.ascontiguousarray, np.asfortranarray, np.astype,
    np.atleast_1d,
    np.atleast_2d, np.atleast_3d, np.broadcast_arrays, np.broadcast_to, np.diag, np.diagonal,
    np.diff, np.einsum, np.expand_dims, np.flip, np.meshgrid, np.moveaxis, np.ravel,
    np.reshape, np.squeeze, np.swapaxes, np.transpose, np.split, np.array_split, np.ndarray,
    np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
    np.uint32, np.uint64, np.bool_})
_INT_DATA_UFUNCS = frozenset({
    np.add, np.subtract, np.multiply, np.true_divide, np.maximum, np.minimum, np.fmax,
    np.fmin, np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal})


def _data_operands(tx: Interpreter, fn: Any, args: list[VariableTracker]
                   ) -> list[VariableTracker]:
    """`args` of `fn`, each run-time Python int operand of an `_INT_DATA_UFUNCS` ufunc beside
    an array taken as a weak scalar; where it may lie beyond the range of the integer array
    it meets (NumPy's OverflowError) the frame runs as plain Python."""
    from ember.capture.variables.scalar import PythonScalarVariable

    if fn not in _INT_DATA_UFUNCS or len(args) != 2 or not any(
            isinstance(a, ArrayVariable) and not a.value.weak for a in args) or not any(
            isinstance(a, PythonScalarVariable) and a.python_class is int for a in args):
        return args
    from ember.capture.loops import frame_branches
    from ember.numpy_api.elementwise import python_ints_out_of_range

    operands = [ArrayVariable(a.graph_value()) if isinstance(a, PythonScalarVariable) else a
                for a in args]
    failed = python_ints_out_of_range(tx.graph, [to_api(a) for a in operands])
    if failed is not None:
        frame_branches.add_check(tx, failed)
    return operands


# NumPy functions whose first argument is a shape.
_SHAPE_FIRST = (np.zeros, np.ones, np.empty, np.full)


def _is_shape_arg(fn: Any, where: int | str, count: int) -> bool:
    """Whether an argument of `fn` (its position, or keyword) is a shape or a length, which a
    size read at run time may give as the symbolic dim it stands for (`np.arange(len(x))`,
    `np.reshape(x, (n, -1))`, `np.linspace(0, 1, n)`)."""
    if where in ("shape", "newshape"):
        return fn in _SHAPE_FIRST or fn is np.reshape
    return ((where == 0 and fn in _SHAPE_FIRST)
            or (fn is np.arange and (count == 1 or where in (0, 1, "start", "stop")))
            or (where == 1 and fn is np.reshape)
            or (where in (2, "num") and fn is np.linspace)
            or (where in (0, 1, "N", "M") and fn is np.eye)
            or (where in (0, "n") and fn is np.identity))


class NumpyFunctionVariable(VariableTracker):
    """A NumPy function, ufunc or constructor known to `numpy_api` (`np.sum`, `np.exp`)."""

    def __init__(self, fn: Any, handler: Any, source: Source | None = None) -> None:
        self.fn = fn
        self.handler = handler
        self.source = source

    def describe(self) -> str:
        owner = getattr(self.fn, "__self__", None)
        name = getattr(self.fn, '__name__', repr(self.fn))
        return f"np.{owner.__name__}.{name}" if isinstance(owner, np.ufunc) else f"np.{name}"

    def is_constant(self) -> bool:
        return True  # the function object itself (`dtype=np.float32`, `fn is np.sum`)

    def constant(self) -> Any:
        return self.fn

    def python_type(self) -> type:
        return type(self.fn)

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        from ember.capture.variables.ufunc_methods import method_handler

        if isinstance(self.fn, np.ufunc):
            if name in ("at", "outer", "reduceat"):
                return UfuncMethodVariable(self, name)
            handler = method_handler(self.fn, self.handler, name)
            if handler is not None:
                return NumpyFunctionVariable(getattr(self.fn, name), handler)
        return super().getattr(tx, name)

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        if self.fn in (np.array, np.asarray, np.asanyarray) and args and (
                count := _given_numbers(args[0])):
            raise graph_break("numpy", reason=(
                f"np.{self.fn.__name__} of a list of {count} numbers read from the frame, "
                "which NumPy's own conversion runs faster than a graph taking each number "
                "as an input"))
        if self.fn is np.lib.stride_tricks.as_strided:
            from ember.capture.variables import strided

            found = strided.as_strided(tx, args, kwargs)
            if found is not None:
                return found
        if tx.graph.parent is not None:
            from ember.capture.loops.runs import numpy_call

            found = numpy_call(tx, self.fn, args, kwargs)
            if found is not None:
                return found
            from ember.capture.loops import small_sorts, vectors

            found = small_sorts.sorted_copy(tx, self.fn, args, kwargs)
            if found is not None:
                return found
            from ember.capture.loops import small_extrema

            found = small_extrema.arg_extremum(tx, self.fn, args, kwargs)
            if found is not None:
                return found

            found = vectors.numpy_call(tx, self.fn, self.handler, args, kwargs)
            if found is not None:
                return found
            if self.fn in (np.dot, np.matmul) and len(args) == 2 and not kwargs:
                from ember.capture.loops import small_products

                found = small_products.matmul(tx, args[0], args[1])
                if found is not None:
                    return found
            from ember.capture.loops import window_exprs

            found = window_exprs.numpy_call(tx, self.fn, self.handler, args, kwargs)
            if found is not None:
                return found
        from ember.capture.variables import appended, datalen, masked, nonzero

        made = appended.lists_as_arrays(tx, self.fn, args)
        if made is not None:
            return self.call(tx, made, kwargs)
        built = appended.numpy_call(tx, self.fn, args, kwargs)
        if built is not None:
            return built
        unique = datalen.numpy_call(tx, self.fn, args, kwargs)
        if unique is not None:
            return unique
        counted = nonzero.numpy_call(tx, self.fn, args, kwargs)
        if counted is not None:
            return counted
        from ember.capture.variables import prefixes

        found = prefixes.numpy_call(tx, self.fn, args, kwargs, self.handler)
        if found is not None:
            return found
        if any(isinstance(a, datalen.DataViewVariable | nonzero.NonzeroIndexVariable)
               for a in args):
            args = prefixes.selections(tx.graph, *args)
        reduced = masked.numpy_call(tx, self.fn, args, kwargs, self.handler)
        if reduced is not None:
            return reduced
        out = kwargs.get("out")
        if out is not None and out.is_constant() and out.constant() is None:
            # `out=None` passed on by NumPy's own code (`np.fix`) is no `out`
            kwargs = {name: v for name, v in kwargs.items() if name != "out"}
            out = None
        if out is not None and (isinstance(self.fn, np.ufunc) or self.fn in _INTO_FUNCTIONS
                                or isinstance(getattr(self.fn, "__self__", None), np.ufunc)):
            return self._into(tx, args, kwargs)
        from ember.capture.variables import int_data

        args, kwargs = int_data.operands(tx, self.fn, args, kwargs)
        api_args = [shape_to_api(a) if _is_shape_arg(self.fn, i, len(args)) else to_api(a)
                    for i, a in enumerate(_data_operands(tx, self.fn, args))]
        first_node = len(tx.graph.nodes)
        result = call_numpy_api(
            self.describe(), self.handler, tx.graph, *api_args,
            **{k: shape_to_api(v) if _is_shape_arg(self.fn, k, len(args)) else to_api(v)
               for k, v in kwargs.items()},
        )
        if self.fn in numpy_api.IN_PLACE:
            from ember.capture.operators import write_into

            if not args or not isinstance(args[0], ArrayVariable):
                raise graph_break("numpy", reason=f"{self.describe()} of a non-array")
            write_into(tx, args[0], result, broadcast=False)
            return ConstantVariable(None)
        if (self.fn in _RETURN_THE_ARRAY and args and isinstance(args[0], ArrayVariable)
                and result is args[0].value):
            return args[0]  # NumPy returns the argument itself, not a view of it
        if self.fn not in _MAY_RETURN_A_VIEW:
            result = fresh_result(tx.graph, result, first_node)
        return wrap_api_result(result)

    def _into(self, tx: Interpreter, args: list[VariableTracker],
              kwargs: dict[str, VariableTracker]) -> VariableTracker:
        """`ufunc(..., out=o)` (and `ufunc.accumulate`/`reduce` with an `out` of the result's
        dtype): the result computed as without `out`, then stored into `o`
        (see `write_into`), which is what the call returns."""
        from ember.capture.operators import write_into
        from ember.capture.variables.containers import TupleVariable

        kwargs = dict(kwargs)
        out = kwargs.pop("out")
        if isinstance(out, TupleVariable) and len(out.items) == 1:
            out = out.items[0]
        if not isinstance(out, ArrayVariable) or out.value.scalar or out.value.weak:
            raise graph_break("numpy", reason=f"{self.describe()} with out={out.describe()}")
        where = kwargs.pop("where", None)
        if where is not None and not (where.is_constant() and where.constant() is True):
            return self._into_where(tx, args, kwargs, out, where)
        result = self.call(tx, args, kwargs)
        if not isinstance(result, ArrayVariable):
            raise graph_break("numpy", reason=f"{self.describe()} with out= and several "
                                              "results")
        if not isinstance(self.fn, np.ufunc) and self.fn is not np.clip and (
                result.value.dtype != out.value.dtype):
            # `ufunc.accumulate`/`reduce` (and `np.cumsum`, `np.cumprod`, which call them)
            # compute in the dtype of `out`
            raise graph_break("numpy", reason=f"{self.describe()} with out= of another dtype")
        return write_into(tx, out, result.value)


    def _into_where(self, tx: Interpreter, args: list[VariableTracker],
                    kwargs: dict[str, VariableTracker], out: ArrayVariable,
                    where: VariableTracker) -> VariableTracker:
        """`ufunc(..., out=o, where=m)` (`np.divide(a, b, out=np.zeros_like(a), where=b >
        0)`): `o` keeps its values where `m` is false. The ufunc runs on operands holding 1
        there, where none of `_WHERE_UFUNCS` raises a flag NumPy's selected elements alone
        would not, and its results are chosen by `m`."""
        from ember.capture.operators import write_into

        if (self.fn not in _WHERE_UFUNCS or not isinstance(where, ArrayVariable)
                or where.value.dtype != np.bool_):
            raise graph_break("numpy", reason=f"{self.describe()} with where="
                                              f"{where.describe()}")
        graph, mask = tx.graph, where.value
        pick = numpy_api.lookup_function(np.where)
        safe = [ArrayVariable(call_numpy_api("where=", pick, graph, mask, a.value,
                                             True if a.value.dtype == np.bool_ else 1))
                if isinstance(a, ArrayVariable) else a for a in args]
        result = self.call(tx, safe, kwargs)
        if not isinstance(result, ArrayVariable):
            raise graph_break("numpy", reason=f"{self.describe()} with where= and several "
                                              "results")
        kept = call_numpy_api("where=", pick, graph, mask, result.value, out.value)
        return write_into(tx, out, kept)


# Functions other than ufuncs whose `out=` takes the result as `_into` writes it: np.clip,
# and the scans `np.cumsum(x, axis, out=o)` (`add.accumulate`: with no `dtype=`, an `o` of
# the result's dtype).
_INTO_FUNCTIONS = frozenset({np.clip, np.cumsum, np.cumprod})

# Ufuncs that raise no floating-point flag where every operand is 1.
_WHERE_UFUNCS = frozenset({np.add, np.subtract, np.multiply, np.divide, np.floor_divide,
                           np.remainder, np.power, np.float_power, np.reciprocal, np.negative,
                           np.absolute, np.sqrt, np.exp, np.log, np.log2, np.log10, np.log1p,
                           np.arcsin, np.arccos, np.maximum, np.minimum})


class UfuncMethodVariable(VariableTracker):
    """`np.add.at`, `np.multiply.outer`...: a method of a ufunc `numpy_api` knows."""

    def __init__(self, ufunc: NumpyFunctionVariable, name: str) -> None:
        self.ufunc = ufunc
        self.name = name

    def describe(self) -> str:
        return f"{self.ufunc.describe()}.{self.name}"

    def children(self) -> tuple[VariableTracker, ...]:
        return (self.ufunc,)

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        from ember.capture.operators import write_into

        if kwargs:
            raise graph_break("numpy", reason=f"{self.describe()} with keyword arguments")
        if self.name == "reduceat":
            from ember.capture.variables.prefixes import reduceat

            found = reduceat(tx, self.ufunc.fn, args)
            if found is None:
                raise graph_break("numpy", reason=f"{self.describe()} other than np.add's of "
                                                  "a 1-d array at a selection of indices")
            return found
        if self.name == "at" and len(args) == 3 and type(args[0]) is ArrayVariable and (
                type(args[1]) is not ArrayVariable):
            from ember.capture.variables.prefixes import scatter_selected

            updated = scatter_selected(tx, args[0].value, args[1], args[2], self.ufunc.fn)
            if updated is not None:
                write_into(tx, args[0], updated, broadcast=False)
                return ConstantVariable(None)
        values = [to_api(a) for a in args]
        if self.name == "outer":
            return wrap_api_result(call_numpy_api(self.describe(), numpy_api.ufunc_outer,
                                                  tx.graph, self.ufunc.fn, *values))
        if not args or not isinstance(args[0], ArrayVariable):
            raise graph_break("numpy", reason=f"{self.describe()} of a non-array")
        updated = call_numpy_api(self.describe(), numpy_api.ufunc_at, tx.graph, self.ufunc.fn,
                                 *values)
        write_into(tx, args[0], updated, broadcast=False)
        return ConstantVariable(None)


# Past this many numbers, a list handed to the frame is converted by NumPy: a graph takes
# each as an input, with a type guard each, which costs several times NumPy's conversion.
GIVEN_NUMBERS_LIMIT = 64


def _given_numbers(vt: VariableTracker) -> int:
    """The length of a list read from the frame whose items capture has not read, when it is
    longer than `GIVEN_NUMBERS_LIMIT` and holds only numbers (Python's or NumPy's scalars);
    else 0. (Not in a differentiated function: its numbers may be what it differentiates.)"""
    from ember.capture.variables.containers import ListVariable
    from ember.numpy_api.scalars import numbers_in_graph

    given = getattr(vt, "given", None)
    if not isinstance(vt, ListVariable) or given is None or not vt.unread or len(
            given) <= GIVEN_NUMBERS_LIMIT or not numbers_in_graph.get():
        return 0  # a differentiated function keeps its numbers in the graph
    numbers = (int, float, complex, np.number, np.bool_)
    return len(given) if all(isinstance(v, numbers) for v in given) else 0
