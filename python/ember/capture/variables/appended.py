"""A list a loop op built by appends (`capture/loops/appends.py`): its buffer and count.

`np.array`, `np.asarray`, `np.stack`, `np.concatenate`, `sum`, `len`, its truth, constant
indexing and loops over its items (`items_range`) read the buffer in the graph: a copy of it
where every trip appends (its length is then known), else a boolean-mask selection of its
first `count` items (`variables/masked.py`).
Whatever else needs the list gets the real one, rebuilt after the graph ran with the same
item types (`rebuild`); a generator's values get an iterator over it."""

from __future__ import annotations

import collections

from typing import TYPE_CHECKING, Any

import numpy as np

from ember import numpy_api
from ember.capture.breaks import graph_break
from ember.capture.variables.array import ArrayVariable, call_numpy_api, to_api
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.graph import Graph, Value

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

# An item's type: dtype, shape, weak (a Python number), scalar (a NumPy scalar). A row (an
# array) has a shape and is neither; a tuple of `m` numbers of one type (`(i, j)`) has the
# shape `(m,)` and is a Python number or a NumPy scalar (`is_tuple`). A tuple of numbers of
# several types (`(i, x[i])`) has a fifth part, each number's type (`mixed_tuple`); its
# numbers are stored as float64, which holds each exactly (`mixed_stored`).
ItemType = tuple  # (np.dtype, tuple, bool, bool) or (np.dtype, tuple, bool, bool, tuple)


# The last part of the type of items that are lists of a few numbers (`q.append([r, c])`),
# stored as tuples are; each is read back as a new list, which may not change while the
# list holds it (`ListVariable.held`).
LIST = "list"


def is_tuple(item: ItemType | None) -> bool:
    """Whether items of this type are tuples (or lists) of numbers (stored as rows of the
    buffer)."""
    return item is not None and bool(item[1]) and (item[2] or item[3])


def is_mixed(item: ItemType | None) -> bool:
    """Whether items of this type are tuples of numbers of several types."""
    return item is not None and len(item) >= 5 and isinstance(item[4], tuple)


def is_list_item(item: ItemType | None) -> bool:
    """Whether items of this type are lists of numbers (not tuples)."""
    return item is not None and item[-1] is LIST


def as_lists(kind: ItemType | None) -> ItemType | None:
    """The type of lists of the numbers tuples of type `kind` hold."""
    return None if kind is None else (*kind, LIST)


def columns(item: ItemType) -> tuple:
    """The type of each number of a tuple item."""
    if is_mixed(item):
        return item[4]
    return tuple((item[0], (), item[2], item[3]) for _ in range(item[1][0]))


def mixed_tuple(kinds: list[ItemType]) -> ItemType | None:
    """The item type of a tuple of numbers of these types: one type where they are one,
    else float64 rows with each number's type, where float64 holds each exactly: bools,
    integers of at most 64 bits (checked at run time to lie within 2**53, `mixed_stored`),
    float32 and float64; None otherwise."""
    first = kinds[0]
    if all(k == first for k in kinds):
        return (first[0], (len(kinds),), first[2], first[3])
    for k in kinds:
        if k[0].kind not in "biuf" or k[0] == np.dtype(np.uint64) or (
                k[0].kind == "f" and k[0].itemsize > 8) or k[0] == np.dtype(np.float16):
            return None
    return (np.dtype(np.float64), (len(kinds),), False, True, tuple(kinds))


# The largest integer float64 holds exactly, with all those below it.
_EXACT_INT = 2 ** 53


def mixed_stored(tx: Any, value: Value) -> Value:
    """A number of a tuple of several types as stored in its float64 row; an integer
    outside `±2**53` sets a run-time check that sends the frame to Python."""
    graph = tx.graph
    if value.dtype.kind in "iu" and value.dtype.itemsize == 8:
        from ember.capture.loops.frame_branches import add_check

        add_check(tx, graph.op("gt", [graph.op("abs", [value]), graph.const(_EXACT_INT)]))
    return graph.op("astype", [value], dtype=np.dtype(np.float64), scalar=True)


