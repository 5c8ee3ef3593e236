"""Rows, columns and fixed-size slices at a run-time index inside loop bodies (`pos[j]`,
`A[i, 1:-1]`, `path[:, k]`, `for row in X`): gathered as windows and scattered back, with
NumPy's view semantics (updates seen through the view, reads after the array changed,
errors) on both backends."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import RecordingBackend, assert_same
from hypothesis import given, settings
from hypothesis import strategies as st


def run_both(fn, *args, backend="eager"):
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = fn(*copies)
    inputs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got = ember.compile(fn, backend=backend)(*inputs)
    assert_same(got, want)
    for g, w in zip(inputs, copies, strict=True):
        if isinstance(w, np.ndarray):
            np.testing.assert_array_equal(g, w)
    return got


def loop_ops(recorder: RecordingBackend) -> int:
    return sum(1 for graph in recorder.graphs for node in graph.nodes if node.op == "loop")


def row_differences(pos):
    out = np.zeros(pos.shape[0])
    for i in range(pos.shape[0]):
        for j in range(pos.shape[0]):
            d = pos[j] - pos[i]
            out[i] += np.sqrt(d[0] * d[0] + d[1] * d[1])
    return out


def smooth_rows(A):
    for i in range(1, A.shape[0] - 1):
        A[i, 1:-1] += 0.5 * (A[i - 1, :-2] + A[i - 1, 2:]) - A[i + 1, 1:-1]
    return A


def add_columns(M):
    total = np.zeros(M.shape[0])
    for k in range(M.shape[1]):
        total += M[:, k] * k
    return total


def every_other(A):
    out = np.zeros((A.shape[0], (A.shape[1] + 1) // 2))
    for i in range(A.shape[0]):
        out[i] = A[i, ::2] * 2.0
        out[i, -1] = A[-1 - i, -1]
    return out


def planes(V):
    s = np.zeros((V.shape[1], V.shape[2]))
    for i in range(V.shape[0]):
        s = s + V[i] * V[V.shape[0] - 1 - i]
    return s


def rows_loop(X):
    total = np.zeros(X.shape[1])
    for row in X:
        total = total + row * row
    return total


def set_row(A, v):
    for i in range(A.shape[0]):
        A[i] = v + i
        A[i, 0] = -i
    return A


def stale_row(A):
    s = 0.0
    for i in range(A.shape[0]):
        r = A[i]
        A[i, 0] = 100.0
        s += r[0]
    return s


def update_through_row(A):
    for i in range(A.shape[0]):
        r = A[i]
        r += 1.0
    return A


def out_of_range_row(A, k):
    s = 0.0
    for i in range(A.shape[0]):
        s += A[i + k].sum()
    return s


def block_means(x):
    k = 3
    out = np.empty((x.shape[0] // k, x.shape[1] // 2))
    for i in range(x.shape[0] // k):
        for j in range(x.shape[1] // 2):
            out[i, j] = x[i * k:(i + 1) * k, 2 * j:2 * (j + 1)].mean()
    return out


def chunk_sums(x, k):
    out = np.zeros(len(x) // k)
    for i in range(len(x) // k):
        out[i] = np.sum(x[k * i + 1 - 1:k * (i + 1)]) - x[(i + 1) * k - 1]
    return out


def growing_chunks(x):
    s = 0.0
    for i in range(len(x) // 3):
        s += x[i * 2:(i + 1) * 3].sum()
    return s


CASES = [
    (block_means, lambda r, n: (r.random((n, n + 1)),)),
    (chunk_sums, lambda r, n: (r.random(4 * n + 1), 4)),
    (row_differences, lambda r, n: (r.random((n, 2)),)),
    (smooth_rows, lambda r, n: (r.random((n, n + 3)),)),
    (add_columns, lambda r, n: (r.random((n, n + 1)),)),
    (every_other, lambda r, n: (r.random((n, 2 * n + 1)),)),
    (planes, lambda r, n: (r.random((n, 3, 4)),)),
    (rows_loop, lambda r, n: (r.random((n, 12)),)),
    (set_row, lambda r, n: (r.random((n, 5)), r.random(5))),
]


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
@pytest.mark.parametrize("fn,make", CASES, ids=[c[0].__name__ for c in CASES])
def test_windows_match_numpy(fn, make, backend) -> None:
    for n in (9, 12):
        ember.reset()
        run_both(fn, *make(np.random.default_rng(n), n), backend=backend)


@pytest.mark.parametrize("fn,make", CASES, ids=[c[0].__name__ for c in CASES])
def test_windows_compile_to_loop_ops(fn, make, recorder) -> None:
    args = make(np.random.default_rng(0), 12)
    ember.compile(fn, backend=recorder)(*args)
    assert ember.stats()["graph_breaks"] == 0
    assert loop_ops(recorder) >= 1
    assert all(n <= 120 for n in recorder.op_counts)


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_chunks_of_growing_length_match_numpy(backend) -> None:
    """`x[i * 2:(i + 1) * 3]` is no fixed window (its length is `i + 3`)."""
    run_both(growing_chunks, np.random.default_rng(0).random(40), backend=backend)


@settings(max_examples=20, deadline=None, derandomize=True, database=None)
@given(n=st.integers(1, 30), k=st.integers(1, 6))
def test_chunks_any_length_and_factor(n: int, k: int) -> None:
    ember.reset()
    run_both(chunk_sums, np.random.default_rng(n * k).random(n), k, backend="cranelift")
    assert ember.stats()["graph_breaks"] == 0


@settings(max_examples=20, deadline=None, derandomize=True)
@given(n=st.integers(2, 14), m=st.integers(1, 20))
def test_row_sums_any_shape(n: int, m: int) -> None:
    ember.reset()
    run_both(rows_loop, np.random.default_rng(n * m).random((n, m)))
    run_both(add_columns, np.random.default_rng(n + m).random((m, n)))


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_row_read_after_its_array_changed_sees_the_change(backend) -> None:
    ember.reset()
    run_both(stale_row, np.random.default_rng(1).random((12, 4)), backend=backend)


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_row_updated_in_place_updates_the_array(backend) -> None:
    ember.reset()
    run_both(update_through_row, np.random.default_rng(2).random((12, 4)), backend=backend)


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_row_out_of_range_raises_numpys_index_error(backend) -> None:
    ember.reset()
    A = np.random.default_rng(3).random((12, 4))
    with pytest.raises(IndexError) as want:
        out_of_range_row(A, 1)
    with pytest.raises(IndexError) as got:
        ember.compile(out_of_range_row, backend=backend)(A, 1)
    assert str(got.value) == str(want.value)
    ember.reset()
    run_both(out_of_range_row, A, -3, backend=backend)



def vector_math(P, w):
    n = P.shape[0]
    out = np.zeros((n, 4))
    for i in range(n):
        d = P[i] - P[(i + 1) % n]
        e = -np.abs(d) * w[i % 3] + np.sqrt(d * d)
        out[i, 0] = d @ e + np.dot(d, d)
        out[i, 1] = e.max() - np.min(d) + e.sum() + np.prod(d)
        out[i, 2] = np.sum(d > 0.1) + (e <= d)[1]
        out[i, 3] = np.linalg.norm(d)
    return out


def vector_into_rows(P):
    Q = np.zeros_like(P)
    for i in range(1, P.shape[0]):
        Q[i] = P[i] * 2.0 - Q[i - 1]
        Q[i - 1, :] += P[i]
        Q[i, 1:] -= 0.5 * P[i - 1, :-1]
    return Q


def int_rows(M):
    total = np.zeros(M.shape[1], dtype=M.dtype)
    for i in range(M.shape[0]):
        total += M[i] * 3 - M[i] // 2
    return total


def computed_vector_updated(P):
    s = 0.0
    for i in range(P.shape[0]):
        f = P[i] * 1.0
        g = f
        f += 1.0
        s += g[0]
    return s


def stale_vector(P):
    s = 0.0
    for i in range(P.shape[0]):
        r = P[i]
        P[i, 1] = -1.0
        s += r[1]
    return s


def perceptron_rows(X, y, w):
    b = 0.0
    for i in range(X.shape[0]):
        if y[i] * (X[i] @ w + b) <= 0:
            w += 0.1 * y[i] * X[i]
            b += 0.1 * y[i]
    return w, b


def sgd_rows(X, y):
    w = np.zeros(X.shape[1], dtype=np.float32)
    for i in range(X.shape[0]):
        err = X[i].dot(w) - y[i]
        w -= 0.01 * err * X[i]
    return w, np.dot(w, X[0])


def int_weights_from_floats(X, w):
    for i in range(X.shape[0]):
        w += X[i] * 0.5  # float64 into int64: NumPy's casting error
    return w


VECTOR_CASES = [
    (perceptron_rows, lambda r, n: (r.standard_normal((n, 4)), np.where(r.random(n) < 0.5, -1.0, 1.0),
                                    np.zeros(4))),
    (sgd_rows, lambda r, n: (r.standard_normal((n, 3)).astype(np.float32), r.standard_normal(n))),
    (vector_math, lambda r, n: (r.random((n, 3)), r.random(3))),
    (vector_into_rows, lambda r, n: (r.random((n, 4)),)),
    (int_rows, lambda r, n: (r.integers(-50, 50, (n, 5)).astype(np.int32),)),
    (computed_vector_updated, lambda r, n: (r.random((n, 3)),)),
    (stale_vector, lambda r, n: (r.random((n, 3)),)),
]


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
@pytest.mark.parametrize("fn,make", VECTOR_CASES, ids=[c[0].__name__ for c in VECTOR_CASES])
def test_short_rows_as_vectors_match_numpy(fn, make, backend) -> None:
    for n in (10, 13):
        ember.reset()
        run_both(fn, *make(np.random.default_rng(n), n), backend=backend)


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_a_float_row_into_int_weights_raises_like_numpy(backend) -> None:
    X, w = np.random.default_rng(0).random((12, 3)), np.zeros(3, dtype=np.int64)
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output"):
        int_weights_from_floats(X, w.copy())
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output"):
        ember.compile(int_weights_from_floats, backend=backend)(X, w)
    assert not w.any()


@pytest.mark.parametrize("fn", [vector_math, vector_into_rows, int_rows, perceptron_rows,
                                sgd_rows])
def test_short_rows_compute_on_elements(fn, recorder) -> None:
    args = dict(VECTOR_CASES)[fn](np.random.default_rng(0), 12)
    ember.compile(fn, backend=recorder)(*args)
    assert ember.stats()["graph_breaks"] == 0 and loop_ops(recorder) >= 1
    body = [node for graph in recorder.graphs for loop in graph.nodes if loop.op == "loop"
            for node in loop.attrs["body"].nodes]
    assert any(node.op == "load" for node in body)
    if fn is vector_into_rows:  # rows read, computed and written back element by element
        assert all(not node.out.shape or node.op == "store" for node in body)


def window_across_branch(A, c):
    s = 0.0
    for i in range(A.shape[0]):
        r = A[i]
        if c[i] > 0.5:
            A[i, 0] = 100.0
            s += r[0]
        else:
            s -= r[1]
    return s


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_row_held_across_a_branch_that_updates_its_array(backend) -> None:
    r = np.random.default_rng(5)
    for width in (3, 20):
        ember.reset()
        run_both(window_across_branch, r.random((12, width)), r.random(12), backend=backend)


def forces_with_cutoff(pos, cutoff):
    f = np.zeros_like(pos)
    for i in range(pos.shape[0]):
        for j in range(pos.shape[0]):
            d = pos[i] - pos[j]
            r2 = d @ d
            if 0.0 < r2 < cutoff:
                f[i] += d / r2
            elif r2 > 0.5:
                f[i] -= 0.1 * d
    return f


def test_short_rows_cross_branches_as_elements(recorder) -> None:
    pos = np.random.default_rng(6).random((10, 3))
    for backend in ("eager", "cranelift"):
        ember.reset()
        run_both(forces_with_cutoff, pos, 0.3, backend=backend)
    ember.reset()
    ember.compile(forces_with_cutoff, backend=recorder)(pos, 0.3)
    assert ember.stats()["graph_breaks"] == 0 and loop_ops(recorder) >= 1
