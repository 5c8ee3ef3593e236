"""First calls (capture, compile and the first run) over a fixed set of corpus kernels
(`tests/kernel_cases.py`), in one process: every 30th kernel of the corpus and the slowest
ones to compile. Prints each first call with where its compile time went
(`ember.stats()["compile_time"]`), then the median, 90th percentile and max over the set, and
the same without the slow ones; then the same over the process's CPU time of each first
call (`time.process_time`), which a busy machine disturbs less than the wall clock. Each
kernel's result is checked against NumPy's.

    EMBER_STORED_ENTRIES=0 python benches/first_call_corpus.py [--scale 3] [kernel ...]
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kernels import CASES, agrees, print_first_calls  # noqa: E402

import ember  # noqa: E402

EVERY = 30  # every 30th kernel, from the 8th: a spread over the corpus files
SLOW = ("unpack_6bit_loop", "power_spectrum_fft", "karatsuba", "rk45_adaptive",
        "binomial_option", "fnv1a_64_masked")


def fixed_set() -> list[str]:
    return [name for i, (name, _, _) in enumerate(CASES) if i % EVERY == 7] + [
        name for name in SLOW if name not in {n for i, (n, _, _) in enumerate(CASES)
                                              if i % EVERY == 7}]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, default=3)
    parser.add_argument("kernels", nargs="*")
    args = parser.parse_args()
    names = args.kernels or fixed_set()
    cases = {name: (fn, make) for name, fn, make in CASES}
    print(f"{'kernel':26} {'first':>9} {'cpu':>9} {'capture':>9} {'backend':>9} "
          f"{'codegen':>9}")
    firsts: list[float] = []
    cpus: list[float] = []
    for name in names:
        fn, make = cases[name]
        inputs = make(np.random.default_rng(0), args.scale)
        ember.reset()
        compiled = ember.compile(fn)
        args_copy = copy.deepcopy(inputs)
        c, t = time.process_time(), time.perf_counter()
        compiled(*args_copy)
        first, cpu = time.perf_counter() - t, time.process_time() - c
        stages = ember.stats()["compile_time"]
        ok = agrees(fn, compiled, inputs)
        firsts.append(first)
        cpus.append(cpu)
        print(f"{name:26} {first * 1e3:7.1f}ms {cpu * 1e3:7.1f}ms"
              + "".join(f" {stages.get(s, 0.0) * 1e3:7.1f}ms"
                        for s in ("capture", "backend", "codegen"))
              + ("" if ok else "  WRONG"), flush=True)
    for label, times in (("wall clock", firsts), ("CPU time", cpus)):
        print(f"\n{label}:", end="")
        print_first_calls(names, times)
        typical = [(n, f) for n, f in zip(names, times) if n not in SLOW]
        if typical and len(typical) < len(names):
            print("without the slow ones:", end="")
            print_first_calls([n for n, _ in typical], [f for _, f in typical])

if __name__ == "__main__":
    main()
