"""Slices with run-time bounds of axes whose size changes from call to call, inside loops:
`L[i, :i] @ y[:i]`, `x[k:].mean()`, `A[i, :] @ x`, `A[:, j].max()`, `np.sum(A[i] ** 2)`.
Once the size changed, the body reads the symbolic size as a value (`loops/sizes.py`: the
pseudo-local `.size#s0` each body takes), so the loop stays one loop op for every size and
the function compiles twice from size 2 up; every call equals NumPy (values, arguments
afterwards, exceptions). Then run arithmetic these loops need whatever the sizes: `**`,
`//`, `%`, `.mean()`/`np.mean`, and a 1-d array of the frame meeting a run in `@` or
`np.dot` (its length checked against the run's at run time)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same
from test_dynamic_rows import check_sizes
from user_kernels_windows import back_solve, forward_solve


def mat_vec_loop(A, x):
    n = A.shape[0]
    y = np.zeros(n)
    for i in range(n):
        y[i] = A[i, :] @ x
    return y


def row_norms(A):
    out = np.empty(A.shape[0])
    for i in range(A.shape[0]):
        out[i] = np.sqrt(np.sum(A[i] ** 2))
    return out


def col_max(A):
    m = A.shape[1]
    out = np.empty(m)
    for j in range(m):
        out[j] = A[:, j].max()
    return out


def gauss_seidel(A, b, iters):
    x = np.zeros_like(b)
    n = len(b)
    for _ in range(iters):
        for i in range(n):
            s = A[i, :i] @ x[:i] + A[i, i + 1:] @ x[i + 1:]
            x[i] = (b[i] - s) / A[i, i]
    return x


def cumulative_rows(A):
    B = A.copy()
    for i in range(1, A.shape[0]):
        B[i] += B[i - 1]
    return B


def prefix_dot(x, y):
    out = np.empty(len(x))
    for k in range(len(x)):
        out[k] = np.dot(x[:k + 1], y[:k + 1])
    return out


def tail_means(x):
    out = np.empty(len(x))
    for k in range(len(x)):
        out[k] = x[k:].mean()
    return out


def window_means_int(x):
    out = np.zeros(len(x))
    for k in range(2, len(x)):
        out[k] = np.mean(x[k - 2:k + 1])
    return out


def powers_and_remainders(x):
    t = 0.0
    for k in range(1, len(x)):
        t += np.sum(x[:k] ** 2 % 3.0) + np.sum(x[k:] // 0.25)
    return t


def dot_with_whole(x, w):
    out = np.empty(len(x))
    for k in range(len(x)):
        out[k] = np.dot(x[k:k + 3], w) if k + 3 <= len(x) else 0.0
    return out


def _square(n, rng):
    return rng.random((n, n)) + n * np.eye(n)


CASES = [
    (mat_vec_loop, lambda n, r: (r.random((n, n)), r.random(n))),
    (row_norms, lambda n, r: (r.random((n, n)),)),
    (col_max, lambda n, r: (r.random((n, n + 1)),)),
    (gauss_seidel, lambda n, r: (_square(n, r), r.random(n), 3)),
    (cumulative_rows, lambda n, r: (r.random((n, n)),)),
    (forward_solve, lambda n, r: (np.tril(_square(n, r)), r.random(n))),
    (back_solve, lambda n, r: (np.triu(_square(n, r)), r.random(n))),
    (prefix_dot, lambda n, r: (r.random(n), r.random(n))),
    (tail_means, lambda n, r: (r.random(n),)),
    (window_means_int, lambda n, r: (r.integers(-50, 50, n),)),
    (powers_and_remainders, lambda n, r: (r.random(n) * 4 - 2,)),
]


def _check(fn, make, sizes, backend="cranelift"):
    return check_sizes(fn, make, sizes, backend, rtol=1e-9)


@pytest.mark.parametrize("fn, make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_loops_over_symbolic_runs_compile_twice(fn, make):
    stats = _check(fn, make, (4, 5, 6, 9, 3, 30, 2, 17))
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]


@pytest.mark.parametrize("fn, make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_loops_over_symbolic_runs_at_every_size(fn, make):
    _check(fn, make, (4, 5, 0, 1, 2, 7, 1, 0, 3))


@pytest.mark.parametrize("fn, make", CASES[:5], ids=[f.__name__ for f, _ in CASES[:5]])
def test_loops_over_symbolic_runs_on_the_eager_backend(fn, make):
    _check(fn, make, (4, 5, 0, 1, 8), backend="eager")


def test_a_whole_array_of_another_length_raises_as_numpy_does():
    """`np.dot(x[k:k + 3], w)` with `w` of 2 elements: NumPy's ValueError, from Python."""
    compiled = ember.compile(dot_with_whole)
    for n in (5, 6, 7):
        x, w = np.arange(float(n)), np.ones(2)
        with pytest.raises(ValueError):
            dot_with_whole(x, w)
        with pytest.raises(ValueError):
            compiled(x, w)
        assert_same(compiled(x, np.ones(3)), dot_with_whole(x, np.ones(3)), rtol=1e-12)


