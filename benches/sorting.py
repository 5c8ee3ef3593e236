"""ember against NumPy and Numba on sorting and what builds on it: `np.sort`, `np.argsort`
(each kind), `x.sort()`, `np.median`, `np.percentile`, `np.unique`, `np.searchsorted`,
`np.lexsort`, on long lines (262,144 elements) and on many short ones ((10000, 16), sorted
along the rows, and along the columns of the transpose: strided lines).

    EMBER_NUM_THREADS=1 python benches/sorting.py [--quick] [--no-numba] [--own-sorts]

Ratios are NumPy's time divided by ember's (or Numba's): higher is better, 1.0 is NumPy's
speed. Each is the median of ratios measured back to back in this process (these machines are
noisy). Every compiled result is checked against NumPy's first: positions exactly (with
`--own-sorts`, ember's stable fallback sort, the default kind's ties may differ: checked as
values only).
"""

from __future__ import annotations

import argparse
import statistics
import time

import ember
import numpy as np


def sort(x):
    return np.sort(x)


def sort_stable(x):
    return np.sort(x, kind="stable")


def argsort(x):
    return np.argsort(x)


def argsort_stable(x):
    return np.argsort(x, kind="stable")


def sort_rows(x):
    return np.sort(x, axis=1)


def argsort_rows(x):
    return np.argsort(x, axis=1)


def sort_columns(x):
    return np.sort(x, axis=0)


def sort_in_place(x):
    y = x * 1.0
    y.sort()
    return y


def median(x):
    return np.median(x)


def percentile(x):
    return np.percentile(x, [10.0, 50.0, 90.0])


def unique(x):
    return np.unique(x)


def searchsorted(a, v):
    return np.searchsorted(a, v)


def lexsort(a, b):
    return np.lexsort((a, b))


def numba_versions() -> dict:
    """Numba's forms of the cases it compiles (rows sorted one by one: its `np.sort` takes
    no `axis`)."""
    import numba

    @numba.njit
    def rows(x):
        out = np.empty_like(x)
        for i in range(x.shape[0]):
            out[i] = np.sort(x[i])
        return out

    @numba.njit
    def arg_rows(x):
        out = np.empty(x.shape, np.int64)
        for i in range(x.shape[0]):
            out[i] = np.argsort(x[i])
        return out

    jit = numba.njit
    return {
        sort: jit(lambda x: np.sort(x)),
        sort_stable: jit(lambda x: np.sort(x)),  # Numba's sort has no kind: its quicksort
        argsort: jit(lambda x: np.argsort(x)),
        argsort_stable: jit(lambda x: np.argsort(x, kind="mergesort")),
        sort_rows: rows,
        argsort_rows: arg_rows,
        median: jit(lambda x: np.median(x)),
        percentile: jit(lambda x: np.percentile(x, np.array([10.0, 50.0, 90.0]))),
        unique: jit(lambda x: np.unique(x)),
        searchsorted: jit(lambda a, v: np.searchsorted(a, v)),
    }


def cases(quick: bool) -> list[tuple[str, object, tuple]]:
    rng = np.random.default_rng(0)
    n = 32_768 if quick else 262_144
    f64 = rng.standard_normal(n)
    f32 = f64.astype(np.float32)
    ties = rng.integers(0, 1000, n)
    i32 = rng.integers(-(2**31), 2**31 - 1, n).astype(np.int32)
    short = rng.standard_normal((n // 26, 16))
    return [
        ("sort f64", sort, (f64,)),
        ("sort f32", sort, (f32,)),
        ("sort i64 (ties)", sort, (ties,)),
        ("sort i32", sort, (i32,)),
        ("sort f64 stable", sort_stable, (f64,)),
        ("sort i64 stable (ties)", sort_stable, (ties,)),
        ("argsort f64", argsort, (f64,)),
        ("argsort i64 (ties)", argsort, (ties,)),
        ("argsort f64 stable", argsort_stable, (f64,)),
        ("x.sort() f64", sort_in_place, (f64,)),
        (f"sort rows {short.shape}", sort_rows, (short,)),
        (f"argsort rows {short.shape}", argsort_rows, (short,)),
        (f"sort columns {short.T.shape}", sort_columns, (short.T,)),
        ("median f64", median, (f64,)),
        ("percentile f64 (3 q)", percentile, (f64,)),
        ("unique i64 (ties)", unique, (ties,)),
        ("searchsorted 4096 in sorted", searchsorted, (np.sort(f64), f64[:4096].copy())),
        ("lexsort 2 keys i64", lexsort, (ties, ties[::-1].copy())),
    ]


def timed(f, args) -> float:
    reps = 0
    start = time.perf_counter()
    while True:
        f(*args)
        reps += 1
        elapsed = time.perf_counter() - start
        if elapsed > 0.05:
            return elapsed / reps


def check(got, want, name: str, exact: bool) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, name
    if exact and want.dtype.kind in "iub":
        assert got.tobytes() == want.tobytes(), name
    assert np.allclose(got, want, equal_nan=True) or not exact, name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-numba", action="store_true")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default="", help="cases whose name holds this text")
    parser.add_argument("--own-sorts", action="store_true",
                        help="ember's own stable sorts instead of NumPy's sort functions")
    opts = parser.parse_args()
    numba = {} if opts.no_numba else numba_versions()
    if opts.own_sorts:
        from ember.backends import cranelift, numpy_loops  # importing it registers them

        assert cranelift
        numpy_loops.unregister_sorts()
    print(f"threads: ember {ember.config.num_threads}")
    print(f"{'case':34s} {'NumPy us':>10s} {'ember/NumPy':>12s} {'Numba/NumPy':>12s}")
    for name, fn, args in cases(opts.quick):
        if opts.only not in name:
            continue
        compiled = ember.compile(fn)
        check(compiled(*args), fn(*args), name, exact=not opts.own_sorts)
        other = numba.get(fn)
        if other is not None:
            other(*args)
        ratios, numba_ratios, numpy_times = [], [], []
        for _ in range(opts.rounds):
            t_numpy = timed(fn, args)
            ratios.append(t_numpy / timed(compiled, args))
            if other is not None:
                numba_ratios.append(t_numpy / timed(other, args))
            numpy_times.append(t_numpy)
        numba_cell = f"{statistics.median(numba_ratios):12.2f}" if numba_ratios else f"{'-':>12s}"
        print(f"{name:34s} {statistics.median(numpy_times) * 1e6:10.1f} "
              f"{statistics.median(ratios):12.2f} {numba_cell}", flush=True)


if __name__ == "__main__":
    main()
