"""Arrays with symbolic dims sliced or indexed, along their static axes (`x[:, 0]`,
`x[:, 1:] - x[:, :-1]`, `x[..., :2]`, `y[:, ::2]`, `x[:, None, 1]`: the symbolic axis taken
whole, the `slice` op's `0:-1:1`) and along the symbolic axis itself (`x[1:] - x[:-1]`,
`x[0]`, `x[-3:]`, `x[2:-1]`: bounds from the front or counted from the end, leaving `s0-1`
or a static size), so that a function called with many sizes compiles twice; sizes too small
for the slices (where a dim they leave would be below 2) compile apart. Every call equals
NumPy, layouts included, on both backends, and gradients through such slices equal
autograd's."""

from __future__ import annotations

import autograd as ag
import autograd.numpy as anp
import ember
import numpy as np
import pytest
from conftest import assert_same

BATCHES = (4, 5, 6, 7, 3, 9, 12, 4, 2, 30, 5)


def _args(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(n)
    return rng.standard_normal((n, 3)), rng.standard_normal((n, 3))


def column_mix(x, y):
    return x[:, 0] * 2 + y[:, 1]


def differences(x, y):
    return x[:, 1:] - x[:, :-1]


def strided_columns(x, y):
    return (x[..., :2] * y[:, ::2]).sum(axis=1)


def new_axis_and_index(x, y):
    return x[:, None, 1] + y[:, 2:3]


def reversed_columns(x, y):
    return np.tanh(x[:, ::-1]) + x.mean(axis=1, keepdims=True)


def whole_slices(x, y):
    return x[:] + y[0:, :], x[:, 1]


SYMBOLIC = [column_mix, differences, strided_columns, new_axis_and_index, reversed_columns,
            whole_slices]


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
@pytest.mark.parametrize("fn", SYMBOLIC, ids=lambda f: f.__name__)
def test_static_axes_sliced_keep_the_graph_symbolic(fn, backend):
    ember.reset()
    compiled = ember.compile(fn, backend=backend)
    for n in BATCHES:
        x, y = _args(n)
        assert_same(compiled(x, y), fn(x, y), rtol=1e-12)
    stats = ember.stats()
    assert stats["compiles"] == 2 and stats["graph_breaks"] == 0, stats


def rows_dropped(x, y):
    return x[1:] * y[:-1]


def first_row(x, y):
    return x[0] + y[-1]


def transposed_window(x, y):
    return x[:, ::-1] @ y.T[::-1, :1]


def differences_along_the_batch(x, y):
    return (x[1:] - x[:-1]).sum(axis=0), x[2:-1, 1] * y[1:-2, 2], x[-4:-1] + y[:3]


def smoothed(x, y):
    inner = (x[2:] + x[1:-1] + x[:-2]) / 3
    return np.concatenate([x[:1], inner, x[-1:]]) - y


def head_and_tail(x, y):
    return x[:2] @ y[-2:].T, x[1:][1:].mean()


SYMBOLIC_AXIS = [rows_dropped, first_row, transposed_window, differences_along_the_batch,
                 smoothed, head_and_tail]


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
@pytest.mark.parametrize("fn", SYMBOLIC_AXIS, ids=lambda f: f.__name__)
def test_the_symbolic_axis_sliced_stays_symbolic(fn, backend):
    ember.reset()
    compiled = ember.compile(fn, backend=backend)
    sizes = (6, 7, 9, 12, 30, 8, 101, 6)
    for n in sizes:
        x, y = _args(n)
        assert_same(compiled(x, y), fn(x, y), rtol=1e-12)
    stats = ember.stats()
    assert stats["compiles"] == 2 and stats["graph_breaks"] == 0, stats


@pytest.mark.parametrize("fn", SYMBOLIC_AXIS, ids=lambda f: f.__name__)
def test_sizes_too_small_for_the_slices_compile_apart(fn):
    ember.reset()
    compiled = ember.compile(fn)
    for n in (2, 3, 4, 5, 9, 3, 17, 2, 40, 5):
        x, y = _args(n)
        try:
            want = fn(x, y)
        except ValueError as exc:  # NumPy's own shape errors at the smallest sizes
            with pytest.raises(type(exc)):
                compiled(x, y)
            continue
        assert_same(compiled(x, y), want, rtol=1e-12)
    stats = ember.stats()
    assert stats["recompile_limit_hits"] == 0, stats


def test_steps_along_the_symbolic_axis_are_captured_static():
    ember.reset()
    compiled = ember.compile(lambda x: x[::2] + x[1::2].sum())
    for n in (4, 6, 8, 4):
        x = _args(n)[0]
        assert_same(compiled(x), x[::2] + x[1::2].sum(), rtol=1e-12)
    assert ember.stats()["graph_breaks"] == 0


def loss(w, x):
    h = np.tanh(x[:, :2] @ w)
    return (h[:, 0] ** 2).sum() + (x[:, 2:] * h[:, 1:2]).sum() * 0.5


def test_gradients_through_slices_of_symbolic_arrays():
    def plain(w, x):
        h = anp.tanh(x[:, :2] @ w)
        return (h[:, 0] ** 2).sum() + (x[:, 2:] * h[:, 1:2]).sum() * 0.5

    ember.reset()
    step = ember.compile(lambda w, x: ember.value_and_grad(loss)(w, x))
    w = np.random.default_rng(0).standard_normal((2, 2))
    for n in BATCHES:
        x = _args(n)[0]
        value, grad = step(w, x)
        np.testing.assert_allclose(grad, ag.grad(plain)(w, x), rtol=1e-10)
        np.testing.assert_allclose(value, loss(w, x), rtol=1e-12)
    assert ember.stats()["compiles"] == 2  # the joint graph is symbolic too


def series_loss(w, x):
    pred = x[:-1] @ w
    return ((pred - x[1:]) ** 2).mean() + (x[0] * x[-1]).sum()


def test_gradients_through_slices_of_the_symbolic_axis():
    def plain(w, x):
        pred = anp.dot(x[:-1], w)
        return anp.mean((pred - x[1:]) ** 2) + anp.sum(x[0] * x[-1])

    ember.reset()
    step = ember.compile(lambda w, x: ember.value_and_grad(series_loss, argnums=(0, 1))(w, x))
    w = np.random.default_rng(0).standard_normal((3, 3))
    for n in (5, 6, 9, 13, 40, 6):
        x = _args(n)[0]
        value, (gw, gx) = step(w, x)
        np.testing.assert_allclose(gw, ag.grad(plain, 0)(w, x), rtol=1e-10)
        np.testing.assert_allclose(gx, ag.grad(plain, 1)(w, x), rtol=1e-10)
        np.testing.assert_allclose(value, series_loss(w, x), rtol=1e-12)
    assert ember.stats()["compiles"] == 2
