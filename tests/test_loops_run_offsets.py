"""Slices with run-time bounds written differently on the two sides of an operator, a store
or a product (`T[i, v:] |= T[i - 1, :m + 1 - v]` with `v` read from the data, an
autocorrelation's `x[:n - k] @ x[k:]`, a knapsack's `np.maximum(dp[i - 1, w:], dp[i - 1, :m + 1 -
w] + c)`) inside loop ops (`loops/run_exprs.py: _aligned`), against NumPy on random data
(fixed seed): values, dtypes, arguments afterwards, one loop op and no graph break; where the
lengths differ at run time, NumPy's own broadcast or ValueError."""

from __future__ import annotations

import copy

import ember
import numpy as np
import pytest
from conftest import RecordingBackend, assert_same
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def subset_sums(values, target):
    n = len(values)
    T = np.zeros((n + 1, target + 1), dtype=np.bool_)
    T[:, 0] = True
    for i in range(1, n + 1):
        v = values[i - 1]
        T[i] = T[i - 1]
        if v <= target:
            T[i, v:] |= T[i - 1, :target + 1 - v]
    return T[n, target], T[n].sum()


def knapsack(weights, values, capacity):
    n = len(weights)
    dp = np.zeros((n + 1, capacity + 1))
    for i in range(1, n + 1):
        w = weights[i - 1]
        dp[i] = dp[i - 1]
        if w <= capacity:
            dp[i, w:] = np.maximum(dp[i - 1, w:], dp[i - 1, :capacity + 1 - w] + values[i - 1])
    return dp[n, capacity], dp[n]


def autocorrelation(x, maxlag):
    n = len(x)
    r = np.zeros(maxlag)
    for k in range(maxlag):
        r[k] = x[:n - k] @ x[k:] + np.dot(x[k:], x[:n - k]) - np.sum(x[k:] * x[:n - k])
    return r / r[0]


def shifted_sums(x, shifts):
    y = x.copy()
    for s in shifts:
        y[s:] += y[:len(y) - s]
    return y


def bit_masks(a, offsets):
    out = a.copy()
    for j in range(len(offsets)):
        o = offsets[j]
        out[o:] ^= a[:len(a) - o] & 7
        out[:len(a) - o] = out[:len(a) - o] | (a[o:] >> 1)
    return out


def differences(x, lags):
    out = np.zeros(len(lags))
    for j in range(len(lags)):
        d = x[lags[j]:] - x[:len(x) - lags[j]]
        out[j] = (d * d).sum()
    return out


def _loop_ops(graph):
    return sum(1 + sum(_loop_ops(node.attrs[k]) for k in ("body", "then", "else")
                       if k in node.attrs)
               if node.op in ("loop", "if") else 0 for node in graph.nodes)


def _check(fn, *calls):
    ember.reset()
    recorder = RecordingBackend("cranelift")
    compiled = ember.compile(fn, backend=recorder)
    for args in calls:
        want_in, got_in = copy.deepcopy(args), copy.deepcopy(args)
        want, got = fn(*want_in), compiled(*got_in)
        tolerance = 1e-5 if any(getattr(a, "dtype", None) == np.float32 for a in args) else 1e-9
        assert_same(got, want, rtol=tolerance, atol=tolerance)
        for g, w in zip(got_in, want_in, strict=True):
            assert_same(g, w, path="argument")
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["region_recaptures"] == 0 and not stats["backend_fallbacks"], stats
    assert stats["entry_fallbacks"] == 0, stats
    assert _loop_ops(recorder.graphs[0]) >= 1


@seed(20261206)
@SETTINGS
@given(st.integers(0, 2**16), st.integers(1, 12), st.integers(1, 40))
def test_subset_sums_match_numpy(salt, n, target):
    rng = np.random.default_rng(salt)
    _check(subset_sums, (rng.integers(1, 30, n), target), (rng.integers(1, 30, n), target))


@seed(20261206)
@SETTINGS
@given(st.integers(0, 2**16), st.integers(1, 10), st.integers(1, 30))
def test_knapsack_matches_numpy(salt, n, capacity):
    rng = np.random.default_rng(salt)
    calls = [(rng.integers(1, 20, n), rng.random(n), capacity) for _ in range(2)]
    _check(knapsack, *calls)


@pytest.mark.parametrize("fn,make", [
    (autocorrelation, lambda r: (r.standard_normal(40), 12)),
    (shifted_sums, lambda r: (r.random(30), r.integers(0, 30, 9))),
    (shifted_sums, lambda r: (r.integers(-9, 9, 30),
                              np.array([1, 2, 4, 8, 16, 0, 29, 30, 3, 1]))),
    (bit_masks, lambda r: (r.integers(0, 2**20, 25), r.integers(0, 25, 10))),
    (differences, lambda r: (r.random(33).astype(np.float32), r.integers(0, 33, 11))),
], ids=["autocorrelation", "shifted_sums", "shifted_int_sums", "bit_masks", "differences"])
def test_offset_runs_match_numpy_as_loop_ops(fn, make):
    _check(fn, make(np.random.default_rng(0)), make(np.random.default_rng(1)))


def test_a_run_of_length_one_broadcasts_as_numpy_does():
    """`y[9:] += y[:1]` (lengths 1 and 1), then `y[s:]` of length 8 beside `y[:1]`: NumPy
    broadcasts, and the frame runs as Python for it."""
    def spread(y, starts):
        for s in starts:
            y[s:] += y[:len(y) - s] * 0 + y[:1]
        return y

    y = np.arange(10.0)
    want = spread(y.copy(), np.array([9, 2]))
    got = ember.compile(spread)(y.copy(), np.array([9, 2]))
    assert_same(got, want)


def test_lengths_that_differ_raise_numpys_error():
    x = np.arange(10.0)
    with pytest.raises(ValueError) as want:
        shifted_sums(x.copy(), np.array([3, 12]))
    with pytest.raises(ValueError, match=str(want.value).split("(")[0]):
        ember.compile(shifted_sums)(x.copy(), np.array([3, 12]))
