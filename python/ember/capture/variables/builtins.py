"""Python builtins: `len`, `range`, `isinstance`, `min`/`max`/`abs`/`sum`, `tuple`, `list`,
`float`/`int` of constants, `enumerate`, `zip`... Pure builtins on constants run at capture
time; on trackers each has a rule here; the rest (`print`, `open`, ...) break."""

from __future__ import annotations

import builtins
import collections
import copy
import functools
import heapq
import itertools
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.loops import scalars as loop_scalars
from ember.capture.loops import zipped
from ember.capture.sources import Source
from ember.capture.variables import attribute_calls, choice, keyed, scalar
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import (
    ConstantVariable,
    ExceptionVariable,
    fold,
    fold_call,
    is_foldable,
)
from ember.capture.variables.containers import (
    DequeVariable,
    DictVariable,
    IteratorVariable,
    LazyItems,
    ListVariable,
    TupleVariable,
    claim,
    lazy_items,
)
from ember.capture.variables.scalar import PythonScalarVariable
from ember.numpy_api.scalars import numbers_in_graph

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

SIDE_EFFECT_BUILTINS = frozenset({
    builtins.print, builtins.input, builtins.open, builtins.setattr, builtins.delattr,
    builtins.exec, builtins.eval, builtins.breakpoint, builtins.globals, builtins.locals,
    builtins.vars, builtins.id,
})


def _iterator_result(items: Any) -> IteratorVariable:
    return IteratorVariable(items)


class BuiltinVariable(VariableTracker):
    """A builtin function or type (`len`, `range`, `float`, `tuple`...)."""

    def __init__(self, fn: Any, source: Source | None = None) -> None:
        self.fn = fn
        self.source = source

    def describe(self) -> str:
        return f"{getattr(self.fn, '__name__', repr(self.fn))}()"

    def is_constant(self) -> bool:
        return True

    def constant(self) -> Any:
        return self.fn

    def python_type(self) -> type:
        return type(self.fn)

    def truth(self, tx: Interpreter) -> bool:
        return True

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        fn = self.fn
        if fn in SIDE_EFFECT_BUILTINS:
            raise graph_break("side_effect", what=f"{fn.__name__}()")
        if isinstance(fn, type) and issubclass(fn, BaseException):
            return ExceptionVariable(fn, args, kwargs)
        rule = _RULES.get(fn)
        if rule is not None:
            result = rule(tx, args, kwargs)
            if result is not None:
                return result
        if is_foldable(fn):
            return fold_call(fn, self.describe(), args, kwargs)
        raise graph_break("call", name=self.describe())


def _len(tx, args, kwargs):
    from ember.capture.loops.appends import BodyList
    from ember.capture.variables.appended import AppendedListVariable
    from ember.capture.variables.array import ArrayVariable
    from ember.capture.variables.datalen import DataViewVariable
    from ember.capture.variables.masked import MaskedVariable
    from ember.capture.variables.nonzero import NonzeroIndexVariable

    if type(args[0]) is ArrayVariable or isinstance(args[0], NonzeroIndexVariable
                                                     | MaskedVariable | AppendedListVariable
                                                     | DataViewVariable | BodyList):
        return args[0].len_variable(tx)
    if isinstance(args[0], ArrayVariable) and args[0].value.ndim and isinstance(
            args[0].value.shape[0], str):  # a symbolic size, of a view or in a loop body
        return ArrayVariable.len_variable(args[0], tx)
    return ConstantVariable(args[0].length(tx))


def _isinstance(tx, args, kwargs):
    if len(args) != 2 or not args[1].is_constant():
        return None
    classes = args[1].constant()
    return ConstantVariable(fold("isinstance()", issubclass, args[0].python_type(), classes))


