"""Differentiable NumPy programs written as their users write them (models, losses, numerics
over pytrees): Gaussian processes, PCA, low-rank and ridge fits, flows, hand-written
softmaxes, normalisations, masked attention, robust losses, ODE integrators, physics
energies, discounting, pytrees of dicts, lists and namedtuples, `has_aux`, `argnums` tuples
and `vjp`. Each program is plain NumPy code; its gradient, by `ember.grad` and inside an
`ember.compile`d step, equals autograd's for the same code run on `autograd.numpy` (or central
differences in float64 where autograd has no rule): values, shapes and dtypes."""

from __future__ import annotations

import itertools
import logging
import math
import statistics
import types
from collections import namedtuple

import autograd
import autograd.numpy as anp
import ember
import numpy as np
import pytest
from autograd.misc import flatten
from test_autodiff_rules import numeric_grad

RNG = np.random.default_rng(1234)


def _normal(*shape):
    return RNG.standard_normal(shape)


# --- models and losses, written against `np` -------------------------------------------------

def gp_negative_log_likelihood(params, x, y):
    """A squared-exponential GP through a Cholesky factor (GPML algorithm 2.1)."""
    d2 = (x[:, None] - x[None, :]) ** 2
    k = np.exp(2 * params["log_scale"]) * np.exp(-0.5 * d2 / np.exp(2 * params["log_length"]))
    k = k + (np.exp(2 * params["log_noise"]) + 1e-6) * np.eye(len(x))
    chol = np.linalg.cholesky(k)
    alpha = np.linalg.solve(chol.T, np.linalg.solve(chol, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(chol))) + 0.5 * len(x) * np.log(2 * np.pi)


def pca_whitening_loss(x, target):
    xc = x - x.mean(axis=0)
    cov = xc.T @ xc / (x.shape[0] - 1)
    eigenvalues, eigenvectors = np.linalg.eigh(cov)
    whitened = xc @ eigenvectors / np.sqrt(eigenvalues + 1e-5)
    return np.sum((whitened[:, -2:] ** 2 - target) ** 2)


def explained_variance(x):
    xc = x - x.mean(axis=0)
    values = np.linalg.eigvalsh(xc.T @ xc)
    return values[-1] / np.sum(values)


def low_rank_reconstruction(w, y):
    u, s, vt = np.linalg.svd(w, full_matrices=False)
    k = 2
    approx = (u[:, :k] * s[:k]) @ vt[:k, :]
    return np.mean((approx - y) ** 2) + 0.01 * np.sum(s)


def nuclear_and_spectral_penalties(w):
    return np.linalg.norm(w, "nuc") + 0.5 * np.linalg.norm(w, 2) ** 2


def full_svd_top_direction(w, c, d):
    u, s, vh = np.linalg.svd(w)
    k = min(w.shape)
    return s[0] * (u[:, 0] @ c @ vh[0]) + np.sum(d * (vh[k:].T @ vh[k:]))


def ridge_regression(lam, x, y):
    n_features = x.shape[1]
    w = np.linalg.solve(x.T @ x + lam * np.eye(n_features), x.T @ y)
    return np.mean((x @ w - y) ** 2) + lam * np.sum(w ** 2)


def least_squares_fit(x, y):
    design = np.stack([np.ones_like(x), x, x ** 2], axis=1)
    coef, residuals, rank, sv = np.linalg.lstsq(design, y, rcond=None)
    return np.sum(coef ** 2) + residuals.sum()


def affine_flow_log_likelihood(params, x):
    z = x @ params["w"] + params["b"]
    log_det = np.linalg.slogdet(params["w"])[1]
    log_base = -0.5 * np.sum(z ** 2, axis=1) - 0.5 * z.shape[1] * np.log(2 * np.pi)
    return -np.mean(log_base + log_det)


