"""Loops over `itertools.combinations(range(...), 2)` as loop ops: trip `t` takes the `t`-th
pair in Python's order, found exactly for any length (a float root corrected by integers)."""

from __future__ import annotations

import itertools

import ember
import numpy as np
from conftest import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st


def record_pairs(r, out):
    t = 0
    for i, j in itertools.combinations(r, 2):
        out[t, 0] = i
        out[t, 1] = j
        t += 1
    return out, t


def pair_checksum(n):
    s = 0
    for i, j in itertools.combinations(range(n), r=2):
        s += (i * 7919 + j) % 1000003
    return s


def closest_pair(pts):
    best = np.inf
    for i, j in itertools.combinations(range(pts.shape[0]), 2):
        d = np.sqrt(np.sum((pts[i] - pts[j]) ** 2))
        if d < best:
            best = d
    return best


def _run(fn, *args):
    want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    got = ember.compile(fn)(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    assert_same(got, want)


def test_every_small_length():
    for n in range(0, 60):
        _run(record_pairs, range(n), np.zeros((n * (n - 1) // 2 + 1, 2), dtype=np.int64))


@settings(derandomize=True, deadline=None, max_examples=30)
@given(st.integers(-50, 50), st.integers(-50, 400), st.sampled_from([1, 2, 5, -1, -3]))
def test_any_range(start, stop, step):
    r = range(start, stop, step)
    _run(record_pairs, r, np.zeros((len(r) * (len(r) - 1) // 2 + 1, 2), dtype=np.int64))


def test_long_ranges_exact():
    for n in (1000, 2049):
        _run(pair_checksum, n)


def test_closest_pair_is_one_loop_op(recorder):
    pts = np.random.default_rng(0).random((60, 3))
    assert_same(ember.compile(closest_pair, backend=recorder)(pts), closest_pair(pts))
    assert ember.stats()["graph_breaks"] == 0
    assert "loop" in recorder.ops()
