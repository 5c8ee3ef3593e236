"""Branches on 0-d values outside loops and `math` functions of graph values there
(docs/ARCHITECTURE.md, section 10): per call, plain NumPy against ember (cranelift) on a
cache hit, medians of 7 repeats measured in one process; the ratio is ember's time over
NumPy's. Each function compiles to one graph with an `if` op (or a rerun check) where it
used to break once.

    python benches/branches.py
"""

from __future__ import annotations

import math
import statistics
import sys
import timeit
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import ember
import user_kernels_scalar as kernels


def last_or_missing(dp, amount):
    inf = amount + 1
    return dp[amount] if dp[amount] != inf else -1


def larger_sum(a, b):
    return a if a.sum() > b.sum() else b


def sign_scale(x):
    t = x.sum()
    scale = 1.0 if t > 0 else -1.0
    return x * scale


def rms(x):
    return math.sqrt(x.sum() / x.size)


def cases() -> list[tuple[str, object, tuple]]:
    r = np.random.default_rng(0)
    return [
        ("coin_change", kernels.coin_change, (np.array([3, 7, 11]), 40)),
        ("rmse_zip", kernels.rmse_zip, (r.random(100), r.random(100))),
        ("last_or_missing", last_or_missing, (np.array([0, 3, 5]), 2)),
        ("larger_sum", larger_sum, (r.random(64), r.random(64))),
        ("sign_scale", sign_scale, (r.random(64) - 0.5,)),
        ("rms", rms, (r.random(64),)),
    ]


def main() -> None:
    for name, fn, args in cases():
        ember.reset()
        compiled = ember.compile(fn)
        compiled(*args)
        plain, fast, ratios = [], [], []
        for _ in range(7):
            p = timeit.timeit(lambda: fn(*args), number=200) / 200 * 1e6  # noqa: B023
            q = timeit.timeit(lambda: compiled(*args), number=200) / 200 * 1e6  # noqa: B023
            plain.append(p)
            fast.append(q)
            ratios.append(q / p)
        breaks = ember.stats()["graph_breaks"]
        print(f"{name:16s} numpy {statistics.median(plain):8.1f} us   ember "
              f"{statistics.median(fast):6.1f} us   ratio {statistics.median(ratios):5.2f}   "
              f"breaks {breaks}")


if __name__ == "__main__":
    main()
