"""Resume corpus, part two: calls, closures, classes, comprehensions, NumPy, and resume
functions resumed again (see test_resume_corpus.py; no tests here)."""

from __future__ import annotations

import dis
import types

import numpy as np
from ember.capture.resume import make_resume_function, resume_stack_depth
from test_resume_corpus import Case, nested_loops, registrar

CASES: list[Case] = []
case = registrar(CASES)


class Point:
    def __init__(self, x: float, y: float) -> None:
        self.x = x
        self.y = y
        self.scale = lambda k: Point(self.x * k, self.y * k)

    def norm2(self) -> float:
        return self.x * self.x + self.y * self.y

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)

    def __repr__(self) -> str:
        return f"Point({self.x}, {self.y})"


COUNTER = 0


def _reset_counter():
    global COUNTER
    COUNTER = 0
    return (3,)


def _make_reader(scale):
    offset = 10

    def reader(values):
        return [scale * v + offset for v in values]

    return reader


CASES.append(Case(_make_reader(3), lambda: ([1, 2, 3],)))


@case(lambda: (4,))
def closure_writes_nonlocal(n):
    count = 0

    def bump(k):
        nonlocal count
        count += k
        return count

    for i in range(n):
        bump(i)
        print("count", count)
    count += 100
    return bump(1), count


@case(lambda: (7,))
def cell_argument(x):
    get = lambda: x
    before = get()
    x = x * 2
    return before, get(), x


def _make_counter():
    hits = 0

    def counter(step):
        nonlocal hits
        for _ in range(step):
            hits += 1
        print("hits", hits)
        return hits

    return counter


_counter = _make_counter()


def _fresh_counter():
    _counter.__closure__[0].cell_contents = 0
    return (3,)


CASES.append(Case(_counter, _fresh_counter))


def _keywords(a, b=2, *, c=3, d=4):
    return a + 10 * b + 100 * c + 1000 * d


@case(lambda: (1, 2))
def keyword_calls(x, y):
    first = _keywords(x, c=y)
    second = _keywords(x, b=y, d=x + y)
    third = sorted([3, 1, 2], key=lambda v: -v, reverse=True)
    return first, second, third


@case(lambda: (Point(3, 4),))
def method_calls(p):
    n = p.norm2()
    scaled = p.scale(2)
    words = repr(p).split("(", maxsplit=1)
    return n, scaled.norm2(), words, scaled


@case(lambda: (1, 2, 3), lambda: ())
def star_args(*args, **kwargs):
    merged = dict(kwargs, count=len(args))
    extra = {"c": len(args)}
    return _keywords(*args[:1] or (0,), **extra), merged, [*args, *args]


@case(lambda: (5,), lambda: (5, 6))
def default_arguments(a, b=10, c=None):
    c = [] if c is None else c
    c.append(a + b)
    return c


@case(lambda: ("ember", 3.14159))
def formatting(name, value):
    text = f"{name!r}: {value:.2f} ({len(name)})"
    print(text)
    return text + "!" * 2


@case(lambda: ([1, 2, 3, 4, 5],))
def unpacking(items):
    first, *middle, last = items
    a, (b, c) = first, (last, len(middle))
    a, b = b, a
    return a, b, c, middle


@case(lambda: (3, 5, 7), lambda: (3, 9, 7))
def chained_comparison(a, b, c):
    inside = a < b < c
    ordered = a <= b != c > 1
    return inside, ordered


@case(lambda: (0, "", None), lambda: (1, "x", 2))
def short_circuit(a, b, c):
    either = a or b or c
    both = a and b and c
    pick = "yes" if a and not c is None else "no"
    return either, both, pick


@case(lambda: (5,))
def delete_local(n):
    temp = n * 2
    keep = temp + 1
    del temp
    try:
        print(temp)  # noqa: F821
    except UnboundLocalError:
        print("temp is gone")
    return keep


@case(_reset_counter)
def global_counter(n):
    global COUNTER
    for _ in range(n):
        COUNTER += 2
    return COUNTER


@case(lambda: (np.arange(6.0).reshape(2, 3), np.float32(2.0)))
def numpy_expression(x, s):
    y = x * s + 1.0
    z = np.sqrt(y).sum(axis=0)
    x[0, 0] = -1.0
    print("shape", z.shape, z.dtype)
    return z, y.mean(), x


@case(lambda: ({"a": 1},))
def subscript_augmented(d):
    d["a"] += 5
    d["b"] = d.get("b", 0) + 1
    items = [0, 1, 2]
    items[1] *= 7
    return d, items


@case(lambda: (3,))
def raises_at_end(n):
    total = sum(range(n))
    print("total", total)
    raise ValueError(f"bad total {total}")


@case(lambda: ([1, -2, 3],))
def raise_in_loop_caught_outside(values):
    try:
        for v in values:
            if v < 0:
                raise ArithmeticError(v)
            print("ok", v)
    except ArithmeticError as error:
        return f"negative {error.args[0]}"
    return "all positive"


@case(lambda: (6,))
def try_inside_while(n):
    i = 0
    results = []
    while i < n:
        i += 1
        try:
            if i % 2:
                raise ValueError(i)
            results.append(i)
        except ValueError:
            results.append(-i)
            continue
        results.append(0)
    return results


