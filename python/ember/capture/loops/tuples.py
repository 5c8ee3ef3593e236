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
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.variables.appended import AppendedListVariable
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.choice import ChoiceVariable
from ember.capture.variables.constant import ConstantVariable
from ember.capture.variables.containers import TupleVariable
from ember.capture.variables.scalar import PythonScalarVariable

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.graph import Graph

_PREFIX = ".tuple#"
_MOST_ITEMS = 8


def _item_name(name: str, k: int) -> str:
    return f"{_PREFIX}{name}#{k}"


def _number_item(vt: VariableTracker) -> bool:
    if isinstance(vt, ConstantVariable):
        return type(vt.constant()) in (bool, int, float)
    if isinstance(vt, PythonScalarVariable):
        return True
    # A number or NumPy scalar, never a 0-d array (an object that may be updated in place).
    return isinstance(vt, ArrayVariable) and vt.value.shape == () and (
        vt.value.weak or vt.value.scalar)


class OptionalVariable(VariableTracker):
    """A local that is None or a number as the data decide (`best = None` before a loop, `best
    = x[i]` on a path of its body), or None or a tuple of at least two numbers (`found =
    None`, then `found = (i, j)`): the numbers (placeholders of their types where None)
    and, last, the 0-d bool that says it is None. `x is None` reads the flag; any other use
    reads the number or tuple, with a run-time check that sends the frame to Python where it
    is None (`loaded`), which raises there as Python does."""

    def __init__(self, items: list[VariableTracker]) -> None:
        self.items = items

    @property
    def flag(self) -> VariableTracker:
        return self.items[-1]

    def held(self) -> VariableTracker:
        """The number, or the tuple of the numbers, it holds where not None."""
        numbers = self.items[:-1]
        return numbers[0] if len(numbers) == 1 else TupleVariable(list(numbers))

    def describe(self) -> str:
        return "a local that is None or a number as the data decide"

    def children(self) -> Iterable[Any]:
        return tuple(self.items)


def _numbers(vt: VariableTracker | None) -> list[VariableTracker] | None:
    """What an optional holds of `vt`: a number, or the items of a plain tuple of at least
    two numbers (a one-item tuple would read back as its number); None for anything else."""
    if vt is not None and _number_item(vt):
        return [vt]
    if type(vt) is TupleVariable and 2 <= len(vt.items) < _MOST_ITEMS and all(
            _number_item(item) for item in vt.items):
        return list(vt.items)
    return None


_KINDS = (TupleVariable, OptionalVariable)


def items_of(vt: VariableTracker | None) -> list[VariableTracker] | None:
    """The items of a plain tuple (not a namedtuple) of a few Python numbers and 0-d values
    (a constant one's as constants), or of an optional number; None for anything else."""
    if isinstance(vt, ConstantVariable) and type(vt.constant()) is tuple:
        items: list[VariableTracker] = [ConstantVariable(c) for c in vt.constant()]
    elif isinstance(vt, ChoiceVariable):
        # The flag (any 0-d bool) and the two numbers.
        flag, sides = vt.flag, [vt.if_true, vt.if_false]
        if not (isinstance(flag, ArrayVariable) and flag.value.shape == ()
                and flag.value.dtype == np.bool_ and all(
                    isinstance(v, ArrayVariable) and _number_item(v) for v in sides)):
            return None
        return [flag, *sides]
    elif type(vt) in _KINDS:
        items = list(vt.items)  # type: ignore[union-attr]
    else:
        return None
    if 0 < len(items) <= _MOST_ITEMS and all(_number_item(item) for item in items):
        return items
    return None


class ListParts:
    """How a list a loop op built that a later loop body reads (`out[i]`, `len(out)`) is
    made again of its parts' stand-ins (buffer, count, flags, head: `parts()`), as a read-
    only list in the body and the list itself after the loop."""

    def __init__(self, built: AppendedListVariable) -> None:
        self.built = built

    def __call__(self, items: list[VariableTracker]) -> VariableTracker:
        made = self.built.in_path([i.value for i in items])  # type: ignore[attr-defined]
        made.maker = self
        return made


