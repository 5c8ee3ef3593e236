"""`min(items, key=f)`, `max(items, key=f)` and `sorted(items, key=f)` of a few items whose
keys the graph computes (`min(range(4), key=lambda i: d[i])`, `max(pairs, key=lambda t:
t[1])`): the key function is inlined on each item and the items are picked by compares of
the keys, so a loop body runs them in registers rather than breaking.

Python's rules, compare by compare: `min` keeps the first item and replaces it by a later
one whose key is less (`max`: greater), so ties and NaN keys pick what CPython picks.
`sorted` is stable: an odd-even transposition network swaps a pair only where the later key
is less than the earlier one, which is Python's order for keys that are totally ordered; a
NaN key (whose order depends on CPython's merge steps) sends the frame to Python."""

from __future__ import annotations

import dis
import inspect
from types import CodeType
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.variables import choice
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.choice import ChoiceVariable
from ember.capture.variables.constant import fold
from ember.capture.variables.containers import ListVariable, TupleVariable
from ember.graph import Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

# Each item costs its key's ops and a pick; past these the picks cost more than they save.
MAX_PICKED = 64
MAX_SORTED = 12
# A longer range's ints would take more memory at once than Python's calls one by one.
_RANGE_MOST = 1 << 24


def keyed_extremum(tx: Interpreter, fn: Any, items: list[VariableTracker],
                   kwargs: dict[str, VariableTracker]) -> VariableTracker | None:
    """The item `min`/`max` returns; None where this does not apply (no key function, keys
    that are all constants, too many items, keys compared in Python)."""
    key = kwargs.get("key")
    if key is None or (key.is_constant() and key.constant() is None) \
            or set(kwargs) - {"key", "default"} \
            or len(items) > MAX_PICKED:
        return None
    if not items:  # the default, else Python's ValueError
        return kwargs["default"] if "default" in kwargs else fold(f"{fn.__name__}()", fn, [])
    keys = [key.call(tx, [item], {}) for item in items]
    if all(k.is_constant() for k in keys + items):
        return None
    best, best_key = items[0], keys[0]
    for item, k in zip(items[1:], keys[1:]):
        beats = _beats(tx, "<" if fn is min else ">", k, best_key)
        if beats is None:
            return None
        if isinstance(beats, bool):
            best, best_key = (item, k) if beats else (best, best_key)
            continue
        best = _pick(tx, beats, item, best)
        best_key = _pick(tx, beats, k, best_key)
        if best is None or best_key is None:
            return None
    return best


def keyed_sorted(tx: Interpreter, items: list[VariableTracker], keys: list[VariableTracker],
                 reverse: bool) -> VariableTracker | None:
    """`sorted(items, key=f, reverse=...)` where the graph computes the keys, as a new list of
    picks; None where this does not apply."""
    if not 2 <= len(items) <= MAX_SORTED or not all(_number(tx, k) for k in keys):
        return None
    from ember.capture.loops.frame_branches import add_check

    graph = tx.graph
    for k in keys:
        value = k.value if isinstance(k, ArrayVariable) else None
        if value is not None and value.dtype.kind == "f":
            add_check(tx, graph.op("isnan", [value]))
    # Python's reverse=True keeps equal keys in their order: reverse, sort stably, reverse.
    pairs = list(zip(keys, items))
    if reverse:
        pairs.reverse()
    n = len(pairs)
    for round_ in range(n):
        for j in range(round_ % 2, n - 1, 2):
            (ka, a), (kb, b) = pairs[j], pairs[j + 1]
            swap = _beats(tx, "<", kb, ka)
            if swap is None:
                return None
            if isinstance(swap, bool):
                if swap:
                    pairs[j], pairs[j + 1] = pairs[j + 1], pairs[j]
                continue
            first = (_pick(tx, swap, kb, ka), _pick(tx, swap, b, a))
            second = (_pick(tx, swap, ka, kb), _pick(tx, swap, a, b))
            if None in first or None in second:
                return None
            pairs[j], pairs[j + 1] = first, second  # type: ignore[assignment]
    if reverse:
        pairs.reverse()
    return ListVariable([item for _, item in pairs])


def _number(tx: Interpreter, vt: VariableTracker) -> bool:
    from ember.capture.loops.scalars import scalar_value

    return (vt.is_constant() and isinstance(vt.constant(), (bool, int, float))) \
        or scalar_value(tx, vt) is not None