@case(lambda: (5,))
def recursion(n):
    if n <= 1:
        return 1
    return n * recursion(n - 1)


@case(lambda: ({"x": 1, "y": 2},))
def dict_items_loop(mapping):
    pairs = []
    for key, value in mapping.items():
        pairs.append(f"{key}={value}")
    for i, (k, v) in enumerate(zip(mapping, mapping.values())):
        pairs.append((i, k, v))
    return pairs


@case(lambda: ([5, 3, 8],), lambda: ([],))
def assert_and_slices(values):
    assert isinstance(values, list), "need a list"
    head = values[:2]
    tail = values[1::2]
    assert len(values) > 0, "empty"
    return head, tail, values[::-1]


@case(lambda: ((1, 2),), lambda: ({"kind": "circle", "r": 2},), lambda: ("other",))
def match_statement(shape):
    match shape:
        case (x, y):
            area = x * y
        case {"kind": "circle", "r": r}:
            area = 3 * r * r
        case _:
            area = None
    return area


@case(lambda: (Point(1, 2),))
def attribute_updates(p):
    p.x += 10
    p.y = p.x * 2
    label = type(p).__name__
    return p, label


@case(lambda: (3,))
def long_loop_body(n):
    # Long enough that the backward jump needs EXTENDED_ARG.
    acc = 0
    for i in range(n):
        acc += i + 1
        acc += i + 2
        acc += i + 3
        acc += i + 4
        acc += i + 5
        acc += i + 6
        acc += i + 7
        acc += i + 8
        acc += i + 9
        acc += i + 10
        acc += i + 11
        acc += i + 12
        acc += i + 13
        acc += i + 14
        acc += i + 15
        acc += i + 16
        acc += i + 17
        acc += i + 18
        acc += i + 19
        acc += i + 20
        acc += i + 21
        acc += i + 22
        acc += i + 23
        acc += i + 24
        acc += i + 25
        acc += i + 26
        acc += i + 27
        acc += i + 28
        acc += i + 29
        acc += i + 30
        acc += i + 31
        acc += i + 32
        acc += i + 33
        acc += i + 34
        acc += i + 35
        acc += i + 36
        acc += i + 37
        acc += i + 38
        acc += i + 39
        acc += i + 40
        acc += i + 41
        acc += i + 42
        acc += i + 43
        acc += i + 44
        acc += i + 45
        acc += i + 46
        acc += i + 47
        acc += i + 48
        acc += i + 49
        acc += i + 50
    return acc


@case(lambda: ([3, 1, 2],))
def lambda_and_builtins(values):
    key = lambda v: (v % 2, v)
    ordered = sorted(values, key=key)
    scale = lambda v: v * 10
    mapped = [scale(v) for v in ordered]
    return ordered, mapped, any(v > 25 for v in mapped)


def _comprehension_of(func, name: str):
    """The nested code of ``func``'s comprehension, as a function of its iterator ``.0``."""
    code = next(c for c in func.__code__.co_consts if getattr(c, "co_name", "") == name)
    closure = tuple(types.CellType(3) for _ in code.co_freevars) or None
    return types.FunctionType(code, func.__globals__, name, None, closure)


def _scaled_lists(xs, k):
    return [x * k for x in xs if x != 2], {x: [k] * x for x in xs}


CASES.append(Case(_comprehension_of(_scaled_lists, "<listcomp>"), lambda: (iter([1, 2, 3]),)))
CASES.append(Case(_comprehension_of(_scaled_lists, "<dictcomp>"), lambda: (iter([1, 2]),)))


def _resume_of(func, opname: str, live: list[str], cells: dict | None = None):
    """A resume function of ``func`` at its first ``opname``: resuming it again checks that
    resume functions (free variables in place of cells, no varargs) are themselves resumable."""
    offset = next(i.offset for i in dis.get_instructions(func) if i.opname == opname)
    depth = resume_stack_depth(func.__code__, offset)
    return make_resume_function(func, offset, depth, live, cells=cells)


CASES.append(
    Case(_resume_of(nested_loops, "FOR_ITER", ["m", "rows"]), lambda: (iter(range(3)), 2, []))
)
_count_cell = types.CellType(0)
_resumed_closure = _resume_of(
    closure_writes_nonlocal, "FOR_ITER", ["bump"], cells={"count": _count_cell}
)


def _bump(k):
    _count_cell.cell_contents += k
    return _count_cell.cell_contents


def _fresh_resumed_closure():
    _count_cell.cell_contents = 1
    return (iter(range(3)), _bump)


CASES.append(Case(_resumed_closure, _fresh_resumed_closure))


class _Base:
    def describe(self, k):
        return f"base {k}"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other)


class _Child(_Base):
    def describe(self, k):
        prefix = "child"
        print(prefix, k)
        return prefix + " " + super().describe(k + 1)


CASES.append(Case(_Child.describe, lambda: (_Child(), 2)))


@case(lambda: (2,))
def class_and_import_inside(n):
    import math

    class Box:
        size = n

        def area(self):
            return self.size * self.size

    box = Box()
    print("area", box.area())
    return math.sqrt(box.area()), Box.__name__


@case(lambda: (3,))
def nested_closure_chain(n):
    total = 0

    def outer(k):
        def inner():
            nonlocal total
            total += k
            return total

        return inner() + inner()

    for i in range(n):
        outer(i)
    return total
