"""Tuples, lists, dicts and iterators of trackers.

Containers created during capture are the frame's own and may be mutated freely; containers
read from the frame (they have a source) belong to the caller, and mutating them is a side
effect that runs in Python, so it breaks the graph.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.sources import Source
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable, fold

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.graph import Graph


def claim(tx: Interpreter, container: VariableTracker) -> None:
    """Let capture mutate `container`: one the frame built, or one read from the frame, whose
    final contents the entry then writes back into the real object after the graph (a list
    or dict reached by two paths is one tracker, see `VariableBuilder.wrap`)."""
    from ember.capture.loops import refuse_in_loop_body

    tx.tracer.effects += 1
    if getattr(container, "held", False):
        raise graph_break("data_dependent_value", what=f"a change to {container.describe()} "
                                                       "that a list built in a loop holds")
    # A list a loop body built on this trip (`stack = [s]`, then `stack.pop()`) is the
    # trip's own: the trace stands for what every trip does to its list.
    if getattr(container, "made_in", None) is not tx.tracer.graph:
        _loop_inside_body(tx, container)
        refuse_in_loop_body(tx, f"mutation of {container.describe()}")
    if container.source is not None:
        tx.tracer.claim_container(container)


def _loop_inside_body(tx: Interpreter, container: VariableTracker) -> None:
    """A list a loop body built on its trip (`kept = []` per row), changed on a path of a
    branch inside a short loop that body unrolls (`if row[c] > t: kept.append(row[c])`):
    capture starts again with that short loop as a loop op (`LoopTooLong`), which carries
    the list as one it appends to, rather than refusing the body's loop op."""
    from ember.capture.loops.region import LoopTooLong

    made_in = getattr(container, "made_in", None)
    if made_in is None or tx.tracer.graph.parent is None:
        return
    for vt in tx.stack:
        unroll = getattr(vt, "unroll", None)
        if isinstance(vt, IteratorVariable) and unroll is not None and unroll.may_loop and (
                unroll.graph is made_in and unroll.trips > 1):
            raise LoopTooLong(unroll.key, f"mutation of {container.describe()} on a path of "
                                          "a branch in a short loop it unrolls")


def _index(tx: Interpreter, index: VariableTracker, what: str) -> Any:
    from ember.capture.variables.scalar import structural

    index = structural(index)
    if not index.is_constant():
        raise graph_break("type", what=f"index {index.describe()} into {what}",
                          type=index.type_name())
    return index.constant()


# The longest list `_table_item` reads by selects (one per item, on every read).
_TABLE_ITEMS = 16


def _table_item(tx: Interpreter, items: list[VariableTracker], index: VariableTracker
                ) -> VariableTracker | None:
    """`dx[d]` at an int `d` the graph computes (a loop body's), of a short list or tuple of
    Python numbers of one type (a table of directions or weights): the number the list holds
    (a weak 0-d value), chosen by one select per item, which native loop bodies run in
    registers; None for anything else. Python wraps a negative index once and raises
    IndexError past either end: such an index sends the frame to plain Python, which raises."""
    from ember.capture.loops.frame_branches import add_check
    from ember.capture.variables.array import ArrayVariable

    if not (isinstance(index, ArrayVariable) and index.value.shape == ()
            and index.value.dtype.kind in "iu") or not 0 < len(items) <= _TABLE_ITEMS:
        return None
    if not all(isinstance(item, ConstantVariable) for item in items):
        return None
    numbers = [item.constant() for item in items]
    if len({type(n) for n in numbers}) != 1 or type(numbers[0]) not in (bool, int, float):
        return None
    table = np.array(numbers)
    if table.dtype == object:  # ints past int64
        return None
    graph, n = tx.graph, len(numbers)
    if index.value.dtype.kind == "u":  # compared unconverted: a uint64 past int64 is no -1
        inside = graph.op("lt", [index.value, graph.const(n)])
        i = graph.op("astype", [index.value], dtype=np.int64, weak=True)
    else:
        i = graph.op("astype", [index.value], dtype=np.int64, weak=True)
        inside = graph.op("logical_and", [graph.op("ge", [i, graph.const(-n)]),
                                          graph.op("lt", [i, graph.const(n)])])
    add_check(tx, graph.op("logical_not", [inside]))
    i = graph.op("where", [graph.op("lt", [i, graph.const(0)]),
                           graph.op("add", [i, graph.const(n)]), i])
    element = graph.const(numbers[-1])
    for k in range(n - 2, -1, -1):
        element = graph.op("where", [graph.op("eq", [i, graph.const(k)]),
                                     graph.const(numbers[k]), element])
    return ArrayVariable(graph.op("astype", [element], dtype=table.dtype, weak=True))


