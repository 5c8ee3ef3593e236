"""Slices whose bounds are loop values with more than one element along more than one axis
inside loop bodies (`capture/loops/blocks.py`, `windows.fixed_slice`,
`window_reductions.py`): n-d windows at a run-time offset (`img[i:i + K, j:j + K]`), 2-d
blocks of run-time shape (`A[k + 1:, k + 1:]`), `x[cols]` of a run of indices. Against NumPy
(values, dtype, shape, arguments afterwards) and captured as one graph whose loops are loop
ops: no graph break, no recapture, no eager fallback."""

from __future__ import annotations

import copy

import ember
import numpy as np
import pytest
import user_kernels_windows as W
from conftest import RecordingBackend, assert_same
from hypothesis import given, settings
from hypothesis import strategies as st


def _spd(rng, n):
    a = rng.random((n, n))
    return a @ a.T + n * np.eye(n)


def _csr(rng, n, density=0.2):
    dense = rng.random((n, n)) * (rng.random((n, n)) < density)
    indptr = np.concatenate([[0], np.cumsum((dense != 0).sum(axis=1))]).astype(np.int64)
    rows, cols = np.nonzero(dense)
    return dense[rows, cols], cols.astype(np.int64), indptr, rng.random(n)


def corner_products(A, w):
    """Negative and clipped bounds, and empty blocks (`A[-1:, :0]` on the first trip)."""
    n = A.shape[0]
    out = np.zeros(n)
    for k in range(n):
        out[k] = np.sum(A[-k - 1:, :k] @ w[:k])
    return out


def clipped_block_store(A, B):
    """`k:k + 3` passes the end on the last trips: NumPy clips the block."""
    n = A.shape[0]
    for k in range(n):
        B[k:k + 3, k:] = A[k:k + 3, k:] * 2.0 - B[k:k + 3, k:]
    return B


def block_sums(A):
    n = A.shape[0]
    out = np.zeros(n)
    for k in range(n):
        out[k] = A[k:, k] @ A[k, k:] + np.sum(A[k:, k:] @ A[k, k:])
    return out


def block_reductions(A):
    n = A.shape[0]
    out = np.zeros(n)
    for k in range(n):
        out[k] = A[k:, k:].sum() - np.sum(A[:k, k:], axis=0) @ A[k, k:] + np.sum(
            A[k:, :k + 1].T, axis=1).sum()
    return out


def clipped_window_sums(img, K):
    """`i:i + K` over every `i`: the last windows clip, so they are blocks of run-time
    shape."""
    H, W_ = img.shape
    out = np.zeros((H, W_))
    for i in range(H):
        for j in range(W_):
            out[i, j] = img[i:i + K, j:j + K].sum()
    return out


