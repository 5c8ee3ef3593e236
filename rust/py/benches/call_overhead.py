"""Per-call cost of `CompiledGraph.__call__` on tiny arrays (input checks, output allocation,
GIL release) next to the NumPy expression it replaces.

Run: python rust/py/benches/call_overhead.py
"""

import timeit

import numpy as np
from ember import _core as core

ADD = """ember-ir 1
func @f(%0: f64[8], %1: f64[8]) -> (f64[8]) {
  %2 = add(%0, %1) : f64[8]
  return %2
}
"""


def per_call_ns(stmt, **names):
    timer = timeit.Timer(stmt, globals=names)
    n = 100_000
    return min(timer.repeat(number=n, repeat=7)) / n * 1e9


def main():
    graph = core.compile_ir(ADD, num_threads=1)
    x, y = np.ones(8), np.ones(8)
    print(f"numpy x + y:              {per_call_ns('x + y', x=x, y=y):7.1f} ns")
    print(f"CompiledGraph(x, y):      {per_call_ns('g(x, y)', g=graph, x=x, y=y):7.1f} ns")


if __name__ == "__main__":
    main()