def tuple_at(graph: Graph, buffer: Value, at: Value | None, item: ItemType,
             flag: Value | None = None, other: ItemType | None = None) -> VariableTracker:
    """The tuple stored at place `at` of a list of tuples' buffer (`at` None: `buffer` is
    the tuple's row): its numbers, each of its type. `flag`: true where the tuple is of the
    list's `other` type (Python numbers where the items are NumPy scalars, or the reverse):
    a number whose type differs between the two is then a choice of both
    (`variables/choice.py`)."""
    from ember.capture.variables.choice import ChoiceVariable
    from ember.capture.variables.containers import TupleVariable

    others = columns(other) if other is not None else columns(item)
    numbers: list[VariableTracker] = []
    for j, (kind, alt) in enumerate(zip(columns(item), others, strict=True)):
        loaded = graph.op("load", [buffer, graph.const(j)] if at is None else
                          [buffer, at, graph.const(j)])
        number = ArrayVariable(as_item(graph, loaded, kind))
        if flag is not None and alt != kind:
            number = ChoiceVariable(ArrayVariable(flag), ArrayVariable(as_item(graph, loaded,
                                                                             alt)), number)
        numbers.append(number)
    if is_list_item(item):
        from ember.capture.variables.containers import ListVariable

        made = ListVariable(numbers)
        made.held = True
        return made
    return TupleVariable(numbers)


def compatible(a: ItemType, b: ItemType) -> bool:
    """Whether tuples of these types hold numbers of one dtype each (they differ only in
    which are Python numbers and which NumPy scalars)."""
    return is_tuple(a) and is_tuple(b) and a[1] == b[1] and all(
        x[0] == y[0] for x, y in zip(columns(a), columns(b), strict=True))


