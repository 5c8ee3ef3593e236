"""More user-style layers and optimisers (multi-head attention, RMSNorm, rotary embeddings,
GRU cell, conv1d by taps, Adam with state held on an object) compiled with each backend and
compared with plain NumPy, including the optimiser state each call mutates."""

from __future__ import annotations

import math

import ember
import numpy as np
import pytest
from test_user_numerics import BACKENDS, run_like_numpy

RNG = np.random.default_rng(8)


def split_heads(x, n_heads):
    b, t, d = x.shape
    return x.reshape(b, t, n_heads, d // n_heads).transpose(0, 2, 1, 3)


def multi_head_attention(x, wq, wk, wv, n_heads=2, causal=True):
    q, k, v = (split_heads(x @ w, n_heads) for w in (wq, wk, wv))
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(q.shape[-1])
    if causal:
        t = x.shape[1]
        scores = np.where(np.tril(np.ones((t, t), dtype=bool)), scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    out = (weights @ v).transpose(0, 2, 1, 3)
    return out.reshape(x.shape)


def rms_norm(x, weight, eps=1e-6):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def rotary(x, base=10000.0):
    t, d = x.shape[-2:]
    inv_freq = 1.0 / base ** (np.arange(0, d, 2) / d)
    angles = np.arange(t)[:, None] * inv_freq[None, :]
    cos, sin = np.cos(angles), np.sin(angles)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


def gru_cell(x, h, w_x, w_h, b):
    gates_x = x @ w_x + b
    gates_h = h @ w_h
    n = h.shape[-1]
    r = _sigmoid(gates_x[:, :n] + gates_h[:, :n])
    z = _sigmoid(gates_x[:, n : 2 * n] + gates_h[:, n : 2 * n])
    cand = np.tanh(gates_x[:, 2 * n :] + r * gates_h[:, 2 * n :])
    return (1 - z) * cand + z * h


def conv1d_valid(signal, kernel):
    k = kernel.shape[0]
    n = signal.shape[-1] - k + 1
    out = np.zeros(signal.shape[:-1] + (n,), dtype=signal.dtype)
    for i in range(k):
        out = out + kernel[i] * signal[..., i : i + n]
    return out


def cosine_similarity(a, b, eps=1e-8):
    num = a @ b.T
    den = np.sqrt((a * a).sum(1))[:, None] * np.sqrt((b * b).sum(1))[None, :]
    return num / np.maximum(den, eps)


def gaussian_kernel(x, gamma=0.5):
    sq = (x**2).sum(axis=1)
    d2 = sq[:, None] + sq[None, :] - 2 * x @ x.T
    return np.exp(-gamma * np.maximum(d2, 0.0))


def polynomial_features(x, degree=3):
    cols = [np.ones_like(x)]
    for p in range(1, degree + 1):
        cols.append(x**p)
    return np.stack(cols, axis=-1)


def label_smoothing_loss(logits, target_onehot, smoothing=0.1):
    n_classes = logits.shape[-1]
    target = target_onehot * (1 - smoothing) + smoothing / n_classes
    shifted = logits - logits.max(-1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    return -(target * log_probs).sum(-1).mean()


class Adam:
    def __init__(self, shape, lr=1e-2, betas=(0.9, 0.999), eps=1e-8):
        self.lr, self.betas, self.eps = lr, betas, eps
        self.m = np.zeros(shape)
        self.v = np.zeros(shape)
        self.t = 0

    def step(self, param, grad):
        b1, b2 = self.betas
        self.t += 1
        self.m[:] = b1 * self.m + (1 - b1) * grad
        self.v[:] = b2 * self.v + (1 - b2) * grad**2
        m_hat = self.m / (1 - b1**self.t)
        v_hat = self.v / (1 - b2**self.t)
        param -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)
        return param


def adam_steps(opt, param, grad):
    for _ in range(2):
        param = opt.step(param, grad)
    return param


D = 8
X3 = RNG.standard_normal((2, 4, D))
CASES = {
    "multi_head_attention": (multi_head_attention, (X3, *(RNG.standard_normal((D, D)) * 0.3
                                                          for _ in range(3)))),
    "rms_norm_f32": (rms_norm, (X3.astype(np.float32), np.ones(D, np.float32))),
    "rotary": (rotary, (X3,)),
    "gru_cell": (gru_cell, (RNG.standard_normal((3, 4)), RNG.standard_normal((3, 5)),
                            RNG.standard_normal((4, 15)), RNG.standard_normal((5, 15)),
                            np.zeros(15))),
    "conv1d_valid": (conv1d_valid, (RNG.standard_normal((2, 10)), np.array([0.25, 0.5, 0.25]))),
    "conv1d_valid_int": (conv1d_valid, (np.arange(8), np.array([1, -1]))),
    "cosine_similarity": (cosine_similarity, (RNG.standard_normal((3, 4)),
                                              RNG.standard_normal((5, 4)))),
    "gaussian_kernel": (gaussian_kernel, (RNG.standard_normal((5, 2)),)),
    "polynomial_features": (polynomial_features, (np.linspace(-1, 1, 4),)),
    "label_smoothing_loss": (label_smoothing_loss, (RNG.standard_normal((4, 3)),
                                                    np.eye(3)[[0, 2, 1, 1]])),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(CASES))
def test_layers_like_numpy(name, backend):
    fn, args = CASES[name]
    run_like_numpy(fn, backend, *args, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_adam_state_on_an_object(backend):
    grad = np.array([0.5, -1.0, 2.0])
    opt, want_opt = Adam(3), Adam(3)
    param, want_param = np.ones(3), np.ones(3)
    step = ember.compile(adam_steps, backend=backend)
    for _ in range(3):
        got = step(opt, param, grad)
        want = adam_steps(want_opt, want_param, grad)
        assert got is param
        np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(opt.m, want_opt.m, rtol=1e-12)
    np.testing.assert_allclose(opt.v, want_opt.v, rtol=1e-12)
    assert opt.t == want_opt.t == 6
