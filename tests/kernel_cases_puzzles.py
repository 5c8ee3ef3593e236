"""Inputs for the kernels of `user_kernels_puzzles.py`: (name, function, make inputs(rng, scale))."""

from __future__ import annotations

import numpy as np
import user_kernels_puzzles as Pz


def _walls(rng, s):
    n = 12 * s
    walls = rng.random((n, n)) < 0.25
    walls[0, 0] = walls[-1, -1] = False
    return walls


def _words(rng, n):
    words = [b"the", b"Quick", b"brown", b"fox", b"jumps", b"over", b"LAZY", b"dogs", b"a"]
    seps = [b" ", b" ", b"  ", b"\n", b"\t", b", "]
    parts = []
    for i in rng.integers(0, len(words), n):
        parts.append(words[i] + seps[rng.integers(0, len(seps))])
    return np.frombuffer(b"".join(parts), dtype=np.uint8)


def _bytes(rng, n):
    return np.frombuffer(rng.integers(0, 256, n, dtype=np.uint8).tobytes(), dtype=np.uint8)


def _runs(rng, s):
    return np.repeat(rng.integers(0, 4, 40 * s).astype(np.uint8), rng.integers(1, 9, 40 * s))


def _groups(rng, s):
    return rng.integers(0, 12, 300 * s), rng.standard_normal(300 * s)


def _sorted_keys(rng, n, hi, unique):
    if unique:
        return np.sort(rng.choice(hi, n, replace=False))
    return np.sort(rng.integers(0, hi, n))


def _intervals(rng, s):
    starts = rng.random(60 * s) * 100.0
    return starts, starts + rng.random(60 * s) * 4.0


def _graph(rng, s):
    n = 10 + s
    adj = rng.random((n, n)) < 0.25
    adj = adj | adj.T
    np.fill_diagonal(adj, False)
    return adj, rng.random(n)


def _kruskal(rng, s):
    n, m = 30 * s, 100 * s
    return n, rng.integers(0, n, m), rng.integers(0, n, m), rng.random(m)


