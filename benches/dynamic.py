"""Dynamic-shape kernels against static ones on the same sizes, with NumPy and Numba alongside.

    python benches/dynamic.py [--quick] [--threads N] [WORKLOAD...]

Per workload and batch size: `static` is the function compiled with `dynamic=False` (sizes
compiled in, one compile per size); `dynamic` is one compile with `dynamic=True`, warmed on
another batch size first, so the timed calls run kernels generated once for symbolic sizes
with a plan made for each new size. `dyn/static` is the ratio of their medians (samples of all contenders taken in turn) (1.00: no cost;
the target is at most 1.10). `np/dyn` is NumPy's time over the dynamic one (higher is better);
Numba (`njit`, row loops where NumPy code does not compile under it) where installed. Last, the
batch-size sweep: one function called with 100 batch sizes (one slicing its symbolic axis
`x[1:]` over 100 lengths, one slicing an argument by an int argument `x[:n]` over 100 values
of `n`, joins and pads whose sizes are sums of symbols, `2*s0` and `s0+2`, and an int
argument given as a size, `np.empty(n)` filled by `range(n)`), and the
compiles, kernels generated
and plans made it took (`ember.stats()`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import time

import ember
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from compare import _rows, expr, layernorm_gelu, softmax

try:
    numba = importlib.import_module("numba")
except ImportError:
    numba = None


def mlp(x, w, b):
    return np.maximum(x @ w + b, 0.0)


def column_stats(x):
    return x.mean(axis=0), x.max(axis=0)


def head_mean(x, n):
    return x[:n].mean(axis=0) + x[n:].sum(axis=0)


def strided(x):
    return x[::2] * 2.0 + x[1::2]


def roll_diff(x):
    return np.roll(x, 1, axis=0) - x


def joined(x, y):
    return np.concatenate([x, y]) * 2.0


def padded(x):
    return np.pad(x, 1) + 1.0


def tiled(x):
    return np.tile(x, (2, 1)) - 1.0


def flat_dot(x):
    return x.ravel() @ x.ravel()


def logistic(r, n):
    xs = np.empty(n)
    x = 0.25
    for i in range(n):
        x = r * x * (1.0 - x)
        xs[i] = x
    return xs


def relax(steps, a):
    for _ in range(1, steps):
        a[1:-1] = (a[:-2] + a[1:-1] + a[2:]) / 3.0
    return a


def ramp(x, n):
    return np.arange(n) * 0.5 + x.sum()


def class_means(labels, w):
    return np.bincount(labels, weights=w, minlength=64) / np.maximum(
        np.bincount(labels, minlength=64), 1)


def lookup_scatter(table, ids, w):
    grad = np.zeros(table.shape[0])
    np.add.at(grad, ids, w)
    return table[ids].sum(axis=0), grad


def make_inputs(name, rows, rng):
    if name == "class_means":
        return (rng.integers(0, 64, rows * 256), rng.random(rows * 256))
    if name == "lookup_scatter":
        return (rng.random((256, 4)), rng.integers(0, 256, rows * 64), rng.random(rows * 64))
    if name == "logistic":
        return (3.7, rows * 64)
    if name == "relax":
        return (8, rng.standard_normal(rows * 1024))
    if name == "ramp":
        return (rng.standard_normal(16), rows * 1024)
    if name == "joined":
        return (rng.standard_normal((rows, 1024)), rng.standard_normal((rows, 1024)))
    if name in ("padded", "tiled", "flat_dot"):
        return (rng.standard_normal((rows, 1024)),)
    if name == "head_mean":
        return (rng.standard_normal((rows + 4, 1024)), rows)
    if name == "strided":
        return (rng.standard_normal((2 * rows, 1024)),)
    if name == "roll_diff":
        return (rng.standard_normal((rows, 1024)),)
    if name == "expr":
        a = rng.random(rows * 1024)
        return (a, rng.random(rows * 1024))
    if name in ("softmax", "column_stats"):
        return (rng.standard_normal((rows, 1024)).astype(np.float32),)
    if name == "layernorm_gelu":
        return (rng.standard_normal((rows, 1024)).astype(np.float32),
                rng.standard_normal(1024).astype(np.float32),
                rng.standard_normal(1024).astype(np.float32))
    if name == "mlp":
        return (rng.standard_normal((rows, 256)), rng.standard_normal((256, 256)),
                rng.standard_normal(256))
    raise KeyError(name)


WORKLOADS = {"expr": expr, "softmax": softmax, "layernorm_gelu": layernorm_gelu, "mlp": mlp,
             "column_stats": column_stats, "head_mean": head_mean, "strided": strided,
             "roll_diff": roll_diff, "joined": joined, "padded": padded, "tiled": tiled,
             "flat_dot": flat_dot, "logistic": logistic, "relax": relax, "ramp": ramp,
             "class_means": class_means, "lookup_scatter": lookup_scatter}


def numba_version(name):
    if numba is None:
        return None
    rows = _rows(range)
    fn = rows.get(name, WORKLOADS[name])
    if name in ("column_stats", "head_mean", "strided", "roll_diff", "joined", "padded",
                "tiled", "flat_dot", "relax", "class_means", "lookup_scatter"):
        return None  # axis reductions, np.roll with an axis, ufunc.at: not under Numba
    return numba.njit(fn)


def medians(fns, args, repeat):
    """The median time of each function on `args`, their samples taken in turn (one sample of
    each, then the next round) so that load on the machine falls on all of them alike."""
    number = 1
    for fn in fns:
        fn(*args)
        t0 = time.perf_counter()
        fn(*args)
        once = time.perf_counter() - t0
        number = max(number, int(1e-3 / max(once, 1e-7)))
    samples = [[] for _ in fns]
    for _ in range(repeat):
        for fn, out in zip(fns, samples, strict=True):
            t0 = time.perf_counter()
            for _ in range(number):
                fn(*args)
            out.append((time.perf_counter() - t0) / number)
    return [statistics.median(s) for s in samples]


def check_equal(got, want, name):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want, strict=True):
        tol = 1e-4 if w.dtype == np.float32 else 1e-9
        assert g.dtype == w.dtype and g.shape == w.shape, name
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=name)


def run_table(sizes, repeat, names=()):
    rng = np.random.default_rng(0)
    print(f"{'workload':15} {'rows':>6} {'NumPy':>10} {'static':>10} {'dynamic':>10} "
          f"{'Numba':>10} {'dyn/static':>10} {'np/dyn':>7}")
    ratios = []
    for name, fn in WORKLOADS.items():
        if names and name not in names:
            continue
        ember.reset()
        dynamic = ember.compile(fn, dynamic=True)
        dynamic(*make_inputs(name, 3, rng))  # compiled (kernels generated) on another size
        nb = numba_version(name)
        for rows in sizes:
            args = make_inputs(name, rows, rng)
            static = ember.compile(fn, dynamic=False)
            want = fn(*_copied(args))
            check_equal(dynamic(*_copied(args)), want, name)
            check_equal(static(*_copied(args)), want, name)
            fns = [fn, static, dynamic] + ([nb] if nb is not None else [])
            t_np, t_st, t_dy, *rest = medians(fns, args, repeat)
            t_nb = rest[0] if rest else float("nan")
            ratios.append(t_dy / t_st)
            print(f"{name:15} {rows:6} {t_np * 1e6:9.1f}u {t_st * 1e6:9.1f}u {t_dy * 1e6:9.1f}u "
                  f"{t_nb * 1e6:9.1f}u {t_dy / t_st:10.2f} {t_np / t_dy:7.2f}")
    print(f"median dyn/static over all rows: {statistics.median(ratios):.3f} "
          f"(max {max(ratios):.3f})")


def _copied(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def series_step(x, w):
    pred = x[:-1] @ w
    return ((pred - x[1:]) ** 2).mean(axis=0), x[-1] + x[0]


def head_product(x, n, w):
    return x[:n] @ w, x[n:].sum()


def run_sweep():
    rng = np.random.default_rng(1)
    w, b = rng.standard_normal((64, 32)), rng.standard_normal(32)
    sweeps = [("batch sizes (x @ w + b)", mlp, lambda x: (x, w, b)),
              ("series lengths (x[:-1] @ w - x[1:], x[-1])", series_step,
               lambda x: (x, rng.standard_normal((64, 64))))]
    long = rng.standard_normal((128, 64))
    sweeps.append(("run-time bounds (x[:n] @ w, x[n:])", head_product, lambda x: (long, len(x), w)))
    sweeps.append(("joined batches (np.concatenate([x, y]), 2*s0 rows)", joined,
                   lambda x: (x, x + 1.0)))
    sweeps.append(("padded batches (np.pad(x, 1), s0+2 rows)", padded, lambda x: (x,)))
    sweeps.append(("int sizes (np.empty(n), range(n))", logistic,
                   lambda x: (3.7, len(x))))
    for what, fn, make in sweeps:
        ember.reset()
        f = ember.compile(fn)
        t0 = time.perf_counter()
        for rows in rng.permutation(np.arange(2, 102)):
            args = make(rng.standard_normal((int(rows), 64)))
            check_equal(f(*args), fn(*args), "sweep")
        elapsed = time.perf_counter() - t0
        s = ember.stats()
        print(f"100 {what}: compiles={s['compiles']} "
              f"kernels_generated={s['kernels_generated']} shape_plans={s['shape_plans']} "
              f"recompiles={s['recompiles']} total {elapsed * 1e3:.1f} ms")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("names", nargs="*", help="workloads to time (default: all)")
    args = parser.parse_args()
    ember.config.num_threads = args.threads
    if numba is not None:
        numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    sizes = [7, 64, 512] if args.quick else [7, 64, 512, 2048]
    print(f"threads={args.threads}, medians of {5 if args.quick else 15} runs")
    run_table(sizes, 5 if args.quick else 15, args.names)
    run_sweep()


if __name__ == "__main__":
    main()