def test_the_mean_of_an_empty_run_warns_as_numpy_does():
    def empty_tail(x):
        out = np.empty(len(x) + 1)
        for k in range(len(x) + 1):
            out[k] = x[k:].mean()
        return out

    x = np.arange(5.0)
    with pytest.warns(RuntimeWarning):
        want = empty_tail(x)
    with pytest.warns(RuntimeWarning):
        got = ember.compile(empty_tail)(x)
    assert_same(got, want, rtol=1e-12)


def test_mask_assignment_of_a_symbolic_array_is_captured():
    def clip_inverse(a):
        r = a * 2.0
        r[r > 1] = r[r > 1] ** -1.5
        r[r < 0.2] = 7
        return r

    stats = _check(clip_inverse, lambda n, r: (r.random(n),), (5, 6, 7, 8, 30))
    assert stats["graph_breaks"] == 0 and stats["captures"] == 2, stats["break_reasons"]


def box3(x):
    n = len(x)
    out = np.zeros(n - 2)
    for i in range(n - 2):
        out[i] = x[i:i + 3].sum()
    return out


def clipped_window(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i:i + 3].sum()  # NumPy's shorter slices at the end
    return out


def window_from_before(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i - 1:i + 1].sum()  # x[-1:1] at i = 0: empty
    return out


def conv_valid(img, k):
    H, W = img.shape
    K = k.shape[0]
    out = np.zeros((H - K + 1, W - K + 1))
    for i in range(H - K + 1):
        for j in range(W - K + 1):
            out[i, j] = np.sum(img[i:i + K, j:j + K] * k)
    return out


def conv_clipped(img, k):
    """2-d windows that pass the end on the last rows: each such call runs as Python."""
    H, W = img.shape
    out = np.zeros((H, W))
    for i in range(H):
        for j in range(W):
            out[i, j] = np.sum(img[i:i + 2, j:j + 2])
    return out


WINDOWS = [(box3, lambda n, r: (r.random(n + 2),)),
           (clipped_window, lambda n, r: (r.random(n),)),
           (window_from_before, lambda n, r: (r.random(n),)),
           (conv_valid, lambda n, r: (r.random((n + 3, n + 4)), r.random((3, 3))))]


@pytest.mark.parametrize("fn, make", WINDOWS, ids=[f.__name__ for f, _ in WINDOWS])
def test_windows_of_symbolic_axes_compile_twice(fn, make):
    """Fixed-length slices at loop positions of symbolic axes: a run where one axis is
    sliced (NumPy's clipping in the loop), a window whose end is checked at run time where
    two are (`windows.fixed_slice`)."""
    stats = _check(fn, make, (4, 5, 6, 9, 30, 17))
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]
    _check(fn, make, (0, 1, 2, 3, 4))


def test_windows_that_pass_the_end_of_a_symbolic_axis_run_as_python():
    stats = _check(conv_clipped, lambda n, r: (r.random((n, n + 1)), None), (4, 5, 6, 9))
    assert stats["graph_breaks"] == 0
