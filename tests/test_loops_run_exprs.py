"""Elementwise arithmetic on slices with run-time bounds inside loop ops, and stores into
them (`capture/loops/run_exprs.py`), against NumPy: results, arguments afterwards, and
whether the loop stayed one loop op."""

from __future__ import annotations

import copy

import ember
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


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


def givens_rows(R, c, s):
    """Both new rows computed from the old ones before either is stored."""
    m, n = R.shape
    for j in range(n):
        for i in range(m - 1, j, -1):
            top = c * R[i - 1, j:] + s * R[i, j:]
            bottom = -s * R[i - 1, j:] + c * R[i, j:]
            R[i - 1, j:], R[i, j:] = top, bottom
    return R


def kept_then_cleared(x, y):
    """A run's arithmetic kept across a store into the run it reads."""
    for j in range(x.shape[0]):
        doubled = x[j:] * 2.0
        x[j:] = 0.0
        y[j:] += doubled
    return x, y


def butterfly_prefix(a):
    """Sum and difference of two rows of one array, stored back in turn."""
    n = a.shape[1]
    for k in range(1, n):
        s = a[0, :k] + a[1, :k]
        d = a[0, :k] - a[1, :k]
        a[0, :k] = s
        a[1, :k] = d / 2
    return a


CASES = [
    (givens_rows, lambda r: (r.standard_normal((7, 4)), 0.6, 0.8), True),
    (kept_then_cleared, lambda r: (r.random(9), r.random(9)), True),
    (butterfly_prefix, lambda r: (r.random((2, 9)),), True),
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
        assert stats["region_recaptures"] == 0 and not stats["backend_fallbacks"]


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


def pivots_and_extrema(A):
    n = A.shape[0]
    rows = np.zeros(n, dtype=np.int64)
    top, low = np.zeros(n), np.zeros(n)
    for k in range(n):
        rows[k] = k + np.argmax(np.abs(A[k:, k]))
        top[k] = A[k, k:].max()
        low[k] = np.min(A[:k + 1, k] * 2.0) + A[k, :k + 1].argmin()
    return rows, top, low


def int_extrema(x, n):
    s = 0
    for k in range(n):
        s += np.argmin(x[k:n]) + x[:k + 1].max() - np.amin(np.negative(x[k:n]))
    return s


def empty_tail_max(x):
    out = np.zeros(len(x))
    for k in range(len(x)):
        out[k] = x[k + 1:].max()
    return out


def _with_nans(r, shape, dtype=np.float64):
    a = r.standard_normal(shape)
    a[r.random(shape) < 0.15] = np.nan
    a[r.random(shape) < 0.1] = np.inf
    return np.round(a, 1).astype(dtype)  # ties: the first is taken


@pytest.mark.parametrize("fn,make", [
    (pivots_and_extrema, lambda r: (_with_nans(r, (11, 11)),)),
    (pivots_and_extrema, lambda r: (np.round(r.standard_normal((11, 11)), 1),)),
    (int_extrema, lambda r: (r.integers(-5, 5, 42).astype(np.int32), 40)),
    (int_extrema, lambda r: (r.integers(0, 2, 40).astype(np.uint8), 40)),
], ids=["nans", "ties", "int32", "uint8"])
def test_extrema_of_runs_match_numpy(fn, make):
    """`max`/`min`/`argmax`/`argmin` of runs and of ufuncs of runs: one loop op over the
    run, NaN first, the first of ties, NumPy's dtypes."""
    for seed in range(3):
        ember.reset()
        args = make(np.random.default_rng(seed))
        want = fn(*copy.deepcopy(args))
        got = ember.compile(fn)(*copy.deepcopy(args))
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            assert type(g) is type(w) and g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)
        stats = ember.stats()
        assert stats["compiles"] == 1 and stats["graph_breaks"] == 0, stats["break_reasons"]


def test_an_empty_run_raises_numpys_error():
    x = np.random.default_rng(0).random(12)
    with pytest.raises(ValueError) as want:
        empty_tail_max(x.copy())
    with pytest.raises(ValueError, match=str(want.value)):
        ember.compile(empty_tail_max)(x.copy())


def pair_counts(x, y, t):
    n = len(x)
    out = np.zeros((n, 6), dtype=np.int64)
    for i in range(n - 1):
        d = np.sign(x[i + 1:] - x[i]) * (y[i + 1:] - y[i])
        out[i, 0] = np.sum(d > t)
        out[i, 1] = np.sum(d >= t)
        out[i, 2] = (d < t).sum()
        out[i, 3] = np.sum(d <= 0)
        out[i, 4] = np.sum(x[i + 1:] == x[i])
        out[i, 5] = np.sum(x[:i] != y[:i])
    return out


@settings(max_examples=40)
@given(st.integers(2, 40), st.sampled_from([np.float64, np.float32, np.int64]),
       st.integers(0, 2**32 - 1), st.floats(-1.0, 1.0), st.booleans())
def test_comparisons_of_run_arithmetic_count_as_numpy(n, dtype, seed, t, nans):
    """Comparisons of run arithmetic (Kendall's tau's pair counts), summed, stay in the
    loop op and count as NumPy does: ties, NaN, integer and float32 data."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 4, n).astype(dtype)
    y = rng.integers(-3, 4, n).astype(dtype)
    if nans and dtype != np.int64:
        x[rng.integers(0, n)] = np.nan
    ember.reset()
    with np.errstate(invalid="ignore"):
        want = pair_counts(x, y, t)
        got = ember.compile(pair_counts)(x, y, t)
    np.testing.assert_array_equal(got, want)
    stats = ember.stats()
    assert stats["compiles"] >= 1 and stats["graph_breaks"] == 0, stats["break_reasons"]
