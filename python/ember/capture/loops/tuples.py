"""Tuples of numbers carried by loop ops and merged by branches, item by item.

`pair = (-1, -1)` before a loop and `pair = (i, j)` on a path of its body: a tuple is not a
value of the graph, but its items are. While a `for` or `while` body is traced, such a local
(one the body assigns, bound to a plain tuple of Python numbers and 0-d values) stands as
one pseudo-local per item (`.tuple#pair#0`, `.tuple#pair#1`), each a parameter of the body
like any number it carries (`split`); the body reads the tuple those items make (`bind`),
and whatever tuple it leaves in the local is taken apart again (`unpack`), so each item is
carried on its own, its type settling as any carried number's does. After the loop op the
local is the tuple of its results (`join`). A branch whose paths bind two tuples of one
length merges them item by item the same way (`merge_names`). A body that leaves the local
bound to anything else (a tuple of another length, a list, None) refuses the loop op.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ember.capture.breaks import graph_break
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.capture.variables.containers import TupleVariable
from ember.capture.variables.scalar import PythonScalarVariable

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

_PREFIX = ".tuple#"
_MOST_ITEMS = 8


def _item_name(name: str, k: int) -> str:
    return f"{_PREFIX}{name}#{k}"


def _number_item(vt: VariableTracker) -> bool:
    if isinstance(vt, ConstantVariable):
        return type(vt.constant()) in (bool, int, float)
    if isinstance(vt, PythonScalarVariable):
        return True
    return isinstance(vt, ArrayVariable) and vt.value.shape == ()


def items_of(vt: VariableTracker | None) -> list[VariableTracker] | None:
    """The items of a plain tuple (not a namedtuple) of a few Python numbers and 0-d values
    (a constant one's as constants); None for anything else."""
    if isinstance(vt, ConstantVariable) and type(vt.constant()) is tuple:
        items: list[VariableTracker] = [ConstantVariable(c) for c in vt.constant()]
    elif type(vt) is TupleVariable:
        items = list(vt.items)  # type: ignore[union-attr]
    else:
        return None
    if 0 < len(items) <= _MOST_ITEMS and all(_number_item(item) for item in items):
        return items
    return None


def split(tx: Interpreter, stored: Iterable[str]) -> dict[str, int]:
    """Bind each local of `stored` that holds a tuple of numbers as its items' pseudo-locals;
    the names split and their lengths."""
    done: dict[str, int] = {}
    for name in stored:
        items = items_of(tx.locals.get(name))
        if not name.isidentifier() or items is None:
            continue
        del tx.locals[name]
        for k, item in enumerate(items):
            tx.locals[_item_name(name, k)] = item
        done[name] = len(items)
    return done


def rename(names: Iterable[str], done: dict[str, int]) -> set[str]:
    """`names` with each local split replaced by its items' pseudo-locals."""
    out: set[str] = set()
    for name in names:
        if name in done:
            out.update(_item_name(name, k) for k in range(done[name]))
        else:
            out.add(name)
    return out


def bind(tx: Interpreter, done: dict[str, int]) -> None:
    """At the start of a trip: each local split is the tuple of its items' stand-ins."""
    for name, count in done.items():
        tx.locals[name] = TupleVariable([tx.locals.pop(_item_name(name, k))
                                         for k in range(count)])


def unpack(end_locals: dict[str, VariableTracker], done: dict[str, int]) -> None:
    """At the end of a trip: the tuple each local split holds, as its items' pseudo-locals."""
    for name, count in done.items():
        vt = end_locals.pop(name, None)
        items = items_of(vt)
        if items is None or len(items) != count:
            what = "unbound" if vt is None else f"bound to {vt.describe()}"
            raise graph_break("loop_body", what=f"local {name!r}, a tuple of {count} numbers "
                                                f"before the loop, {what} after a trip")
        for k, item in enumerate(items):
            end_locals[_item_name(name, k)] = item


def join(tx: Interpreter, done: dict[str, int]) -> None:
    """After the loop op (or a refusal): each local split is one tuple again."""
    for name, count in done.items():
        keys = [_item_name(name, k) for k in range(count)]
        if all(key in tx.locals for key in keys):
            tx.locals[name] = TupleVariable([tx.locals.pop(key) for key in keys])
        for key in keys:
            tx.locals.pop(key, None)


def merge_names(then: dict[str, VariableTracker], orelse: dict[str, VariableTracker]
                ) -> dict[str, int]:
    """The locals two paths bind to different tuples of numbers of one length: split in both
    paths' locals, to be merged item by item and joined again (`join`)."""
    done: dict[str, int] = {}
    for name in sorted(set(then) & set(orelse)):
        x, y = items_of(then[name]), items_of(orelse[name])
        if then[name] is orelse[name] or not name.isidentifier() or x is None or y is None:
            continue
        if len(x) != len(y):
            continue
        for path, items in ((then, x), (orelse, y)):
            del path[name]
            for k, item in enumerate(items):
                path[_item_name(name, k)] = item
        done[name] = len(x)
    return done


def merge_stack(then: tuple[list[VariableTracker], dict[str, VariableTracker]],
                orelse: tuple[list[VariableTracker], dict[str, VariableTracker]]
                ) -> dict[int, int]:
    """The stack items two paths leave as different tuples of numbers of one length (`s = (a,
    b) if c else (b, a)`): their items become pseudo-locals of both paths, merged as locals
    are, and the two stack items one object, put together again by `join_stack`."""
    done: dict[int, int] = {}
    for position, (x, y) in enumerate(zip(then[0], orelse[0], strict=True)):
        xs, ys = items_of(x), items_of(y)
        if x is y or xs is None or ys is None or len(xs) != len(ys):
            continue
        for (_, names), items in ((then, xs), (orelse, ys)):
            for k, item in enumerate(items):
                names[_item_name(f".stack{position}", k)] = item
        orelse[0][position] = x
        done[position] = len(xs)
    return done


def join_stack(tx: Interpreter, stack: list[VariableTracker], done: dict[int, int]) -> None:
    """Each stack item `merge_stack` took apart, one tuple again."""
    for position, count in done.items():
        stack[position] = TupleVariable([tx.locals.pop(_item_name(f".stack{position}", k))
                                         for k in range(count)])
