"""NumPy model code written the way people write it (models, losses, numerics over pytrees),
each taking the NumPy module as `xp` so that the same source runs on NumPy (ember) and on
`autograd.numpy` (the oracle). Each case: (function, params pytree, data arguments)."""

from __future__ import annotations

import numpy as np


def stable_sigmoid(xp, z):
    # Never exponentiates a large positive number.
    ez = xp.exp(-xp.abs(z))
    return xp.where(z >= 0, 1.0 / (1.0 + ez), ez / (1.0 + ez))


def logistic_regression_sigmoid(xp, p, x, y):
    prob = stable_sigmoid(xp, xp.dot(x, p["w"]) + p["b"])
    eps = 1e-12
    return -xp.mean(y * xp.log(prob + eps) + (1 - y) * xp.log(1 - prob + eps))


def softmax_xent_l2(xp, p, x, onehot):
    logits = xp.dot(x, p["W"]) + p["c"]
    logits = logits - xp.max(logits, axis=-1, keepdims=True)
    log_softmax = logits - xp.log(xp.sum(xp.exp(logits), axis=-1, keepdims=True))
    reg = sum(xp.sum(w ** 2) for w in p.values())
    return -xp.mean(xp.sum(onehot * log_softmax, axis=-1)) + 1e-3 * reg


def small_cnn(xp, p, images):
    # im2col by slicing: every 3x3 patch as the last axis, then one einsum per layer.
    n, h, w = images.shape
    patches = xp.stack([images[:, i:i + h - 2, j:j + w - 2]
                        for i in range(3) for j in range(3)], axis=-1)
    conv = xp.einsum("bhwk,kc->bhwc", patches, p["kernel"]) + p["bias"]
    act = xp.maximum(conv, 0.0)
    pooled = act.mean(axis=(1, 2))
    logits = xp.dot(pooled, p["dense"])
    return xp.sum(logits ** 2) / n


def rnn_unrolled(xp, p, xs):
    h = xp.zeros((xs.shape[0], p["Wh"].shape[0]))
    total = 0.0
    for t in range(xs.shape[1]):
        h = xp.tanh(xp.dot(xs[:, t, :], p["Wx"]) + xp.dot(h, p["Wh"]) + p["b"])
        total = total + xp.sum(h * h)
    return total / xs.shape[1]


def logsumexp(xp, a, axis):
    m = xp.max(a, axis=axis, keepdims=True)
    return xp.squeeze(m, axis) + xp.log(xp.sum(xp.exp(a - m), axis=axis))


def gmm_log_likelihood(xp, p, x):
    # Diagonal Gaussians; the mixture weights as unnormalised logits.
    log_w = p["logits"] - logsumexp(xp, p["logits"], 0)
    var = xp.exp(p["log_var"])
    diff = x[:, None, :] - p["means"][None, :, :]
    log_norm = -0.5 * xp.sum(xp.log(2 * np.pi * var), axis=-1)
    comp = log_norm - 0.5 * xp.sum(diff ** 2 / var, axis=-1) + log_w
    return -xp.mean(logsumexp(xp, comp, 1))


def gp_marginal_likelihood(xp, p, x, y):
    # RBF kernel; K^-1 by Newton-Schulz iterations (no solve), log det from the diagonal of K.
    sq = xp.sum(x ** 2, axis=1)
    d2 = sq[:, None] + sq[None, :] - 2 * xp.dot(x, x.T)
    n = x.shape[0]
    eye = np.eye(n)
    k = p["amp"] ** 2 * xp.exp(-0.5 * d2 / p["scale"] ** 2) + (p["noise"] ** 2 + 1.0) * eye
    inv = eye / xp.sum(xp.abs(k), axis=1).max()
    for _ in range(12):
        inv = xp.dot(inv, 2 * eye - xp.dot(k, inv))
    fit = xp.dot(y, xp.dot(inv, y))
    return 0.5 * fit + 0.5 * xp.sum(xp.log(xp.sum(k * eye, axis=1)))


def huber_clip(xp, p, x, target, delta=1.0):
    err = xp.dot(x, p["w"]) + p["b"] - target
    abs_err = xp.abs(err)
    quad = xp.minimum(abs_err, delta)
    lin = abs_err - quad
    clipped = xp.clip(xp.dot(x, p["w"]), -1.5, 1.5)
    return xp.mean(0.5 * quad ** 2 + delta * lin) + 0.1 * xp.mean(clipped ** 2)


