"""Ops compiled on their own that used to run far below NumPy, now vectorised or run through
NumPy's own functions (benches/lone_ops.py): bool results of wide lanes packed to bytes, bool
arrays read as lane masks, float -> int32 casts with x86's truncating conversion, arg
reductions by each dtype's `argmax`/`argmin` function. Values are NumPy's bit for bit, with
its warnings, in every length and step."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from ember import _core
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_compiled import check

NUMERIC = [np.float32, np.float64, np.int32, np.int64]
FLOATS = [np.float32, np.float64]


def values(n: int, dtype: type, seed: int = 0) -> np.ndarray:
    """`n` values of `dtype` with repeats; floats with NaN, both infinities and signed zeros
    among them."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 4, n).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x = x * np.asarray(rng.standard_normal(n), dtype) ** 2
        specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype)
        at = rng.integers(0, max(n, 1), min(n, 12))
        x[at] = specials[rng.integers(0, 5, at.size)]
    return x


def exactly(fn, *args) -> None:
    """`check`, then the compiled result equal to NumPy's bit for bit; bools stored as the
    bytes 0 and 1. The functions are shared by many shapes and dtypes: every check starts
    from empty caches, clear of the recompile limit."""
    ember.reset()
    check(fn, *args, rtol=0, ops=())
    got, want = ember.compile(fn)(*args), fn(*args)
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes()


COMPARISONS = [lambda x, y: x > 0, lambda x, y: x == y, lambda x, y: x < y,
               lambda x, y: x != y, lambda x, y: x >= y, lambda x, y: (x < y) & (y > 1)]
CLASSES = [lambda x: np.isnan(x), lambda x: np.isinf(x), lambda x: np.isfinite(x),
           lambda x: np.signbit(x)]


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("n", [1, 2, 5, 16, 33, 64, 1000, 4099])
def test_bool_results_of_wide_lanes(dtype, n):
    x, y = values(n, dtype, 1), values(n, dtype, 2)
    y[::3] = x[::3]
    for f in COMPARISONS:
        exactly(f, x, y)
    if np.dtype(dtype).kind == "f":
        for f in CLASSES:
            exactly(f, x)


@pytest.mark.parametrize("dtype", FLOATS)
def test_lone_float_predicates_run_numpys_loops(dtype):
    # Stored straight to a bool array, a float compare or class test of a long row is NumPy's
    # own loop (quiet on NaN); inside an expression it stays the kernel's masks.
    x, y = values(5000, dtype, 4), values(5000, dtype, 5)
    y[::7] = x[::7]
    lone = [*COMPARISONS[:5], *CLASSES, lambda x, y: x[::2] <= y[1::2],
            lambda x, y: np.float32(1.5) < x, lambda x, y: (x * 2) > (y - 1)]
    for f in lone:
        calls = _core.ufunc_loop_calls()
        if f.__code__.co_argcount == 2:
            exactly(f, x, y)
        else:
            exactly(f, x)
        assert _core.ufunc_loop_calls() > calls
    calls = _core.ufunc_loop_calls()
    exactly(COMPARISONS[5], x, y)
    exactly(lambda x, y: x.reshape(-1, 8) > y.reshape(-1, 8)[0], x, y)
    assert _core.ufunc_loop_calls() == calls


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(0, 3000), st.sampled_from(NUMERIC), st.sampled_from([1, 2, 3, -1]),
       st.integers(0, 5))
def test_random_lengths_and_steps_of_comparisons(n, dtype, step, which):
    x, y = values(n, dtype, n)[::step], values(n, dtype, n + 1)[::step]
    exactly(COMPARISONS[which], x, y)


