"""Kernels written the way NumPy users write them (`user_kernels*.py`),
run verbatim under `ember.compile` on both backends against plain NumPy: results (values,
dtype, shape, Python type; tuples, lists and dicts item by item) and every input's state
afterwards, on two calls (the second a cache hit); on the Cranelift backend, as native code."""

from __future__ import annotations

import copy

import ember
import numpy as np
import pytest
from kernel_cases import CASES


def _same(got, want) -> str | None:
    if isinstance(want, (tuple, list)):  # a list, tuple or NamedTuple: item by item
        if type(got) is not type(want) or len(got) != len(want):
            return f"{got!r} is not a {type(want).__name__} like {want!r}"
        return next((d for g, w in zip(got, want) if (d := _same(g, w))), None)
    if type(want) is dict:  # so is a dict of results, key by key
        if type(got) is not dict or list(got) != list(want):
            return f"{got!r} is not a dict like {want!r}"
        return next((f"[{k!r}] {d}" for k in want if (d := _same(got[k], want[k]))), None)
    if type(got) is not type(want):
        return f"type {type(got).__name__}, want {type(want).__name__}"
    if isinstance(want, np.random.Generator):  # the same stream, drawn as far
        state, want_state = got.bit_generator.state, want.bit_generator.state
        return None if repr(state) == repr(want_state) else f"state {state}, want {want_state}"
    if hasattr(want, "__dict__"):  # an instance of a Python class (a model, a dataclass)
        return _same(vars(got), vars(want))
    if isinstance(want, (np.ndarray, np.generic)):
        if got.dtype != want.dtype or got.shape != want.shape:
            return f"{got.dtype}{got.shape}, want {want.dtype}{want.shape}"
        tol = 1e-4 if want.dtype == np.float32 else 1e-9
        if not np.allclose(got, want, rtol=tol, atol=tol, equal_nan=True):
            return f"values {got!r}, want {want!r}"
        return None
    if want is None or isinstance(want, (str, bytes, np.dtype)):
        return None if got == want else f"{got!r}, want {want!r}"
    return None if np.isclose(got, want, rtol=1e-9) else f"{got!r}, want {want!r}"


# Kernels whose results are not yet NumPy's. Strict: each one fails here until it is fixed.
NOT_YET_LIKE_NUMPY = {
}


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
@pytest.mark.parametrize("name,fn,make", [
    pytest.param(*case, id=case[0], marks=[pytest.mark.xfail(
        strict=True, reason=NOT_YET_LIKE_NUMPY[case[0]])] if case[0] in NOT_YET_LIKE_NUMPY
        else []) for case in CASES])
def test_kernel_like_numpy(name, fn, make, backend):
    """On the Cranelift backend the kernel must also run as native code (`_not_native`),
    unless `NOT_YET_NATIVE` lists it, and then it must not: each one fails here once it
    compiles and must leave the table."""
    compiled = ember.compile(fn, backend=backend)
    first = None
    for call in range(2):
        inputs = make(np.random.default_rng(call), 1)
        plain_inputs, compiled_inputs = copy.deepcopy(inputs), copy.deepcopy(inputs)
        want = fn(*plain_inputs)
        got = compiled(*compiled_inputs)
        first = first or ember.stats()
        problem = _same(got, want)
        assert problem is None, f"{name}, call {call}: result {problem}"
        for i, (g, w) in enumerate(zip(compiled_inputs, plain_inputs)):
            problem = _same(g, w)
            assert problem is None, f"{name}, call {call}: argument {i} afterwards {problem}"
    if backend != "cranelift":
        return
    problem = _not_native(name, first, ember.stats())
    if name in NOT_YET_NATIVE:
        assert problem is not None, (f"{name} now runs as native code: take it out of "
                                     f"NOT_YET_NATIVE ({NOT_YET_NATIVE[name]})")
    else:
        assert problem is None, f"{name}: {problem}"