class SequenceVariable(VariableTracker):
    """Shared behaviour of tuples and lists: items are trackers."""

    python_class: type = tuple

    def __init__(self, items: list[VariableTracker], source: Source | None = None) -> None:
        self.items = list(items)
        self.source = source

    def type_name(self) -> str:
        return self.python_class.__name__

    def python_type(self) -> type:
        return self.python_class

    def truth(self, tx: Interpreter) -> bool:
        return bool(self.items)

    def length(self, tx: Interpreter) -> int:
        return len(self.items)

    def unpack(self, tx: Interpreter) -> list[VariableTracker]:
        return list(self.items)

    def children(self) -> list[VariableTracker]:
        return self.items

    def getitem(self, tx: Interpreter, index: VariableTracker) -> VariableTracker:
        item = _table_item(tx, self.items, index)
        if item is not None:
            return item
        key = _index(tx, index, self.describe())
        if isinstance(key, slice):
            return type(self)(fold("slicing", self.items.__getitem__, key))
        if not isinstance(key, int):
            raise graph_break("user_error", type="TypeError",
                              message=f"{self.type_name()} indices must be integers or slices")
        return fold("indexing", self.items.__getitem__, key)


class TupleVariable(SequenceVariable):
    python_class = tuple

    def is_constant(self) -> bool:
        return all(item.is_constant() for item in self.items)

    def constant(self) -> Any:
        return tuple(item.constant() for item in self.items)

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        if name in ("index", "count"):
            return ContainerMethodVariable(self, name)
        return super().getattr(tx, name)


class NamedTupleVariable(TupleVariable):
    """A namedtuple read from the frame: a tuple whose items are also attributes."""

    def __init__(self, items: list[VariableTracker], cls: type, source: Source | None) -> None:
        super().__init__(items, source)
        self.cls = cls

    def type_name(self) -> str:
        return self.cls.__qualname__

    def python_type(self) -> type:
        return self.cls

    def is_constant(self) -> bool:
        return False  # rebuilding it needs its class; it is reloaded from its source

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        fields = self.cls._fields  # type: ignore[attr-defined]
        if name in fields:
            return self.items[fields.index(name)]
        if name in ("_replace", "_asdict") and _stock_namedtuple_method(self.cls, name):
            return NamedTupleMethodVariable(self, name)
        return super().getattr(tx, name)


_STOCK_NAMEDTUPLE = collections.namedtuple("_STOCK_NAMEDTUPLE", "a")


def _stock_namedtuple_method(cls: type, name: str) -> bool:
    """`collections.namedtuple`'s own `_replace`/`_asdict` (every class shares its code)."""
    stock = getattr(_STOCK_NAMEDTUPLE, name)
    return getattr(getattr(cls, name, None), "__code__", None) is stock.__code__


class MethodOfVariable(VariableTracker):
    """A method looked up on a tracked object (`owner.name`), before it is called."""

    def __init__(self, owner: VariableTracker, name: str) -> None:
        self.owner = owner
        self.name = name

    def describe(self) -> str:
        return f"{self.owner.describe()}.{self.name}"

    def children(self) -> tuple[VariableTracker, ...]:
        return (self.owner,)


class NamedTupleMethodVariable(MethodOfVariable):
    """`point._replace(x=...)` (a new namedtuple of the same class with those fields
    replaced) and `point._asdict()` (a dict of the fields in order), on the tracked items."""

    owner: NamedTupleVariable

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        fields = self.owner.cls._fields  # type: ignore[attr-defined]
        if args:
            raise graph_break("user_error", type="TypeError",
                              message=f"{self.name}() takes no positional arguments")
        if self.name == "_asdict":
            if kwargs:
                raise graph_break("user_error", type="TypeError",
                                  message="_asdict() takes no keyword arguments")
            return DictVariable(dict(zip(fields, self.owner.items)))
        unknown = [k for k in kwargs if k not in fields]
        if unknown:
            raise graph_break("user_error", type="ValueError",
                              message=f"Got unexpected field names: {unknown!r}")
        items = [kwargs.get(f, item) for f, item in zip(fields, self.owner.items)]
        return NamedTupleVariable(items, self.owner.cls, None)


