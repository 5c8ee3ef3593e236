"""Inputs for the kernels of `user_kernels_containers.py`: (name, function, make inputs(rng,
scale))."""

from __future__ import annotations

import numpy as np
import user_kernels_containers as Ct

CONTAINER_CASES = [
    ("greedy_descent_walk", Ct.greedy_descent_walk,
     lambda r, s: (np.round(r.random((16 * s, 16 * s)), 1), 40 * s)),
    ("nearest_of_three_centers", Ct.nearest_of_three_centers,
     lambda r, s: (r.integers(0, 4, (200 * s, 2)).astype(np.float64),
                   r.integers(0, 4, (3, 2)).astype(np.float64))),
    ("rank_four_bids", Ct.rank_four_bids, lambda r, s: (r.random((100 * s, 4)),)),
    ("best_window_start", Ct.best_window_start, lambda r, s: (r.standard_normal(64), 8)),
    ("weakest_link_pairs", Ct.weakest_link_pairs,
     lambda r, s: (np.round(r.random(80 * s), 1),)),
    ("longest_run_record", Ct.longest_run_record,
     lambda r, s: (np.repeat(r.integers(0, 5, 30 * s), r.integers(1, 6, 30 * s)),)),
    ("top_scoring_events", Ct.top_scoring_events,
     lambda r, s: (np.cumsum(r.random(200 * s)), np.round(r.random(200 * s), 2), 0.7)),
    ("cheapest_edges_first", Ct.cheapest_edges_first,
     lambda r, s: (np.where(r.random((20 * s, 20 * s)) < 0.3,
                            np.round(r.random((20 * s, 20 * s)), 2), 0.0),)),
    ("greedy_knapsack_by_ratio", Ct.greedy_knapsack_by_ratio,
     lambda r, s: (np.round(r.random(120 * s), 2) + 0.1, np.round(r.random(120 * s), 2) + 0.1,
                   10.0 * s)),
    ("farthest_point_seed", Ct.farthest_point_seed,
     lambda r, s: (np.round(r.random((150 * s, 2)), 1),)),
]
