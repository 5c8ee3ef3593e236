"""Elementwise arithmetic on slices with run-time bounds inside loop ops, and stores into
them (`capture/loops/run_exprs.py`), against NumPy: results, arguments afterwards, and
whether the loop stayed one loop op."""

from __future__ import annotations

import copy

import ember
import numpy as np
import pytest


def syrk_like(alpha, beta, C, A):
    for i in range(A.shape[0]):
        C[i, :i + 1] *= beta
        for k in range(A.shape[1]):
            C[i, :i + 1] += alpha * A[i, k] * A[:i + 1, k]


def covariance_like(M, n, data):
    cov = np.zeros((M, M))
    for i in range(M):
        cov[i:M, i] = cov[i, i:M] = data[:, i] @ data[:, i:M] / (n - 1.0)
    return cov


def zero_prefix_and_sums(x, y):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = (x[:i] * 2.0 - y[:i]).sum() + np.dot(x[:i] - 1.0, y[:i])
        y[:i // 2] = 0.0
    return out


def shifted_self_copy(x):
    for i in range(1, x.shape[0]):
        x[1:i + 1] = x[0:i] + 1.0
    return x


def int_target_float_step(a):
    for i in range(a.shape[0]):
        a[:i] += 0.5
    return a


CASES = [
    (syrk_like, lambda r: (1.5, 1.2, r.random((12, 12)), r.random((12, 10))), True),
    (covariance_like, lambda r: (10, 12.0, r.random((12, 10))), True),
    (zero_prefix_and_sums, lambda r: (r.random(11), r.random(11)), True),
    (shifted_self_copy, lambda r: (r.random(11),), False),
]


@pytest.mark.parametrize("fn,make,native", CASES, ids=[c[0].__name__ for c in CASES])
def test_run_arithmetic_matches_numpy(fn, make, native):
    ember.reset()
    compiled = ember.compile(fn)
    for seed in range(2):
        inputs = make(np.random.default_rng(seed))
        want_in, got_in = copy.deepcopy(inputs), copy.deepcopy(inputs)
        want, got = fn(*want_in), compiled(*got_in)
        if want is not None:
            np.testing.assert_allclose(got, want, rtol=1e-12)
        for g, w in zip(got_in, want_in):
            np.testing.assert_allclose(g, w, rtol=1e-12)
    if native:
        stats = ember.stats()
        assert stats["compiles"] >= 1 and stats["graph_breaks"] == 0, stats["break_reasons"]


def test_float_step_into_int_slice_raises_numpys_error():
    a = np.arange(12)
    with pytest.raises(TypeError) as want:
        int_target_float_step(a.copy())
    with pytest.raises(type(want.value)):
        ember.compile(int_target_float_step)(a.copy())


def mirrored_fill_then_overwrite(M, data):
    g = np.zeros((M, M))
    for i in range(M):
        g[i:M, i] = g[i, i:M] = data[:, i] @ data[:, i:M]
        e = data[:, i] @ data[:, i:M] * 2.0
        g[i:M, i] = e
        g[i, i] = -1.0
        g[i, i:M] = e
    return g


def test_a_stored_run_read_back_only_while_its_array_holds_it():
    """A chained store reads the first store's elements back; once the array changed the
    expression is computed again, as NumPy's evaluated array would be."""
    data = np.random.default_rng(5).random((12, 10))
    ember.reset()
    got = ember.compile(mirrored_fill_then_overwrite)(10, data)
    np.testing.assert_allclose(got, mirrored_fill_then_overwrite(10, data), rtol=1e-12)
    assert ember.stats()["graph_breaks"] == 0
