"""Elements of `np.nonzero`'s (and one-argument `np.where`'s, `np.flatnonzero`'s) index
arrays by an integer: the first or last place where a condition holds
(`np.nonzero(u > t)[0][-1]`), at the frame's level and inside loop ops, against NumPy on
random data (fixed seed): values, NumPy scalar types, arguments afterwards, NumPy's
IndexError where there is no such element, no graph break."""

from __future__ import annotations

import copy

import ember
import numpy as np
import pytest
from conftest import RecordingBackend, assert_same
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def first_and_last(x, t):
    above = np.nonzero(x > t)[0]
    return above[0], above[-1], np.where(x <= t)[0][-2], np.flatnonzero(x)[1]


def of_a_matrix(m):
    rows, cols = np.nonzero(m)
    return rows[0], cols[0], rows[-1], cols[-1], m.nonzero()[1][2]


def project_simplex(v):
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    ind = np.arange(1, len(v) + 1)
    rho = np.nonzero(u - css / ind > 0)[0][-1]
    theta = css[rho] / (rho + 1.0)
    return np.maximum(v - theta, 0.0)


def projected_steps(Q, c, steps):
    x = np.full(len(c), 1.0 / len(c))
    for _ in range(steps):
        x = project_simplex(x - 0.05 * (Q @ x + c))
    return x


def last_crossing_per_row(A, t):
    out = np.zeros(A.shape[0], dtype=np.int64)
    for i in range(A.shape[0]):
        out[i] = np.nonzero(A[i] >= A[i].mean() + t)[0][-1] - np.where(A[i] < A[i].mean())[0][0]
    return out


def kth_found_by_loop_index(x):
    found = np.zeros(10, dtype=np.int64)
    for k in range(10):
        found[k] = np.nonzero(x)[0][k] + np.where(x)[0][-1 - k]
    return found


def _loop_ops(graph):
    return sum(1 + sum(_loop_ops(node.attrs[k]) for k in ("body", "then", "else")
                       if k in node.attrs)
               if node.op in ("loop", "if") else 0 for node in graph.nodes)


def _check(fn, args, loops=False):
    ember.reset()
    recorder = RecordingBackend("cranelift")
    compiled = ember.compile(fn, backend=recorder)
    for _ in range(2):
        want_in, got_in = copy.deepcopy(args), copy.deepcopy(args)
        want, got = fn(*want_in), compiled(*got_in)
        assert_same(got, want, rtol=1e-12)
        for g, w in zip(got_in, want_in, strict=True):
            assert_same(g, w, path="argument")
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["region_recaptures"] == 0 and not stats["backend_fallbacks"], stats
    if loops:
        assert len(recorder.graphs) == 1 and _loop_ops(recorder.graphs[0]) >= 1


@seed(20261206)
@SETTINGS
@given(st.integers(0, 2**16), st.integers(4, 20),
       st.sampled_from([np.float64, np.float32, np.int64, np.int16]))
def test_first_and_last_places_match_numpy(salt, n, dtype):
    rng = np.random.default_rng(salt)
    x = rng.integers(-4, 5, n).astype(dtype)
    x[:4] = [4, -5, 1, -1]  # both sides of the threshold hold at least two elements
    _check(first_and_last, (x, 0.5))


@seed(20261206)
@SETTINGS
@given(st.integers(0, 2**16), st.integers(2, 6), st.integers(2, 6))
def test_elements_of_a_matrix_match_numpy(salt, rows, cols):
    m = np.random.default_rng(salt).random((rows, cols)) > 0.5
    m[0, :3 % cols] = True
    m[-1, -1] = True
    if np.count_nonzero(m) < 3:
        m[:] = True
    _check(of_a_matrix, (m,))


@pytest.mark.parametrize("fn,make", [
    (projected_steps, lambda r: (r.random((8, 8)), r.standard_normal(8), 20)),
    (last_crossing_per_row, lambda r: (r.random((9, 7)), 0.0)),
    (kth_found_by_loop_index, lambda r: (np.r_[np.ones(10, np.int64), r.integers(0, 3, 14)],)),
], ids=["projected_steps", "last_crossing_per_row", "kth_found_by_loop_index"])
def test_elements_inside_loop_ops_match_numpy(fn, make):
    for salt in range(2):
        _check(fn, make(np.random.default_rng(salt)), loops=True)


@pytest.mark.parametrize("x", [np.zeros(5), np.array([0.0, 2.0, 0.0])])
def test_no_such_element_raises_numpys_index_error(x):
    def last_two(x):
        return np.nonzero(x)[0][-2]

    with pytest.raises(IndexError) as want:
        last_two(x)
    with pytest.raises(IndexError, match=str(want.value)):
        ember.compile(last_two)(x)


def first_stop_or_length(codes, n):
    stop = np.flatnonzero(codes == 0)
    total = codes.sum()
    length = stop[0] if stop.size > 0 else n
    return length, total


def first_above_per_row(X, t):
    out = np.zeros(X.shape[0], dtype=np.int64)
    for r in range(X.shape[0]):
        nz = np.nonzero(X[r] > t)[0]
        out[r] = nz[-1] if len(nz) else -1
    return out


def last_zero_times_two(x):
    where = np.where(x == 0)
    top = x.max()
    if where[0].size:
        last = where[0][-1]
    else:
        last = x.shape[0]
    return last * 2, top


@seed(20261207)
@SETTINGS
@given(st.integers(0, 2**16), st.integers(1, 12), st.floats(0.0, 0.6))
def test_elements_read_in_a_branch_on_their_count_match_numpy(salt, n, p_zero):
    """An index array (or np.nonzero's tuple of them) held across a branch on the data,
    indexed on one path only: where there is no such element the other path is taken."""
    rng = np.random.default_rng(salt)
    codes = np.where(rng.random(n) < p_zero, 0, rng.integers(1, 5, n)).astype(np.int8)
    _check(first_stop_or_length, (codes, n))
    _check(first_above_per_row, (rng.random((3, n)), 1.0 - p_zero), loops=True)
    _check(last_zero_times_two, (codes.astype(np.int64),))
