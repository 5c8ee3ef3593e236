"""The error function in compiled code: the core's `erf`/`erfc` ops (the C library's
functions) against the composite of elementwise ops (`numpy_api/scipy_erf.py: USE_OP`) and
scipy itself, in one process: time over a million values (float64, float32), exact GELU
`0.5*x*(1+erf(x/sqrt(2)))` forward, and forward with backward (`ember.value_and_grad` inside
`ember.compile`); and each form's largest distance in ulps from the C library's `math.erf` /
`math.erfc` over [-30, 30] and from scipy's float32 loop. Times are medians; ratios are scipy's
(or the composite's) time over the op's.

    EMBER_STORED_ENTRIES=0 python benches/erf.py
"""

from __future__ import annotations

import math
import statistics
import time

import ember
import numpy as np
from ember.numpy_api import scipy_erf
from scipy import special

N = 1_000_000


def _median(fn, *args, repeats=9):
    fn(*args)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _ulps(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    scale = np.spacing(np.maximum(np.abs(want), np.finfo(np.float64).tiny))
    return float(np.max(np.abs(got - want) / scale))


def gelu(x):
    return 0.5 * x * (1.0 + special.erf(x / np.sqrt(2.0)))


def gelu_loss(w, x):
    return np.mean(gelu(x @ w) ** 2)


def step(w, x):
    loss, g = ember.value_and_grad(gelu_loss)(w, x)
    return loss, w - 0.01 * g


def forms():
    """Times and distances of the current form (`scipy_erf.USE_OP`)."""
    ember.reset()
    rng = np.random.default_rng(0)
    x64 = rng.standard_normal(N) * 3
    x32 = x64.astype(np.float32)
    erf = ember.compile(lambda v: special.erf(v))
    erfc = ember.compile(lambda v: special.erfc(v))
    grid = np.linspace(-30, 30, 200_001)
    libm_erf = np.array([math.erf(v) for v in grid])
    libm_erfc = np.array([math.erfc(v) for v in grid])
    w, xb = rng.standard_normal((256, 256)) / 16, rng.standard_normal((512, 256))
    fwd = ember.compile(gelu)
    stepper = ember.compile(step)
    return {
        "erf f64": _median(erf, x64), "erf f32": _median(erf, x32),
        "erfc f64": _median(erfc, x64), "gelu fwd": _median(fwd, xb),
        "gelu fwd+bwd": _median(stepper, w, xb),
        "ulps erf": _ulps(erf(grid), libm_erf), "ulps erfc": _ulps(erfc(grid), libm_erfc),
        "ulps erf f32 vs scipy": _ulps(erf(grid.astype(np.float32)),
                                       special.erf(grid.astype(np.float32))) / 2 ** 29,
    }


def main():
    rng = np.random.default_rng(0)
    x64 = rng.standard_normal(N) * 3
    xb = rng.standard_normal((512, 256))
    scipy_times = {"erf f64": _median(special.erf, x64),
                   "erf f32": _median(special.erf, x64.astype(np.float32)),
                   "erfc f64": _median(special.erfc, x64), "gelu fwd": _median(gelu, xb)}
    scipy_erf.USE_OP = True
    op = forms()
    scipy_erf.USE_OP = False
    composite = forms()
    scipy_erf.USE_OP = True
    print(f"{'':22s}{'op':>12s}{'composite':>12s}{'scipy':>12s}  composite/op  scipy/op")
    for key in op:
        if key.startswith("ulps"):
            unit = "f32 ulps" if "f32" in key else "ulps"
            print(f"{key:22s}{op[key]:12.2f}{composite[key]:12.2f}{'':12s}  ({unit})")
            continue
        sp = scipy_times.get(key)
        sp_text = f"{sp * 1e3:10.2f}ms" if sp else f"{'':12s}"
        ratio = f"{sp / op[key]:8.2f}x" if sp else ""
        print(f"{key:22s}{op[key] * 1e3:10.2f}ms{composite[key] * 1e3:10.2f}ms{sp_text}  "
              f"{composite[key] / op[key]:10.2f}x  {ratio}")


if __name__ == "__main__":
    main()
