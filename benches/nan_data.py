"""ember against NumPy on data holding NaN (missing values), and on loops that raise a
floating-point flag NumPy warns about on every call.

    python benches/nan_data.py [--quick]

Ratios are NumPy's time divided by ember's (higher is better), the median of ratios each
measured back to back in this process (these machines are noisy). `reruns/call` is how often a
compiled call ran again with NumPy (or as Python) because a kernel raised a flag: 0 for NaN
data, where NumPy warns of nothing; 1 for the warning loops, under the default errstate.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import ember
import numpy as np


def relu_clip(x):
    return np.clip(np.maximum(x, 0.0), 0.0, 1.0)


def where_scale(x, y):
    return np.where(x > y, x - y, 0.0) * 2.0


def row_max(x):
    return x.max(axis=-1), np.argmax(x, axis=-1)


def fmax_fill(x, y):
    return np.fmax(x, y) + np.fmin(x, 0.0)


def masked_mean(x):
    ok = ~np.isnan(x)
    return np.where(ok, x, 0.0).sum(axis=0) / ok.sum(axis=0)


def sort_rows(x):
    return np.sort(x, axis=-1)


def log_loop(x, n):
    acc = np.zeros_like(x)
    for _ in range(n):
        acc = acc + np.log(x) * 0.5
    return acc


def ratio_loop(x, n):
    s = 0.0
    for i in range(n):
        s += x[i] / x[i % 3]
    return s


def nan_data(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    x = rng.standard_normal(shape)
    x[rng.random(shape) < 0.1] = np.nan
    return x


def cases(quick: bool) -> list[tuple[str, object, tuple, dict]]:
    rng = np.random.default_rng(0)
    n = 20_000 if quick else 200_000
    x, y = nan_data(rng, (n,)), nan_data(rng, (n,))
    m = nan_data(rng, (n // 100, 100))
    zeros = np.linspace(0.0, 3.0, 64)
    return [
        ("relu_clip, 10% NaN", relu_clip, (x,), {}),
        ("where_scale, 10% NaN", where_scale, (x, y), {}),
        ("row_max + argmax, 10% NaN", row_max, (m,), {}),
        ("fmax_fill, 10% NaN", fmax_fill, (x, y), {}),
        ("masked_mean, 10% NaN", masked_mean, (m,), {}),
        ("sort_rows, 10% NaN", sort_rows, (m[:, :16].copy(),), {}),
        ("log loop, log(0) warns", log_loop, (zeros, 20), {}),
        ("log loop under errstate(ignore)", log_loop, (zeros, 20), {"all": "ignore"}),
        ("scalar ratio loop, 0/0 warns", ratio_loop, (np.linspace(0.0, 3.0, 300), 300), {}),
    ]


def measure(fn, args, errstate, rounds: int) -> tuple[float, float, float]:
    compiled = ember.compile(fn)

    def timed(f) -> float:
        reps = 0
        start = time.perf_counter()
        while True:
            with np.errstate(**errstate):
                f(*args)
            reps += 1
            elapsed = time.perf_counter() - start
            if elapsed > 0.02:
                return elapsed / reps

    timed(compiled)
    before = ember.stats()["fp_reruns"]
    with np.errstate(**errstate):
        compiled(*args)
    reruns = ember.stats()["fp_reruns"] - before
    ratios, numpy_times = [], []
    for _ in range(rounds):
        t_numpy = timed(fn)
        t_ember = timed(compiled)
        ratios.append(t_numpy / t_ember)
        numpy_times.append(t_numpy)
    return statistics.median(ratios), statistics.median(numpy_times), reruns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    opts = parser.parse_args()
    warnings.simplefilter("ignore")  # the warning loops warn on every call
    print(f"{'case':36s} {'NumPy us':>10s} {'ember/NumPy':>12s} {'reruns/call':>12s}")
    for name, fn, args, errstate in cases(opts.quick):
        ratio, t_numpy, reruns = measure(fn, args, errstate, 3 if opts.quick else 7)
        print(f"{name:36s} {t_numpy * 1e6:10.1f} {ratio:11.2f}x {reruns:12d}")


if __name__ == "__main__":
    main()