PUZZLE_CASES = [
    ("flood_fill_stack", Pz.flood_fill_stack,
     lambda r, s: (r.integers(0, 2, (12 * s, 12 * s)).astype(np.int8), 3, 4, 7)),
    ("count_islands", Pz.count_islands,
     lambda r, s: ((r.random((14 * s, 14 * s)) < 0.45).astype(np.uint8),)),
    ("maze_shortest_path", Pz.maze_shortest_path,
     lambda r, s: (_walls(r, s), (0, 0), (12 * s - 1, 12 * s - 1))),
    ("bfs_flat_queue", Pz.bfs_flat_queue, lambda r, s: (_walls(r, s), 0)),
    ("life_roll_steps", Pz.life_roll_steps,
     lambda r, s: ((r.random((16 * s, 16 * s)) < 0.35).astype(np.uint8), 5)),
    ("life_modulo_loops", Pz.life_modulo_loops,
     lambda r, s: ((r.random((10 * s, 10 * s)) < 0.35).astype(np.uint8), 3)),
    ("seeds_life_bool", Pz.seeds_life_bool, lambda r, s: (r.random((16 * s, 16 * s)) < 0.1, 4)),
    ("elementary_ca_table", Pz.elementary_ca_table,
     lambda r, s: ((r.random(64 * s) < 0.5).astype(np.uint8), 110, 30)),
    ("majority_vote_ca", Pz.majority_vote_ca,
     lambda r, s: ((r.random(50 * s) < 0.5).astype(np.int8), 5)),
    ("rle_bytes_lists", Pz.rle_bytes_lists, lambda r, s: (_runs(r, s),)),
    ("count_words_spaces", Pz.count_words_spaces, lambda r, s: (_words(r, 40 * s),)),
    ("count_words_loop", Pz.count_words_loop, lambda r, s: (_words(r, 40 * s),)),
    ("caesar_shift", Pz.caesar_shift, lambda r, s: (_words(r, 40 * s), 3)),
    ("vigenere_encrypt", Pz.vigenere_encrypt,
     lambda r, s: (_words(r, 30 * s), np.frombuffer(b"lemon", dtype=np.uint8))),
    ("adler32_mod", Pz.adler32_mod, lambda r, s: (_bytes(r, 200 * s),)),
    ("fletcher32_words", Pz.fletcher32_words, lambda r, s: (_bytes(r, 1000 * s),)),
    ("pack_6bit_groups", Pz.pack_6bit_groups, lambda r, s: (_bytes(r, 300 * s),)),
    ("unpack_6bit_loop", Pz.unpack_6bit_loop,
     lambda r, s: (r.integers(0, 64, 200 * s).astype(np.uint8),)),
    ("fnv1a_rows", Pz.fnv1a_rows,
     lambda r, s: (r.integers(0, 256, (50 * s, 8), dtype=np.uint8),)),
    ("fnv1a_64_masked", Pz.fnv1a_64_masked, lambda r, s: (_bytes(r, 100 * s),)),
    ("xorshift64_stream", Pz.xorshift64_stream, lambda r, s: (88172645463325252, 100 * s)),
    ("hash_bucket_counts", Pz.hash_bucket_counts,
     lambda r, s: (r.integers(0, 2**32, 500 * s, dtype=np.uint32), 64)),
    ("sieve_primes_upto", Pz.sieve_primes_upto, lambda r, s: (1000 * s,)),
    ("totient_sieve", Pz.totient_sieve, lambda r, s: (300 * s,)),
    ("modpow_loop", Pz.modpow_loop,
     lambda r, s: (r.integers(0, 10**6, 200 * s), 65537 + s, 1_000_003)),
    ("gcd_table", Pz.gcd_table, lambda r, s: (20 * s,)),
    ("divisor_sums", Pz.divisor_sums, lambda r, s: (500 * s,)),
    ("subset_sums_dp", Pz.subset_sums_dp, lambda r, s: (r.random(9 + s),)),
    ("tsp_bitmask_dp", Pz.tsp_bitmask_dp, lambda r, s: (r.random((6 + s, 6 + s)),)),
    ("n_queens_bits", Pz.n_queens_bits, lambda r, s: (5 + s, r.random(3))),
    ("max_weight_independent_set", Pz.max_weight_independent_set, lambda r, s: _graph(r, s)),
    ("groupby_unique_bincount", Pz.groupby_unique_bincount, lambda r, s: _groups(r, s)),
    ("groupby_argsort_diff", Pz.groupby_argsort_diff, lambda r, s: _groups(r, s)),
    ("groupby_reduceat_sorted", Pz.groupby_reduceat_sorted,
     lambda r, s: (_sorted_keys(r, 300 * s, 40, False), r.standard_normal(300 * s))),
    ("merge_join_two_pointers", Pz.merge_join_two_pointers,
     lambda r, s: (_sorted_keys(r, 60 * s, 200 * s, True), r.random(60 * s),
                   _sorted_keys(r, 80 * s, 200 * s, True), r.random(80 * s))),
    ("merge_join_count", Pz.merge_join_count,
     lambda r, s: (_sorted_keys(r, 100 * s, 50, False), _sorted_keys(r, 80 * s, 50, False))),
    ("pivot_store_month", Pz.pivot_store_month,
     lambda r, s: (r.integers(0, 5, 400 * s), r.integers(0, 12, 400 * s),
                   r.gamma(2.0, 50.0, 400 * s), 5)),
    ("rolling_window_stats", Pz.rolling_window_stats,
     lambda r, s: (r.standard_normal(200 * s), 5)),
    ("rolling_median_view", Pz.rolling_median_view, lambda r, s: (r.standard_normal(200 * s), 7)),
    ("merge_intervals", Pz.merge_intervals, lambda r, s: _intervals(r, s)),
    ("merged_length", Pz.merged_length, lambda r, s: _intervals(r, s)),
    ("sweep_max_overlap", Pz.sweep_max_overlap, lambda r, s: _intervals(r, s)),
    ("meeting_rooms_loop", Pz.meeting_rooms_loop, lambda r, s: _intervals(r, s)),
    ("union_find_components", Pz.union_find_components,
     lambda r, s: (50 * s, r.integers(0, 50 * s, (40 * s, 2)))),
    ("kruskal_mst_weight", Pz.kruskal_mst_weight, lambda r, s: _kruskal(r, s)),
    ("percolates", Pz.percolates, lambda r, s: (r.random((10 * s, 10 * s)) < 0.6,)),
]
