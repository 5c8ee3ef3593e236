"""Comprehensions and generator expressions over a row, inside a loop over rows: `[v for v in
row if v > t]`, `sum(v * v for v in row if v < t)`, `max(kept) if kept else -1.0`. The
comprehension's loop is a loop op nested in the body's (its filter a branch on data), and
the short arrays it leaves (the list's buffer: its `max`, `argmax`, `any`) are computed element
by element in the native loop. Each must equal plain Python and compile without a break."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy, assert_compiles_whole


def filtered_sums(X, t):
    out = []
    for row in X:
        kept = [v for v in row if v > t]
        out.append(sum(kept) if kept else 0.0)
    return np.array(out)


def filtered_counts_by_index(X, t):
    counts = []
    for i in range(X.shape[0]):
        kept = [x for x in X[i] if x > t]
        counts.append(len(kept))
    return counts


def generator_sum_of_squares(X, t):
    tot = 0.0
    for row in X:
        tot += sum(v * v for v in row if v < t)
    return tot


def largest_beyond(X, t):
    best = []
    for row in X:
        big = [v for v in row if abs(v) > t]
        best.append(max(big) if big else -1.0)
    return best


def smallest_positive_per_row(X):
    out = np.full(X.shape[0], np.inf)
    for r in range(X.shape[0]):
        pos = [v for v in X[r] if v > 0]
        if pos:
            out[r] = min(pos)
    return out


def any_over_threshold(X, t):
    flags = np.zeros(X.shape[0], dtype=bool)
    for i, row in enumerate(X):
        flags[i] = any(v > t for v in row)
    return flags


def mean_of_kept_ints(M, lo):
    res = []
    for row in M:
        kept = [int(v) for v in row if v >= lo]
        res.append(sum(kept) / len(kept) if len(kept) > 0 else 0.0)
    return res


def squares_unfiltered(X):
    acc = np.zeros(X.shape[0])
    for i in range(X.shape[0]):
        sq = [v * v for v in X[i]]
        acc[i] = max(sq) - min(sq)
    return acc


def argmax_of_short_rows(X):
    out = np.zeros(X.shape[0], dtype=np.int64)
    for i in range(X.shape[0]):
        w = np.abs(X[i, :5])
        out[i] = np.argmax(w) + np.argmin(w) * 10 + int(np.any(w > 1.5)) * 100
    return out


_rng = np.random.default_rng(7)
_X = _rng.standard_normal((30, 6))
_X32 = _rng.standard_normal((25, 5)).astype(np.float32)
_M = _rng.integers(-5, 10, size=(20, 7)).astype(np.int32)

CASES = [
    (filtered_sums, (_X, 0.3)),
    (filtered_counts_by_index, (_X, 0.3)),
    (generator_sum_of_squares, (_X, 0.2)),
    (largest_beyond, (_X, 0.8)),
    (largest_beyond, (_X, 5.0)),
    (smallest_positive_per_row, (_X,)),
    (any_over_threshold, (_X, 1.5)),
    (mean_of_kept_ints, (_M, 3)),
    (squares_unfiltered, (_X,)),
    (argmax_of_short_rows, (_X,)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(CASES)])
def test_comprehensions_over_rows_in_loops_behave_as_python_and_compile(fn, args):
    assert_behaves_as_numpy(fn, *args)
    assert_compiles_whole(fn, args)


def test_float32_sums_or_a_python_float_as_python():
    # `sum(kept) if kept else 0.0` appends a float32 scalar or a Python float: a list of
    # two dtypes, which the loop op does not build; the frame runs as plain Python (the
    # comprehension's own frame too, rather than breaking on every item).
    assert_behaves_as_numpy(filtered_sums, _X32, 0.1, compiled_code=False)
    assert ember.stats()["cache_hits"] == 0


def test_rows_with_nan_ties_and_signed_zeros():
    X = np.array([[np.nan, 1.0, 2.0, np.nan, 0.5],
                  [-0.0, 0.0, -0.0, 0.0, -0.0],
                  [3.0, 3.0, -1.0, 3.0, 2.0],
                  [-np.inf, -np.inf, -np.inf, -np.inf, -np.inf]])
    for fn in (largest_beyond, argmax_of_short_rows):
        assert_behaves_as_numpy(fn, *((X, -1.0) if fn is largest_beyond else (X,)))
    assert_behaves_as_numpy(smallest_positive_per_row, X)


@seed(20261207)
@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(st.lists(st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, np.nan, np.inf, -np.inf]),
                         min_size=5, max_size=5), min_size=1, max_size=6),
       st.sampled_from([-1.0, 0.0, 0.5]))
def test_short_rows_of_special_values_as_python(rows, t):
    X = np.array(rows)
    assert_behaves_as_numpy(largest_beyond, X, t)
    assert_behaves_as_numpy(argmax_of_short_rows, X)
    assert_behaves_as_numpy(filtered_sums, X, t)


def any_of_row_at_frame_level(row, t):
    return any(v > t for v in row), all(v < t for v in row)


def all_close_rows(X, Y, tol):
    same = []
    for i in range(X.shape[0]):
        same.append(all(abs(X[i, j] - Y[i, j]) < tol for j in range(X.shape[1])))
    return same


def count_rows_with_a_hit(X, t):
    c = 0
    for row in X:
        if any(v > t for v in row):
            c += 1
    return c


def int_sums_near_the_limit(M):
    out = []
    for row in M:
        kept = [int(v) for v in row if v > 0]
        out.append(sum(kept))
    return out


@pytest.mark.parametrize("fn,args", [
    (any_of_row_at_frame_level, (_X[0], 0.5)),
    (any_of_row_at_frame_level, (_X[1], -5.0)),
    (all_close_rows, (_X[:10], _X[:10] + _rng.normal(0, 0.01, (10, 6)), 0.02)),
    (count_rows_with_a_hit, (_X, 1.8)),
    (int_sums_near_the_limit, (_M,)),
], ids=["any-all", "any-all-true", "all-close", "count-hits", "int-sums"])
def test_any_all_of_generators_and_sums_of_ints(fn, args):
    assert_behaves_as_numpy(fn, *args)
    assert_compiles_whole(fn, args)


def test_any_of_nan_and_an_int_sum_past_int64_as_python():
    assert_behaves_as_numpy(any_of_row_at_frame_level, np.array([np.nan, -1.0]), 0.0)
    big = np.array([[2**62, 2**62, -1], [1, 2, 3]], dtype=np.int64)
    # The sum leaves int64: the graph's check reruns the frame as Python, on each call.
    assert_behaves_as_numpy(int_sums_near_the_limit, big, compiled_code=False)
    assert ember.stats()["entry_fallbacks"] == 2
