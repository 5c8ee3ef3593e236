"""A fourth set of differentiable NumPy programs written as their users write them, around
training: regressions (logistic by `np.logaddexp` with weight decay, ordinal by cumulative
logits, Poisson with an exposure offset, binary cross-entropy by `np.log1p` and `np.where`),
softmaxes stabilised by their maximum (or minimum) in every form users write them (log-softmax,
probabilities by division, label smoothing, logsumexp returning the max back, a softmin), and
one centred by its maximum where the maximum does carry a gradient; an attention head,
embedding lookups pooled by mean, a convnet by im2col from slices, losses summed over
mini-batches sliced from arrays, gradient clipping by the global norm of a dict, and a loss
taken after one Adam or RMSprop update of a dict of parameters (differentiated through the
optimiser's step, as meta-learning does).

Each case is `(function, arguments, argnums, how)` as in `autodiff_users_cases`."""

from __future__ import annotations

import numpy as np

RNG = np.random.default_rng(14142)


def _normal(*shape):
    return RNG.standard_normal(shape)


def _f32(*shape):
    return (_normal(*shape) * 0.5).astype(np.float32)


def _log_softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def logistic_logaddexp_decay(w, b, x, y, decay):
    margins = (2 * y - 1) * (x @ w + b)
    return np.mean(np.logaddexp(0.0, -margins)) + 0.5 * decay * np.sum(w ** 2)


def ordinal_cumulative_logits(w, cuts, x, levels):
    score = x @ w
    thresholds = np.cumsum(np.concatenate([cuts[:1], np.exp(cuts[1:])]))
    cdf = 1.0 / (1.0 + np.exp(-(thresholds[None, :] - score[:, None])))
    padded = np.concatenate([np.zeros((x.shape[0], 1)), cdf, np.ones((x.shape[0], 1))], axis=1)
    probs = padded[:, 1:] - padded[:, :-1]
    return -np.mean(np.log(probs[np.arange(x.shape[0]), levels] + 1e-12))


def poisson_with_offset(w, x, counts, exposure):
    eta = x @ w + np.log(exposure)
    return np.sum(np.exp(eta) - counts * eta) / x.shape[0]


def bce_by_log1p_where(w, x, y):
    z = x @ w
    softplus = np.where(z > 0, z + np.log1p(np.exp(-z)), np.log1p(np.exp(z)))
    return np.mean(softplus - y * z)


def log_softmax_cross_entropy(w, b, x, labels):
    logp = _log_softmax(x @ w + b)
    return -logp[np.arange(x.shape[0]), labels].mean()


def softmax_by_division(w, x, target):
    z = x @ w
    z = z - np.max(z, axis=-1, keepdims=True)
    e = np.exp(z)
    p = e / np.sum(e, axis=-1, keepdims=True)
    return np.sum((p - target) ** 2)


def label_smoothing(w, x, labels):
    logp = _log_softmax(x @ w)
    smooth = np.full(logp.shape, 0.1 / logp.shape[1])
    smooth[np.arange(x.shape[0]), labels] += 0.9
    return -np.sum(smooth * logp) / x.shape[0]


def logsumexp_adding_the_max_back(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m))) + 0.1 * np.sum(x ** 2)


def softmin_attention_weights(d, v):
    z = d.min(axis=1, keepdims=True) - d
    weights = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    return np.sum((weights @ v) ** 2)


def centred_by_the_max(x):
    centred = x - x.max(axis=0, keepdims=True)
    return np.sum(centred ** 2) + np.sum(np.exp(centred))


def attention_head(p, x):
    q, k, v = x @ p["wq"], x @ p["wk"], x @ p["wv"]
    scores = q @ k.T / np.sqrt(q.shape[-1])
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.sum(np.tanh(weights @ v @ p["wo"]))


def embedding_mean_pool(p, tokens, labels):
    pooled = p["embed"][tokens].mean(axis=1)
    logp = _log_softmax(pooled @ p["out"])
    return -np.mean(logp[np.arange(tokens.shape[0]), labels])


def convnet_by_im2col(p, images, labels):
    n, h, w = images.shape
    cols = np.stack([images[:, i:i + h - 2, j:j + w - 2] for i in range(3) for j in range(3)],
                    axis=-1)
    maps = np.maximum(cols.reshape(n, -1, 9) @ p["kernels"] + p["bias"], 0.0)
    logits = maps.reshape(n, -1) @ p["dense"]
    return -np.mean(_log_softmax(logits)[np.arange(n), labels])


def loss_over_sliced_minibatches(w, x, y):
    total = 0.0
    for start in range(0, x.shape[0], 8):
        xb, yb = x[start:start + 8], y[start:start + 8]
        total = total + np.mean((np.tanh(xb @ w) - yb) ** 2)
    return total


def clipped_by_global_norm(g, w, max_norm):
    norm = np.sqrt(sum(np.sum(v ** 2) for v in g.values()))
    scale = np.minimum(1.0, max_norm / (norm + 1e-6))
    return sum(np.sum(w[k] * g[k] * scale) for k in g)


def _mlp_loss(p, x, y):
    h = np.tanh(x @ p["w0"] + p["b0"])
    return np.mean((h @ p["w1"] - y) ** 2)