class ListVariable(SequenceVariable):
    """A list. One read from the frame is lazy: its items are wrapped (and its length
    guarded) only when capture reads them, so a list that is only appended to (a history of
    losses on an object) does not recompile as it grows. For a resume function inside a loop
    (which gets the list at another length on every trip) reading it is a graph break."""

    python_class = list

    def __init__(self, items: list[VariableTracker], source: Source | None = None) -> None:
        super().__init__(items, source)
        self._materialize: Callable[[], list[VariableTracker]] | None = None
        self.reads_break = False
        self.appended: list[VariableTracker] = []  # appends while the items are unread
        self.made_in: Graph | None = None  # the graph (a loop body) that built the list
        # Its numbers are stored in a list a loop op builds, or it was read from one: a
        # change to it would not reach that list (`variables/appended.py: LIST`).
        self.held = False
        self.given: list | None = None

    @classmethod
    def lazy(cls, source: Source, materialize: Callable[[], list[VariableTracker]],
             reads_break: bool, given: list | None = None) -> ListVariable:
        vt = cls([], source)
        vt._items = None
        vt._materialize = materialize
        vt.reads_break = reads_break
        vt.given = given  # the list read from the frame, while capture runs
        return vt

    @property
    def items(self) -> list[VariableTracker]:
        if self._items is None:
            if self.reads_break:
                raise graph_break("type", what=f"reading {self.describe()}, which a loop "
                                               "resumed here appends to", type="list")
            assert self._materialize is not None
            self._items = self._materialize() + self.appended
            self.appended = []
        return self._items

    @items.setter
    def items(self, value: list[VariableTracker]) -> None:
        self._items = value

    @property
    def unread(self) -> bool:
        """Whether the items were never read (only appended to)."""
        return self._items is None

    def children(self) -> list[VariableTracker]:
        return (self._items or []) + self.appended

    def append_item(self, value: VariableTracker) -> None:
        if self._items is None:
            self.appended.append(value)
        else:
            self._items.append(value)

    def setitem(self, tx: Interpreter, index: VariableTracker, value: VariableTracker) -> None:
        key = _index(tx, index, self.describe())
        claim(tx, self)
        fold("item assignment", self.items.__setitem__, key, value)

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        if name in ("append", "extend", "pop", "insert", "reverse", "clear", "index", "count",
                    "copy"):
            return ContainerMethodVariable(self, name)
        return super().getattr(tx, name)


class DequeVariable(ListVariable):
    """A `collections.deque` the frame made (`deque()`, `deque([s])`, no `maxlen`): its items
    are trackers, as a list's, and its methods run on a real deque of them, so that errors
    are Python's own. A loop op carries it as a list popped from the front
    (`loops/appends.py`)."""

    python_class = collections.deque

    def getitem(self, tx: Interpreter, index: VariableTracker) -> VariableTracker:
        key = _index(tx, index, self.describe())
        if not isinstance(key, int):
            raise graph_break("user_error", type="TypeError", message="sequence index must "
                              f"be integer, not '{type(key).__name__}'")
        return fold("indexing", collections.deque(self.items).__getitem__, key)

    def setitem(self, tx: Interpreter, index: VariableTracker, value: VariableTracker) -> None:
        key = _index(tx, index, self.describe())
        claim(tx, self)
        made = collections.deque(self.items)
        fold("item assignment", made.__setitem__, key, value)
        self.items = list(made)

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        if name in _DEQUE_METHODS:
            return ContainerMethodVariable(self, name)
        if name == "maxlen":
            return ConstantVariable(None)
        return SequenceVariable.getattr(self, tx, name)

    def method(self, tx: Interpreter, name: str, args: list[VariableTracker]
               ) -> VariableTracker:
        """`name(*args)` on a real deque of the items."""
        if name in ("index", "count", "remove"):
            raise graph_break("call", name=f"deque.{name}")  # compares items: in Python
        if name == "copy":
            made = DequeVariable(list(self.items))
            made.made_in = tx.tracer.graph
            return made
        made = collections.deque(self.items)
        if name in ("extend", "extendleft"):
            result = fold(f"deque.{name}", getattr(made, name), args[0].unpack(tx))
        elif name in ("rotate", "insert"):
            if not args or not args[0].is_constant():
                raise graph_break("call", name=f"deque.{name} by a run-time amount")
            result = fold(f"deque.{name}", getattr(made, name), args[0].constant(), *args[1:])
        else:
            result = fold(f"deque.{name}", getattr(made, name), *args)
        self.items = list(made)
        return result if isinstance(result, VariableTracker) else ConstantVariable(result)