class AppendedListVariable(VariableTracker):
    """A list a loop op built: `buffer`'s first `count` items, each of type `item`. `length`:
    the count where capture knows it (every trip appends). `iterator`: a generator's values
    instead, which only `sum` reads in the graph; anything else gets `iter()` of the list."""

    def __init__(self, buffer: Value, count: Value, item: ItemType, length: int | None,
                 iterator: bool = False, flags: Value | None = None,
                 head: Value | None = None, deque: bool = False,
                 other: ItemType | None = None) -> None:
        self.buffer, self.count, self.item, self.known_length = buffer, count, item, length
        self.iterator = iterator
        # A list of Python numbers and NumPy scalars of one dtype: true where an item is of
        # the other type than `item` (`loops/appends.py: Appended.other`).
        self.flags = flags
        self.other = other if other is not None or flags is None else (
            item[0], (), not item[2], not item[3])
        # A list popped from the front (a queue): its items start at this place, not at 0.
        # Only its length, its truth and the list itself after the graph are read.
        self.head = head
        self.deque = deque  # a `collections.deque`, not a list
        # The stand-in a path of a branch reads (`in_path`): a change would not reach the
        # list after the branch.
        self.read_only = False

    def type_name(self) -> str:
        return "generator" if self.iterator else "deque" if self.deque else "list"

    def parts(self) -> list[Value]:
        """The values it is made of: buffer, count, flags and head where it has them."""
        return [self.buffer, self.count, *(v for v in (self.flags, self.head) if v is not None)]

    def in_path(self, values: list[Value]) -> AppendedListVariable:
        """The list a path of a branch reads, made of its stand-ins of `parts()`."""
        buffer, count, *rest = values
        flags = rest.pop(0) if self.flags is not None else None
        head = rest.pop(0) if self.head is not None else None
        made = AppendedListVariable(buffer, count, self.item, self.known_length, self.iterator,
                                    flags, head, self.deque, self.other)
        made.read_only = True
        return made

    def changed(self, what: str) -> None:
        """Refuse `what`, a change to the list, where it is a path's stand-in."""
        if self.read_only:
            raise graph_break("loop_body", what=f"{what} of a list built in a loop, in a "
                                                "branch")

    def python_type(self) -> type:
        if self.iterator:
            return super().python_type()
        return collections.deque if self.deque else list

    def describe(self) -> str:
        return f"a {self.type_name()} built in a loop"

    def _from_start(self, what: str) -> None:
        """Refuse `what` of a queue (its items start at a run-time place)."""
        if self.head is not None:
            raise graph_break("data_dependent_value", what=f"{what} of a {self.type_name()} "
                                                           "popped from the front in a loop")

    def length_value(self, graph: Graph) -> Value:
        """The number of items, a value of the graph."""
        return self.count if self.head is None else graph.op("sub", [self.count, self.head])

    def children(self) -> list[Any]:
        return []

    def length(self, tx: Interpreter) -> int:
        self._list_only("len()")
        if self.known_length is None:
            raise graph_break("data_dependent_value", what="len() of a list built by "
                                                            "conditional appends")
        return self.known_length

    def len_variable(self, tx: Interpreter) -> VariableTracker:
        self._list_only("len()")
        if self.known_length is not None:
            return ConstantVariable(self.known_length)
        self._here(tx)
        return ArrayVariable(python_int(tx.graph, self.length_value(tx.graph)))

    def truth(self, tx: Interpreter) -> bool:
        return bool(self.length(tx))

    def truth_value(self, tx: Interpreter) -> VariableTracker:
        """`while stack:` of a list whose length only the run time knows: whether its count
        is above 0, a value of the graph (its length where capture knows it)."""
        if self.iterator or self.known_length is not None or self.buffer.graph is not tx.graph:
            return self
        return ArrayVariable(tx.graph.op("gt", [self.count, self.head or tx.graph.const(0)]))

    def _list_only(self, what: str) -> None:
        if self.iterator:
            raise graph_break("type", what=f"{what} of a generator", type="generator")

    def _here(self, tx: Interpreter) -> None:
        """The buffer is a value of the graph being traced: not of the frame's graph while a
        path of a branch is (the rest of a frame after a loop that may return)."""
        if self.buffer.graph is not tx.graph:
            raise graph_break("loop_body", what="a list built in a loop, read in a branch")

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        if name == "append" and not self.iterator:
            return _AppendAfter(self)
        if name == "sort" and not (self.iterator or self.deque):
            from ember.capture.variables.built_lists import SortMethod

            return SortMethod(self)
        if name in ("index", "count") and not (self.iterator or self.deque):
            from ember.capture.variables.built_lists import SearchMethod

            return SearchMethod(self, name)
        if name == "reverse" and not (self.iterator or self.deque):
            from ember.capture.variables.built_lists import ReverseMethod

            return ReverseMethod(self)
        return super().getattr(tx, name)

    def append_after(self, tx: Interpreter, item: VariableTracker) -> None:
        """`lst.append(v)` after the loop that built the list (the last run of a run-length
        code): the buffer one place longer, `v` stored there. An item of another type than
        the list's is a graph break."""
        from ember.capture.loops import list_items
        from ember.capture.loops.appends import _item_value, _kind

        self._here(tx)
        self.changed("an append")
        graph = tx.graph
        numbers = list_items.tuple_values(tx, item)
        value = None if numbers is not None else _item_value(tx, item)
        kind = list_items.item_kind(item, numbers) if numbers is not None else _kind(value)
        if kind != self.item or self.flags is not None or (
                self.item[1] and not is_tuple(self.item)):
            raise graph_break("type", what=f"an append to {self.describe()} of another type "
                                           "than its items", type="list")
        fill = True if self.buffer.dtype == np.bool_ else 1
        room = graph.full((1, *self.buffer.shape[1:]), fill, self.buffer.dtype)
        buffer = graph.op("concatenate", [self.buffer, room], axis=0)
        for j, number in enumerate(numbers or [value]):
            if is_mixed(kind):
                number = mixed_stored(tx, number)
            at = [self.count, graph.const(j)] if numbers is not None else [self.count]
            buffer = graph.op("store", [buffer, number, *at])
        self.buffer, self.count = buffer, graph.op("add", [self.count, graph.const(1)])
        if self.known_length is not None:
            self.known_length += 1

    def rebuild_kind(self, other: bool = False) -> str | tuple:
        """How the real list is made from the buffer: `.tolist()` for Python numbers,
        `list()` for NumPy scalars and rows; for tuples of several types, each number's
        dtype name and whether it is a Python number. `other`: of the items the flags
        mark."""
        item = self.other if other else self.item
        marker = (LIST,) if is_list_item(item) else ()
        if is_mixed(item):
            return (*((k[0].name, k[2]) for k in item[4]), *marker)
        if is_tuple(item):
            return ("python " if item[2] else "") + ("lists" if marker else "tuples")
        return "python" if item[2] else "items"

    def getitem(self, tx: Interpreter, index: VariableTracker) -> VariableTracker:
        self._list_only("indexing")
        self._from_start("indexing")
        self._here(tx)
        if isinstance(index, ConstantVariable) and type(index.constant()) is slice:
            from ember.capture.variables.built_lists import sliced

            return sliced(tx, self, index.constant())
        graph = tx.graph
        if isinstance(index, ArrayVariable) and index.value.shape == () and (
                index.value.dtype.kind in "iu") and index.value.dtype != np.uint64:
            return self._at_run_time_int(tx, index.value)
        if not (isinstance(index, ConstantVariable) and type(index.constant()) is int):
            raise graph_break("type", what=f"indexing {self.describe()} other than by a "
                                           "constant int", type="list")
        k = index.constant()
        if self.known_length is not None:
            if not -self.known_length <= k < self.known_length:
                raise graph_break("user_error", type="IndexError",
                                  message="list index out of range")
            position = graph.const(k % self.known_length)
        else:
            from ember.capture.loops.frame_branches import add_check

            at = graph.op("add", [self.count, graph.const(k)]) if k < 0 else graph.const(k)
            outside = graph.op("logical_or", [graph.op("lt", [at, graph.const(0)]),
                                              graph.op("ge", [at, self.count])])
            add_check(tx, outside)  # Python raises IndexError: the frame runs as Python
            position = graph.op("where", [outside, graph.const(0), at])
        return self.item_at(tx, position)

    def _at_run_time_int(self, tx: Interpreter, k: Value) -> VariableTracker:
        """`lst[k]` of an int the graph computes (`vals[n // 2]`): counted from the end where
        negative; outside the list, where Python raises IndexError, the frame runs as
        Python."""
        from ember.capture.loops.frame_branches import add_check

        if self.buffer.shape[0] == 0:
            raise graph_break("user_error", type="IndexError", message="list index out of range")
        graph = tx.graph
        count = self.count if self.known_length is None else graph.const(self.known_length)
        k = graph.op("astype", [k], dtype=np.dtype(np.int64))
        at = graph.op("where", [graph.op("lt", [k, graph.const(0)]),
                                graph.op("add", [count, k]), k])
        outside = graph.op("logical_or", [graph.op("lt", [at, graph.const(0)]),
                                          graph.op("ge", [at, count])])
        add_check(tx, outside)
        return self.item_at(tx, graph.op("where", [outside, graph.const(0), at]))

    def item_at(self, tx: Interpreter, position: Value) -> VariableTracker:
        """The item at a place of the buffer (a value of the graph), of its type."""
        graph = tx.graph
        if is_tuple(self.item):
            flag = None if self.flags is None else graph.op("load", [self.flags, position])
            return tuple_at(graph, self.buffer, position, self.item, flag, self.other)
        if self.flags is not None:
            from ember.capture.variables.choice import ChoiceVariable

            loaded = graph.op("load", [self.buffer, position])
            other = self.other
            return ChoiceVariable(ArrayVariable(graph.op("load", [self.flags, position])),
                                  ArrayVariable(as_item(graph, loaded, other)),
                                  ArrayVariable(as_item(graph, loaded, self.item)))
        if self.item[1]:
            row = ArrayVariable(self.buffer)
            return row.getitem(tx, ArrayVariable(position))
        return ArrayVariable(as_item(graph, graph.op("load", [self.buffer, position]),
                                      self.item))

    def as_array(self, tx: Interpreter, fn: Any, kwargs: dict[str, VariableTracker]
                 ) -> VariableTracker:
        """`fn(list, **kwargs)` for np.array, np.asarray, np.stack, np.concatenate."""
        self._from_start(f"{getattr(fn, '__name__', 'np.array')}()")
        self._here(tx)
        graph = tx.graph
        rows = bool(self.item[1])
        if fn is np.concatenate and not rows:
            raise graph_break("user_error", type="ValueError",
                              message="zero-dimensional arrays cannot be concatenated")
        if self.known_length is not None:
            buffer = self.buffer
            if is_mixed(self.item) and "dtype" not in kwargs:
                buffer = graph.op("astype", [buffer], dtype=promoted(self.item))
            if fn is np.concatenate:
                shape = (self.known_length * self.item[1][0], *self.item[1][1:])
                buffer = graph.op("reshape", [buffer], shape=shape)
            handler = numpy_api.lookup_function(np.array)
            api_kwargs = {k: to_api(v) for k, v in kwargs.items()}
            return ArrayVariable(call_numpy_api("np.array", handler, graph, buffer,
                                                **api_kwargs))
        if fn is np.concatenate:
            raise graph_break("data_dependent_value",
                              what="np.concatenate of a list built by conditional appends")
        from ember.capture.loops.frame_branches import add_check
        from ember.capture.variables.masked import MaskedVariable
        from ember.numpy_api.convert import dtype_arg

        dtype = dtype_arg(to_api(kwargs["dtype"]), "np.array") if "dtype" in kwargs else None
        if dtype is None and is_mixed(self.item):
            dtype = promoted(self.item)
        buffer = self.buffer
        if dtype is not None and dtype != buffer.dtype:
            buffer = graph.op("astype", [buffer], dtype=dtype)
        if rows or fn is np.stack or buffer.dtype != np.float64 and dtype is None:
            # NumPy makes an empty list a float64 array of shape (0,) (of `dtype` when
            # given), or raises (np.stack): the frame runs as Python where it is empty.
            add_check(tx, graph.op("eq", [self.count, graph.const(0)]))
        return MaskedVariable(buffer, self.selected(graph))

    def selected(self, graph: Graph) -> Value:
        """The mask of the items appended: positions below the count."""
        positions = graph.arange(0, 1, self.buffer.shape[0], np.int64)
        return graph.op("lt", [positions, self.count])

    def python_sum(self, tx: Interpreter, start: VariableTracker) -> VariableTracker:
        """`sum(list, start)`: `start` plus each item in turn, as Python adds them (rows:
        plus their sum over the first axis, within rounding)."""
        self._from_start("sum()")
        if self.flags is not None:
            raise graph_break("data_dependent_value", what="sum() of a list of Python numbers "
                                                           "and NumPy scalars")
        if is_tuple(self.item):
            raise graph_break("user_error", type="TypeError",
                              message="unsupported operand type(s) for +: 'int' and 'tuple'")
        integers = self.item[0].kind in "iu"
        if not (self.item[0].kind == "f" or integers and not self.item[1]):
            # Rows of integers add as their own dtype in Python, not as np.sum's.
            raise graph_break("data_dependent_value", what="sum() of integers built in a loop")
        self._here(tx)
        graph = tx.graph
        if self.known_length is None:
            from ember.capture.loops.frame_branches import add_check

            # Python's sum of no items is `start` itself, of its own type.
            add_check(tx, graph.op("eq", [self.count, graph.const(0)]))
        if self.item[1]:
            mask = self.selected(graph)
            while mask.ndim < self.buffer.ndim:
                mask = graph.op("expand_dims", [mask], axis=[mask.ndim])
            kept = graph.op("where", [mask, self.buffer, graph.const(0.0)])
            handler = numpy_api.lookup_function(np.sum)
            total = ArrayVariable(call_numpy_api("sum", handler, graph, kept, axis=0))
            return tx.binary_op("+", start, total)
        first = ArrayVariable(as_item(graph, graph.op("load", [self.buffer, graph.const(0)]),
                                       self.item))
        acc = tx.binary_op("+", start, first)
        if not isinstance(acc, ArrayVariable):
            raise graph_break("data_dependent_value", what=f"sum() from {start.describe()}")
        if integers:
            self._check_wrap(tx, start, acc.value)
        return ArrayVariable(self._add_rest(graph, acc.value))

    def _check_wrap(self, tx: Interpreter, start: VariableTracker, acc: Value) -> None:
        """Integers summed as the sum's dtype: where the magnitudes of `start` and the items
        add up to a quarter of its range, a partial sum may leave it (Python ints grow,
        NumPy's integer scalars warn as they wrap), and the frame reruns as Python."""
        from ember.capture.loops.frame_branches import add_check

        graph = tx.graph
        as_float = graph.op("astype", [self.buffer], dtype=np.dtype(np.float64))
        kept = graph.op("where", [self.selected(graph), graph.op("abs", [as_float]),
                                  graph.const(0.0)])
        total = graph.op("sum", [kept], axis=None, keepdims=False)
        if isinstance(start, ArrayVariable) or (
                start.is_constant() and type(start.constant()) is int):
            first = start.value if isinstance(start, ArrayVariable) else graph.const(
                float(start.constant()))
            first = graph.op("astype", [first], dtype=np.dtype(np.float64))
            total = graph.op("add", [total, graph.op("abs", [first])])
        bound = float(2 ** (acc.dtype.itemsize * 8 - 2))
        add_check(tx, graph.op("ge", [total, graph.const(bound)]))

    def _add_rest(self, graph: Graph, acc: Value) -> Value:
        """`acc` plus items 1 to the count, one after another: a loop op."""
        body = graph.region("loop")
        index = body.add_input(np.int64, (), weak=True)
        carried = body.add_input(acc.dtype, (), weak=acc.weak, scalar=acc.scalar)
        buffer = body.add_input(self.buffer.dtype, self.buffer.shape)
        item = as_item(body, body.op("load", [buffer, index]), self.item)
        total = body.op("add", [carried, item])
        if (total.dtype, total.weak) != (acc.dtype, acc.weak):
            raise graph_break("data_dependent_value", what="sum() whose type changes")
        total = body.op("astype", [total], dtype=acc.dtype, scalar=acc.scalar,
                        weak=acc.weak)
        body.set_outputs([body.const(True, weak=False), total])
        count = self.count if self.known_length is None else graph.const(self.known_length)
        (result,) = graph.loop(graph.const(1), count, graph.const(1), [acc],
                               [self.buffer], body)
        return result


