"""Uses of a list a loop op built (`variables/appended.py`) that make values from all its
items: `max(lst)`/`min(lst)`, `sorted(lst)`, `lst.sort()`, `lst[a:b]`, `lst[::-1]`,
`lst.reverse()`, `v in lst`, `lst.index(v)`, `lst.count(v)`, `any(lst)`, `all(lst)`,
`zip(lst, ...)` in a `for` (`ranges.ZippedItems`).

Each is what Python computes, on the buffer's first `count` places:
- `max`/`min` of numbers: the first item that no later one beats (`>`, `<`), which is the
  first place of the extreme value (`argmax`); a float NaN, whose comparisons make the
  answer depend on its place, and an empty list, where Python raises, rerun the frame as
  Python.
- `sorted`: a stable sort (Python's sort is stable), of numbers or of tuples compared item
  by item (a stable sort by each column, the last first); `reverse=True` reverses, sorts and
  reverses again, as CPython does, so that equal items keep their order. The places past
  the count are moved after every item by a last stable sort on whether a place is past
  it. A NaN reruns the frame as Python (its comparisons make Python's order its own).
- `lst[a:b]` (step 1): the places from `a` on, as Python bounds them by the length.
- `v in lst`, `lst.index(v)`, `lst.count(v)`: the places whose item equals `v`, column by
  column for tuples; a NaN looked for (only identity finds it) and a missing `index` rerun
  the frame as Python."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.variables.appended import (
    AppendedListVariable,
    ListMethod,
    columns,
    is_mixed,
    is_list_item as appended_is_list,
    is_tuple,
)
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.graph import Graph, Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter


def _numbers_only(built: AppendedListVariable, what: str, tuples: bool = False) -> None:
    """Refuse `what` of a generator, a queue, rows, or (unless `tuples`) tuples."""
    built._list_only(what)
    built._from_start(what)
    if built.item[1] and not (tuples and is_tuple(built.item)):
        raise graph_break("data_dependent_value", what=f"{what} of a list of "
                                                       f"{'tuples' if is_tuple(built.item) else 'arrays'} built in a loop")


def _count(graph: Graph, built: AppendedListVariable) -> Value:
    if built.known_length is not None:
        return graph.const(built.known_length)
    return built.count


def _past(graph: Graph, built: AppendedListVariable) -> Value | None:
    """True at the buffer's places past the count; None where every place holds an item."""
    if built.known_length is not None and built.known_length == built.buffer.shape[0]:
        return None
    places = graph.arange(0, 1, built.buffer.shape[0], np.int64)
    return graph.op("ge", [places, _count(graph, built)])


def _rerun_on_nan(tx: Interpreter, built: AppendedListVariable, values: Value) -> None:
    """A NaN among the items (float columns of `values`, the buffer or one column of it)
    reruns the frame as Python."""
    if values.dtype.kind != "f":
        return
    from ember.capture.loops.frame_branches import add_check

    graph = tx.graph
    nan = graph.op("isnan", [values])
    past = _past(graph, built)
    if past is not None:
        while past.ndim < nan.ndim:
            past = graph.op("expand_dims", [past], axis=[past.ndim])
        nan = graph.op("logical_and", [nan, graph.op("logical_not", [past])])
    add_check(tx, graph.op("any", [nan], axis=None, keepdims=False))


