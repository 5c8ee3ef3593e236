"""Kernels written the way NumPy users write them (`user_kernels*.py`),
run verbatim under `ember.compile` on both backends against plain NumPy: results (values,
dtype, shape, Python type; tuples, lists and dicts item by item) and every input's state
afterwards, on two calls (the second a cache hit)."""

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
    if want is None or isinstance(want, (str, bytes)):
        return None if got == want else f"{got!r}, want {want!r}"
    return None if np.isclose(got, want, rtol=1e-9) else f"{got!r}, want {want!r}"


# Kernels whose results are not yet NumPy's. Strict: each one fails here until it is fixed.
NOT_YET_LIKE_NUMPY = {
    "adaboost_stumps": "`np.sum(w[pred != y])` is summed as `where(mask, w, 0)` over the "
                       "whole array, where NumPy sums the selection pairwise: the last bit "
                       "differs, and a tie between two thresholds of equal error (uniform "
                       "weights) falls the other way",
}


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
@pytest.mark.parametrize("name,fn,make", [
    pytest.param(*case, id=case[0], marks=[pytest.mark.xfail(
        strict=True, reason=NOT_YET_LIKE_NUMPY[case[0]])] if case[0] in NOT_YET_LIKE_NUMPY
        else []) for case in CASES])
def test_kernel_like_numpy(name, fn, make, backend):
    compiled = ember.compile(fn, backend=backend)
    for call in range(2):
        inputs = make(np.random.default_rng(call), 1)
        plain_inputs, compiled_inputs = copy.deepcopy(inputs), copy.deepcopy(inputs)
        want = fn(*plain_inputs)
        got = compiled(*compiled_inputs)
        problem = _same(got, want)
        assert problem is None, f"{name}, call {call}: result {problem}"
        for i, (g, w) in enumerate(zip(compiled_inputs, plain_inputs)):
            problem = _same(g, w)
            assert problem is None, f"{name}, call {call}: argument {i} afterwards {problem}"


# Kernels that are not compiled, by design: Python scalars only (nothing to compile), and
# complex numbers.
NOT_COMPILED = {"mandelbrot_count": "no array",
                "dft": "complex numbers: ember has no complex dtype, the frame runs as NumPy"}

