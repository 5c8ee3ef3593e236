"""`for` over `enumerate(...)` and `zip(...)` of arrays and ranges is one loop op, as a loop
over `range` or an array's rows is (`loops/region.py: _item`, `containers.Zipped`), and rows
are indexed only when a trip that is unrolled reads them (`containers.LazyItems`): iterating
a long array no longer unpacks every row before the loop is captured. Every call equals
NumPy, values, types and arguments."""

from __future__ import annotations

import copy
import itertools

import ember
import numpy as np
import pytest
from conftest import assert_same


def weighted_by_position(x):
    t = 0.0
    for i, v in enumerate(x):
        t += i * v
    return t


def counted_from_one(x):
    out = np.empty_like(x)
    for k, v in enumerate(x, 1):
        out[k - 1] = v / k
    return out


def dot_by_zip(x, y):
    t = 0.0
    for a, b in zip(x, y):
        t += a * b
    return t


def zip_unequal_lengths(x, y):
    t = x[0] * 0
    for a, b in zip(x, y):
        t = t + a - b
    return t


def zip_with_a_range(x):
    t = 0.0
    for j, v in zip(range(3, 100, 2), x):
        t += j * v
    return t


def rows_enumerated(m):
    out = np.zeros(m.shape[0])
    for i, row in enumerate(m):
        out[i] = row.sum() * i
    return out


def three_way_zip(x, y, z):
    acc = np.zeros(1)
    for a, b, c in zip(x, y, z):
        acc[0] += a * b - c
    return acc


def last_items_left_bound(x):
    for i, v in enumerate(x):
        x[i] = v + 1
    return i, v, x


def rows_of_a_long_array(x):
    t = 0
    for v in x:
        t += v
    return t


def backward_recurrence(x):
    out = np.empty_like(x)
    acc = 0.0
    for i in reversed(range(len(x))):  # order matters: each trip reads the one before
        acc = 0.5 * acc + x[i]
        out[i] = acc
    return out


def reversed_stepped_range(x):
    out = np.zeros(len(x))
    k = 0
    for i in reversed(range(1, len(x), 3)):
        out[k] = x[i] - k
        k += 1
    return out


CASES = [
    (backward_recurrence, lambda rng: (rng.random(100),)),
    (reversed_stepped_range, lambda rng: (rng.random(90),)),
    (weighted_by_position, lambda rng: (rng.random(300),)),
    (counted_from_one, lambda rng: (rng.random(200),)),
    (dot_by_zip, lambda rng: (rng.random(250), rng.random(250))),
    (zip_unequal_lengths, lambda rng: (rng.random(40), rng.random(30))),
    (zip_with_a_range, lambda rng: (rng.random(60),)),
    (rows_enumerated, lambda rng: (rng.random((40, 5)),)),
    (three_way_zip, lambda rng: (rng.random(50), rng.random(50), rng.random(50))),
    (rows_of_a_long_array, lambda rng: (rng.integers(0, 9, 5000),)),
]


