"""Elementwise arithmetic on rows, columns and fixed-size slices at a loop index longer than a
vector, stored into such a window (`capture/loops/window_exprs.py`): against NumPy (values,
dtypes, arguments afterwards), compiled natively as one graph, and lowered to element
arithmetic (no array is computed on each trip of the loop)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import RecordingBackend, assert_same
from user_kernels_windows import conv2d_im2col


def column_recurrence(alpha, img):
    y = np.empty_like(img)
    y[:, 0] = alpha * img[:, 0]
    y[:, 1] = alpha * img[:, 1] + 0.5 * y[:, 0]
    for j in range(2, img.shape[1]):
        y[:, j] = alpha * img[:, j] + 0.25 * img[:, j - 1] + 0.5 * y[:, j - 1] - 0.125 * y[:, j - 2]
    return y


def row_recurrence_backwards(a, b):
    out = np.zeros_like(a)
    for i in range(a.shape[0] - 2, -1, -1):
        out[i, :] = a[i + 1, :] * b[i, :] + out[i + 1, :] / 3.0
    return out


def adi_like(p, q, a, b, c):
    n = p.shape[0]
    for j in range(1, p.shape[1]):
        p[1:n - 1, j] = -c / (a * p[1:n - 1, j - 1] + b)
        q[1:n - 1, j] = (q[1:n - 1, j - 1] * a - p[1:n - 1, j]) / 2.0
    return p, q


def inplace_add(acc, x):
    for j in range(1, x.shape[1]):
        acc[:, j] += x[:, j - 1] * 2.0 + acc[:, j - 1]
    return acc


def two_trips_back(x):
    for i in range(2, x.shape[0]):
        x[i, 1:-1] = x[i - 2, 1:-1] - x[i - 1, 1:-1] * 0.5
    return x


def float32_rows(x, s):
    for i in range(1, x.shape[0]):
        x[i, :] = x[i, :] * np.float32(0.5) + x[i - 1, :] * s + 1
    return x


def int_columns(m):
    for j in range(1, m.shape[1]):
        m[:, j] = m[:, j - 1] * 3 + m[:, j] // 2 - 1
    return m


def reads_and_writes_same_window(x, y):
    for j in range(x.shape[1]):
        x[:, j] = x[:, j] * x[:, j] + y[:, j]
    return x


def overlapping_shift(x):
    for j in range(x.shape[1]):
        x[1:, j] = x[:-1, j] + 1.0  # reads the target where it stores: evaluated first
    return x


def promotes_to_float64(x32, scale):
    out = np.zeros(x32.shape)
    for j in range(x32.shape[1]):
        out[:, j] = x32[:, j] * scale
    return out


def ufuncs_and_negation(x, y):
    for j in range(1, x.shape[1]):
        y[:, j] = np.maximum(np.exp(-x[:, j]) - y[:, j - 1], 0.25) + abs(x[:, j - 1] - 0.5)
    return y


def reshaped_expressions(x, out):
    for c in range(x.shape[0]):
        out[c] = (x[c, 1:, :-1] * 2.0 - x[c, :-1, 1:]).ravel()
        out[c + 1, :6] = x[c, 2:4, 1:4].reshape(6) + x[c, 0:3, 0:2].reshape((6,))
        out[c + 2, :6] = x[c, 0:2, 0:3].flatten() * 0.5
    return out


def row_closure(adj):
    reach = adj.copy()
    for k in range(reach.shape[0]):
        for i in range(reach.shape[0]):
            if reach[i, k]:
                reach[i] = reach[i] | reach[k]  # k == i on one trip: the same row
    return reach


def int_rows_from_other_rows(m, p):
    for k in range(m.shape[0]):
        i = p[k]
        m[i] ^= (m[k] << 1) & 0xFF  # another row, or the stored one at i == k
    return m


def thomas_planes(a, b, c, d):
    """The forward sweep of a tridiagonal solve along the last axis, every (i, j) column at
    once (a vertical advection step): `m` reads `cp` at k - 1, then `cp` is stored at k, and
    `m` is read again afterwards, as it was before that store."""
    cp = np.zeros_like(d)
    dp = np.zeros_like(d)
    cp[:, :, 0] = c[:, :, 0] / b[:, :, 0]
    dp[:, :, 0] = d[:, :, 0] / b[:, :, 0]
    for k in range(1, d.shape[2]):
        m = 1.0 / (b[:, :, k] - a[:, :, k] * cp[:, :, k - 1])
        cp[:, :, k] = c[:, :, k] * m
        dp[:, :, k] = (d[:, :, k] - a[:, :, k] * dp[:, :, k - 1]) * m
    return cp, dp


def reused_after_update(x, y):
    for j in range(1, x.shape[1]):
        s = x[:, j - 1] * 0.5 + 1.0
        x[:, j] = x[:, j] - s
        y[:, j] = s * s + x[:, j]
    return x, y


def _rng(seed):
    return np.random.default_rng(seed)


CASES = [
    (column_recurrence, lambda r: (0.75, r.random((12, 9)))),
    (row_recurrence_backwards, lambda r: (r.random((10, 11)), r.random((10, 11)))),
    (adi_like, lambda r: (r.random((11, 10)), r.random((11, 10)), -0.3, 1.7, 0.4)),
    (inplace_add, lambda r: (r.random((13, 9)), r.random((13, 9)))),
    (two_trips_back, lambda r: (r.random((10, 14)),)),
    (float32_rows, lambda r: (r.random((9, 12)).astype(np.float32), 0.25)),
    (int_columns, lambda r: (r.integers(-50, 50, (11, 8)).astype(np.int32),)),
    (reads_and_writes_same_window, lambda r: (r.random((12, 7)), r.random((12, 7)))),
    (overlapping_shift, lambda r: (r.random((12, 9)),)),
    (promotes_to_float64, lambda r: (r.random((10, 9)).astype(np.float32), np.float64(1.5))),
    (ufuncs_and_negation, lambda r: (r.random((12, 10)), r.random((12, 10)))),
    (conv2d_im2col, lambda r: (r.random((3, 9, 10)), r.random((4, 3, 3, 3)), r.random(4))),
    (reshaped_expressions, lambda r: (r.random((10, 5, 6)), np.zeros((12, 20)))),
    (row_closure, lambda r: (r.random((14, 14)) < 0.1,)),
    (int_rows_from_other_rows, lambda r: (r.integers(0, 256, (12, 10)),
                                          np.concatenate([r.integers(0, 12, 10), [10, 11]]))),
    (thomas_planes, lambda r: (r.random((5, 6, 9)), r.random((5, 6, 9)) + 3.0,
                               r.random((5, 6, 9)), r.random((5, 6, 9)))),
    (reused_after_update, lambda r: (r.random((12, 9)), r.random((12, 9)))),
]
# An expression still read after an update consumed an array it reads is built as an array
# before that update (`window_exprs._current`).
LOWERED = [c[0] for c in CASES
           if c[0] not in (overlapping_shift, thomas_planes, reused_after_update)]


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


@pytest.mark.parametrize("fn,make", CASES, ids=[c[0].__name__ for c in CASES])
def test_window_arithmetic_matches_numpy(fn, make):
    ember.reset()
    compiled = ember.compile(fn)
    for seed in range(2):
        args = make(_rng(seed))
        want_in, got_in = _copies(args), _copies(args)
        want, got = fn(*want_in), compiled(*got_in)
        assert_same(got, want, rtol=1e-6 if np.float32 in (
            getattr(a, "dtype", None) for a in args) else 1e-12)
        for g, w in zip(got_in, want_in, strict=True):
            if isinstance(w, np.ndarray):
                assert g.dtype == w.dtype
                np.testing.assert_allclose(g, w, rtol=1e-6)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["captures"] == stats["compiles"] == 1 and stats["entry_fallbacks"] == 0, stats
    assert not stats["backend_fallbacks"] and stats["region_recaptures"] == 0, stats


def _array_ops_in_loops(graph, inside=False):
    """Ops computing arrays inside loop bodies, other than the stores into carried arrays and
    the loop and if ops themselves."""
    found = []
    for node in graph.nodes:
        if inside and node.out.shape and node.op not in ("store", "loop", "if"):
            found.append(node.op)
        if node.op in ("loop", "if"):
            for key in ("body", "then", "else"):
                region = node.attrs.get(key)
                if region is not None:
                    found += _array_ops_in_loops(region, True)
    return found


@pytest.mark.parametrize("fn", LOWERED, ids=[f.__name__ for f in LOWERED])
def test_window_arithmetic_is_element_arithmetic(fn):
    ember.reset()
    recorder = RecordingBackend("cranelift")
    args = dict(CASES)[fn](_rng(0))
    ember.compile(fn, backend=recorder)(*_copies(args))
    assert len(recorder.graphs) == 1
    assert _array_ops_in_loops(recorder.graphs[0]) == []


def test_overlapping_store_keeps_numpys_order():
    ember.reset()
    x = _rng(3).random((12, 9))
    want = overlapping_shift(x.copy())
    got = ember.compile(overlapping_shift)(x.copy())
    np.testing.assert_array_equal(got, want)


def test_window_read_after_its_array_changed_is_the_old_values():
    def stale(x, y):
        for j in range(1, x.shape[1]):
            t = x[:, j - 1] * 2.0
            x[:, j - 1] = 0.0
            y[:, j] = t + x[:, j - 1]
        return x, y

    ember.reset()
    args = (_rng(4).random((10, 9)), _rng(5).random((10, 9)))
    want = stale(*_copies(args))
    got = ember.compile(stale)(*_copies(args))
    assert_same(got, want)


def test_store_of_values_read_before_the_target_changed():
    def older_target(x):
        for j in range(1, x.shape[1]):
            t = x[:, j] * 2.0
            x[:, j - 1] = 1.0
            x[:, j] = t + x[:, j - 1]
        return x

    ember.reset()
    x = _rng(6).random((11, 9))
    want = older_target(x.copy())
    got = ember.compile(older_target)(x.copy())
    assert_same(got, want)


def test_numpys_errors_stay_numpys():
    def int8_overflow(m):
        for j in range(1, m.shape[1]):
            m[:, j] = m[:, j - 1] * 300
        return m

    def float_into_int(m):
        for j in range(1, m.shape[1]):
            m[:, j] += m[:, j - 1] * 0.5
        return m

    for fn, dtype in ((int8_overflow, np.int8), (float_into_int, np.int64)):
        ember.reset()
        m = np.arange(99).reshape(11, 9).astype(dtype)
        with pytest.raises(Exception) as want:
            fn(m.copy())
        with pytest.raises(type(want.value)):
            ember.compile(fn)(m.copy())


def test_a_chain_of_squares_builds_each_element_once():
    def squares(x):
        for j in range(1, x.shape[1]):
            t = x[:, j - 1] * 0.5
            for _ in range(6):  # unrolled: twenty-four squarings of one expression
                t = t * t
                t = t * t
                t = t * t
                t = t * t
            x[:, j] = t + 1.0
        return x

    ember.reset()
    recorder = RecordingBackend("cranelift")
    x = _rng(7).random((10, 9))
    want = squares(x.copy())
    got = ember.compile(squares, backend=recorder)(x.copy())
    assert_same(got, want)
    assert _nodes(recorder.graphs[0]) < 1000


def _nodes(graph):
    return sum(1 + sum(_nodes(r) for r in (node.attrs.get(k) for k in ("body", "then", "else"))
                       if r is not None) for node in graph.nodes)


def reshaped_then_updated(x, full_rows):
    total = 0.0
    for i in range(x.shape[0]):
        r = x[i, 0:2, :].reshape(-1) if full_rows else x[i, 0:2, 0:3].reshape(-1)
        r += 1.0  # a view of x where NumPy's reshape could make one, else a copy
        total += r.sum()
    return total, x


@pytest.mark.parametrize("full_rows", [True, False])
def test_updating_a_reshaped_window_is_numpys_view_or_copy(full_rows):
    ember.reset()
    x = _rng(5).random((6, 4, 3))
    want = reshaped_then_updated(x.copy(), full_rows)
    got = ember.compile(reshaped_then_updated)(x.copy(), full_rows)
    assert_same(got, want)


# Windows no path of a branch reads (`ix` below is bound again on the next trip before it is
# read): the branch holds no copy of them, so the loop stays one loop op.

def windowed_solve(Ix, Iy, It, r):
    h, w = Ix.shape
    u = np.zeros((h, w))
    for i in range(r, h - r):
        for j in range(r, w - r):
            ix = Ix[i - r:i + r + 1, j - r:j + r + 1]
            iy = Iy[i - r:i + r + 1, j - r:j + r + 1]
            a, b, c = np.sum(ix * ix), np.sum(ix * iy), np.sum(iy * iy)
            p = np.sum(ix * It[i - r:i + r + 1, j - r:j + r + 1])
            det = a * c - b * b
            if det > 1e-3:
                u[i, j] = (c * p - b) / det
    return u


def _peak(w):
    return w.max() - w.mean()


def peaks_above(x, k, threshold):
    count = 0
    out = np.full(x.shape[0] - k + 1, -1.0, dtype=np.float32)
    for i in range(x.shape[0] - k + 1):
        w = x[i:i + k]
        p = _peak(w)
        if p < threshold:
            continue
        out[i] = p
        count += 1
    return out, count


def window_read_on_a_path(x, k):
    s = 0.0
    for i in range(x.shape[0] - k):
        w = x[i:i + k]
        if w[0] > 0.5:
            s += w.sum()  # read on the path: held as a copy, or the loop is not one op
        else:
            x[i + 1] = 0.0
    return s, x


def column_blocks(a, k):
    best = -np.inf
    hits = np.zeros(a.shape[1], dtype=np.int64)
    for j in range(a.shape[1] - k + 1):
        blk = a[:, j:j + k]
        m = blk.mean()
        if m > best:
            best = m
            hits[j] = 1
    return best, hits


WINDOWS_AT_BRANCHES = [
    (windowed_solve, lambda r: (r.random((9, 10)), r.random((9, 10)), r.random((9, 10)), 2)),
    (peaks_above, lambda r: (r.standard_normal(40).astype(np.float32), 5, 1.5)),
    (column_blocks, lambda r: (r.random((4, 12)), 3)),
]


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
@pytest.mark.parametrize("fn,make", WINDOWS_AT_BRANCHES,
                         ids=[c[0].__name__ for c in WINDOWS_AT_BRANCHES])
def test_windows_dead_at_a_branch_stay_in_one_loop_op(fn, make, backend):
    for seed in (1, 2):
        ember.reset()
        args = make(_rng(seed))
        want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        got = ember.compile(fn, backend=backend)(*args)
        assert_same(got, want)
        stats = ember.stats()
        assert stats["graph_breaks"] == 0 and stats["region_recaptures"] == 0, \
            stats["break_reasons"]


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_a_window_read_on_a_path_is_numpys_view(backend):
    for seed in (1, 2):
        ember.reset()
        x = _rng(seed).random(20)
        want = window_read_on_a_path(x.copy(), 4)
        assert_same(ember.compile(window_read_on_a_path, backend=backend)(x.copy(), 4), want)


def pool_backward_by_argmax(dout, x):
    dx = np.zeros_like(x)
    for c in range(x.shape[0]):
        for i in range(x.shape[1] // 2):
            for j in range(x.shape[2] // 2):
                window = x[c, 2 * i:2 * i + 2, 2 * j:2 * j + 2]
                a, b = np.unravel_index(np.argmax(window), window.shape)
                dx[c, 2 * i + a, 2 * j + b] += dout[c, i, j]
    return dx


def window_arg_extremes(x):
    first = np.zeros(x.shape[0] // 2, dtype=np.int64)
    last = np.zeros(x.shape[0] // 2, dtype=np.int64)
    for i in range(x.shape[0] // 2):
        w = x[2 * i:2 * i + 2, 1:4]
        first[i] = np.argmax(w)
        last[i] = w.argmin()
    return first, last


def row_argmin_cells(d, cols):
    cells = []
    for i in range(d.shape[0]):
        k = d[i, :cols].argmin()
        cells.append(np.unravel_index(k, (2, cols // 2)))
    return cells


def _ops_in_loops(graph, inside=False):
    found = set()
    for node in graph.nodes:
        if inside:
            found.add(node.op)
        for key in ("body", "then", "else"):
            region = node.attrs.get(key) if node.op in ("loop", "if") else None
            if region is not None:
                found |= _ops_in_loops(region, True)
    return found


def _ties_and_nans(rng, dtype):
    x = np.round(rng.standard_normal((16, 8)) * 2)
    x[0, 2] = x[2, 3] = x[3, 1] = np.nan
    x[5, 1] = x[5, 2] = x[4, 1] = 9.0
    if dtype == np.float64:
        return x
    return np.nan_to_num(x).astype(dtype)


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.bool_])
def test_argmax_of_a_window_is_element_arithmetic(backend, dtype):
    """np.argmax / argmin of a short window (a pooling window's argmax mask), and
    np.unravel_index of a 0-d index, in a loop body: NumPy's first extreme (the first NaN),
    with no array op on each trip (the loop runs natively, not as a graph per trip)."""
    rng = np.random.default_rng(3)
    x = _ties_and_nans(rng, dtype)
    cases = [(window_arg_extremes, (x,)),
             (pool_backward_by_argmax, (rng.random((2, 4, 4)), x.reshape(2, 8, 8))),
             (row_argmin_cells, (x, 4))]
    for fn, args in cases:
        ember.reset()
        recorder = RecordingBackend(backend)
        compiled = ember.compile(fn, backend=recorder)
        for _ in range(2):
            assert_same(compiled(*_copies(args)), fn(*_copies(args)))
        assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]
        found = _ops_in_loops(recorder.graphs[0])
        assert not {"argmax", "argmin", "arange", "gather"} & found, found


def test_an_unravelled_index_outside_the_shape_raises_in_a_loop():
    ember.reset()
    compiled = ember.compile(row_argmin_cells)
    d = np.where(np.arange(8) == 4, -1.0, np.random.default_rng(0).random((12, 8)))
    assert_same(compiled(d, 4), row_argmin_cells(d, 4))
    with pytest.raises(ValueError, match="index 4 is out of bounds for array with size 4"):
        row_argmin_cells(d, 5)
    with pytest.raises(ValueError, match="index 4 is out of bounds for array with size 4"):
        compiled(d, 5)
