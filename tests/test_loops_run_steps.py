"""Slices with run-time bounds and a step inside loop ops (`is_p[i * i::i] = False` of a
sieve, `s[d::d] += d` of divisor sums, `x[::i].sum()`, `y[i:i + 6:2] += ...`): the step a loop
value or a positive constant (`loops/runs.py: build_slice`), the loop op visiting the run's
elements `lo, lo + step, ...`. Against NumPy on random data (fixed seed): values, dtypes,
arguments afterwards, one loop op and no graph break; a step the data make zero or negative
sends the frame to Python (NumPy's ValueError, or its reversed slice); operations that need
consecutive positions (`np.flip`, `run[0]`, 2-d blocks) refuse the loop op, still right."""

from __future__ import annotations

import copy

import ember
import numpy as np
import pytest
from conftest import RecordingBackend, assert_same
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy

SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def sieve_for(n):
    is_p = np.ones(n + 1, dtype=np.bool_)
    is_p[:2] = False
    for i in range(2, int(n ** 0.5) + 1):
        if is_p[i]:
            is_p[i * i::i] = False
    return np.nonzero(is_p)[0]


def sieve_while(n):
    is_p = np.ones(n + 1, dtype=np.bool_)
    is_p[:2] = False
    i = 2
    while i * i <= n:
        if is_p[i]:
            is_p[i * i::i] = False
        i += 1
    return int(is_p.sum())


def divisor_sums(n):
    s = np.zeros(n, dtype=np.int64)
    for d in range(1, n):
        s[d::d] += d
    return s


def strided_means(x):
    out = np.zeros(x.shape[0])
    for i in range(1, x.shape[0]):
        out[i] = x[::i].sum() + x[i::i].mean()
    return out


def strided_products(x, y):
    out = np.zeros(x.shape[0])
    for i in range(1, x.shape[0]):
        out[i] = x[::i] @ y[::i] + np.dot(x[i::i], y[i::i])
    return out


def constant_steps(x, k):
    y = x.copy()
    for i in range(k):
        y[i::3] *= 2.0
        y[i:i + 6:2] += y[i:i + 6:2]
    return y


def strided_update(x):
    y = np.zeros_like(x)
    for i in range(1, 30):
        y[::i] = x[::i] * 0.5 + y[::i]
    return y


def data_steps(x, steps):
    y = x.copy()
    for i in range(40):
        y[i % 5::steps[i % len(steps)]] += 1.0
    return y


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
        assert_same(got, want, rtol=1e-9, atol=1e-9)
        for g, w in zip(got_in, want_in, strict=True):
            assert_same(g, w, path="argument")
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["region_recaptures"] == 0 and not stats["backend_fallbacks"], stats
    assert stats["entry_fallbacks"] == 0, stats
    assert _loop_ops(recorder.graphs[0]) >= 1


@pytest.mark.parametrize("fn,make", [
    (sieve_for, lambda r: (300,)),
    (sieve_while, lambda r: (500,)),
    (divisor_sums, lambda r: (250,)),
    (strided_means, lambda r: (r.standard_normal(int(r.integers(20, 60))),)),
    (strided_products, lambda r: (r.random(37), r.random(37))),
    (constant_steps, lambda r: (r.random(50), 20)),
    (strided_update, lambda r: (r.random(45),)),
    (data_steps, lambda r: (r.random(60), r.integers(1, 7, 6))),
], ids=["sieve_for", "sieve_while", "divisor_sums", "strided_means", "strided_products",
        "constant_steps", "strided_update", "data_steps"])
def test_stepped_runs_match_numpy_as_loop_ops(fn, make):
    _check(fn, make(np.random.default_rng(0)), make(np.random.default_rng(1)))


@seed(20261207)
@SETTINGS
@given(st.integers(0, 2**16), st.integers(2, 80))
def test_stepped_stores_of_random_sizes_match_numpy(salt, n):
    rng = np.random.default_rng(salt)
    _check(data_steps, (rng.random(n), rng.integers(1, n + 2, 5)),
           (rng.random(n), rng.integers(1, 4, 3)))


@pytest.mark.parametrize("steps", [np.array([1, 2, 0, 3]), np.array([2, -1, 3]),
                                   np.array([-3, -2])], ids=["zero", "negative", "negatives"])
def test_a_step_not_positive_behaves_as_numpy(steps):
    """A zero step raises NumPy's ValueError, a negative one walks backwards: both in
    Python, after the run-time check on the step."""
    assert_behaves_as_numpy(data_steps, np.arange(30.0), steps, compiled_code=False)


def flipped_strides(x):
    t = 0.0
    for i in range(1, 40):
        t += np.flip(x[::i]).sum() + x[i::i][0] * 0.0
    return t


def strided_block_rows(A):
    B = A.copy()
    for i in range(1, A.shape[0]):
        B[i, ::i] = -1.0
        B[::i, i] += 1.0
    return B


@pytest.mark.parametrize("fn,args", [
    (flipped_strides, (np.random.default_rng(2).random(60),)),
    (strided_block_rows, (np.random.default_rng(3).random((30, 31)),)),
], ids=["flip_and_first", "rows_and_columns"])
def test_steps_a_loop_op_cannot_take_still_match_numpy(fn, args):
    assert_behaves_as_numpy(fn, *args, compiled_code=False)
