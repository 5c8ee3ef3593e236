"""Rows of a 2-d table gathered at a slice of integers with run-time bounds inside loop
bodies (EmbeddingBag's `table[ids[offsets[b]:ends[b]]].sum(axis=0)`), against NumPy: sums
over either axis or all, extrema, products with a vector, negative ids, ids out of range
(IndexError) and empty bags."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


def bag_sums(table, ids, offsets):
    out = np.zeros((len(offsets), table.shape[1]))
    ends = np.append(offsets[1:], len(ids))
    for b in range(len(offsets)):
        out[b] = table[ids[offsets[b]:ends[b]]].sum(axis=0)
    return out


def bag_stats(table, ids, offsets, w):
    n = len(offsets)
    totals = np.zeros(n)
    scores = np.zeros(n)
    for b in range(n - 1):
        rows = table[ids[offsets[b]:offsets[b + 1]]]
        totals[b] = rows.sum() + (rows * 2.0).sum(axis=1).sum()
        scores[b] = (table[ids[offsets[b]:offsets[b + 1]] + 0] @ w).sum()
    return totals, scores


def bag_max(table, ids, offsets):
    out = np.zeros(len(offsets) - 1)
    for b in range(len(offsets) - 1):
        out[b] = table[ids[offsets[b]:offsets[b + 1]]].max()
    return out


def _run(fn, args):
    ember.reset()
    compiled = ember.compile(fn)
    try:
        want = fn(*args)
    except (IndexError, ValueError) as exc:
        with pytest.raises(type(exc)):
            compiled(*args)
        return None
    got = compiled(*args)
    for w, g in zip(want if isinstance(want, tuple) else (want,),
                    got if isinstance(got, tuple) else (got,), strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    return ember.stats()


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.integers(1, 40), st.integers(1, 6), st.integers(0, 5), st.booleans(),
       st.integers(-12, 12))
def test_gathered_rows_reduced_in_loop_bodies(bags, width, most, negative, bad):
    r = np.random.default_rng([bags, width, most, int(negative), bad + 12])
    counts = r.integers(0, most + 1, bags)
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    ids = r.integers(-10 if negative else 0, 10, int(counts.sum()))
    if bad and len(ids):
        ids[r.integers(0, len(ids))] = 10 + bad if bad > 0 else bad - 10  # out of range
    table = r.standard_normal((10, width))
    w = r.standard_normal(width)
    for fn, args in [(bag_sums, (table, ids, offsets)),
                     (bag_stats, (table, ids, np.append(offsets, len(ids)), w)),
                     (bag_max, (table, ids, np.append(offsets, len(ids))))]:
        stats = _run(fn, args)
        if stats is not None and bags >= 30 and fn is bag_sums:
            assert stats["graph_breaks"] == 0, stats["break_reasons"]
