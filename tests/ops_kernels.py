"""Kernels built on gathers, scatters, sorting and counting, written as NumPy users write
them: shared by `tests/test_ops_kernels.py` (compiled against NumPy) and
`benches/indexing.py` (timed against NumPy and Numba)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def csr_matvec(indptr, indices, data, x):
    n = indptr.shape[0] - 1
    y = np.zeros(n)
    for i in range(n):
        s = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            s += data[k] * x[indices[k]]
        y[i] = s
    return y


def embedding_bag(table, ids, weights):
    rows = table[ids]
    return (rows * weights[:, None]).sum(axis=0)


def scatter_add(values, segments, out):
    np.add.at(out, segments, values)
    return out


def k_means_assign(points, centers):
    d = ((points[:, None, :] - centers[None, :, :]) ** 2).sum(axis=-1)
    labels = np.argmin(d, axis=1)
    counts = np.bincount(labels, minlength=centers.shape[0])
    return labels, counts


def top_k(scores):
    order = np.argsort(-scores, axis=1, kind="stable")[:, :8]
    return order, np.take_along_axis(scores, order, axis=1)


def row_median(x):
    s = np.sort(x, axis=1)
    n = x.shape[1]
    return 0.5 * (s[:, (n - 1) // 2] + s[:, n // 2])


def histogram(x):
    return np.histogram(x, bins=64, range=(-4.0, 4.0))


def bucketize(edges, x):
    return np.searchsorted(edges, x, side="right")


def clip_outliers(x):
    x[np.abs(x) > 3.0] = 0.0
    return x


def _csr(n: int, density: float, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    mask = rng.random((n, n)) < density
    indptr = np.concatenate([[0], np.cumsum(mask.sum(axis=1))]).astype(np.int64)
    indices = np.nonzero(mask)[1].astype(np.int64)
    return indptr, indices, rng.standard_normal(indices.size), rng.standard_normal(n)


def kernel_inputs(scale: int) -> dict[str, tuple[Callable[..., Any], tuple[Any, ...]]]:
    """Each kernel with inputs of a size growing with `scale` (1: a few elements)."""
    rng = np.random.default_rng(scale)
    n = 8 * scale
    return {
        "csr_matvec": (csr_matvec, _csr(n, 0.1, rng)),
        "embedding_bag": (embedding_bag, (rng.standard_normal((n, 16)),
                                          rng.integers(-n, n, 4 * n), rng.random(4 * n))),
        "scatter_add": (scatter_add, (rng.standard_normal(8 * n), rng.integers(0, n, 8 * n),
                                      np.zeros(n))),
        "k_means_assign": (k_means_assign, (rng.standard_normal((4 * n, 3)),
                                            rng.standard_normal((8, 3)))),
        "top_k": (top_k, (rng.standard_normal((scale, 64)),)),
        "row_median": (row_median, (rng.standard_normal((scale, 4 * n)),)),
        "histogram": (histogram, (rng.standard_normal(64 * n),)),
        "bucketize": (bucketize, (np.sort(rng.standard_normal(n)),
                                  rng.standard_normal(16 * n))),
        "clip_outliers": (clip_outliers, (rng.standard_normal(64 * n) * 2,)),
    }
