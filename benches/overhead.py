"""Per-call overhead of ember's cached path and the cost of capture.

    python benches/overhead.py

- dispatch: `x * y + 1` on 8 float64 elements, per call, side by side in one process: the
  plain function; ember (cranelift) on a cache hit through the native fast path, and the same
  entry through the frame hook (`CompiledFunction.__call__`, the path every call took
  before the fast path); an entry with Python around its graph (it returns a list); a guard
  failure (entries for other shapes, past the recompile limit: the frame runs as plain
  Python); a miss (capture and compile, after `ember.reset()`); Numba's `@njit` and
  `@njit(cache=True)` dispatch (where installed). Medians; ratios against the plain function
  and against Numba.
- side by side: plain function, ember (cache hit) and Numba's `@njit` for the call shapes
  of small kernels as users write them: no arguments, three arrays and two Python floats, a
  tuple of two arrays, a Python float result, keyword arguments with a default, a closure, an
  in-place update returning None, NumPy scalar results (alone and in a tuple), a 0-d array
  argument, Python and NumPy int arguments, defaults alone (calls measured interleaved,
  medians); each ember row says whether the native fast path answered the call.
  `python benches/overhead.py --side-by-side` runs this section alone.
- call overhead: a 2-input elementwise function on 8-element float64 arrays, plain Python vs
  compiled with the eager backend (cache hit: the frame hook's guard check in Rust, the
  generated entry, the backend call). Medians over repeats, per call.
- capture: converting a 30-op function (bytecode run symbolically, guards, entry codegen),
  median over fresh captures; and its first compiled call after `ember.reset()`.
- small arrays: a 4x4 add and a 4x4 matrix product, plain NumPy vs compiled with the
  cranelift backend (the native call's own cost: input checks, output reuse, one kernel or
  BLAS call); and 300 scalar ops (`t += np.tanh(a[i, i])` unrolled over a diagonal).
- graph breaks: a function broken once by a call ember does not capture (the graph before,
  the call run in Python by a step function, the resume function's graph after), and a
  `while` loop on an array's value (a break per trip), per call / per trip, against plain
  Python; and the first call of the broken function (two captures, a step and a resume code).
"""

from __future__ import annotations

import importlib
import statistics
import sys
import time

import ember
import numpy as np
from ember.capture.convert import convert
from ember.config import config

try:
    numba = importlib.import_module("numba")
except ImportError:
    numba = None


def multiply_add(x, y):
    return x * y + 1


def multiply_add_default(x, y, c=1.0):
    return x * y + c


class Affine:
    """A method reading an array attribute (`self.w`) and a float one."""

    def __init__(self, n: int) -> None:
        self.w = np.linspace(1.0, 2.0, n)
        self.c = 1.0

    def plain(self, x):
        return x * self.w + self.c

    forward = ember.compile(plain)


def scaled_by(x, s, n):
    return x * s + n


def scaled_by_numpy(x, s, n):
    return x * s + n


def multiply_add_listed(x, y):
    return [x * y + 1]  # the list is built by the entry, in Python


def no_arguments():
    return 1.0


def three_arrays_two_floats(a, b, c, s, t):
    return a * s + b * t - c


def sum_and_product(x, y):
    return x + y, x * y


def dot_as_float(x, y):
    return float((x * y).sum())


def make_scaler(k):
    def scale(x):
        return x * k + 1.0  # `k` a closure cell

    return scale


scale_by_two = make_scaler(2.0)


def fill_in_place(out, x, y):
    out[:] = x * y + 1.0  # returns None


def total(x):
    return x.sum()  # a NumPy float64


def mean_and_spread(x):
    return x.mean(), x.max() - x.min()  # a tuple of NumPy float64


def axpy_0d(a, x):
    return a * x + 1.0  # `a` a 0-d array


def shifted_by_int(x, n):
    return x + n  # `n` a Python int


def clipped(x, lo=0.0, hi=0.5):
    return np.minimum(np.maximum(x, lo), hi)


def integer_scale(i, x):
    return x * (i + 1)  # `i` a NumPy int64


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


def add(x, y):
    return x + y


def product(x, y):
    return x @ y


def diagonal_tanh(a):
    t = 0.0
    for i in range(300):
        t += np.tanh(a[i, i])
    return t


def opaque(v):
    return v  # stands for any call ember does not capture


opaque_call = ember.disable(opaque)


