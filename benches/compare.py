"""ember side by side with NumPy, Numba and numexpr, in one process, as one table.

    python benches/compare.py [--quick] [--backend cranelift]

Times are medians of repeated runs (these machines are noisy). Ratios are NumPy's time divided
by the contender's (higher is better). GB/s counts the bytes each kernel must read and write
once, set against this machine's measured copy bandwidth.
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

try:
    numba = importlib.import_module("numba")
except ImportError:
    numba = None
try:
    numexpr = importlib.import_module("numexpr")
except ImportError:
    numexpr = None


# ---- the workloads, written as ordinary NumPy ---------------------------------------------------


def expr(a, b):
    return np.sin(a) * np.exp(-b) + a * b - 0.5


def softmax(x):
    m = x.max(axis=-1, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=-1, keepdims=True)


def layernorm_gelu(x, g, b):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    y = (x - mu) / np.sqrt(var + 1e-5) * g + b
    return 0.5 * y * (1.0 + np.tanh(0.7978845608028654 * (y + 0.044715 * y * y * y)))


def sum_squares(a):
    return (a * a).sum()


def black_scholes(s, k, t, r, v):
    sqrt_t = np.sqrt(t)
    d1 = (np.log(s / k) + (r + 0.5 * v * v) * t) / (v * sqrt_t)
    d2 = d1 - v * sqrt_t

    def cnd(d):
        # Abramowitz-Stegun 26.2.17 normal CDF.
        z = np.abs(d)
        q = 1.0 / (1.0 + 0.2316419 * z)
        poly = q * (0.319381530 + q * (-0.356563782 + q * (1.781477937
                    + q * (-1.821255978 + q * 1.330274429))))
        c = 1.0 - 0.3989422804014327 * np.exp(-0.5 * z * z) * poly
        return np.where(d < 0, 1.0 - c, c)

    disc = np.exp(-r * t)
    call = s * cnd(d1) - k * disc * cnd(d2)
    put = k * disc * cnd(-d2) - s * cnd(-d1)
    return call, put


def add2(a, b):
    return a * b + a


# Numba compiles neither `keepdims` reductions nor broadcasting against them: its users write
# these two as loops over rows, so that is what Numba runs (`prange` rows when parallel).
def _rows(loop_range):
    def softmax_rows(x):
        out = np.empty_like(x)
        for i in loop_range(x.shape[0]):
            row = x[i]
            m = row.max()
            e = np.exp(row - m)
            out[i] = e / e.sum()
        return out

    def layernorm_gelu_rows(x, g, b):
        out = np.empty_like(x)
        for i in loop_range(x.shape[0]):
            row = x[i]
            mu = row.mean()
            d = row - mu
            var = (d * d).mean()
            y = d / np.sqrt(var + np.float32(1e-5)) * g + b
            out[i] = 0.5 * y * (1.0 + np.tanh(0.7978845608028654 * (y + 0.044715 * y * y * y)))
        return out

    return {"softmax": softmax_rows, "layernorm_gelu": layernorm_gelu_rows}


NUMEXPR = {
    "expr": ("sin(a) * exp(-b) + a * b - 0.5", ("a", "b")),
    "sum_squares": ("sum(a * a)", ("a",)),
}


def make_inputs(name, quick):
    rng = np.random.default_rng(0)
    scale = 8 if quick else 1
    if name == "expr":
        n = 10_000_000 // scale
        return (rng.random(n), rng.random(n)), 3 * n * 8
    if name == "softmax":
        n = 4096 // (2 if quick else 1)
        x = rng.standard_normal((n, 4096)).astype(np.float32)
        return (x,), 2 * x.nbytes
    if name == "layernorm_gelu":
        n = 8192 // scale
        x = rng.standard_normal((n, 1024)).astype(np.float32)
        g = rng.standard_normal(1024).astype(np.float32)
        b = rng.standard_normal(1024).astype(np.float32)
        return (x, g, b), 2 * x.nbytes
    if name == "sum_squares":
        n = 10_000_000 // scale
        return (rng.random(n),), n * 8
    if name == "black_scholes":
        n = 5_000_000 // scale
        s = rng.uniform(5, 30, n)
        k = rng.uniform(1, 100, n)
        t = rng.uniform(0.25, 10, n)
        return (s, k, t, 0.02, 0.3), (3 + 2) * n * 8
    raise KeyError(name)


WORKLOADS = {
    "expr": expr,
    "softmax": softmax,
    "layernorm_gelu": layernorm_gelu,
    "sum_squares": sum_squares,
    "black_scholes": black_scholes,
}


# ---- timing ------------------------------------------------------------------------------------


def median_time(fn, args, repeat, number=1):
    fn(*args)
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn(*args)
        samples.append((time.perf_counter() - t0) / number)
    return statistics.median(samples)


def copy_bandwidth():
    a = np.ones(20_000_000)
    b = np.empty_like(a)
    t = median_time(lambda: np.copyto(b, a), (), 9)
    return 2 * a.nbytes / t / 1e9


def check_equal(got, want, name):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (name, g.dtype, w.dtype, g.shape, w.shape)
        tol = 1e-4 if w.dtype == np.float32 else 1e-9
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=name)


def report_fallbacks(name):
    """Say so when a graph did not compile natively: its row then times the eager backend."""
    s = ember.stats()
    for reason in s["backend_fallbacks"]:
        print(f"  {name}: ran eagerly: {reason}", file=sys.stderr)
    if s["graph_breaks"]:
        print(f"  {name}: graph breaks: {s['break_reasons']}", file=sys.stderr)


def set_threads(n):
    ember.config.num_threads = n
    if numba is not None:
        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    if numexpr is not None:
        numexpr.set_num_threads(n)


def overhead_row(backend, repeat):
    a = np.ones(8)
    b = np.ones(8)
    row = {"NumPy": median_time(add2, (a, b), repeat, 20000)}
    f = ember.compile(add2, backend=backend)
    row["ember"] = median_time(f, (a, b), repeat, 20000)
    if numba is not None:
        row["Numba"] = median_time(numba.njit(add2), (a, b), repeat, 20000)
    return row


def cold_compile_row(backend, name):
    """Seconds from nothing compiled to the first result, on small inputs (ember: capture,
    optimisation, code generation and the run; Numba: typing, LLVM and the run)."""
    inputs = make_inputs(name, True)[0]
    # 64 rows (elements) of every input shaped like the first: small, yet the same program.
    shape = inputs[0].shape
    inputs = tuple(a[:64] if isinstance(a, np.ndarray) and a.shape == shape else a
                   for a in inputs)
    fn = WORKLOADS[name]
    row = {}
    ember.reset()
    f = ember.compile(fn, backend=backend)
    t0 = time.perf_counter()
    f(*inputs)
    row["ember"] = time.perf_counter() - t0
    if numba is not None:
        t0 = time.perf_counter()
        try:
            numba.njit(_rows(range).get(name, fn))(*inputs)
            row["Numba"] = time.perf_counter() - t0
        except Exception as e:  # noqa: BLE001 -- Numba rejects some NumPy spellings
            print(f"  numba {name}: {type(e).__name__}", file=sys.stderr)
    return row


def run(args):
    bw = copy_bandwidth()
    print(f"copy bandwidth: {bw:.1f} GB/s   cores: {os.cpu_count()}   backend: {args.backend}")
    repeat = 5 if args.quick else 11
    header = f"{'workload':<16}{'thr':>4}{'NumPy':>10}{'ember':>10}{'x':>7}{'GB/s':>7}{'%bw':>6}"
    header += f"{'Numba':>10}{'x':>7}{'numexpr':>10}{'x':>7}"
    print(header)
    print("-" * len(header))
    ov = overhead_row(args.backend, repeat)
    line = f"{'call overhead':<16}{'':>4}{ov['NumPy'] * 1e6:>8.2f}us{ov['ember'] * 1e6:>8.2f}us"
    line += f"{'':>20}" + (f"{ov['Numba'] * 1e6:>8.2f}us" if "Numba" in ov else "")
    print(line)
    for name in ("expr", "layernorm_gelu"):
        cc = cold_compile_row(args.backend, name)
        label = f"cold {name}"[:15]
        line = f"{label:<16}{'':>4}{'':>10}{cc['ember'] * 1e3:>8.1f}ms{'':>20}"
        line += f"{cc['Numba'] * 1e3:>8.1f}ms" if "Numba" in cc else f"{'n/a':>10}"
        print(line)
    for name, fn in WORKLOADS.items():
        inputs, nbytes = make_inputs(name, args.quick)
        want = fn(*inputs)
        jitted = par = None
        if numba is not None:
            jitted = numba.njit(_rows(range).get(name, fn))
            par = numba.njit(_rows(numba.prange).get(name, fn), parallel=True)
        for threads in (1, 2):
            set_threads(threads)
            # The thread count is fixed when a graph compiles: compile afresh for each.
            ember.reset()
            compiled = ember.compile(fn, backend=args.backend)
            check_equal(compiled(*inputs), want, name)
            report_fallbacks(name)
            t_np = median_time(fn, inputs, repeat)
            t_em = median_time(compiled, inputs, repeat)
            gbs = nbytes / t_em / 1e9
            line = f"{name:<16}{threads:>4}{t_np * 1e3:>8.2f}ms{t_em * 1e3:>8.2f}ms"
            line += f"{t_np / t_em:>7.2f}{gbs:>7.1f}{100 * gbs / bw:>5.0f}%"
            nb = jitted if threads == 1 else par
            if nb is not None:
                try:
                    check_equal(nb(*inputs), want, f"numba {name}")
                    t_nb = median_time(nb, inputs, repeat)
                    line += f"{t_nb * 1e3:>8.2f}ms{t_np / t_nb:>7.2f}"
                # Numba rejects some NumPy spellings: say so in the table.
                except Exception as e:  # noqa: BLE001
                    line += f"{'n/a':>10}{'':>7}"
                    print(f"  numba {name}: {type(e).__name__}", file=sys.stderr)
            else:
                line += f"{'':>17}"
            if numexpr is not None and name in NUMEXPR:
                src, names = NUMEXPR[name]
                env = dict(zip(names, inputs))
                t_ne = median_time(lambda s=src, e=env: numexpr.evaluate(s, local_dict=e), (),
                                   repeat)
                line += f"{t_ne * 1e3:>8.2f}ms{t_np / t_ne:>7.2f}"
            print(line)


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="smaller inputs, fewer repeats")
    p.add_argument("--backend", default="cranelift")
    run(p.parse_args())