def _sequence(kind):
    def rule(tx, args, kwargs):
        if kwargs or len(args) > 1:
            return None
        from ember.capture.variables.appended import AppendedListVariable

        if kind is list and args and isinstance(args[0], AppendedListVariable) and (
                not args[0].iterator):
            built = args[0]  # `list(lst)`: a new list of the same items
            return AppendedListVariable(built.buffer, built.count, built.item,
                                        built.known_length, flags=built.flags, head=built.head,
                                        other=built.other)
        items = args[0].unpack(tx) if args else []
        if kind is tuple and all(i.is_constant() for i in items) and args and args[0].is_constant():
            return ConstantVariable(tuple(i.constant() for i in items))
        if kind is tuple:
            return TupleVariable(items)
        made = ListVariable(items)
        made.made_in = tx.tracer.graph  # a new list, the trip's own (`containers.claim`)
        return made

    return rule


def _deque(tx, args, kwargs):
    """`deque()`, `deque(items)`; one with a `maxlen` is made in Python."""
    maxlen = kwargs.get("maxlen")
    if len(args) > 1 or set(kwargs) - {"maxlen"} or (
            maxlen is not None and not (maxlen.is_constant() and maxlen.constant() is None)):
        return None
    from ember.capture.variables.appended import AppendedListVariable

    if args and isinstance(args[0], AppendedListVariable) and not args[0].iterator:
        # The items of a list a loop op built (`deque([v for v in range(n) if ...])`): the
        # same buffer, now a deque's (a loop op carrying it makes new values of it).
        built = args[0]
        return AppendedListVariable(built.buffer, built.count, built.item, built.known_length,
                                    flags=built.flags, head=built.head, deque=True)
    made = DequeVariable(args[0].unpack(tx) if args else [])
    made.made_in = tx.tracer.graph  # a new deque, the trip's own (`containers.claim`)
    return made


def _heap_call(fn):
    """`heapq.heappush`/`heappop` of a list a loop op carries (`loops/heaps.py`). Of a list
    of values computed at run time outside one: a break that tries the loop around it as a
    loop op (a `while pq:` at the frame's level)."""
    def rule(tx, args, kwargs):
        from ember.capture.loops import heaps

        if kwargs:
            return None
        done = heaps.call(tx, fn, args)
        if done is not None:
            return done
        from ember.capture.variables.appended import AppendedListVariable

        if args and isinstance(args[0], AppendedListVariable):
            raise graph_break("data_dependent_value",
                              what=f"heapq.{fn.__name__} of a list built in a loop")
        if not args or not isinstance(args[0], ListVariable):
            return None
        heap = args[0]
        if len(heap.items) == (0 if fn is heapq.heappush else 1) and len(args) == (
                2 if fn is heapq.heappush else 1):
            # Pushed onto an empty heap, popped from a heap of one: no item is compared.
            claim(tx, heap)
            if fn is heapq.heappush:
                heap.items.append(args[1])
                return ConstantVariable(None)
            return heap.items.pop()
        if not all(i.is_constant() for i in [*heap.items, *args[1:]]):
            raise graph_break("data_dependent_value",
                              what=f"heapq.{fn.__name__} of a list of values computed at "
                                   "run time")
        # Constants (`pq = [(0.0, s)]` then `heappop(pq)`): done at capture time.
        claim(tx, heap)
        values = [i.constant() for i in heap.items]
        result = fold(f"heapq.{fn.__name__}", fn, values, *[a.constant() for a in args[1:]])
        heap.items = [ConstantVariable(v) for v in values]
        return ConstantVariable(result)

    return rule


def _dict(tx, args, kwargs):
    items: dict[Any, VariableTracker] = {}
    if args:
        if isinstance(args[0], DictVariable):
            items.update(args[0].items)
        else:
            for pair in args[0].unpack(tx):
                key, value = pair.unpack(tx)
                items[key.constant() if key.is_constant() else _bad_key(key)] = value
    for key, value in kwargs.items():
        items[key] = value
    return DictVariable(items)


def _bad_key(key):
    raise graph_break("type", what=f"dict key {key.describe()}", type=key.type_name())