@pytest.mark.parametrize("n", [3, 17, 1000, 4097])
def test_bool_arrays_read_as_masks(n):
    rng = np.random.default_rng(n)
    a, b = rng.random(n) < 0.5, rng.random(n) < 0.3
    # Bools whose byte is not 1 are true too.
    odd = rng.integers(0, 3, n).astype(np.uint8).view(np.bool_)
    x = rng.standard_normal(n)
    programs = [lambda a, b, x: a & b, lambda a, b, x: a == b, lambda a, b, x: a ^ ~b,
                lambda a, b, x: np.where(a, x, -x), lambda a, b, x: a.astype(np.float32) * 2,
                lambda a, b, x: a.astype(np.int64), lambda a, b, x: np.sum(a),
                lambda a, b, x: np.logical_or(a, x > 1), lambda a, b, x: a[::2] | b[::2],
                lambda a, b, x: np.where(a, 1.0, x).sum()]
    for f in programs:
        for first in (a, odd):
            exactly(f, first, b, x)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [1, 7, 100, 3000])
def test_float_to_int32_casts(dtype, n):
    rng = np.random.default_rng(n)
    inside = (rng.standard_normal(n) * 1e4).astype(dtype)
    exactly(lambda x: x.astype(np.int32), inside)
    exactly(lambda x: (x * 0.5).astype(np.int32) + 1, inside)
    # Out of range, NaN and infinities: NumPy gives i32::MIN on x86-64 and warns "invalid
    # value encountered in cast"; -0.0 and the values just inside the range convert quietly.
    edges = np.array([np.nan, np.inf, -np.inf, -0.0, 2.0**31, -2.0**31, 2.0**31 - 128,
                      -2.0**31 - 1, 3e9, -1e20, 0.99, -0.99], dtype)
    mixed = np.resize(edges, n) if n > 1 else edges
    exactly(lambda x: x.astype(np.int32), mixed)
    exactly(lambda x: x.astype(np.int16), mixed)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_arg_reductions_are_numpys(dtype):
    rng = np.random.default_rng(7)
    x = values(5000, dtype, 3)
    ties = np.tile(np.array([1, 5, 5, 2], dtype), 1000)
    programs = [lambda a: np.argmax(a), lambda a: np.argmin(a), lambda a: a.argmax(axis=-1),
                lambda a: (a * 2).argmin(), lambda a: a[::-3].argmax(),
                lambda a: np.argmax(a.reshape(50, -1), axis=1)]
    for f in programs:
        for a in (x, ties, rng.permutation(x)):
            calls = _core.ufunc_loop_calls()
            exactly(f, a)
            assert _core.ufunc_loop_calls() > calls
    # Across rows (an outer axis), and along short rows, the kernels' own loop.
    for f in (lambda a: np.argmin(a.reshape(50, -1), axis=0),
              lambda a: a.reshape(-1, 8).argmax(axis=1)):
        calls = _core.ufunc_loop_calls()
        exactly(f, x)
        assert _core.ufunc_loop_calls() == calls


@pytest.mark.parametrize("dtype", FLOATS)
def test_arg_reductions_first_nan_wins(dtype):
    x = np.arange(4000, dtype=dtype)
    for at in ([3500], [1030, 2000], [0], [3999], [1023, 1024]):
        a = x.copy()
        a[at] = np.nan
        for f in (lambda a: np.argmax(a), lambda a: np.argmin(a), lambda a: (a - 1).argmax()):
            exactly(f, a)
    zeros = np.zeros(3000, dtype)
    zeros[1500:] = -0.0
    exactly(lambda a: np.argmin(a), zeros)
    exactly(lambda a: np.argmax(a), zeros)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(1, 5000), st.sampled_from(NUMERIC), st.sampled_from([1, 2, -1, 5]),
       st.booleans())
def test_random_arg_reductions(n, dtype, step, biggest):
    x = values(n, dtype, n)[::step]
    exactly((lambda a: np.argmax(a)) if biggest else (lambda a: np.argmin(a)), x)


def test_fused_comparisons_stay_fused():
    rng = np.random.default_rng(9)
    x, y = rng.standard_normal(10000), rng.standard_normal(10000).astype(np.float32)
    for f in (lambda x, y: np.where(x > 0, x, 0.0), lambda x, y: np.sum(x > 0),
              lambda x, y: np.where(y < 0.5, y * 2, y), lambda x, y: (x > y).mean()):
        exactly(f, x, y)