def _beats(tx: Interpreter, op: str, a: VariableTracker,
           b: VariableTracker) -> VariableTracker | bool | None:
    """`a < b` (`op`) as Python decides it: a bool where both are constants, a 0-d bool of
    the graph, or None for anything else (tuples of the graph's numbers, objects)."""
    from ember.capture import operators

    if a.is_constant() and b.is_constant():
        return None if not (_number(tx, a) and _number(tx, b)) else bool(
            a.constant() < b.constant() if op == "<" else a.constant() > b.constant())
    if not (_number(tx, a) and _number(tx, b)):
        return None
    beats = choice.truth(tx.graph, operators.compare_op(tx, op, a, b))
    if isinstance(beats, ArrayVariable) and not beats.value.shape \
            and beats.value.dtype == np.bool_:
        return beats
    return None


def _pick(tx: Interpreter, flag: VariableTracker, a: VariableTracker,
          b: VariableTracker) -> VariableTracker | None:
    """`a if flag else b`: numbers as one value of the graph (or a choice of two types),
    tuples of one length item by item; None for anything else."""
    if isinstance(a, TupleVariable) and isinstance(b, TupleVariable):
        if len(a.items) != len(b.items):
            return None
        picked = [_pick(tx, flag, x, y) for x, y in zip(a.items, b.items)]
        return None if None in picked else TupleVariable(picked)  # type: ignore[arg-type]
    if not (_number(tx, a) and _number(tx, b)):
        return None
    if a.is_constant() and b.is_constant() and type(a.constant()) is type(b.constant()) \
            and a.constant() == b.constant():
        return a
    return choice.flattened(tx.graph, ChoiceVariable(flag, a, b))


def looked_up_keys(tx: Interpreter, key: VariableTracker | None,
                   items: Value) -> Value | None:
    """The keys of many items at once (`items`, 1-d ints) where the key function looks each
    item up in an array and nothing else (`lambda i: d[i]`, `lambda i: -score[i]`): the
    lookup of all of them, one key per item as the call on each would give. None for any
    other key; its bytecode is read first, so that nothing else is ever traced with an
    array for an item (`arr[i][1]` of a row, Python's ints)."""
    from ember.capture.variables.functions import FunctionVariable

    if not isinstance(key, FunctionVariable) or key.kwdefaults(tx) or key.defaults(tx):
        return None
    negated = _lookup_shape(key.code)
    if negated is None or not tx.tracer.loop_ops:
        return None
    result = key.call(tx, [ArrayVariable(items)], {})
    if not isinstance(result, ArrayVariable) or result.value.shape != items.shape \
            or result.value.dtype.kind not in ("f" if negated else "biuf"):
        return None
    return result.value


_LOADS = {"LOAD_DEREF", "LOAD_GLOBAL", "LOAD_FAST", "LOAD_CLASSDEREF"}
_SKIPPED = {"RESUME", "COPY_FREE_VARS", "MAKE_CELL", "NOP", "CACHE"}


def _lookup_shape(code: CodeType) -> bool | None:
    """Whether a one-argument function's code is `return a[arg]` (False) or `return
    -a[arg]` (True), `a` a name other than the argument; None for any other code."""
    if code.co_argcount != 1 or code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) \
            or code.co_kwonlyargcount:
        return None
    arg = code.co_varnames[0]
    ops = [(i.opname, i.argval, i.arg) for i in dis.get_instructions(code)
           if i.opname not in _SKIPPED]
    if len(ops) not in (4, 5) or ops[-1][0] != "RETURN_VALUE":
        return None
    (load, name, oparg), (load_arg, arg_name, _), (subscr, _, _) = ops[:3]
    if load not in _LOADS or name == arg or (load == "LOAD_GLOBAL" and oparg & 1) \
            or load_arg != "LOAD_FAST" or arg_name != arg or subscr != "BINARY_SUBSCR":
        return None
    if len(ops) == 5:
        return True if ops[3][0] == "UNARY_NEGATIVE" else None
    return False


def many_of_range(tx: Interpreter, iterable: VariableTracker, most: int,
                  kwargs: dict[str, VariableTracker]) -> Any:
    """A `range` of more than `most` constant ints picked or sorted by a key function at the
    frame's level, as the list of its ints (`AppendedListVariable`), whose whole-list uses
    compute the keys at once (`built_lists`); None for anything else."""
    from ember.capture.variables.appended import AppendedListVariable

    key = kwargs.get("key")
    if key is None or key.is_constant() or tx.graph.parent is not None \
            or not tx.tracer.loop_ops or not iterable.is_constant():
        return None
    items = iterable.constant()
    if not isinstance(items, range) or not most < len(items) <= _RANGE_MOST \
            or max(abs(items.start), abs(items.stop)) >= 2 ** 62:
        return None
    graph = tx.graph
    n = len(items)
    ints = graph.op("add", [graph.op("mul", [graph.arange(0, 1, n, np.int64), graph.const(
        items.step, np.int64, weak=False)]), graph.const(items.start, np.int64, weak=False)])
    return AppendedListVariable(ints, graph.const(n), (np.dtype(np.int64), (), True, False), n)
