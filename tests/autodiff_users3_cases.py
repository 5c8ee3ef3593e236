"""A third set of differentiable NumPy programs written as their users write them: losses
(focal, triplet, contrastive, InfoNCE, masked sequence cross-entropy, Huber variants, PPO's
clipped surrogate, multiclass hinge), layers (layer norm by `np.var`, causal attention with
a `-inf` mask, conv1d by slicing, GRU and LSTM cells over a Python loop of time steps with
the state in a namedtuple, embedding bags by repeated integer indices, residual blocks with
a Python float scale), numerics (logsumexp by `np.maximum.reduce`, softplus by `np.where`,
a full-covariance Gaussian mixture, Heun's method and implicit Euler by a fixed number of
Newton iterations, Kepler's equation, power iteration), pytrees (dicts of lists of tuples,
namedtuples holding nested tuples, Python floats among arrays), `np.einsum`, `@`, `.T`,
`np.linalg.norm`, `np.clip`, order statistics without `np.sort`, in-place updates on
copies, and loops that `break` on a value (a constant, as in PyTorch).

Each case is `(function, arguments, argnums, how)` as in `autodiff_users_cases`."""

from __future__ import annotations

from collections import namedtuple

import numpy as np

RNG = np.random.default_rng(16180)


def _normal(*shape):
    return RNG.standard_normal(shape)


def _f32(*shape):
    return (_normal(*shape) * 0.5).astype(np.float32)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def log_softmax(z, axis=-1):
    z = z - np.max(z, axis=axis, keepdims=True)
    return z - np.log(np.sum(np.exp(z), axis=axis, keepdims=True))


# --- losses ----------------------------------------------------------------------------------

def focal_loss(w, x, y, gamma=2.0, alpha=0.25):
    """Binary focal loss of a linear classifier: the probability of the true class by
    `np.where`, down-weighted by `(1 - p_t) ** gamma`."""
    p = sigmoid(x @ w)
    p_t = np.where(y == 1, p, 1 - p)
    a_t = np.where(y == 1, alpha, 1 - alpha)
    return np.mean(-a_t * (1 - p_t) ** gamma * np.log(np.clip(p_t, 1e-7, 1.0)))


def triplet_loss(w, anchor, positive, negative, margin=1.0):
    """Embeddings by a linear map, distances by `np.linalg.norm(axis=1)`, the hinge by
    `np.maximum`."""
    ea, ep, en = anchor @ w, positive @ w, negative @ w
    d_pos = np.linalg.norm(ea - ep, axis=1)
    d_neg = np.linalg.norm(ea - en, axis=1)
    return np.mean(np.maximum(d_pos - d_neg + margin, 0.0))


def contrastive_loss(w, left, right, same, margin=2.0):
    """Hadsell-Chopra-LeCun: squared distance for similar pairs, a squared hinge for the
    others; the distance with an epsilon under the square root."""
    diff = np.tanh(left @ w) - np.tanh(right @ w)
    d = np.sqrt(np.sum(diff ** 2, axis=1) + 1e-9)
    return np.mean(same * d ** 2 + (1 - same) * np.clip(margin - d, 0, None) ** 2)


def info_nce(w, x, x_aug, temperature=0.5):
    """SimCLR's loss on two views: L2-normalised embeddings, cosine similarities over the
    batch with the diagonal as positives. (autograd's rule for `norm(..., keepdims=True)`
    gives a wrongly shaped gradient: checked by central differences.)"""
    za = x @ w
    zb = x_aug @ w
    za = za / np.linalg.norm(za, axis=1, keepdims=True)
    zb = zb / np.linalg.norm(zb, axis=1, keepdims=True)
    logits = za @ zb.T / temperature
    return -np.mean(np.diag(log_softmax(logits, axis=1)))


def masked_sequence_xent(params, tokens, lengths):
    """Next-token cross-entropy of a bigram model on padded sequences: the padding masked by
    comparing positions with the lengths, the mean over real tokens (`np.take_along_axis`,
    which autograd lacks: checked by central differences)."""
    logits = params["emb"][tokens[:, :-1]] @ params["out"]
    logp = log_softmax(logits, axis=-1)
    targets = tokens[:, 1:]
    picked = np.take_along_axis(logp, targets[..., None], axis=-1)[..., 0]
    mask = np.arange(tokens.shape[1] - 1)[None, :] < (lengths[:, None] - 1)
    return -np.sum(picked * mask) / np.sum(mask)