def _scalar_conversion(kind: type):
    """`int(v)`, `float(v)`, `complex(v)`: a graph value where that is exact, a break at a
    value the data decides; `complex` is never a graph value (no complex dtype)."""
    def rule(tx, args, kwargs):
        if kind is complex:
            if args and isinstance(args[0], ArrayVariable):
                raise graph_break("data_dependent_value",
                                  what=f"converting {args[0].describe()} to a Python scalar")
            return None
        if len(args) == 1 and not kwargs and loop_scalars.in_body(tx):
            converted = loop_scalars.convert(tx, kind, args[0])
            if converted is not None:
                return converted
        if args and isinstance(args[0], ArrayVariable):
            convertible = _exact_conversion(kind, args[0].value) or _checked_conversion(
                kind, args[0].value)
            if convertible and numbers_in_graph.get() and len(args) == 1 and not kwargs:
                converted = loop_scalars.convert(tx, kind, args[0])
                if converted is not None:
                    return converted
            raise graph_break("data_dependent_value", what=f"converting {args[0].describe()} "
                                                           "to a Python scalar")
        if len(args) == 1 and not kwargs and isinstance(args[0], PythonScalarVariable):
            return scalar.convert(kind, args[0])
        return None

    return rule


def _complex(tx, args, kwargs):
    """`complex(re, im)` of anything but constants: ember has no complex dtype, so the frame
    runs as NumPy (the `complex` break); of constants it is folded."""
    if all(a.is_constant() for a in (*args, *kwargs.values())):
        return None
    from ember.errors import complex_number

    raise complex_number(f"complex({', '.join(a.describe() for a in args)})")


def _round(tx, args, kwargs):
    """`round(v)` of a number: an int, checked as `int()` is; outside loop bodies, of NumPy
    scalars (a 0-d array has no `__round__`)."""
    if len(args) == 1 and not kwargs and (loop_scalars.in_body(tx) or (
            isinstance(args[0], ArrayVariable) and args[0].value.scalar
            and args[0].value.dtype.kind in "iuf" and numbers_in_graph.get())):
        return loop_scalars.round_to_int(tx, args[0])
    return None


def _divmod(tx, args, kwargs):
    """`divmod(a, b)` is `(a // b, a % b)` for numbers and NumPy scalars, np.divmod for
    arrays."""
    if len(args) != 2 or kwargs or all(a.is_constant() for a in args):
        return None
    if any(isinstance(a, ArrayVariable) and not (a.value.scalar or a.value.weak)
           for a in args):
        # `ndarray.__divmod__` is np.divmod, whose warnings name divmod
        from ember import numpy_api
        from ember.capture.variables.numpy_calls import NumpyFunctionVariable

        return NumpyFunctionVariable(np.divmod, numpy_api.lookup_function(np.divmod)).call(
            tx, args, {})
    if not any(isinstance(a, ArrayVariable) and a.value.scalar and not a.value.weak
               for a in args):
        return TupleVariable([tx.binary_op("//", *args), tx.binary_op("%", *args)])
    # NumPy's scalar divmod: one computation, whose warnings name "scalar divmod", once
    results = []
    with tx.graph.one_call():
        for op in ("//", "%"):
            result = tx.binary_op(op, *args)
            if isinstance(result, ArrayVariable):
                tx.graph.warns_as(result.value, "scalar divmod")
            results.append(result)
    return TupleVariable(results)


def _exact_conversion(kind: type, value) -> bool:
    """`float(v)` of any 0-d number and `int(v)` of a 0-d integer or bool are graph values:
    they cannot fail (`int()` of a float can: `_checked_conversion`)."""
    if value.shape or value.dtype.kind not in "biuf" or value.dtype == np.uint64:
        return False
    return kind is float or (kind is int and value.dtype.kind in "biu")


def _checked_conversion(kind: type, value) -> bool:
    """`int(v)` of a 0-d float is a graph value checked at run time: for NaN, infinity and
    values past int64 (where Python raises or gives a wider int) the frame runs as Python
    (`python_checks.to_int`)."""
    return kind is int and not value.shape and value.dtype.kind == "f"


