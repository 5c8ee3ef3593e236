"""Inputs for the kernels of `user_kernels_dicts.py`: (name, function, make inputs(rng, scale))."""

from __future__ import annotations

import numpy as np
import user_kernels_dicts as Dc


def _adj(rng, s, p=0.08):
    n = 40 * s
    adj = rng.random((n, n)) < p
    return adj | adj.T


def _edges(rng, s):
    n = 60 * s
    return rng.integers(0, n, (40 * s, 2)), n


DICT_CASES = [
    ("bfs_levels_visited_set", Dc.bfs_levels_visited_set, lambda r, s: (_adj(r, s), 0)),
    ("dfs_order_stack", Dc.dfs_order_stack, lambda r, s: (_adj(r, s), 0)),
    ("bin_counts_get", Dc.bin_counts_get,
     lambda r, s: (r.standard_normal(300 * s) * 3.0, 0.5)),
    ("label_counts_membership", Dc.label_counts_membership,
     lambda r, s: (r.integers(0, 12, 400 * s),)),
    ("defaultdict_sums", Dc.defaultdict_sums,
     lambda r, s: (r.integers(0, 20, 300 * s), r.random(300 * s))),
    ("recode_with_table", Dc.recode_with_table,
     lambda r, s: (r.integers(0, 10, 500 * s), {k: 3 * k + 1 for k in range(0, 10, 2)})),
    ("union_find_dict", Dc.union_find_dict, lambda r, s: _edges(r, s)),
    ("two_sum_dict", Dc.two_sum_dict,
     lambda r, s: (r.integers(0, 1000, 200 * s), 1500)),
    ("dedup_keep_order", Dc.dedup_keep_order, lambda r, s: (r.integers(0, 50, 400 * s),)),
    ("lru_misses", Dc.lru_misses, lambda r, s: (r.integers(0, 16, 300 * s), 6)),
    ("fifo_queue_pop0", Dc.fifo_queue_pop0, lambda r, s: (_adj(r, s), 0)),
    ("find_first_pair_tuple", Dc.find_first_pair_tuple,
     lambda r, s: (r.random((30 * s, 30 * s)), 0.995)),
    ("kept_row_means_f32", Dc.kept_row_means_f32,
     lambda r, s: (r.random((100 * s, 8)).astype(np.float32), 0.7)),
    ("path_length_dist", Dc.path_length_dist, lambda r, s: (r.random((200 * s, 3)),)),
    ("counter_most_common", Dc.counter_most_common,
     lambda r, s: (r.integers(0, 30, 400 * s),)),
]
