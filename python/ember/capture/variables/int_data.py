"""Run-time Python ints that NumPy takes as data, not as structure: the fill value of
`np.full(n, big)`, the operands of `np.where(mask, 0, big)` and the bounds of
`np.clip(i, 0, w - 1)`, the lone operand of a ufunc (`np.sqrt(n)`), and an int stored into
an array (`out[0] = n`, `stack[1] = len(a) - 1`). Elsewhere a run-time int is specialised
(`PythonScalarVariable.specialise`: a guarded constant, one capture per value); these take
it as a graph input instead, so a function whose sizes or int arguments change keeps one
graph. Each follows NumPy's conversion: an int beyond the range of the integer dtype it
lands in (NumPy's OverflowError) sends the frame to plain Python (`frame_branches.add_check`),
and only dtypes whose conversion from an int64 is NumPy's own (integers, bool, float64) are
taken; the rest are specialised as before. Only at the frame's level: a loop body reads
run-time ints through its own parameters."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.graph.value import Value

# Per function: the positions and keywords of the operands a run-time int may be, and the
# positions of every data operand (the arrays whose dtypes the int meets).
_OPERANDS: dict[Any, tuple[tuple[int, ...], tuple[str, ...], tuple[int, ...]]] = {
    np.where: ((1, 2), ("x", "y"), (1, 2)),
    np.clip: ((1, 2), ("a_min", "a_max", "min", "max"), (0, 1, 2)),
}


def _runtime_int(vt: VariableTracker) -> bool:
    from ember.capture.variables.scalar import PythonScalarVariable

    return isinstance(vt, PythonScalarVariable) and vt.python_class is int


def _dtype_of(vt: VariableTracker | None) -> np.dtype | None | bool:
    """The dtype a `dtype=` argument names; None for none given; False where it is not a
    constant that names one."""
    if vt is None:
        return None
    if not vt.is_constant():
        return False
    named = vt.constant()
    if named is None:
        return None
    try:
        return np.dtype(named)
    except TypeError:
        return False


def _takes(dtype: np.dtype) -> bool:
    return dtype.kind in "biu" or dtype == np.float64


def _strong(tx: Interpreter, vt: VariableTracker, dtype: np.dtype) -> Value:
    """The run-time int as a strong 0-d value of `dtype`, checked against its range first."""
    from ember.capture.loops import frame_branches
    from ember.numpy_api.elementwise import python_ints_out_of_range

    graph = tx.graph
    value = vt.graph_value()  # type: ignore[attr-defined]
    if dtype.kind in "iu":
        failed = python_ints_out_of_range(graph, [value, graph.const(0, dtype, weak=False)])
        if failed is not None:
            frame_branches.add_check(tx, failed)
    return graph.op("astype", [value], dtype=dtype, weak=False, scalar=True)


def operands(tx: Interpreter, fn: Any, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]
             ) -> tuple[list[VariableTracker], dict[str, VariableTracker]]:
    """`args` and `kwargs` of `fn` with each run-time int that NumPy takes as data turned
    into a graph value; unchanged where there is none, or outside the frame's level."""
    if tx.graph.parent is not None:
        return args, kwargs
    if fn is np.full:
        return _full(tx, args, kwargs)
    if isinstance(fn, np.ufunc) and fn.nin == 1 and len(args) == 1 and not kwargs \
            and _runtime_int(args[0]):
        # NumPy makes a lone Python int an int64 array (ints beyond int64 never get here)
        return [ArrayVariable(_strong(tx, args[0], np.dtype(np.int64)))], kwargs
    where = _OPERANDS.get(fn)
    if where is None:
        return args, kwargs
    positions, names, data = where
    if not any(_runtime_int(a) for k, a in enumerate(args) if k in positions) and not any(
            _runtime_int(v) for k, v in kwargs.items() if k in names):
        return args, kwargs
    return _weak_operands(tx, args, kwargs, positions, names, data)


def _weak_operands(tx: Interpreter, args: list[VariableTracker],
                   kwargs: dict[str, VariableTracker], positions: tuple[int, ...],
                   names: tuple[str, ...], data: tuple[int, ...]
                   ) -> tuple[list[VariableTracker], dict[str, VariableTracker]]:
    """Run-time ints among an elementwise function's operands as weak scalars (NumPy's
    Python ints beside arrays), each checked against the range of the integer arrays
    beside it."""
    from ember.capture.loops import frame_branches
    from ember.graph.value import Value
    from ember.numpy_api.elementwise import python_ints_out_of_range

    arrays = [a for k, a in enumerate(args) if k in data] + [
        v for k, v in kwargs.items() if k in names]
    if any(not isinstance(a, ArrayVariable) and not a.is_constant() and not _runtime_int(a)
           or isinstance(a, ArrayVariable) and not _takes(a.value.dtype) for a in arrays):
        return args, kwargs  # a float32 operand: NumPy rounds the int through a double
    new_args = [ArrayVariable(a.graph_value()) if k in positions and _runtime_int(a)  # type: ignore[attr-defined]
                else a for k, a in enumerate(args)]
    new_kwargs = {k: ArrayVariable(v.graph_value()) if k in names and _runtime_int(v)  # type: ignore[attr-defined]
                  else v for k, v in kwargs.items()}
    values = [a.value for k, a in enumerate(new_args) if k in data and isinstance(
        a, ArrayVariable)] + [v.value for k, v in new_kwargs.items()
                              if k in names and isinstance(v, ArrayVariable)]
    failed = python_ints_out_of_range(tx.graph, [v for v in values if isinstance(v, Value)])
    if failed is not None:
        frame_branches.add_check(tx, failed)
    return new_args, new_kwargs


def _full(tx: Interpreter, args: list[VariableTracker], kwargs: dict[str, VariableTracker]
          ) -> tuple[list[VariableTracker], dict[str, VariableTracker]]:
    """`np.full(shape, v, dtype)` of a run-time int `v`: int64 where no dtype is given (ints
    beyond int64 never get here), else the dtype's own conversion."""
    fill_in_kwargs = len(args) < 2
    fill = kwargs.get("fill_value") if fill_in_kwargs else args[1]
    if fill is None or not _runtime_int(fill):
        return args, kwargs
    dtype = _dtype_of(args[2] if len(args) > 2 else kwargs.get("dtype"))
    if dtype is False:
        return args, kwargs
    dtype = np.dtype(np.int64) if dtype is None else dtype
    assert isinstance(dtype, np.dtype)
    if not _takes(dtype):
        return args, kwargs
    value = ArrayVariable(_strong(tx, fill, dtype))
    if fill_in_kwargs:
        return args, {**kwargs, "fill_value": value}
    return [args[0], value, *args[2:]], kwargs


def stored(tx: Interpreter, array: Value, value: VariableTracker) -> Value | None:
    """A run-time int stored into `array` (`out[0] = n`) as a value of its dtype, or None
    where it stays a guarded constant."""
    if tx.graph.parent is not None or not _runtime_int(value) or not _takes(array.dtype):
        return None
    return _strong(tx, value, array.dtype)