def multi_head_attention(xp, p, x):
    seq, d = x.shape
    heads = 2
    q = xp.dot(x, p["wq"]).reshape(seq, heads, d // heads).transpose((1, 0, 2))
    k = xp.dot(x, p["wk"]).reshape(seq, heads, d // heads).transpose((1, 0, 2))
    v = xp.dot(x, p["wv"]).reshape(seq, heads, d // heads).transpose((1, 0, 2))
    scores = xp.matmul(q, k.transpose((0, 2, 1))) / np.sqrt(d // heads)
    scores = scores - xp.max(scores, axis=-1, keepdims=True)
    attn = xp.exp(scores) / xp.sum(xp.exp(scores), axis=-1, keepdims=True)
    out = xp.matmul(attn, v).transpose((1, 0, 2)).reshape(seq, d)
    return xp.sum(xp.dot(out, p["wo"]) ** 2)


def layer_norm_var(xp, p, x):
    mean = xp.mean(x, axis=-1, keepdims=True)
    var = xp.var(x, axis=-1, keepdims=True)
    y = (x - mean) / xp.sqrt(var + 1e-5)
    out = y * p["gamma"] + p["beta"]
    return xp.sum(xp.tanh(out)) + xp.std(out)


def batch_norm_mlp(xp, p, x):
    h = xp.dot(x, p["w"])
    h = (h - h.mean(axis=0)) / xp.sqrt(h.var(axis=0) + 1e-5)
    return xp.sum(xp.maximum(h, 0.0) * p["scale"])


def l2_regularised_over_layers(xp, p, x, y):
    h = x
    for name in ("l0", "l1"):
        h = xp.tanh(xp.dot(h, p[name]["w"]) + p[name]["b"])
    mse = xp.mean((h - y) ** 2)
    return mse + 1e-2 * sum(xp.sum(layer["w"] ** 2) for layer in p.values())


def norms_loss(xp, p, x, y):
    resid = xp.dot(x, p["w"]) - y
    col_norms = xp.linalg.norm(p["w"], axis=0)
    return xp.linalg.norm(resid) + xp.sum(col_norms) + xp.linalg.norm(p["w"] * p["w"], axis=1).sum()


def ties_max_min(xp, p):
    # Equal values tie in max/min reductions and in maximum/minimum (the gradient is split).
    a = p["a"]
    return (xp.max(a) + xp.min(a, axis=0).sum() + xp.sum(xp.maximum(a, p["b"]))
            + xp.sum(xp.minimum(a, 1.0)) + xp.amax(a, axis=1).sum())


def poisson_regression(xp, p, x, counts):
    rate = xp.exp(xp.dot(x, p["w"]) + p["b"])
    return xp.mean(rate - counts * xp.log(rate))


def cosine_embedding(xp, p, a, b):
    ea, eb = xp.dot(a, p["proj"]), xp.dot(b, p["proj"])
    cos = xp.sum(ea * eb, axis=1) / (xp.sqrt(xp.sum(ea ** 2, axis=1))
                                     * xp.sqrt(xp.sum(eb ** 2, axis=1)))
    return xp.mean(1.0 - cos)


def polynomial_features(xp, p, x, y):
    feats = xp.concatenate([x, x ** 2, xp.sin(x)], axis=1)
    pred = xp.dot(feats, p["w"]) + p["b"]
    powers = xp.abs(x[:, :1]) ** p["k"]  # an array exponent
    return xp.mean((pred - y) ** 2) + xp.mean(powers)


def list_params_mlp(xp, params, x, y):
    h = x
    for w, b in params[:-1]:
        h = xp.tanh(xp.dot(h, w) + b)
    w, b = params[-1]
    return xp.mean((xp.dot(h, w) + b - y) ** 2)


def cumulative_returns(xp, p, returns):
    weights = xp.exp(p["logits"]) / xp.sum(xp.exp(p["logits"]))
    wealth = xp.cumsum(xp.dot(returns, weights))
    return -xp.mean(wealth) + xp.std(wealth)


def smooth_l1_with_mask(xp, p, x, target, mask):
    err = (xp.dot(x, p["w"]) - target) * mask
    small = xp.abs(err) < 1.0
    return xp.sum(xp.where(small, 0.5 * err * err, xp.abs(err) - 0.5)) / xp.sum(mask)


RNG = np.random.default_rng(11)


def _normal(*shape):
    return RNG.normal(size=shape)


CASES = {
    "logistic_regression_sigmoid": (
        logistic_regression_sigmoid, {"w": _normal(5), "b": np.array(0.1)},
        (_normal(40, 5) * 3, (RNG.uniform(size=40) > 0.5) * 1.0)),
    "softmax_xent_l2": (softmax_xent_l2, {"W": _normal(6, 4), "c": _normal(4)},
                        (_normal(12, 6), np.eye(4)[RNG.integers(0, 4, 12)])),
    "small_cnn": (small_cnn, {"kernel": _normal(9, 3) / 3, "bias": _normal(3) / 10,
                              "dense": _normal(3, 2)}, (_normal(2, 6, 5),)),
    "rnn_unrolled": (rnn_unrolled, {"Wx": _normal(3, 4) / 2, "Wh": _normal(4, 4) / 2,
                                    "b": _normal(4) / 5}, (_normal(2, 5, 3),)),
    "gmm_log_likelihood": (gmm_log_likelihood,
                           {"logits": _normal(3), "means": _normal(3, 2),
                            "log_var": _normal(3, 2) / 4}, (_normal(20, 2),)),
    "gp_marginal_likelihood": (gp_marginal_likelihood,
                               {"amp": np.array(0.8), "scale": np.array(1.3),
                                "noise": np.array(0.3)}, (_normal(6, 2), _normal(6))),
    "huber_clip": (huber_clip, {"w": _normal(3), "b": np.array(0.2)},
                   (_normal(25, 3) * 2, _normal(25) * 2)),
    "multi_head_attention": (multi_head_attention,
                             {"wq": _normal(4, 4) / 2, "wk": _normal(4, 4) / 2,
                              "wv": _normal(4, 4) / 2, "wo": _normal(4, 4) / 2},
                             (_normal(5, 4),)),
    "layer_norm_var": (layer_norm_var, {"gamma": _normal(8), "beta": _normal(8)},
                       (_normal(3, 8),)),
    "batch_norm_mlp": (batch_norm_mlp, {"w": _normal(4, 6), "scale": _normal(6)},
                       (_normal(10, 4),)),
    "l2_regularised_over_layers": (
        l2_regularised_over_layers,
        {"l0": {"w": _normal(3, 5) / 2, "b": _normal(5) / 5},
         "l1": {"w": _normal(5, 2) / 2, "b": _normal(2) / 5}},
        (_normal(7, 3), _normal(7, 2))),
    "norms_loss": (norms_loss, {"w": _normal(4, 3)}, (_normal(9, 4), _normal(9, 3))),
    "ties_max_min": (ties_max_min,
                     {"a": np.array([[1.0, 3.0, 3.0], [2.0, 0.5, 2.0], [3.0, 1.0, 0.5]]),
                      "b": np.array([1.0, 3.0, 0.0])}, ()),
    "poisson_regression": (poisson_regression, {"w": _normal(3) / 3, "b": np.array(0.5)},
                           (_normal(30, 3), RNG.poisson(2.0, 30) * 1.0)),
    "cosine_embedding": (cosine_embedding, {"proj": _normal(5, 3)},
                         (_normal(8, 5), _normal(8, 5))),
    "polynomial_features": (polynomial_features,
                            {"w": _normal(6) / 3, "b": np.array(0.0), "k": np.array(1.7)},
                            (_normal(15, 2), _normal(15))),
    "list_params_mlp": (list_params_mlp,
                        [(_normal(3, 4) / 2, _normal(4) / 5), (_normal(4, 4) / 2, _normal(4)),
                         (_normal(4, 1), np.zeros(1))],
                        (_normal(6, 3), _normal(6, 1))),
    "cumulative_returns": (cumulative_returns, {"logits": _normal(4)},
                           (_normal(12, 4) / 10,)),
    "smooth_l1_with_mask": (smooth_l1_with_mask, {"w": _normal(3, 2)},
                            (_normal(10, 3) * 2, _normal(10, 2),
                             (RNG.uniform(size=(10, 2)) > 0.3) * 1.0)),
}
