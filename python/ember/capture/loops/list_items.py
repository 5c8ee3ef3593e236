"""Items of lists built in loop bodies that are not one number of one type
(`loops/appends.py`): tuples of a few numbers (`stack.append((i, j))`, stored as rows of the
buffer), list literals of one number repeated but in a few places, and whether a body holds
numbers whose type only the run time knows (a list's items must be typed as traced)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ember.capture.loops import mixed_picks
from ember.capture.variables.appended import ItemType, as_lists, is_mixed
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.errors import Unsupported
from ember.graph import Graph, Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter


def most_common(items: list[VariableTracker]) -> VariableTracker | None:
    """The tracker a list holds most often (one tracker repeated: `[0.0] * n`)."""
    counts: dict[int, int] = {}
    for item in items:
        counts[id(item)] = counts.get(id(item), 0) + 1
    most = max(counts.values(), default=0)
    return next((item for item in items if counts[id(item)] == most), None)


def is_tuple_item(item: VariableTracker) -> bool:
    """Whether a list literal's item is a tuple (a tuple tracker or a constant tuple) or a
    list the frame made (`[[s, 0]]`)."""
    from ember.capture.variables.containers import TupleVariable

    return type(item) is TupleVariable or _own_list(item) or (
        isinstance(item, ConstantVariable) and type(item.constant()) is tuple)


def _own_list(item: VariableTracker) -> bool:
    """A list the frame made (no caller's list: that object would be the one held)."""
    from ember.capture.variables.containers import ListVariable

    return type(item) is ListVariable and item.source is None and not item.unread


def start_of_tuples(tx: Interpreter, items: list[VariableTracker]
                     ) -> tuple[ItemType, list[Any], None] | None:
    """A list literal of a few tuples of numbers of one type (`stack = [start]`): its type
    and each tuple's numbers."""
    from ember.capture.loops.list_starts import _INITIAL_MOST

    if len(items) > _INITIAL_MOST:
        return None
    try:
        values = [tuple_values(tx, item) for item in items]
    except Unsupported:
        return None
    if any(v is None for v in values):
        return None
    kinds = {item_kind(i, v) for i, v in zip(items, values)}  # type: ignore[arg-type]
    if len(kinds) > 1 or None in kinds:
        return None
    kind = next(iter(kinds))
    if is_mixed(kind):
        from ember.capture.variables.appended import mixed_stored

        values = [[mixed_stored(tx, n) for n in v] for v in values]  # type: ignore[union-attr]
    return kind, values, None  # type: ignore[return-value]


def flagged_numbers(region: Graph | None) -> bool:
    """Whether the loop body holds values whose type only the run time knows (a carried
    Python number the first trip makes a NumPy scalar, a `max()` pick: `mixed_picks`): an
    item's type, Python number or NumPy scalar, would then not be the type traced."""
    graph = region
    while graph is not None:
        if getattr(graph, "python_params", None) or mixed_picks.picks(graph):
            return True
        graph = graph.parent
    return False


# Tuples of at most this many numbers are list items (`stack.append((i, j))`).
_TUPLE_MOST = 8


def tuple_kind(values: list[Value]) -> ItemType | None:
    """The item type of a tuple of these numbers (`appended.mixed_tuple`)."""
    from ember.capture.loops.appends import _kind
    from ember.capture.variables.appended import mixed_tuple

    return mixed_tuple([_kind(v) for v in values])


def item_kind(item: VariableTracker, values: list[Value]) -> ItemType | None:
    """The item type of a tuple or list of these numbers."""
    kind = tuple_kind(values)
    return as_lists(kind) if _own_list(item) else kind


def tuple_values(tx: Interpreter, item: VariableTracker) -> list[Value] | None:
    """The numbers of a plain tuple of a few numbers (Python ints, NumPy float64 scalars...),
    a list's item stored as a row of its buffer; None for anything else. Numbers of several
    types are kept each with its type (`appended.mixed_tuple`)."""
    from ember.capture.loops.appends import _item_value, _refuse
    from ember.capture.variables.containers import TupleVariable

    if isinstance(item, ConstantVariable) and type(item.constant()) is tuple:
        parts: list[VariableTracker] = [ConstantVariable(c) for c in item.constant()]
    elif type(item) is TupleVariable:
        parts = item.items
    elif _own_list(item):
        # Stored as the numbers it holds now: it may not change while a list holds it.
        parts = item.items  # type: ignore[attr-defined]
        item.held = True  # type: ignore[attr-defined]
    else:
        return None
    if not 0 < len(parts) <= _TUPLE_MOST:
        raise _refuse("an append of a tuple of more than a few items")
    values = [_item_value(tx, p) for p in parts]
    if any(v.shape or not (v.weak or v.scalar) for v in values):
        raise _refuse("an append of a tuple of other than numbers")
    if tuple_kind(values) is None:
        raise _refuse("an append of a tuple of numbers of several types, one of them not "
                      "held exactly by float64")
    return values
