"""Around the programs of `autodiff_users2_cases` (their gradients are checked with every case
list in `test_autodiff_users`): Black-Scholes greeks equal their closed forms;
`scipy.optimize.minimize(jac=True)` driven by `ember.value_and_grad` takes the steps it takes
with autograd's gradient."""

from __future__ import annotations

import math

import autograd
import ember
import numpy as np
import pytest
import scipy.optimize
from autodiff_users2_cases import (
    _GP_X,
    _GP_Y,
    RNG,
    _normal,
    black_scholes_call,
    gp_neg_log_marginal,
    logsumexp,
    lstm_sequence_loss,
)
from test_autodiff_stranger import (
    _on_autograd,
    assert_compiled_step_as_standalone,
    assert_trees_equal,
)


def _phi(z):
    return math.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)


def _big_phi(z):
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


@pytest.mark.parametrize("spot,strike,rate,vol,tau", [(100.0, 95.0, 0.03, 0.25, 0.5),
                                                      (80.0, 100.0, 0.01, 0.4, 2.0)])
def test_black_scholes_greeks_equal_the_closed_forms(spot, strike, rate, vol, tau):
    greeks = ember.grad(black_scholes_call, argnums=(0, 1, 2, 3, 4))(spot, strike, rate, vol,
                                                                      tau)
    d1 = (math.log(spot / strike) + (rate + 0.5 * vol ** 2) * tau) / (vol * math.sqrt(tau))
    d2 = d1 - vol * math.sqrt(tau)
    discount = math.exp(-rate * tau)
    want = (_big_phi(d1),                                   # delta
            -discount * _big_phi(d2),                       # dual delta
            strike * tau * discount * _big_phi(d2),         # rho
            spot * _phi(d1) * math.sqrt(tau),               # vega
            spot * _phi(d1) * vol / (2 * math.sqrt(tau))    # minus theta
            + rate * strike * discount * _big_phi(d2))
    np.testing.assert_allclose(np.array(greeks, dtype=float), want, rtol=1e-9)

    @ember.compile
    def gamma(s):
        return ember.grad(ember.grad(black_scholes_call), argnums=0)(s, strike, rate, vol, tau)

    np.testing.assert_allclose(gamma(spot), _phi(d1) / (spot * vol * math.sqrt(tau)),
                               rtol=1e-8)


def _minimize_with(value_and_grad, fn, x0, *args):
    return scipy.optimize.minimize(value_and_grad(fn), x0, args=args, jac=True,
                                   method="L-BFGS-B", options=dict(maxiter=40))


def _flat_lstm(flat, xs, target):
    wx, wh, b, w_out = np.split(flat, np.cumsum([24, 36, 12]))
    return lstm_sequence_loss((wx.reshape(2, 12), wh.reshape(3, 12), b, w_out.reshape(3, 2)),
                              xs, target)


def _probit_nll(w, x, y):
    z = x @ w
    return np.sum(np.logaddexp(0.0, -y * z)) + 0.05 * np.dot(w, w)


MINIMIZED = {
    "gp hyperparameters": (gp_neg_log_marginal, np.array([0.0, 0.0, -1.0]), _GP_X, _GP_Y),
    "an lstm's weights": (_flat_lstm, 0.3 * _normal(78), _normal(5, 2), _normal(2)),
    "a logistic regression": (_probit_nll, np.zeros(3), _normal(20, 3),
                              np.sign(_normal(20))),
}


@pytest.mark.parametrize("name", sorted(MINIMIZED))
def test_scipy_minimize_driven_by_value_and_grad(name):
    """`minimize(ember.value_and_grad(f), x0, jac=True)`: the same iterates as with autograd's
    `value_and_grad` (the gradients agree to rounding, so the line searches do)."""
    fn, x0, *args = MINIMIZED[name]
    got = _minimize_with(ember.value_and_grad, fn, x0, *args)
    want = _minimize_with(autograd.value_and_grad, _on_autograd(fn), x0, *args)
    assert got.nit == want.nit and got.success == want.success
    np.testing.assert_allclose(got.x, want.x, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got.fun, want.fun, rtol=1e-9)
    assert got.fun < fn(x0, *args)


