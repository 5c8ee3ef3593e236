"""Arrays with symbolic dims sliced or indexed along their static axes (`x[:, 0]`,
`x[:, 1:] - x[:, :-1]`, `x[..., :2]`, `y[:, ::2]`, `x[:, None, 1]`): the symbolic axis is taken
whole (the `slice` op's `0:-1:1`, substituted with each call's size), so a function called with
many batch sizes compiles twice; slicing the symbolic axis itself (`x[1:]`) or indexing it
(`x[0]`) is captured static. Every call equals NumPy, layouts included, on both backends, and
gradients through such slices equal autograd's."""

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


@pytest.mark.parametrize("fn", [rows_dropped, first_row, transposed_window],
                         ids=lambda f: f.__name__)
def test_the_symbolic_axis_sliced_is_captured_static(fn):
    ember.reset()
    compiled = ember.compile(fn)
    for n in BATCHES[:6]:
        x, y = _args(n)
        assert_same(compiled(x, y), fn(x, y), rtol=1e-12)
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