def loss_after_an_adam_update(p, m, v, x, y):
    b1, b2, lr, t = 0.9, 0.999, 0.05, 3
    grads = {k: 0.1 * p[k] + 0.01 for k in p}
    m = {k: b1 * m[k] + (1 - b1) * grads[k] for k in p}
    v = {k: b2 * v[k] + (1 - b2) * grads[k] ** 2 for k in p}
    new = {k: p[k] - lr * (m[k] / (1 - b1 ** t)) / (np.sqrt(v[k] / (1 - b2 ** t)) + 1e-8)
           for k in p}
    return _mlp_loss(new, x, y)


def loss_after_rmsprop_with_decay(p, square, x, y):
    lr, rho, decay = 0.01, 0.9, 1e-3
    grads = {k: p[k] ** 3 + decay * p[k] for k in p}
    square = {k: rho * square[k] + (1 - rho) * grads[k] ** 2 for k in p}
    new = {k: p[k] - lr * grads[k] / np.sqrt(square[k] + 1e-6) for k in p}
    return _mlp_loss(new, x, y)


def float32_attention_head(p, x):
    return attention_head(p, x)


def _mlp_params(scale=0.5):
    return {"w0": _normal(4, 6) * scale, "b0": _normal(6) * 0.1, "w1": _normal(6, 2) * scale}


_X = _normal(24, 4)
_LABELS = RNG.integers(0, 3, 24)

CASES = {
    "logistic by logaddexp with weight decay": (
        logistic_logaddexp_decay, (_normal(4), 0.3, _X, (RNG.random(24) < 0.5) * 1.0, 0.01),
        (0, 1), "autograd"),
    "ordinal regression by cumulative logits": (
        ordinal_cumulative_logits, (_normal(4) * 0.3, np.array([-0.5, 0.1, 0.2]), _X,
                                    RNG.integers(0, 4, 24)), (0, 1), "autograd"),
    "poisson regression with an exposure offset": (
        poisson_with_offset, (_normal(4) * 0.2, _X, RNG.poisson(2.0, 24) * 1.0,
                              RNG.uniform(0.5, 2.0, 24)), 0, "autograd"),
    "binary cross-entropy by log1p and where": (
        bce_by_log1p_where, (_normal(4) * 0.5, _X, (RNG.random(24) < 0.5) * 1.0), 0,
        "autograd"),
    "log-softmax cross-entropy": (
        log_softmax_cross_entropy, (_normal(4, 3), _normal(3), _X, _LABELS), (0, 1),
        "autograd"),
    "softmax probabilities by division": (
        softmax_by_division, (_normal(4, 3), _X, np.eye(3)[_LABELS]), 0, "autograd"),
    "label smoothing": (label_smoothing, (_normal(4, 3), _X, _LABELS), 0, "autograd"),
    "logsumexp adding the max back": (logsumexp_adding_the_max_back, (_normal(5, 3),), 0,
                                      "autograd"),
    "softmin attention weights": (softmin_attention_weights, (_normal(6, 5), _normal(5, 2)),
                                  (0, 1), "autograd"),
    "centred by the max": (centred_by_the_max, (_normal(5, 3),), 0, "autograd"),
    "attention head": (attention_head, ({k: _normal(4, 4) * 0.5 for k in
                                         ("wq", "wk", "wv", "wo")}, _normal(7, 4)), (0, 1),
                       "autograd"),
    "embedding lookups pooled by mean": (
        embedding_mean_pool, ({"embed": _normal(11, 5), "out": _normal(5, 3)},
                              RNG.integers(0, 11, (9, 4)), RNG.integers(0, 3, 9)), 0,
        "autograd"),
    "convnet by im2col": (
        convnet_by_im2col, ({"kernels": _normal(9, 2) * 0.5, "bias": _normal(2) * 0.1,
                             "dense": _normal(2 * 4 * 4, 3) * 0.3},
                            _normal(5, 6, 6), RNG.integers(0, 3, 5)), (0, 1), "autograd"),
    "loss over sliced mini-batches": (loss_over_sliced_minibatches,
                                      (_normal(4, 2) * 0.5, _X, _normal(24, 2)), (0, 1),
                                      "autograd"),
    "clipping by the global norm of a dict": (
        clipped_by_global_norm, ({"a": _normal(3, 2), "b": _normal(4)},
                                 {"a": _normal(3, 2), "b": _normal(4)}, 1.5), (0, 1),
        "autograd"),
    "loss after an adam update": (
        loss_after_an_adam_update, (_mlp_params(), {k: v * 0.01 for k, v in _mlp_params().items()},
                                    {k: np.abs(v) * 0.01 for k, v in _mlp_params().items()},
                                    _normal(8, 4), _normal(8, 2)), (0, 1, 2), "autograd"),
    "loss after rmsprop with decay": (
        loss_after_rmsprop_with_decay, (_mlp_params(),
                                        {k: np.abs(v) * 0.1 for k, v in _mlp_params().items()},
                                        _normal(8, 4), _normal(8, 2)), (0, 1), "autograd"),
    "float32 attention head": (float32_attention_head,
                               ({k: _f32(4, 4) for k in ("wq", "wk", "wv", "wo")}, _f32(7, 4)),
                               0, "float32"),
}
