"""ember in two minutes: compile ordinary NumPy functions, check them against NumPy, time them.

    python examples/demo.py
"""

import time

import ember
import numpy as np


def layernorm_(x, g, b):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * g + b


def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * x**3)))


def softmax_(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def mlp_block_(x, w, g, b):
    # `layernorm_` and `gelu` are ordinary Python helpers: capture inlines them into one graph.
    return gelu(layernorm_(x, g, b)) @ w


def newton_sqrt_(a, tol=1e-12):
    # A convergence loop on an array's value, with a print: ember compiles the arithmetic and
    # runs the `while` test and the print in Python between graphs (a break per trip).
    x = a.copy()
    steps = 0
    while np.abs(x * x - a).max() > tol:
        x = 0.5 * (x + a / x)
        steps += 1
    print(f"  newton_sqrt converged in {steps} steps, max error {np.abs(x * x - a).max():.1e}")
    return x


layernorm = ember.compile(layernorm_)
softmax = ember.compile(softmax_)
mlp_block = ember.compile(mlp_block_)
newton_sqrt = ember.compile(newton_sqrt_)


def timed(fn, *args, repeat=7):
    fn(*args)
    best = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        best.append(time.perf_counter() - t0)
    return sorted(best)[len(best) // 2]


def show(name, compiled, plain, *args):
    t0 = time.perf_counter()
    got = compiled(*args)
    first = time.perf_counter() - t0
    want = plain(*args)
    tol = 1e-4 if want.dtype == np.float32 else 1e-10
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    assert got.dtype == want.dtype and got.shape == want.shape
    t_np, t_em = timed(plain, *args), timed(compiled, *args)
    print(f"{name:<12} {got.shape!s:<14} {got.dtype!s:<8} first call {first * 1e3:6.1f} ms"
          f"   NumPy {t_np * 1e3:7.2f} ms   ember {t_em * 1e3:7.2f} ms   x{t_np / t_em:5.2f}")


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4096, 1024)).astype(np.float32)
    g = rng.standard_normal(1024).astype(np.float32)
    b = rng.standard_normal(1024).astype(np.float32)
    w = rng.standard_normal((1024, 256)).astype(np.float32)

    print("ember demo: results equal NumPy's (checked), times are medians\n")
    show("layernorm", layernorm, layernorm_, x, g, b)
    show("softmax", softmax, softmax_, x)
    show("mlp_block", mlp_block, mlp_block_, x, w, g, b)

    print("\nGraph breaks: code ember cannot capture runs in Python between graphs\n")
    a = np.linspace(1.0, 100.0, 8)
    got = newton_sqrt(a)
    np.testing.assert_allclose(got, np.sqrt(a), rtol=1e-12)
    report = ember.explain(newton_sqrt_, a)  # captures and runs it once more
    print(f"  graphs: {report.graph_count}, graph breaks: {report.graph_break_count}")
    for reason in report.break_reasons:
        print(f"  line {reason.line}: {reason.reason}")

    print("\nWhat ember captured for layernorm (ember.explain):\n")
    print(ember.explain(layernorm_, x[:4, :8], g[:8], b[:8]))
    print("\nCounters (ember.stats):", ember.stats())


if __name__ == "__main__":
    main()
