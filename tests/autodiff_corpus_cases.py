"""Differentiable NumPy programs in the styles their users write them, none of which the other
autodiff corpora hold: losses (pseudo-Huber, multi-class focal, margin contrastive, Gaussian
KL, Crammer-Singer hinge, label-smoothed cross-entropy by integer labels, masked sequence
NLL, pinball, InfoNCE, Dice), layers (group norm, batch norm keeping running statistics in a
dict, causal attention by `np.triu`, convolution by `sliding_window_view`, GRU and LSTM cells collecting states in lists, embeddings by integer indexing,
residual blocks, max pooling by reshape), numerics (softplus both ways, stable sigmoid by
`where`, stick-breaking by `cumprod`, trimmed means by `np.sort`, `inv`/`det`/`slogdet`/
`cholesky`/`solve`, norms along axes, einsum contractions, `prod` and `var(ddof=1)`), control
flow (Newton steps carried over `range`, branches on values, early exits from a loop, a
while loop, a graph break in the middle) and pytrees (lists of namedtuples in dicts).

Each case is `(function, arguments, argnums, how)`: `how` says what the gradient is checked
against, "autograd" (the same code run on `autograd.numpy`) or "differences" (central
differences in float64, where autograd has no rule for a call)."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numpy.lib.stride_tricks import as_strided, sliding_window_view

RNG = np.random.default_rng(2718)


def _normal(*shape):
    return RNG.standard_normal(shape)


# --- losses ----------------------------------------------------------------------------------

def pseudo_huber(w, x, y, delta=0.7):
    r = x @ w - y
    return np.mean(delta ** 2 * (np.sqrt(1 + (r / delta) ** 2) - 1))


def focal_multiclass(w, x, labels, gamma=2.0):
    logits = x @ w
    z = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    pt = p[np.arange(len(labels)), labels]
    return -np.mean((1 - pt) ** gamma * np.log(pt))


def margin_contrastive(w, a, b, same, margin=1.0):
    ea, eb = np.tanh(a @ w), np.tanh(b @ w)
    d = np.sqrt(np.sum((ea - eb) ** 2, axis=1) + 1e-9)
    loss = same * d ** 2 + (1 - same) * np.maximum(margin - d, 0.0) ** 2
    return 0.5 * loss.mean()


def gaussian_kl(mu_q, log_var_q, mu_p, log_var_p):
    var_q, var_p = np.exp(log_var_q), np.exp(log_var_p)
    kl = 0.5 * (log_var_p - log_var_q + (var_q + (mu_q - mu_p) ** 2) / var_p - 1.0)
    return kl.sum(axis=-1).mean()


def crammer_singer_hinge(w, x, onehot):
    scores = x @ w
    correct = np.sum(scores * onehot, axis=1, keepdims=True)
    margins = np.maximum(0, scores - correct + 1.0) * (1 - onehot)
    return margins.max(axis=1).mean() + 0.01 * (w * w).sum()


def label_smoothed_ce(w, x, labels, eps=0.1):
    logits = x @ w
    n_classes = logits.shape[1]
    log_p = logits - np.log(np.sum(np.exp(logits), axis=1))[:, np.newaxis]
    nll = -log_p[np.arange(x.shape[0]), labels]
    smooth = -log_p.mean(axis=1)
    return np.mean((1 - eps) * nll + eps * smooth) + 0 * n_classes


def masked_sequence_nll(params, tokens, lengths):
    emb = params["embed"][tokens]                        # (batch, time, dim)
    logits = emb @ params["out"]                         # (batch, time, vocab)
    m = logits.max(axis=-1, keepdims=True)
    log_z = m[..., 0] + np.log(np.exp(logits - m).sum(axis=-1))
    target = np.roll(tokens, -1, axis=1)
    picked = np.take_along_axis(logits, target[..., None], axis=-1)[..., 0]
    mask = np.arange(tokens.shape[1])[None, :] < (lengths[:, None] - 1)
    return np.sum((log_z - picked) * mask) / np.sum(mask)


def pinball(w, x, y, quantiles=(0.1, 0.5, 0.9)):
    total = 0.0
    pred = x @ w
    for j, q in enumerate(quantiles):
        e = y - pred[:, j]
        total = total + np.mean(np.maximum(q * e, (q - 1) * e))
    return total


def info_nce(w, views_a, views_b, temperature=0.5):
    za = views_a @ w
    zb = views_b @ w
    za = za / np.linalg.norm(za, axis=1, keepdims=True)
    zb = zb / np.linalg.norm(zb, axis=1, keepdims=True)
    sim = za @ zb.T / temperature
    log_prob = sim - np.log(np.exp(sim).sum(axis=1, keepdims=True))
    return -np.diag(log_prob).mean()


def dice_loss(w, pixels, mask):
    prob = 1.0 / (1.0 + np.exp(-(pixels @ w)))
    inter = (prob * mask).sum()
    return 1 - (2 * inter + 1) / (prob.sum() + mask.sum() + 1)


def bce_with_logits(w, b, x, y):
    z = x @ w + b
    return np.mean(np.logaddexp(0, z) - y * z)


# --- layers ----------------------------------------------------------------------------------

def group_norm(gamma, beta, x, groups=2):
    n, c = x.shape
    g = x.reshape(n, groups, c // groups)
    mean = g.mean(axis=-1, keepdims=True)
    std = g.std(axis=-1, keepdims=True)
    y = ((g - mean) / (std + 1e-5)).reshape(n, c)
    return np.sum(np.sin(y * gamma + beta))


def batchnorm_with_running_stats(params, state, x, momentum=0.9):
    mean = x.mean(axis=0)
    var = x.var(axis=0)
    state["mean"] = momentum * state["mean"] + (1 - momentum) * mean
    state["var"] = momentum * state["var"] + (1 - momentum) * var
    xhat = (x - mean) / np.sqrt(var + 1e-5)
    h = np.maximum(xhat * params["gamma"] + params["beta"], 0.0)
    return np.sum((h @ params["w"]) ** 2)


def causal_self_attention(params, x):
    t, d = x.shape
    q, k, v = x @ params["wq"], x @ params["wk"], x @ params["wv"]
    scores = q @ k.T / np.sqrt(d)
    scores = np.where(np.triu(np.ones((t, t), dtype=bool), k=1), -1e9, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    att = np.exp(scores)
    att = att / att.sum(axis=-1, keepdims=True)
    return np.sum((att @ v) ** 2)


def conv_sliding_windows(kernel, image):
    windows = sliding_window_view(image, kernel.shape)       # (h', w', kh, kw)
    out = np.einsum("ijkl,kl->ij", windows, kernel)
    return np.sum(np.tanh(out) ** 2)


def conv_as_strided(kernel, image):
    kh, kw = kernel.shape
    h, w = image.shape
    s0, s1 = image.strides
    cols = as_strided(image, shape=(h - kh + 1, w - kw + 1, kh, kw),
                      strides=(s0, s1, s0, s1))
    out = (cols * kernel).sum(axis=(2, 3))
    return np.mean(out ** 2)


def gru_states_in_a_list(p, xs):
    h = np.zeros((xs.shape[1], p["uz"].shape[0]))
    states = []
    for x in xs:
        z = 1 / (1 + np.exp(-(x @ p["wz"] + h @ p["uz"])))
        r = 1 / (1 + np.exp(-(x @ p["wr"] + h @ p["ur"])))
        cand = np.tanh(x @ p["wh"] + (r * h) @ p["uh"])
        h = (1 - z) * h + z * cand
        states.append(h)
    return np.sum(np.stack(states) ** 2) / len(states)


def lstm_tuple_carry(p, xs, ys):
    hidden = p["w"].shape[1] // 4
    carry = (np.zeros(hidden), np.zeros(hidden))
    losses = []
    for t in range(len(xs)):
        h, c = carry
        gates = np.concatenate([xs[t], h]) @ p["w"] + p["b"]
        i, f, o, g = np.split(gates, 4)
        c = 1 / (1 + np.exp(-f)) * c + 1 / (1 + np.exp(-i)) * np.tanh(g)
        h = 1 / (1 + np.exp(-o)) * np.tanh(c)
        carry = (h, c)
        losses.append((h @ p["v"] - ys[t]) ** 2)
    return sum(losses) / len(losses)


def embedding_bag_classifier(params, tokens, labels):
    pooled = params["E"][tokens].mean(axis=1)
    logits = pooled @ params["W"] + params["b"]
    logits = logits - logits.max(axis=1, keepdims=True)
    log_p = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return -log_p[np.arange(len(labels)), labels].mean()


def residual_blocks(blocks, x):
    for w1, w2 in blocks:
        x = x + np.maximum(x @ w1, 0) @ w2
    return 0.5 * np.sum(x * x)


def maxpool_by_reshape(w, images):
    feat = np.tanh(images * w)
    n, h, wd = feat.shape
    pooled = feat.reshape(n, h // 2, 2, wd // 2, 2).max(axis=(2, 4))
    return np.sum(pooled ** 2)


# --- numerics --------------------------------------------------------------------------------

def softplus_both_ways(x):
    a = np.where(x > 0, x + np.log1p(np.exp(-np.abs(x))), np.log1p(np.exp(x)))
    b = np.logaddexp(0.0, x)
    return np.sum(a * b)


def stable_sigmoid_where(w, x):
    z = x @ w
    pos = 1 / (1 + np.exp(-np.abs(z)))
    s = np.where(z >= 0, pos, 1 - pos)
    return np.sum(s * np.cos(z))


def stick_breaking(v_logits, values):
    v = 1 / (1 + np.exp(-v_logits))
    remaining = np.cumprod(1 - v)
    weights = v * np.concatenate([[1.0], remaining[:-1]])
    return np.sum(weights * values) + remaining[-1]


def discounted_cumsum(rewards, gamma=0.9):
    powers = gamma ** np.arange(len(rewards))
    returns = np.cumsum((rewards * powers)[::-1])[::-1] / powers
    return np.sum(returns ** 2)


def trimmed_mean(x, k=2):
    s = np.sort(x)
    return np.mean(s[k:-k] ** 2)


def gaussian_logpdf_inv_det(mu, cov_factor, x):
    cov = cov_factor @ cov_factor.T + np.eye(len(mu))
    prec = np.linalg.inv(cov)
    d = x - mu
    return -0.5 * (np.einsum("ni,ij,nj->n", d, prec, d).sum()
                   + len(x) * np.log(np.linalg.det(cov)))


def slogdet_and_solve(a, b):
    sign, logdet = np.linalg.slogdet(a)
    return logdet * sign + np.sum(np.linalg.solve(a, b) ** 2)


def cholesky_whitening(l_raw, x):
    cov = l_raw @ l_raw.T + 0.5 * np.eye(l_raw.shape[0])
    chol = np.linalg.cholesky(cov)
    z = np.linalg.solve(chol, x.T)
    return 0.5 * np.sum(z ** 2) + x.shape[0] * np.sum(np.log(np.diag(chol)))


def norms_along_axes(w):
    return (np.linalg.norm(w, axis=0).sum() + np.linalg.norm(w, ord=1, axis=1).sum()
            + np.linalg.norm(w) + np.linalg.norm(w.ravel(), np.inf))


def einsum_contractions(a, b, c):
    batched = np.einsum("bij,bjk->bik", a, b)
    bilinear = np.einsum("i,bij,j->b", c, batched, c)
    return np.einsum("ii", a[0] @ a[1]) + np.sum(bilinear ** 2) + np.einsum("bij,bij", a, a)


def product_and_sample_variance(x):
    return np.prod(x, axis=0).sum() + x.var(axis=1, ddof=1).sum()


def clipped_abs_sign(w, x):
    z = np.clip(x @ w, -1.0, 1.0)
    return np.sum(np.abs(z) ** 1.5 + np.sign(z) * z ** 2)


# --- control flow ----------------------------------------------------------------------------

def newton_sqrt(a):
    x = np.ones_like(a)
    for _ in range(6):
        x = 0.5 * (x + a / x)
    return np.sum(x)


def branch_on_a_value(w, x, y):
    pred = x @ w
    err = np.mean((pred - y) ** 2)
    if err > 1.0:
        return np.sqrt(err)
    return err


def early_exit_fixed_point(theta, x0):
    x = x0
    for _ in range(50):
        x_new = np.tanh(theta @ x) + 0.5
        if np.max(np.abs(x_new - x)) < 1e-3:
            x = x_new
            break
        x = x_new
    return np.sum(x ** 2)


def newton_until_converged(a):
    x = np.ones_like(a)
    err = 1.0
    while err > 1e-10:
        x_new = 0.5 * (x + a / x)
        err = np.max(np.abs(x_new - x))
        x = x_new
    return np.sum(x ** 3)


def descent_until_the_gradient_is_small(w, x, y):
    for _ in range(100):
        g = x.T @ (x @ w - y) / len(y)
        w = w - 0.1 * g
        if np.linalg.norm(g) < 1e-2:
            break
    return np.sum(w ** 2)


def power_iteration_to_a_tolerance(a):
    v = np.ones(a.shape[0]) / np.sqrt(a.shape[0])
    for _ in range(200):
        w = a @ v
        w = w / np.linalg.norm(w)
        if np.abs(w - v).sum() < 1e-8:
            break
        v = w
    return v @ a @ v


def while_gradient_descent(w0, target):
    w = w0
    step = 0
    while step < 5:
        w = w - 0.1 * 2 * (w - target) * np.cos(w)
        step += 1
    return np.sum(np.sin(w) ** 2)


def graph_break_in_the_middle(w, x):
    h = np.tanh(x @ w)
    scale = {"small": 0.5, "big": 2.0}["big" if float(np.abs(h).sum()) > 1e9 else "small"]
    if h.sum() > 1e9:
        h = h * 0
    return np.sum((h * scale) ** 2)


# --- pytrees ---------------------------------------------------------------------------------

Dense = namedtuple("Dense", ["w", "b"])


def namedtuple_layers_in_a_dict(model, x, y):
    h = x
    for layer in model["hidden"]:
        h = np.tanh(h @ layer.w + layer.b)
    pred = h @ model["head"].w + model["head"].b
    return np.mean((pred - y) ** 2) * model["scale"]


def nested_lists_and_tuples(params, x):
    (w1, b1), [w2, (b2,)] = params
    return np.sum(np.cos(np.tanh(x @ w1 + b1) @ w2 + b2))


def float_leaves_in_a_dict(params, x):
    return np.sum(params["amp"] * np.sin(params["freq"] * x + params["phase"]) ** 2)


# --- the cases -------------------------------------------------------------------------------

_ONEHOT4 = np.eye(4)[RNG.integers(0, 4, 7)]

CASES = {
    "pseudo huber": (pseudo_huber, (_normal(3), _normal(8, 3), _normal(8)), 0, "autograd"),
    "focal, several classes": (focal_multiclass, (_normal(3, 4), _normal(7, 3),
                                                  RNG.integers(0, 4, 7)), 0, "autograd"),
    "margin contrastive": (margin_contrastive, (_normal(3, 2), _normal(6, 3), _normal(6, 3),
                                                np.array([1, 0, 1, 0, 0, 1.0])), 0,
                           "autograd"),
    "gaussian kl": (gaussian_kl, (_normal(4, 3), _normal(4, 3) * 0.3, _normal(3),
                                  _normal(3) * 0.3), (0, 1, 2, 3), "autograd"),
    "crammer-singer hinge": (crammer_singer_hinge, (_normal(3, 4), _normal(7, 3), _ONEHOT4), 0,
                             "autograd"),
    "label-smoothed ce": (label_smoothed_ce, (_normal(3, 4), _normal(7, 3),
                                              RNG.integers(0, 4, 7)), 0, "autograd"),
    "masked sequence nll": (masked_sequence_nll, ({"embed": _normal(6, 3),
                                                   "out": _normal(3, 6)},
                                                  RNG.integers(0, 6, (3, 5)),
                                                  np.array([5, 3, 2])), 0, "differences"),
    "pinball, three quantiles": (pinball, (_normal(3, 3), _normal(9, 3), _normal(9)), 0,
                                 "autograd"),
    "info nce": (info_nce, (_normal(4, 3), _normal(5, 4), _normal(5, 4)), 0, "differences"),
    "dice": (dice_loss, (_normal(3), _normal(10, 3), (RNG.uniform(size=10) > 0.5) * 1.0), 0,
             "autograd"),
    "bce with logits": (bce_with_logits, (_normal(3), 0.2, _normal(8, 3),
                                          (RNG.uniform(size=8) > 0.5) * 1.0), (0, 1),
                        "autograd"),
    "group norm": (group_norm, (1 + 0.1 * _normal(4), _normal(4), _normal(5, 4)), (0, 1, 2),
                   "autograd"),
    "causal self-attention": (causal_self_attention, ({"wq": _normal(3, 3), "wk": _normal(3, 3),
                                                       "wv": _normal(3, 3)}, _normal(5, 3)),
                              0, "autograd"),
    "conv by sliding windows": (conv_sliding_windows, (_normal(3, 3) * 0.5, _normal(6, 7)),
                                (0, 1), "differences"),
    "gru states in a list": (gru_states_in_a_list, ({k: _normal(3 if k[0] == "w" else 4, 4) * 0.5
                                                     for k in ("wz", "uz", "wr", "ur", "wh",
                                                               "uh")}, _normal(4, 2, 3)), 0,
                             "autograd"),
    "lstm with a tuple carry": (lstm_tuple_carry, ({"w": _normal(5, 12) * 0.5, "b": _normal(12),
                                                    "v": _normal(3)}, _normal(4, 2),
                                                   _normal(4)), 0, "autograd"),
    "embedding bag classifier": (embedding_bag_classifier, ({"E": _normal(7, 3),
                                                             "W": _normal(3, 4),
                                                             "b": _normal(4)},
                                                            RNG.integers(0, 7, (5, 4)),
                                                            RNG.integers(0, 4, 5)), 0,
                                 "autograd"),
    "residual blocks": (residual_blocks, ([(_normal(3, 5) * 0.5, _normal(5, 3) * 0.5)
                                           for _ in range(3)], _normal(4, 3)), (0, 1),
                        "autograd"),
    "max pooling by reshape": (maxpool_by_reshape, (_normal(4, 6), _normal(2, 4, 6)), 0,
                               "autograd"),
    "softplus both ways": (softplus_both_ways, (_normal(9) * 3,), 0, "autograd"),
    "stable sigmoid by where": (stable_sigmoid_where, (_normal(3), _normal(8, 3) * 3), 0,
                                "autograd"),
    "stick breaking": (stick_breaking, (_normal(5), _normal(5)), (0, 1), "differences"),
    "discounted cumsum": (discounted_cumsum, (_normal(6),), 0, "autograd"),
    "trimmed mean by sort": (trimmed_mean, (_normal(9),), 0, "autograd"),
    "gaussian logpdf by inv and det": (gaussian_logpdf_inv_det, (_normal(3), _normal(3, 3),
                                                                  _normal(5, 3)), (0, 1, 2),
                                       "autograd"),
    "slogdet and solve": (slogdet_and_solve, (_normal(4, 4) + 3 * np.eye(4), _normal(4, 2)),
                          (0, 1), "autograd"),
    "cholesky whitening": (cholesky_whitening, (_normal(3, 3), _normal(6, 3)), (0, 1),
                           "autograd"),
    "norms along axes": (norms_along_axes, (_normal(4, 3),), 0, "differences"),
    "einsum contractions": (einsum_contractions, (_normal(2, 3, 3), _normal(2, 3, 3),
                                                  _normal(3)), (0, 1, 2), "differences"),
    "prod and sample variance": (product_and_sample_variance, (RNG.uniform(0.5, 1.5, (3, 4)),),
                                 0, "autograd"),
    "clip, abs and sign": (clipped_abs_sign, (_normal(3) * 0.5, _normal(8, 3)), 0, "autograd"),
    "newton sqrt over range": (newton_sqrt, (RNG.uniform(0.5, 3.0, 5),), 0, "autograd"),
    "branch on a value": (branch_on_a_value, (_normal(3), _normal(8, 3), _normal(8) * 3), 0,
                          "autograd"),
    "early exit from a loop": (early_exit_fixed_point, (_normal(3, 3) * 0.3, _normal(3)),
                               (0, 1), "autograd"),
    "newton until converged": (newton_until_converged, (RNG.uniform(0.5, 3.0, 4),), 0,
                               "autograd"),
    "descent until the gradient is small": (descent_until_the_gradient_is_small,
                                            (_normal(3), _normal(10, 3), _normal(10)), (0, 1),
                                            "autograd"),
    "power iteration to a tolerance": (power_iteration_to_a_tolerance,
                                       ((lambda m: m @ m.T + np.diag([3.0, 0, 0]))(
                                           _normal(3, 3)),), 0, "autograd"),
    "while loop of descent steps": (while_gradient_descent, (_normal(4), _normal(4)), (0, 1),
                                    "autograd"),
    "graph break in the middle": (graph_break_in_the_middle, (_normal(3, 2), _normal(5, 3)), 0,
                                  "differences"),
    "namedtuple layers in a dict": (namedtuple_layers_in_a_dict,
                                    ({"hidden": [Dense(_normal(3, 4), _normal(4)),
                                                 Dense(_normal(4, 4), _normal(4))],
                                      "head": Dense(_normal(4, 1), _normal(1)), "scale": 0.5},
                                     _normal(6, 3), _normal(6, 1)), 0, "differences"),
    "nested lists and tuples": (nested_lists_and_tuples, (((_normal(3, 4), _normal(4)),
                                                           [_normal(4, 2), (_normal(2),)]),
                                                          _normal(5, 3)), 0, "autograd"),
    "float leaves in a dict": (float_leaves_in_a_dict, ({"amp": 1.3, "freq": 0.7,
                                                         "phase": np.array([0.1, -0.2, 0.3])},
                                                        _normal(4, 3)), 0, "differences"),
}