# Kernels that are not compiled, by design: Python scalars only (nothing to compile), and
# complex numbers.
NOT_COMPILED = {"mandelbrot_count": "no array",
                "dft": "complex numbers: ember has no complex dtype, the frame runs as NumPy",
                "fft_complex_iterative": "complex128 arguments: ember has no complex dtype, the "
                                         "frame runs as NumPy"}

# Kernels whose loops are not yet loop ops: they run correctly (above) but, in part, as plain
# Python. Strict, so each one fails here once it compiles and must leave this table.
NOT_YET_NATIVE = {
    "single_linkage": "`best = np.inf`, then `best = D[i, j]` on a path of the unrolled `for i` "
                      "loop: on data where a step skips the first pair (node 1 merged away), "
                      "`best` may still be the Python float there, and the run-time check of "
                      "that pick reruns the frame as Python on the second call",
    "bessel_miller": "`math.sqrt` of a Python number computed from run-time values (a call "
                     "of math on a non-constant): a break",
    "merge_sorted_runs": "heappush at the frame's level onto a heap of values computed at "
                         "run time (three pushes in an unrolled loop over a tuple): a break",
    "resample_interp": "np.arange between values read from the data has a length only the "
                       "data knows: a break before np.interp",
    "givens_qr": "G @ R[i - 1:i + 1, :] (a 2x2 array times a 2-d slice with run-time "
                 "bounds) is not a product loop bodies make (loops/blocks.py), so the loops "
                 "are not loop ops and the frame breaks per rotation",
    "als_step": "`V[m]` with a boolean row of the mask: arrays whose length only the data "
                "knows, solved per row",
    "rabin_karp": "np.array_equal of a slice at a run-time position inside the loop, and "
                  "`matches.append(s)` in a branch",
    "gmres_small": "np.zeros(k + 1) where `k` is set by a `break` on data",
    "edmonds_karp": "`while True:` at the frame's level left by a `break`, around a `while` "
                    "whose test reads the data (`parent[sink] == -1`)",
    "rle_decode": "np.empty(int(counts.sum())): an array whose length only the data knows, "
                  "filled at slices with run-time bounds",
    "particle_filter_class": "`self.resamples += 1` on one path of `if n_eff < self.n / 2:` "
                             "rebinds a Python int attribute (a guarded constant) to a count "
                             "the data decides, which a path cannot store",
    "stencil_27_point": "`itertools.product((-1, 0, 1), repeat=3)`: 27 offsets whose items are "
                        "neither a range nor an array unroll, past the unroll budget (486 ops)",
    "floor_bins": "`np.zeros(hi - lo + 1)` with `lo = int(values.min() // width)`: an array "
                  "whose length only the data knows",
    "median_by_quickselect": "recursion on `a[a < pivot]`: selections whose lengths only the "
                             "data knows, each depth a new compile",
    "pagerank_dangling": "`log[\"iterations\"] = it + 1` stores into a dict inside the loop "
                         "(loop ops carry no dict items), around a `break` on `err < tol`",
    "needleman_wunsch_align": "the traceback `while i > 0 or j > 0` branches on data, and "
                              "`moves[:k]` has a length the loop's end decides",
    "crr_american_put": "`prices[:i + 1]` and `values[1:i + 2]`: carried arrays whose lengths "
                        "change with the loop index",
    "harvest_until_collapse": "`return trajectory[:year], year` inside a `while` on the data: "
                              "a slice whose length only the data knows, returned",
    "amortization": "`return schedule[:m + 1]` on `balance <= 0.0` inside the 360-trip loop: a "
                    "slice of a 2-d result with run-time bounds",
    "grid_bfs_distance": "`nxt.append((a, b))` and `frontier = nxt` in a `while frontier:`: a "
                         "Python list of tuples the data grow",
    "dense_rank_columns": "np.unique(..., return_inverse=True) per column: the distinct values "
                          "have a length only the data knows",
    "merge_join_sorted": "`out_keys.append(...)` on one path of the branches of a `while` on "
                         "data (a two-pointer merge): lists appended in branches of a loop of "
                         "an unknown number of trips",
    "cumcount_by_group": "`keys.tolist()` and a dict keyed by the data (`counter.get(k, 0)`)",
    "csr_matvec_reduceat": "`np.repeat(np.arange(n), np.diff(indptr))`: repeat counts read from "
                           "the data give a length only the data knows",
    "csr_transpose_scan": "`np.empty(nnz)` with `nnz = indptr[-1]`: arrays whose length only the "
                          "data knows",
    "base64_encode_bytes": "np.frombuffer of a bytes argument: bytes are a constant guarded by "
                           "identity, not data",
    "byte_histogram_entropy": "np.frombuffer of a bytes argument: bytes are a constant guarded "
                              "by identity, not data",
    "word_lengths_ascii": "`lengths.append(run)` on one path of a branch on each byte: lists "
                          "appended in branches on data",
    "gamblers_ruin": "`if rng.random() < p` branches on a draw inside a `while` loop of "
                     "data-dependent length: a draw per trip, made in Python",
    "block_matching_sad": "`prev[y:y + block, x:x + block]` with `y = y0 + dy` checked by a "
                          "`continue` on the bounds: a 2-d slice Python clips, whose length "
                          "only that branch makes the block's, and `if sad < best` on data",
    "particle_filter_generator": "`rng.normal(...)` in a loop nested in the time loop: draws "
                                 "per trip only where the loop is a counted range at the "
                                 "frame's level",
    "sir_stochastic_cells": "`return s, history[:t + 1]` on `history[t] == 0` inside the "
                            "loop: a slice whose length only the data knows, returned early",
    "wright_fisher": "`rng.binomial(n, p)` with `p` computed from the data in the loop: a draw "
                     "whose argument the graph computes runs in Python",
    "wright_fisher_loci": "`rng.binomial(n, p)` with `p` computed from the data in the loop: a "
                          "draw whose argument the graph computes runs in Python",
    "dc_power_flow": "`for (i, j), x in zip(lines, reactance)` over a Python list of tuples "
                     "and an array: a zip the loop ops do not iterate, past the unroll budget, "
                     "and a list comprehension of the same zip",
    "reflect_bounces": "`if 1e-6 < t < best_t:` (a chained comparison) inside a `while depth < "
                       "max_bounces` whose trips a `break` on the data ends, per ray",
    "fem_truss_2d": "math.hypot of two elements and `for d in fixed` over a Python list, "
                    "`nodes[j] - nodes[i]` at indices read from `bars`",
    "izhikevich_network": "`S[:, fired].sum(axis=1)`: columns at a boolean mask, whose number "
                          "only the data knows, inside the loop",
    "stdp_update": "`np.outer(post, x_pre)` of boolean spikes in a 40-trip loop: past the "
                   "unroll budget, and not a loop op",
    "lif_single_scalar": "`return times[:count].copy() if count > 0 else times[:0].copy(), last`: "
                         "a slice whose length only the data knows, returned",
    "best_offsets": "`first_mismatch` (a `while` with an early `return i` on the data) called in "
                    "a double loop: a helper's early return inside a `while` on data",
    "radial_distribution": "`(r / dr).astype(np.int64)` of `r[r < r_max]` (a boolean-mask "
                           "selection) for np.add.at, inside the loop",
    "dormand_prince_lorenz": "`_DP_A[s - 1, :s] @ K[:s]` (a slice with run-time bounds of a 2-d "
                             "array) in the stage loop, and `ts.append(t)` of a NumPy scalar "
                             "into a list begun with a Python float",
    "brent_root": "frame-level branches on `fa * fb > 0` (an early `return math.nan, 0`) and on "
                  "the first test of `while fb != 0 and ...` break",
    "steepest_descent_exact": "`while math.sqrt(r @ r) > tol:` whose first test the data decide, "
                              "with `history.append(...)` and `if len(history) >= 500: break`: "
                              "a list appended to by a loop resumed after a break",
    "erf_series_cf": "`f = z if z != 0 else tiny` (a NumPy scalar or a Python float) in the "
                     "Lentz loop, and paths that do not meet (its `break`) in the loop over "
                     "elements",
    "gammainc_lower": "`math.lgamma` of a loop value has no graph op: the loop over elements is "
                      "not one loop op",


    "count_islands": "`stack = [i * w + j]` made in a branch of the double loop and popped and "
                     "appended in a `while len(stack) > 0` inside it: a Python list mutated in "
                     "a loop body",
    "fnv1a_64_masked": "`h = 0xCBF29CE484222325` and `h * 0x100000001B3` before the mask: a "
                       "Python int past int64",
    "groupby_argsort_diff": "`np.nonzero(np.diff(k))[0] + 1`: group boundaries whose number "
                            "only the data knows",
    "linpack_solve": "dgefa's pivot search (`if abs(a[i, k]) > dmax`) and `if l != k` in a "
                     "function called with a pivot vector it fills",
    "tqli_eigen": "`while True:` around a search loop that breaks on `abs(e[m]) + dd == dd` "
                  "and an inner `while i >= l` that breaks on `r == 0.0`: branches on array "
                  "values inside loops of unknown trips",
    "balanc": "`while last == 0:` whose flag a run-time test sets: a branch inside a loop of "
              "unknown trips",
    "ran1_stream": "idum, a Python int, through `idum // IQ` and `if idum < 0` in the loop "
                   "over t: branches on values, and recompiles on idum's value",
    "qromb_many": "trapzd's loop of math calls unrolled past the op budget, and the "
                  "`for ... else: raise` exit decided at run time",
    "rkqs_integrate": "rkqs's `while True:` step control in a called function returning "
                      "(x, hdid, hnext), `errmax ** -0.25` read in Python",
    "zbrent_kepler": "zbrent's `raise ValueError` paths keep its loop from being one loop op, "
                     "and `return b` inside the loop returns a local that may still be the "
                     "Python float x2",


    "predict_labels": "`np.bincount(closest_y).argmax()` without minlength=: a length (the "
                      "largest label) only the data knows, per test row",
    "knn_cross_validation": "`np.bincount(nearest).argmax()` per row as in predict_labels, and "
                            "folds of np.array_split of different lengths concatenated in a "
                            "list comprehension (a recompile per fold)",
    "kmeans_converge": "a list comprehension with `X[labels == k].mean(axis=0) if "
                       "np.any(labels == k) else centroids[k]` (a branch on data per "
                       "cluster) inside a loop left by `break` on np.allclose",
    "silhouette_score_loops": "`D[i, same].mean()` of masks made per sample, `if c == "
                              "labels[i]: continue` and `min(b, ...)` of a Python float and "
                              "a NumPy scalar: the sample loop is not a loop op",
    "trinomial_american_put": "`V = np.maximum(cont, ...)` shrinks by two elements per trip "
                              "(`V[2:]`, `np.arange(-i, i + 1)`): a carried array whose shape "
                              "changes with the trip is no loop op, past the unroll budget",
    "bfs_levels_visited_set": "`seen = {start}` (BUILD_SET), `v not in seen` and `seen.add(v)`: "
                              "loop ops carry no sets",
    "dfs_order_stack": "`visited = set()`, `u in visited` and `visited.add(u)` in a `while "
                       "stack:`: loop ops carry no sets",
    "bin_counts_get": "`counts[k] = counts.get(k, 0) + 1` with a key computed from the data: "
                      "loop ops carry no dicts",
    "label_counts_membership": "`if k in counts: counts[k] += 1` with a key read from the "
                               "data: loop ops carry no dicts",
    "defaultdict_sums": "`defaultdict(float)` filled at keys read from the data: loop ops "
                        "carry no dicts",
    "union_find_dict": "`parent[x]` of a dict at keys read from the data, in a helper's "
                       "`while parent[x] != x`: loop ops carry no dicts",
    "two_sum_dict": "`if need in where` and `where[int(nums[j])] = j`: a dict at keys read "
                    "from the data, and a `return` inside the loop",
    "dedup_keep_order": "`seen = set()`, `v not in seen` and `seen.add(v)`: loop ops carry "
                        "no sets",
    "lru_misses": "a set and `deque.remove(p)` at values read from the data: loop ops carry "
                  "no sets, and remove is no deque use of theirs",
    "fifo_queue_pop0": "`seen = {start}` (BUILD_SET) and `v not in seen`: loop ops carry no "
                       "sets",
    "counter_most_common": "`collections.Counter()` filled at keys read from the data: loop "
                           "ops carry no dicts",
    "classification_report_dict": "`tp / (tp + fp) if tp + fp > 0 else 0.0`: a NumPy float64 "
                                  "on one path and a Python float on the other, stored in a "
                                  "dict of tuples",
    "douglas_peucker": "`while stack:` of a list of (start, end) tuples whose pushes depend on "
                       "`if d[k] > eps` (an array value): the stack's length is data, and a "
                       "tuple list is no loop-op stack",
    "nditer_sum_squares": "`np.nditer(a)` is not captured: its items are 0-d read-only views "
                          "in the array's memory order ('K'), which capture does not model",
    "accumulate_running_max": "`itertools.accumulate(x, max)` is not captured (Python's `max` "
                              "keeps the running value on NaN, unlike np.maximum.accumulate)",
    "piecewise_ramp": "`np.piecewise` runs NumPy's Python code, which branches on "
                      "`any(condition)` of the data",
    "lanczos_resample": "`np.arange(lo, lo + 2 * a)` with `lo = int(math.floor(i / factor))` a "
                        "run-time int in the trip: past the unroll budget, refused as a loop op",
    "choose_palette": "`np.choose` is not captured (NumPy's Python wrapper calls "
                      "`_array_converter`)",
    "packbits_jaccard": "`np.packbits` is not captured, nor `bin(i).count('1')`",
    "apply_along_rows_range": "`np.apply_along_axis` is not captured (NumPy's Python wrapper "
                              "calls `_array_converter`)",
    "fromiter_squares": "`np.fromiter` of a generator is not captured",
    "label_8conn_halving": "branch on `mask[i, j]` in a loop that calls a union-find `find` "
                           "(a `while` on `parent[i]`, returning a Python or NumPy int as the "
                           "data decide) and fills a dict: the frame runs as plain Python, "
                           "and so does `find` when it calls it",
    "american_put_binomial": "the backward loop's arrays shrink by one each step "
                             "(`v[:-1]`, `np.arange(step + 1)`): no loop op, past the unroll "
                             "budget",
    "levinson_durbin_lpc": "`np.correlate(x, x, 'full')` of more than 64 coefficients "
                           "(unrolled per coefficient; summed by windows it ran 13x slower "
                           "than NumPy's dot per output)",
    "monotone_chain_area": "`while len(lower) >= 2 and _cross(...) <= 0: lower.pop()`: a "
                           "branch on array values over a list of rows that grows and shrinks",
}


def _not_native(name: str, first: dict, stats: dict) -> str | None:
    """Why a kernel did not run as compiled graphs on the Cranelift backend, or None: every
    kernel but those of `NOT_COMPILED` has no graph break, no recapture without loop ops, no
    graph left to the eager fallback, and on the second call no fallback to Python and no
    rerun with NumPy. `first`: the stats after the first call, `stats` after the second."""
    if name in NOT_COMPILED:
        assert stats["compiles"] == 0, NOT_COMPILED[name]
        return None
    if stats["compiles"] < 1 or stats["graph_breaks"] != 0:
        return f"compiles {stats['compiles']}, breaks {stats['break_reasons']}"
    if stats["region_recaptures"] != 0 or stats["backend_fallbacks"]:
        return (f"{stats['region_recaptures']} recaptures without loop ops, backend "
                f"fallbacks {stats['backend_fallbacks']}")
    # The second call runs the compiled code: no frame re-run as Python because a graph
    # raised, no native run redone with NumPy.
    reruns = {key: stats[key] - first[key] for key in ("entry_fallbacks", "fp_reruns")}
    return f"second call reruns {reruns}" if any(reruns.values()) else None