class ListMethod(VariableTracker):
    """A method of a list a loop op built, read after the loop (`lst.append`, `lst.sort`:
    `built_lists.py`), bound to the list."""

    name = ""

    def __init__(self, built: AppendedListVariable, name: str | None = None) -> None:
        self.built = built
        self.name = name or self.name

    def describe(self) -> str:
        return f"list.{self.name}"


class _AppendAfter(ListMethod):
    """`lst.append`: the buffer one place longer (`append_after`)."""

    name = "append"

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        if kwargs or len(args) != 1:
            raise graph_break("call", name="list.append with other than one argument")
        self.built.append_after(tx, args[0])
        return ConstantVariable(None)


def items_range(tx: Interpreter, built: VariableTracker, reverse: bool, ahead: int = 0,
                counted: int | None = None) -> VariableTracker | None:
    """`for v in lst` / `for v in reversed(lst)` of a list of numbers or tuples of numbers
    a loop op built: a range over its places (backwards for `reversed`), each trip's item
    loaded from the buffer (`ListItems`); None for any other list. `ahead`: instructions
    before the GET_ITER (`enumerate(lst)`); `counted`: `enumerate`'s start, each item then
    `(count, item)`."""
    if not isinstance(built, AppendedListVariable) or built.iterator or (
            built.item[1] and not is_tuple(built.item)) or (
            built.buffer.graph is not tx.graph) or built.head is not None or (
                not _loop_op_next(tx, ahead)):
        return None
    from ember.capture.loops.ranges import ListItems

    graph = tx.graph
    count = built.count if built.known_length is None else graph.const(built.known_length)
    one = graph.const(1)
    if reverse:
        return ListItems(built, count, graph.op("sub", [count, one]), graph.const(-1),
                         graph.const(-1))
    return ListItems(built, count, graph.const(0), count, one, counted)


