"""Branches in loop bodies whose paths compute with whole arrays (`if len(members) > 0:
c[j] = members.mean(axis=0)`, `if err > tol: x = x - step`): one `if` op inside the loop op,
whose regions the native backend runs as graphs of their own, against NumPy on the native and
eager backends: values, dtypes, argument updates, warnings, and no graph break."""

from __future__ import annotations

import warnings

import ember
import numpy as np
import pytest
from conftest import RecordingBackend, assert_same
from user_kernels_others import kmeans


def cluster_means(X, labels, k):
    means = np.zeros((k, X.shape[1]))
    for j in range(k):
        members = X[labels == j]
        if members.shape[0] > 0:
            means[j] = members.mean(axis=0)
    return means


def damped_steps(A, b, x, steps):
    for _ in range(steps):
        r = b - A @ x
        if np.dot(r, r) > 1.0:
            x = x + 0.01 * r
        else:
            x = x + 0.1 * r - 0.001 * x
    return x


def rows_kept(M, lo):
    out = np.zeros(M.shape[1])
    count = 0
    for i in range(M.shape[0]):
        row = M[i]
        if row.min() > lo:
            out += np.sqrt(row)
            count += 1
    return out, count


def rescale_rows(M):
    for i in range(M.shape[0]):
        if M[i].sum() < 0:
            M[i] = -M[i] / 2
    return M


def _run(fn, args, backend):
    recorder = RecordingBackend(backend)
    compiled = ember.compile(fn, backend=recorder)
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        result = compiled(*copies)
    with warnings.catch_warnings(record=True) as want:
        warnings.simplefilter("always")
        expected = fn(*args)
    assert_same(result, expected)
    for a, b in zip(copies, args, strict=True):
        assert_same(a, b)
    assert [str(w.message) for w in got] == [str(w.message) for w in want]
    stats = ember.stats()
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]
    # One graph, holding the loop op whose body holds the `if`: nothing refused and unrolled.
    assert len(recorder.graphs) == 1
    assert any(n.op == "loop" for n in recorder.graphs[0].nodes)


@pytest.fixture(params=["cranelift", None], ids=["native", "eager"])
def backend(request):
    return request.param


def test_cluster_means_with_an_empty_cluster(backend) -> None:
    rng = np.random.default_rng(3)
    X = rng.random((50, 3))
    labels = rng.integers(0, 6, 50)
    labels[labels == 2] = 5  # cluster 2 is empty: the mean of nothing is never taken
    _run(cluster_means, (X, labels, 7), backend)


def test_kmeans_updates_its_argument(backend) -> None:
    rng = np.random.default_rng(4)
    X = rng.random((120, 2))
    _run(kmeans, (X, X[:4].copy(), 6), backend)


def test_both_paths_compute_with_arrays(backend) -> None:
    rng = np.random.default_rng(5)
    A = np.eye(6) + 0.1 * rng.random((6, 6))
    _run(damped_steps, (A, rng.random(6) * 3, np.zeros(6), 40), backend)


@pytest.mark.parametrize("lo", [-1.0, 0.2, 2.0])
def test_a_path_with_its_own_warning_runs_only_when_taken(backend, lo) -> None:
    rng = np.random.default_rng(6)
    M = rng.random((9, 5)) - 0.1  # sqrt of a negative row would warn: those rows are skipped
    _run(rows_kept, (M, lo), backend)


def test_rows_updated_in_place_on_one_path(backend) -> None:
    _run(rescale_rows, (np.random.default_rng(7).standard_normal((8, 4)),), backend)
