"""Graphs of many small operations compiled by ember against plain NumPy, in one process.

    python benches/small.py [--quick]

On small arrays NumPy's cost is its per-call overhead (about a microsecond per operation), and
ember's is the fixed cost of a cached call plus a launch per kernel. Each case prints the
median seconds per call (samples interleaved) of plain NumPy and of the compiled function, their
ratio (NumPy time / ember time: above 1 means ember is faster), the NumPy operations the call
executes, and ember's cost per such operation. The chains of 20 to 300 operations separate
the fixed cost of a call from the cost per operation: the slope between two chain lengths is
the per-operation cost, the intercept the per-call one.
"""

from __future__ import annotations

import statistics
import sys

import ember
import numpy as np
from matmul import per_call


def diagonal_tanh(a):
    t = 0.0
    for i in range(a.shape[0]):
        t += np.tanh(a[i, i])
    return t


def particles(x, v, dt):
    """Leapfrog steps of a spring system on 3-vectors, with its energy each step."""
    e = 0.0
    for _ in range(50):
        v = v - dt * x
        x = x + dt * v
        e = 0.5 * np.sum(v * v) + 0.5 * np.sum(x * x)
    return x, v, e


def chain(n):
    """A function of `n` NumPy operations on a small vector: centring (a reduction and a
    subtraction) and a scaling, repeated, so that the operations cannot all fuse into one
    kernel."""

    def f(x):
        for _ in range(n // 3):
            x = (x - x.mean()) * 1.5
        return x

    return f, 3 * (n // 3)


def mlp(x, w1, b1, w2, b2):
    h = np.tanh(x @ w1 + b1)
    return np.maximum(h @ w2 + b2, 0.0)


def cases():
    rng = np.random.default_rng(0)
    out = [
        ("diagonal tanh, 300 steps", diagonal_tanh, (rng.random((300, 300)),), 2 * 300),
        ("particles 3-vectors, 50 steps", particles,
         (rng.random(3), rng.random(3), 0.01), 50 * 11),
        ("mlp 4x16 -> 32 -> 8", mlp,
         (rng.random((4, 16)), rng.random((16, 32)), rng.random(32), rng.random((32, 8)),
          rng.random(8)), 7),
    ]
    for n in (21, 102, 300):
        f, ops = chain(n)
        out.append((f"chain of {ops} ops on 8 elements", f, (rng.random(8),), ops))
    return out


def main() -> None:
    budget = 0.2 if "--quick" in sys.argv else 0.6
    ember.config.recompile_limit = 64
    print(f"numpy {np.__version__}; ember threads: {ember.config.num_threads or 'all cores'}")
    print(f"\n{'case':<34} {'numpy':>10} {'ember':>10} {'ratio':>7} {'ops':>5} {'ember/op':>9}")
    ratios = []
    for name, fn, args, ops in cases():
        compiled = ember.compile(fn)
        got, want = compiled(*args), fn(*args)
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,), strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)
        t_np, t_em = per_call([fn, compiled], args, budget)
        ratios.append(t_np / t_em)
        print(f"{name:<34} {t_np * 1e6:>8.1f}us {t_em * 1e6:>8.1f}us {t_np / t_em:>6.2f}x "
              f"{ops:>5} {t_em / ops * 1e9:>7.0f}ns")
    print(f"\ngeomean ratio {statistics.geometric_mean(ratios):.2f}x, min {min(ratios):.2f}x")


if __name__ == "__main__":
    main()
