"""Loop bodies that multiply a row by a small matrix (`scores = X[i].dot(W)`, `h = W @ x[t]`,
`np.dot(pos[i], R)`), update an array at constant positions (`dW[:, j] += X[i]` in a loop
over classes), and hand a row not read yet to the paths of a branch (`read = reads[r]` tested
in a `while`). Each compiles to one native loop: the products are folded element by element
(`loops/small_products.py`), the constant positions loaded and stored element by element,
the row read anew in each path. Each function runs compiled and plain; results, dtypes,
argument mutation, errors and aliasing must agree, and the optimised bodies must hold only
0-d values and element access."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy
from test_loops_small_arrays import array_statements, optimised_bodies


def agrees(fn, *args, rtol=1e-6, native=True):
    """Compiled twice, `fn` gives NumPy's results (within float rounding: the sums run in
    another order than BLAS's) and mutates its arguments as NumPy does; with `native`, with
    no break and every loop body native (0-d values, element access, scratch arrays and
    nested loops and branches only)."""
    ember.reset()
    compiled = ember.compile(fn)
    for _ in range(2):
        want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        assert_same(compiled(*got_args), fn(*want_args), rtol=rtol, atol=1e-9)
        for got, want in zip(got_args, want_args, strict=True):
            assert_same(got, want, rtol=rtol, atol=1e-9)
    if native:
        stats = ember.stats()
        assert stats["graph_breaks"] == 0, stats["break_reasons"]
        bodies = optimised_bodies(fn, *args)
        assert bodies
        for body in bodies:
            arrays = [line for line in array_statements(body)
                      if not any(f" {op}(" in line for op in ("loop", "if", "full"))]
            assert not arrays, body


def svm_naive(W, X, y):
    dW = np.zeros(W.shape)
    loss = 0.0
    for i in range(X.shape[0]):
        scores = X[i].dot(W)
        correct = scores[y[i]]
        for j in range(W.shape[1]):
            if j == y[i]:
                continue
            margin = scores[j] - correct + 1
            if margin > 0:
                loss += margin
                dW[:, j] += X[i]
                dW[:, y[i]] -= X[i]
    return loss / X.shape[0], dW


def softmax_naive(W, X, y):
    loss = 0.0
    dW = np.zeros_like(W)
    for i in range(X.shape[0]):
        scores = X[i].dot(W)
        scores -= np.max(scores)
        p = np.exp(scores) / np.sum(np.exp(scores))
        loss += -np.log(p[y[i]])
        for j in range(W.shape[1]):
            dW[:, j] += (p[j] - (j == y[i])) * X[i]
    return loss, dW


def rnn_states(Wx, Wh, xs):
    h = np.zeros(Wh.shape[0])
    total = 0.0
    for t in range(xs.shape[0]):
        h = np.tanh(Wx @ xs[t] + Wh @ h)
        total += h[0]
    return h, total


def rotate_points(P, R):
    out = np.empty_like(P)
    for i in range(P.shape[0]):
        out[i] = np.dot(P[i], R)
    return out


def int_products(A, M):
    acc = np.zeros(M.shape[1], dtype=A.dtype)
    for i in range(A.shape[0]):
        acc += A[i] @ M
    return acc


def first_columns(X):
    acc = np.zeros((X.shape[1], 3))
    for i in range(X.shape[0]):
        acc[:, 0] += X[i]
        acc[:, 2] -= X[i] * 0.5
        acc[1, 1:] -= X[i, :2]
    return acc


def row_view_updated(A, n):
    acc = 0.0
    for i in range(n):
        row = A[1, :]
        row += 1.0
        col = A[:, 2]
        acc += A[1, 2] + col[0]
    return acc, A


def aliased_scores(W, X):
    out = np.zeros(W.shape[1])
    for i in range(X.shape[0]):
        s = X[i].dot(W)
        t = s
        s -= 1.0
        out += t
    return out


def first_mismatch(read, ref, offset):
    i = 0
    while i < read.shape[0]:
        if read[i] != ref[offset + i]:
            return i
        i += 1
    return -1


def best_offsets(reads, ref):
    out = np.zeros(reads.shape[0], dtype=np.int64)
    for r in range(reads.shape[0]):
        best, best_len = -1, -1
        for off in range(ref.shape[0] - reads.shape[1] + 1):
            mm = first_mismatch(reads[r], ref, off)
            run = reads.shape[1] if mm < 0 else mm
            if run > best_len:
                best_len, best = run, off
        out[r] = best
    return out


def row_on_paths(X):
    total = 0.0
    for i in range(X.shape[0]):
        row = X[i]
        if row[0] > 0.5:
            total += row[3] * 2.0
        else:
            total -= row.sum()
    return total


def row_across_update(X):
    total = 0.0
    for i in range(X.shape[0]):
        row = X[i]
        if row[0] > 0.5:
            X[i, 1] = -1.0
        total += row.sum()
    return total, X


def _classes(rng, n=30, d=10, c=4):
    return rng.standard_normal((d, c)) * 0.1, rng.standard_normal((n, d)), rng.integers(0, c, n)


@pytest.mark.parametrize("fn", [svm_naive, softmax_naive])
def test_classifier_loops_are_native(fn):
    agrees(fn, *_classes(np.random.default_rng(0)))


def test_matrix_times_row_and_carried_state():
    rng = np.random.default_rng(1)
    args = (rng.standard_normal((5, 12)), rng.standard_normal((5, 5)) * 0.3,
            rng.standard_normal((20, 12)))
    agrees(rnn_states, *args)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_short_row_times_matrix(dtype):
    rng = np.random.default_rng(2)
    P = rng.standard_normal((25, 3)).astype(dtype)
    R = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 2.0]])
    rtol = 1e-6 if dtype == np.float64 else 1e-5
    agrees(rotate_points, P, R, rtol=rtol)
    agrees(rotate_points, P, R.astype(np.float32), rtol=rtol)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8])
def test_integer_products_wrap_as_numpy(dtype):
    rng = np.random.default_rng(3)
    A = rng.integers(0, 200, (30, 11)).astype(dtype)
    M = rng.integers(0, 200, (11, 3)).astype(dtype)
    assert_behaves_as_numpy(int_products, A, M)
    agrees(int_products, A, M)


def test_mismatched_lengths_raise_numpys_error():
    rng = np.random.default_rng(4)
    with pytest.raises(ValueError):
        int_products(rng.standard_normal((5, 11)), rng.standard_normal((10, 3)))
    assert_behaves_as_numpy(int_products, rng.standard_normal((5, 11)),
                            rng.standard_normal((10, 3)), compiled_code=False)


def test_constant_positions_update_in_place():
    X = np.random.default_rng(5).standard_normal((40, 6))
    agrees(first_columns, X)


def test_constant_row_held_as_a_view_stays_compiled():
    assert_behaves_as_numpy(row_view_updated, np.arange(12.0).reshape(3, 4), 20)


def test_updated_product_seen_through_its_alias():
    rng = np.random.default_rng(6)
    agrees(aliased_scores, rng.standard_normal((10, 4)), rng.standard_normal((15, 10)),
           native=False)


def test_row_read_in_a_helpers_while():
    rng = np.random.default_rng(7)
    ref = rng.integers(0, 4, 60).astype(np.uint8)
    reads = np.stack([ref[a:a + 12] for a in rng.integers(0, 48, 8)])
    reads[rng.random(reads.shape) < 0.1] ^= 1
    assert_behaves_as_numpy(best_offsets, reads, ref, compiled_code=False)


def test_row_read_on_both_paths_is_native():
    X = np.random.default_rng(9).random((30, 10))
    agrees(row_on_paths, X)


def test_row_read_after_a_path_updated_its_array():
    X = np.random.default_rng(8).random((12, 10))
    assert_behaves_as_numpy(row_across_update, X, compiled_code=False)


@seed(20)
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(1, 16), st.integers(1, 8), st.integers(1, 6),
       st.sampled_from([np.float64, np.float32, np.int64]))
def test_products_match_numpy(n, m, rows, dtype):
    rng = np.random.default_rng(n * 100 + m)
    X = (rng.standard_normal((rows, n)) * 5).astype(dtype)
    W = (rng.standard_normal((n, m)) * 5).astype(dtype)
    rtol = 1e-5 if dtype == np.float32 else 1e-9
    agrees(int_products, X, W, rtol=rtol, native=False)
    agrees(rnn_like_transposed, W.T.copy(), X, rtol=rtol, native=False)


def rnn_like_transposed(Wt, X):
    acc = np.zeros(Wt.shape[0])
    for i in range(X.shape[0]):
        acc = acc * 0.5 + np.matmul(Wt, X[i])
    return acc
