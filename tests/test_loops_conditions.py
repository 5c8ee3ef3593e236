"""`and`/`or`/`not` in loop bodies (tests of `if`, `while`, `while True` and conditional
expressions, and values), `math` functions, `round()` and `divmod()` of loop values, loops
over `enumerate`/`zip`, and `complex()`: against Python on both backends, each a loop op
with no graph break."""

from __future__ import annotations

import math

import ember
import numpy as np
import pytest
from conftest import RecordingBackend
from hypothesis import given, settings
from hypothesis import strategies as st
from test_loops_windows import loop_ops

# Tests of loop values at index `k` (a Python bool or a NumPy bool, as Python gives them).
_ATOMS = ("x[k] > 0.5", "x[k] < y[k]", "k % 3 == 0", "y[k] <= 0.25", "not x[k] > 0.8",
          "s > 1.0", "x[k] != x[k]")


@st.composite
def _test_expr(draw, depth: int = 3) -> str:
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        return draw(st.sampled_from(_ATOMS))
    kind = draw(st.sampled_from(["and", "or", "not"]))
    if kind == "not":
        return f"not ({draw(_test_expr(depth - 1))})"
    return f"({draw(_test_expr(depth - 1))} {kind} {draw(_test_expr(depth - 1))})"


# Each places a test in a loop body; `s` is a carried float the test may read.
_CONTEXTS = {
    "if": """
def kernel(x, y):
    out = np.zeros(x.shape[0])
    s = 0.0
    for k in range(x.shape[0]):
        if {e}:
            s += x[k]
        else:
            s -= 0.5
        out[k] = s
    return out
""",
    "elif": """
def kernel(x, y):
    out = np.zeros(x.shape[0])
    s = 0.0
    for k in range(x.shape[0]):
        if {e}:
            out[k] = 1.0
        elif x[k] > 0.3 and not {e}:
            out[k] = 2.0
            continue
        s += 1.0
    return out, s
""",
    "value": """
def kernel(x, y):
    out = np.zeros(x.shape[0])
    s = 0.0
    for k in range(x.shape[0]):
        v = {e}
        out[k] = v
        s += 0.1 if v else 0.2
    return out, s
""",
    "ternary": """
def kernel(x, y):
    out = np.zeros(x.shape[0])
    s = 0.0
    for k in range(x.shape[0]):
        out[k] = x[k] if {e} else -1.0
        s += out[k]
    return out
""",
    # `k < n and ...` guards the reads: evaluated out of order they would leave the array.
    "while": """
def kernel(x, y):
    n = x.shape[0]
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        k = i
        s = 0.0
        while k < n and ({e}):
            s += x[k]
            k += 1
        out[i] = k
    return out
""",
    "first trip as code": """
def kernel(x, y):
    n = x.shape[0]
    out = np.zeros(n)
    for i in range(n):
        k = i
        s = 0.0
        while s < 2.0 and k < n and ({e}):
            s += x[k] + 0.4
            k = k + 1 if k + 1 < n else k
            if s > 3.0 or k == n - 1:
                break
        out[i] = s
    return out
""",
    # A `while True` loop whose first trip runs as code, left by a `break` on the test.
    "while true": """
def kernel(x, y):
    n = x.shape[0]
    out = np.zeros(n)
    for i in range(n):
        k = i
        s = 0.0
        while True:
            s += x[k] if x[k] == x[k] else 1.0
            k += 1
            if k >= n or ({e}):
                break
        out[i] = s + k
    return out
""",
}


def _kernel(context: str, expr: str):
    namespace = {"np": np}
    source = _CONTEXTS[context].format(e=expr)
    exec(compile(source, f"<test {context}>", "exec"), namespace)  # noqa: S102
    return namespace["kernel"], source


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _check(fn, source: str, args, backend: str) -> None:
    want = fn(*_copies(args))
    recorder = RecordingBackend(backend)
    ember.reset()
    got = ember.compile(fn, backend=recorder)(*_copies(args))
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,), strict=True):
        assert type(g) is type(w), source
        np.testing.assert_allclose(g, w, err_msg=source)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, (source, stats["break_reasons"])
    assert stats["region_recaptures"] == 0 and loop_ops(recorder) >= 1, source


