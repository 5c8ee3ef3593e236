"""A character-level RNN language model as NumPy users write one: an embedding table read by
integer indexing, a tanh cell unrolled over a Python loop of time steps, a softmax over the
next character at every step, gradients clipped by their global norm, SGD over a dict. The
step compiled by ember (`ember.value_and_grad` inside `ember.compile`) against the same loop
with backpropagation through time written by hand (`np.add.at` for the embedding): the same
losses step by step, the same next-character accuracy, one graph per step."""

from __future__ import annotations

import ember
import numpy as np
from test_autodiff_training_loops import _log_softmax

VOCAB, HIDDEN, LENGTH = 12, 16, 8


def sequences(n, seed):
    """Counting modulo the vocabulary by a step of 1, 2 or 3 from a random start: the step
    is known after two characters, so a model that carries it in its state predicts the rest."""
    rng = np.random.default_rng(seed)
    start = rng.integers(0, VOCAB, n)
    step = rng.integers(1, 4, n)
    return (start[:, None] + step[:, None] * np.arange(LENGTH)[None, :]) % VOCAB


def rnn_init():
    rng = np.random.default_rng(3)
    return {"emb": rng.standard_normal((VOCAB, HIDDEN)) * 0.3,
            "wh": rng.standard_normal((HIDDEN, HIDDEN)) * 0.2, "b": np.zeros(HIDDEN),
            "wo": rng.standard_normal((HIDDEN, VOCAB)) * 0.2, "bo": np.zeros(VOCAB)}


def rnn_loss(p, x):
    n, steps = x.shape
    h = np.zeros((n, HIDDEN))
    loss = 0.0
    for t in range(steps - 1):
        h = np.tanh(p["emb"][x[:, t]] + h @ p["wh"] + p["b"])
        logp = _log_softmax(h @ p["wo"] + p["bo"])
        loss = loss - np.mean(logp[np.arange(n), x[:, t + 1]])
    return loss / (steps - 1)


def _clipped_update(p, g, lr, limit=5.0):
    norm = np.sqrt(sum(np.sum(g[k] ** 2) for k in p))
    scale = np.minimum(1.0, limit / (norm + 1e-6))
    return {k: p[k] - lr * scale * g[k] for k in p}


@ember.compile
def rnn_step(p, x, lr):
    loss, g = ember.value_and_grad(rnn_loss)(p, x)
    return loss, _clipped_update(p, g, lr)


def rnn_step_by_hand(p, x, lr):
    n, steps = x.shape
    rows = np.arange(n)
    hs = [np.zeros((n, HIDDEN))]
    logps = []
    loss = 0.0
    for t in range(steps - 1):
        hs.append(np.tanh(p["emb"][x[:, t]] + hs[-1] @ p["wh"] + p["b"]))
        logps.append(_log_softmax(hs[-1] @ p["wo"] + p["bo"]))
        loss = loss - np.mean(logps[-1][rows, x[:, t + 1]])
    loss = loss / (steps - 1)
    g = {k: np.zeros_like(v) for k, v in p.items()}
    dh_next = np.zeros((n, HIDDEN))
    for t in reversed(range(steps - 1)):
        d = np.exp(logps[t])
        d[rows, x[:, t + 1]] -= 1.0
        d /= n * (steps - 1)
        g["wo"] += hs[t + 1].T @ d
        g["bo"] += d.sum(axis=0)
        da = (d @ p["wo"].T + dh_next) * (1 - hs[t + 1] ** 2)
        g["wh"] += hs[t].T @ da
        g["b"] += da.sum(axis=0)
        np.add.at(g["emb"], x[:, t], da)
        dh_next = da @ p["wh"].T
    return loss, _clipped_update(p, g, lr)


def train_rnn(step, epochs, data):
    p = rnn_init()
    losses = []
    for _ in range(epochs):
        for start in range(0, data.shape[0], 20):
            loss, p = step(p, data[start:start + 20], 0.5)
            losses.append(float(loss))
    return p, losses


def next_character_accuracy(p, x):
    """How often the most likely next character is right, from the third character on."""
    n = x.shape[0]
    h = np.zeros((n, HIDDEN))
    hits = []
    for t in range(LENGTH - 1):
        h = np.tanh(p["emb"][x[:, t]] + h @ p["wh"] + p["b"])
        if t >= 1:
            hits.append(np.argmax(h @ p["wo"] + p["bo"], axis=1) == x[:, t + 1])
    return np.mean(hits)


def test_rnn_language_model_equals_the_hand_written_bptt():
    data, held_out = sequences(400, 1), sequences(200, 2)
    ember.reset()
    p, losses = train_rnn(rnn_step, 1, data)
    first = (ember.stats()["recompiles"], ember.stats()["cache_misses"])
    p, more = train_rnn(rnn_step, 12, data)
    losses += more
    assert (ember.stats()["recompiles"], ember.stats()["cache_misses"]) == first, \
        ember.stats()["recompile_reasons"]
    assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]
    _, want = train_rnn(rnn_step_by_hand, 1, data)
    want_p, more = train_rnn(rnn_step_by_hand, 12, data)
    want += more
    np.testing.assert_allclose(losses, want, rtol=1e-8)
    accuracy = next_character_accuracy(p, held_out)
    assert accuracy >= 0.9, accuracy
    assert abs(accuracy - next_character_accuracy(want_p, held_out)) <= 0.01