def huber_variants(w, x, y, delta=0.7):
    """Huber by `np.where`, pseudo-Huber and smooth-L1 of the same residuals."""
    r = x @ w - y
    a = np.abs(r)
    huber = np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta))
    pseudo = delta ** 2 * (np.sqrt(1 + (r / delta) ** 2) - 1)
    smooth_l1 = np.where(a < 1.0, 0.5 * a * a, a - 0.5)
    return np.mean(huber) + np.mean(pseudo) + 0.5 * np.sum(smooth_l1)


def ppo_clipped_surrogate(w, x, actions, old_logp, advantages, eps=0.2):
    """PPO's objective: the probability ratio clipped by `np.clip`, the minimum by
    `np.minimum`, an entropy bonus."""
    logp_all = log_softmax(x @ w, axis=1)
    logp = logp_all[np.arange(len(actions)), actions]
    ratio = np.exp(logp - old_logp)
    surrogate = np.minimum(ratio * advantages, np.clip(ratio, 1 - eps, 1 + eps) * advantages)
    entropy = -np.sum(np.exp(logp_all) * logp_all, axis=1)
    return -np.mean(surrogate) - 0.01 * np.mean(entropy)


def multiclass_hinge(w, x, y):
    """Weston-Watkins multiclass SVM: margins against the true class's score, the true
    class's own term removed by a mask."""
    scores = x @ w
    true = scores[np.arange(len(y)), y][:, None]
    margins = np.maximum(0, scores - true + 1.0)
    margins = margins * (np.arange(w.shape[1])[None, :] != y[:, None])
    return np.sum(margins) / len(y) + 0.5 * np.sum(w * w)


# --- layers ----------------------------------------------------------------------------------

