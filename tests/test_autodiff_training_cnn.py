"""A convolutional network on the 8x8 digits as NumPy users write one: im2col by an integer
index array of the 3x3 patches, the convolution as a matmul of the patches, ReLU, 2x2 average
pooling by a reshape, a dense softmax layer, SGD with momentum over a dict. The step compiled
by ember (`ember.value_and_grad` inside `ember.compile`) against the same loop with the
backward pass written by hand: the same losses step by step, the same accuracy, one graph per
step, no recompiles after the first epoch."""

from __future__ import annotations

import ember
import numpy as np
from test_autodiff_training_loops import _digits, _log_softmax

# The flat pixel indices of each 3x3 patch of an 8x8 image: (36 patches, 9 pixels).
PATCHES = (np.arange(6)[:, None, None, None] * 8 + np.arange(6)[None, :, None, None]
           + np.arange(3)[None, None, :, None] * 8
           + np.arange(3)[None, None, None, :]).reshape(36, 9)


def cnn_init(dtype=np.float64):
    rng = np.random.default_rng(11)
    return {"wc": (rng.standard_normal((9, 8)) * 0.3).astype(dtype),
            # Not zero: blank patches would put the ReLU exactly at its kink, where
            # `np.maximum` splits the gradient (as JAX does) and `pre > 0` drops it.
            "bc": np.full(8, 0.01, dtype),
            "w2": (rng.standard_normal((72, 10)) * 0.1).astype(dtype),
            "b2": np.zeros(10, dtype)}


def cnn_forward(params, x, patches):
    cols = x[:, patches]                                   # (n, 36, 9)
    conv = np.maximum(cols @ params["wc"] + params["bc"], 0.0)   # (n, 36, 8)
    pooled = conv.reshape(-1, 3, 2, 3, 2, 8).mean(axis=(2, 4))  # (n, 3, 3, 8)
    return pooled.reshape(-1, 72) @ params["w2"] + params["b2"]


def cnn_loss(params, x, labels, patches):
    logp = _log_softmax(cnn_forward(params, x, patches))
    return -np.mean(logp[np.arange(x.shape[0]), labels])


@ember.compile
def cnn_step(params, velocity, x, labels, patches, lr, mu):
    loss, g = ember.value_and_grad(cnn_loss)(params, x, labels, patches)
    velocity = {k: mu * velocity[k] - lr * g[k] for k in params}
    return loss, {k: params[k] + velocity[k] for k in params}, velocity


def cnn_step_by_hand(params, velocity, x, labels, patches, lr, mu):
    n = x.shape[0]
    cols = x[:, patches]
    pre = cols @ params["wc"] + params["bc"]
    conv = np.maximum(pre, 0.0)
    pooled = conv.reshape(-1, 3, 2, 3, 2, 8).mean(axis=(2, 4)).reshape(-1, 72)
    logp = _log_softmax(pooled @ params["w2"] + params["b2"])
    loss = -np.mean(logp[np.arange(n), labels])
    d = np.exp(logp)
    d[np.arange(n), labels] -= 1.0
    d /= n
    d_pooled = (d @ params["w2"].T).reshape(-1, 3, 1, 3, 1, 8) / 4
    d_conv = np.broadcast_to(d_pooled, (n, 3, 2, 3, 2, 8)).reshape(n, 36, 8) * (pre > 0)
    g = {"w2": pooled.T @ d, "b2": d.sum(axis=0),
         "wc": cols.reshape(-1, 9).T @ d_conv.reshape(-1, 8), "bc": d_conv.sum(axis=(0, 1))}
    velocity = {k: mu * velocity[k] - lr * g[k] for k in params}
    return loss, {k: params[k] + velocity[k] for k in params}, velocity


def train_cnn(step, epochs, x, y, dtype=np.float64):
    params = cnn_init(dtype)
    velocity = {k: np.zeros_like(p) for k, p in params.items()}
    x = x.astype(dtype)
    lr, mu = dtype(0.1), dtype(0.9)
    losses = []
    for _ in range(epochs):
        for start in range(0, x.shape[0], 100):
            loss, params, velocity = step(params, velocity, x[start:start + 100],
                                          y[start:start + 100], PATCHES, lr, mu)
            losses.append(float(loss))
    return params, losses


def _accuracy(params, x, y):
    return np.mean(np.argmax(cnn_forward(params, x, PATCHES), axis=1) == y)


def test_patches_are_the_3x3_windows():
    image = np.arange(64.0).reshape(8, 8)
    windows = np.lib.stride_tricks.sliding_window_view(image, (3, 3)).reshape(36, 9)
    np.testing.assert_array_equal(image.reshape(64)[PATCHES], windows)


def test_cnn_by_im2col_equals_the_hand_written_loop():
    x, y, x_test, y_test = _digits()
    ember.reset()
    params, losses = train_cnn(cnn_step, 1, x, y)
    first = (ember.stats()["recompiles"], ember.stats()["cache_misses"])
    params, more = train_cnn(cnn_step, 5, x, y)
    losses += more
    assert (ember.stats()["recompiles"], ember.stats()["cache_misses"]) == first, \
        ember.stats()["recompile_reasons"]
    assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]
    _, want = train_cnn(cnn_step_by_hand, 1, x, y)
    want_params, more = train_cnn(cnn_step_by_hand, 5, x, y)
    want += more
    np.testing.assert_allclose(losses, want, rtol=1e-8)
    accuracy = _accuracy(params, x_test, y_test)
    assert accuracy >= 0.9, accuracy
    assert abs(accuracy - _accuracy(want_params, x_test, y_test)) <= 0.01


def test_float32_cnn_keeps_float32_and_learns():
    x, y, x_test, y_test = _digits()
    params, losses = train_cnn(cnn_step, 6, x, y, np.float32)
    assert all(p.dtype == np.float32 for p in params.values())
    want_params, want = train_cnn(cnn_step_by_hand, 6, x, y, np.float32)
    np.testing.assert_allclose(losses, want, rtol=2e-3, atol=1e-4)
    accuracy = _accuracy(params, x_test.astype(np.float32), y_test)
    assert accuracy >= 0.9, accuracy
    assert abs(accuracy - _accuracy(want_params, x_test.astype(np.float32), y_test)) <= 0.01
