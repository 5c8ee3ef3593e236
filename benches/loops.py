"""Loop-style NumPy kernels side by side: plain NumPy (the same source, not compiled), ember,
and Numba's `njit` on the same source where Numba imports; then compile time against trip
count for a recurrence. One process, medians of repeated runs, ratios NumPy / contender.

    python benches/loops.py [--quick] [--backend cranelift|eager] [--scale N]

Each kernel's result is checked against NumPy's before it is timed. A kernel ember runs as
plain Python (a loop it cannot capture, or a backend without loop ops) shows `python` in the
graph column: its time is then NumPy's own.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from pathlib import Path

import ember
import numpy as np
from ember.backends import runs_loop_ops

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from loops_kernels import kernel_inputs, recurrence

try:
    numba = importlib.import_module("numba")
except ImportError:
    numba = None


def fresh(args: tuple) -> list:
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def median_time(fn, args: tuple, repeats: int, budget: float = 2.0) -> float:
    times: list[float] = []
    start = time.perf_counter()
    for _ in range(repeats):
        inputs = fresh(args)
        t = time.perf_counter()
        fn(*inputs)
        times.append(time.perf_counter() - t)
        if time.perf_counter() - start > budget and len(times) >= 3:
            break
    return statistics.median(times)


def same(a, b) -> bool:
    if isinstance(a, tuple):
        return all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-9, atol=1e-12))


def graph_kind(fn, args: tuple, backend: str) -> str:
    """What ember made of the kernel with this backend: its graph, or `python`."""
    ember.reset()
    ember.compile(fn, backend=backend)(*fresh(args))
    stats = ember.stats()
    if stats["compiles"] == 0:
        return "python"
    if not runs_loop_ops(backend):
        return f"{stats['compiles']} graphs, {stats['graph_breaks']} breaks"
    report = ember.explain(ember.compile(fn, backend=backend), *fresh(args))
    text = "\n".join(report.graphs)
    return f"{report.op_count} ops, {text.count('= loop(')} loops"


def kernels_table(scale: int, backend: str, repeats: int) -> None:
    print(f"loop kernels (scale {scale}, backend {backend}); ratio = NumPy time / time")
    header = f"{'kernel':22s} {'numpy':>10s} {'ember':>10s} {'ratio':>7s} {'compile':>9s}"
    if numba is not None:
        header += f" {'numba':>10s} {'ratio':>7s}"
    print(header + "  graph")
    ratios = []
    for name, (fn, args) in kernel_inputs(scale).items():
        want = fn(*fresh(args))
        ember.reset()
        compiled = ember.compile(fn, backend=backend)
        t = time.perf_counter()
        got = compiled(*fresh(args))
        first = time.perf_counter() - t
        if not same(got, want):
            print(f"{name:22s} WRONG RESULT")
            continue
        t_numpy = median_time(fn, args, repeats)
        t_ember = median_time(compiled, args, repeats)
        ratios.append(t_numpy / t_ember)
        line = (f"{name:22s} {t_numpy * 1e3:9.3f}ms {t_ember * 1e3:9.3f}ms "
                f"{t_numpy / t_ember:6.2f}x {max(first - t_ember, 0) * 1e3:8.1f}ms")
        if numba is not None:
            jitted = numba.njit(fn)
            jitted(*fresh(args))
            t_numba = median_time(jitted, args, repeats)
            line += f" {t_numba * 1e3:9.3f}ms {t_numpy / t_numba:6.2f}x"
        print(line + "  " + graph_kind(fn, args, backend))
    if ratios:
        print(f"geomean ratio ember: {statistics.geometric_mean(ratios):.2f}x")


def compile_table(backend: str, steps: list[int]) -> None:
    print(f"\ncompile time of a recurrence against its trip count (backend {backend})")
    print(f"{'steps':>8s} {'first call':>11s} {'cached call':>12s} {'numpy':>10s}  graph")
    for n in steps:
        x = np.random.default_rng(n).random(n)
        ember.reset()
        compiled = ember.compile(recurrence, backend=backend)
        t = time.perf_counter()
        compiled(x)
        first = time.perf_counter() - t
        cached = median_time(compiled, (x,), 5)
        plain = median_time(recurrence, (x,), 5)
        print(f"{n:8d} {first * 1e3:10.1f}ms {cached * 1e3:11.2f}ms {plain * 1e3:9.2f}ms  "
              f"{graph_kind(recurrence, (x,), backend)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--backend", default="cranelift")
    parser.add_argument("--scale", type=int, default=None)
    options = parser.parse_args()
    scale = options.scale or (16 if options.quick else 48)
    repeats = 5 if options.quick else 15
    kernels_table(scale, options.backend, repeats)
    steps = [100, 1000] if options.quick else [100, 1000, 10_000, 100_000]
    compile_table(options.backend, steps)


if __name__ == "__main__":
    main()