def channel_maxpool(x):
    C, H, W_ = x.shape
    out = np.empty((C, H // 2, W_ // 2), x.dtype)
    for i in range(H // 2):
        for j in range(W_ // 2):
            out[:, i, j] = np.max(x[:, 2 * i:2 * i + 2, 2 * j:2 * j + 2], axis=(1, 2))
    return out


def window_means(img, K):
    H, W_ = img.shape
    out = np.zeros((H - K + 1, W_ - K + 1), img.dtype)
    for i in range(H - K + 1):
        for j in range(W_ - K + 1):
            w = img[i:i + K, j:j + K]
            out[i, j] = w.mean() + w.min() - np.max(w)
    return out


def new_axis_conv(x, w):
    N, H, W_ = x.shape
    K = w.shape[0]
    out = np.zeros((N, H - K + 1, W_ - K + 1, w.shape[2]))
    for i in range(H - K + 1):
        for j in range(W_ - K + 1):
            out[:, i, j, :] = np.sum(x[:, i:i + K, j:j + K, np.newaxis] * w[np.newaxis],
                                     axis=(1, 2))
    return out


def clipped_window_extrema(img, r):
    H, W_ = img.shape
    out = np.empty((H, W_))
    for i in range(H):
        for j in range(W_):
            i0, i1 = max(i - r, 0), min(i + r + 1, H)
            j0, j1 = max(j - r, 0), min(j + r + 1, W_)
            out[i, j] = img[i0:i1, j0:j1].max() - np.min(img[i0:i1, j0:j1] * 2)
    return out


def _with_nans(r, shape):
    a = r.random(shape)
    a[r.random(shape) < 0.05] = np.nan
    return a


CASES = [
    (W.lu_outer, lambda r: (_spd(r, 20),)),
    (W.conv2d_window, lambda r: (r.random((21, 19)), r.random((3, 3)))),
    (W.conv2d_channels, lambda r: (r.random((3, 20, 18)), r.random((3, 4, 4)))),
    (W.maxpool_channels, lambda r: (r.random((3, 20, 22)),)),
    (W.cholesky_rows, lambda r: (_spd(r, 20),)),
    (W.gauss_solve, lambda r: (_spd(r, 20), r.random(20))),
    (W.gram_schmidt, lambda r: (r.random((20, 14)) + np.eye(20, 14),)),
    (W.householder_qr, lambda r: (r.random((20, 14)),)),
    (W.forward_solve, lambda r: (np.tril(_spd(r, 20)), r.random(20))),
    (W.back_solve, lambda r: (np.triu(_spd(r, 20)), r.random(20))),
    (W.spmv_slices, lambda r: _csr(r, 30)),
    (corner_products, lambda r: (r.random((16, 16)), r.random(16))),
    (clipped_block_store, lambda r: (r.random((14, 12)), r.random((14, 12)))),
    (block_sums, lambda r: (r.random((15, 15)),)),
    (channel_maxpool, lambda r: (r.random((3, 20, 18)).astype(np.float32),)),
    (window_means, lambda r: (r.random((20, 20)).astype(np.float32), 3)),
    (new_axis_conv, lambda r: (r.random((2, 14, 14)), r.random((3, 3, 4)))),
    (block_reductions, lambda r: (r.random((15, 15)),)),
    (clipped_window_sums, lambda r: (r.random((12, 11)), 3)),
    (clipped_window_extrema, lambda r: (_with_nans(r, (12, 11)), 1)),
    (clipped_window_extrema, lambda r: (r.integers(-9, 9, (10, 13)).astype(np.int16), 2)),
]


def _loop_ops(graph):
    return sum(1 + sum(_loop_ops(node.attrs[k]) for k in ("body", "then", "else")
                       if k in node.attrs)
               if node.op in ("loop", "if") else 0 for node in graph.nodes)


def _check(fn, args, rtol=1e-9):
    ember.reset()
    recorder = RecordingBackend("cranelift")
    compiled = ember.compile(fn, backend=recorder)
    want_in, got_in = copy.deepcopy(args), copy.deepcopy(args)
    want, got = fn(*want_in), compiled(*got_in)
    assert_same(got, want, rtol=rtol, atol=rtol)
    for g, w in zip(got_in, want_in, strict=True):
        assert_same(g, w, rtol=rtol, atol=rtol, path="argument")
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["region_recaptures"] == 0 and not stats["backend_fallbacks"], stats
    assert len(recorder.graphs) == 1 and _loop_ops(recorder.graphs[0]) >= 1
    return recorder.graphs[0]


def _tolerance(args):
    return 1e-5 if any(getattr(a, "dtype", None) == np.float32 for a in args) else 1e-9


@pytest.mark.parametrize("fn,make", CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_blocks_match_numpy_as_loop_ops(fn, make):
    for seed in range(2):
        args = make(np.random.default_rng(seed))
        _check(fn, args, _tolerance(args))


def empty_window_max(img):
    out = np.zeros(img.shape[0])
    for i in range(img.shape[0]):
        out[i] = img[i:, :i].max()
    return out


def test_an_empty_block_raises_numpys_error():
    img = np.random.default_rng(0).random((10, 10))
    with pytest.raises(ValueError) as want:
        empty_window_max(img)
    with pytest.raises(ValueError, match=str(want.value)):
        ember.compile(empty_window_max)(img)


def test_outer_loop_is_one_loop_op_whatever_its_trip_count():
    """The graph does not grow with the trip count: the outer loop is one loop op."""
    rng = np.random.default_rng(0)
    small = _check(W.lu_outer, (_spd(rng, 12),))
    large = _check(W.lu_outer, (_spd(rng, 60),))
    assert len(small.nodes) == len(large.nodes)
    assert [n.op for n in large.nodes].count("loop") == 1


@settings(max_examples=12, deadline=None, derandomize=True)
@given(h=st.integers(9, 24), w=st.integers(9, 24), k=st.integers(1, 5),
       f32=st.booleans(), seed=st.integers(0, 2**16))
def test_random_convolutions(h, w, k, f32, seed):
    rng = np.random.default_rng(seed)
    img, kernel = rng.standard_normal((h, w)), rng.standard_normal((k, k))
    if f32:
        img, kernel = img.astype(np.float32), kernel.astype(np.float32)
    _check(W.conv2d_window, (img, kernel), 1e-4 if f32 else 1e-9)


@settings(max_examples=10, deadline=None, derandomize=True)
@given(n=st.integers(9, 40), seed=st.integers(0, 2**16))
def test_random_factorisations(n, seed):
    rng = np.random.default_rng(seed)
    a = _spd(rng, n)
    _check(W.lu_outer, (a,), 1e-8)
    _check(W.cholesky_rows, (a,), 1e-8)


@settings(max_examples=10, deadline=None, derandomize=True)
@given(n=st.integers(9, 50), density=st.floats(0.0, 0.6), seed=st.integers(0, 2**16))
def test_random_sparse_products(n, density, seed):
    _check(W.spmv_slices, _csr(np.random.default_rng(seed), n, density))


def test_column_index_out_of_range_raises_numpys_error():
    data, indices, indptr, x = _csr(np.random.default_rng(1), 20, 0.5)
    indices[3] = 40
    with pytest.raises(IndexError) as want:
        W.spmv_slices(data, indices, indptr, x)
    with pytest.raises(IndexError):
        ember.compile(W.spmv_slices)(data, indices, indptr, x)
    assert "out of bounds" in str(want.value)


def test_right_side_reading_the_block_elsewhere_stays_numpys():
    """`np.outer` of a row and a column inside the stored block: NumPy computes it before
    storing, so the loop is not a loop op and runs as NumPy does."""

    def inside(A):
        for k in range(A.shape[0] - 1):
            A[k:, k:] -= np.outer(A[k:, k + 1], A[k + 1, k:]) * 0.01
        return A

    a = np.random.default_rng(2).random((12, 12))
    want = inside(a.copy())
    got = ember.compile(inside)(a.copy())
    assert_same(got, want)


def test_window_store_whose_reduction_reads_the_target_elsewhere():
    """A reduction's terms are other elements than the one stored: the store reads none of
    them from the array it updates, as NumPy computes the right side first."""

    def mixes_columns(y, w):
        for j in range(y.shape[1]):
            y[:, j] = np.sum(y[None, :, j] * w, axis=1)
        return y

    rng = np.random.default_rng(7)
    _check(mixes_columns, (rng.random((12, 10)), rng.random((12, 12))))


def rows_from_k(A, start):
    """Rows `i` from `k + start` updated by row `k`: with `start` 0 the first update reads
    its own row, which NumPy evaluates before storing."""
    n = A.shape[0]
    for k in range(n):
        for i in range(k + start, n):
            A[i, k:] -= 0.5 * A[k, k:]
        A[k:, k] -= A[k, :k + 1].sum() * 0.01
    return A


@pytest.mark.parametrize("start", [0, 1, 2])
def test_rows_updated_by_another_row(start):
    a = np.random.default_rng(8).random((12, 12))
    _check(rows_from_k, (a, start))


def updates_a_copy(A, B):
    out = np.zeros(A.shape[1])
    acc = np.zeros(A.shape[0])
    for j in range(A.shape[1]):
        v = A[:, j].copy()
        v -= B[:, j] * 0.5
        v[0] = 1.0
        acc += v * v
        out[j] = v.sum() + A[0, j]
    return out, acc


def test_in_place_update_of_a_copied_window():
    rng = np.random.default_rng(9)
    _check(updates_a_copy, (rng.random((12, 10)), rng.random((12, 10))))


def test_in_place_update_numpy_refuses_to_cast():
    def into_ints(B):
        m = np.zeros(B.shape[0], np.int64)
        for j in range(B.shape[1]):
            m -= B[:, j] * 0.5
        return m

    b = np.random.default_rng(10).random((12, 10))
    with pytest.raises(TypeError) as want:
        into_ints(b)
    with pytest.raises(TypeError) as got:
        ember.compile(into_ints)(b)
    assert type(got.value) is type(want.value)


def shifted_blocks(A, B, a, b, c, d):
    n = A.shape[0]
    out = np.zeros(n)
    for k in range(n):
        out[k] = A[k + a:k + b, c - k:d].sum()
        B[k + a:k + b, c - k:d] = A[k + a:k + b, c - k:d] * 2.0 - 1.0
    return out, B


@settings(max_examples=25, deadline=None, derandomize=True)
@given(bounds=st.lists(st.integers(-14, 14), min_size=4, max_size=4),
       seed=st.integers(0, 2**16))
def test_random_block_bounds_clip_and_wrap_as_numpy(bounds, seed):
    """Bounds past either end, negative ones counting from the end, empty blocks."""
    rng = np.random.default_rng(seed)
    _check(shifted_blocks, (rng.random((11, 12)), rng.random((11, 12)), *bounds))
