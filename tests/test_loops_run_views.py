"""Slices with loop-value bounds bound to locals inside loop ops (`loops/runs.py`): updated
in place through the local (`v = H[k + 1:, k]; v /= 2.0` reaches `H`, as NumPy's view
does), held across a branch on the data (`x = H[k + 1:, k].copy()` read on both paths of
`... if x[0] != 0 else ...`, `if vnorm == 0: continue`), `np.linalg.norm` of one, and a
block times a run of bounds written elsewhere (Householder reduction to Hessenberg form),
against NumPy on random data (fixed seed): values, arguments afterwards, one loop op and no
graph break."""

from __future__ import annotations

import copy

import ember
import numpy as np
import pytest
from conftest import RecordingBackend, assert_same


def halved_below_diagonal(H):
    out = np.zeros(H.shape[0])
    for k in range(H.shape[0] - 1):
        v = H[k + 1:, k]
        v /= 2.0
        v -= H[k, k]
        out[k] = H[k + 1:, k].sum() + v.sum()
    return out, H


def hessenberg(A):
    H = A.copy()
    n = H.shape[0]
    for k in range(n - 2):
        x = H[k + 1:, k].copy()
        alpha = -np.sign(x[0]) * np.linalg.norm(x) if x[0] != 0 else -np.linalg.norm(x)
        v = x
        v[0] -= alpha
        vnorm = np.linalg.norm(v)
        if vnorm == 0:
            continue
        v /= vnorm
        H[k + 1:, k:] -= 2.0 * np.outer(v, v @ H[k + 1:, k:])
        H[:, k + 1:] -= 2.0 * np.outer(H[:, k + 1:] @ v, v)
    return H


def norms_of_tails(A):
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        tail = A[i, i:]
        out[i] = np.linalg.norm(tail) if tail[0] > 0.5 else np.linalg.norm(A[i:, i] * 2.0)
    return out


def shifted_products(M, x):
    out = np.zeros(M.shape[0])
    for j in range(1, M.shape[0]):
        out[j] = (M[:j, 1:j + 1] @ x[:j]).sum()
    return out


def _loop_ops(graph):
    return sum(1 + sum(_loop_ops(node.attrs[k]) for k in ("body", "then", "else")
                       if k in node.attrs)
               if node.op in ("loop", "if") else 0 for node in graph.nodes)


CASES = [
    (halved_below_diagonal, lambda r: (r.random((11, 11)),)),
    (hessenberg, lambda r: (r.random((9, 9)),)),
    (hessenberg, lambda r: (np.triu(r.random((9, 9))),)),  # columns already reduced
    (norms_of_tails, lambda r: (r.random((12, 12)),)),
    (norms_of_tails, lambda r: (r.random((10, 10)).astype(np.float32),)),
    (shifted_products, lambda r: (r.random((10, 12)), r.random(12))),
]


@pytest.mark.parametrize("fn,make", CASES, ids=[f"{c[0].__name__}-{i}"
                                                for i, c in enumerate(CASES)])
def test_run_locals_match_numpy_as_loop_ops(fn, make):
    ember.reset()
    recorder = RecordingBackend("cranelift")
    compiled = ember.compile(fn, backend=recorder)
    for salt in range(2):
        args = make(np.random.default_rng(salt))
        tolerance = 1e-5 if args[0].dtype == np.float32 else 1e-9
        want_in, got_in = copy.deepcopy(args), copy.deepcopy(args)
        assert_same(compiled(*got_in), fn(*want_in), rtol=tolerance, atol=tolerance)
        for g, w in zip(got_in, want_in, strict=True):
            assert_same(g, w, rtol=tolerance, atol=tolerance, path="argument")
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["region_recaptures"] == 0 and not stats["backend_fallbacks"], stats
    assert _loop_ops(recorder.graphs[0]) >= 1