_DEQUE_METHODS = frozenset({"append", "appendleft", "pop", "popleft", "extend", "extendleft",
                            "clear", "copy", "rotate", "reverse", "insert", "index", "count",
                            "remove"})


class DictVariable(VariableTracker):
    """A dict with constant keys (str, int, ... as Python allows)."""

    def __init__(self, items: dict[Any, VariableTracker], source: Source | None = None) -> None:
        self.items = dict(items)
        self.source = source

    def type_name(self) -> str:
        return "dict"

    def python_type(self) -> type:
        return dict

    def truth(self, tx: Interpreter) -> bool:
        return bool(self.items)

    def length(self, tx: Interpreter) -> int:
        return len(self.items)

    def children(self) -> list[VariableTracker]:
        return list(self.items.values())

    def unpack(self, tx: Interpreter) -> list[VariableTracker]:
        return [ConstantVariable(k) for k in self.items]

    def getitem(self, tx: Interpreter, index: VariableTracker) -> VariableTracker:
        from ember.capture.variables.scalar import structural

        if not structural(index).is_constant():
            from ember.capture.variables import dict_lookups

            found = dict_lookups.lookup(tx, self, index, None)
            if found is not None:
                return found
        key = _index(tx, index, self.describe())
        return fold("dict lookup", self.items.__getitem__, key)

    def setitem(self, tx: Interpreter, index: VariableTracker, value: VariableTracker) -> None:
        key = _index(tx, index, self.describe())
        claim(tx, self)
        self.items[key] = value

    def contains(self, key: VariableTracker) -> bool:
        return _index(None, key, self.describe()) in self.items  # type: ignore[arg-type]

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        if name in ("keys", "values", "items", "get", "copy", "update", "pop", "setdefault"):
            return ContainerMethodVariable(self, name)
        return super().getattr(tx, name)


class LazyItems(Sequence):
    """Items of an iterator built only when read (`make(i)`): over an array's first axis
    (`for row in x`, `enumerate(x)`, `zip(x, y)`) each row is indexed from the array when
    a trip reads it. A loop that becomes one loop op never reads them, and unpacking
    thousands of rows up front cost thousands of ops (and seconds)."""

    def __init__(self, length: int, make: Callable[[int], VariableTracker]) -> None:
        self.length, self.make = length, make
        self.built: dict[int, VariableTracker] = {}

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.length))]
        i = range(self.length)[index]
        if i not in self.built:
            self.built[i] = self.make(i)
        return self.built[i]


def lazy_items(tx: Interpreter, vt: VariableTracker) -> Sequence:
    """What iterating `vt` yields: rows of an array and the ints of a range built when read,
    anything else unpacked now."""
    from ember.capture.variables.array import ArrayVariable

    if isinstance(vt, ArrayVariable) and vt.value.ndim > 0:
        return LazyItems(vt.length(tx), lambda i: vt.getitem(tx, ConstantVariable(i)))
    if vt.is_constant() and isinstance(vt.constant(), range):
        r = vt.constant()
        return LazyItems(len(r), lambda i: ConstantVariable(r[i]))
    if isinstance(vt, IteratorVariable) and isinstance(vt.items, LazyItems):
        # `enumerate(zip(a, b))`: the zip's rows still built only when read, the zip used up.
        items, at = vt.items, vt.index
        vt.index = len(items)
        return LazyItems(len(items) - at, lambda i: items[at + i])
    return vt.unpack(tx)