def _list_parts(vt: VariableTracker | None) -> list[VariableTracker] | None:
    """The parts of a list a loop op built, as trackers; None for anything else."""
    if isinstance(vt, AppendedListVariable) and not vt.iterator:
        return [ArrayVariable(p) for p in vt.parts()]
    return None


def read_list(tx: Interpreter, vt: VariableTracker) -> bool:
    """Whether `vt` is a list an earlier loop op of this graph built that the body may read
    (its parts enter the body: `split`)."""
    return isinstance(vt, AppendedListVariable) and not vt.iterator and all(
        p.graph is tx.graph for p in vt.parts())


def _kind(vt: VariableTracker | None) -> Any:
    if isinstance(vt, ChoiceVariable):
        return ChoiceVariable
    if isinstance(vt, AppendedListVariable):
        if getattr(vt, "maker", None) is None:
            vt.maker = ListParts(vt)  # type: ignore[attr-defined]
        return vt.maker  # type: ignore[attr-defined]
    return OptionalVariable if isinstance(vt, OptionalVariable) else TupleVariable


def _made(kind: Any, items: list[VariableTracker]) -> VariableTracker:
    return ChoiceVariable(*items) if kind is ChoiceVariable else kind(items)


def held(vt: VariableTracker) -> bool:
    """A tuple or optional number whose items a branch's paths take as entries."""
    return type(vt) in _KINDS and items_of(vt) is not None


def rebuilt(vt: VariableTracker, items: list[VariableTracker]) -> VariableTracker:
    """`vt`'s kind made of `items` (a path's stand-ins)."""
    return _made(_kind(vt), items)


def split(tx: Interpreter, stored: Iterable[str], forced: dict[str, tuple] | None = None
          ) -> dict[str, tuple[int, type]]:
    """Bind each local of `stored` that holds a tuple of numbers (or an optional number) as its
    items' pseudo-locals; a None that an earlier trace found made a number on some path
    (`optional_types`) as a placeholder of that number's type and a true flag. The names
    split, their lengths and kinds."""
    done: dict[str, tuple[int, type]] = {}
    for name in stored:
        vt = tx.locals.get(name)
        items = items_of(vt)
        kind = _kind(vt)
        if items is None and _is_none(vt) and forced and _item_name(name, 0) in forced:
            count = 1
            while _item_name(name, count + 1) in forced:
                count += 1
            items = [ArrayVariable(_zero(tx.graph, dtype, weak, scalar)) for dtype, _, weak, scalar
                     in (forced[_item_name(name, k)] for k in range(count))]
            items.append(ArrayVariable(tx.graph.const(True, np.bool_, weak=False)))
            kind = OptionalVariable
        if items is None and forced and _item_name(name, 2) in forced and _number_item(vt):
            items = _choice_start(tx.graph, vt, [forced[_item_name(name, k)] for k in (1, 2)])
            kind = ChoiceVariable
        if items is None and (items := _list_parts(vt)) is not None:
            kind = _kind(vt)  # a list a loop op built, read in the body
        if not name.isidentifier() or items is None:
            continue
        del tx.locals[name]
        for k, item in enumerate(items):
            tx.locals[_item_name(name, k)] = item
        done[name] = (len(items), kind)
    return done


def _is_none(vt: VariableTracker | None) -> bool:
    return isinstance(vt, ConstantVariable) and vt.constant() is None


def _zero(graph: Graph, dtype: np.dtype, weak: bool, scalar: bool) -> Any:
    zero = np.dtype(dtype).type(0).item()
    value = graph.const(zero, weak=True) if weak else graph.const(zero, dtype, weak=False)
    if value.scalar != scalar:
        value = graph.op("astype", [value], dtype=dtype, scalar=scalar)
    return value


