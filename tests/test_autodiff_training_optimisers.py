"""More training loops as NumPy users write them, each against the same loop with the backward
pass written by hand: a tanh MLP on the digits with RMSprop, decoupled weight decay and
gradient clipping by the global norm of a dict of gradients; a Poisson regression with
momentum and a Python-float intercept; a bag-of-embeddings text classifier with Adam, its
embedding gradient by `np.add.at` in the hand-written loop. Mini-batches are sliced from
arrays. The same losses step by step, the same accuracy, one graph per step without breaks
and no recompiles after the first epoch."""

from __future__ import annotations

import ember
import numpy as np
from test_autodiff_training_loops import _digits, _log_softmax, _recompiles


def _rows(x):
    return np.arange(x.shape[0])


# --- tanh MLP, RMSprop, weight decay, clipping by global norm -----------------------------

def tanh_mlp_loss(p, x, labels):
    h = np.tanh(x @ p["w1"] + p["b1"])
    return -np.mean(_log_softmax(h @ p["w2"] + p["b2"])[_rows(x), labels])


def _rmsprop(p, sq, g, lr):
    norm = np.sqrt(sum(np.sum(g[k] ** 2) for k in g))
    scale = np.minimum(1.0, 1.0 / (norm + 1e-6))
    g = {k: g[k] * scale for k in g}
    sq = {k: 0.9 * sq[k] + 0.1 * g[k] ** 2 for k in g}
    p = {k: p[k] - lr * g[k] / (np.sqrt(sq[k]) + 1e-8) - lr * 1e-4 * p[k] for k in p}
    return p, sq


@ember.compile
def rmsprop_step(p, sq, x, labels, lr):
    loss, g = ember.value_and_grad(tanh_mlp_loss)(p, x, labels)
    p, sq = _rmsprop(p, sq, g, lr)
    return loss, p, sq


def rmsprop_step_by_hand(p, sq, x, labels, lr):
    h = np.tanh(x @ p["w1"] + p["b1"])
    logp = _log_softmax(h @ p["w2"] + p["b2"])
    loss = -np.mean(logp[_rows(x), labels])
    d = np.exp(logp)
    d[_rows(x), labels] -= 1.0
    d /= x.shape[0]
    dh = (d @ p["w2"].T) * (1.0 - h ** 2)
    g = {"w1": x.T @ dh, "b1": dh.sum(axis=0), "w2": h.T @ d, "b2": d.sum(axis=0)}
    p, sq = _rmsprop(p, sq, g, lr)
    return loss, p, sq


def _train_rmsprop(step, epochs, x, y):
    rng = np.random.default_rng(11)
    p = {"w1": rng.standard_normal((64, 32)) * 0.1, "b1": np.zeros(32),
         "w2": rng.standard_normal((32, 10)) * 0.1, "b2": np.zeros(10)}
    sq = {k: np.zeros_like(a) for k, a in p.items()}
    losses = []
    for _ in range(epochs):
        for start in range(0, x.shape[0], 128):  # the last batch is shorter
            loss, p, sq = step(p, sq, x[start:start + 128], y[start:start + 128], 0.01)
            losses.append(float(loss))
    return p, losses


def _mlp_accuracy(p, x, y):
    h = np.tanh(x @ p["w1"] + p["b1"])
    return np.mean(np.argmax(h @ p["w2"] + p["b2"], axis=1) == y)


# --- Poisson regression, momentum ---------------------------------------------------------

def poisson_loss(w, b, x, counts):
    eta = x @ w + b
    return np.mean(np.exp(eta) - counts * eta)


@ember.compile
def poisson_step(w, b, vw, vb, x, counts, lr, mu):
    loss, (gw, gb) = ember.value_and_grad(poisson_loss, argnums=(0, 1))(w, b, x, counts)
    vw, vb = mu * vw - lr * gw, mu * vb - lr * gb
    return loss, w + vw, b + vb, vw, vb


def poisson_step_by_hand(w, b, vw, vb, x, counts, lr, mu):
    eta = x @ w + b
    rate = np.exp(eta)
    loss = np.mean(rate - counts * eta)
    d = (rate - counts) / x.shape[0]
    vw, vb = mu * vw - lr * (x.T @ d), mu * vb - lr * np.sum(d)
    return loss, w + vw, b + vb, vw, vb


def _poisson_data():
    rng = np.random.default_rng(12)
    x = rng.standard_normal((600, 8)) * 0.4
    w_true = rng.standard_normal(8) * 0.5
    return x, rng.poisson(np.exp(x @ w_true + 0.7)) * 1.0, w_true


def _train_poisson(step, epochs, x, counts):
    w, b, vw, vb = np.zeros(x.shape[1]), 0.0, np.zeros(x.shape[1]), 0.0
    losses = []
    for _ in range(epochs):
        for start in range(0, x.shape[0], 50):
            loss, w, b, vw, vb = step(w, b, vw, vb, x[start:start + 50],
                                      counts[start:start + 50], 0.05, 0.9)
            losses.append(float(loss))
    return (w, float(b)), losses


# --- bag of embeddings, Adam --------------------------------------------------------------

def bag_loss(p, tokens, labels):
    pooled = p["embed"][tokens].mean(axis=1)
    return -np.mean(_log_softmax(pooled @ p["out"] + p["bias"])[_rows(tokens), labels])


