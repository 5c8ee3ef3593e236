"""Elements read from a view of static bounds inside a loop body (`seg = x[s:s + block]`,
then `seg[i]` for `i` in `range(len(seg))`; a column `A[:, j]`, a slice then squeezed): read
from the viewed array at `s + i * step` where the index is known to lie in the view, so the
body is element access only and runs as native code rather than taking the view on every
trip. Indices that may be negative or
past the slice keep Python's wrap-around and NumPy's IndexError."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from probe_harness import assert_behaves_as_numpy


def overlap_add(x, h, block):
    M = len(h)
    y = np.zeros(len(x) + M - 1)
    for start in range(0, len(x), block):
        seg = x[start:start + block]
        L = len(seg)
        conv = np.zeros(L + M - 1)
        for i in range(L):
            for j in range(M):
                conv[i + j] += seg[i] * h[j]
        y[start:start + L + M - 1] += conv
    return y


def interior_scaled(img, out):
    win = img[1:-1, 1:-1]
    for i in range(win.shape[0]):
        for j in range(win.shape[1]):
            out[i, j] = 2.0 * win[i, j] - img[i, j]
    return out


def even_odd_products(x):
    ev = x[::2]
    od = x[1::2]
    total = 0.0
    for i in range(len(od)):
        total += ev[i] * od[i]
    return total


def reversed_running(x):
    r = x[::-1]
    acc = np.zeros_like(x)
    s = 0
    for i in range(len(r)):
        s += r[i]
        acc[i] = s
    return acc


def viterbi_columns(delta, log_A, log_B, obs):
    S = log_A.shape[0]
    psi = np.zeros(delta.shape, dtype=np.int64)
    for t in range(1, delta.shape[0]):
        for j in range(S):
            scores = delta[t - 1] + log_A[:, j]
            psi[t, j] = np.argmax(scores)
            delta[t, j] = scores[psi[t, j]] + log_B[j, obs[t]]
    return delta, psi


def column_dots(A, x):
    out = np.zeros(A.shape[1], dtype=A.dtype)
    for j in range(A.shape[1]):
        col = A[:, j]
        s = 0
        for i in range(col.shape[0]):
            s += col[i] * x[i]
        out[j] = s
    return out


def wrapped_neighbour(x):
    seg = x[2:10]
    out = np.zeros(8)
    for i in range(8):
        out[i] = seg[i] - seg[i - 1]  # seg[-1] at i == 0: the slice's last element
    return out


def past_the_slice(x):
    seg = x[1:5]
    total = 0.0
    for i in range(4):
        total += seg[i + 1]  # seg[4] raises IndexError, though x[5] exists
    return total


def _slice_loads_in_bodies(graph, inside=False):
    """The `load`s in loop bodies (and their paths) of an element of a slice made there."""
    slices = {id(node.out) for node in graph.nodes if node.op in ("slice", "squeeze")}
    found = 0
    for node in graph.nodes:
        found += inside and node.op == "load" and id(node.inputs[0]) in slices
        for name in ("body", "then", "else"):
            region = node.attrs.get(name)
            if region is not None and hasattr(region, "nodes"):
                found += _slice_loads_in_bodies(region, True)
    return found


CASES = [
    (overlap_add, lambda r: (r.standard_normal(150), r.random(5), 32)),
    (interior_scaled, lambda r: (r.random((6, 7)), np.zeros((4, 5)))),
    (even_odd_products, lambda r: (r.random(21),)),
    (reversed_running, lambda r: (r.integers(-5, 5, 12).astype(np.int32),)),
    (viterbi_columns, lambda r: (np.log(r.random((20, 3))), np.log(r.random((3, 3))),
                                 np.log(r.random((3, 4))), r.integers(0, 4, 20))),
    (column_dots, lambda r: (r.integers(-9, 9, (7, 5)).astype(np.int16),
                             r.integers(-9, 9, 7).astype(np.int16))),
]


@pytest.mark.parametrize("fn,make", CASES, ids=[c[0].__name__ for c in CASES])
def test_slice_reads_in_bodies_like_numpy(fn, make):
    assert_behaves_as_numpy(fn, *make(np.random.default_rng(0)))


@pytest.mark.parametrize("fn,make", CASES, ids=[c[0].__name__ for c in CASES])
def test_slice_reads_in_bodies_take_no_slice(fn, make, recorder):
    args = make(np.random.default_rng(1))
    ember.compile(fn, backend=recorder)(*args)
    assert recorder.graphs and not any(_slice_loads_in_bodies(g) for g in recorder.graphs)


@pytest.mark.parametrize("fn", [wrapped_neighbour, past_the_slice])
def test_slice_reads_that_may_leave_the_slice_like_numpy(fn):
    assert_behaves_as_numpy(fn, np.arange(12.0) ** 2, compiled_code=False)