class IteratorVariable(VariableTracker):
    """An iterator over a static list of items (`GET_ITER` on a tuple, list, range, array's
    first axis, `zip`, `enumerate`). Mutable: `FOR_ITER` advances it."""

    def __init__(self, items: list[VariableTracker], source: Source | None = None,
                 index: int = 0) -> None:
        self.items = items
        self.index = index
        # A `ResumableIterator` read from the frame: its position when capture started.
        self.source = source
        self.start = index
        # Set by the first FOR_ITER that unrolls it: the cost rule's account (capture/loops).
        self.unroll: Any = None
        self.origin: VariableTracker | None = None  # the iterable GET_ITER was given

    def type_name(self) -> str:
        return "iterator"

    def children(self) -> list[VariableTracker]:
        if isinstance(self.items, LazyItems):
            rest = [v for i, v in self.items.built.items() if i >= self.index]
            # The iterated arrays (`zip`'s are its origin's parts) hold the rows to come.
            parts = getattr(self.origin, "parts", [self.origin])
            return rest + [p for p in parts if isinstance(p, VariableTracker)]
        return self.items[self.index:]

    def next(self) -> VariableTracker | None:
        if self.index >= len(self.items):
            return None
        item = self.items[self.index]
        self.index += 1
        return item

    def unpack(self, tx: Interpreter) -> list[VariableTracker]:
        rest = self.items[self.index :]
        self.index = len(self.items)
        return rest


def _mutating(name: str) -> bool:
    return name in ("append", "extend", "pop", "insert", "reverse", "clear", "update",
                    "setdefault", "appendleft", "popleft", "extendleft", "rotate", "remove")


class ContainerMethodVariable(MethodOfVariable):
    """A method of a tuple, list or dict tracker, applied to the tracked items."""

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        owner, name = self.owner, self.name
        if kwargs:
            raise graph_break("call", name=f"{self.describe()} with keyword arguments")
        if _mutating(name):
            claim(tx, owner)
        if isinstance(owner, ListVariable) and name == "append" and len(args) == 1:
            owner.append_item(args[0])
            return ConstantVariable(None)
        if isinstance(owner, DequeVariable):
            return owner.method(tx, name, args)
        if isinstance(owner, DictVariable):
            return self._dict_method(tx, owner, args)
        assert isinstance(owner, SequenceVariable)
        items = owner.items
        if name == "append":
            items.append(args[0])
        elif name == "extend":
            items.extend(args[0].unpack(tx))
        elif name == "pop":
            where = _index(tx, args[0], owner.describe()) if args else -1
            return fold("list.pop", items.pop, where)
        elif name == "insert":
            items.insert(_index(tx, args[0], owner.describe()), args[1])
        elif name == "reverse":
            items.reverse()
        elif name == "clear":
            items.clear()
        elif name == "copy":
            return ListVariable(list(items))
        elif name in ("index", "count"):
            if not all(i.is_constant() for i in items) or not args[0].is_constant():
                from ember.capture.variables.built_lists import SearchMethod, from_items

                # `out.index(max(out))` of numbers the graph computes: searched in a buffer.
                built = from_items(tx, items) if tx.graph.parent is None and len(args) == 1 \
                    else None
                if built is not None:
                    return SearchMethod(built, name).call(tx, args, {})
                raise graph_break("call", name=f"{self.describe()} on non-constant items")
            values = [i.constant() for i in items]
            return ConstantVariable(fold(self.describe(), getattr(values, name),
                                         *[a.constant() for a in args]))
        return ConstantVariable(None)

    def _dict_method(self, tx: Interpreter, owner: DictVariable,
                     args: list[VariableTracker]) -> VariableTracker:
        items, name = owner.items, self.name
        if name == "keys":
            return ListVariable([ConstantVariable(k) for k in items])
        if name == "values":
            return ListVariable(list(items.values()))
        if name == "items":
            return ListVariable([TupleVariable([ConstantVariable(k), v]) for k, v in items.items()])
        if name == "copy":
            return DictVariable(dict(items))
        from ember.capture.variables.scalar import structural

        if name == "get" and args and not structural(args[0]).is_constant():
            from ember.capture.variables import dict_lookups

            default = args[1] if len(args) > 1 else ConstantVariable(None)
            found = dict_lookups.lookup(tx, owner, args[0], default)
            if found is not None:
                return found
        key = _index(tx, args[0], owner.describe()) if args else None
        if name == "get":
            default = args[1] if len(args) > 1 else ConstantVariable(None)
            return items.get(key, default)
        if name == "pop":
            if key in items:
                return items.pop(key)
            if len(args) > 1:
                return args[1]
            raise graph_break("user_error", type="KeyError", message=repr(key))
        if name == "setdefault":
            return items.setdefault(key, args[1] if len(args) > 1 else ConstantVariable(None))
        if name == "update":
            other = args[0]
            if not isinstance(other, DictVariable):
                raise graph_break("call", name=f"{self.describe()} with {other.describe()}")
            items.update(other.items)
            return ConstantVariable(None)
        raise graph_break("call", name=self.describe())