# Kernels whose loops are not yet loop ops: they run correctly (above) but, in part, as plain
# Python. Strict, so each one fails here once it compiles and must leave this table.
NOT_YET_NATIVE = {
    "resample_interp": "np.arange between values read from the data has a length only the "
                       "data knows: a break before np.interp",
    "givens_qr": "G @ R[i - 1:i + 1, :] (a 2x2 array times a 2-d slice with run-time "
                 "bounds) is not a product loop bodies make (loops/blocks.py), so the loops "
                 "are not loop ops and the frame breaks per rotation",
    "rk45_adaptive": "in `while t < t_end` the types of `h` (made a NumPy scalar by "
                     "`max(err, 1e-16)`) and then `t` settle over two trips, which a `while` "
                     "loop op cannot require",
    "adaboost_stumps": "`max(best_err, 1e-12)` compares a NumPy scalar in Python, and "
                       "`for t in thresholds` iterates an argument array between breaks",
    "als_step": "`V[m]` with a boolean row of the mask: arrays whose length only the data "
                "knows, solved per row",
    "kmp_prefix": "`k` is carried from trip to trip as a Python int or an int32 read from "
                  "`pi` depending on the path, whose types NumPy keeps apart (a choice of the "
                  "two is not carried)",
    "rabin_karp": "np.array_equal of a slice at a run-time position inside the loop, and "
                  "`matches.append(s)` in a branch",
    "gauss_jordan_inverse": "`M[[col, p]] = M[[p, col]]` (a row swap through index lists) "
                            "in a branch on data",
    "gmres_small": "np.zeros(k + 1) where `k` is set by a `break` on data",
    "edmonds_karp": "`while True:` at the frame's level left by a `break`, around a `while` "
                    "whose test reads the data (`parent[sink] == -1`)",
    "rle_decode": "np.empty(int(counts.sum())): an array whose length only the data knows, "
                  "filled at slices with run-time bounds",
    "simplex_max": "`basis[row] = col`: a store into a Python list at an index the data gives",
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
    "label_components": "`find` (a `while` on data in a closure) called on the paths of "
                        "branches on data in a double loop: control flow around whiles",
    "needleman_wunsch_align": "the traceback `while i > 0 or j > 0` branches on data, and "
                              "`moves[:k]` has a length the loop's end decides",
    "crr_american_put": "`prices[:i + 1]` and `values[1:i + 2]`: carried arrays whose lengths "
                        "change with the loop index",
    "kepler_vectorized": "`while np.max(np.abs(delta)) > tol and iterations < 50:` rebinds the "
                         "argument-shaped `E` and `delta` in a `while` on the data whose first "
                         "test reads `delta = np.ones_like(M)`: the branch chooses one of the "
                         "frame's arrays",
    "harvest_until_collapse": "`return trajectory[:year], year` inside a `while` on the data: "
                              "a slice whose length only the data knows, returned",
    "amortization": "`return schedule[:m + 1]` on `balance <= 0.0` inside the 360-trip loop: a "
                    "slice of a 2-d result with run-time bounds",
    "grid_bfs_distance": "`nxt.append((a, b))` and `frontier = nxt` in a `while frontier:`: a "
                         "Python list of tuples the data grow",
    "sokoban_reachable": "`stack.pop()` and `stack.append((i - 1, j))` in a `while stack:`: a "
                         "Python list of tuples used as a stack the data grow",
    "group_mean_argsort": "`np.add.reduceat(v, starts)` at the group starts np.flatnonzero "
                          "finds: positions, and a result length, only the data knows",
    "group_stats_unique": "np.unique with return_inverse=, and np.bincount of the inverse "
                          "without minlength=: lengths (the number of keys) only the data knows",
    "group_first_last": "`np.searchsorted(sk, np.unique(sk))`: the distinct keys, an array "
                        "whose length only the data knows, passed on to another function",
    "dense_rank_columns": "np.unique(..., return_inverse=True) per column: the distinct values "
                          "have a length only the data knows",
    "dedupe_keep_first": "`np.sort(first)` of np.unique's return_index: an array whose length "
                         "only the data knows, passed on",
    "merge_join_sorted": "`out_keys.append(...)` on one path of the branches of a `while` on "
                         "data (a two-pointer merge): lists appended in branches of a loop of "
                         "an unknown number of trips",
    "cumcount_by_group": "`keys.tolist()` and a dict keyed by the data (`counter.get(k, 0)`)",
    "csr_matvec_reduceat": "`np.repeat(np.arange(n), np.diff(indptr))`: repeat counts read from "
                           "the data give a length only the data knows",
    "csr_transpose_scan": "`np.empty(nnz)` with `nnz = indptr[-1]`: arrays whose length only the "
                          "data knows",
    "rle_encode_bytes": "`np.flatnonzero(...) + 1`, and the run starts and lengths made from it: "
                        "arrays whose length only the data knows",
    "base64_encode_bytes": "np.frombuffer of a bytes argument: bytes are a constant guarded by "
                           "identity, not data",
    "byte_histogram_entropy": "np.frombuffer of a bytes argument: bytes are a constant guarded "
                              "by identity, not data",
    "word_lengths_ascii": "`lengths.append(run)` on one path of a branch on each byte: lists "
                          "appended in branches on data",
    "gamblers_ruin": "`if rng.random() < p` branches on a draw inside a `while` loop of "
                     "data-dependent length: a draw per trip, made in Python",
    "precision_recall_at_k": "`max(relevant[q].sum(), 1)` in an unrolled loop: Python's max() of "
                             "a NumPy integer and a Python int returns either object as the data "
                             "decide",
    "ndcg_at_k": "`if np.all(idcg == 0): return ...`: an early return on a reduction of the "
                 "data at the frame's level (a break, then a second graph)",
}


@pytest.mark.parametrize("name,fn,make", [
    pytest.param(*case, id=case[0], marks=[pytest.mark.xfail(
        strict=True, reason=NOT_YET_NATIVE[case[0]])] if case[0] in NOT_YET_NATIVE else [])
    for case in CASES])
def test_kernel_compiles_to_native_code(name, fn, make):
    """Every other kernel runs as compiled graphs on the Cranelift backend: no graph break,
    no recapture without loop ops, no graph left to the eager fallback."""
    ember.reset()
    compiled = ember.compile(fn)
    for call in range(2):
        compiled(*make(np.random.default_rng(call), 1))
    stats = ember.stats()
    if name in NOT_COMPILED:
        assert stats["compiles"] == 0, NOT_COMPILED[name]
        return
    assert stats["compiles"] >= 1 and stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["region_recaptures"] == 0 and not stats["backend_fallbacks"]