@settings(max_examples=40, deadline=None, derandomize=True)
@given(context=st.sampled_from(sorted(_CONTEXTS)), expr=_test_expr(),
       backend=st.sampled_from(["eager", "cranelift"]), n=st.integers(9, 24),
       seed=st.integers(0, 2**16))
def test_short_circuit_tests_match_python(context, expr, backend, n, seed) -> None:
    rng = np.random.default_rng(seed)
    x = rng.random(n)
    x[rng.random(n) < 0.15] = np.nan
    fn, source = _kernel(context, expr)
    _check(fn, source, (x, rng.random(n)), backend)


# Chained comparisons (`lo <= y < hi`), whose first test jumps to a cleanup that drops the
# copy of `y`: both tests as one value, in the tests of `if`, `elif`, conditional expressions
# and a `break`. (As values, and in `while` tests after other tests, they still break.)
_CHAINED_CONTEXTS = ("elif", "if", "ternary", "while true")
_CHAINED = ("0.25 < x[k] < 0.75", "x[k] <= y[k] < 0.5", "0 <= k - 3 < 10", "y[k] < x[k] <= 0.9",
            "-1 < k * 2 - 5 <= k + 3")


@st.composite
def _chained_expr(draw) -> str:
    chained = draw(st.sampled_from(_CHAINED))
    kind = draw(st.sampled_from(["alone", "and", "or", "not"]))
    if kind == "alone":
        return chained
    if kind == "not":
        return f"not ({chained})"
    pair = [chained, draw(st.sampled_from(_ATOMS))]
    if draw(st.booleans()):
        pair.reverse()
    return f"({pair[0]} {kind} {pair[1]})"


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(context=st.sampled_from(_CHAINED_CONTEXTS), expr=_chained_expr(),
       backend=st.sampled_from(["eager", "cranelift"]), n=st.integers(9, 24),
       seed=st.integers(0, 2**16))
def test_chained_comparisons_match_python(context, expr, backend, n, seed) -> None:
    rng = np.random.default_rng(seed)
    x = rng.random(n)
    x[rng.random(n) < 0.15] = np.nan
    fn, source = _kernel(context, expr)
    _check(fn, source, (x, rng.random(n)), backend)


def mandel_real(w, h, it):
    out = np.zeros((h, w), dtype=np.int64)
    for y in range(h):
        for x in range(w):
            cr = -2 + 3 * x / w
            ci = -1.5 + 3 * y / h
            zr = 0.0
            zi = 0.0
            n = 0
            while zr * zr + zi * zi <= 4.0 and n < it:
                zr, zi = zr * zr - zi * zi + cr, 2 * zr * zi + ci
                n += 1
            out[y, x] = n
    return out


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_while_whose_later_test_is_a_python_value(backend) -> None:
    """The bottom test's first part is a loop value, its second a Python int on the trip run
    as code (`n < it`, a jump back taken at capture time)."""
    recorder = RecordingBackend(backend)
    got = ember.compile(mandel_real, backend=recorder)(17, 11, 30)
    np.testing.assert_array_equal(got, mandel_real(17, 11, 30))
    assert ember.stats()["graph_breaks"] == 0 and loop_ops(recorder) == 1


def or_default(x, default):
    out = np.empty_like(x)
    last = default
    for i in range(x.shape[0]):
        v = x[i] or last
        w = x[i] and 2.0 * x[i]
        out[i] = v + w
        last = v
    return out, last


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_and_or_values_keep_the_tested_value(backend) -> None:
    x = np.where(np.random.default_rng(3).random(30) < 0.4, 0.0, np.arange(30.0))
    recorder = RecordingBackend(backend)
    got = ember.compile(or_default, backend=recorder)(x, 0.5)
    want = or_default(x, 0.5)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1] == want[1] and loop_ops(recorder) == 1


_MATH_1 = ["sqrt", "exp", "log", "log10", "log2", "log1p", "expm1", "sin", "cos", "tan",
           "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "atanh", "fabs",
           "floor", "ceil", "trunc", "isnan", "isinf", "isfinite"]
