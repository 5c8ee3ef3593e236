"""Loop-style NumPy kernels written as NumPy users write them, with their inputs: shared by
tests/test_loops_kernels.py (checked against plain NumPy) and benches/loops.py (timed)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def recurrence(x):
    y = np.empty_like(x)
    y[0] = x[0]
    for i in range(1, x.shape[0]):
        y[i] = 0.9 * y[i - 1] + x[i]
    return y


def prefix_sum(x):
    out = np.zeros_like(x)
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
        out[i] = s
    return out


def stencil_1d(u, steps):
    n = u.shape[0]
    for _ in range(steps):
        v = u.copy()
        for i in range(1, n - 1):
            v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1]
        u = v
    return u


def jacobi_2d(u):
    for _ in range(50):
        u = u.copy()
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return u


def forward_substitution(L, b):
    n = b.shape[0]
    x = np.zeros_like(b)
    for i in range(n):
        s = b[i]
        for j in range(i):
            s -= L[i, j] * x[j]
        x[i] = s / L[i, i]
    return x


def back_substitution(U, b):
    n = b.shape[0]
    x = np.zeros_like(b)
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= U[i, j] * x[j]
        x[i] = s / U[i, i]
    return x


def cholesky(A):
    n = A.shape[0]
    L = np.zeros_like(A)
    for i in range(n):
        for j in range(i + 1):
            s = 0.0
            for k in range(j):
                s += L[i, k] * L[j, k]
            if i == j:
                L[i, j] = np.sqrt(A[i, i] - s)
            else:
                L[i, j] = (A[i, j] - s) / L[j, j]
    return L


def lu_no_pivoting(A):
    n = A.shape[0]
    A = A.copy()
    for k in range(n):
        for i in range(k + 1, n):
            A[i, k] = A[i, k] / A[k, k]
            for j in range(k + 1, n):
                A[i, j] -= A[i, k] * A[k, j]
    return A


def crc32(data):
    crc = 0xFFFFFFFF
    for i in range(data.shape[0]):
        crc ^= int(data[i])
        for _ in range(8):
            mask = -(crc & 1)
            crc = (crc >> 1) ^ (0xEDB88320 & mask)
    return crc ^ 0xFFFFFFFF


def edit_distance(a, b):
    n, m = a.shape[0], b.shape[0]
    D = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        D[i, 0] = i
    for j in range(m + 1):
        D[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + cost)
    return D[n, m]


def histogram(x, bins):
    h = np.zeros(bins, dtype=np.int64)
    for i in range(x.shape[0]):
        k = int(x[i] * bins)
        h[k] += 1
    return h


def horner(coef, t):
    r = 0.0
    for i in range(coef.shape[0]):
        r = r * t + coef[i]
    return r


def matmul_triple_loop(A, B):
    n, m = A.shape
    p = B.shape[1]
    C = np.zeros((n, p))
    for i in range(n):
        for j in range(p):
            s = 0.0
            for k in range(m):
                s += A[i, k] * B[k, j]
            C[i, j] = s
    return C


def floyd_warshall(D):
    n = D.shape[0]
    D = D.copy()
    for k in range(n):
        for i in range(n):
            for j in range(n):
                D[i, j] = min(D[i, j], D[i, k] + D[k, j])
    return D


def bubble_sort(a):
    a = a.copy()
    n = a.shape[0]
    for i in range(n):
        for j in range(n - 1 - i):
            if a[j] > a[j + 1]:
                t = a[j]
                a[j] = a[j + 1]
                a[j + 1] = t
    return a


def dot_by_loop(a, b):
    s = 0.0
    for k in range(a.shape[0]):
        s += a[k] * b[k]
    return s


def nbody_step(pos, vel, dt):
    n = pos.shape[0]
    acc = np.zeros_like(pos)
    for i in range(n):
        for j in range(n):
            if i != j:
                dx = pos[j, 0] - pos[i, 0]
                dy = pos[j, 1] - pos[i, 1]
                r2 = dx * dx + dy * dy + 0.01
                inv = 1.0 / (r2 * np.sqrt(r2))
                acc[i, 0] += dx * inv
                acc[i, 1] += dy * inv
    return pos + vel * dt, vel + acc * dt


def lcs_length(a, b):
    n, m = a.shape[0], b.shape[0]
    T = np.zeros((n + 1, m + 1), dtype=np.int32)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                T[i, j] = T[i - 1, j - 1] + 1
            else:
                T[i, j] = max(T[i - 1, j], T[i, j - 1])
    return T


def kernel_inputs(scale: int, seed: int = 0) -> dict[str, tuple[Callable[..., Any], tuple]]:
    """Every kernel with inputs of about `scale` elements a side."""
    rng = np.random.default_rng(seed)
    n = scale
    A = rng.random((n, n))
    spd = A @ A.T + n * np.eye(n)
    lower = np.tril(rng.random((n, n))) + n * np.eye(n)
    return {
        "recurrence": (recurrence, (rng.random(n * n),)),
        "prefix_sum": (prefix_sum, (rng.random(n * n),)),
        "stencil_1d": (stencil_1d, (rng.random(4 * n), 20)),
        "jacobi_2d": (jacobi_2d, (rng.random((n, n)),)),
        "forward_substitution": (forward_substitution, (lower, rng.random(n))),
        "back_substitution": (back_substitution, (lower.T.copy(), rng.random(n))),
        "cholesky": (cholesky, (spd,)),
        "lu_no_pivoting": (lu_no_pivoting, (spd,)),
        "crc32": (crc32, (rng.integers(0, 256, 4 * n).astype(np.uint8),)),
        "edit_distance": (edit_distance, (rng.integers(0, 4, n), rng.integers(0, 4, n - 3))),
        "lcs_length": (lcs_length, (rng.integers(0, 4, n), rng.integers(0, 4, n + 2))),
        "histogram": (histogram, (rng.random(10 * n), 16)),
        "horner": (horner, (rng.random(2 * n), 0.7)),
        "matmul_triple_loop": (matmul_triple_loop, (rng.random((n, n // 2)),
                                                    rng.random((n // 2, n)))),
        "floyd_warshall": (floyd_warshall, (rng.random((n, n)),)),
        "bubble_sort": (bubble_sort, (rng.random(n),)),
        "dot_by_loop": (dot_by_loop, (rng.random(4 * n), rng.random(4 * n))),
        "nbody_step": (nbody_step, (rng.random((n, 2)), rng.random((n, 2)), 0.01)),
    }
