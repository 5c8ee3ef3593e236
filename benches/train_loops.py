"""Training loops as users write them (tests/test_autodiff_training_loops.py): one epoch of
each loop with its step compiled by ember (`ember.value_and_grad` inside `ember.compile`)
against the same loop with the backward pass written by hand in NumPy, medians of 7 epochs in
one process after a warm-up epoch; the ratio is NumPy's time over ember's. Loops: logistic
regression on slices of 96 digits, a 64-32-10 ReLU MLP with Adam over a dict on batches of
100 digits (float64 and float32), a 64-12-64 autoencoder with momentum on batches of 50, a
softmax regression with L2 in float64 (SGD, batches of 100), a 64-128-10 ReLU MLP with
momentum in float32 (batches of 100), a convolutional network by im2col with momentum
(tests/test_autodiff_training_cnn.py, batches of 100, float64 and float32), a character RNN
language model over 8 time steps with clipped SGD (tests/test_autodiff_training_rnn.py,
batches of 20).

    OPENBLAS_NUM_THREADS=1 EMBER_STORED_ENTRIES=0 python benches/train_loops.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import ember
import test_autodiff_training_cnn as cnn
import test_autodiff_training_loops as loops
import test_autodiff_training_rnn as rnn


def _median(run, repeats=7):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _autoencoder_epoch(step, x):
    rng = np.random.default_rng(1)
    params = {"enc": rng.standard_normal((64, 12)) * 0.1, "enc_b": np.zeros(12),
              "dec": rng.standard_normal((12, 64)) * 0.1, "dec_b": np.zeros(64)}
    velocity = {k: np.zeros_like(p) for k, p in params.items()}
    for batch in x.reshape(-1, 50, 64):
        _, params, velocity = step(params, velocity, batch, 0.05, 0.9)


def softmax_step(w, b, x, y, lr):
    def loss(w, b):
        z = x @ w + b
        z = z - z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        return -logp[np.arange(x.shape[0]), y].mean() + 1e-3 * (w * w).sum()

    value, (gw, gb) = ember.value_and_grad(loss, argnums=(0, 1))(w, b)
    return value, w - lr * gw, b - lr * gb


def softmax_step_by_hand(w, b, x, y, lr):
    z = x @ w + b
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=1, keepdims=True)
    rows = np.arange(x.shape[0])
    value = -(z - np.log(s))[rows, y].mean() + 1e-3 * (w * w).sum()
    d = e / s
    d[rows, y] -= 1
    d /= x.shape[0]
    return value, w - lr * (x.T @ d + 2e-3 * w), b - lr * d.sum(axis=0)


def _softmax_epoch(step, x, y):
    w, b = np.zeros((64, 10)), np.zeros(10)
    for i in range(0, 1400, 100):
        _, w, b = step(w, b, x[i:i + 100], y[i:i + 100], 0.5)


def relu_step(p, v, x, y, lr, mu):
    def loss(p):
        h = np.maximum(x @ p["w0"] + p["b0"], 0)
        z = h @ p["w1"] + p["b1"]
        z = z - z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        return -logp[np.arange(x.shape[0]), y].mean()

    value, g = ember.value_and_grad(loss)(p)
    v = {k: mu * v[k] - lr * g[k] for k in p}
    return value, {k: p[k] + v[k] for k in p}, v


def relu_step_by_hand(p, v, x, y, lr, mu):
    pre = x @ p["w0"] + p["b0"]
    h = np.maximum(pre, 0)
    z = h @ p["w1"] + p["b1"]
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=1, keepdims=True)
    rows = np.arange(x.shape[0])
    value = -(z - np.log(s))[rows, y].mean()
    d = e / s
    d[rows, y] -= 1
    d /= x.shape[0]
    dh = (d @ p["w1"].T) * (pre > 0)
    g = {"w1": h.T @ d, "b1": d.sum(axis=0), "w0": x.T @ dh, "b0": dh.sum(axis=0)}
    v = {k: mu * v[k] - lr * g[k] for k in p}
    return value, {k: p[k] + v[k] for k in p}, v


def _relu_epoch(step, x, y):
    rng = np.random.default_rng(2)
    p = {"w0": (rng.standard_normal((64, 128)) * 0.1).astype(np.float32),
         "b0": np.zeros(128, np.float32),
         "w1": (rng.standard_normal((128, 10)) * 0.1).astype(np.float32),
         "b1": np.zeros(10, np.float32)}
    v = {k: np.zeros_like(a) for k, a in p.items()}
    x = x.astype(np.float32)
    for i in range(0, 1400, 100):
        _, p, v = step(p, v, x[i:i + 100], y[i:i + 100], np.float32(0.1), np.float32(0.9))


def main() -> None:
    x, y, _, _ = loops._digits()
    halves = (y < 5) * 1.0
    contenders = [
        ("logistic regression", lambda s: loops._train_logistic(s, 1, x, halves),
         loops.logistic_step, loops.logistic_step_by_hand),
        ("mlp, adam, float64", lambda s: loops._train_mlp(s, 1, x, y, np.float64),
         loops.adam_step, loops.adam_step_by_hand),
        ("mlp, adam, float32", lambda s: loops._train_mlp(s, 1, x, y, np.float32),
         loops.adam_step, loops.adam_step_by_hand),
        ("autoencoder, momentum", lambda s: _autoencoder_epoch(s, x),
         loops.momentum_step, loops.momentum_step_by_hand),
        ("softmax, l2, float64", lambda s: _softmax_epoch(s, x, y),
         ember.compile(softmax_step), softmax_step_by_hand),
        ("relu mlp, momentum, f32", lambda s: _relu_epoch(s, x, y),
         ember.compile(relu_step), relu_step_by_hand),
        ("cnn im2col, float64", lambda s: cnn.train_cnn(s, 1, x, y),
         cnn.cnn_step, cnn.cnn_step_by_hand),
        ("cnn im2col, float32", lambda s: cnn.train_cnn(s, 1, x, y, np.float32),
         cnn.cnn_step, cnn.cnn_step_by_hand),
        ("rnn lm, clipped sgd", lambda s: rnn.train_rnn(s, 1, rnn.sequences(400, 1)),
         rnn.rnn_step, rnn.rnn_step_by_hand),
    ]
    for name, epoch, compiled, by_hand in contenders:
        epoch(compiled)
        before = ember.stats()["recompiles"]
        ember_time = _median(lambda: epoch(compiled))
        numpy_time = _median(lambda: epoch(by_hand))
        late = ember.stats()["recompiles"] - before
        print(f"{name:24s} ember {ember_time * 1e3:7.2f} ms/epoch   numpy by hand "
              f"{numpy_time * 1e3:7.2f} ms/epoch   {numpy_time / ember_time:5.2f}x   "
              f"recompiles after the first epoch: {late}")
    print(f"graph breaks: {ember.stats()['graph_breaks']}")


if __name__ == "__main__":
    main()
