"""Gradients of functions captured with symbolic sizes: a training step called with many
batch sizes compiles twice, as a forward function does, with the gradient of a `mean` over the
symbolic batch dim dividing by a count computed at run time. Gradients equal autograd's."""

from __future__ import annotations

import autograd as ag
import autograd.numpy as anp
import ember
import numpy as np
import pytest

BATCHES = (4, 5, 6, 7, 3, 9, 12, 4, 2, 30, 5)


def mse(xp):
    def loss(w, x, y):
        return ((xp.tanh(x @ w) - y) ** 2).mean()
    return loss


def row_means(xp):
    def loss(w, x, y):
        h = xp.tanh(x @ w)
        return (h.mean(axis=0) ** 2).sum() + (h.mean(axis=1, keepdims=True) * y).sum()
    return loss


def mixed(xp):
    def loss(w, x, y):
        h = x @ w
        return h.mean() * h[:, :1].sum() / 3.0 + (y * h).mean(axis=0).sum()
    return loss


@pytest.mark.parametrize("make", [mse, row_means, mixed], ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_steps_over_many_batch_sizes_compile_twice(make, dtype):
    loss, reference = make(np), ag.grad(make(anp))
    ember.reset()
    step = ember.compile(lambda w, x, y: ember.value_and_grad(loss)(w, x, y))
    rng = np.random.default_rng(0)
    w = rng.standard_normal((3, 2)).astype(dtype)
    tol = 1e-10 if dtype == np.float64 else 2e-5
    for n in BATCHES:
        x = rng.standard_normal((n, 3)).astype(dtype)
        y = rng.standard_normal((n, 2)).astype(dtype)
        value, grad = step(w, x, y)
        want = reference(w.astype(np.float64), x.astype(np.float64), y.astype(np.float64))
        assert grad.dtype == dtype
        np.testing.assert_allclose(grad, want, rtol=tol, atol=tol)
        np.testing.assert_allclose(value, loss(w, x, y), rtol=tol)
    stats = ember.stats()
    assert stats["compiles"] == 2 and stats["graph_breaks"] == 0, stats
