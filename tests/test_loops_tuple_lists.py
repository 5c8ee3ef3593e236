"""Lists of tuples of numbers built in loops (`stack.append((i - 1, j))`, `pairs.append((a,
b))`): the buffer holds one row per tuple (`capture/loops/appends.py`), `pop()` and `lst[k]`
give tuples back, `np.array(lst)` the 2-d array NumPy makes, and the list itself comes back
as a list of tuples of the same number types. Also `max(n, 1)` of a NumPy integer and a
Python int outside loops (a choice of the two objects) and `a[i, idx]` in loop bodies."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy, assert_compiles_whole


def flood_count(free, r0, c0):
    seen = np.zeros(free.shape, dtype=bool)
    todo = [(r0, c0)]
    count = 0
    while todo:
        r, c = todo.pop()
        if seen[r, c] or not free[r, c]:
            continue
        seen[r, c] = True
        count += 1
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < free.shape[0] and 0 <= cc < free.shape[1]:
                todo.append((rr, cc))
    return count, seen


def peaks_as_pairs(x):
    found = []
    for i in range(1, len(x) - 1):
        if x[i] > x[i - 1] and x[i] >= x[i + 1]:
            found.append((i, i + 1))
    return np.array(found)


def stats_rows(x):
    rows = []
    for i in range(x.shape[0]):
        rows.append((x[i].min(), x[i].max(), x[i].mean()))
    return np.array(rows)


def crossing_list(x, level):
    out = []
    for i in range(1, len(x)):
        if (x[i - 1] < level) != (x[i] < level):
            out.append((i - 1, i))
    return out


def last_pair_sum(x):
    pairs = []
    for i in range(len(x) - 1):
        pairs.append((x[i], x[i + 1]))
    a, b = pairs[-1]
    return a + b, len(pairs)


def mixed_pairs(x):
    out = []
    for i in range(len(x)):
        if x[i] > 0.5:
            out.append((i, x[i]))  # an int and a float: kept as Python does
    return np.array(out)


def recall_rows(scores, relevant, k):
    results = []
    for q in range(scores.shape[0]):
        top = np.argsort(-scores[q])[:k]
        hits = relevant[q, top].sum()
        results.append((hits / k, hits / max(relevant[q].sum(), 1)))
    return np.array(results)


def clipped_ratio(a, b):
    out = np.empty(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = a[i] / max(b[i].sum(), 1)
    return out


def smallest_of(x):
    return min(x.sum(), 3), max(x.max(), 0.5), min(2, x.min(), 5)


def picked_rows(x, idx):
    total = np.zeros(idx.shape[0])
    for i in range(x.shape[0]):
        total += x[i, idx]
    return total


CASES = [
    (flood_count, lambda r: (r.random((7, 9)) > 0.3, 0, 0)),
    (peaks_as_pairs, lambda r: (r.random(40),)),
    (stats_rows, lambda r: (r.random((6, 5)),)),
    (crossing_list, lambda r: (r.random(30), 0.5)),
    (last_pair_sum, lambda r: (r.integers(0, 9, 12),)),
    (recall_rows, lambda r: (r.random((8, 10)), r.random((8, 10)) > 0.6, 4)),
    (picked_rows, lambda r: (r.random((5, 6)), np.array([0, 3, 3, 5]))),
]


@pytest.mark.parametrize("fn, make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_tuple_lists_behave_as_numpy_and_compile(fn, make):
    args = make(np.random.default_rng(8))
    assert_behaves_as_numpy(fn, *args)
    assert_compiles_whole(fn, args)


@pytest.mark.parametrize("fn, args", [
    (peaks_as_pairs, (np.arange(10.0),)),  # no pair: NumPy's empty float64 array
    (crossing_list, (np.zeros(10), 0.5)),  # no pair: an empty list
    (flood_count, (np.zeros((3, 3), dtype=bool), 1, 1)),
    (mixed_pairs, (np.linspace(0, 1, 9),)),
    (clipped_ratio, (np.arange(4.0), np.zeros((4, 3), dtype=np.int64))),
    (clipped_ratio, (np.arange(4.0), np.ones((4, 3), dtype=np.int32))),
    (smallest_of, (np.array([0.25, 0.5]),)),
    (smallest_of, (np.array([3, 4], dtype=np.int16),)),
    (last_pair_sum, (np.array([1]),)),  # no pair: IndexError as Python
])
def test_edge_cases_as_python(fn, args):
    assert_behaves_as_numpy(fn, *args, compiled_code=False)


def test_a_list_of_tuples_comes_back_as_one():
    x = np.array([0.1, 0.9, 0.2, 0.8, 0.7, 0.1])
    got = ember.compile(crossing_list)(x, 0.5)
    assert got == crossing_list(x, 0.5)
    assert all(type(p) is tuple and all(type(v) is int for v in p) for p in got)


@seed(31)
@settings(max_examples=25, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(0, 2 ** 20))
def test_flood_fill_random(h, w, bits):
    rng = np.random.default_rng(bits)
    free = rng.random((h, w)) > 0.35
    assert_behaves_as_numpy(flood_count, free, int(rng.integers(0, h)), int(rng.integers(0, w)),
                            compiled_code=False)
