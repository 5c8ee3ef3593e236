"""Dynamic shapes: `dynamic=None` specialises first and captures symbolic sizes after a
shape-driven recompile, `dynamic=True` starts symbolic, `dynamic=False` always specialises;
sizes read as Python values fall back to static capture."""

from __future__ import annotations

import functools
import math

import ember
import numpy as np
import pytest
from conftest import assert_same


def weighted(x, y):
    return (x * y).sum(axis=0) + x.mean()


def reshapes(x):
    return x.reshape(x.shape[0] * x.shape[1], -1) + 1  # a product of two run-time sizes


def doubled_rows(x):
    return x.reshape(x.shape[0] * 2, -1) + 1


def _args(n):
    return np.arange(n * 3.0).reshape(n, 3), np.ones((n, 3))


def test_automatic_dynamic_after_a_shape_change(recorder):
    f = ember.compile(weighted, backend=recorder)
    for n in (4, 8, 16, 32):
        assert_same(f(*_args(n)), weighted(*_args(n)))
    assert len(recorder.graphs) == 2
    static, symbolic = recorder.graphs
    assert static.inputs[0].shape == (4, 3)
    # Only the dim that changed is symbolic, as torch.compile does it; equal sizes share one
    # symbol (duck sizing), so x and y stay broadcast-compatible.
    assert symbolic.inputs[0].shape == ("s0", 3) == symbolic.inputs[1].shape
    s = ember.stats()
    assert s["recompiles"] == 1 and s["cache_hits"] == 2


def test_dynamic_true_starts_symbolic_and_keeps_sizes_0_and_1_static(recorder):
    f = ember.compile(weighted, backend=recorder, dynamic=True)
    x, y = np.ones((1, 5)), np.ones((1, 5))
    assert_same(f(x, y), weighted(x, y))
    assert recorder.graphs[0].inputs[0].shape == (1, "s0")
    assert_same(f(np.ones((1, 7)), np.ones((1, 7))), weighted(np.ones((1, 7)), np.ones((1, 7))))
    assert_same(f(*_args(2)), weighted(*_args(2)))  # size 1 -> 2 is a new entry
    assert len(recorder.graphs) == 2


def test_dynamic_false_always_specialises(recorder):
    f = ember.compile(weighted, backend=recorder, dynamic=False)
    for n in (2, 3, 4):
        assert_same(f(*_args(n)), weighted(*_args(n)))
    assert [g.inputs[0].shape for g in recorder.graphs] == [(2, 3), (3, 3), (4, 3)]


@pytest.mark.parametrize("dynamic", [None, True])
def test_sizes_used_in_python_fall_back_to_static(dynamic, recorder):
    f = ember.compile(reshapes, backend=recorder, dynamic=dynamic)
    for n in (2, 3, 4):
        assert_same(f(np.ones((n, n + 1))), reshapes(np.ones((n, n + 1))))
    assert all(isinstance(d, int) for g in recorder.graphs for d in g.inputs[0].shape)
    assert len(recorder.graphs) == 3
    assert ember.stats()["graph_breaks"] == 0


def test_a_multiple_of_a_size_used_as_a_shape_stays_symbolic(recorder):
    f = ember.compile(doubled_rows, backend=recorder)
    for n in (2, 3, 4, 7):
        x = np.arange(n * 4.0).reshape(n, 4)
        assert_same(f(x), doubled_rows(x))
    assert len(recorder.graphs) == 2
    assert recorder.graphs[1].nodes[0].attrs["shape"] == ["2*s0", 2]


def test_mismatched_symbolic_sizes_raise_numpys_error():
    f = ember.compile(weighted, dynamic=True)
    f(*_args(4))
    with pytest.raises(ValueError, match="could not be broadcast"):
        f(np.ones((5, 3)), np.ones((6, 3)))


def step(w, grad, lr):
    return w - lr * grad


def test_changing_python_floats_become_inputs(recorder):
    f = ember.compile(step, backend=recorder)
    w, g = np.ones(3, np.float32), np.full(3, 2.0, np.float32)
    for lr in (0.1, 0.2, 0.3, 0.4):
        assert_same(f(w, g, lr), step(w, g, lr))
    assert len(recorder.graphs) == 2
    weak = recorder.graphs[1].inputs[2]
    assert weak.weak and weak.shape == () and weak.dtype == np.float64
    assert f(w, g, 0.5).dtype == np.float32  # NEP 50: the weak float keeps float32
    assert_same(f(w, g, 2), step(w, g, 2))  # an int is another entry, specialised
    assert len(recorder.graphs) == 3


