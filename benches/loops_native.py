"""Loops compiled from IR version 2 text, side by side with Numba: a scalar recurrence and an
integer DP table. The IR is written by hand here (as capture emits it), so that the native
loop code is measured without capture in the way.

    python benches/loops_native.py [--quick]

Times are medians of repeated runs; compile time is `_core.compile_ir` on the text (parse,
verify, passes, Cranelift), which must not depend on the trip count.
"""

from __future__ import annotations

import argparse
import importlib
import pathlib
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

import ember._core as core
from test_loops_native import DP, RECURRENCE, jacobi, jacobi_ir, recurrence

try:
    numba = importlib.import_module("numba")
except ImportError:
    numba = None


def median_seconds(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def lcs(a, b):
    n = a.shape[0]
    table = np.zeros((n + 1, n + 1), dtype=np.int64)
    for i in range(1, n + 1):
        for j in range(1, n + 1):
            if a[i - 1] == b[j - 1]:
                table[i, j] = table[i - 1, j - 1] + 1
            else:
                table[i, j] = max(table[i - 1, j], table[i, j - 1])
    return table


def row(name, compile_ms, ember_s, numba_s, python_s):
    numba_text = f"{numba_s * 1e3:9.3f}" if numba_s is not None else "      n/a"
    ratio = f"{numba_s / ember_s:6.2f}" if numba_s is not None else "   n/a"
    print(
        f"{name:<28}{compile_ms:10.2f}{ember_s * 1e3:10.3f}{numba_text}{ratio}"
        f"{python_s * 1e3:12.1f}"
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    repeats = 5 if args.quick else 21
    n = 100_000 if args.quick else 1_000_000
    m = 100 if args.quick else 300
    print(f"{'workload':<28}{'compile ms':>10}{'ember ms':>10}{'numba ms':>9}{'x numba':>6}")
    print(f"{'':<63}{'python ms':>12}  (jacobi: numpy ms)")

    x = np.random.default_rng(0).standard_normal(n)
    start = time.perf_counter()
    graph = core.compile_ir(RECURRENCE.replace("N", str(n)))
    compile_ms = (time.perf_counter() - start) * 1e3
    numba_s = None
    if numba is not None:
        jitted = numba.njit(recurrence)
        jitted(x)
        np.testing.assert_allclose(graph(x)[0], jitted(x), rtol=1e-12)
        numba_s = median_seconds(lambda: jitted(x), repeats)
    short = x[: n // 100]
    python_s = median_seconds(lambda: recurrence(short), 3) * 100
    row(
        f"recurrence n={n}",
        compile_ms,
        median_seconds(lambda: graph(x), repeats),
        numba_s,
        python_s,
    )

    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 4, m), rng.integers(0, 4, m)
    start = time.perf_counter()
    graph = core.compile_ir(DP.replace("N", str(m)).replace("P", str(m + 1)))
    compile_ms = (time.perf_counter() - start) * 1e3
    numba_s = None
    if numba is not None:
        jitted = numba.njit(lcs)
        np.testing.assert_array_equal(graph(a, b)[0], jitted(a, b))
        numba_s = median_seconds(lambda: jitted(a, b), repeats)
    python_s = median_seconds(lambda: lcs(a, b), 1)
    row(
        f"lcs table {m}x{m}",
        compile_ms,
        median_seconds(lambda: graph(a, b), repeats),
        numba_s,
        python_s,
    )

    g = 256
    u = np.random.default_rng(2).standard_normal((g, g))
    start = time.perf_counter()
    graph = core.compile_ir(jacobi_ir(g, 50))
    compile_ms = (time.perf_counter() - start) * 1e3
    np.testing.assert_allclose(graph(u)[0], jacobi(u, 50), rtol=1e-12)
    numpy_s = median_seconds(lambda: jacobi(u, 50), repeats)
    row(
        f"jacobi {g}x{g} x50 (numpy)",
        compile_ms,
        median_seconds(lambda: graph(u), repeats),
        None,
        numpy_s,
    )


if __name__ == "__main__":
    main()