def _loop_op_next(tx: Interpreter, ahead: int = 0) -> bool:
    """Whether the list is iterated right away (GET_ITER, FOR_ITER next, `ahead`
    instructions on) by a loop capture may still make a loop op: an iterator over its
    places is nothing Python could resume."""
    from ember.capture.loops.region import loop_key

    if tx.instructions[tx.ip + ahead].opname == "PRECALL" and (
            ahead == 0 or tx.instructions[tx.ip].opname == "GET_ITER") and _comprehension(tx):
        # `[f(v) for v in lst]`: the list comprehension's own FOR_ITER iterates it.
        return bool(tx.tracer.loop_ops)
    ahead = tx.instructions[tx.ip + ahead:tx.ip + ahead + 2]
    loop = next((i for i in ahead if i.opname == "FOR_ITER"), None)
    return loop is not None and tx.tracer.loop_ops and (
        loop_key(tx, loop) not in tx.tracer.unrolled_loops)


def _comprehension(tx: Interpreter) -> bool:
    """Whether the function under the iterator being made is a list comprehension's whose
    loop may still be a loop op (not refused as one before: it then unrolls, which its
    places known only at run time cannot)."""
    import dis

    from ember.capture.variables.functions import NestedFunctionVariable

    fn = tx.stack[-1] if tx.stack else None
    if not (isinstance(fn, NestedFunctionVariable) and fn.code.co_name == "<listcomp>"):
        return False
    loops = [i.offset for i in dis.get_instructions(fn.code) if i.opname == "FOR_ITER"]
    return len(loops) == 1 and (fn.code, loops[0]) not in tx.tracer.unrolled_loops


