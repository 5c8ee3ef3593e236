"""Differentiated functions with long Python loops (a recurrent net over its time steps, an
explicit ODE integrator): a differentiated graph holds no loop ops and cannot run a loop in
Python without losing its gradient, so its loops unroll up to `config.unroll_op_limit` ops
(`loops.UnrollAccount.check`) where other captures stop at `unroll_op_budget`. Gradients
equal autograd's."""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import ember
import numpy as np
import pytest


def recurrent_loss(W, xs, np=np):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h ** 2)


def integrated(k, y0, np=np):
    y = y0
    for _ in range(300):
        y = y + 0.01 * (-k * y + np.sin(y))
    return np.sum(y * y)


CASES = [
    (recurrent_loss, lambda rng: (rng.standard_normal((8, 8)) * 0.3,
                                  rng.standard_normal((60, 8)))),
    (integrated, lambda rng: (rng.random(5), rng.random(5))),
]


@pytest.mark.parametrize("fn, make", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_gradients_through_long_loops_equal_autograds(fn, make):
    args = make(np.random.default_rng(5))
    want = autograd.grad(lambda *a: fn(*a, np=anp), argnum=(0, 1))(*args)
    value, got = ember.value_and_grad(fn, argnums=(0, 1))(*args)
    np.testing.assert_allclose(value, fn(*args), rtol=1e-10)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-8, atol=1e-12)


def test_a_training_step_through_a_recurrence_compiles_whole():
    @ember.compile
    def step(W, xs):
        loss, g = ember.value_and_grad(recurrent_loss)(W, xs)
        return loss, W - 0.1 * g

    rng = np.random.default_rng(6)
    W, xs = rng.standard_normal((8, 8)) * 0.3, rng.standard_normal((40, 8))
    ember.reset()
    loss, updated = step(W, xs)
    want = autograd.grad(lambda w: recurrent_loss(w, xs, np=anp))(W)
    np.testing.assert_allclose(updated, W - 0.1 * want, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(loss, recurrent_loss(W, xs), rtol=1e-10)
    assert ember.stats()["graph_breaks"] == 0