def decay(x, rate):
    return x * math.exp(-rate)


def test_math_of_floats_that_change_is_in_the_graph(recorder):
    # After the rate changes once it is an input: math.exp of it is a graph op (no break),
    # and new rates reuse the entry.
    f = ember.compile(decay, backend=recorder)
    for rate in (0.1, 0.2, 0.3, 0.4, 0.5):
        assert_same(f(np.ones(2), rate), decay(np.ones(2), rate))
    s = ember.stats()
    assert s["graph_breaks"] == 0
    captures = s["captures"]
    assert_same(f(np.ones(2), 0.6), decay(np.ones(2), 0.6))
    assert ember.stats()["captures"] == captures


def crr_factors(S, T, n, sigma, r):
    dt = T / n
    u = math.exp(sigma * math.sqrt(dt))
    p = (math.exp(r * dt) - 1 / u) / (u - 1 / u)
    return S * u ** np.arange(2), p, math.floor(T * 10.5), math.log(T - 0.5)


def scaled_sum(x, tau):
    g = math.exp(-1.0 / tau)
    acc = 0.0
    for i in range(len(x)):
        acc = g * acc + math.sqrt(tau) * x[i]
    return acc


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_math_of_run_time_numbers_like_python(backend):
    # Python numbers that differ between calls (floats and ints), combined, then through
    # math: the values and types of Python's, and Python's exceptions where it raises.
    f = ember.compile(crr_factors, backend=backend)
    for T, n in ((1.0, 100), (2.0, 50), (0.75, 7), (3.5, 1000)):
        args = (np.full(2, 100.0), T, n, 0.2, 0.03)
        assert_same(f(*args), crr_factors(*args))
    assert ember.stats()["graph_breaks"] == 0
    for T in (0.5, 0.25):  # log of 0 and of a negative number: ValueError, as Python
        with pytest.raises(ValueError):
            crr_factors(np.ones(2), T, 10, 0.2, 0.03)
        with pytest.raises(ValueError):
            f(np.ones(2), T, 10, 0.2, 0.03)
    with pytest.raises(OverflowError):
        crr_factors(np.ones(2), 1.0, 1e-6, 2000.0, 0.03)
    with pytest.raises(OverflowError):
        f(np.ones(2), 1.0, 1e-6, 2000.0, 0.03)
    g = ember.compile(scaled_sum, backend=backend)
    for tau in (2.0, 5.0, 9.0, 3):
        x = np.linspace(0, 1, 7)
        assert_same(g(x, tau), scaled_sum(x, tau))
    with pytest.raises(ValueError):
        g(np.ones(3), -1.0)


def typed_step(w, lr):
    if isinstance(lr, float) and not isinstance(lr, np.ndarray):
        return w * lr, type(lr * 2)
    return w, None


def test_float_inputs_keep_their_python_type(recorder):
    f = ember.compile(typed_step, backend=recorder)
    w = np.ones(2)
    for lr in (0.5, 0.25, 0.125):
        assert_same(f(w, lr), typed_step(w, lr))
    assert recorder.graphs[-1].inputs[1].weak


def product(xs):
    return functools.reduce(lambda a, b: a * b, xs, 1)


def test_python_ints_stay_exact_when_they_become_inputs():
    # The lambda's ints change on every call: they become inputs, and Python computes on
    # them (29! does not fit int64).
    f = ember.compile(product)
    assert f(list(range(1, 30))) == math.factorial(29)
    assert f(list(range(1, 30))) == math.factorial(29)


def inverse_rate(x, rate):
    return x * (1.0 / rate)


def test_python_scalar_errors_are_pythons(recorder):
    f = ember.compile(inverse_rate, backend=recorder)
    x = np.ones(2)
    for rate in (2.0, 4.0):
        assert_same(f(x, rate), inverse_rate(x, rate))
    with pytest.raises(ZeroDivisionError):
        f(x, 0.0)  # Python's error for 1 / 0.0, not a float64 inf
    assert_same(f(x, 8.0), inverse_rate(x, 8.0))
    # The rate is a weak scalar computed by the entry: 1 / rate never is a graph op.
    assert "div" not in [n.op for g in recorder.graphs for n in g.nodes]
