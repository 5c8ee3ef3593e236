"""Training loops written the way NumPy users write them: a compiled step calling
`ember.value_and_grad`, mini-batches sliced from arrays in a Python loop, updates over dicts
of parameters (SGD, momentum, Adam with its step count), against the same loop with the
backward pass written by hand in NumPy: the same losses step by step, the same accuracy, one
graph per step without breaks, and no recompiles once the first epoch has seen each batch
shape."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from sklearn.datasets import load_digits


def _digits():
    data = load_digits()
    x = (data.data / 16.0)
    y = data.target
    order = np.random.default_rng(0).permutation(len(y))
    x, y = x[order], y[order]
    return x[:1400], y[:1400], x[1400:], y[1400:]


def _log_softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


# --- logistic regression, a Python float bias, SGD ----------------------------------------

def logistic_loss(params, x, y):
    z = x @ params["w"] + params["b"]
    return np.mean(np.logaddexp(0.0, z) - y * z) + 1e-3 * np.sum(params["w"] ** 2)


@ember.compile
def logistic_step(params, x, y, lr):
    loss, g = ember.value_and_grad(logistic_loss)(params, x, y)
    return loss, {k: params[k] - lr * g[k] for k in params}


def logistic_step_by_hand(params, x, y, lr):
    z = x @ params["w"] + params["b"]
    loss = np.mean(np.logaddexp(0.0, z) - y * z) + 1e-3 * np.sum(params["w"] ** 2)
    dz = (1.0 / (1.0 + np.exp(-z)) - y) / x.shape[0]
    grads = {"w": x.T @ dz + 2e-3 * params["w"], "b": np.sum(dz)}
    return loss, {k: params[k] - lr * grads[k] for k in params}


# --- a two-layer MLP on the digits, Adam over a dict --------------------------------------

def mlp_loss(params, x, labels):
    h = np.maximum(x @ params["w1"] + params["b1"], 0.0)
    logits = h @ params["w2"] + params["b2"]
    return -np.mean(_log_softmax(logits)[np.arange(x.shape[0]), labels])


@ember.compile
def adam_step(params, m, v, t, x, labels, lr=0.01, b1=0.9, b2=0.999, eps=1e-8):
    loss, g = ember.value_and_grad(mlp_loss)(params, x, labels)
    m = {k: b1 * m[k] + (1 - b1) * g[k] for k in params}
    v = {k: b2 * v[k] + (1 - b2) * g[k] ** 2 for k in params}
    new = {}
    for k in params:
        m_hat = m[k] / (1 - b1 ** t)
        v_hat = v[k] / (1 - b2 ** t)
        new[k] = params[k] - lr * m_hat / (np.sqrt(v_hat) + eps)
    return loss, new, m, v


def adam_step_by_hand(params, m, v, t, x, labels, lr=0.01, b1=0.9, b2=0.999, eps=1e-8):
    n = x.shape[0]
    pre = x @ params["w1"] + params["b1"]
    h = np.maximum(pre, 0.0)
    logits = h @ params["w2"] + params["b2"]
    log_probs = _log_softmax(logits)
    loss = -np.mean(log_probs[np.arange(n), labels])
    d_logits = np.exp(log_probs)
    d_logits[np.arange(n), labels] -= 1.0
    d_logits /= n
    d_h = d_logits @ params["w2"].T * (pre > 0)
    g = {"w2": h.T @ d_logits, "b2": d_logits.sum(axis=0), "w1": x.T @ d_h,
         "b1": d_h.sum(axis=0)}
    m = {k: b1 * m[k] + (1 - b1) * g[k] for k in params}
    v = {k: b2 * v[k] + (1 - b2) * g[k] ** 2 for k in params}
    new = {k: params[k] - lr * (m[k] / (1 - b1 ** t)) / (np.sqrt(v[k] / (1 - b2 ** t)) + eps)
           for k in params}
    return loss, new, m, v


# --- an autoencoder with momentum ---------------------------------------------------------

def autoencoder_loss(params, x):
    code = np.tanh(x @ params["enc"] + params["enc_b"])
    recon = code @ params["dec"] + params["dec_b"]
    return np.mean(np.sum((recon - x) ** 2, axis=1))


@ember.compile
def momentum_step(params, velocity, x, lr, mu):
    loss, g = ember.value_and_grad(autoencoder_loss)(params, x)
    velocity = {k: mu * velocity[k] - lr * g[k] for k in params}
    return loss, {k: params[k] + velocity[k] for k in params}, velocity


def momentum_step_by_hand(params, velocity, x, lr, mu):
    n = x.shape[0]
    code = np.tanh(x @ params["enc"] + params["enc_b"])
    recon = code @ params["dec"] + params["dec_b"]
    loss = np.mean(np.sum((recon - x) ** 2, axis=1))
    d_recon = 2.0 * (recon - x) / n
    d_code = d_recon @ params["dec"].T * (1 - code ** 2)
    g = {"dec": code.T @ d_recon, "dec_b": d_recon.sum(axis=0), "enc": x.T @ d_code,
         "enc_b": d_code.sum(axis=0)}
    velocity = {k: mu * velocity[k] - lr * g[k] for k in params}
    return loss, {k: params[k] + velocity[k] for k in params}, velocity


# --- the loops ----------------------------------------------------------------------------

def _batches(n, size, rng):
    order = rng.permutation(n)
    for start in range(0, n, size):
        yield order[start:start + size]


def _train_logistic(step, epochs, x, y):
    params = {"w": np.zeros(x.shape[1]), "b": 0.0}
    losses = []
    for _ in range(epochs):
        for start in range(0, x.shape[0], 96):  # the last batch is shorter
            loss, params = step(params, x[start:start + 96], y[start:start + 96], 0.5)
            losses.append(float(loss))
    return params, losses


def _train_mlp(step, epochs, x, y, dtype):
    rng = np.random.default_rng(5)
    params = {"w1": (rng.standard_normal((64, 32)) * 0.1).astype(dtype),
              "b1": np.zeros(32, dtype), "w2": (rng.standard_normal((32, 10)) * 0.1).astype(dtype),
              "b2": np.zeros(10, dtype)}
    m = {k: np.zeros_like(p) for k, p in params.items()}
    v = {k: np.zeros_like(p) for k, p in params.items()}
    losses, t = [], 0
    batches = np.random.default_rng(6)
    for _ in range(epochs):
        for idx in _batches(x.shape[0], 100, batches):
            t += 1
            loss, params, m, v = step(params, m, v, t, x[idx].astype(dtype), y[idx])
            losses.append(float(loss))
    return params, losses


def _accuracy(params, x, y):
    h = np.maximum(x @ params["w1"] + params["b1"], 0.0)
    return np.mean(np.argmax(h @ params["w2"] + params["b2"], axis=1) == y)


def _recompiles():
    stats = ember.stats()
    return stats["recompiles"], stats["cache_misses"]


def test_logistic_regression_by_minibatches_equals_the_hand_written_loop():
    x, labels, x_test, labels_test = _digits()
    y, y_test = (labels < 5) * 1.0, (labels_test < 5) * 1.0
    ember.reset()
    params, losses = _train_logistic(logistic_step, 1, x, y)
    after_first = _recompiles()
    params, more = _train_logistic(logistic_step, 3, x, y)
    losses += more
    assert _recompiles() == after_first, ember.stats()["recompile_reasons"]
    assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]
    want_params, want = _train_logistic(logistic_step_by_hand, 1, x, y)
    _, more = _train_logistic(logistic_step_by_hand, 3, x, y)
    want += more
    np.testing.assert_allclose(losses, want, rtol=1e-9, atol=1e-12)
    accuracy = np.mean(((x_test @ params["w"] + params["b"]) > 0) == (y_test > 0))
    assert accuracy > 0.85, accuracy


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_digits_mlp_with_adam_equals_the_hand_written_loop(dtype):
    x, y, x_test, y_test = _digits()
    ember.reset()
    params, losses = _train_mlp(adam_step, 1, x, y, dtype)
    first = _recompiles()
    params, more = _train_mlp(adam_step, 4, x, y, dtype)
    losses += more
    assert _recompiles() == first, ember.stats()["recompile_reasons"]
    assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]
    assert all(p.dtype == dtype for p in params.values())
    _, want = _train_mlp(adam_step_by_hand, 1, x, y, dtype)
    want_params, more = _train_mlp(adam_step_by_hand, 4, x, y, dtype)
    want += more
    tolerance = dict(rtol=1e-8) if dtype == np.float64 else dict(rtol=2e-3, atol=1e-4)
    np.testing.assert_allclose(losses, want, **tolerance)
    accuracy = _accuracy(params, x_test.astype(dtype), y_test)
    assert accuracy >= 0.9, accuracy
    assert abs(accuracy - _accuracy(want_params, x_test.astype(dtype), y_test)) <= 0.01


def test_autoencoder_with_momentum_equals_the_hand_written_loop():
    x, _, _, _ = _digits()
    rng = np.random.default_rng(8)

    def train(step):
        params = {"enc": rng_init.standard_normal((64, 12)) * 0.1, "enc_b": np.zeros(12),
                  "dec": rng_init.standard_normal((12, 64)) * 0.1, "dec_b": np.zeros(64)}
        velocity = {k: np.zeros_like(p) for k, p in params.items()}
        losses = []
        for epoch in range(3):
            for batch in x.reshape(-1, 50, 64):
                loss, params, velocity = step(params, velocity, batch, 0.05, 0.9)
                losses.append(float(loss))
        return losses

    rng_init = np.random.default_rng(9)
    ember.reset()
    losses = train(momentum_step)
    assert ember.stats()["recompiles"] == 0, ember.stats()["recompile_reasons"]
    assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]
    rng_init = np.random.default_rng(9)
    want = train(momentum_step_by_hand)
    np.testing.assert_allclose(losses, want, rtol=1e-9)
    assert losses[-1] < 0.5 * losses[0]
    del rng


@pytest.mark.parametrize("base, t", [(0.9, 1), (0.9, 7), (0.5, -3), (-0.5, 3), (-2.0, -2),
                                     (0.0, 0), (0.0, -1), (10.0, 400), (1.5, True)])
def test_a_float_argument_to_an_int_power_is_followed_as_python_computes_it(base, t):
    """`b1 ** t` with both run-time arguments (Adam's hyperparameter as an argument): a
    float, with Python's ZeroDivisionError and OverflowError where Python raises them."""
    @ember.compile
    def scaled(x, b, t):
        return x / (1 - b ** t + 2.0)

    x = np.linspace(1.0, 2.0, 3)
    scaled(x, 0.9, 2)
    try:
        want = x / (1 - base ** t + 2.0)
    except (ZeroDivisionError, OverflowError) as exc:
        with pytest.raises(type(exc)):
            scaled(x, base, t)
    else:
        np.testing.assert_allclose(scaled(x, base, t), want, rtol=1e-15)
