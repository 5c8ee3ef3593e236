"""NumPy kernels written the way their users write them (`tests/user_kernels.py`), run
verbatim: plain NumPy, ember (`ember.compile`), and Numba's `njit` on the same source where
Numba compiles it. One process; medians of repeated runs on fresh copies of the inputs;
ratios are NumPy's time over the contender's (above 1: faster than NumPy). Results are
checked against NumPy's before timing; `first` is the first call (capture and compile).

    python benches/kernels.py [--scale N] [--first-only] [--loops] [kernel ...]

`--first-only` times only ember's first calls (no steady-state runs, no Numba); the summary
gives their distribution over the corpus either way (median, 90th percentile, max).
`--loops` runs `LOOP_KERNELS`, kernels whose time is spent in scalar loops (sorts, dynamic
programming, searches, graph walks, element-wise stencils), where Numba's speed on the same
source is the mark; the summary gives ember's geomean over Numba's on those it compiles.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import ember
from kernel_cases import CASES

try:
    numba = importlib.import_module("numba")
except ImportError:
    numba = None

LOOP_KERNELS = (
    "subset_sum_table bilateral_gray label_components median_by_quickselect lu_pivot "
    "bubble_sort edit_distance_dp n_queens dijkstra_dense binary_searches bspline_basis "
    "hopfield_recall seidel_2d insertion_sort selection_sort floyd_warshall lcs_table "
    "knapsack_01 longest_increasing coin_change gcd_pairs collatz_lengths primes_by_trial "
    "shell_sort heap_sort quickselect quicksort_stack merge_sort_bottom_up counting_sort "
    "matrix_chain_order rod_cutting longest_palindromic_subseq kmp_prefix smith_waterman "
    "union_find bellman_ford prim_mst crc32 xorshift32 mandel_real dtw_distance nussinov "
    "lcs_length needleman_wunsch"
).split()


def median_time(fn, inputs, budget: float = 1.0, repeats: int = 15) -> float:
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < repeats and (len(times) < 3 or time.perf_counter() - start < budget):
        args = copy.deepcopy(inputs)
        t = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _leaves(x):
    if isinstance(x, dict):
        return [leaf for key in sorted(x) for leaf in _leaves(x[key])]
    if isinstance(x, (tuple, list)):
        return [leaf for item in x for leaf in _leaves(item)]
    return _leaves(vars(x)) if hasattr(x, "__dict__") and not isinstance(x, np.dtype) else [x]


def agrees(fn, contender, inputs) -> bool:
    a, b = copy.deepcopy(inputs), copy.deepcopy(inputs)
    want, got = fn(*a), contender(*b)
    if len(_leaves(got)) != len(_leaves(want)):
        return False
    pairs = [*zip(_leaves(got), _leaves(want)), *zip(_leaves(b), _leaves(a))]
    try:
        return all(_same_leaf(g, w) for g, w in pairs
                   if not (w is None and g is None or isinstance(w, str)))
    except (TypeError, ValueError):
        return False


def _same_leaf(got, want) -> bool:
    if isinstance(want, (bytes, np.dtype)):
        return got == want
    if isinstance(want, np.random.Generator):  # the same stream, drawn as far
        return repr(got.bit_generator.state) == repr(want.bit_generator.state)
    return np.allclose(np.asarray(got, float), np.asarray(want, float), rtol=1e-4, atol=1e-6,
                       equal_nan=True)


def print_first_calls(names: list[str], firsts: list[float]) -> None:
    """The distribution of first calls over the kernels run, and the slowest of them."""
    ordered = sorted(firsts)
    p90 = ordered[min(len(ordered) - 1, math.ceil(0.9 * len(ordered)) - 1)]
    slowest = max(zip(firsts, names))
    print(f"\nember first call over {len(firsts)} kernels: "
          f"median {statistics.median(firsts) * 1e3:.1f} ms, "
          f"90th percentile {p90 * 1e3:.1f} ms, "
          f"max {slowest[0] * 1e3:.1f} ms ({slowest[1]})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, default=4)
    parser.add_argument("--first-only", action="store_true")
    parser.add_argument("--loops", action="store_true")
    parser.add_argument("kernels", nargs="*")
    args = parser.parse_args()
    if args.loops:
        args.kernels = [*args.kernels, *LOOP_KERNELS]
    rows = []
    if args.first_only:
        print(f"{'kernel':18} {'first':>9} {'graphs':>6} {'breaks':>6}")
    else:
        print(f"{'kernel':18} {'NumPy':>10} {'ember':>10} {'x NumPy':>8} {'first':>9} "
              f"{'graphs':>6} {'breaks':>6} {'numba':>10} {'x NumPy':>8} {'first':>9}")
    for name, fn, make in CASES:
        if args.kernels and name not in args.kernels:
            continue
        inputs = make(np.random.default_rng(0), args.scale)
        ember.reset()
        compiled = ember.compile(fn)
        t = time.perf_counter()
        compiled(*copy.deepcopy(inputs))
        first = time.perf_counter() - t
        stats = ember.stats()
        ok = agrees(fn, compiled, inputs)
        if args.first_only:
            print(f"{name:18} {first * 1e3:7.1f}ms {stats['compiles']:6} {stats['graph_breaks']:6}"
                  + ("" if ok else "  WRONG"), flush=True)
            rows.append((name, None, first, None))
            continue
        t_np = median_time(fn, inputs)
        t_em = median_time(compiled, inputs)
        line = (f"{name:18} {t_np * 1e3:8.3f}ms {t_em * 1e3:8.3f}ms {t_np / t_em:8.2f} "
                f"{first * 1e3:7.1f}ms {stats['compiles']:6} {stats['graph_breaks']:6}")
        nb = None
        if numba is not None:
            try:
                jitted = numba.njit(fn)
                t = time.perf_counter()
                jitted(*copy.deepcopy(inputs))
                nb_first = time.perf_counter() - t
                if agrees(fn, jitted, inputs):
                    nb = median_time(jitted, inputs)
                    line += f" {nb * 1e3:8.3f}ms {t_np / nb:8.2f} {nb_first * 1e3:7.1f}ms"
                else:
                    line += f" {'differs':>10}"
            except Exception:  # noqa: BLE001 -- a kernel Numba does not compile
                line += f" {'rejects':>10}"
        print(line + ("" if ok else "  WRONG"), flush=True)
        rows.append((name, t_np / t_em, first, None if nb is None else t_np / nb))
    print_first_calls([r[0] for r in rows], [r[2] for r in rows])
    if args.first_only:
        return
    ratios = [r[1] for r in rows]
    print(f"ember: geomean {math.exp(statistics.mean(map(math.log, ratios))):.2f}x NumPy, "
          f"slowest {min(ratios):.2f}x")
    both = [(r[1], r[3]) for r in rows if r[3] is not None]
    if both:
        ge = math.exp(statistics.mean(math.log(e) for e, _ in both))
        gn = math.exp(statistics.mean(math.log(n) for _, n in both))
        print(f"on the {len(both)} kernels Numba compiles: ember geomean {ge:.2f}x NumPy, "
              f"Numba {gn:.2f}x NumPy, ember {ge / gn:.2f}x Numba")


if __name__ == "__main__":
    main()