def _bool(tx, args, kwargs):
    """`bool(v)` of a 0-d value: a Python bool computed at run time (what an `if` on it
    branches on: `if np.allclose(x_new, x): break`, whose NumPy source ends in
    `bool(all(isclose(...)))`; at the frame's level a branch of its own, section 10), as
    `x.item()` is, except in a differentiated function; elsewhere the value's truth, a break
    where the data decide."""
    if len(args) == 1 and not kwargs:
        vt = args[0]
        if isinstance(vt, ArrayVariable) and (loop_scalars.in_body(tx) or (
                not vt.value.shape and numbers_in_graph.get())):
            converted = loop_scalars.convert(tx, bool, args[0])
            if converted is not None:
                return converted
        return ConstantVariable(args[0].truth(tx))
    return None


def _abs(tx, args, kwargs):
    from ember.capture.variables.datalen import DataViewVariable
    from ember.capture.variables.masked import MaskedVariable

    if len(args) == 1 and isinstance(args[0], (ArrayVariable, PythonScalarVariable,
                                               MaskedVariable, DataViewVariable)):
        return tx.unary_op("abs", args[0])
    return None


def _sum(tx, args, kwargs):
    if not args or (args[0].is_constant() and not kwargs):
        return None
    total = args[1] if len(args) > 1 else kwargs.get("start", ConstantVariable(0))
    from ember.capture.variables.appended import AppendedListVariable

    if isinstance(args[0], AppendedListVariable):
        return args[0].python_sum(tx, total)
    for item in args[0].unpack(tx):
        total = tx.binary_op("+", total, item)
    return total


def _min_max(fn):
    def rule(tx, args, kwargs):
        from ember.capture.variables.appended import AppendedListVariable

        if len(args) == 1 and isinstance(args[0], AppendedListVariable):
            from ember.capture.variables.built_lists import extremum

            return extremum(tx, fn, args[0], kwargs)
        if len(args) == 1 and set(kwargs) <= {"key", "default"} and (
                many := keyed.many_of_range(tx, args[0], keyed.MAX_PICKED, kwargs)) is not None:
            from ember.capture.variables.built_lists import extremum

            return extremum(tx, fn, many, {"key": kwargs["key"]})
        items = args[0].unpack(tx) if len(args) == 1 else list(args)
        if (len(args) == 1 or "default" not in kwargs) and (
                picked := keyed.keyed_extremum(tx, fn, items, kwargs)) is not None:
            return picked
        mixed = next((k for k, i in enumerate(items) if choice.liftable(tx.graph, i)), None)
        if mixed is not None and not kwargs:
            # Either side of a choice among the items: the pick of each, as a choice.
            lifted = choice.lift(tx, items[mixed], lambda side: rule(
                tx, [*items[:mixed], side, *items[mixed + 1:]], {}))
            if lifted is not None:
                return lifted
        if not kwargs:
            found = loop_scalars.min_max(tx, fn, items, exact=not loop_scalars.in_body(tx))
            if found is not None:
                return found
        if not all(i.is_constant() for i in items):
            if not kwargs and (picked := _mixed_min_max(tx, fn, items)) is not None:
                return picked
            if len(args) == 1 and not kwargs and tx.graph.parent is None:
                from ember.capture.variables.built_lists import extremum, from_items

                built = from_items(tx, items)  # `max(out)` of a list written out
                if built is not None:
                    return extremum(tx, fn, built, {})
            _no_min_max(fn, items)
        if not all(v.is_constant() for v in kwargs.values()):
            return None
        extra = {k: v.constant() for k, v in kwargs.items()}
        return ConstantVariable(fold(f"{fn.__name__}()", fn, [i.constant() for i in items],
                                     **extra))

    return rule


