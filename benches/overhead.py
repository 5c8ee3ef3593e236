"""Per-call overhead of ember's cached path and the cost of capture.

    python benches/overhead.py

- call overhead: a 2-input elementwise function on 8-element float64 arrays, plain Python vs
  compiled with the eager backend (cache hit: the frame hook's guard check in Rust, the
  generated entry, the backend call). Medians over repeats, per call.
- capture: converting a 30-op function (bytecode run symbolically, guards, entry codegen),
  median over fresh captures; and its first compiled call after `ember.reset()`.
"""

from __future__ import annotations

import statistics
import time

import ember
import numpy as np
from ember.capture.convert import convert


def elementwise(x, y):
    return x * y + x


def thirty_ops(x, y):
    a = x * y + 1.0
    b = np.tanh(a) - y
    c = np.exp(-b * b) * 0.5
    d = np.sqrt(np.abs(c + x)) / (1.0 + y)
    e = np.maximum(d, a) - np.minimum(b, c)
    f = e * e - c
    g = np.where(f > 0.0, f, -f)
    return (g * a + b).sum(axis=0) - e.max()


def null_backend(graph, example_inputs):
    """Returns precomputed outputs: isolates the hook, guards and entry from the backend."""
    outputs = tuple(np.zeros(v.shape, v.dtype) for v in graph.outputs)
    return lambda *inputs: outputs


def per_call(fn, args, calls: int = 2000, repeats: int = 15) -> float:
    """Median seconds per call."""
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        samples.append((time.perf_counter() - start) / calls)
    return statistics.median(samples)


def capture_time(fn, args, repeats: int = 30) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        convert(fn, args, backend="eager")
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def first_call_time(fn, args, repeats: int = 15) -> float:
    samples = []
    compiled = ember.compile(fn)
    for _ in range(repeats):
        ember.reset()
        start = time.perf_counter()
        compiled(*args)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    x, y = np.linspace(0.0, 1.0, 8), np.linspace(1.0, 2.0, 8)
    compiled = ember.compile(elementwise)
    compiled(x, y)
    plain_s = per_call(elementwise, (x, y))
    compiled_s = per_call(compiled, (x, y))
    assert ember.stats()["cache_hits"] > 0
    null = ember.compile(elementwise, backend=null_backend)
    ember.reset()
    null(x, y)
    null_s = per_call(null, (x, y))

    big_x, big_y = np.linspace(0.0, 1.0, 32).reshape(4, 8), np.linspace(1.0, 2.0, 8)
    cap = convert(thirty_ops, (big_x, big_y))
    capture_s = capture_time(thirty_ops, (big_x, big_y))
    first_s = first_call_time(thirty_ops, (big_x, big_y))

    rows = [
        ("elementwise 2 inputs, 8 elements: plain Python", plain_s * 1e6, "us/call"),
        ("elementwise 2 inputs, 8 elements: ember eager, cache hit", compiled_s * 1e6,
         "us/call"),
        ("  overhead over plain", (compiled_s - plain_s) * 1e6, "us/call"),
        ("same, backend returning precomputed outputs (hook+guards+entry)", null_s * 1e6,
         "us/call"),
        (f"capture of a {cap.op_count}-op function (convert)", capture_s * 1e3, "ms"),
        ("first compiled call of it (after reset)", first_s * 1e3, "ms"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measurement':<{width}}  {'median':>10}")
    for name, value, unit in rows:
        print(f"{name:<{width}}  {value:>10.2f} {unit}")


if __name__ == "__main__":
    main()