def logsumexp(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    return np.squeeze(m, axis) + np.log(np.sum(np.exp(x - m), axis=axis))


def softmax_cross_entropy(w, x, onehot):
    logits = x @ w
    logits = logits - np.max(logits, axis=1, keepdims=True)
    probs = np.exp(logits) / np.sum(np.exp(logits), axis=1, keepdims=True)
    return -np.sum(onehot * np.log(probs)) / x.shape[0]


def log_softmax_nll(w, x, onehot):
    logits = x @ w
    log_probs = logits - logsumexp(logits)[:, None]
    return -np.mean(np.sum(log_probs * onehot, axis=-1))


def layer_norm(params, x):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    y = (x - mu) / np.sqrt(var + 1e-5) * params["gamma"] + params["beta"]
    return np.sum(np.tanh(y) ** 2)


def batch_norm(gamma, beta, x):
    mean = np.mean(x, axis=0)
    std = np.std(x, axis=0)
    return np.sum(((x - mean) / (std + 1e-5) * gamma + beta) ** 3)


def causal_attention(wq, wk, wv, x):
    q, k, v = x @ wq, x @ wk, x @ wv
    n, d = q.shape
    scores = q @ k.T / np.sqrt(d)
    mask = np.triu(np.ones((n, n)), k=1).astype(bool)
    scores = np.where(mask, -1e9, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.sum((weights @ v) ** 2)


def huber(w, x, y, delta=1.0):
    r = x @ w - y
    small = np.abs(r) <= delta
    return np.mean(np.where(small, 0.5 * r ** 2, delta * (np.abs(r) - 0.5 * delta)))


def hinge(w, x, y):
    margins = 1 - y * (x @ w)
    return np.mean(np.maximum(0, margins)) + 0.1 * np.dot(w, w)


def focal_loss(w, x, y, alpha=0.25, gamma=2.0):
    p = 1 / (1 + np.exp(-(x @ w)))
    p = np.clip(p, 1e-7, 1 - 1e-7)
    pt = np.where(y == 1, p, 1 - p)
    return -np.mean(alpha * (1 - pt) ** gamma * np.log(pt))


def logistic_regression(w, b, x, y):
    z = x @ w + b
    return np.mean(np.logaddexp(0, -y * z)) + 1e-2 * np.sum(w ** 2)


def polynomial_fit(coeffs, x, y):
    return np.sum((np.polyval(coeffs, x) - y) ** 2)


def rk4_oscillator(params, y0):
    """A damped oscillator integrated with classic Runge-Kutta, 20 steps."""
    def f(y):
        return np.array([y[1], -params["k"] * y[0] - params["c"] * y[1]])

    y, dt = y0, 0.1
    for _ in range(20):
        k1 = f(y)
        k2 = f(y + dt / 2 * k1)
        k3 = f(y + dt / 2 * k2)
        k4 = f(y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[0] ** 2 + y[1]


def euler_pendulum(length, theta0):
    theta, omega = theta0, 0.0
    for _ in range(30):
        omega = omega - 0.05 * 9.81 / length * np.sin(theta)
        theta = theta + 0.05 * omega
    return theta


def lennard_jones(positions):
    n = positions.shape[0]
    diff = positions[:, None, :] - positions[None, :, :]
    r2 = np.sum(diff ** 2, axis=-1) + np.eye(n)
    inv6 = 1.0 / r2 ** 3
    return np.sum(np.triu(4 * (inv6 ** 2 - inv6), k=1))


def spring_chain(positions, rest):
    lengths = np.linalg.norm(np.diff(positions, axis=0), axis=1)
    return 0.5 * np.sum((lengths - rest) ** 2)


def gravity_energy(positions, masses):
    diff = positions[:, None, :] - positions[None, :, :]
    dist = np.linalg.norm(diff + np.eye(len(masses))[:, :, None], axis=-1)
    pair = np.outer(masses, masses) / dist
    return -np.sum(np.tril(pair, -1))


def discounted_return(rewards, gamma):
    discounts = np.cumprod(np.full(rewards.shape, gamma)) / gamma
    return np.sum(rewards * discounts)


def survival_likelihood(hazards):
    survival = np.cumprod(1 - hazards)
    return np.sum(np.log(survival[1:])) + np.sum(np.cumsum(hazards) ** 2)


def clipped_objective(ratio, advantage):
    clipped = np.clip(ratio, 0.8, 1.2)
    return -np.mean(np.minimum(ratio * advantage, clipped * advantage))


def moments(x):
    return (np.var(x, ddof=1) + np.sum(np.std(x, axis=0, ddof=1))
            + np.sum(x.mean(axis=(0, 2)) ** 2))


def einsum_contractions(a, b, v):
    return (np.sum(np.einsum("ij,jk,k->i", a, b, v) ** 2)
            + np.einsum("ii->", a @ b) + np.einsum("bij,jk->", a[None] * v[:, None, None], b))


def kronecker_outer_trace(a, b):
    k = np.kron(a, b)
    return np.trace(k @ k.T) + np.sum(np.outer(a.ravel(), b[0]) ** 2)


def triangular_parts(a, x):
    lower = np.tril(a)
    upper = np.triu(a, 1)
    return np.sum((lower @ x) ** 2) + np.sum(np.diag(upper @ upper.T)) + np.trace(a)


def reshape_transpose(x, w):
    h = x.reshape(2, -1).T @ w
    return np.sum(np.swapaxes(h.reshape(3, 2, 2), 0, 2) ** 2) + np.sum(np.moveaxis(h, 0, 1)[0])


def mahalanobis(mu, cov, x):
    d = x - mu
    return np.sum(d @ np.linalg.inv(cov) * d) + np.log(np.linalg.det(cov))


def kalman_update(mean, cov, z, h, r):
    s = h @ cov @ h.T + r
    gain = cov @ h.T @ np.linalg.inv(s)
    new_mean = mean + gain @ (z - h @ mean)
    new_cov = (np.eye(len(mean)) - gain @ h) @ cov
    return np.sum(new_mean ** 2) + np.trace(new_cov)


def rayleigh_quotient(a, v):
    sym = (a + a.T) / 2
    return (v @ sym @ v) / (v @ v) - np.linalg.eigvalsh(sym)[-1]


def cosine_similarity(a, b):
    return a @ b / (np.linalg.norm(a) * np.linalg.norm(b))


def power_iteration(a):
    v = np.ones(a.shape[0]) / np.sqrt(a.shape[0])
    for _ in range(8):
        v = a @ v
        v = v / np.linalg.norm(v)
    return v @ a @ v


def angular_momentum(positions, velocities, masses):
    momentum = np.sum(masses[:, None] * np.cross(positions, velocities), axis=0)
    return momentum @ momentum


def batched_attention(q, k, v):
    scores = np.einsum("...qd,...kd->...qk", q, k) / np.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.sum(np.einsum("...qk,...kd->...qd", weights, v) ** 2)


def masked_mse(w, x, y, mask):
    return np.mean((x @ w - y) ** 2, where=mask) + np.sum(np.abs(w), where=w > 0)


def covariance_eigenvalues(x):
    return np.sum(np.linalg.eigvalsh(np.cov(x.T)) ** 2)


def correlation_penalty(x):
    return np.sum(np.corrcoef(x) ** 2)


def stacked_features(a, b):
    x = np.concatenate([a, b * 2], axis=0)
    y = np.stack([a, b], axis=-1)
    return np.sum(x ** 3) + np.prod(np.sum(y, axis=(0, 1)))


Params = namedtuple("Params", ["w1", "b1", "w2", "b2"])


def mlp_namedtuple(p, x, y):
    h = np.tanh(x @ p.w1 + p.b1)
    out = h @ p.w2 + p.b2
    return np.mean((out - y) ** 2)


def mlp_layers(layers, x):
    h = x
    for w, b in layers[:-1]:
        h = np.maximum(h @ w + b, 0.0)
    w, b = layers[-1]
    return np.sum(np.logaddexp(0.0, h @ w + b))


def with_aux(w, x):
    pred = x @ w
    loss = np.mean(pred ** 2)
    return loss, {"pred_mean": np.mean(pred), "norm": np.linalg.norm(w)}


# --- the cases -------------------------------------------------------------------------------

_X8 = np.sort(RNG.uniform(0, 5, 8))
_ONEHOT = np.eye(3)[RNG.integers(0, 3, 6)]
_SPD3 = (lambda m: m @ m.T + 3 * np.eye(3))(_normal(3, 3))

# name: (function, arguments, argnums, reference): "autograd" (the same code on
# autograd.numpy) or "differences" (central differences, where autograd has no rule).
CASES = {
    "gp likelihood": (gp_negative_log_likelihood,
                      ({"log_scale": 0.1, "log_length": -0.3, "log_noise": -1.0}, _X8,
                       np.sin(_X8)), 0, "autograd"),
    "pca whitening": (pca_whitening_loss, (_normal(10, 4), 1.0), 0, "autograd"),
    "explained variance": (explained_variance, (_normal(10, 4),), 0, "differences"),
    "correlation penalty": (correlation_penalty, (_normal(3, 6),), 0, "differences"),
    "low-rank reconstruction": (low_rank_reconstruction, (_normal(5, 4), _normal(5, 4)), 0,
                                "autograd"),
    "nuclear and spectral norms": (nuclear_and_spectral_penalties, (_normal(4, 3),), 0,
                                   "differences"),
    "full svd, top direction": (full_svd_top_direction, (_normal(3, 5), _normal(3, 5),
                                                         _normal(5, 5)), 0, "differences"),
    "ridge regression": (ridge_regression, (0.3, _normal(8, 3), _normal(8)), (0, 1),
                         "autograd"),
    "least squares fit": (least_squares_fit, (_X8, np.cos(_X8)), (0, 1), "differences"),
    "affine flow": (affine_flow_log_likelihood,
                    ({"w": _normal(3, 3) + 3 * np.eye(3), "b": _normal(3)}, _normal(6, 3)), 0,
                    "autograd"),
    "logsumexp": (lambda x: np.sum(logsumexp(x, axis=0)), (_normal(4, 5),), 0, "autograd"),
    "softmax cross entropy": (softmax_cross_entropy, (_normal(4, 3), _normal(6, 4), _ONEHOT),
                              0, "autograd"),
    "log softmax": (log_softmax_nll, (_normal(4, 3), _normal(6, 4), _ONEHOT), 0, "autograd"),
    "layer norm": (layer_norm, ({"gamma": _normal(5), "beta": _normal(5)}, _normal(3, 5)),
                   (0, 1), "autograd"),
    "batch norm": (batch_norm, (_normal(4), _normal(4), _normal(6, 4)), (0, 1, 2), "autograd"),
    "causal attention": (causal_attention, (_normal(4, 3), _normal(4, 3), _normal(4, 3),
                                            _normal(5, 4)), (0, 1, 2, 3), "autograd"),
    "huber": (huber, (_normal(3), _normal(10, 3), 2 * _normal(10)), 0, "autograd"),
    "hinge": (hinge, (_normal(3), _normal(10, 3), np.sign(_normal(10))), 0, "autograd"),
    "focal": (focal_loss, (_normal(3), _normal(10, 3), (_normal(10) > 0).astype(float)), 0,
              "autograd"),
    "logistic regression": (logistic_regression, (_normal(3), 0.5, _normal(10, 3),
                                                  np.sign(_normal(10))), (0, 1), "autograd"),
    "polynomial fit": (polynomial_fit, (_normal(4), _X8, np.sin(_X8)), 0, "differences"),
    "rk4 oscillator": (rk4_oscillator, ({"k": 2.0, "c": 0.3}, np.array([1.0, 0.0])), (0, 1),
                       "autograd"),
    "euler pendulum": (euler_pendulum, (1.5, 0.4), (0, 1), "autograd"),
    "lennard-jones": (lennard_jones, (np.array([[0.0, 0.0], [1.1, 0.1], [0.3, 1.2],
                                                [1.2, 1.3]]),), 0, "autograd"),
    "spring chain": (spring_chain, (_normal(5, 2), 0.7), (0, 1), "autograd"),
    "gravity": (gravity_energy, (_normal(4, 3), np.array([1.0, 2.0, 0.5, 1.5])), (0, 1),
                "autograd"),
    "discounted return": (discounted_return, (_normal(6), 0.9), (0, 1), "differences"),
    "survival": (survival_likelihood, (RNG.uniform(0.05, 0.3, 6),), 0, "differences"),
    "clipped objective": (clipped_objective, (RNG.uniform(0.6, 1.4, 8), _normal(8)), 0,
                          "autograd"),
    "moments": (moments, (_normal(3, 4, 2),), 0, "autograd"),
    "einsum": (einsum_contractions, (_normal(3, 3), _normal(3, 3), _normal(3)), (0, 1, 2),
               "differences"),
    "kron, outer, trace": (kronecker_outer_trace, (_normal(2, 2), _normal(2, 3)), (0, 1),
                           "autograd"),
    "triangular parts": (triangular_parts, (_normal(4, 4), _normal(4, 2)), (0, 1), "autograd"),
    "reshape and transpose": (reshape_transpose, (_normal(3, 4), _normal(2, 2)), (0, 1),
                              "autograd"),
    "mahalanobis": (mahalanobis, (_normal(3), _SPD3, _normal(5, 3)), (0, 1), "autograd"),
    "kalman update": (kalman_update, (_normal(3), _SPD3, _normal(2), _normal(2, 3),
                                      np.eye(2) * 0.5), (0, 1, 3), "autograd"),
    "rayleigh quotient": (rayleigh_quotient, (_normal(4, 4), _normal(4)), (0, 1),
                          "differences"),
    "cosine similarity": (cosine_similarity, (_normal(5), _normal(5)), (0, 1), "autograd"),
    "power iteration": (power_iteration, (_SPD3,), 0, "autograd"),
    "angular momentum": (angular_momentum, (_normal(4, 3), _normal(4, 3), RNG.uniform(1, 2, 4)),
                         (0, 1, 2), "autograd"),
    "batched attention": (batched_attention, (_normal(2, 3, 4), _normal(2, 5, 4),
                                              _normal(2, 5, 2)), (0, 1, 2), "autograd"),
    "masked mse": (masked_mse, (_normal(3), _normal(8, 3), _normal(8), _normal(8) > 0), 0,
                   "differences"),
    "covariance eigenvalues": (covariance_eigenvalues, (_normal(8, 3),), 0, "differences"),
    "concatenate and stack": (stacked_features, (_normal(2, 3), _normal(2, 3)), (0, 1),
                              "autograd"),
    "mlp over a namedtuple": (mlp_namedtuple, (Params(_normal(3, 4), _normal(4), _normal(4, 2),
                                                      _normal(2)), _normal(5, 3),
                                               _normal(5, 2)), 0, "autograd"),
    "mlp over a list of layers": (mlp_layers, ([(_normal(3, 4), _normal(4)),
                                                (_normal(4, 4), _normal(4)),
                                                (_normal(4, 1), _normal(1))], _normal(5, 3)),
                                  0, "autograd"),
}


def _on_autograd(fn):
    """The same code with `np` bound to `autograd.numpy` (the helpers it calls alike)."""
    names = {**fn.__globals__, "np": anp}
    for name, value in fn.__globals__.items():
        if isinstance(value, types.FunctionType) and value.__module__ == fn.__module__:
            names[name] = types.FunctionType(value.__code__, names, name, value.__defaults__)
    names["logsumexp"] = types.FunctionType(logsumexp.__code__, names, "logsumexp",
                                            logsumexp.__defaults__)
    return types.FunctionType(fn.__code__, names, fn.__name__, fn.__defaults__,
                              fn.__closure__)


def _differences(fn, args, argnums):
    """Central differences of `fn` over the leaves of each differentiated argument."""
    grads = []
    for i in argnums:
        flat, unflatten = flatten(args[i])

        def on_flat(v, i=i, unflatten=unflatten):
            shifted = list(args)
            shifted[i] = unflatten(v)
            return fn(*shifted)

        grads.append(unflatten(numeric_grad(on_flat, (flat,), 0)))
    return tuple(grads)


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(value, "_fields")


def _reference(name):
    return reference(CASES[name])


def reference(case):
    """The gradient a case `(function, arguments, argnums, how)` must have."""
    fn, args, argnums, how = case
    nums = (argnums,) if isinstance(argnums, int) else argnums
    if how == "autograd":
        # autograd knows no namedtuples: they travel as plain tuples and are rebuilt.
        on_autograd = _on_autograd(fn)

        def rebuilt(*plain):
            return on_autograd(*(type(a)(*p) if _is_namedtuple(a) else p
                                 for a, p in zip(args, plain, strict=True)))

        want = autograd.grad(rebuilt, argnum=nums)(
            *(tuple(a) if _is_namedtuple(a) else a for a in args))
        want = tuple(type(args[i])(*w) if _is_namedtuple(args[i]) else w
                     for i, w in zip(nums, want, strict=True))
    else:
        want = _differences(fn, args, nums)
    return want[0] if isinstance(argnums, int) else want


def assert_trees_equal(got, want, *, rtol, atol, exact_types=True):
    """Same structure (dict keys, list/tuple/namedtuple types), leaves equal with the same
    shapes and dtypes."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys()
        for key in want:
            assert_trees_equal(got[key], want[key], rtol=rtol, atol=atol)
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want), (type(got), type(want))
        for g, w in zip(got, want, strict=True):
            assert_trees_equal(g, w, rtol=rtol, atol=atol)
    else:
        g, w = np.asarray(got), np.asarray(want)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_equal_the_references(name):
    fn, args, argnums, how = CASES[name]
    value, got = ember.value_and_grad(fn, argnums=argnums)(*args)
    np.testing.assert_allclose(value, fn(*args), rtol=1e-10)
    tolerance = dict(rtol=1e-7, atol=1e-9) if how == "autograd" else dict(rtol=1e-5, atol=1e-6)
    assert_trees_equal(got, _reference(name), **tolerance)


def assert_compiled_step_as_standalone(fn, args, argnums):
    """`value_and_grad(fn)` inside an `ember.compile`d step gives what it gives on its own."""

    @ember.compile
    def step(*a):
        return ember.value_and_grad(fn, argnums=argnums)(*a)

    value, got = step(*args)
    want_value, want = ember.value_and_grad(fn, argnums=argnums)(*args)
    np.testing.assert_allclose(value, want_value, rtol=1e-12)
    assert_trees_equal(got, want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_inside_a_compiled_step(name):
    fn, args, argnums, _ = CASES[name]
    assert_compiled_step_as_standalone(fn, args, argnums)


def test_has_aux_and_argnums():
    w, x = _normal(3), _normal(6, 3)
    (loss, aux), g = ember.value_and_grad(with_aux, has_aux=True)(w, x)
    want = autograd.grad(lambda w: _on_autograd(with_aux)(w, x)[0])(w)
    np.testing.assert_allclose(loss, with_aux(w, x)[0], rtol=1e-12)
    np.testing.assert_allclose(aux["norm"], np.linalg.norm(w), rtol=1e-12)
    assert_trees_equal(g, want, rtol=1e-10, atol=1e-12)
    gw, gx = ember.grad(lambda w, x: with_aux(w, x)[0], argnums=(0, 1))(w, x)
    assert gx.shape == x.shape and gw.shape == w.shape


def test_vjp_of_a_vector_function():
    def features(w, x):
        return np.tanh(x @ w) * np.linalg.norm(w)

    w, x, ct = _normal(3), _normal(5, 3), _normal(5)
    out, pullback = ember.vjp(features, w, x)
    np.testing.assert_allclose(out, features(w, x), rtol=1e-12)
    gw, gx = pullback(ct)
    want = autograd.grad(lambda w, x: anp.sum(_on_autograd(features)(w, x) * ct), (0, 1))(w, x)
    assert_trees_equal((gw, gx), want, rtol=1e-10, atol=1e-12)


def _single(tree):
    """Every float64 array of a pytree as float32."""
    if isinstance(tree, dict):
        return {k: _single(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        items = [_single(v) for v in tree]
        return type(tree)(*items) if _is_namedtuple(tree) else type(tree)(items)
    return tree.astype(np.float32) if isinstance(tree, np.ndarray) else tree


@pytest.mark.parametrize("name", ["layer norm", "softmax cross entropy", "causal attention",
                                  "mlp over a namedtuple"])
def test_float32_programs_get_float32_gradients(name):
    fn, args, argnums, _ = CASES[name]
    got = ember.grad(fn, argnums=argnums)(*_single(args))
    want = ember.grad(fn, argnums=argnums)(*args)
    assert_trees_equal(got, _single(want), rtol=2e-3, atol=2e-4)


OPAQUE_CALLS = {
    "math.fsum": lambda x: math.fsum(x ** 2) + np.sum(x),
    # functools.reduce is captured (the function inlined on each item): test_autodiff_python_calls
    "itertools.accumulate": lambda x: list(itertools.accumulate(x ** 2))[-1],
    "statistics.fmean": lambda x: statistics.fmean(x ** 2) + np.sum(x),
    "sorted": lambda x: np.sum(np.array(sorted(x)) * np.arange(4.0)),
    "np.logaddexp2.reduce": lambda x: np.logaddexp2.reduce(x),
    "np.logaddexp2.accumulate": lambda x: np.sum(np.logaddexp2.accumulate(x)),
    "x.tolist()": lambda x: np.sum(np.array(x.tolist()) ** 2),
}


@pytest.mark.parametrize("name", sorted(OPAQUE_CALLS))
@pytest.mark.parametrize("compiled", [False, True])
def test_calls_ember_cannot_capture_are_refused_not_constant(name, compiled):
    """A result computed in Python from the differentiated arrays would carry no gradient:
    the call is refused with its name, never a gradient that silently leaves it out."""
    fn = OPAQUE_CALLS[name]

    def gradient(x):
        return ember.grad(fn)(x)

    with pytest.raises(ember.GraphBreakError, match="cannot run this in Python"):
        (ember.compile(gradient) if compiled else gradient)(np.array([0.5, -1.0, 2.0, 0.3]))


def test_printing_logging_and_reading_a_float_stay_allowed():
    """A call whose result is dropped (print, logging) cannot carry the arrays' values on;
    `float(x)` is a constant, as documented."""
    log = logging.getLogger("ember.tests.stranger")

    def loss(x):
        print("sum", x.sum())
        log.info("x = %s", x)
        scale = float(np.sum(x))
        return np.sum(x ** 2) * scale

    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(ember.grad(loss)(x), 2 * x * x.sum(), rtol=1e-12)


NOT_YET = {
    "np.linalg.qr": (lambda a: np.sum(np.linalg.qr(a)[1] ** 2), "no qr op"),
    "np.linalg.eigvals": (lambda a: np.sum(np.linalg.eigvals(a @ a.T)), "no general eig op"),
    "np.linalg.cond": (lambda a: np.linalg.cond(a),
                       "branches on an array's value (`if nan_mask.any()`) in NumPy's code"),
}


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.xfail(strict=True, raises=ember.GraphBreakError,
                                               reason=reason))
    for name, (_, reason) in sorted(NOT_YET.items())])
def test_programs_not_differentiated_yet(name):
    """Refused with a GraphBreakError naming the call (never a wrong gradient) until ember
    captures them."""
    fn, _ = NOT_YET[name]
    x = _normal(3, 3)
    np.testing.assert_allclose(ember.grad(fn)(x), numeric_grad(fn, (x,), 0), rtol=1e-5,
                               atol=1e-6)