def _mixed_min_max(tx, fn, items):
    """`max(hits, 1)` of numbers of several types (a NumPy scalar and a Python int): Python
    returns one of the objects itself, the first no later one beats, so the result is a
    choice of them (`variables/choice.py`) that its uses settle."""
    from ember.capture import operators
    from ember.capture.variables.choice import ChoiceVariable

    if len(items) < 2 or any(loop_scalars.scalar_value(tx, i) is None for i in items):
        return None
    best = items[0]
    for item in items[1:]:
        beats = choice.truth(tx.graph, operators.compare_op(
            tx, "<" if fn is min else ">", item, best))
        if not (isinstance(beats, ArrayVariable) and not beats.value.shape):
            return None
        best = choice.flattened(tx.graph, ChoiceVariable(beats, item, best))
    return best


def _no_min_max(fn, items):
    for item in items:
        if isinstance(item, ArrayVariable):
            raise graph_break("data_dependent_value",
                              what=f"{fn.__name__}() compares {item.describe()} in Python "
                                   f"(use np.{'maximum' if fn is max else 'minimum'})")
    raise graph_break("call", name=f"{fn.__name__}() of non-constant values")


def _enumerate(tx, args, kwargs):
    from ember.capture.loops.ranges import DynamicRangeIterator, array_rows, slice_items
    from ember.capture.variables.appended import items_range

    start = (args[1] if len(args) > 1 else kwargs.get("start", ConstantVariable(0)))
    first = start.constant()
    if type(first) is int and (rows := array_rows(tx, [first, args[0]], single=False,
                                                  ahead=1)) is not None:
        return DynamicRangeIterator(rows)
    if type(first) is int and (items := slice_items(tx, args[0], ahead=1, counted=first)
                               ) is not None:
        return DynamicRangeIterator(items)  # `enumerate(idx[ptr[v]:ptr[v + 1]])`
    if type(first) is int and (places := items_range(tx, args[0], reverse=False, ahead=1,
                                                     counted=first)) is not None:
        return DynamicRangeIterator(places)  # `enumerate(lst)` of a list a loop op built
    # The origin first: it takes a `zip` not yet iterated, which `lazy_items` uses up.
    origin = None
    if isinstance(args[0], IteratorVariable):
        length = len(args[0].items) - args[0].index
        origin = zipped.origin_of([ConstantVariable(range(first, first + length)), args[0]])
    inner = lazy_items(tx, args[0])
    iterator = _iterator_result(LazyItems(
        len(inner), lambda i: TupleVariable([ConstantVariable(first + i), inner[i]])))
    counts = ConstantVariable(range(first, first + len(inner)))
    # A loop op's items (capture/loops).
    iterator.origin = origin or zipped.origin_of([counts, args[0]])
    return iterator


def _zip(tx, args, kwargs):
    from ember.capture.loops.ranges import DynamicRangeIterator, array_rows, zipped_items

    if args and (rows := array_rows(tx, list(args), single=False, ahead=1)) is not None:
        return DynamicRangeIterator(rows)  # `strict=` holds: one size
    if not kwargs and (items := zipped_items(tx, list(args))) is not None:
        return DynamicRangeIterator(items)  # `zip(lst, lst[1:])` of lists a loop op built
    origin = zipped.origin_of(list(args))  # before `lazy_items` uses up nested zips
    columns = [lazy_items(tx, a) for a in args]
    if kwargs.get("strict") is not None and kwargs["strict"].constant():
        if len({len(c) for c in columns}) > 1:
            raise graph_break("user_error", type="ValueError",
                              message="zip() arguments have different lengths")
    length = min((len(c) for c in columns), default=0)
    iterator = _iterator_result(LazyItems(
        length, lambda i: TupleVariable([c[i] for c in columns])))
    iterator.origin = origin
    return iterator


def _reversed(tx, args, kwargs):
    from ember.capture.loops.ranges import DynamicRangeIterator
    from ember.capture.variables.appended import items_range

    if (places := items_range(tx, args[0], reverse=True)) is not None:
        return DynamicRangeIterator(places)  # a loop op visits the list's places backwards
    iterator = _iterator_result(list(reversed(args[0].unpack(tx))))
    if isinstance(args[0], ConstantVariable) and isinstance(args[0].constant(), range):
        # `reversed(range(...))` is a range too: a loop op's items (capture/loops)
        iterator.origin = ConstantVariable(args[0].constant()[::-1])
    return iterator