def broken_once(x, y):
    a = x * y + 1.0
    b = opaque_call(a)
    return b * x - y


def halve_until_small(x):
    while x.max() > 1.0:
        x = x * 0.5
    return x


def null_backend(graph, example_inputs):
    """Returns precomputed outputs: isolates the hook, guards and entry from the backend."""
    outputs = tuple(np.zeros(v.shape, v.dtype) for v in graph.outputs)
    return lambda *inputs: outputs


def per_call(fn, args, calls: int = 2000, repeats: int = 15) -> float:
    """Median seconds per call, in this thread's CPU time: on a machine busier than its cores
    wall-clock samples mostly measure the wait for a core (the calls measured here release
    the GIL to no other thread)."""
    samples = []
    for _ in range(repeats):
        start = time.thread_time()
        for _ in range(calls):
            fn(*args)
        samples.append((time.thread_time() - start) / calls)
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


def dispatch_rows() -> list[tuple[str, float, str]]:
    """Per-call cost of `x * y + 1` on 8 float64 elements by every path, in microseconds."""
    x, y = np.linspace(0.0, 1.0, 8), np.linspace(1.0, 2.0, 8)
    ember.reset()
    fast = ember.compile(multiply_add)
    fast(x, y)
    listed = ember.compile(multiply_add_listed)
    listed(x, y)
    defaulted = ember.compile(multiply_add_default)
    defaulted(x, y=y)
    layer = Affine(8)
    layer.forward(x)
    scalars = ember.compile(scaled_by)
    scalars(x, 2.0, 1)
    scalars(x, 3.0, 2)  # a second value: the scalars become run-time inputs
    np_scalars = ember.compile(scaled_by_numpy)
    np_scalars(x, np.float64(2.0), np.int64(1))
    np_scalars(x, np.float64(3.0), np.int64(2))
    before = ember.stats()["native_calls"]
    fast(x, y)
    assert ember.stats()["native_calls"] == before + 1, "the fast path did not answer"
    hook_path = type(fast).__call__

    failing = ember.compile(lambda x, y: x * y + 1)
    limit = config.recompile_limit
    config.recompile_limit = 1
    try:
        failing(x[:4], y[:4])
        failing(x, y)  # past the limit: the code keeps its entry and runs these as Python
        times = {
            "plain": per_call(multiply_add, (x, y), calls=20000),
            "fast": per_call(fast, (x, y), calls=20000),
            "hook": per_call(lambda a, b: hook_path(fast, a, b), (x, y), calls=20000),
            "plain keyword": per_call(lambda a, b: multiply_add_default(a, y=b), (x, y),
                                      calls=20000),
            "keyword": per_call(lambda a, b: defaulted(a, y=b), (x, y), calls=20000),
            "plain method": per_call(layer.plain, (x,), calls=20000),
            "method": per_call(layer.forward, (x,), calls=20000),
            "plain scalars": per_call(scaled_by, (x, 2.5, 3), calls=20000),
            "scalars": per_call(scalars, (x, 2.5, 3), calls=20000),
            "plain numpy scalars": per_call(scaled_by_numpy, (x, np.float64(2.5), np.int64(3)),
                                            calls=20000),
            "numpy scalars": per_call(np_scalars, (x, np.float64(2.5), np.int64(3)),
                                      calls=20000),
            "listed": per_call(listed, (x, y), calls=20000),
            "guard failure": per_call(failing, (x, y), calls=20000),
        }
    finally:
        config.recompile_limit = limit
    times["miss"] = first_call_time(multiply_add, (x, y))
    if numba is not None:
        jitted = numba.njit(multiply_add)
        cached = numba.njit(cache=True)(multiply_add)
        jitted(x, y)
        cached(x, y)
        times["numba"] = per_call(jitted, (x, y), calls=20000)
        times["numba cache"] = per_call(cached, (x, y), calls=20000)
    us = {k: v * 1e6 for k, v in times.items()}
    rows = [
        ("x*y+1, 8 float64: plain function", us["plain"], "us/call"),
        ("  ember hit, native fast path", us["fast"], "us/call"),
        ("  ember hit, through the frame hook", us["hook"], "us/call"),
        ("x*y+c, y by keyword, c defaulted: plain function (in a lambda)", us["plain keyword"],
         "us/call"),
        ("  ember hit, native fast path (in a lambda)", us["keyword"], "us/call"),
        ("layer.forward(x) = x*self.w+self.c: plain method", us["plain method"], "us/call"),
        ("  ember hit, native fast path", us["method"], "us/call"),
        ("x*s+n, Python float and int arguments: plain function", us["plain scalars"],
         "us/call"),
        ("  ember hit, native fast path (scalars as run-time inputs)", us["scalars"], "us/call"),
        ("x*s+n, np.float64 and np.int64 arguments: plain function", us["plain numpy scalars"],
         "us/call"),
        ("  ember hit, native fast path", us["numpy scalars"], "us/call"),
        ("  ember hit, Python around the graph (returns a list)", us["listed"], "us/call"),
        ("  ember guard failure (past the recompile limit: plain Python)",
         us["guard failure"], "us/call"),
        ("  ember miss: capture and compile, first call after reset", us["miss"], "us/call"),
        ("  fast path overhead over the plain function", us["fast"] - us["plain"], "us/call"),
        ("  fast path / plain function", us["fast"] / us["plain"], "x"),
        ("  frame hook path / fast path", us["hook"] / us["fast"], "x"),
        ("  Python around the graph / plain function", us["listed"] / us["plain"], "x"),
        ("  guard failure / plain function", us["guard failure"] / us["plain"], "x"),
    ]
    if numba is not None:
        rows += [
            ("  numba @njit", us["numba"], "us/call"),
            ("  numba @njit(cache=True)", us["numba cache"], "us/call"),
            ("  fast path / numba @njit", us["fast"] / us["numba"], "x"),
            ("  fast path / numba @njit(cache=True)", us["fast"] / us["numba cache"], "x"),
        ]
    else:
        rows.append(("  numba not installed: no Numba rows", float("nan"), ""))
    return rows


