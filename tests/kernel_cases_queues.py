"""Inputs for the kernels of `user_kernels_queues.py`: (name, function, make inputs(rng, scale))."""

from __future__ import annotations

import numpy as np
import user_kernels_queues as Q


def _grid(rng, s, wall=0.25):
    n = 24 * s
    grid = (rng.random((n, n)) < wall).astype(np.int8)
    grid[0, 0] = 0
    return grid


def _csr(rng, s, most=4):
    n = 300 * s
    deg = rng.integers(0, most + 1, n)
    indptr = np.concatenate([[0], np.cumsum(deg)])
    return indptr, rng.integers(0, n, indptr[-1])


def _weighted(rng, s):
    indptr, indices = _csr(rng, s)
    return indptr, indices, rng.random(len(indices))


def _dag(rng, s):
    indptr, indices = _csr(rng, s)
    src = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    return indptr, np.where(indices > src, indices, np.minimum(src + 1, len(indptr) - 2))


QUEUE_CASES = [
    ("grid_bfs_steps", Q.grid_bfs_steps, lambda r, s: (_grid(r, s), 0, 0)),
    ("csr_bfs_levels", Q.csr_bfs_levels, lambda r, s: (*_csr(r, s), 0)),
    ("dijkstra_csr", Q.dijkstra_csr, lambda r, s: (*_weighted(r, s), 0)),
    ("prim_mst_cost", Q.prim_mst_cost, lambda r, s: _weighted(r, s)),
    ("kahn_topological_order", Q.kahn_topological_order, lambda r, s: _dag(r, s)),
    ("sliding_window_max", Q.sliding_window_max, lambda r, s: (r.standard_normal(500 * s), 16)),
    ("streaming_top_k_mean", Q.streaming_top_k_mean,
     lambda r, s: (r.standard_normal(400 * s), 10)),
    ("count_islands_deque", Q.count_islands_deque,
     lambda r, s: ((r.random((20 * s, 20 * s)) < 0.4).astype(np.int64),)),
    ("run_length_pairs", Q.run_length_pairs, lambda r, s: (r.integers(0, 3, 300 * s),)),
    ("merge_sorted_runs", Q.merge_sorted_runs,
     lambda r, s: tuple(np.sort(r.standard_normal(k * 40 * s)) for k in (1, 2, 3))),
]
