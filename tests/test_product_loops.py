"""Loops over `itertools.product` of ranges as loop ops: trip `t` takes each range's item at
`t`'s digits (the last range fastest), as Python's product orders them."""

from __future__ import annotations

import itertools
import math

import ember
import numpy as np
from conftest import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st


def grid_fill(out, r1, r2):
    for i, j in itertools.product(r1, r2):
        out[i % out.shape[0], j % out.shape[1]] += math.sin(i * 0.1) * math.cos(j * 0.2) + 1.0
    return out


def three_ranges_sum(a, n):
    total = 0.0
    for i, j, k in itertools.product(range(n), range(1, n, 2), range(n - 1, -1, -1)):
        total += a[i] * a[j] - a[k]
    return total


def repeated(a, n):
    s = 0.0
    for pair in itertools.product(range(n), repeat=2):
        s += a[pair[0]] * a[pair[1]]
    return s


def last_bound(a, n):
    s = 0.0
    for i, j in itertools.product(range(n), range(3)):
        s += a[i] + j
    return s, i, j


def branch_inside(a, n):
    count = 0
    for i, j in itertools.product(range(n), range(n)):
        if a[i] > a[j]:
            count += 1
    return count


_ranges = st.builds(range, st.integers(-5, 5), st.integers(-20, 40), st.sampled_from([1, 2, 3, -1, -2]))


@settings(derandomize=True, deadline=None, max_examples=40)
@given(_ranges, _ranges)
def test_grid_like_python(r1, r2):
    want = grid_fill(np.zeros((7, 9)), r1, r2)
    got = ember.compile(grid_fill)(np.zeros((7, 9)), r1, r2)
    assert_same(got, want)


@settings(derandomize=True, deadline=None, max_examples=20)
@given(st.sampled_from([three_ranges_sum, repeated, last_bound, branch_inside]),
       st.integers(1, 40))
def test_like_python(fn, n):
    a = np.random.default_rng(n).standard_normal(max(n, 2))
    want = fn(a.copy(), n)
    got = ember.compile(fn)(a.copy(), n)
    assert_same(got, want)


def test_long_product_is_one_loop_op(recorder):
    out = np.zeros((30, 30))
    got = ember.compile(grid_fill, backend=recorder)(out.copy(), range(30), range(30))
    assert_same(got, grid_fill(out.copy(), range(30), range(30)))
    assert ember.stats()["graph_breaks"] == 0
    assert "loop" in recorder.ops()
