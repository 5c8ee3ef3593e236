"""Gradients through `np.linalg.solve`, `inv`, `det` and `slogdet` (`autodiff/rules/linalg.rs`:
the cotangents written with the linalg ops themselves) equal autograd's: vectors and matrices
on the right, stacked matrices, float32 inputs, inside a compiled training step, and a
Gaussian process's negative log-likelihood over a pytree of parameters."""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import ember
import numpy as np
import pytest


def _spd(rng, n, batch=()):
    m = rng.standard_normal((*batch, n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


CASES = {
    "solve vector": (lambda np, a, b: np.sum(np.linalg.solve(a, b) ** 2),
                     lambda rng: (_spd(rng, 4), rng.standard_normal(4))),
    "solve matrix": (lambda np, a, b: np.sum(np.sin(np.linalg.solve(a, b))),
                     lambda rng: (_spd(rng, 4) + rng.standard_normal((4, 4)),
                                  rng.standard_normal((4, 3)))),
    "solve stacked": (lambda np, a, b: np.sum(np.linalg.solve(a, b) * b),
                      lambda rng: (_spd(rng, 3, (2,)), rng.standard_normal((2, 3, 2)))),
    "inv": (lambda np, a, b: np.sum(np.linalg.inv(a) @ b),
            lambda rng: (_spd(rng, 4) - 2 * np.eye(4), rng.standard_normal((4, 2)))),
    "inv stacked": (lambda np, a, b: np.sum(np.linalg.inv(a) ** 2) + np.sum(b),
                    lambda rng: (_spd(rng, 3, (3,)), rng.standard_normal(2))),
    "det": (lambda np, a, b: np.linalg.det(a) * np.sum(b),
            lambda rng: (rng.standard_normal((4, 4)), rng.standard_normal(3))),
    "det stacked": (lambda np, a, b: np.sum(np.linalg.det(a) ** 2 * b),
                    lambda rng: (rng.standard_normal((3, 3, 3)), rng.standard_normal(3))),
    "slogdet": (lambda np, a, b: np.linalg.slogdet(a)[1] * np.sum(b ** 2),
                lambda rng: (rng.standard_normal((4, 4)), rng.standard_normal(3))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_equal_autograds(name):
    fn, make = CASES[name]
    a, b = make(np.random.default_rng(len(name)))
    want = autograd.grad(lambda a, b: fn(anp, a, b), argnum=(0, 1))(a, b)
    value, got = ember.value_and_grad(lambda a, b: fn(np, a, b), argnums=(0, 1))(a, b)
    np.testing.assert_allclose(value, fn(np, a, b), rtol=1e-10)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-10)


def test_float32_inputs_get_float32_gradients():
    rng = np.random.default_rng(1)
    a = _spd(rng, 3).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    got = ember.grad(lambda a: np.sum(np.linalg.solve(a, b)))(a)
    want = autograd.grad(lambda a: anp.sum(anp.linalg.solve(a.astype(np.float64),
                                                            b.astype(np.float64))))(a)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-4)


def gp_negative_log_likelihood(params, x, y, np=np):
    """A squared-exponential Gaussian process: -log p(y | x) up to a constant."""
    d = x[:, None] - x[None, :]
    k = params["scale"] ** 2 * np.exp(-0.5 * d ** 2 / params["length"] ** 2)
    k = k + params["noise"] ** 2 * np.eye(x.shape[0])
    alpha = np.linalg.solve(k, y)
    return 0.5 * y @ alpha + 0.5 * np.linalg.slogdet(k)[1]


def test_a_gaussian_process_likelihood_over_a_pytree():
    rng = np.random.default_rng(2)
    x, y = np.sort(rng.random(12)) * 5, rng.standard_normal(12)
    params = {"scale": 1.3, "length": 0.7, "noise": 0.2}
    want = autograd.grad(lambda p: gp_negative_log_likelihood(p, x, y, np=anp))(params)

    @ember.compile
    def step(p, x, y):
        return ember.value_and_grad(gp_negative_log_likelihood)(p, x, y)

    value, got = step(params, x, y)
    np.testing.assert_allclose(value, gp_negative_log_likelihood(params, x, y), rtol=1e-10)
    for key in params:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-7)