def _combinatoric(fn, *options: str):
    """`itertools.product(*iterables, repeat=)`, `combinations(items, r)`,
    `permutations(items, r)` and `chain(*iterables)` of iterables whose items capture knows
    (ranges, tuples, lists): their items, in order, for a loop to unroll."""
    def rule(tx, args, kwargs):
        counts = [a for a in args if isinstance(a, ConstantVariable)
                  and isinstance(a.constant(), int)]
        if set(kwargs) - set(options) or not all(v.is_constant() for v in kwargs.values()):
            return None
        iterables = [a.unpack(tx) for a in args[:len(args) - len(counts)]]
        items = fn(*iterables, *(c.constant() for c in counts),
                   **{k: v.constant() for k, v in kwargs.items()})
        iterator = _iterator_result([TupleVariable(list(i)) if isinstance(i, tuple) else i
                                     for i in items])
        if fn is itertools.product and not counts:
            repeat = kwargs["repeat"].constant() if "repeat" in kwargs else 1
            iterator.origin = zipped.product_of(list(args) * repeat)  # a loop op's items
        r = [c.constant() for c in counts] or [v.constant() for v in kwargs.values()]
        if fn is itertools.combinations and len(args) - len(counts) == 1 and r == [2]:
            iterator.origin = zipped.pairs_of(args[0])
        return iterator

    return rule


def _ndenumerate(tx, args, kwargs):
    """`np.ndenumerate(a)` of an array of known shape: `(index, a[index])` in C order, each
    element read from `a` when its trip starts (as `a.flat` reads it)."""
    from ember.capture.variables.array import ArrayVariable

    if kwargs or len(args) != 1 or not isinstance(args[0], ArrayVariable):
        return None
    a = args[0]
    shape = a.value.shape
    if a.value.weak or not all(type(n) is int for n in shape):
        return None

    def item(i: int) -> VariableTracker:
        where = [ConstantVariable(int(d)) for d in np.unravel_index(i, shape)] if shape else []
        return TupleVariable([TupleVariable(where), a.getitem(tx, TupleVariable(list(where)))])

    iterator = _iterator_result(LazyItems(math.prod(shape), item))
    if shape and 0 not in shape:
        iterator.origin = zipped.NdEnumerate(a)  # a loop op's items (capture/loops)
    return iterator


def _map(tx, args, kwargs):
    if kwargs or len(args) < 2:
        return None
    fn, columns = args[0], [a.unpack(tx) for a in args[1:]]
    effects = tx.tracer.effects
    results = [fn.call(tx, list(row), {}) for row in zip(*columns)]
    if tx.tracer.effects != effects:  # lazy: a consumer that stops early calls it less
        raise graph_break("call", name="map() of a function that changes state")
    return _iterator_result(results)


def _reduce(tx, args, kwargs):
    """`functools.reduce(fn, items[, initial])`: `fn` called (inlined) on each item in turn."""
    if kwargs or len(args) not in (2, 3):
        return None
    fn, items = args[0], args[1].unpack(tx)
    if len(args) == 3:
        total = args[2]
    elif items:
        total, items = items[0], items[1:]
    else:
        return None  # Python raises its TypeError
    for item in items:
        total = fn.call(tx, [total, item], {})
    return total


