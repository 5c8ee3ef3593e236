"""Lookups of a dict of constant int keys at an int the graph computes in a loop body
(`table[k]`, `table.get(k, default)` and `k in table` with `k = int(codes[i])`: a recoding
table built before the loop, or a dict argument whose keys and items the entry guards), and
membership in a constant set or tuple of ints (`k in {1, 3, 5}`), there and at the frame's
level.

The dict's keys are Python ints (or bools, which equal 0 and 1) and its values Python
numbers of one type; the key is an integer or bool value of the graph. The value is chosen
by one select per key (`where(k == key, value, ...)`), which native loop bodies run in
registers, so a key equals a dict key exactly where Python's `==` (and hash) would match it.
A key missing from `table[k]` is a run-time check that sends the frame to plain Python,
which raises KeyError. Float keys (where -0.0, NaN and `2.0 == 2` matter), values of
several types and longer dicts are left as they were (a graph break)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.capture.variables.containers import DictVariable
    from ember.graph import Value

# The most keys a lookup tests (one compare and one select each, on every lookup).
MOST_KEYS = 64
_INT64 = np.iinfo(np.int64)


def _key(tx: Interpreter, key: VariableTracker) -> Value | None:
    """The run-time key as an int64 value, or None where it is no integer (or bool) value of
    the graph that int64 holds exactly."""
    if not isinstance(key, ArrayVariable) or key.value.shape != ():
        return None
    dtype = key.value.dtype
    if not (dtype.kind in "ib" or (dtype.kind == "u" and dtype.itemsize < 8)):
        return None
    return tx.graph.op("astype", [key.value], dtype=np.int64, weak=True)


def _keys(tx: Interpreter, owner: DictVariable | frozenset | set | tuple) -> list[int] | None:
    if isinstance(owner, (frozenset, set, tuple)):
        keys = list(owner)
    elif tx.graph.parent is None:
        # At the frame's level a dict is looked up only in loop bodies: a frame that looks a
        # dict up at a run-time key mostly also stores into it there (`parent[x] =
        # parent[parent[x]]` in a union-find's `find`), which breaks the graph anyway, and a
        # graph cut there costs more per call than the frame run as Python from its start.
        return None
    else:
        keys = list(owner.items)
    if not 0 < len(keys) <= MOST_KEYS or not all(
            type(k) in (int, bool) and _INT64.min <= k <= _INT64.max for k in keys):
        return None
    return [int(k) for k in keys]


def _numbers(values: list[VariableTracker]) -> list[Any] | None:
    """The values as Python numbers of one type (bool, int within int64, float)."""
    if not all(isinstance(v, ConstantVariable) for v in values):
        return None
    numbers = [v.constant() for v in values]  # type: ignore[attr-defined]
    if len({type(n) for n in numbers}) != 1 or type(numbers[0]) not in (bool, int, float):
        return None
    if type(numbers[0]) is int and not all(_INT64.min <= n <= _INT64.max for n in numbers):
        return None
    return numbers


def _found(tx: Interpreter, key: Value, keys: list[int]) -> Value:
    graph = tx.graph
    found = graph.op("eq", [key, graph.const(keys[0])])
    for k in keys[1:]:
        found = graph.op("logical_or", [found, graph.op("eq", [key, graph.const(k)])])
    return found


def contains(tx: Interpreter, owner: DictVariable | frozenset | set | tuple,
             item: VariableTracker, negated: bool) -> VariableTracker | None:
    """`item in owner` (`not in` where `negated`: a Python bool) of a dict or of a constant
    set or tuple of ints (`k in {1, 3, 5}`, a frozenset constant; `k in (2, 4)`: ints, whose
    identity test is their equality), or None where there is no rule."""
    key, keys = _key(tx, item), _keys(tx, owner)
    if key is None or keys is None:
        return None
    found = _found(tx, key, keys)
    if negated:
        found = tx.graph.op("logical_not", [found])
    return ArrayVariable(tx.graph.op("astype", [found], dtype=np.bool_, weak=True))


def lookup(tx: Interpreter, owner: DictVariable, item: VariableTracker,
           default: VariableTracker | None) -> VariableTracker | None:
    """`owner[item]` (`default` None: a missing key reruns the frame as Python, which raises
    KeyError) or `owner.get(item, default)`, or None where there is no rule."""
    from ember.capture.loops.frame_branches import add_check

    key, keys = _key(tx, item), _keys(tx, owner)
    if key is None or keys is None:
        return None
    values = list(owner.items.values())
    numbers = _numbers(values if default is None else [*values, default])
    if numbers is None:
        return None
    graph = tx.graph
    if default is None:
        add_check(tx, graph.op("logical_not", [_found(tx, key, keys)]))
        chosen = graph.const(numbers[-1])
        rest = zip(keys[:-1], numbers[:-1])
    else:
        chosen = graph.const(numbers[-1])
        rest = zip(keys, numbers[:-1])
    for k, n in reversed(list(rest)):
        chosen = graph.op("where", [graph.op("eq", [key, graph.const(k)]), graph.const(n),
                                    chosen])
    dtype = np.array(numbers).dtype
    return ArrayVariable(graph.op("astype", [chosen], dtype=dtype, weak=True))