def optional_types(tx: Interpreter, end_locals: dict[str, VariableTracker],
                   stored: Iterable[str]) -> dict[str, tuple]:
    """Locals None before the loop that a trip left None or a number: the types of their
    items, for a trace that carries them (`split`)."""
    forced: dict[str, tuple] = {}
    for name in stored:
        vt = end_locals.get(name)
        if isinstance(vt, ChoiceVariable) and _number_item(tx.locals.get(name)) and (
                kinds := _choice_kinds(vt)) is not None:
            # A number before the loop that a trip left a choice of two numbers of two
            # types (`t += v`, `v` a Python int or a NumPy scalar): carried as a choice.
            forced[_item_name(name, 0)] = (np.dtype(np.bool_), (), False, True)
            forced[_item_name(name, 1)], forced[_item_name(name, 2)] = kinds
            continue
        if not _is_none(tx.locals.get(name)):
            continue
        numbers = vt.items[:-1] if isinstance(vt, OptionalVariable) else _numbers(vt)
        if numbers is None or not all(isinstance(n, ArrayVariable) and n.value.shape == ()
                                      for n in numbers):
            continue  # a Python constant is carried by no loop op
        for k, n in enumerate(numbers):
            v = n.value  # type: ignore[attr-defined]
            forced[_item_name(name, k)] = (v.dtype, v.shape, v.weak, v.scalar)
        forced[_item_name(name, len(numbers))] = (np.dtype(np.bool_), (), False, True)
    return forced


def _choice_kinds(vt: ChoiceVariable) -> tuple[tuple, tuple] | None:
    sides = [vt.if_true, vt.if_false]
    if not all(isinstance(v, ArrayVariable) and v.value.shape == () for v in sides):
        return None
    x, y = (v.value for v in sides)  # type: ignore[attr-defined]
    return (x.dtype, (), x.weak, x.scalar), (y.dtype, (), y.weak, y.scalar)


def _value_of(graph: Graph, vt: VariableTracker) -> Any:
    if isinstance(vt, ConstantVariable):
        return graph.const(vt.constant(), weak=True)
    if isinstance(vt, PythonScalarVariable):
        return vt.graph_value()
    return vt.value  # type: ignore[attr-defined]


def _choice_start(graph: Graph, vt: VariableTracker, kinds: list[tuple]
                  ) -> list[VariableTracker] | None:
    """A number before the loop as a choice carried with sides of `kinds`: its own side and a
    placeholder of the other's type; None where it is of neither."""
    v = _value_of(graph, vt)
    own = (v.dtype, (), v.weak, v.scalar)
    if own not in kinds:
        return None
    first = own == kinds[0]
    other = kinds[1] if first else kinds[0]
    zero = ArrayVariable(_zero(graph, other[0], other[2], other[3]))
    sides = [ArrayVariable(v), zero] if first else [zero, ArrayVariable(v)]
    return [ArrayVariable(graph.const(first, np.bool_, weak=False)), *sides]


def _choice_end(region: Graph, vt: VariableTracker, started: ChoiceVariable
                ) -> list[VariableTracker] | None:
    """A carried choice's items at the end of a trip: a choice of the same two types (its
    flag negated where its sides are the other way round), or a number of one side's type
    with the other side as the trip started; None for anything else."""
    kinds = _choice_kinds(started)
    if kinds is None:
        return None
    if isinstance(vt, ChoiceVariable):
        found = _choice_kinds(vt)
        if found == kinds:
            return [vt.flag, vt.if_true, vt.if_false]
        if found == kinds[::-1] and isinstance(vt.flag, ArrayVariable):
            flag = ArrayVariable(region.op("logical_not", [vt.flag.value]))
            return [flag, vt.if_false, vt.if_true]
        return None
    if not _number_item(vt):
        return None
    v = _value_of(region, vt)
    own = (v.dtype, (), v.weak, v.scalar)
    if own == kinds[0]:
        return [ArrayVariable(region.const(True, np.bool_, weak=False)), ArrayVariable(v),
                started.if_false]
    if own == kinds[1]:
        return [ArrayVariable(region.const(False, np.bool_, weak=False)), started.if_true,
                ArrayVariable(v)]
    return None


