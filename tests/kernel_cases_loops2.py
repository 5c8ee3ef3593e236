"""Inputs for the kernels of `user_kernels_loops2.py`: (name, function, make inputs(rng, scale))."""

from __future__ import annotations

import user_kernels_loops2 as Lp

LOOPS2_CASES = [
    ("insertion_sort_desc", Lp.insertion_sort_desc, lambda r, s: (r.random(20 * s),)),
    ("gapped_insertion", Lp.gapped_insertion, lambda r, s: (r.standard_normal(30 * s), 3)),
    ("run_lengths_forward", Lp.run_lengths_forward,
     lambda r, s: (r.integers(0, 3, 40 * s),)),
    ("next_greater_scan", Lp.next_greater_scan, lambda r, s: (r.random(30 * s),)),
    ("insertion_sort_ints", Lp.insertion_sort_ints, lambda r, s: (r.integers(-50, 50, 25 * s),)),
]
LOOPS2_CASES += [
    ("compact_positive", Lp.compact_positive, lambda r, s: (r.standard_normal(40 * s),)),
    ("split_by_sign", Lp.split_by_sign, lambda r, s: (r.standard_normal(40 * s),)),
    ("pairs_below", Lp.pairs_below, lambda r, s: (r.random((6 * s, 6 * s)), 0.3)),
]