def test_gmm_by_gradient_descent_in_a_compiled_loop_matches_plain_numpy():
    """An EM-free fit of a mixture: gradient steps on a dict of parameters inside one compiled
    function, the same values as the same steps with autograd's gradients."""
    def nll(p, x):
        log_w = p["logits"] - logsumexp(p["logits"], axis=0)
        comp = -0.5 * ((x[:, None] - p["means"]) / np.exp(p["log_sd"])) ** 2 - p["log_sd"]
        return -np.mean(logsumexp(log_w + comp, axis=1))

    def fit(p, x, grad_fn):
        for _ in range(15):
            g = grad_fn(nll)(p, x)
            p = {k: p[k] - 0.3 * g[k] for k in p}
        return p

    x = np.concatenate([RNG.normal(-2, 0.5, 30), RNG.normal(1.5, 0.8, 30)])
    p0 = {"logits": np.zeros(2), "means": np.array([-0.5, 0.5]), "log_sd": np.zeros(2)}
    got = ember.compile(fit)(p0, x, ember.grad)
    on_autograd = _on_autograd(nll)
    want = fit(p0, x, lambda f: autograd.grad(on_autograd))
    assert_trees_equal(got, want, rtol=1e-9, atol=1e-12)


def _split_by_cumsum(flat):
    a, b, c = np.split(flat, np.cumsum([2, 3]))
    return np.sum(a ** 2) + np.sum(b * 3) + np.sum(np.sin(c))


def _unpack_by_sizes(flat):
    shapes = [(2, 3), (3,), (3, 2)]
    sizes = [int(np.prod(s)) for s in shapes]
    parts = np.split(flat, np.cumsum(sizes)[:-1])
    w1, b1, w2 = (p.reshape(s) for p, s in zip(parts, shapes))
    h = np.tanh(np.ones((4, 2)) @ w1 + b1)
    return np.sum((h @ w2) ** 2)


def _array_split_at_an_array(flat):
    pieces = np.array_split(flat, np.array([1, 4, 4, 9]))
    return sum(np.sum(np.cos(p) * (k + 1)) for k, p in enumerate(pieces))


def _running_offsets(flat):
    offsets = np.cumsum([0, 3, 2, 4])
    return sum(np.mean(flat[lo:hi] ** 2) for lo, hi in zip(offsets[:-1], offsets[1:]))


FLAT_PARAMETERS = {
    "split at a cumsum of sizes": (_split_by_cumsum, 7),
    "unpacking a flat vector by shapes": (_unpack_by_sizes, 15),
    "array_split at an array of points": (_array_split_at_an_array, 9),
    "slices at running offsets": (_running_offsets, 9),
}


@pytest.mark.parametrize("name", sorted(FLAT_PARAMETERS))
def test_flat_parameter_vectors_split_at_constant_points(name):
    """A flat parameter vector (as `scipy.optimize` passes one) cut at points NumPy computes
    from Python numbers (`np.cumsum(sizes)`): the points are constants of the graph, the
    compiled function is one graph giving NumPy's value (to rounding: products sum in another
    order) and the gradient equals central differences."""
    from test_autodiff_rules import numeric_grad

    fn, size = FLAT_PARAMETERS[name]
    flat = RNG.standard_normal(size)
    ember.reset()
    np.testing.assert_allclose(ember.compile(fn)(flat), fn(flat), rtol=1e-13)
    assert ember.stats()["graph_breaks"] == 0
    want = numeric_grad(fn, (flat,), 0)
    assert_trees_equal(ember.grad(fn)(flat), want, rtol=1e-5, atol=1e-6)
    assert_trees_equal(ember.grad(fn, backend="eager")(flat), want, rtol=1e-5, atol=1e-6)
    assert_compiled_step_as_standalone(fn, (flat,), 0)


def test_a_scan_of_python_numbers_is_a_constant():
    """`np.cumsum`/`np.cumprod` of Python lists fold to constant arrays of NumPy's dtype."""
    from probe_harness import assert_behaves_as_numpy

    def scans(x):
        return (x[np.cumsum([0, 1, 2])], np.cumprod([1.5, 2.0, 3.0]) * x[:3],
                np.cumsum([[1, 2], [3, 4]], axis=1), np.cumsum((True, True, False)))

    assert_behaves_as_numpy(scans, np.arange(6.0))
