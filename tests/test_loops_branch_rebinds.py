"""A local rebound on one path of a branch to another array the loop body computed (`y =
y_new` where a step is accepted): where that array is the body's own, unchanged by the paths,
viewed by nothing and dead after the branch, no one can tell the merged local from either
object, so it is `where(cond, y_new, y)` after the `if` op, a new array
(`loops/branches.py: _picked_arrays`), and the loop stays one loop op. Where the other name
is still read (`y_new += 1` after the branch would change `y` too), the loop refuses, and
the frame keeps Python's aliasing."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy


def accept_step(x, n):
    y = x.copy()
    for i in range(n):
        cand = y * 0.9 + 0.1 * np.sin(y + i)
        if cand.sum() < y.sum():
            y = cand
    return y


def accept_or_count(x, n):
    y = x.copy()
    rejected = 0
    for i in range(n):
        cand = y - 0.05 * np.cos(y * i)
        if np.abs(cand).max() < np.abs(y).max():
            y = cand
        else:
            rejected += 1
    return y, rejected


def backtracking_descent(x, steps):
    step = 1.0
    for _ in range(steps):
        grad = 2.0 * x - 1.0
        trial = x - step * grad
        if np.sum((trial - 0.5) ** 2) < np.sum((x - 0.5) ** 2):
            x = trial
            step *= 1.5
        else:
            step *= 0.5
    return x, step


def keep_best_row(rows):
    best = rows[0] * 1.0
    for i in range(1, rows.shape[0]):
        scaled = rows[i] * 1.0
        if scaled.max() > best.max():
            best = scaled
    return best


def still_read_after(x, n):
    y = x.copy()
    for i in range(n):
        cand = y * 0.9 + 0.1 * np.sin(y + i)
        if cand.sum() < y.sum():
            y = cand
        cand += 1.0  # `y` is `cand` where it was taken: Python adds to both
    return y


NATIVE = [
    (accept_step, lambda r: (r.normal(size=6), 30)),
    (accept_or_count, lambda r: (r.normal(size=6), 40)),
    (backtracking_descent, lambda r: (r.normal(size=5), 25)),
    (keep_best_row, lambda r: (r.normal(size=(30, 40)),)),
]


@pytest.mark.parametrize("fn, make", NATIVE, ids=[f.__name__ for f, _ in NATIVE])
def test_rebinds_behave_as_numpy_and_compile(fn, make):
    args = make(np.random.default_rng(2))
    assert_behaves_as_numpy(fn, *args)
    ember.reset()
    compiled = ember.compile(fn)
    for _ in range(2):
        compiled(*args)
    stats = ember.stats()
    assert stats["compiles"] >= 1 and stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["region_recaptures"] == 0 and not stats["backend_fallbacks"], stats


def test_argument_is_not_changed_and_result_is_new():
    x = np.random.default_rng(0).normal(size=5)
    before = x.copy()
    out, _ = ember.compile(backtracking_descent)(x, 20)
    want, _ = backtracking_descent(before.copy(), 20)
    np.testing.assert_array_equal(x, before)
    np.testing.assert_allclose(out, want)
    assert out is not x


def test_a_name_still_read_keeps_python_aliasing():
    x = np.random.default_rng(1).normal(size=6)
    assert_behaves_as_numpy(still_read_after, x, 30, compiled_code=False)


@seed(3)
@settings(max_examples=20, deadline=None)
@given(st.lists(st.floats(-3, 3, allow_nan=False, width=32), min_size=1, max_size=12),
       st.integers(0, 20))
def test_rebinds_random(values, n):
    x = np.array(values)
    for fn in (accept_step, accept_or_count, backtracking_descent):
        assert_behaves_as_numpy(fn, x, n, compiled_code=False)