def _adam(p, m, v, g, t, lr=0.05, b1=0.9, b2=0.999, eps=1e-8):
    m = {k: b1 * m[k] + (1 - b1) * g[k] for k in p}
    v = {k: b2 * v[k] + (1 - b2) * g[k] ** 2 for k in p}
    p = {k: p[k] - lr * (m[k] / (1 - b1 ** t)) / (np.sqrt(v[k] / (1 - b2 ** t)) + eps)
         for k in p}
    return p, m, v


@ember.compile
def bag_step(p, m, v, t, tokens, labels):
    loss, g = ember.value_and_grad(bag_loss)(p, tokens, labels)
    p, m, v = _adam(p, m, v, g, t)
    return loss, p, m, v


def bag_step_by_hand(p, m, v, t, tokens, labels):
    pooled = p["embed"][tokens].mean(axis=1)
    logp = _log_softmax(pooled @ p["out"] + p["bias"])
    loss = -np.mean(logp[_rows(tokens), labels])
    d = np.exp(logp)
    d[_rows(tokens), labels] -= 1.0
    d /= tokens.shape[0]
    embed = np.zeros_like(p["embed"])
    np.add.at(embed, tokens, (d @ p["out"].T)[:, None, :] / tokens.shape[1])
    g = {"embed": embed, "out": pooled.T @ d, "bias": d.sum(axis=0)}
    p, m, v = _adam(p, m, v, g, t)
    return loss, p, m, v


def _token_data(n):
    """Sequences of 12 tokens out of 40; the label says which quarter of the vocabulary is
    most frequent in the sequence."""
    rng = np.random.default_rng(13)
    favourite = rng.integers(0, 4, n)
    tokens = np.where(rng.random((n, 12)) < 0.5, favourite[:, None] * 10
                      + rng.integers(0, 10, (n, 12)), rng.integers(0, 40, (n, 12)))
    return tokens, favourite


def _train_bag(step, epochs, tokens, labels):
    rng = np.random.default_rng(14)
    p = {"embed": rng.standard_normal((40, 8)) * 0.1, "out": rng.standard_normal((8, 4)) * 0.1,
         "bias": np.zeros(4)}
    m = {k: np.zeros_like(a) for k, a in p.items()}
    v = {k: np.zeros_like(a) for k, a in p.items()}
    losses, t = [], 0
    for _ in range(epochs):
        for start in range(0, tokens.shape[0], 64):
            t += 1
            loss, p, m, v = step(p, m, v, t, tokens[start:start + 64], labels[start:start + 64])
            losses.append(float(loss))
    return p, losses


def _bag_accuracy(p, tokens, labels):
    logits = p["embed"][tokens].mean(axis=1) @ p["out"] + p["bias"]
    return np.mean(np.argmax(logits, axis=1) == labels)


def _run(train, compiled, by_hand, *data):
    """Both loops, one epoch and then more; the compiled one must not recompile after its
    first epoch nor break its graph."""
    ember.reset()
    _, losses = train(compiled, 1, *data)
    first = _recompiles()
    params, more = train(compiled, 3, *data)
    assert _recompiles() == first, ember.stats()["recompile_reasons"]
    assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]
    _, want = train(by_hand, 1, *data)
    want_params, want_more = train(by_hand, 3, *data)
    np.testing.assert_allclose(losses + more, want + want_more, rtol=1e-8, atol=1e-12)
    return params, want_params


def test_tanh_mlp_with_rmsprop_decay_and_clipping_equals_the_hand_written_loop():
    x, y, x_test, y_test = _digits()
    params, want = _run(_train_rmsprop, rmsprop_step, rmsprop_step_by_hand, x, y)
    accuracy = _mlp_accuracy(params, x_test, y_test)
    assert accuracy >= 0.9, accuracy
    assert accuracy == _mlp_accuracy(want, x_test, y_test)


def test_poisson_regression_with_momentum_equals_the_hand_written_loop():
    x, counts, w_true = _poisson_data()
    (w, b), (want_w, want_b) = _run(_train_poisson, poisson_step, poisson_step_by_hand, x,
                                    counts)
    np.testing.assert_allclose(w, want_w, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(b, want_b, rtol=1e-8)
    assert np.max(np.abs(w - w_true)) < 0.25 and abs(b - 0.7) < 0.15, (w - w_true, b)


def test_bag_of_embeddings_with_adam_equals_the_hand_written_loop():
    tokens, labels = _token_data(512)
    params, want = _run(_train_bag, bag_step, bag_step_by_hand, tokens[:384], labels[:384])
    for k in params:
        np.testing.assert_allclose(params[k], want[k], rtol=1e-7, atol=1e-10)
    accuracy = _bag_accuracy(params, tokens[384:], labels[384:])
    assert accuracy >= 0.9, accuracy
    assert accuracy == _bag_accuracy(want, tokens[384:], labels[384:])


def test_one_rmsprop_step_gives_the_hand_written_parameters():
    """A single step on a batch of odd size, parameters and state compared leaf by leaf."""
    x, y, _, _ = _digits()
    rng = np.random.default_rng(15)
    p = {"w1": rng.standard_normal((64, 32)) * 0.1, "b1": rng.standard_normal(32) * 0.1,
         "w2": rng.standard_normal((32, 10)) * 0.1, "b2": np.zeros(10)}
    sq = {k: np.full_like(a, 0.01) for k, a in p.items()}
    got = rmsprop_step(p, sq, x[:37], y[:37], 0.02)
    want = rmsprop_step_by_hand(p, sq, x[:37], y[:37], 0.02)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    for k in p:
        np.testing.assert_allclose(got[1][k], want[1][k], rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(got[2][k], want[2][k], rtol=1e-10, atol=1e-13)