def layer_norm_var(x, g, b, eps=1e-5):
    return g * (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(
        np.var(x, axis=-1, keepdims=True) + eps) + b


def causal_attention_block(p, x):
    """Single-head causal self-attention with `np.triu` and a `-inf` fill by `np.where`, a
    layer norm by `np.var` and a residual connection."""
    h = layer_norm_var(x, p["g"], p["b"])
    q, k, v = h @ p["wq"], h @ p["wk"], h @ p["wv"]
    scores = q @ k.T / np.sqrt(q.shape[-1])
    future = np.triu(np.ones((x.shape[0], x.shape[0])), k=1) > 0
    scores = np.where(future, -np.inf, scores)
    weights = np.exp(log_softmax(scores, axis=-1))
    return np.sum((x + weights @ v @ p["wo"]) ** 2)


def conv1d_by_slicing(w, bias, signal):
    """A 'same' convolution written as a loop over taps of shifted slices of a zero-padded
    signal (padding by `np.concatenate`), then a ReLU and a global average."""
    k = w.shape[0]
    pad = np.zeros(k // 2)
    padded = np.concatenate([pad, signal, pad])
    n = signal.shape[0]
    out = bias * np.ones(n)
    for j in range(k):
        out = out + w[j] * padded[j:j + n]
    return np.mean(np.maximum(out, 0.0) ** 2)


def gru_sequence(params, xs, target):
    """A GRU cell unrolled over a Python loop of time steps, the last state regressed."""
    h = np.zeros(params["uz"].shape[0])
    for x in xs:
        z = sigmoid(x @ params["wz"] + h @ params["uz"])
        r = sigmoid(x @ params["wr"] + h @ params["ur"])
        cand = np.tanh(x @ params["wh"] + (r * h) @ params["uh"])
        h = (1 - z) * h + z * cand
    return np.sum((h - target) ** 2)


LSTMState = namedtuple("LSTMState", ["h", "c"])


def lstm_namedtuple_state(w, xs, state):
    """An LSTM whose state is a namedtuple, updated by `_replace`, gates split by slicing
    one product, the mean of the hidden states as the output."""
    n = state.h.shape[0]
    outs = []
    for x in xs:
        gates = np.concatenate([x, state.h]) @ w
        i, f, o = sigmoid(gates[:n]), sigmoid(gates[n:2 * n]), sigmoid(gates[2 * n:3 * n])
        c = f * state.c + i * np.tanh(gates[3 * n:])
        state = state._replace(c=c, h=o * np.tanh(c))
        outs.append(state.h)
    return np.sum(np.mean(np.stack(outs), axis=0) ** 2) + np.sum(state.c)


def embedding_bag(params, ids, labels):
    """Bags of token ids (repeats within and across bags) averaged into a sentence vector,
    then a logistic classifier."""
    bags = params["table"][ids].mean(axis=1)
    z = bags @ params["w"] + params["b"]
    return np.mean(np.logaddexp(0.0, z) - labels * z)


def residual_blocks(blocks, scale, x):
    """Residual blocks `x + scale * W2 relu(W1 layer_norm(x))` from a list of tuples, the
    scale a Python float differentiated too."""
    for w1, w2, g in blocks:
        h = layer_norm_var(x, g, 0.0)
        x = x + scale * np.maximum(h @ w1, 0) @ w2
    return np.mean(x ** 2)


def max_pool_by_reshape(w, x):
    """A linear map, then 1-D max pooling by a reshape and `max(axis=-1)`."""
    h = x @ w
    pooled = h.reshape(h.shape[0], -1, 2).max(axis=-1)
    return np.sum(np.tanh(pooled))


# --- numerics --------------------------------------------------------------------------------

def logsumexp_maximum_reduce(z):
    """logsumexp over rows with the shift by `np.maximum.reduce`."""
    m = np.maximum.reduce(z, axis=1)
    return np.sum(m + np.log(np.sum(np.exp(z - m[:, None]), axis=1)))


def softplus_where(w, x):
    """A numerically stable softplus by `np.where` on the sign, `np.log1p` of `exp(-|z|)`."""
    z = x @ w
    sp = np.where(z > 0, z + np.log1p(np.exp(-z)), np.log1p(np.exp(z)))
    return np.sum(sp) + np.sum(np.maximum(z, 0) + np.log1p(np.exp(-np.abs(z))))


def gmm_full_covariance_2d(params, x):
    """A two-dimensional Gaussian mixture with full covariances from Cholesky entries, the
    2x2 inverse and determinant written out."""
    total = []
    for k in range(params["means"].shape[0]):
        l11, l21, l22 = np.exp(params["chol"][k, 0]), params["chol"][k, 1], \
            np.exp(params["chol"][k, 2])
        a, bc, d = l11 ** 2, l11 * l21, l21 ** 2 + l22 ** 2
        det = a * d - bc * bc
        dx = x - params["means"][k]
        maha = (d * dx[:, 0] ** 2 - 2 * bc * dx[:, 0] * dx[:, 1] + a * dx[:, 1] ** 2) / det
        total.append(-0.5 * maha - 0.5 * np.log(det) - np.log(2 * np.pi))
    comps = np.stack(total, axis=1) + log_softmax(params["logits"])
    m = np.max(comps, axis=1, keepdims=True)
    return -np.mean(m[:, 0] + np.log(np.sum(np.exp(comps - m), axis=1)))


def heun_lotka_volterra(theta, y0, h=0.08, steps=25):
    """Lotka-Volterra by Heun's method in a Python `for` loop, the final state's norm."""
    def f(y):
        return np.array([theta[0] * y[0] - theta[1] * y[0] * y[1],
                         theta[2] * y[0] * y[1] - theta[3] * y[1]])

    y = y0
    for _ in range(steps):
        k1 = f(y)
        k2 = f(y + h * k1)
        y = y + 0.5 * h * (k1 + k2)
    return np.sum(y ** 2)


def implicit_euler_newton(k, y0, h=0.5, steps=3, newton=4):
    """Implicit Euler for y' = -k y^3, each step solved by a fixed number of Newton
    iterations started from the previous value."""
    y = y0
    for _ in range(steps):
        z = y
        for _ in range(newton):
            residual = z - y + h * k * z ** 3
            z = z - residual / (1 + 3 * h * k * z ** 2)
        y = z
    return np.sum(y)


def kepler_newton(eccentricity, mean_anomaly):
    """Kepler's equation E - e sin E = M by eight Newton steps, the true anomaly's cosine."""
    e = eccentricity
    ecc = mean_anomaly
    for _ in range(8):
        ecc = ecc - (ecc - e * np.sin(ecc) - mean_anomaly) / (1 - e * np.cos(ecc))
    cos_nu = (np.cos(ecc) - e) / (1 - e * np.cos(ecc))
    return np.sum(cos_nu)


def spectral_norm_power_iteration(w, u0, iters=12):
    """Power iteration for the largest singular value (the vectors carry gradients too, as
    in code that forgets to stop them), used as a penalty."""
    u = u0
    for _ in range(iters):
        v = w.T @ u
        v = v / np.linalg.norm(v)
        u = w @ v
        u = u / np.linalg.norm(u)
    sigma = u @ w @ v
    return sigma + 0.1 * np.linalg.norm(w) ** 2


def bilinear_einsum(w, x, y):
    """A bilinear score `x_b W y_b` by `np.einsum`, with a trace penalty by `'ii->'` (which
    autograd's einsum rule rejects: checked by central differences)."""
    scores = np.einsum("bi,ij,bj->b", x, w, y)
    return np.mean(np.log1p(np.exp(-scores))) + 0.01 * np.einsum("ii->", w.T @ w)


def transpose_chain_frobenius(a, b):
    """`.T`, `@` and the Frobenius norm by `np.linalg.norm` of a matrix residual."""
    residual = a @ b.T - (b @ a.T).T * 0.5
    return np.linalg.norm(residual) + np.linalg.norm(a.T @ a - np.eye(a.shape[1]), "fro")


def second_largest_without_sort(x):
    """The largest and second largest of each row without `np.sort`: the maximum masked to
    `-inf` by `np.where`, then the maximum of the rest."""
    top = np.max(x, axis=1, keepdims=True)
    rest = np.where(x == top, -np.inf, x)
    second = np.max(rest, axis=1)
    return np.sum(top[:, 0] - second) + np.sum(second ** 2)


def gini_mean_difference(x):
    """The mean absolute difference of all pairs, a sort-free order statistic."""
    return np.mean(np.abs(x[:, None] - x[None, :]))


# --- pytrees ---------------------------------------------------------------------------------

def dict_of_lists_of_tuples(params, x, y):
    """Layers as `(w, b)` tuples in a list under a key, a Python float temperature beside
    them in the dict."""
    h = x
    for w, b in params["layers"]:
        h = np.tanh(h @ w + b)
    logits = h / params["temperature"]
    return -np.mean(log_softmax(logits, axis=1)[np.arange(len(y)), y])


Head = namedtuple("Head", ["proj", "bias_and_scale"])


def namedtuple_nested_tuple(head, x, y):
    """A namedtuple whose second field is a nested tuple `(bias, (scale, shift))`."""
    bias, (scale, shift) = head.bias_and_scale
    pred = scale * np.tanh(x @ head.proj + bias) + shift
    return np.mean((pred - y) ** 2)


def nested_tuples_with_floats(p, x):
    """`(w, (b, (alpha,)))` with a Python float alpha leaky slope, all differentiated."""
    w, (b, (alpha,)) = p
    z = x @ w + b
    return np.sum(np.where(z > 0, z, alpha * z) ** 2)


# --- in-place updates on copies and data-dependent breaks ------------------------------------

def inplace_on_copy(x):
    """Updates on a copy (item, slice, augmented assignment, a fancy index) before a loss."""
    y = x.copy()
    y[0] = y[0] * 3.0
    y[1:4] *= 2.0
    y[-1] += y[0]
    y[[2, 5]] = np.sin(y[[2, 5]])
    return np.sum(y ** 2) + np.prod(y[:3])


def gradient_descent_until_small(w, a, b):
    """An inner solve of `min_z |A z - b|^2 + |z - w|^2` by gradient steps that stop when the
    step is small (a data-dependent `break`), then a loss on the solution."""
    z = w
    for _ in range(200):
        g = a.T @ (a @ z - b) + (z - w)
        z = z - 0.1 * g
        if np.linalg.norm(g) < 1e-8:
            break
    return np.sum(z ** 2)


def fixed_point_until_converged(w, b):
    """`x = tanh(W x + b)` iterated until the change is below a tolerance or 100 steps."""
    x = np.zeros(b.shape[0])
    for _ in range(100):
        new = np.tanh(w @ x + b)
        if np.max(np.abs(new - x)) < 1e-12:
            x = new
            break
        x = new
    return np.sum(x * np.arange(1, b.shape[0] + 1))


def discounted_returns_reinforce(w, states, actions, rewards, gamma=0.9):
    """REINFORCE: returns by a reversed Python loop over Python floats, normalised, times
    the log-probabilities of the actions taken."""
    returns = []
    running = 0.0
    for r in reversed(rewards):
        running = r + gamma * running
        returns.insert(0, running)
    returns = np.array(returns)
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    logp = log_softmax(states @ w, axis=1)[np.arange(len(actions)), actions]
    return -np.sum(logp * returns)


def vae_elbo(params, x, eps):
    """A Gaussian VAE's negative ELBO with a fixed noise sample: encoder mean and log
    variance, reparameterisation, Bernoulli decoder by `np.logaddexp`, analytic KL."""
    h = np.tanh(x @ params["enc"])
    mu, logvar = h @ params["mu"], h @ params["logvar"]
    z = mu + np.exp(0.5 * logvar) * eps
    logits = z @ params["dec"]
    recon = np.sum(np.logaddexp(0.0, logits) - x * logits, axis=1)
    kl = -0.5 * np.sum(1 + logvar - mu ** 2 - np.exp(logvar), axis=1)
    return np.mean(recon + kl)


_TOKENS = RNG.integers(0, 7, (3, 6))
_STATE = LSTMState(0.1 * _normal(3), 0.1 * _normal(3))

CASES = {
    "focal loss": (focal_loss, (_normal(4), _normal(12, 4), (RNG.uniform(size=12) < 0.4) * 1),
                   0, "autograd"),
    "triplet loss": (triplet_loss, (_normal(4, 3), _normal(8, 4), _normal(8, 4),
                                    _normal(8, 4)), 0, "autograd"),
    "contrastive loss": (contrastive_loss, (_normal(4, 3), _normal(8, 4), _normal(8, 4),
                                            (RNG.uniform(size=8) < 0.5) * 1.0), (0, 1),
                         "autograd"),
    "info nce": (info_nce, (_normal(5, 4), _normal(6, 5), _normal(6, 5)), (0, 1, 2),
                 "differences"),
    "masked sequence cross-entropy": (masked_sequence_xent,
                                      ({"emb": _normal(7, 4), "out": _normal(4, 7)}, _TOKENS,
                                       np.array([6, 3, 5])), 0, "differences"),
    "huber variants": (huber_variants, (_normal(3), _normal(15, 3), _normal(15) * 2), 0,
                       "autograd"),
    "ppo clipped surrogate": (ppo_clipped_surrogate, (_normal(4, 3), _normal(10, 4),
                                                      RNG.integers(0, 3, 10),
                                                      np.log(RNG.uniform(0.2, 0.5, 10)),
                                                      _normal(10)), 0, "autograd"),
    "multiclass hinge": (multiclass_hinge, (_normal(4, 3) * 0.3, _normal(9, 4),
                                            RNG.integers(0, 3, 9)), 0, "autograd"),
    "causal attention block": (causal_attention_block,
                               ({"g": 1 + 0.1 * _normal(4), "b": 0.1 * _normal(4),
                                 "wq": _normal(4, 4) * 0.5, "wk": _normal(4, 4) * 0.5,
                                 "wv": _normal(4, 4) * 0.5, "wo": _normal(4, 4) * 0.5},
                                _normal(5, 4)), (0, 1), "autograd"),
    "conv1d by slicing": (conv1d_by_slicing, (_normal(5), 0.1, _normal(12)), (0, 1, 2),
                          "autograd"),
    "gru over a sequence": (gru_sequence, ({k: _normal(*s) * 0.5 for k, s in
                                            [("wz", (2, 3)), ("uz", (3, 3)), ("wr", (2, 3)),
                                             ("ur", (3, 3)), ("wh", (2, 3)),
                                             ("uh", (3, 3))]}, _normal(6, 2), _normal(3)),
                            (0, 1), "autograd"),
    "lstm with a namedtuple state": (lstm_namedtuple_state, (_normal(5, 12) * 0.5,
                                                             _normal(4, 2), _STATE),
                                     (0, 1, 2), "autograd"),
    "embedding bag": (embedding_bag, ({"table": _normal(6, 3), "w": _normal(3), "b": 0.2},
                                      np.array([[0, 1, 1], [2, 5, 2], [0, 0, 0], [4, 3, 1]]),
                                      np.array([1.0, 0.0, 1.0, 0.0])), 0, "autograd"),
    "residual blocks": (residual_blocks, ([(_normal(4, 6) * 0.5, _normal(6, 4) * 0.5,
                                            1 + 0.1 * _normal(4)) for _ in range(2)], 0.7,
                                          _normal(3, 4)), (0, 1, 2), "autograd"),
    "max pool by reshape": (max_pool_by_reshape, (_normal(3, 8), _normal(5, 3)), (0, 1),
                            "autograd"),
    "logsumexp by maximum.reduce": (logsumexp_maximum_reduce, (_normal(4, 5) * 3,), 0,
                                    "differences"),
    "softplus by where": (softplus_where, (_normal(3) * 3, _normal(10, 3)), (0, 1),
                          "autograd"),
    "gmm full covariance": (gmm_full_covariance_2d, ({"means": _normal(3, 2),
                                                      "chol": 0.3 * _normal(3, 3),
                                                      "logits": _normal(3)},
                                                     _normal(10, 2)), 0, "autograd"),
    "heun lotka-volterra": (heun_lotka_volterra, (np.array([1.1, 0.4, 0.1, 0.4]),
                                                  np.array([2.0, 1.0])), (0, 1), "autograd"),
    "implicit euler by newton": (implicit_euler_newton, (0.8, np.array([0.5, 1.0, 1.5])),
                                 (0, 1), "autograd"),
    "kepler by newton": (kepler_newton, (0.3, np.array([0.2, 1.0, 2.5, 4.0])), (0, 1),
                         "autograd"),
    "spectral norm by power iteration": (spectral_norm_power_iteration,
                                         (_normal(4, 3), _normal(4)), (0, 1), "autograd"),
    "bilinear einsum": (bilinear_einsum, (_normal(3, 3) * 0.5, _normal(7, 3), _normal(7, 3)),
                        (0, 1, 2), "differences"),
    "transpose chain frobenius": (transpose_chain_frobenius, (_normal(4, 3), _normal(4, 3)),
                                  (0, 1), "autograd"),
    "second largest without sort": (second_largest_without_sort, (_normal(4, 5),), 0,
                                    "autograd"),
    "gini mean difference": (gini_mean_difference, (_normal(7),), 0, "autograd"),
    "dict of lists of tuples": (dict_of_lists_of_tuples,
                                ({"layers": [(_normal(4, 5) * 0.5, _normal(5) * 0.1),
                                             (_normal(5, 3) * 0.5, _normal(3) * 0.1)],
                                  "temperature": 1.5}, _normal(6, 4), RNG.integers(0, 3, 6)),
                                0, "autograd"),
    "namedtuple with nested tuples": (namedtuple_nested_tuple,
                                      (Head(_normal(3, 2), (_normal(2), (1.3, -0.2))),
                                       _normal(6, 3), _normal(6, 2)), 0, "autograd"),
    "nested tuples with python floats": (nested_tuples_with_floats,
                                         ((_normal(3, 4), (_normal(4), (0.1,))),
                                          _normal(6, 3)), (0, 1), "autograd"),
    "in-place updates on a copy": (inplace_on_copy, (_normal(7),), 0, "differences"),
    "gradient descent until small": (gradient_descent_until_small,
                                     (_normal(3), _normal(5, 3) * 0.5, _normal(5)), (0, 1, 2),
                                     "autograd"),
    "fixed point until converged": (fixed_point_until_converged, (_normal(4, 4) * 0.3,
                                                                  _normal(4)), (0, 1),
                                    "autograd"),
    "reinforce with discounted returns": (discounted_returns_reinforce,
                                          (_normal(3, 2), _normal(8, 3),
                                           RNG.integers(0, 2, 8),
                                           [1.0, 0.0, 0.5, 1.0, 0.0, 0.0, 2.0, 1.0]), 0,
                                          "autograd"),
    "vae elbo": (vae_elbo, ({"enc": _normal(6, 4) * 0.5, "mu": _normal(4, 2) * 0.5,
                             "logvar": _normal(4, 2) * 0.3, "dec": _normal(2, 6) * 0.5},
                            (RNG.uniform(size=(5, 6)) < 0.5) * 1.0, _normal(5, 2)), 0,
                 "autograd"),
    "float32 gru": (gru_sequence, ({k: _f32(*s) for k, s in
                                    [("wz", (2, 3)), ("uz", (3, 3)), ("wr", (2, 3)),
                                     ("ur", (3, 3)), ("wh", (2, 3)), ("uh", (3, 3))]},
                                   _f32(5, 2), _f32(3)), 0, "float32"),
    "float32 focal loss": (focal_loss, (_f32(4), _f32(12, 4),
                                        (RNG.uniform(size=12) < 0.4) * 1), 0, "float32"),
}
