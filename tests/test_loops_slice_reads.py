"""Elements read from a slice of static bounds inside a loop body (`seg = x[s:s + block]`,
then `seg[i]` for `i` in `range(len(seg))`): read from the sliced array at `s + i * step`
where the index is known to lie in the slice, so the body is element access only and runs
as native code rather than taking the slice on every trip. Indices that may be negative or
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
    slices = {id(node.out) for node in graph.nodes if node.op == "slice"}
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