def _copy(deep: bool):
    """`copy.copy` and `copy.deepcopy` of an array (a new array: `ndarray.__copy__`), of a
    list (a new list of the same items, each copied too by `deepcopy`) and of a tuple."""
    def copied(tx, item):
        if isinstance(item, ArrayVariable):
            return item.getattr(tx, "copy").call(tx, [], {})
        if type(item) in (ListVariable, TupleVariable):
            items = item.unpack(tx)
            if deep:
                items = [copied(tx, i) for i in items]
                if any(i is None for i in items):
                    return None
            return ListVariable(list(items)) if type(item) is ListVariable else (
                TupleVariable(list(items)) if deep else item)
        if item.is_constant() and isinstance(item.constant(), (int, float, str, bool)):
            return item
        return None

    def rule(tx, args, kwargs):
        if len(args) != 1 or kwargs:
            return None
        return copied(tx, args[0])

    return rule


def _sorted(tx, args, kwargs):
    """`sorted(items, key=..., reverse=...)`: the keys must be constants (a key function is
    inlined on each item), the items may be anything; Python's stable sort orders them."""
    if len(args) != 1 or set(kwargs) - {"key", "reverse"}:
        return None
    from ember.capture.variables.appended import AppendedListVariable

    if isinstance(args[0], AppendedListVariable):
        from ember.capture.variables.built_lists import sorted_list

        return sorted_list(tx, args[0], kwargs)
    if (many := keyed.many_of_range(tx, args[0], keyed.MAX_SORTED, kwargs)) is not None:
        from ember.capture.variables.built_lists import sorted_list

        return sorted_list(tx, many, kwargs)
    items = args[0].unpack(tx)
    key = kwargs.get("key")
    reverse = kwargs.get("reverse", ConstantVariable(False))
    if not reverse.is_constant():
        return None
    if key is None or (key.is_constant() and key.constant() is None):
        keys = items
    else:
        keys = [key.call(tx, [item], {}) for item in items]
    if all(k.is_constant() for k in keys):
        values = [k.constant() for k in keys]
    else:
        values = _leading_keys(keys)
        if values is None:
            if keys is not items:
                return keyed.keyed_sorted(tx, items, keys, bool(reverse.constant()))
            if tx.graph.parent is not None:
                return None
            from ember.capture.variables.built_lists import from_items, sorted_list

            built = from_items(tx, items)  # `sorted(out)` of a list written out
            return None if built is None else sorted_list(tx, built, {"reverse": reverse})
    order = fold("sorted()", sorted, range(len(items)), key=lambda i: values[i],
                 reverse=bool(reverse.constant()))
    return ListVariable([items[i] for i in order])


def _leading_keys(keys: list[VariableTracker]) -> list[Any] | None:
    """The first items of tuple keys (`sorted(d.items())`: a name, then an array), where those
    are constants that differ pairwise: Python's tuple comparison then never reaches the
    items after them, so the order is theirs. None where it might."""
    if not all(isinstance(k, TupleVariable) and k.items and k.items[0].is_constant()
               for k in keys):
        return None
    firsts = [k.items[0].constant() for k in keys]
    try:
        if any(bool(a == b) for i, a in enumerate(firsts) for b in firsts[i + 1:]):
            return None
    except Exception:  # noqa: BLE001 -- keys whose equality Python cannot decide
        return None
    return firsts


def _iter(tx, args, kwargs):
    if len(args) != 1 or kwargs:
        return None
    return args[0] if isinstance(args[0], IteratorVariable) else IteratorVariable(
        args[0].unpack(tx))


def _next(tx, args, kwargs):
    if not args or not isinstance(args[0], IteratorVariable) or kwargs:
        return None
    item = args[0].next()
    if item is not None:
        return item
    if len(args) > 1:
        return args[1]
    raise graph_break("user_error", type="StopIteration", message="next() of an exhausted "
                                                                   "iterator")


def _range(tx, args, kwargs):
    from ember.capture.loops.ranges import runtime_range

    found = runtime_range(tx, args) if not kwargs else None
    if found is not None:
        return found
    args = [scalar.structural(a) for a in args]
    if all(a.is_constant() for a in args) and not kwargs:
        return ConstantVariable(fold("range()", range, *[a.constant() for a in args]))
    from ember.capture.loops.ranges import dynamic_range

    found = dynamic_range(tx, args) if not kwargs else None
    if found is not None:
        return found
    raise graph_break("call", name="range() of non-constant values")


