"""Functions that resume functions are checked against (no tests here).

Each case gives a function and a factory of fresh arguments: every run of a case starts from
equal inputs, so a run cut at an instruction and continued by a resume function must end
like an uninterrupted run. Generators are out of scope.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Case:
    func: Callable
    make_args: Callable[[], tuple]

    @property
    def name(self) -> str:
        return self.func.__name__


def registrar(cases: list[Case]):
    """A decorator factory: ``@case(make_args, ...)`` adds the function to ``cases`` once per
    argument factory."""

    def case(*make: Callable[[], tuple]):
        def register(func):
            for factory in make or (lambda: (),):
                cases.append(Case(func, factory))
            return func

        return register

    return case


CASES: list[Case] = []
case = registrar(CASES)


class Recorder:
    """A context manager that prints its enter and exit, optionally swallowing errors."""

    def __init__(self, name: str, suppress: bool = False) -> None:
        self.name = name
        self.suppress = suppress
        self.entered = 0

    def __enter__(self):
        self.entered += 1
        print("enter", self.name)
        return self

    def __exit__(self, kind, value, tb):
        print("exit", self.name, kind.__name__ if kind else None)
        return self.suppress

    def __eq__(self, other: object) -> bool:
        fields = ("name", "suppress", "entered")
        return isinstance(other, Recorder) and all(
            getattr(self, f) == getattr(other, f) for f in fields
        )


@case(lambda: (2, 5))
def straight_line(a, b):
    c = a * b + 1
    d = c - a / b
    print("c, d =", c, d)
    return (c, d, -c, not d)


@case(lambda: (6,), lambda: (0,))
def for_sum(n):
    total = 0
    for i in range(n):
        total += i * i
    return total


@case(lambda: (4, 3))
def nested_loops(n, m):
    rows = []
    for i in range(n):
        row = []
        for j in range(m):
            row.append(i * m + j)
        rows.append(row)
    return rows


@case(lambda: (20,))
def while_break_continue(limit):
    i = 0
    found = []
    while True:
        i += 1
        if i % 3 == 0:
            continue
        if i > limit:
            break
        found.append(i)
    return found


@case(lambda: ([1, 3, 5],), lambda: ([1, 4, 5],))
def for_else(items):
    for x in items:
        if x % 2 == 0:
            print("even", x)
            break
    else:
        print("all odd")
        return None
    return x


@case(lambda: ([4, 8, 15, 16],))
def early_return_in_loop(items):
    for index, value in enumerate(items):
        print("look", index)
        if value > 10:
            return index, value
    return -1, None


@case(lambda: ([1, 2, 0, 4],), lambda: ([1, 2],))
def try_except_in_loop(values):
    out = []
    try:
        for v in values:
            out.append(12 // v)
    except ZeroDivisionError as error:
        print("caught", error)
        out.append(None)
    return out


@case(lambda: (3,))
def try_finally_return(n):
    try:
        print("body", n)
        return n * 2
    finally:
        print("finally", n)


@case(lambda: ("7",), lambda: ("x",))
def try_except_else_finally(text):
    result = None
    try:
        number = int(text)
    except ValueError:
        print("not a number")
        result = -1
    else:
        print("number", number)
        result = number + 1
    finally:
        print("done", result)
    return result


@case(lambda: (0,), lambda: (1,), lambda: (2,))
def nested_try(mode):
    log = []
    try:
        try:
            log.append("inner")
            if mode == 1:
                raise KeyError("k")
            if mode == 2:
                raise ValueError("v")
            log.append("inner ok")
        except KeyError:
            log.append("inner caught")
        log.append("outer body")
    except ValueError as error:
        log.append(f"outer caught {error}")
    return log


@case(lambda: (Recorder("a"), 4))
def with_block(cm, n):
    with cm as entered:
        total = 0
        for i in range(n):
            total += i
        print("inside", total, entered.name)
    return total


@case(lambda: (Recorder("s", suppress=True),))
def with_suppressed(cm):
    value = 1
    with cm:
        value = 2
        raise RuntimeError("swallowed")
    print("after", value)
    return value


@case(lambda: (Recorder("p"),))
def with_propagates(cm):
    with cm:
        print("about to fail")
        {}["missing"]
    return "unreachable"


@case(lambda: (Recorder("outer"), Recorder("inner")))
def nested_with(a, b):
    with a:
        x = 1
        with b:
            x += 10
            print("both", x)
        x *= 2
    return x


@case(lambda: (Recorder("r"), 5))
def return_inside_with(cm, n):
    with cm:
        if n > 3:
            return n * 3
        print("small")
    return 0


@case(lambda: (Recorder("loop"), [1, 2, 3, 4]))
def break_inside_with_in_loop(cm, items):
    seen = []
    for item in items:
        with cm:
            if item == 3:
                break
            seen.append(item)
    return seen, cm.entered


@case(lambda: ([1, 2, 3, 4, 5],))
def finally_on_break_continue(items):
    log = []
    for x in items:
        try:
            if x == 2:
                continue
            if x == 4:
                break
            log.append(x)
        finally:
            log.append(-x)
    return log


@case(lambda: (5,))
def comprehensions(n):
    squares = [i * i for i in range(n)]
    table = {i: s for i, s in enumerate(squares) if s % 2}
    parity = {s % 3 for s in squares}
    return squares, table, parity


@case(lambda: ([3, 1, 4, 1, 5],))
def generator_expression_argument(values):
    total = sum(v * 2 for v in values if v > 1)
    best = max((v for v in values), default=None)
    return total, best


@case(lambda: ([3, 8, 1, 9],), lambda: ([],))
def while_else_walrus(values):
    stack = list(values)
    while (top := stack.pop() if stack else None) is not None:
        if top in (8, 80):
            print("found", top)
            break
    else:
        print("exhausted")
        top = -1
    del stack[:1]
    return top, stack