def side_by_side_rows() -> list[tuple[str, float, str]]:
    """Per-call cost of call shapes of small kernels: plain, ember and Numba, interleaved."""
    x, y, z = (np.linspace(k, k + 1.0, 8) for k in (0.0, 1.0, 2.0))
    cases = [
        ("no arguments, returns 1.0", no_arguments, ()),
        ("a*s+b*t-c, 3 arrays of 8 and 2 Python floats", three_arrays_two_floats,
         (x, y, z, 2.5, 3.5)),
        ("(x+y, x*y): a tuple of 2 arrays of 8", sum_and_product, (x, y)),
        ("float((x*y).sum()): a Python float", dot_as_float, (x, y)),
        ("x*y+c, y by keyword, c defaulted (in a lambda)", multiply_add_default, None),
        ("x*k+1, k a closure cell", scale_by_two, (x,)),
        ("out[:] = x*y+1, returns None", fill_in_place, (np.empty(8), x, y)),
        ("x.sum(): a NumPy float64", total, (x,)),
        ("(x.mean(), x.max()-x.min()): a tuple of 2 NumPy floats", mean_and_spread, (x,)),
        ("a*x+1, a a 0-d array", axpy_0d, (np.array(2.0), x)),
        ("x+n, n a Python int", shifted_by_int, (x, 3)),
        ("clip by defaults lo=0.0, hi=0.5", clipped, (x,)),
        ("x*(i+1), i a NumPy int64", integer_scale, (np.int64(3), x)),
    ]
    timed = []
    native: dict[str, bool] = {}
    for name, fn, args in cases:
        compiled = ember.compile(fn)
        callers = {"plain": fn, "ember": compiled}
        if numba is not None:
            callers["numba"] = numba.njit(fn)
        if args is None:  # keyword arguments, through a lambda for every caller alike
            callers = {k: (lambda f: lambda a, b: f(a, y=b))(f) for k, f in callers.items()}
            args = (x, y)
        for label, f in list(callers.items()):
            try:
                f(*args)
                f(*args)
            except Exception:  # a shape Numba does not compile: no Numba row
                if label != "numba":
                    raise
                del callers[label]
        before = ember.stats()["native_calls"]
        callers["ember"](*args)
        native[name] = ember.stats()["native_calls"] == before + 1
        timed.append((name, callers, args))
    samples: dict[tuple[str, str], list[float]] = {}
    for _ in range(15):
        for name, callers, args in timed:
            for label, f in callers.items():
                samples.setdefault((name, label), []).append(
                    per_call(f, args, calls=2000, repeats=1))
    rows = []
    for name, callers, _ in timed:
        us = {label: statistics.median(samples[(name, label)]) * 1e6 for label in callers}
        rows.append((f"{name}: plain function", us["plain"], "us/call"))
        path = "native fast path" if native[name] else "NOT the native fast path"
        rows.append((f"  ember hit ({path})", us["ember"], "us/call"))
        if "numba" in us:
            rows.append(("  numba @njit", us["numba"], "us/call"))
            rows.append(("  ember / numba @njit", us["ember"] / us["numba"], "x"))
        else:
            rows.append(("  numba @njit: does not compile this call", float("nan"), ""))
        rows.append(("  ember / plain function", us["ember"] / us["plain"], "x"))
    return rows