@pytest.mark.parametrize("fn, make", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_enumerate_and_zip_loops_are_one_loop_op(fn, make):
    ember.reset()
    compiled = ember.compile(fn)
    rng = np.random.default_rng(3)
    for _ in range(2):
        args = make(rng)
        want_args, got_args = copy.deepcopy(args), copy.deepcopy(args)
        assert_same(compiled(*got_args), fn(*want_args), rtol=1e-12)
        assert_same(got_args, want_args, path="arguments")
    stats = ember.stats()
    assert stats["compiles"] == 1 and stats["graph_breaks"] == 0, stats["break_reasons"]


@pytest.mark.parametrize("n", [5, 30])
def test_the_items_left_bound_after_the_loop_are_the_last_trips(n):
    """Python leaves the last trip's items bound; the body wrote the array after reading
    them, so they are what that trip read (a loop op would give the row after the loop:
    such a loop is unrolled, or runs as Python)."""
    compiled = ember.compile(last_items_left_bound)
    x = np.random.default_rng(n).random(n)
    want_x, got_x = x.copy(), x.copy()
    assert_same(compiled(got_x), last_items_left_bound(want_x))
    assert_same(got_x, want_x)


def test_a_short_enumerate_still_unrolls_and_equals_numpy():
    def pairs(x):
        return [(i, v * 2) for i, v in enumerate(x)], sum(v for _, v in zip(range(2), x))

    compiled = ember.compile(pairs)
    x = np.arange(4.0)
    assert_same(compiled(x), pairs(x))


def test_zip_strict_raises_as_python_does():
    def strict(x, y):
        t = 0.0
        for a, b in zip(x, y, strict=True):
            t += a * b
        return t

    compiled = ember.compile(strict)
    with pytest.raises(ValueError):
        compiled(np.ones(3), np.ones(4))
    assert compiled(np.ones(3), np.ones(3)) == strict(np.ones(3), np.ones(3))


def test_iterating_a_long_array_does_not_unpack_it_first():
    """A loop op over 200,000 elements is captured without indexing each of them first
    (two ops per element before, and seconds of capture): the graph holds a few ops."""
    def total(x):
        t = 0
        for v in x:
            t += v
        return t

    x = np.arange(200_000)
    explained = ember.explain(total, x)
    assert explained.graph_count == 1 and explained.op_count < 50, explained.op_count


def fewest_coins(coins, amount):
    best = np.full(amount + 1, amount + 1, dtype=np.int64)
    best[0] = 0
    for a in range(1, amount + 1):
        for c in coins:
            if c <= a and best[a - c] + 1 < best[a]:
                best[a] = best[a - c] + 1
    return best


def test_an_unrolled_loop_over_elements_around_a_branch_stays_in_the_loop_op():
    """`for c in coins:` unrolled inside a loop op, with a branch inside it: neither path
    moves the iterator, so after the branch the frame's own iterator reads on."""
    coins = np.array([1, 5, 10, 25])
    want = fewest_coins(coins, 300)
    ember.reset()
    got = ember.compile(fewest_coins)(coins, 300)
    assert_same(got, want)
    stats = ember.stats()
    assert stats["compiles"] == 1 and stats["graph_breaks"] == 0, stats["break_reasons"]


def weights_of_a_tuple(x, weights):
    t = x[0] * 0.0
    for w in weights:
        t = 0.5 * t + w * x[0]
    return t


def reversed_tuple(x, weights):
    t = x[0] * 0.0
    for w in reversed(weights):
        t = 0.5 * t + w * x[1]
    return t


def zipped_with_a_tuple(x, weights):
    t = 0.0
    for w, v in zip(weights, x):
        t = 0.5 * t + w * v
    return t


def enumerated_tuple(x, weights):
    t = 0.0
    for i, w in enumerate(weights):
        t = 0.5 * t + w * x[i % len(x)]
    return t


def sorted_items(x, weights):
    t = 0.0
    for w in sorted(weights):
        t = 0.5 * t + w * x[0]
    return t


@pytest.mark.parametrize("n", [3, 9, 40])
@pytest.mark.parametrize("fn", [weights_of_a_tuple, reversed_tuple, zipped_with_a_tuple,
                                enumerated_tuple, sorted_items], ids=lambda f: f.__name__)
def test_items_neither_a_range_nor_an_array_are_each_trips_own(fn, n):
    """A long loop over a tuple's items, `reversed(...)`'s or `sorted(...)`'s is not a loop
    op over the trip index: each trip sees its own item, in order."""
    compiled = ember.compile(fn)
    rng = np.random.default_rng(n)
    x, weights = rng.random(50), tuple(float(w) for w in rng.standard_normal(n))
    assert_same(compiled(x, weights), fn(x, weights), rtol=1e-12)


def neighbour_sums(u, radius):
    out = np.zeros_like(u)
    n, m = u.shape
    for dx, dy in itertools.product(range(-radius, radius + 1), repeat=2):
        out[radius:n - radius, radius:m - radius] += (abs(dx) + 1) * u[
            radius + dx:n - radius + dx, radius + dy:m - radius + dy]
    return out


def pair_products(x, weights):
    t = 0.0
    for i, j in itertools.combinations(range(len(weights)), 2):
        t += weights[i] * weights[j] * x[(i + j) % len(x)]
    for i, j in itertools.permutations(range(3), 2):
        t -= x[i] * weights[j]
    for w in itertools.chain(weights[:2], (0.5, -0.25)):
        t = 0.5 * t + w
    return t


@pytest.mark.parametrize("radius", [1, 2])
def test_itertools_product_offsets_unroll(radius):
    u = np.random.default_rng(radius).random((9, 8))
    compiled = ember.compile(neighbour_sums)
    assert_same(compiled(u, radius), neighbour_sums(u, radius), rtol=1e-12)


@pytest.mark.parametrize("n", [3, 9])
def test_itertools_combinations_permutations_chain(n):
    rng = np.random.default_rng(n)
    x, weights = rng.random(20), tuple(float(w) for w in rng.standard_normal(n))
    ember.reset()
    compiled = ember.compile(pair_products)
    assert_same(compiled(x, weights), pair_products(x, weights), rtol=1e-12)
    assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]