def _type(tx, args, kwargs):
    if len(args) == 1 and not kwargs:
        return ConstantVariable(args[0].python_type())
    return None


def _all_any(fn):
    def rule(tx, args, kwargs):
        from ember.capture.variables.appended import AppendedListVariable

        if len(args) == 1 and not kwargs and isinstance(args[0], AppendedListVariable):
            from ember.capture.variables.built_lists import all_any

            return all_any(tx, fn, args[0])
        items = args[0].unpack(tx)
        values = _truth_values(tx, items)
        if values is not None:
            return _fold_truths(tx, fn, values)
        truths = [i.truth(tx) for i in items]
        return ConstantVariable(fn(truths))

    return rule


def _truth_values(tx, items):
    """The 0-d values of the graph among `items` (a generator's yields, `any(v > t for v in
    row)`, already computed), and the Python truths of the others, where every item is one
    or the other and some is a value; else None."""
    values = []
    for item in items:
        if isinstance(item, ArrayVariable) and not item.value.shape and (
                item.value.graph is tx.graph) and item.value.dtype.kind in "biuf":
            values.append(item.value)
        elif item.is_constant():
            values.append(bool(item.constant()))
        else:
            return None
    return values if any(not isinstance(v, bool) for v in values) else None


def _fold_truths(tx, fn, values):
    """`any`/`all` of truths some of which the data decide: a Python bool of the graph.
    The items were all computed (a flag one raises reruns the frame as Python), so only the
    answer is left to short-circuit."""
    decided = [v for v in values if isinstance(v, bool)]
    if fn is any and any(decided) or fn is all and not all(decided):
        return ConstantVariable(fn is any)
    graph = tx.graph
    truths = [graph.op("astype", [v], dtype=np.dtype(np.bool_), weak=False, scalar=True)
              for v in values if not isinstance(v, bool)]
    combine = "logical_or" if fn is any else "logical_and"
    result = truths[0]
    for truth in truths[1:]:
        result = graph.op(combine, [result, truth])
    return ArrayVariable(graph.op("astype", [result], dtype=np.dtype(np.bool_), weak=True))


_RULES = {
    builtins.len: _len,
    builtins.isinstance: _isinstance,
    builtins.tuple: _sequence(tuple),
    builtins.list: _sequence(list),
    builtins.dict: _dict,
    collections.deque: _deque,
    heapq.heappush: _heap_call(heapq.heappush),
    heapq.heappop: _heap_call(heapq.heappop),
    heapq.heapreplace: _heap_call(heapq.heapreplace),
    heapq.heappushpop: _heap_call(heapq.heappushpop),
    builtins.float: _scalar_conversion(float),
    builtins.int: _scalar_conversion(int),
    builtins.complex: _complex,
    builtins.bool: _bool,
    builtins.round: _round,
    builtins.divmod: _divmod,
    builtins.abs: _abs,
    builtins.sum: _sum,
    builtins.min: _min_max(min),
    builtins.max: _min_max(max),
    builtins.enumerate: _enumerate,
    builtins.zip: _zip,
    builtins.reversed: _reversed,
    builtins.range: _range,
    builtins.map: _map,
    builtins.iter: _iter,
    builtins.next: _next,
    builtins.sorted: _sorted,
    functools.reduce: _reduce,
    copy.copy: _copy(deep=False),
    copy.deepcopy: _copy(deep=True),
    builtins.type: _type,
    builtins.getattr: attribute_calls.getattr_rule,
    builtins.hasattr: attribute_calls.hasattr_rule,
    builtins.all: _all_any(all),
    builtins.any: _all_any(any),
    itertools.product: _combinatoric(itertools.product, "repeat"),
    itertools.combinations: _combinatoric(itertools.combinations, "r"),
    itertools.permutations: _combinatoric(itertools.permutations, "r"),
    itertools.chain: _combinatoric(itertools.chain),
    np.ndenumerate: _ndenumerate,
}