def python_int(graph: Graph, count: Value) -> Value:
    """A list's count as `len()` gives it: a Python int (a count carried through a pop's
    checked position is a NumPy int64)."""
    if count.weak and count.dtype == np.int64:
        return count
    return graph.op("astype", [count], dtype=np.dtype(np.int64), weak=True)


def as_item(graph: Graph, value: Value, item: ItemType) -> Value:
    """A 0-d value of the buffer as the item type: a Python number or a NumPy scalar (of
    the item's dtype, where a tuple of several types stores it as float64)."""
    if item[2]:
        return graph.op("astype", [value], dtype=item[0], weak=True)
    return graph.op("astype", [value], dtype=item[0], scalar=True)


def _made(items: np.ndarray, kind: str | tuple) -> list:
    """The list's items as Python makes them, all of the type `kind` says."""
    if isinstance(kind, tuple):  # tuples of numbers of several types, column by column
        lists = kind[-1] == LIST
        kind = kind[:-1] if lists else kind
        columns = [items[:, j].astype(name) for j, (name, _) in enumerate(kind)]
        rows = zip(*(c.tolist() if python else list(c)
                     for c, (_, python) in zip(columns, kind, strict=True)), strict=True)
        return [list(row) for row in rows] if lists else list(rows)
    if kind.endswith("tuples"):
        return [tuple(row) for row in (items.tolist() if kind == "python tuples" else items)]
    if kind.endswith("lists"):
        return items.tolist() if kind == "python lists" else [list(row) for row in items]
    return items.tolist() if kind == "python" else list(items)