def extremum(tx: Interpreter, fn: Any, built: AppendedListVariable,
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
    """`max(lst)` / `min(lst)` of a list of numbers a loop op built."""
    what = f"{fn.__name__}()"
    picked = _key_of(tx, built, kwargs.get("key")) if set(kwargs) == {"key"} else None
    if kwargs and (picked is None or (isinstance(picked, list) and len(picked) != 1)):
        raise graph_break("data_dependent_value", what=f"{what} of a list built in a loop, "
                                                       "with arguments")
    _numbers_only(built, what, tuples=isinstance(picked, list))
    built._here(tx)
    graph = tx.graph
    from ember.capture.loops.frame_branches import add_check

    count = _count(graph, built)
    if built.known_length is None:
        # Python raises ValueError for an empty list: the frame runs as Python.
        add_check(tx, graph.op("eq", [count, graph.const(0)]))
    elif built.known_length == 0:
        raise graph_break("user_error", type="ValueError",
                          message=f"{fn.__name__}() arg is an empty sequence")
    values = (built.buffer if picked is None else picked if isinstance(picked, Value)
              else _column(graph, built.buffer, picked[0]))
    _rerun_on_nan(tx, built, values)
    past = _past(graph, built)
    if past is not None:
        # The places past the count hold a value no item beats: the first extreme place
        # is an item's (the items come first).
        if values.dtype.kind == "f":
            fill = -np.inf if fn is max else np.inf
        elif values.dtype.kind == "b":
            fill = fn is not max
        else:
            info = np.iinfo(values.dtype)
            fill = info.min if fn is max else info.max
        values = graph.op("where", [past, graph.const(fill, values.dtype, weak=False), values])
    if values.dtype.kind == "b":
        values = graph.op("astype", [values], dtype=np.dtype(np.int8))
    place = graph.op("argmax" if fn is max else "argmin", [values], axis=0, keepdims=False)
    return built.item_at(tx, place)


def key_columns(tx: Interpreter, built: AppendedListVariable,
                key: VariableTracker | None) -> list[int] | None:
    """The columns of a list of tuples a key function picks (`key=lambda t: t[1]`, `lambda
    e: (e[2], e[0])`): the key is called once on a stand-in item whose numbers are the
    buffer's columns, and must return one of them, or a tuple of them, as they are. None for
    any other key (one that computes from the numbers, or of a list of numbers)."""
    from ember.capture.variables.array import ArrayVariable
    from ember.capture.variables.containers import ListVariable, TupleVariable

    if key is None or key.is_constant() or not is_tuple(built.item) \
            or built.flags is not None:
        return None
    built._list_only("a key function")
    built._from_start("a key function")
    graph = tx.graph
    stand_ins = [ArrayVariable(_column(graph, built.buffer, j))
                 for j in range(len(columns(built.item)))]
    made = ListVariable if appended_is_list(built.item) else TupleVariable
    result = key.call(tx, [made(list(stand_ins))], {})

    def place(vt: VariableTracker) -> int | None:
        return next((j for j, c in enumerate(stand_ins) if vt is c), None)

    if place(result) is not None:
        return [place(result)]  # type: ignore[list-item]
    if isinstance(result, TupleVariable) and result.items and all(
            place(v) is not None for v in result.items):
        return [place(v) for v in result.items]  # type: ignore[misc]
    return None


def _key_of(tx: Interpreter, built: AppendedListVariable,
            key: VariableTracker | None) -> list[int] | Value | None:
    """What a key function compares: the columns of tuple items it picks (`key_columns`),
    or, for a list of integers, the keys of all items where it looks each up in an array
    (`keyed.looked_up_keys`: `key=lambda i: -score[i]`); None for any other key."""
    from ember.capture.variables.keyed import looked_up_keys

    picked = key_columns(tx, built, key)
    if picked is not None or is_tuple(built.item) or built.item[1] or built.flags is not None \
            or built.buffer.dtype.kind not in "iu":
        return picked
    built._list_only("a key function")
    built._from_start("a key function")
    graph = tx.graph
    items = built.buffer
    past = _past(graph, built)
    if past is not None:  # the places past the count look up the first place
        items = graph.op("where", [past, graph.const(0, items.dtype, weak=False), items])
    return looked_up_keys(tx, key, items)


def _column(graph: Graph, buffer: Value, j: int) -> Value:
    """Column `j` of a buffer of tuples, 1-d."""
    return graph.op("reshape", [graph.op("slice", [buffer], start=[0, j],
                                         stop=[buffer.shape[0], j + 1], step=[1, 1])],
                    shape=[buffer.shape[0]])


def _stable_order(graph: Graph, keys: Value, order: Value | None) -> Value:
    """The places of a stable sort by `keys` (1-d), of the places `order` lists where given."""
    if order is not None:
        keys = graph.op("gather", [keys, order], axis=0)
    moved = graph.op("argsort", [keys], axis=0)
    return moved if order is None else graph.op("gather", [order, moved], axis=0)


def _reversed_places(graph: Graph, built: AppendedListVariable) -> Value:
    """The places of the items in reverse order, then the places past the count."""
    places = graph.arange(0, 1, built.buffer.shape[0], np.int64)
    count = _count(graph, built)
    last = graph.op("sub", [count, graph.const(1)])
    return graph.op("where", [graph.op("lt", [places, count]),
                              graph.op("sub", [last, places]), places])


def sorted_buffer(tx: Interpreter, built: AppendedListVariable, reverse: bool,
                  what: str, picked: list[int] | Value | None = None) -> Value:
    """The buffer with its items in the order Python's `sorted(lst, reverse=reverse)` gives
    them, the places past the count after them; `picked`: the columns of tuple items a key
    function compares (or the keys it gives, one per place), else all of them."""
    _numbers_only(built, what, tuples=True)
    if built.flags is not None:
        raise graph_break("data_dependent_value", what=f"{what} of a list of Python numbers "
                                                       "and NumPy scalars")
    built._here(tx)
    graph = tx.graph
    buffer = built.buffer
    if isinstance(picked, Value):
        keys = [picked]
    elif picked is not None or is_tuple(built.item):
        keys = [_column(graph, buffer, j) for j in (
            picked if picked is not None else range(len(columns(built.item))))]
    else:
        keys = [buffer]
    for key in keys:
        _rerun_on_nan(tx, built, key)
    order: Value | None = _reversed_places(graph, built) if reverse else None
    for key in reversed(keys):
        if key.ndim > 1:
            key = graph.op("reshape", [key], shape=[buffer.shape[0]])
        if key.dtype.kind == "b":
            key = graph.op("astype", [key], dtype=np.dtype(np.int8))
        order = _stable_order(graph, key, order)
    past = _past(graph, built)
    if past is not None:
        order = _stable_order(graph, graph.op("astype", [past], dtype=np.dtype(np.int8)),
                              order)
    assert order is not None
    if reverse:
        # Reversed again: the items' part only, the places past the count stay after it.
        order = graph.op("gather", [order, _reversed_places(graph, built)], axis=0)
    return graph.op("gather", [buffer, order], axis=0)


def sorted_list(tx: Interpreter, built: AppendedListVariable,
                kwargs: dict[str, VariableTracker]) -> AppendedListVariable:
    """`sorted(lst)`, `sorted(lst, reverse=...)`, `sorted(pairs, key=lambda p: p[1])`: a new
    list of the items in order."""
    picked, kwargs = _key_arg(tx, built, kwargs, "sorted()")
    reverse = _reverse_arg(kwargs, "sorted()")
    buffer = sorted_buffer(tx, built, reverse, "sorted()", picked)
    return AppendedListVariable(buffer, built.count, built.item, built.known_length)


def _key_arg(tx: Interpreter, built: AppendedListVariable, kwargs: dict[str, VariableTracker],
             what: str) -> tuple[list[int] | Value | None, dict[str, VariableTracker]]:
    """What a `key=` compares (`_key_of`; None: no key), and the other arguments."""
    key = kwargs.get("key")
    if key is None or (key.is_constant() and key.constant() is None):
        return None, {k: v for k, v in kwargs.items() if k != "key"}
    picked = _key_of(tx, built, key)
    if picked is None:
        raise graph_break("data_dependent_value", what=f"{what} of a list built in a loop, "
                                                       "with a key")
    return picked, {k: v for k, v in kwargs.items() if k != "key"}


def _reverse_arg(kwargs: dict[str, VariableTracker], what: str) -> bool:
    if set(kwargs) - {"reverse"}:
        raise graph_break("data_dependent_value", what=f"{what} of a list built in a loop, "
                                                       "with a key")
    reverse = kwargs.get("reverse", ConstantVariable(False))
    if not reverse.is_constant():
        raise graph_break("data_dependent_value", what=f"{what} with a run-time reverse=")
    return bool(reverse.constant())


class SortMethod(ListMethod):
    """`lst.sort` of a list a loop op built: sorting changes the list itself."""

    name = "sort"

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        if args:
            raise graph_break("user_error", type="TypeError",
                              message="sort() takes no positional arguments")
        picked, kwargs = _key_arg(tx, self.built, kwargs, "list.sort()")
        reverse = _reverse_arg(kwargs, "list.sort()")
        self.built.changed("sort()")
        self.built.buffer = sorted_buffer(tx, self.built, reverse, "list.sort()", picked)
        return ConstantVariable(None)


def sliced(tx: Interpreter, built: AppendedListVariable, index: slice
           ) -> AppendedListVariable:
    """`lst[a:b]` (step 1) of a list a loop op built: a new list of those items."""
    if index.step == -1 and index.start is None and index.stop is None:
        return reversed_copy(tx, built, "lst[::-1]")
    if index.step not in (None, 1) or not all(
            b is None or type(b) is int for b in (index.start, index.stop)):
        raise graph_break("data_dependent_value", what="a slice of a list built in a loop "
                                                       "with a step or run-time bounds")
    built._list_only("slicing")
    built._from_start("slicing")
    built._here(tx)
    graph = tx.graph
    if built.known_length is not None:
        lo, hi, _ = index.indices(built.known_length)
        hi = max(hi, lo)

        def rows(v: Value) -> Value:
            return graph.op("slice", [v], start=[lo] + [0] * (v.ndim - 1),
                            stop=[hi, *v.shape[1:]], step=[1] * v.ndim)

        return AppendedListVariable(rows(built.buffer), graph.const(hi - lo), built.item,
                                    hi - lo, flags=None if built.flags is None else
                                    rows(built.flags), other=built.other)
    count = built.count
    size = built.buffer.shape[0]
    if size == 0:
        return built

    def bound(b: int | None, default: Value) -> Value:
        # Python's bounds: from the end where negative, clamped to [0, count].
        if b is None:
            return default
        at = graph.op("add", [count, graph.const(b)]) if b < 0 else graph.const(b)
        return graph.op("minimum", [graph.op("maximum", [at, graph.const(0)]), count])

    lo = bound(index.start, graph.const(0))
    hi = graph.op("maximum", [bound(index.stop, count), lo])
    places = graph.op("minimum", [graph.op("add", [graph.arange(0, 1, size, np.int64), lo]),
                                  graph.const(size - 1)])
    buffer = graph.op("gather", [built.buffer, places], axis=0)
    flags = None if built.flags is None else graph.op("gather", [built.flags, places], axis=0)
    return AppendedListVariable(buffer, graph.op("sub", [hi, lo]), built.item, None,
                                flags=flags, other=built.other)


def _matches(tx: Interpreter, built: AppendedListVariable, item: VariableTracker,
             what: str) -> Value:
    """True at each place of the buffer holding an item equal to `item` (`item is x or
    item == x`, as `in`, `index` and `count` test), false past the count. A float NaN looked
    for, which only the identity of the object would find, reruns the frame as Python."""
    from ember.capture.loops.appends import _item_value
    from ember.capture.loops.frame_branches import add_check
    from ember.capture.loops.list_starts import number_value

    _numbers_only(built, what, tuples=True)
    if built.flags is not None:
        raise graph_break("data_dependent_value", what=f"{what} of a list of Python numbers "
                                                       "and NumPy scalars")
    built._here(tx)
    graph = tx.graph
    if is_tuple(built.item):
        from ember.capture.variables.appended import is_list_item
        from ember.capture.variables.containers import ListVariable, TupleVariable

        wanted = ListVariable if is_list_item(built.item) else TupleVariable
        if not (type(item) is wanted or (wanted is TupleVariable and isinstance(
                item, ConstantVariable) and type(item.constant()) is tuple)):
            raise graph_break("data_dependent_value", what=f"{what} of {item.describe()} in a "
                                                           "list of other items")
        parts = ([ConstantVariable(c) for c in item.constant()]
                 if isinstance(item, ConstantVariable) else item.items)  # type: ignore[attr-defined]
        numbers = [_item_value(tx, p) for p in parts]
        cols = columns(built.item)
        if len(numbers) != len(cols):
            return graph.full((built.buffer.shape[0],), False, np.dtype(np.bool_))
    else:
        numbers = [number_value(tx, item)]
        if numbers[0] is None:
            raise graph_break("data_dependent_value", what=f"{what} of {item.describe()}")
        cols = [built.item]
    equal: Value | None = None
    for j, (number, kind) in enumerate(zip(numbers, cols, strict=True)):
        if (number.dtype.kind == "f") != (kind[0].kind == "f"):
            # An int against a float: NumPy compares in float64, Python exactly.
            raise graph_break("data_dependent_value", what=f"{what} of an integer among "
                                                           "floats, or a float among integers")
        if number.dtype.kind == "f":
            add_check(tx, graph.op("isnan", [number]))
        elif is_mixed(built.item):
            # Tuples of several types hold their integers as float64, exact to 2**53: an
            # integer past it would compare equal to its rounding.
            big = graph.const(2 ** 53)
            add_check(tx, graph.op("logical_or", [graph.op("gt", [number, big]), graph.op(
                "lt", [number, graph.op("negative", [big])])]))
        column = built.buffer if not is_tuple(built.item) else graph.op(
            "reshape", [graph.op("slice", [built.buffer], start=[0, j],
                                 stop=[built.buffer.shape[0], j + 1], step=[1, 1])],
            shape=[built.buffer.shape[0]])
        same = graph.op("eq", [column, number])
        equal = same if equal is None else graph.op("logical_and", [equal, same])
    assert equal is not None
    past = _past(graph, built)
    if past is not None:
        equal = graph.op("logical_and", [equal, graph.op("logical_not", [past])])
    return equal


def contains(tx: Interpreter, built: AppendedListVariable, item: VariableTracker,
             negated: bool) -> VariableTracker:
    """`item in lst` (`not in` where `negated`): a Python bool."""
    from ember.capture.variables.array import ArrayVariable

    graph = tx.graph
    found = graph.op("any", [_matches(tx, built, item, "`in`")], axis=None, keepdims=False)
    if negated:
        found = graph.op("logical_not", [found])
    return ArrayVariable(graph.op("astype", [found], dtype=np.dtype(np.bool_), weak=True))


class SearchMethod(ListMethod):
    """`lst.index(v)` and `lst.count(v)` of a list a loop op built."""

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        from ember.capture.loops.frame_branches import add_check
        from ember.capture.variables.array import ArrayVariable

        if kwargs or len(args) != 1:
            raise graph_break("data_dependent_value", what=f"list.{self.name} with other than "
                                                           "one argument")
        graph = tx.graph
        equal = _matches(tx, self.built, args[0], f"list.{self.name}()")
        if self.name == "count":
            total = graph.op("sum", [graph.op("astype", [equal], dtype=np.dtype(np.int64))],
                             axis=None, keepdims=False)
            return ArrayVariable(graph.op("astype", [total], dtype=np.dtype(np.int64),
                                          weak=True))
        # Python raises ValueError where no item is equal: the frame runs as Python.
        add_check(tx, graph.op("logical_not", [graph.op("any", [equal], axis=None,
                                                        keepdims=False)]))
        place = graph.op("argmax", [graph.op("astype", [equal], dtype=np.dtype(np.int8))],
                         axis=0, keepdims=False)
        return ArrayVariable(graph.op("astype", [place], dtype=np.dtype(np.int64), weak=True))


def reversed_parts(tx: Interpreter, built: AppendedListVariable, what: str
                   ) -> tuple[Value, Value | None]:
    """The buffer and flags with the items in reverse order, the places past the count after
    them."""
    built._list_only(what)
    built._from_start(what)
    built._here(tx)
    graph = tx.graph
    places = _reversed_places(graph, built)
    flags = None if built.flags is None else graph.op("gather", [built.flags, places], axis=0)
    return graph.op("gather", [built.buffer, places], axis=0), flags


def reversed_copy(tx: Interpreter, built: AppendedListVariable, what: str,
                  iterator: bool = False) -> AppendedListVariable:
    """`lst[::-1]`, or `reversed(lst)` (`iterator`): the items in reverse order."""
    buffer, flags = reversed_parts(tx, built, what)
    return AppendedListVariable(buffer, built.count, built.item, built.known_length, iterator,
                                flags, other=built.other)


class ReverseMethod(ListMethod):
    """`lst.reverse()` of a list a loop op built: the list itself reversed."""

    name = "reverse"

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        if args or kwargs:
            raise graph_break("user_error", type="TypeError",
                              message="list.reverse() takes no arguments")
        self.built.changed("reverse()")
        self.built.buffer, self.built.flags = reversed_parts(tx, self.built, "list.reverse()")
        return ConstantVariable(None)


def all_any(tx: Interpreter, fn: Any, built: AppendedListVariable) -> VariableTracker:
    """`any(lst)` / `all(lst)`: whether an item / every item is true (a number other than
    zero, NaN included; a tuple or list always), a Python bool."""
    from ember.capture.variables.array import ArrayVariable

    what = f"{fn.__name__}()"
    _numbers_only(built, what, tuples=True)
    built._here(tx)
    graph = tx.graph
    count = _count(graph, built)
    if is_tuple(built.item):
        # Tuples and lists of a few numbers are all true: any() is whether there is one.
        found = graph.op("gt", [count, graph.const(0)]) if fn is any else graph.const(True)
    else:
        values = built.buffer if built.buffer.dtype == np.bool_ else graph.op(
            "ne", [built.buffer, graph.const(0, built.buffer.dtype, weak=False)])
        past = _past(graph, built)
        if past is not None:
            # Past the count: false for any(), true for all().
            values = graph.op("logical_and" if fn is any else "logical_or", [
                values, graph.op("logical_not", [past]) if fn is any else past])
        found = graph.op("any" if fn is any else "all", [values], axis=None, keepdims=False)
    return ArrayVariable(graph.op("astype", [found], dtype=np.dtype(np.bool_), weak=True))


# The most items of a written-out list (`from_items`) stored into a buffer.
_ITEMS_MOST = 64


def from_items(tx: Interpreter, items: list[VariableTracker]) -> AppendedListVariable | None:
    """A list of a few numbers of one type that the graph computes (a short loop written
    out: `out = [x[0] * 2, x[1] * 2]`) as a buffer of them, for the whole-list uses above;
    None where an item is not such a number or they differ in type."""
    from ember.capture.loops.appends import _kind
    from ember.capture.loops.list_starts import number_value

    if not 0 < len(items) <= _ITEMS_MOST or all(i.is_constant() for i in items) or (
            not tx.tracer.loop_ops):
        return None  # (a differentiated graph: its element stores have no gradient)
    values = [number_value(tx, i) for i in items]
    if any(v is None for v in values):
        return None
    kinds = {_kind(v) for v in values}  # type: ignore[arg-type]
    if len(kinds) != 1:
        return None
    kind = next(iter(kinds))
    graph = tx.graph
    buffer = graph.full((len(values),), 0, kind[0])
    for k, v in enumerate(values):
        buffer = graph.op("store", [buffer, v, graph.const(k)])  # type: ignore[list-item]
    return AppendedListVariable(buffer, graph.const(len(values)), kind, len(values))
