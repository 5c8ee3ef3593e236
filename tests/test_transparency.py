"""Ordinary Python through `ember.compile`: string handling, recursion, sorting, dict work,
classes, exceptions, generators and standard-library helpers. No arrays, so nothing is
compiled natively; everything must behave exactly as plain Python (results, output,
exceptions, mutations), whatever capture makes of it."""

from __future__ import annotations

import collections
import contextlib
import functools
import io
import itertools
import json
import math
import re
import statistics

import ember
import pytest


def word_counts(text):
    counts = {}
    for word in re.findall(r"[a-z']+", text.lower()):
        counts[word] = counts.get(word, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def title_case(s):
    return " ".join(w[:1].upper() + w[1:] for w in s.split())


def caesar(text, shift):
    out = []
    for ch in text:
        if ch.isalpha():
            base = ord("a") if ch.islower() else ord("A")
            out.append(chr((ord(ch) - base + shift) % 26 + base))
        else:
            out.append(ch)
    return "".join(out)


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def hanoi(n, a="A", b="B", c="C", moves=None):
    moves = [] if moves is None else moves
    if n:
        hanoi(n - 1, a, c, b, moves)
        moves.append((a, c))
        hanoi(n - 1, b, a, c, moves)
    return moves


def merge_sort(xs):
    if len(xs) <= 1:
        return list(xs)
    mid = len(xs) // 2
    left, right = merge_sort(xs[:mid]), merge_sort(xs[mid:])
    out = []
    while left and right:
        out.append(left.pop(0) if left[0] <= right[0] else right.pop(0))
    return out + left + right


def sort_records(records):
    records.sort(key=lambda r: (r["age"], r["name"]))
    return [r["name"] for r in records]


def group_by_first_letter(words):
    groups = collections.defaultdict(list)
    for w in words:
        groups[w[0]].append(w)
    return dict(groups)


def counter_stats(values):
    c = collections.Counter(values)
    return c.most_common(2), statistics.mean(values), statistics.median(values)


def reduce_and_accumulate(xs):
    product = functools.reduce(lambda a, b: a * b, xs, 1)
    return product, list(itertools.accumulate(xs)), list(itertools.pairwise(xs))


def json_round_trip(obj):
    text = json.dumps(obj, sort_keys=True)
    back = json.loads(text)
    back["extra"] = len(text)
    return back


def primes_up_to(n):
    sieve = [True] * (n + 1)
    sieve[0:2] = [False, False]
    for i in range(2, math.isqrt(n) + 1):
        if sieve[i]:
            for j in range(i * i, n + 1, i):
                sieve[j] = False
    return [i for i, p in enumerate(sieve) if p]


def generators_and_yield(n):
    def squares():
        for i in range(n):
            yield i * i

    return sum(squares()), list(itertools.islice(squares(), 3))


class Account:
    def __init__(self, owner):
        self.owner = owner
        self.balance = 0
        self.log = []

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError(f"bad amount {amount}")
        self.balance += amount
        self.log.append(("deposit", amount))


def bank_operations(account, amounts):
    errors = 0
    for a in amounts:
        try:
            account.deposit(a)
        except ValueError:
            errors += 1
    return account.balance, errors, list(account.log)


def raises_key_error(d, key):
    return d[key]


def printing_loop(n):
    for i in range(n):
        print(f"line {i}: {'*' * i}")
    return n


def dict_views_and_sets(a, b):
    common = set(a) & set(b)
    only_a = sorted(set(a) - set(b))
    merged = {**a, **b}
    return sorted(common), only_a, sorted(merged.items())


def string_formatting(values):
    rows = [f"{i:>3} | {v:8.3f} | {v!r}" for i, v in enumerate(values)]
    return "\n".join(rows)


def nested_closures(n):
    def make_adder(k):
        return lambda v: v + k

    adders = [make_adder(k) for k in range(n)]
    return [f(10) for f in adders]


def while_with_else(xs, target):
    i = 0
    while i < len(xs):
        if xs[i] == target:
            break
        i += 1
    else:
        return -1
    return i


def context_managers(text):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print(text.upper())
    return buf.getvalue()


def walrus_and_comprehension(values):
    return [y for x in values if (y := x * 2) > 4]


CASES = [
    (word_counts, ("the cat and the hat and the bat",)),
    (title_case, ("hello wide world",)),
    (caesar, ("Hello, World!", 3)),
    (fib, (12,)),
    (hanoi, (4,)),
    (merge_sort, ([5, 2, 9, 1, 5, 6],)),
    (sort_records, ([{"name": "b", "age": 3}, {"name": "a", "age": 3},
                     {"name": "c", "age": 1}],)),
    (group_by_first_letter, (["apple", "avocado", "banana", "cherry", "blue"],)),
    (counter_stats, ([3, 1, 3, 2, 3, 1],)),
    (reduce_and_accumulate, ([1, 2, 3, 4],)),
    (json_round_trip, ({"b": [1, 2], "a": {"x": None}},)),
    (primes_up_to, (30,)),
    (generators_and_yield, (6,)),
    (bank_operations, (Account("ann"), [10, -5, 20, 0])),
    (raises_key_error, ({"a": 1}, "b")),
    (printing_loop, (3,)),
    (dict_views_and_sets, ({"a": 1, "b": 2}, {"b": 3, "c": 4})),
    (string_formatting, ([1.5, 2.25, -3.0],)),
    (nested_closures, (4,)),
    (while_with_else, ([4, 8, 15], 8)),
    (context_managers, ("quiet",)),
    (walrus_and_comprehension, ([1, 2, 3, 4],)),
]


def _run(fn, args, capsys):
    capsys.readouterr()
    try:
        result, error = fn(*args), None
    except Exception as exc:  # noqa: BLE001 - raising is an outcome to compare
        result, error = None, exc
    return result, type(error), str(error) if error else None, capsys.readouterr().out


def _fresh(args):
    import copy

    return copy.deepcopy(args)


@pytest.mark.parametrize("fn,args", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_pure_python_is_unchanged(fn, args, capsys):
    plain_args, compiled_args = _fresh(args), _fresh(args)
    want = _run(fn, plain_args, capsys)
    compiled = ember.compile(fn)
    for _ in range(2):  # captured, then cached
        call_args = _fresh(args)
        assert _run(compiled, call_args, capsys) == want
    got = _run(compiled, compiled_args, capsys)
    assert got == want
    assert _state(compiled_args) == _state(plain_args)  # mutations of the arguments
    # Every refusal was a graph break compiled around, never a whole frame given up on.
    assert ember.stats()["failed_frames"] == 0


def _state(args):
    return [vars(a) if isinstance(a, Account) else a for a in args]

