"""Kernels that run NumPy's own loops for transcendental functions on long rows
(python/ember/backends/numpy_loops.py, rust/codegen/src/ufunc.rs): values, dtypes, warnings
and errors are NumPy's in every layout, fused with other ops and nested, the loops are what
computed them, and short rows keep the kernels' own code."""

from __future__ import annotations

import warnings

import ember
import numpy as np
import pytest
from ember import _core
from ember.backends import numpy_loops
from fp_harness import assert_same_fp_behaviour
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_compiled import check

REGISTERED = numpy_loops.register()
DTYPES = {"f32": np.float32, "f64": np.float64}


def domain(op: str, n: int, dtype: type) -> np.ndarray:
    """`n` values inside `op`'s domain, with the edges and signed zeros among them."""
    rng = np.random.default_rng(n)
    if op in ("arcsin", "arccos", "arctanh"):
        x = rng.uniform(-1, 1, n)
    elif op == "arccosh":
        x = 1 + rng.exponential(3, n)
    elif op.startswith("log"):
        x = rng.exponential(5, n)
    else:
        x = rng.normal(0, 3, n)
    if op == "arccosh":
        x[:4] = [1.0, 2.0, 1.5, 7.5]
    elif op.startswith("log"):
        x[:4] = [1.0, 2.0, 1e-30, 7.5]
    elif op == "arctanh":
        x[:4] = [0.0, -0.0, 0.5, -0.5]
    else:
        x[:4] = [0.0, -0.0, 1.0, -1.0]
    return x.astype(dtype)


def test_what_is_registered():
    # NumPy's wheels dispatch these loops to AVX2/AVX-512 code on x86-64: all of them have a
    # loop, for both dtypes (float64 sin and cos stay the kernels' own, see numpy_loops).
    assert ("tanh", "f32") in REGISTERED and ("exp", "f64") in REGISTERED
    assert ("sin", "f64") not in REGISTERED and ("sin", "f32") in REGISTERED
    assert len(REGISTERED) == 2 * (len(numpy_loops._OPS) - 1 + len(numpy_loops._BINARY)
                                   + len(numpy_loops._REDUCTIONS)
                                   + len(numpy_loops._PREDICATES)) \
        + len(numpy_loops._ARG_FIELDS) * len(numpy_loops._ARG_DTYPES)


UNARY = [(o, d) for o, d in REGISTERED if o in numpy_loops._OPS]


@pytest.mark.parametrize("op, dtype", UNARY, ids=[f"{o}-{d}" for o, d in UNARY])
def test_a_lone_op_is_numpys_bit_for_bit(op, dtype):
    ufunc = getattr(np, op)
    f = ember.compile(lambda x: ufunc(x))
    x = domain(op, 3001, DTYPES[dtype])
    calls = _core.ufunc_loop_calls()
    got = f(x)
    # One call: the operand is read where it is, the result written straight to the output.
    assert _core.ufunc_loop_calls() - calls == 1
    want = ufunc(x)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("op, dtype", UNARY, ids=[f"{o}-{d}" for o, d in UNARY])
def test_layouts_fusion_and_warnings(op, dtype):
    ufunc = getattr(np, op)
    x = domain(op, 2 * 700, DTYPES[dtype]).reshape(2, 700)

    def fused(a, b):
        return ufunc(a * 0.5 + b * 0.5) * 2 - a

    for a in (x, x[:, ::-1], np.asfortranarray(x), x.T.copy().T[:, ::3]):
        check(fused, a, a[::-1], ops=(op,))
    # Outside the domain: NumPy's NaN and its "invalid value" warning (or inf and "divide by
    # zero" for the logs at 0), whatever the position in the block.
    bad = x.copy()
    bad[1, 333] = -2.0 if op not in ("cosh", "exp", "exp2", "expm1", "sinh") else 1e30
    bad[0, 5] = np.nan
    check(lambda a: ufunc(a), bad, ops=(op,))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nested_calls_and_ops_without_vectors_of_their_own(dtype):
    rng = np.random.default_rng(0)
    x = rng.uniform(-0.5, 0.5, (3, 1500)).astype(dtype)

    def f(a):
        t = np.tanh(np.exp(a))
        return np.arcsin(a) * t + np.log1p(t) - np.sinh(a) / 3

    calls = _core.ufunc_loop_calls()
    check(f, x, ops=("arcsin", "tanh", "exp"))
    assert _core.ufunc_loop_calls() > calls


def test_short_rows_keep_the_kernels_own_code():
    x = np.random.default_rng(1).normal(size=(300, 7))
    col = np.random.default_rng(2).normal(size=(300, 1))
    calls = _core.ufunc_loop_calls()
    check(lambda a, c: np.tanh(a + c), x, col, ops=("tanh",))
    assert _core.ufunc_loop_calls() == calls


def test_a_flag_raised_before_the_loop_still_warns():
    # 1/0 raises divide-by-zero in the sweep computing exp's operand; NumPy's exp loop then
    # runs on the block, and the run still gives NumPy's warning.
    x = np.linspace(1, 2, 5000)
    x[4000] = 0.0
    for errstate in ({}, {"divide": "raise"}, {"divide": "ignore"}):
        assert_same_fp_behaviour(lambda a: np.exp(-1.0 / a), (x,), "cranelift", **errstate)


