"""Gathers, scatters, sorting and counting (`tests/ops_kernels.py`) run verbatim: plain NumPy,
ember (`ember.compile`, Cranelift backend) and Numba's `njit` where it compiles the same
source. One process; medians of repeated runs on fresh copies of the inputs; ratios are
NumPy's time over the contender's (above 1: faster than NumPy); results checked against
NumPy's before timing.

    python benches/indexing.py [--scale N] [kernel ...]
"""

from __future__ import annotations

import argparse
import copy
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import ember
from kernels import median_time, numba
from ops_kernels import kernel_inputs


def agrees(fn, contender, inputs) -> bool:
    """The contender's results and updated arguments equal NumPy's (tuples item by item)."""
    a, b = copy.deepcopy(inputs), copy.deepcopy(inputs)
    want, got = fn(*a), contender(*b)
    if not isinstance(want, tuple):
        want, got = (want,), (got,)
    pairs = [*zip(got, want, strict=True), *zip(b, a, strict=True)]
    return all(np.allclose(np.asarray(g, float), np.asarray(w, float), rtol=1e-6, atol=1e-9)
               for g, w in pairs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, default=256)
    parser.add_argument("kernels", nargs="*")
    args = parser.parse_args()
    print(f"{'kernel':<16}{'numpy ms':>10}{'ember ms':>10}{'ratio':>8}{'numba ms':>10}"
          f"{'ratio':>8}  breaks")
    for name, (fn, inputs) in kernel_inputs(args.scale).items():
        if args.kernels and name not in args.kernels:
            continue
        ember.reset()
        compiled = ember.compile(fn)
        if not agrees(fn, compiled, inputs):
            print(f"{name:<16} ember disagrees with NumPy")
            continue
        breaks = ember.stats()["graph_breaks"]
        base = median_time(fn, inputs)
        mine = median_time(compiled, inputs)
        numba_cols = f"{'-':>10}{'-':>8}"
        if numba is not None:
            jitted = numba.njit(fn)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ok = agrees(fn, jitted, inputs)
            except Exception:  # noqa: BLE001 (Numba refuses the source: no column)
                ok = False
            if ok:
                theirs = median_time(jitted, inputs)
                numba_cols = f"{theirs * 1e3:>10.3f}{base / theirs:>8.2f}"
        print(f"{name:<16}{base * 1e3:>10.3f}{mine * 1e3:>10.3f}{base / mine:>8.2f}"
              f"{numba_cols}  {breaks}")


if __name__ == "__main__":
    main()
