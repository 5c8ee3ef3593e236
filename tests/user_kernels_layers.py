"""Deep-learning layers by hand, forward and backward, written as their users write them:
normalisations over reshaped groups, rotary embeddings by halves, causal multi-head attention
with a mask, losses on integer labels, scatter-adds for embeddings, optimiser steps in place
and a two-layer network's gradients, mostly in float32."""

import numpy as np


def group_norm(x, gamma, beta, groups, eps=1e-5):
    n, c, h, w = x.shape
    xg = x.reshape(n, groups, c // groups, h, w)
    mean = xg.mean(axis=(2, 3, 4), keepdims=True)
    var = xg.var(axis=(2, 3, 4), keepdims=True)
    xhat = ((xg - mean) / np.sqrt(var + eps)).reshape(n, c, h, w)
    return xhat * gamma[np.newaxis, :, np.newaxis, np.newaxis] + beta[None, :, None, None]


def instance_norm_backward(x, dy, eps=1e-5):
    mean = x.mean(axis=(2, 3), keepdims=True)
    xc = x - mean
    var = (xc * xc).mean(axis=(2, 3), keepdims=True)
    inv = 1.0 / np.sqrt(var + eps)
    xhat = xc * inv
    m = x.shape[2] * x.shape[3]
    dx = inv / m * (m * dy - dy.sum(axis=(2, 3), keepdims=True)
                    - xhat * (dy * xhat).sum(axis=(2, 3), keepdims=True))
    return dx


def rms_norm_fwd_bwd(x, weight, dy, eps=1e-6):
    ms = np.mean(x * x, axis=-1, keepdims=True)
    rinv = 1.0 / np.sqrt(ms + eps)
    y = x * rinv * weight
    dweight = np.sum(dy * x * rinv, axis=0)
    g = dy * weight
    d = x.shape[-1]
    dx = rinv * g - x * (rinv ** 3) * np.sum(g * x, axis=-1, keepdims=True) / d
    return y, dx, dweight


def rotary_embedding(q, base=10000.0):
    seq, dim = q.shape
    half = dim // 2
    inv_freq = 1.0 / (base ** (np.arange(0, half, dtype=np.float32) / half))
    t = np.arange(seq, dtype=np.float32)
    freqs = t[:, np.newaxis] * inv_freq[np.newaxis, :]
    cos, sin = np.cos(freqs), np.sin(freqs)
    q1, q2 = q[:, :half], q[:, half:]
    out = np.empty_like(q)
    out[:, :half] = q1 * cos - q2 * sin
    out[:, half:] = q1 * sin + q2 * cos
    return out


def _softmax_rows(s):
    s = s - s.max(axis=-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=-1, keepdims=True)


def masked_mha(x, wq, wk, wv, wo, n_heads):
    T, d = x.shape
    hd = d // n_heads
    q = (x @ wq).reshape(T, n_heads, hd).transpose(1, 0, 2)
    k = (x @ wk).reshape(T, n_heads, hd).transpose(1, 0, 2)
    v = (x @ wv).reshape(T, n_heads, hd).transpose(1, 0, 2)
    mask = np.triu(np.ones((T, T), dtype=bool), k=1)
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(hd)
    scores = np.where(mask[np.newaxis], -1e9, scores)
    att = _softmax_rows(scores)
    out = (att @ v).transpose(1, 0, 2).reshape(T, d)
    return out @ wo


def softmax_cross_entropy(logits, labels):
    n = logits.shape[0]
    shifted = logits - logits.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -logp[np.arange(n), labels].mean()
    grad = np.exp(logp)
    grad[np.arange(n), labels] -= 1
    grad /= n
    return loss, grad


def embedding_backward(ids, dout, vocab_size):
    dW = np.zeros((vocab_size, dout.shape[-1]), dtype=dout.dtype)
    np.add.at(dW, ids.ravel(), dout.reshape(-1, dout.shape[-1]))
    return dW


def maxpool_backward(x, dout, k=2):
    n, c, h, w = x.shape
    dx = np.zeros_like(x)
    for i in range(h // k):
        for j in range(w // k):
            win = x[:, :, i * k:(i + 1) * k, j * k:(j + 1) * k]
            m = win.max(axis=(2, 3), keepdims=True)
            mask = win == m
            dx[:, :, i * k:(i + 1) * k, j * k:(j + 1) * k] += mask * dout[:, :, i:i + 1, j:j + 1]
    return dx


def adamw(w, grads, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.01):
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t, g in enumerate(grads, start=1):
        w -= lr * weight_decay * w
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        m_hat = m / (1 - beta1 ** t)
        v_hat = v / (1 - beta2 ** t)
        w -= lr * m_hat / (np.sqrt(v_hat) + eps)
    return w


def dropout_fwd_bwd(x, mask, dy, p=0.5):
    scale = 1.0 / (1.0 - p)
    y = x * mask * scale
    dx = dy * mask * scale
    return y, dx


def activations(x):
    gelu = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    silu = x / (1 + np.exp(-x))
    mish = x * np.tanh(np.log1p(np.exp(x)))
    return {"gelu": gelu, "silu": silu, "mish": mish}


def mlp2_backward(x, y, w1, b1, w2, b2):
    h = x @ w1 + b1
    a = np.maximum(h, 0)
    out = a @ w2 + b2
    diff = out - y
    loss = 0.5 * np.sum(diff ** 2) / x.shape[0]
    dout = diff / x.shape[0]
    dw2 = a.T @ dout
    db2 = dout.sum(axis=0)
    da = dout @ w2.T
    dh = da * (h > 0)
    dw1 = x.T @ dh
    db1 = dh.sum(axis=0)
    return loss, (dw1, db1, dw2, db2)