def test_in_place_and_out_arguments():
    x = np.random.default_rng(3).normal(size=4000).astype(np.float32)

    def f(a, out):
        np.tanh(a, out=out)
        a *= 2
        np.exp(a, out=a)
        return out

    want_a, want_out = x.copy(), np.empty_like(x)
    want = f(want_a, want_out)
    got_a, got_out = x.copy(), np.empty_like(x)
    got = ember.compile(f)(got_a, got_out)
    assert got is got_out
    np.testing.assert_array_equal(got_a, want_a)
    np.testing.assert_array_equal(got, want)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(64, 5000), st.sampled_from(sorted({o for o, _ in UNARY})),
       st.sampled_from([np.float32, np.float64]), st.integers(1, 3))
def test_random_lengths_and_steps(n, op, dtype, step):
    if (op, {np.float32: "f32", np.float64: "f64"}[dtype]) not in REGISTERED:
        return
    ufunc = getattr(np, op)
    ember.reset()  # one function per op, each compiled once per dtype and layout
    x = domain(op, n * step, dtype)[::step]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = ember.compile(lambda a: ufunc(a) + a)(x)
    np.testing.assert_array_equal(got, ufunc(x) + x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sums_of_loop_results_in_numpys_order(dtype):
    rng = np.random.default_rng(4)
    x = rng.normal(size=(5, 2000)).astype(dtype)

    def logsumexp(a):
        m = a.max(axis=1, keepdims=True)
        return m[:, 0] + np.log(np.exp(a - m).sum(axis=1))

    def softmax(a):
        e = np.exp(a - a.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    for f in (logsumexp, softmax, lambda a: np.tanh(a).sum(), lambda a: np.log1p(a * a).mean()):
        calls = _core.ufunc_loop_calls()
        check(f, x, rtol=1e-6 if dtype == np.float32 else 1e-12, ops=())
        assert _core.ufunc_loop_calls() > calls


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_powers_and_two_operand_functions(dtype):
    rng = np.random.default_rng(5)
    x = rng.uniform(0.1, 4, (3, 1100)).astype(dtype)
    y = rng.uniform(-2, 2, (3, 1100)).astype(dtype)
    programs = {
        "x ** y": lambda a, b: a ** b,
        "x ** 2.5": lambda a, b: a ** 2.5,
        "2.5 ** y": lambda a, b: 2.5 ** b,
        "np.power": lambda a, b: np.power(a + 1, b[0]),  # a row broadcast down the columns
        "arctan2": lambda a, b: np.arctan2(b, a),
        "fused": lambda a, b: np.sqrt(np.arctan2(b * a, a - 1) ** 2 + np.logaddexp(a, b)),
    }
    for name, f in programs.items():
        calls = _core.ufunc_loop_calls()
        for a, b in ((x, y), (x[:, ::-1], y.T.copy().T), (np.asfortranarray(x), y)):
            check(f, a, b, rtol=1e-6 if dtype == np.float32 else 1e-12, ops=())
        assert _core.ufunc_loop_calls() > calls, name
    # Lone products of NumPy's own loop: its values bit for bit.
    got = ember.compile(lambda a, b: a ** b)(x, y)
    np.testing.assert_array_equal(got, x ** y)
    # A negative base to a fractional power: NaN and NumPy's "invalid value" warning.
    bad = x.copy()
    bad[2, 1000] = -1.5
    check(lambda a, b: a ** b, bad, y, ops=())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_and_min_reductions(dtype):
    rng = np.random.default_rng(6)
    x = rng.normal(size=(4, 3000)).astype(dtype)
    with_nan = x.copy()
    with_nan[2, 2500] = np.nan
    zeros = np.zeros((3, 700), dtype)
    zeros[1, ::2] = -0.0
    programs = [lambda a: a.max(), lambda a: a.min(axis=1), lambda a: np.max(np.abs(a), axis=1),
                lambda a: a / a.max(axis=1, keepdims=True), lambda a: (a * 2 + 1).min(),
                lambda a: np.amax(a[:, ::3])]
    for f in programs:
        for a in (x, with_nan):
            calls = _core.ufunc_loop_calls()
            check(f, a, rtol=0, ops=())
            assert _core.ufunc_loop_calls() > calls
            np.testing.assert_array_equal(ember.compile(f)(a), f(a))
        # Rows holding zeros of both signs rerun with NumPy (its order picks the zero kept:
        # codegen's `zero_tie_raises_invalid`): NumPy's values and signs, every call.
        want = f(zeros)
        for _ in range(2):
            got = ember.compile(f)(zeros)
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    # Across rows (an outer axis) the kernels accumulate whole rows, as NumPy does.
    check(lambda a: a.T.max(axis=0), with_nan, rtol=0, ops=())
    # Short rows keep the kernels' own reduction.
    calls = _core.ufunc_loop_calls()
    check(lambda a: a.max(axis=1), x.reshape(-1, 8), ops=())
    assert _core.ufunc_loop_calls() == calls
