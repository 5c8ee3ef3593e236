"""Loop counts the data decides at the frame's level: `math.ceil`, `math.floor`, `math.exp`,
`math.pow` of graph values outside loop bodies (Python ints and floats computed by the
graph, Python's exceptions kept by run-time checks), and `for _ in range(s)` over such an
int as one loop op (scaling and squaring's `s = int(math.ceil(math.log2(norm / 0.5)))`),
against NumPy on random data (fixed seed): values, result types, exceptions, no graph
break."""

from __future__ import annotations

import copy
import math

import ember
import numpy as np
import pytest
from conftest import RecordingBackend, assert_same
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def expm_scaled(A, terms=10):
    norm = np.max(np.sum(np.abs(A), axis=1))
    s = 0
    if norm > 0.5:
        s = int(math.ceil(math.log2(norm / 0.5)))
    X = A / 2.0**s
    E = np.eye(A.shape[0])
    term = np.eye(A.shape[0])
    for k in range(1, terms + 1):
        term = term @ X / k
        E = E + term
    for _ in range(s):
        E = E @ E
    return E, s


def halvings(x, tol):
    spread = float(x.max() - x.min())
    steps = math.ceil(math.log(spread / tol) / math.log(2.0)) if spread > tol else 0
    lo, hi = float(x.min()), float(x.max())
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        if np.count_nonzero(x <= mid) * 2 >= len(x):
            hi = mid
        else:
            lo = mid
    return lo, hi, steps


def floor_count(x):
    k = math.floor(x.sum())
    acc = np.zeros_like(x)
    for i in range(k):
        acc = acc * 0.5 + x
    return acc, k, math.trunc(x[0] * 10.0), math.floor(float(k))


def growth(x, rate):
    return math.exp(x.mean() * rate), math.pow(x.max(), 1.5), math.ceil(x.min() * 3.0)


def _loop_ops(graph):
    return sum(1 + sum(_loop_ops(node.attrs[k]) for k in ("body", "then", "else")
                       if k in node.attrs)
               if node.op in ("loop", "if") else 0 for node in graph.nodes)


def _check(fn, calls, loops=True):
    ember.reset()
    recorder = RecordingBackend("cranelift")
    compiled = ember.compile(fn, backend=recorder)
    for args in calls:
        want_in, got_in = copy.deepcopy(args), copy.deepcopy(args)
        assert_same(compiled(*got_in), fn(*want_in), rtol=1e-9, atol=1e-12)
        for g, w in zip(got_in, want_in, strict=True):
            assert_same(g, w, path="argument")
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["region_recaptures"] == 0 and not stats["backend_fallbacks"], stats
    # One capture whatever count the data gives (a second where a float argument changed,
    # taken at run time from then on).
    assert stats["compiles"] <= 2, stats
    if loops:
        assert _loop_ops(recorder.graphs[0]) >= 1


@seed(20261206)
@SETTINGS
@given(st.integers(0, 2**16), st.integers(2, 6), st.floats(0.01, 40.0))
def test_scaling_and_squaring_matches_numpy(salt, n, scale):
    rng = np.random.default_rng(salt)
    calls = [(rng.standard_normal((n, n)) * scale / n,), (rng.standard_normal((n, n)) * 0.01,)]
    _check(expm_scaled, calls)


@pytest.mark.parametrize("fn,make", [
    (halvings, lambda r: (r.random(50), 1e-6 + 1e-3 * r.random())),
    (floor_count, lambda r: (r.random(12),)),
], ids=["halvings", "floor_count"])
def test_counts_from_the_data_match_numpy(fn, make):
    _check(fn, [make(np.random.default_rng(salt)) for salt in range(3)])


def test_checked_math_matches_python():
    _check(growth, [(np.random.default_rng(salt).random(9), 2.0) for salt in range(2)],
           loops=False)


@pytest.mark.parametrize("x,rate,error", [
    (np.full(4, 2.0), 500.0, OverflowError),                # math.exp overflows
    (np.array([1.0, np.inf]), 1.0, OverflowError),          # math.pow(inf, 1.5) is inf: fine
    (np.array([1.0, np.nan, 2.0]), 1.0, ValueError),         # math.ceil of NaN
    (np.array([1.0, -np.inf]), 1.0, OverflowError),         # math.ceil of -inf
])
def test_python_exceptions_are_kept(x, rate, error):
    try:
        want = growth(x.copy(), rate)
    except error as e:
        with pytest.raises(error, match=str(e)):
            ember.compile(growth)(x.copy(), rate)
    else:
        assert_same(ember.compile(growth)(x.copy(), rate), want)