def print_rows(rows: list[tuple[str, float, str]]) -> None:
    width = max(len(r[0]) for r in rows)
    print(f"{'measurement':<{width}}  {'median':>10}")
    for name, value, unit in rows:
        print(f"{name:<{width}}  {value:>10.2f} {unit}")


def main() -> None:
    if sys.argv[1:] == ["--side-by-side"]:  # the call shapes alone
        print_rows(side_by_side_rows())
        return
    dispatch = dispatch_rows() + side_by_side_rows()
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

    small = np.linspace(0.0, 1.0, 16).reshape(4, 4), np.linspace(1.0, 2.0, 16).reshape(4, 4)
    native_add = ember.compile(add, backend="cranelift")
    native_add(*small)
    native_product = ember.compile(product, backend="cranelift")
    native_product(*small)
    diagonal = (np.linspace(0.0, 1.0, 300 * 300).reshape(300, 300),)
    native_diagonal = ember.compile(diagonal_tanh, backend="cranelift")
    native_diagonal(*diagonal)
    small_rows = [
        ("4x4 add: plain NumPy", per_call(add, small) * 1e6, "us/call"),
        ("4x4 add: ember cranelift, cache hit", per_call(native_add, small) * 1e6, "us/call"),
        ("4x4 matmul: plain NumPy", per_call(product, small) * 1e6, "us/call"),
        ("4x4 matmul: ember cranelift, cache hit", per_call(native_product, small) * 1e6,
         "us/call"),
        ("300 scalar tanh+add: plain NumPy", per_call(diagonal_tanh, diagonal, calls=100) * 1e6,
         "us/call"),
        ("300 scalar tanh+add: ember cranelift",
         per_call(native_diagonal, diagonal, calls=100) * 1e6, "us/call"),
    ]

    broken = ember.compile(broken_once)
    broken(x, y)
    broken_plain_s = per_call(broken_once, (x, y))
    broken_s = per_call(broken, (x, y))
    start_x = np.full(8, 2.0**20)  # 21 trips round the loop
    looped = ember.compile(halve_until_small)
    looped(start_x)
    trips = 21
    loop_plain_s = per_call(halve_until_small, (start_x,), calls=200) / trips
    loop_s = per_call(looped, (start_x,), calls=200) / trips
    broken_first_s = first_call_time(broken_once, (x, y))

    rows = [
        *dispatch,
        ("elementwise 2 inputs, 8 elements: plain Python", plain_s * 1e6, "us/call"),
        ("elementwise 2 inputs, 8 elements: ember eager, cache hit", compiled_s * 1e6,
         "us/call"),
        ("  overhead over plain", (compiled_s - plain_s) * 1e6, "us/call"),
        ("same, backend returning precomputed outputs (hook+guards+entry)", null_s * 1e6,
         "us/call"),
        (f"capture of a {cap.op_count}-op function (convert)", capture_s * 1e3, "ms"),
        ("first compiled call of it (after reset)", first_s * 1e3, "ms"),
        ("one graph break, 8 elements: plain Python", broken_plain_s * 1e6, "us/call"),
        ("one graph break, 8 elements: ember, cached", broken_s * 1e6, "us/call"),
        ("  overhead over plain", (broken_s - broken_plain_s) * 1e6, "us/call"),
        ("  broken once / plain", broken_s / broken_plain_s, "x"),
        ("while loop on an array's value: plain Python", loop_plain_s * 1e6, "us/trip"),
        ("while loop on an array's value: ember, a break per trip", loop_s * 1e6, "us/trip"),
        ("first call of the function broken once (after reset)", broken_first_s * 1e3, "ms"),
        *small_rows,
    ]
    print_rows(rows)


if __name__ == "__main__":
    main()
