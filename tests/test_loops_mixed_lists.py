"""Lists of numbers that hold Python numbers and NumPy scalars of one dtype (`best = [0] *
(cap + 1)`, then `best[c] = best[c - w[i]] + v[i]`, an `np.int64` where the data made one):
the loop op carries a buffer of flags beside the items, true where an item is of the other
type (`capture/loops/appends.py: Appended.other`). An item read is a choice of the two
(`variables/choice.py`), and the list comes back with each item of the type Python gave it.
Also lists that hold one number repeated but in a few places (`ways = [0] * n; ways[0] = 1`,
`[0.0] + [inf] * n`)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy, assert_compiles_whole


def knapsack(w, v, cap):
    best = [0] * (cap + 1)
    for i in range(len(w)):
        for c in range(cap, w[i] - 1, -1):
            cand = best[c - w[i]] + v[i]
            if cand > best[c]:
                best[c] = cand
    return best[cap]


def knapsack_table(w, v, cap):
    best = [0] * (cap + 1)
    for i in range(len(w)):
        for c in range(cap, w[i] - 1, -1):
            best[c] = max(best[c], best[c - w[i]] + v[i])
    return best


def coin_ways(coins, amount):
    ways = [0] * (amount + 1)
    ways[0] = 1
    for c in coins:
        for a in range(c, amount + 1):
            ways[a] += ways[a - c]
    return ways[amount]


def fewest_coins(coins, amount):
    dp = [0.0] + [float("inf")] * amount
    for a in range(1, amount + 1):
        for c in coins:
            if c <= a and dp[a - c] + 1 < dp[a]:
                dp[a] = dp[a - c] + 1
    return dp[amount]


def fewest_coins_head(coins, amount):
    return fewest_coins(coins, amount), [0.0] + [float("inf")] * 2


def bucket_totals(x, k):
    acc = [0.0] * k
    for i in range(len(x)):
        acc[i % k] += x[i]
    return acc


def longest_rise(x):
    best = [1] * len(x)
    for i in range(1, len(x)):
        for j in range(i):
            if x[j] < x[i] and best[j] + 1 > best[i]:
                best[i] = best[j] + 1
    return best


def longest_rise_length(x):
    return max(longest_rise(x))


CASES = [
    (knapsack, lambda r: (r.integers(1, 10, 12), r.integers(1, 30, 12), 40)),
    (knapsack_table, lambda r: (r.integers(1, 10, 10), r.integers(1, 30, 10), 30)),
    (coin_ways, lambda r: (np.array([1, 2, 5]), 30)),
    (fewest_coins, lambda r: (np.array([3, 7, 11]), 40)),
    (bucket_totals, lambda r: (r.random(13), 4)),
    (longest_rise, lambda r: (r.integers(0, 50, 30),)),
]


@pytest.mark.parametrize("fn, make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_mixed_lists_behave_as_python_and_compile(fn, make):
    args = make(np.random.default_rng(4))
    assert_behaves_as_numpy(fn, *args)
    assert_compiles_whole(fn, args)


def test_each_item_keeps_its_type():
    w, v = np.array([3, 4, 5]), np.array([4, 5, 6])
    got = ember.compile(knapsack_table)(w, v, 9)
    want = knapsack_table(w, v, 9)
    assert got == want
    assert [type(g) for g in got] == [type(x) for x in want]
    assert {type(x) for x in want} == {int, np.int64}


@pytest.mark.parametrize("fn, args", [
    (knapsack, (np.array([50, 60]), np.array([1, 2]), 40)),  # nothing fits: Python ints
    (coin_ways, (np.array([7]), 5)),
    (fewest_coins, (np.array([4]), 6)),  # inf stays a Python float
    (bucket_totals, (np.zeros(0), 3)),
    (longest_rise, (np.arange(5, 0, -1),)),
    (longest_rise_length, (np.array([3, 1, 4, 1, 5, 9, 2, 6]),)),
    (fewest_coins_head, (np.array([3, 7, 11]), 40)),
])
def test_edge_cases_as_python(fn, args):
    assert_behaves_as_numpy(fn, *args, compiled_code=False)


@seed(47)
@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=0, max_size=8), st.integers(0, 20))
def test_knapsack_random(weights, cap):
    w = np.array(weights, dtype=np.int64)
    v = (w * 3 + 1) % 7
    assert_behaves_as_numpy(knapsack_table, w, v, cap, compiled_code=False)


def counted_picks(x, n):
    basis = list(range(n))
    for i in range(len(x)):
        if x[i] > 0.5:
            basis[i % n] = np.argmax(x[:i + 1])
    out = np.zeros(len(x))
    for b in basis:
        if b < len(x):
            out[b] += 1
    return out, basis


def test_a_loop_over_a_mixed_list_reads_each_items_type():
    x = np.random.default_rng(0).random(12)
    assert_behaves_as_numpy(counted_picks, x, 4)
    assert_behaves_as_numpy(counted_picks, np.zeros(12), 4)  # no pick: Python ints only
    assert_compiles_whole(counted_picks, (x, 4))


def rpn(tokens):
    st = []
    for t in tokens:
        if t >= 0:
            st.append(t)
        else:
            b = st.pop()
            a = st.pop()
            st.append(a + b if t == -1 else a * b)
    return st[-1]


def rpn_seeded(tokens):
    st = [0]
    for t in tokens:
        if t >= 0:
            st.append(t)
        else:
            b, a = st.pop(), st.pop()
            st.append(a + b if t == -1 else a * b)
    return st[-1], len(st)


@pytest.mark.parametrize("fn", [rpn, rpn_seeded])
def test_stacks_of_numbers_pushed_on_both_paths(fn):
    tokens = np.array([3, 4, -1, 2, -2, 5, -1])
    assert_behaves_as_numpy(fn, tokens)
    assert_compiles_whole(fn, (tokens,))
    assert_behaves_as_numpy(fn, np.array([7]))
    assert_behaves_as_numpy(fn, np.array([-1]), compiled_code=False)  # IndexError


# Items that are a Python int on one path and a NumPy int on the other (a helper's `x`
# returned as it came, or after `x = parent[x]`): each item's flag is the path's.

def _root(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def roots_list(parent):
    return [_root(parent, i) for i in range(parent.shape[0])]


def roots_array(parent, edges):
    for a, b in edges:
        ra, rb = _root(parent, a), _root(parent, b)
        if ra != rb:
            parent[rb] = ra
    return np.array([_root(parent, i) for i in range(len(parent))])


def clipped_items(x):
    out = []
    for i in range(x.shape[0]):
        v = x[i]
        if v < 0:
            v = 0
        out.append(v)
    return out, np.array(out)


def _forest(rng, n):
    parent = np.arange(n)
    linked = rng.random(n) < 0.6
    parent[1:][linked[1:]] = [rng.integers(0, i) for i in np.flatnonzero(linked[1:]) + 1]
    return parent


@pytest.mark.parametrize("fn, make, python_only", [
    (roots_list, lambda r: (_forest(r, 30),), (np.arange(5),)),
    (roots_array, lambda r: (_forest(r, 40), r.integers(0, 40, (15, 2))),
     (np.arange(5), np.zeros((0, 2), dtype=np.int64))),
    (clipped_items, lambda r: (r.integers(-5, 5, 20),), (np.full(6, -1),)),
], ids=["roots_list", "roots_array", "clipped_items"])
def test_items_a_python_int_or_a_numpy_int_by_path(fn, make, python_only):
    for s in (0, 1):
        assert_behaves_as_numpy(fn, *make(np.random.default_rng(s)))
    assert_compiles_whole(fn, make(np.random.default_rng(2)))
    assert_behaves_as_numpy(fn, *python_only)  # every item a Python int


def test_a_returned_list_keeps_each_items_type():
    parent = _forest(np.random.default_rng(3), 25)
    want = roots_list(parent.copy())
    got = ember.compile(roots_list)(parent.copy())
    assert got == want and [type(g) for g in got] == [type(w) for w in want]
    assert {type(w) for w in want} == {int, np.int64}
