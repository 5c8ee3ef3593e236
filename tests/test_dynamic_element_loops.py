"""NumPy functions that are element loops (`np.bincount`, gathers and scatters through index
arrays, `ufunc.at`, `np.take`) over arrays whose length changes from call to call: once the
size changed, each loop runs over the symbol's run-time size (`numpy_api/loop_nest.py`), so
the function compiles twice for every size from 2 up, and every call equals NumPy (results,
arguments afterwards, NumPy's exception for lengths that do not match and indices out of
bounds)."""

from __future__ import annotations

import re

import ember
import numpy as np
import pytest
from test_dynamic_rows import check_sizes


def label_counts(labels):
    return np.bincount(labels, minlength=8)


def class_weights(labels, w):
    totals = np.bincount(labels, weights=w, minlength=5)
    return totals / max(w.sum(), 1.0)


def bag_of_embeddings(table, ids):
    return table[ids].sum(axis=0)


def picked_log_loss(probs, y):
    n = probs.shape[0]
    return -np.log(probs[np.arange(n), y] + 1e-12)


def cloud_in_cell(positions, charges):
    idx = np.minimum((positions * 16).astype(np.int64), 15)
    rho = np.zeros(16)
    np.add.at(rho, idx, charges)
    return rho


def last_write_wins(idx, v):
    out = np.full(12, -1.0)
    out[idx] = v
    return out


def pair_counts(a, b):
    g = np.zeros((6, 6), dtype=np.int64)
    np.add.at(g, (a, b), 1)
    np.add.at(g, (b, a), 1)
    return g


def taken_columns(x, idx):
    return np.take(x, idx, axis=1).mean(axis=0)


def reordered(x, order):
    y = x[order]
    y[order] = x * 2.0
    return y


def binned(x):
    edges = np.linspace(0.0, 1.0, 11)
    return np.searchsorted(edges, x, side="right") - 1


def as_of(t_left, t_right):
    return np.searchsorted(t_right, t_left) + np.searchsorted(t_right, t_left[::-1].copy())


def ranked_by_sorter(a, order, v):
    return np.searchsorted(a, v, sorter=order)


def split_by_permutation(y, perm):
    k = len(y) // 3
    return y[perm[k:]], y[perm[:k]] * 2.0


def _ints(high, *cols):
    def make(n, rng):
        return tuple(rng.integers(0, high, n if c is None else (n, c)) for c in cols)
    return make


CASES = [
    (label_counts, _ints(8, None)),
    (class_weights, lambda n, rng: (rng.integers(0, 5, n), rng.random(n))),
    (bag_of_embeddings, lambda n, rng: (rng.random((10, 4)), rng.integers(0, 10, n))),
    (picked_log_loss, lambda n, rng: (rng.random((n, 3)), rng.integers(0, 3, n))),
    (cloud_in_cell, lambda n, rng: (rng.random(n), rng.random(n))),
    (last_write_wins, lambda n, rng: (rng.integers(-12, 12, n), rng.random(n))),
    (pair_counts, _ints(6, None, None)),
    (taken_columns, lambda n, rng: (rng.random((3, 7)), rng.integers(-7, 7, n))),
    (reordered, lambda n, rng: (rng.random(n), rng.permutation(n))),
    # the searches check that the values increase (`v[:-1] <= v[1:]`), which needs 3 of
    # them for a symbolic size: one more
    # the views `perm[k:]` and `perm[:k]` are at least 2 long from 6 elements
    (split_by_permutation, lambda n, rng: (rng.random(n + 4), rng.permutation(n + 4))),
    (binned, lambda n, rng: (rng.random(n + 1),)),
    (as_of, lambda n, rng: (np.sort(rng.random(n + 1)), np.sort(rng.random(n + 5)))),
    (ranked_by_sorter, lambda n, rng: (lambda a: (a, np.argsort(a), rng.random(n + 1)))(
        rng.random(n))),
]
SIZES = (3, 4, 5, 2, 7, 30, 11, 2, 64)


@pytest.mark.parametrize("fn, make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_element_loops_compile_twice_for_every_size(fn, make):
    stats = check_sizes(fn, make, SIZES)
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]


@pytest.mark.parametrize("fn, make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_element_loops_equal_numpy_at_sizes_zero_and_one(fn, make):
    check_sizes(fn, make, (4, 5, 0, 1, 6, 1, 0, 9))


@pytest.mark.parametrize("fn, make", CASES[:5], ids=[f.__name__ for f, _ in CASES[:5]])
def test_element_loops_on_the_eager_backend(fn, make):
    check_sizes(fn, make, (4, 5, 0, 1, 9), backend="eager")


def _at(fn, make, bad):
    """`fn` called at 5 and 9 (static, then symbolic), then with the arguments `bad`."""
    rng = np.random.default_rng(0)
    return fn, [make(5, rng), make(9, rng)], bad


@pytest.mark.parametrize("fn, calls, bad", [
    # lengths that do not match: NumPy's ValueError
    _at(*CASES[1], (np.arange(7) % 5, np.ones(9))),
    _at(*CASES[4], (np.linspace(0, 1, 8), np.ones(5))),
    _at(*CASES[5], (np.arange(8), np.ones(3))),
    _at(*CASES[6], (np.arange(5), np.arange(4))),
    _at(*CASES[3], (np.ones((8, 3)), np.arange(6) % 3)),
    _at(*CASES[12], (np.arange(7.0), np.arange(6), np.ones(3))),
    # an index past its axis: NumPy's IndexError
    _at(*CASES[2], (np.ones((10, 4)), np.arange(9) + 3)),
    _at(*CASES[5], (np.arange(8) * 3, np.ones(8))),
    _at(*CASES[0], (np.arange(9) - 1,)),
    _at(*CASES[3], (np.ones((8, 3)), np.arange(8))),
    _at(*CASES[7], (np.ones((3, 7)), np.arange(8) + 1)),
], ids=lambda c: getattr(c, "__name__", ""))
def test_sizes_the_code_cannot_take_raise_numpys_exception(fn, calls, bad):
    compiled = ember.compile(fn)
    for args in calls:
        np.testing.assert_allclose(compiled(*[a.copy() for a in args]), fn(*args))
    assert ember.stats()["captures"] == 2
    with pytest.raises(Exception) as want:
        fn(*[a.copy() for a in bad])
    with pytest.raises(want.type, match=re.escape(str(want.value))):
        compiled(*bad)
