"""`bool(v)` of a 0-d value in a loop body is a Python bool computed at run time, so NumPy
functions whose own source ends in `bool(...)` (`np.allclose`, `np.array_equal`) are stopping
tests of loop ops, as people write solvers. Against NumPy: results, their types, and one graph
with no break."""

from __future__ import annotations

import ember
import numpy as np
import pytest


def jacobi_allclose(A, b, tol, maxiter):
    x = np.zeros_like(b)
    D = np.diag(A)
    R = A - np.diagflat(D)
    for it in range(maxiter):
        x_new = (b - R @ x) / D
        if np.allclose(x_new, x, atol=tol, rtol=0):
            return x_new, it
        x = x_new
    return x, maxiter


def settles(x, steps):
    for k in range(steps):
        y = np.round(0.5 * (x + np.roll(x, 1)), 3)
        if np.array_equal(y, x):
            return y, k
        x = y
    return x, steps


def flag_list(x, steps):
    flags = []
    for _ in range(steps):
        y = 0.5 * (x + x[::-1])
        flags.append(bool(np.abs(y - x).max() < 1e-3))
        x = y
    return x, flags


def truths(v):
    out = []
    for i in range(v.shape[0]):
        out.append(bool(v[i]))  # NaN is true, -0.0 false
    return out


def _rng(seed):
    return np.random.default_rng(seed)


CASES = [
    (jacobi_allclose, lambda r: (r.random((12, 12)) + 12 * np.eye(12), r.random(12), 1e-10, 200)),
    (jacobi_allclose, lambda r: (r.random((12, 12)) + 12 * np.eye(12), r.random(12), 1e-30, 25)),
    (settles, lambda r: (np.round(r.random(9), 3), 40)),
    (flag_list, lambda r: (r.random(9), 30)),
    (truths, lambda r: (np.array([0.0, -0.0, 1e-300, np.nan, -2.0, np.inf]),)),
    (truths, lambda r: (r.integers(-2, 3, 10).astype(np.int32),)),
]


@pytest.mark.parametrize("fn,make", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_bool_in_loop_bodies_as_numpy(fn, make):
    ember.reset()
    compiled = ember.compile(fn)
    for seed in range(2):
        args = make(_rng(seed))
        want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        got = compiled(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        assert repr(got) == repr(want)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["entry_fallbacks"] == 0 and stats["compiles"] >= 1, stats