def promoted(item: ItemType) -> np.dtype:
    """The dtype of NumPy's array of tuples of numbers of these types."""
    zeros = tuple(bool(0) if k[0].kind == "b" and k[2] else
                  (int(0) if k[0].kind in "iu" else 0.0) if k[2] else k[0].type(0)
                  for k in item[4])
    return np.array([zeros]).dtype


# NumPy functions that take a list as the array it holds, handled by `numpy_call`.
_ARRAY_MAKERS = (np.array, np.asarray, np.stack, np.concatenate)


def lists_as_arrays(tx: Interpreter, fn: Any, args: list[VariableTracker]
                    ) -> list[VariableTracker] | None:
    """The arguments of `np.mean(lst)`, `np.percentile(lst, 90)`, `np.dot(lst, w)`... with
    each list a loop op built made the array NumPy makes of it first (`np.asarray(lst)`:
    of a length only the run time knows, a selection of its buffer); None where no argument
    is such a list."""
    if fn in _ARRAY_MAKERS or not any(
            isinstance(a, AppendedListVariable) and not a.iterator for a in args):
        return None
    return [a.as_array(tx, np.asarray, {}) if isinstance(a, AppendedListVariable)
            and not a.iterator else a for a in args]


def numpy_call(tx: Interpreter, fn: Any, args: list[VariableTracker],
               kwargs: dict[str, VariableTracker]) -> VariableTracker | None:
    """`np.array(list)` and its kin of a list built in a loop; None for other calls."""
    if not args or not isinstance(args[0], AppendedListVariable):
        return None
    args[0]._list_only(f"np.{getattr(fn, '__name__', fn)}")
    if fn not in _ARRAY_MAKERS or len(args) > 1:
        raise graph_break("data_dependent_value",
                          what=f"np.{getattr(fn, '__name__', fn)} of a list built in a loop")
    allowed = {"dtype"} if fn in (np.array, np.asarray) else set()
    axis = kwargs.get("axis") if fn in (np.stack, np.concatenate) else None
    if axis is not None and not (axis.is_constant() and axis.constant() == 0):
        raise graph_break("data_dependent_value", what=f"np.{fn.__name__} of a list built "
                                                       "in a loop, along another axis")
    rest = {k: v for k, v in kwargs.items()
            if not (k == "axis" and fn in (np.stack, np.concatenate))}
    if set(rest) - allowed:
        raise graph_break("data_dependent_value", what=f"np.{fn.__name__} of a list built "
                                                       "in a loop, with arguments")
    return args[0].as_array(tx, fn, rest)


def rebuild(buffer: np.ndarray, count: int, kind: str | tuple, iterator: bool,
            flags: np.ndarray | None = None, head: int = 0, deque: bool = False,
            other: str | tuple | None = None) -> Any:
    """The real list after the graph ran: Python numbers, or NumPy scalars and rows (row
    views of one new buffer: distinct arrays, as the appended ones were); an iterator over
    it for a generator's values. `flags`: true where an item is of the `other` kind (the
    other of Python number and NumPy scalar). `head`: the place of the first item;
    `deque`: a `collections.deque` of the items."""
    items = buffer[head:count]
    made = _made(items, kind)
    if flags is not None:
        second = _made(items, other if other is not None else
                       "items" if kind == "python" else "python")
        flags = flags[head:count]
        made = [second[k] if flags[k] else made[k] for k in range(len(made))]
    if deque:
        return collections.deque(made)
    return iter(made) if iterator else made
