"""Python numbers made from arrays inside a compiled function: `float(v)`, `int(v)` of an
integer, `v.item()` stay in the graph as Python numbers (no graph break) with the type and
value NumPy gives; conversions that can fail in Python (`int(nan)`) still fail the same way."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same
from hypothesis import given, seed, settings
from hypothesis import strategies as st

BACKENDS = ["cranelift", "eager"]
DTYPES = [np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8, np.uint32, np.bool_]


def conversions(x):
    total = x.sum()
    return (float(total), float(x[0]), x[1].item(), x.max().item(), (x > 0).any().item(),
            x[:1].item())


def int_conversions(x):
    return int(x.sum()), int(x[0]) * 2, int(x[1]) + int(x[2])


def loss_and_count(x, y):
    loss = float(np.mean((x - y) ** 2))
    count = int(np.sum(x > y))
    return loss * 2.0, count + 1, x * loss


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_float_and_item_are_graph_values(dtype, backend):
    x = (np.arange(6) - 2).astype(dtype)
    ember.reset()
    got = ember.compile(conversions, backend=backend)(x)
    assert_same(got, conversions(x), rtol=1e-6)
    # A uint64 sum does not fit a Python int held as int64: that conversion runs in Python.
    assert ember.stats()["graph_breaks"] == (x.sum().dtype == np.uint64)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.bool_])
def test_int_of_integers_is_a_graph_value(dtype, backend):
    x = np.array([3, 1, 2, 0], dtype=dtype)
    ember.reset()
    assert_same(ember.compile(int_conversions, backend=backend)(x), int_conversions(x))
    assert ember.stats()["graph_breaks"] == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_training_style_function_runs_as_one_graph(backend):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(50), rng.standard_normal(50)
    ember.reset()
    assert_same(ember.compile(loss_and_count, backend=backend)(x, y), loss_and_count(x, y),
                rtol=1e-12)
    assert ember.stats()["graph_breaks"] == 0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, 2.7, -2.7])
def test_int_of_a_float_fails_as_python_does(value, backend):
    def f(x):
        return int(x[0] * 2.0)

    x = np.array([value, 1.0])
    try:
        want = f(x)
    except (ValueError, OverflowError) as exc:
        with pytest.raises(type(exc), match=str(exc)):
            ember.compile(f, backend=backend)(x)
        return
    assert_same(ember.compile(f, backend=backend)(x), want)


def sized_by_ceiling(x):
    n = int(np.ceil(x.max()))
    return x * n, n


def rounded_mean(x):
    return round(x.mean()) + 1, np.abs(x) * round(np.float32(x[0]))


def truncated_sum(x):
    return int(x.sum() / 3.0) - int(x[-1])


FLOAT_CONVERSIONS = [sized_by_ceiling, rounded_mean, truncated_sum]


def _outcome(fn, x):
    try:
        result = fn(x)
    except (ValueError, OverflowError) as exc:
        return f"raised {type(exc).__name__}: {exc}"
    return repr(result) + repr([type(r) for r in (result if isinstance(result, tuple) else
                                                 (result,))])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", FLOAT_CONVERSIONS)
def test_int_and_round_of_a_float_at_the_frames_level_are_graph_values(fn, backend):
    """`int(np.ceil(x.max()))`, `round(v)` of a NumPy float outside loops: a Python int of
    the graph, checked at run time (NaN, infinity, past int64: the frame runs as Python)."""
    ember.reset()
    compiled = ember.compile(fn, backend=backend)
    for x in (np.array([0.5, 2.25, -1.5]), np.array([-7.5, 2.5, 3.0]), np.array([1.0, 4.0])):
        assert _outcome(compiled, x) == _outcome(fn, x)
    assert ember.stats()["graph_breaks"] == 0
    assert ember.stats()["entry_fallbacks"] == 0
    for x in (np.array([np.nan, 1.0]), np.array([1.0, np.inf]), np.array([-np.inf, 1.0]),
              np.array([1e300, 2.0]), np.array([9.3e18, -9.3e18])):
        assert _outcome(compiled, x) == _outcome(fn, x)


@seed(20261207)
@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), min_size=2,
                max_size=6),
       st.sampled_from(FLOAT_CONVERSIONS), st.sampled_from(BACKENDS))
def test_float_conversions_agree_with_python(values, fn, backend):
    x = np.array(values)
    with np.errstate(all="ignore"):
        want = _outcome(fn, x)
        assert _outcome(ember.compile(fn, backend=backend), x) == want


@pytest.mark.parametrize("backend", BACKENDS)
def test_item_of_a_larger_array_raises_numpy_error(backend):
    def f(x):
        return (x * 2).item()

    with pytest.raises(ValueError, match="can only convert an array of size 1"):
        f(np.ones(3))
    with pytest.raises(ValueError, match="can only convert an array of size 1"):
        ember.compile(f, backend=backend)(np.ones(3))


@pytest.mark.parametrize("backend", BACKENDS)
def test_uint64_item_stays_exact(backend):
    def f(x):
        return x[0].item() + 1

    x = np.array([2**64 - 2, 1], dtype=np.uint64)
    assert_same(ember.compile(f, backend=backend)(x), f(x))


def test_a_number_taken_out_is_a_constant_of_the_gradient():
    """`float(v)` and `v.item()` in a differentiated function are constants, as in PyTorch:
    the gradient does not flow through them."""

    def loss(w):
        scale = float(np.sum(w * w))
        shift = (w.sum() * 2.0).item()
        return np.sum(w * scale) + shift * np.sum(w)

    w = np.array([0.5, -1.0, 2.0])
    scale, shift = float(np.sum(w * w)), float(w.sum() * 2.0)
    want = np.full(3, scale + shift)
    np.testing.assert_allclose(ember.grad(loss)(w), want, rtol=1e-12)


def test_a_number_taken_out_is_a_constant_in_a_compiled_training_step():
    def loss(w, x):
        scale = float(np.mean(w * w))
        return np.sum((x @ w) ** 2) * scale

    @ember.compile
    def step(w, x):
        value, g = ember.value_and_grad(loss)(w, x)
        return value, w - 0.01 * g

    rng = np.random.default_rng(4)
    w, x = rng.standard_normal(3), rng.standard_normal((5, 3))
    scale = float(np.mean(w * w))
    want_grad = 2.0 * scale * (x.T @ (x @ w))
    value, new_w = step(w, x)
    np.testing.assert_allclose(value, loss(w, x), rtol=1e-12)
    np.testing.assert_allclose(new_w, w - 0.01 * want_grad, rtol=1e-10)
