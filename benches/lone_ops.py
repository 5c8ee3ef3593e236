"""Every op of the core's table compiled on its own, against the same NumPy call, one thread.

    EMBER_NUM_THREADS=1 python benches/lone_ops.py [--quick] [--sizes 1024,262144] [NAME ...]

Each case is one NumPy call (`x > 0`, `np.isnan(x)`, `x.astype(np.int32)`, `np.argmax(x)`...)
compiled with `ember.compile(fullgraph=True)`, at each size and each dtype NumPy takes for it.
The ratio is NumPy's time over ember's (above 1: ember is faster), the median of per-round
ratios with the two samples of a round taken back to back, so that a change in machine load
affects both alike. Results are checked against NumPy's (values, dtype, shape) before timing.
Cases print worst first; NAME arguments keep the cases whose name contains one of them.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import warnings

os.environ.setdefault("EMBER_NUM_THREADS", "1")

import ember  # noqa: E402
import numpy as np  # noqa: E402
from ember import _core  # noqa: E402

FLOATS = (np.float32, np.float64)
NUMERIC = (np.float32, np.float64, np.int32, np.int64)
ALL = (*NUMERIC, np.bool_)

# Functions of one array whose NumPy form is not `np.<name>(x)`, by IR name.
UNARY_FORMS = {"neg": lambda x: -x, "positive": lambda x: +x, "bitwise_not": np.invert}
BINARY_FORMS = {
    "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y, "floordiv": lambda x, y: x // y, "mod": lambda x, y: x % y,
    "pow": lambda x, y: x ** y, "eq": lambda x, y: x == y, "ne": lambda x, y: x != y,
    "lt": lambda x, y: x < y, "le": lambda x, y: x <= y, "gt": lambda x, y: x > y,
    "ge": lambda x, y: x >= y,
}


def python_call(fn):
    """`fn` called from a Python function: `ember.compile` captures Python frames, so a
    NumPy ufunc or builtin compiled as it is would run as plain NumPy."""
    return lambda *args: fn(*args)


def ops():
    """`(name, function, arity, dtypes, square)` for every case: the core's elementwise, reduce
    and arg-reduce ops from its table, then NumPy calls built from them (casts, `clip`,
    `nan_to_num`, comparisons with a scalar, reductions along an axis, masks summed)."""
    table: dict[str, list[str]] = {}
    for cls, name, _ in _core.op_table():
        table.setdefault(cls, []).append(name)
    out = []
    for name in table["unary"]:
        fn = UNARY_FORMS.get(name) or python_call(getattr(np, name, None))
        out.append((name, fn, 1, ALL, False))
    for name in table["binary"]:
        fn = BINARY_FORMS.get(name) or python_call(getattr(np, name))
        out.append((name, fn, 2, ALL, False))
    for name in table["reduce"]:
        out.append((name, python_call(getattr(np, name)), 1, ALL, False))
        out.append((f"{name} axis=-1", lambda x, f=getattr(np, name): f(x, axis=-1), 1, NUMERIC,
                    True))
    for name in table["arg_reduce"]:
        out.append((name, python_call(getattr(np, name)), 1, NUMERIC, False))
        out.append((f"{name} axis=-1", lambda x, f=getattr(np, name): f(x, axis=-1), 1,
                    NUMERIC, True))
    for target in ("int32", "int64", "float32", "float64", "bool"):
        out.append((f"astype {target}", lambda x, t=target: x.astype(t), 1, ALL, False))
    out += [
        ("gt 0", lambda x: x > 0, 1, NUMERIC, False),
        ("eq 0", lambda x: x == 0, 1, NUMERIC, False),
        ("clip", lambda x: np.clip(x, -0.5, 0.5), 1, NUMERIC, False),
        ("nan_to_num", python_call(np.nan_to_num), 1, FLOATS, False),
        ("where gt 0", lambda x: np.where(x > 0, x, 0), 1, NUMERIC, False),
        ("sum gt 0", lambda x: np.sum(x > 0), 1, NUMERIC, False),
        ("mul scalar", lambda x: x * 3, 1, NUMERIC, False),
        ("cumsum", python_call(np.cumsum), 1, NUMERIC, False),
    ]
    return out


def data(dtype, n: int, square: bool, rng) -> np.ndarray:
    """Random values of `dtype`: normal floats (both signs, so that comparisons and signs are
    unpredictable), small ints (shifts and powers stay in range), random bools."""
    if dtype == np.bool_:
        x = rng.random(n) < 0.5
    elif np.issubdtype(dtype, np.integer):
        x = rng.integers(1, 30, n).astype(dtype) * rng.choice(np.array([-1, 1], dtype), n)
    else:
        x = rng.standard_normal(n).astype(dtype)
    side = int(round(n ** 0.5))
    return x.reshape(side, side) if square else x


def same(got, want) -> bool:
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if got.dtype.kind == "f":
        tol = 1e-4 if got.dtype == np.float32 else 1e-9
        return bool(np.allclose(got, want, rtol=tol, atol=tol, equal_nan=True))
    return bool(np.array_equal(got, want))


def ratio(fn, compiled, args, budget: float) -> float:
    """The median over 9 rounds of NumPy's time over ember's, each timed on enough calls to
    take about `budget / 18` seconds."""
    start, calls = time.process_time(), 0
    while time.process_time() - start < budget / 20 or calls < 3:
        fn(*args)
        calls += 1
    inner = max(1, int(budget / 18 / ((time.process_time() - start) / calls)))
    ratios = []
    for _ in range(9):
        times = []
        for f in (fn, compiled):
            t = time.process_time()
            for _ in range(inner):
                f(*args)
            times.append(time.process_time() - t)
        ratios.append(times[0] / times[1])
    return statistics.median(ratios)


def case(name, fn, arity, dtype, n, square, budget, rng):
    """`(ratio, label)`, or `(None, label)` with the reason ember could not run it."""
    args = tuple(data(dtype, n, square, rng) for _ in range(arity))
    label = f"{name} {np.dtype(dtype).name} n={n}"
    try:
        want = fn(*args)
    except (TypeError, ValueError):
        return "skip", label  # NumPy does not take this dtype
    compiled = ember.compile(fn, fullgraph=True)
    try:
        got = compiled(*args)
    except Exception as e:  # noqa: BLE001 - reported, the sweep goes on
        return None, f"{label}: {type(e).__name__}: {str(e).splitlines()[0][:80]}"
    if not same(got, want):
        return None, f"{label}: differs from NumPy"
    return ratio(fn, compiled, args, budget), label


def main() -> None:
    argv = sys.argv[1:]
    budget = 0.1 if "--quick" in argv else 0.3
    sizes = [1024, 262144]
    if "--sizes" in argv:
        sizes = [int(s) for s in argv[argv.index("--sizes") + 1].split(",")]
    names = [a for a in argv if not a.startswith("--") and not a[0].isdigit()]
    ember.config.recompile_limit = 10_000
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    rng = np.random.default_rng(0)
    results, failures = [], []
    for name, fn, arity, dtypes, square in ops():
        if names and not any(k in name for k in names):
            continue
        for n in sizes:
            for dtype in dtypes:
                r, label = case(name, fn, arity, dtype, n, square, budget, rng)
                if r is None:
                    failures.append(label)
                elif r != "skip":
                    results.append((r, label))
    print(f"numpy {np.__version__}; ember threads: {ember.config.num_threads or 'all cores'}")
    print("ratio = NumPy time / ember time (above 1: ember faster), worst first\n")
    for r, label in sorted(results):
        print(f"{r:7.2f}x  {label}")
    for n in sizes:
        rs = [r for r, label in results if label.endswith(f"n={n}")]
        if rs:
            print(f"\nn={n}: {len(rs)} cases, geomean {statistics.geometric_mean(rs):.2f}x, "
                  f"below 1.0x: {sum(r < 1 for r in rs)}, below 0.8x: {sum(r < 0.8 for r in rs)}")
    if failures:
        print("\nnot compared:")
        for label in failures:
            print(f"  {label}")


if __name__ == "__main__":
    main()
