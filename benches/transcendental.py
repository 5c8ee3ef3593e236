"""Transcendental functions on large arrays: plain NumPy, ember, numexpr and Numba, in one
process.

    python benches/transcendental.py [--quick] [--threads N]

NumPy runs these ufuncs in AVX-512/AVX2 loops; ember's kernels run NumPy's own loops on long
rows, block by block inside the fused kernel (docs/ARCHITECTURE.md, section 7-9), so a lone
function should run at NumPy's speed and a fused expression faster. Each row prints the median
time per call (samples interleaved) and the ratio NumPy time / peer time (above 1: faster than
NumPy). `--threads 1` keeps ember's kernels (and numexpr) on one thread, for comparing loops.
"""

from __future__ import annotations

import argparse
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))


def lone(name):
    # A function of its own per op (one code object compiled for several ufuncs would reach
    # ember's recompile limit).
    return eval(f"lambda x: np.{name}(x)", {"np": np}), f"{name}(x)"


def cases():
    yield (*lone("exp"), "uniform")
    yield (*lone("tanh"), "uniform")
    yield (*lone("log"), "positive")
    yield (*lone("sin"), "uniform")
    yield (*lone("arcsin"), "unit")
    yield (*lone("sinh"), "uniform")
    yield (*lone("log10"), "positive")
    yield (lambda x: np.abs(x) ** 2.5, "abs(x) ** 2.5", "uniform")
    yield (lambda x: np.arctan2(x, 1.5 - x), "arctan2(x, 1.5 - x)", "uniform")
    yield (lambda x: np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi), "gaussian pdf", "uniform")
    yield (lambda x: 1.0 / (1.0 + np.exp(-x)), "sigmoid", "uniform")
    yield (lambda x: np.log(np.exp(x).sum()), "log(sum(exp(x)))", "uniform")
    yield (lambda x: np.tanh(x) * 0.5 + np.sin(x) * np.cos(x), "tanh + sin*cos", "uniform")
    yield (lambda x: np.arctan(x) + np.arcsinh(x), "arctan + arcsinh", "uniform")


def inputs(kind, n, dtype):
    rng = np.random.default_rng(0)
    x = {"uniform": rng.uniform(-3, 3, n), "positive": rng.uniform(0.1, 10, n),
         "unit": rng.uniform(-1, 1, n)}[kind]
    return x.astype(dtype)


def numexpr_of(label):
    """The numexpr form of a row, where numexpr has its functions."""
    forms = {"exp(x)": "exp(x)", "tanh(x)": "tanh(x)", "log(x)": "log(x)", "sin(x)": "sin(x)",
             "arcsin(x)": "arcsin(x)", "sinh(x)": "sinh(x)", "log10(x)": "log10(x)",
             "sigmoid": "1 / (1 + exp(-x))", "abs(x) ** 2.5": "abs(x) ** 2.5",
             "arctan2(x, 1.5 - x)": "arctan2(x, 1.5 - x)",
             "gaussian pdf": f"exp(-0.5 * x * x) / {math.sqrt(2 * math.pi)!r}",
             "tanh + sin*cos": "tanh(x) * 0.5 + sin(x) * cos(x)",
             "arctan + arcsinh": "arctan(x) + arcsinh(x)"}
    return forms.get(label)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--no-peers", action="store_true")
    args = parser.parse_args()
    if args.threads:
        os.environ["EMBER_NUM_THREADS"] = str(args.threads)
    import ember
    from matmul import per_call  # imports ember: after the thread count is set

    numexpr = numba = None
    if not args.no_peers:
        try:
            import numexpr
            if args.threads:
                numexpr.set_num_threads(args.threads)
        except ImportError:
            pass
        try:
            import numba
        except ImportError:
            pass
    budget = 0.2 if args.quick else 0.6
    n = 1 << 18
    print(f"numpy {np.__version__}; {n} elements; ember threads: {args.threads or 'all cores'}")
    print(f"{'':26s}{'numpy':>10s}{'ember':>10s}{'numexpr':>10s}{'numba':>10s}   "
          f"ember/np  ne/np  nb/np")
    ratios = []
    for dtype in (np.float32, np.float64):
        for fn, label, kind in cases():
            x = inputs(kind, n, dtype)
            fns = [fn, ember.compile(fn)]
            form = numexpr_of(label) if numexpr else None
            fns.append((lambda f: lambda x: numexpr.evaluate(f, local_dict={"x": x}))(form)
                       if form else None)
            fns.append(numba.njit(fn) if numba else None)
            timed = [f for f in fns if f is not None]
            for f in timed[2:]:
                try:
                    f(x)
                except Exception:  # noqa: BLE001 (a peer that cannot run the row is left out)
                    timed.remove(f)
            times = dict(zip(map(id, timed), per_call(timed, (x,), budget), strict=True))
            t = [times.get(id(f)) if f is not None else None for f in fns]
            cells = "".join(f"{v * 1e6:9.1f}u" if v else f"{'-':>10s}" for v in t)
            r = [f"{t[0] / v:7.2f}" if v else f"{'-':>7s}" for v in t[1:]]
            ratios.append(t[0] / t[1])
            print(f"{np.dtype(dtype).name + ' ' + label:26s}{cells}   {' '.join(r)}", flush=True)
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"\nember / NumPy: geomean {geo:.2f}x, min {min(ratios):.2f}x")


if __name__ == "__main__":
    main()
