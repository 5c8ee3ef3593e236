"""A list a loop body makes on each trip (`kept = []` per row) and appends to on a path of a
branch inside a short inner loop (`for c in range(8): if row[c] > t: kept.append(row[c])`):
the inner loop, which the cost rule would unroll, is captured as a loop op that carries the
list (`containers._loop_inside_body`), so the row loop is one loop op too. Results equal
plain Python: `sum(kept) if kept else 0.0` over float32 items (a NumPy float32 or the
Python float 0.0), lengths, maxima, the items themselves."""

from __future__ import annotations

import ember
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy


def kept_sums(rows, threshold):
    out = np.empty(rows.shape[0], dtype=np.float64)
    for r in range(rows.shape[0]):
        kept = []
        for c in range(rows.shape[1]):
            if rows[r, c] > threshold:
                kept.append(rows[r, c])
        out[r] = sum(kept) if kept else 0.0
    return out


def kept_counts_and_max(rows, threshold):
    counts = np.zeros(rows.shape[0], dtype=np.int64)
    best = np.zeros(rows.shape[0])
    for r in range(rows.shape[0]):
        kept = []
        for c in range(rows.shape[1]):
            if rows[r, c] > threshold:
                kept.append(float(rows[r, c]))
        counts[r] = len(kept)
        best[r] = max(kept) if kept else -1.0
    return counts, best


def last_row_items(rows, threshold):
    kept = []
    for r in range(rows.shape[0]):
        kept = []
        for c in range(rows.shape[1]):
            if rows[r, c] < threshold:
                kept.append(c)
    return kept


_shapes = st.tuples(st.integers(1, 12), st.integers(1, 10))


@settings(derandomize=True, deadline=None, max_examples=30)
@given(_shapes, st.sampled_from([np.float32, np.float64]), st.sampled_from([0.2, 0.7, 2.0]),
       st.integers(0, 2 ** 16))
def test_kept_sums(shape, dtype, threshold, draw_seed):
    rows = np.random.default_rng(draw_seed).random(shape).astype(dtype)
    assert_behaves_as_numpy(kept_sums, rows, threshold)


@settings(derandomize=True, deadline=None, max_examples=30)
@given(_shapes, st.sampled_from([0.2, 0.7, 2.0]), st.integers(0, 2 ** 16))
def test_kept_counts_and_max(shape, threshold, draw_seed):
    rows = np.random.default_rng(draw_seed).random(shape)
    assert_behaves_as_numpy(kept_counts_and_max, rows, threshold)


@settings(derandomize=True, deadline=None, max_examples=20)
@given(_shapes, st.sampled_from([0.2, 0.7]), st.integers(0, 2 ** 16))
def test_list_returned(shape, threshold, draw_seed):
    rows = np.random.default_rng(draw_seed).random(shape)
    assert_behaves_as_numpy(last_row_items, rows, threshold)


def test_row_loop_is_one_loop_op():
    rows = np.random.default_rng(0).random((50, 8)).astype(np.float32)
    ember.reset()
    compiled = ember.compile(kept_sums)
    for _ in range(2):
        assert np.allclose(compiled(rows, 0.7), kept_sums(rows, 0.7))
    stats = ember.stats()
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]
