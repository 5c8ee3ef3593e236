"""A list or tuple of Python numbers indexed at an int the loop computes (`dx[d]`, `w[k]`):
the element of a constant array, as the Python number the list holds; negative indices wrap
once and an index out of range raises IndexError, as for the list."""

from __future__ import annotations

import copy

import ember
import numpy as np
import pytest
from conftest import assert_same


def ant_walk(n, steps, turns):
    dx = [0, 1, 0, -1]
    dy = [-1, 0, 1, 0]
    x = y = n // 2
    d = 0
    grid = np.zeros((n, n), dtype=np.int32)
    for t in range(steps):
        d = (d + turns[t]) % 4
        x = (x + dx[d]) % n
        y = (y + dy[d]) % n
        grid[y, x] += 1
    return grid, x, y, d


def tuple_weights(x):
    w = (0.25, 0.5, 0.25)
    out = np.zeros(len(x) - 2)
    for i in range(len(x) - 2):
        for k in range(3):
            out[i] += w[k] * x[i + k]
    return out


def negative_indices(idx):
    table = [10, 20, 30]
    total = 0
    for i in idx:
        total += table[i]
    return total


def flags_table(codes):
    is_vowel = [True, False, False, False, True, False]
    count = 0
    for c in codes:
        if is_vowel[c]:
            count += 1
    return count


CASES = [
    (ant_walk, lambda rng: (9, 60, rng.integers(0, 4, 60))),
    (tuple_weights, lambda rng: (rng.standard_normal(20),)),
    (negative_indices, lambda rng: (rng.integers(-3, 3, 25),)),
    (flags_table, lambda rng: (rng.integers(0, 6, 40),)),
]


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
@pytest.mark.parametrize("fn,make", CASES, ids=[c[0].__name__ for c in CASES])
def test_list_table_read_at_run_time_index(fn, make, backend) -> None:
    compiled = ember.compile(fn, backend=backend)
    for seed in range(2):
        args = make(np.random.default_rng(seed))
        got, want = compiled(*copy.deepcopy(args)), fn(*copy.deepcopy(args))
        assert_same(got, want, rtol=1e-12)
        for g, w in zip(got if isinstance(got, tuple) else [got],
                        want if isinstance(want, tuple) else [want]):
            assert type(g) is type(w)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]


def test_index_out_of_range_raises_index_error() -> None:
    with pytest.raises(IndexError):
        negative_indices(np.array([0, 1, 3]))
    with pytest.raises(IndexError):
        ember.compile(negative_indices)(np.array([0, 1, 3]))
    with pytest.raises(IndexError):
        ember.compile(negative_indices)(np.array([0, -4]))


def test_unsigned_index_past_int64_raises_index_error() -> None:
    idx = np.array([1, 2**64 - 1], dtype=np.uint64)
    with pytest.raises(IndexError):
        negative_indices(idx)
    with pytest.raises(IndexError):
        ember.compile(negative_indices)(idx)
    ok = np.array([0, 2, 1], dtype=np.uint64)
    assert_same(ember.compile(negative_indices)(ok), negative_indices(ok))