def rename(names: Iterable[str], done: dict[str, tuple[int, type]]) -> set[str]:
    """`names` with each local split replaced by its items' pseudo-locals."""
    out: set[str] = set()
    for name in names:
        if name in done:
            out.update(_item_name(name, k) for k in range(done[name][0]))
        else:
            out.add(name)
    return out


def bind(tx: Interpreter, done: dict[str, tuple[int, type]]) -> dict[str, VariableTracker]:
    """At the start of a trip: each local split is the tuple of its items' stand-ins (what
    `unpack` is given back)."""
    for name, (count, kind) in done.items():
        tx.locals[name] = _made(kind, [tx.locals.pop(_item_name(name, k))
                                       for k in range(count)])
    return {name: tx.locals[name] for name in done}


def unpack(end_locals: dict[str, VariableTracker], done: dict[str, tuple[int, type]],
           region: Graph, started: dict[str, VariableTracker]) -> None:
    """At the end of a trip: the tuple each local split holds, as its items' pseudo-locals;
    an optional number the trip rebound to a number or None, as such an optional's."""
    for name, (count, kind) in done.items():
        vt = end_locals.pop(name, None)
        items = _list_parts(vt) if isinstance(kind, ListParts) else items_of(vt)
        if kind is OptionalVariable and _is_none(vt):
            # None again: the numbers the trip started with stand in (never read).
            start = started[name].items[:-1]  # type: ignore[attr-defined]
            vt = OptionalVariable([*start, ArrayVariable(region.const(True, np.bool_,
                                                                      weak=False))])
            items = vt.items
        elif kind is OptionalVariable and (numbers := _numbers(vt)) is not None:
            vt = OptionalVariable([*numbers, ArrayVariable(region.const(False, np.bool_,
                                                                        weak=False))])
            items = vt.items
        elif kind is ChoiceVariable and vt is not None:
            items = _choice_end(region, vt, started[name])  # type: ignore[arg-type]
            vt = None if items is None else ChoiceVariable(*items)
        if items is None or len(items) != count or _kind(vt) is not kind:
            what = "unbound" if vt is None else f"bound to {vt.describe()}"
            raise graph_break("loop_body", what=f"local {name!r}, {count} numbers before the "
                                                f"loop, {what} after a trip")
        for k, item in enumerate(items):
            end_locals[_item_name(name, k)] = item


def join(tx: Interpreter, done: dict[str, tuple[int, type]]) -> None:
    """After the loop op (or a refusal): each local split is one tuple again."""
    for name, (count, kind) in done.items():
        keys = [_item_name(name, k) for k in range(count)]
        if all(key in tx.locals for key in keys):
            items = [tx.locals.pop(key) for key in keys]
            if isinstance(kind, ListParts) and all(
                    getattr(i, "value", None) is p for i, p in zip(items, kind.built.parts())):
                # The body only read it: the list itself again, the object every alias holds.
                tx.locals[name] = kind.built
            else:
                tx.locals[name] = _made(kind, items)
        for key in keys:
            tx.locals.pop(key, None)


def _path_items(region: Graph, vt: VariableTracker, other: VariableTracker
                ) -> list[VariableTracker] | None:
    """`vt`'s items as an optional number's where `other` is one (or None against a number):
    None a placeholder of the number's type and a true flag, a number itself and false."""
    if isinstance(vt, OptionalVariable):
        return items_of(vt)
    if _is_none(vt):
        likes = other.items[:-1] if isinstance(other, OptionalVariable) else _numbers(other)
        if likes is None:
            return None
        zeros: list[VariableTracker] = []
        for like in likes:
            if isinstance(like, ConstantVariable):
                zeros.append(ConstantVariable(type(like.constant())(0)))
            else:
                v = like.value if isinstance(like, ArrayVariable) else like.graph_value()  # type: ignore[attr-defined]
                zeros.append(ArrayVariable(_zero(region, v.dtype, v.weak, v.scalar)))
        return [*zeros, ArrayVariable(region.const(True, np.bool_, weak=False))]
    numbers = _numbers(vt)
    if numbers is not None and (isinstance(other, OptionalVariable) or _is_none(other)):
        return [*numbers, ArrayVariable(region.const(False, np.bool_, weak=False))]
    return None