_MATH_2 = ["atan2", "hypot", "pow", "copysign"]


def _math_kernel(name: str):
    fn = getattr(math, name)
    call = "fn(x[i], y[i])" if name in _MATH_2 else "fn(x[i])"
    namespace = {"np": np, "fn": fn}
    source = f"""
def kernel(x, y):
    out = np.zeros(x.shape[0])
    total = 0
    for i in range(x.shape[0]):
        r = {call}
        out[i] = r
        total = total + r
    return out, total
"""
    exec(compile(source, f"<math.{name}>", "exec"), namespace)  # noqa: S102
    return namespace["kernel"], source


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
@pytest.mark.parametrize("name", _MATH_1 + _MATH_2)
def test_math_functions_of_loop_values(name, backend) -> None:
    """Inside their domain, as Python computes them: the Python type of the result
    included (`total` starts as a Python int)."""
    rng = np.random.default_rng(len(name))
    x = rng.random(20) * 0.9 + 0.05
    x[::3] *= -1 if name not in ("sqrt", "log", "log10", "log2", "pow") else 1
    if name in ("isnan", "isinf", "isfinite"):
        x[::4] = [np.nan, np.inf, -np.inf, 1.0, np.nan][: len(x[::4])]
    fn, source = _math_kernel(name)
    _check(fn, source, (x, rng.random(20) + 0.5), backend)


def not_values(x):
    out = np.zeros(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        small = not x[i] > 0.5
        out[i] = small + (not i % 2)
    return out


def test_not_of_a_loop_value_is_a_python_bool() -> None:
    x = np.random.default_rng(1).random(25)
    _check(not_values, "not_values", (x,), "cranelift")


def complex_modulus(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        z = complex(x[i], 1.0)
        out[i] = abs(z * z)
    return out


def test_complex_of_traced_values_runs_as_numpy() -> None:
    """`complex(a, b)` of array values is the `complex` break (the frame runs as NumPy),
    never an internal error."""
    x = np.random.default_rng(2).random(20)
    got = ember.compile(complex_modulus)(x)
    np.testing.assert_allclose(got, complex_modulus(x))
    reasons = ember.stats()["break_reasons"]
    assert reasons and all("complex" in r for r in reasons), reasons


def zipped_loops(x, y, m):
    total = 0.0
    for i, v in enumerate(x):
        total += i * v
    for j, (a) in enumerate(y[:m], 3):
        total -= j * a
    for a, b, k in zip(x, y, range(5, 100, 2)):
        total += a * b + k
    for row, w in zip(m * np.ones((x.shape[0], 2)), y):
        total += row[1] * w
    return total, i, v, a, b, k


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_loops_over_enumerate_and_zip(backend) -> None:
    """Items are tuples of each part's item at the trip's index; `zip` stops at the shortest
    part; the targets keep the last items after the loop."""
    rng = np.random.default_rng(4)
    x, y = rng.random(23), rng.random(19)
    want = zipped_loops(x, y, 12)
    recorder = RecordingBackend(backend)
    got = ember.compile(zipped_loops, backend=recorder)(x, y, 12)
    assert [type(g) for g in got] == [type(w) for w in want]
    np.testing.assert_allclose(got, want)
    assert ember.stats()["graph_breaks"] == 0 and loop_ops(recorder) == 4


def round_divmod(x, d):
    out = np.zeros((x.shape[0], 3), dtype=np.int64)
    for i in range(x.shape[0]):
        q, r = divmod(int(x[i]), d)
        out[i, 0] = q
        out[i, 1] = r
        out[i, 2] = round(x[i] / 2.0) + round(i)
    return out


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_round_and_divmod_of_loop_values(backend) -> None:
    """Python's floor semantics for negative operands; halves round to even."""
    x = np.concatenate([np.arange(-9.0, 10.0), np.random.default_rng(5).random(12) * 200 - 100])
    for d in (7, -3):
        _check(round_divmod, "round_divmod", (x, d), backend)
