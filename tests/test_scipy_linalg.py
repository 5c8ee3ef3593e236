"""scipy.linalg's `cholesky`, `cho_factor`, `cho_solve` and `solve_triangular` in compiled and
differentiated functions: scipy's values, dtypes and errors, gradients equal to central
differences and to autograd's for a Gaussian-process likelihood written with them."""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import autograd.scipy.linalg as asl
import ember
import numpy as np
import pytest
import scipy.linalg as sl
from probe_harness import assert_behaves_as_numpy
from scipy.linalg import cho_factor, cho_solve, cholesky, solve_triangular
from test_autodiff_rules import numeric_grad

RNG = np.random.default_rng(8)


def _spd(x):
    return x @ x.T + 3 * np.eye(x.shape[0])


CALLS = {
    "cholesky, upper": lambda x: cholesky(_spd(x)),
    "cholesky, lower": lambda x: sl.cholesky(_spd(x), lower=True),
    "solve_triangular, lower, a vector": lambda x: solve_triangular(
        np.linalg.cholesky(_spd(x)), x[:, 0], lower=True),
    "solve_triangular, upper, transposed": lambda x: solve_triangular(cholesky(_spd(x)), x,
                                                                      trans=1),
    "solve_triangular, unit diagonal": lambda x: solve_triangular(_spd(x), x[:, :2],
                                                                  lower=True,
                                                                  unit_diagonal=True),
    "cho_factor": lambda x: cho_factor(_spd(x))[0],
    "cho_solve": lambda x: cho_solve(cho_factor(_spd(x)), x[:, 1]),
    "cho_solve, lower": lambda x: cho_solve(cho_factor(_spd(x), lower=True), x),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_calls_behave_as_scipy(name):
    fn = CALLS[name]
    rng = np.random.default_rng(9)  # the same data whichever tests run before
    assert_behaves_as_numpy(fn, rng.standard_normal((4, 4)))
    small = rng.standard_normal((3, 3)).astype(np.float32)
    got = ember.compile(fn)(small)
    assert got.dtype == fn(small).dtype
    np.testing.assert_allclose(got, fn(small), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_gradients_equal_differences(name):
    fn = CALLS[name]

    def loss(x):
        return np.sum(np.sin(fn(x)))

    x = RNG.standard_normal((4, 4))
    value, got = ember.value_and_grad(loss)(x)
    np.testing.assert_allclose(value, loss(x), rtol=1e-12)
    np.testing.assert_allclose(got, numeric_grad(loss, (x,), 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ember.grad(loss, backend="eager")(x), got, rtol=1e-10,
                               atol=1e-12)


def test_non_finite_input_raises_scipys_error():
    def f(x):
        return solve_triangular(cholesky(_spd(x)), x[:, 0])

    x = RNG.standard_normal((3, 3))
    compiled = ember.compile(f)
    np.testing.assert_allclose(compiled(x), f(x), rtol=1e-12)
    x[1, 1] = np.nan
    with pytest.raises(ValueError, match="infs or NaNs"):
        f(x)
    with pytest.raises(ValueError, match="infs or NaNs"):
        compiled(x)


def _gp_nll(log_params, x, y, linalg):
    ls, noise = linalg[0].exp(log_params[0]), linalg[0].exp(log_params[1])
    sq = linalg[0].sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1)
    k = linalg[0].exp(-0.5 * sq / ls ** 2) + noise * linalg[0].eye(len(y))
    chol = linalg[1](k, lower=True)
    alpha = linalg[2](chol.T, linalg[2](chol, y, lower=True), lower=False)
    return 0.5 * y @ alpha + linalg[0].sum(linalg[0].log(linalg[0].diag(chol)))


def test_a_gaussian_process_likelihood_equals_autograds():
    x, y = RNG.uniform(-2, 2, (7, 2)), RNG.standard_normal(7)
    params = np.array([0.2, -1.0])

    def loss(p):
        return _gp_nll(p, x, y, (np, sl.cholesky, solve_triangular))

    def lower_factor(k, lower):  # autograd's scipy cholesky has no gradient; NumPy's has
        return anp.linalg.cholesky(k)

    want = autograd.grad(lambda p: _gp_nll(p, x, y, (anp, lower_factor,
                                                     asl.solve_triangular)))(params)
    np.testing.assert_allclose(ember.grad(loss)(params), want, rtol=1e-8, atol=1e-10)

    @ember.compile
    def step(p):
        value, g = ember.value_and_grad(loss)(p)
        return value, p - 0.1 * g

    value, new = step(params)
    np.testing.assert_allclose(value, loss(params), rtol=1e-12)
    np.testing.assert_allclose(new, params - 0.1 * want, rtol=1e-8, atol=1e-10)