def merge_names(then: Any, orelse: Any) -> dict[str, tuple[int, type]]:
    """The locals two paths bind to different tuples of numbers of one length, or to None and
    a number (an optional number): split in both paths' locals, to be merged item by item
    and joined again (`join`)."""
    done: dict[str, tuple[int, type]] = {}
    for name in sorted(set(then.locals) & set(orelse.locals)):
        a, b = then.locals[name], orelse.locals[name]
        if a is b or not name.isidentifier():
            continue
        x, y = items_of(a), items_of(b)
        kind = _kind(a)
        if isinstance(a, OptionalVariable) or isinstance(b, OptionalVariable) or (
                _is_none(a) != _is_none(b)):
            x, y = _path_items(then.region, a, b), _path_items(orelse.region, b, a)
            kind = OptionalVariable
        elif _kind(a) is not _kind(b):
            continue
        if x is None or y is None or len(x) != len(y):
            continue
        for path, items in ((then, x), (orelse, y)):
            del path.locals[name]
            for k, item in enumerate(items):
                path.locals[_item_name(name, k)] = item
        done[name] = (len(x), kind)
    return done


def merge_stack(then: tuple[list[VariableTracker], dict[str, VariableTracker]],
                orelse: tuple[list[VariableTracker], dict[str, VariableTracker]]
                ) -> dict[int, tuple[int, type]]:
    """The stack items two paths leave as different tuples of numbers of one length (`s = (a,
    b) if c else (b, a)`): their items become pseudo-locals of both paths, merged as locals
    are, and the two stack items one object, put together again by `join_stack`."""
    done: dict[int, tuple[int, type]] = {}
    for position, (x, y) in enumerate(zip(then[0], orelse[0], strict=True)):
        xs, ys = items_of(x), items_of(y)
        if (x is y or xs is None or ys is None or len(xs) != len(ys) or _kind(x) is not _kind(y)
                or isinstance(x, OptionalVariable) or isinstance(y, OptionalVariable)):
            continue
        for (_, names), items in ((then, xs), (orelse, ys)):
            for k, item in enumerate(items):
                names[_item_name(f".stack{position}", k)] = item
        orelse[0][position] = x
        done[position] = (len(xs), _kind(x))
    return done


def join_stack(tx: Interpreter, stack: list[VariableTracker],
               done: dict[int, tuple[int, type]]) -> None:
    """Each stack item `merge_stack` took apart, one tuple (or choice) again."""
    for position, (count, kind) in done.items():
        stack[position] = _made(kind, [tx.locals.pop(_item_name(f".stack{position}", k))
                                       for k in range(count)])


def loaded(tx: Interpreter, vt: OptionalVariable) -> VariableTracker:
    """An optional number read by LOAD_FAST: itself where `is None` or `is not None` tests it
    next, else its number, checked at run time not to be None (Python would raise, or
    return None where the number stands)."""
    from ember.capture.loops.frame_branches import add_check

    from ember.capture.bytecode import NONE_JUMPS

    following = tx.instructions[tx.ip:tx.ip + 2]
    if following and following[0].opname in NONE_JUMPS:
        return vt
    if (len(following) == 2 and following[0].opname == "LOAD_CONST"
            and following[0].argval is None and following[1].opname == "IS_OP"):
        return vt
    add_check(tx, vt.flag.value)  # type: ignore[attr-defined]
    return vt.held()


def is_none(tx: Interpreter, a: VariableTracker, b: VariableTracker) -> VariableTracker | None:
    """`a is None` of an optional number: its flag, a 0-d bool of the graph."""
    for x, y in ((a, b), (b, a)):
        if isinstance(x, OptionalVariable) and _is_none(y):
            return x.flag
    return None
