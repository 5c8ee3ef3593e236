"""More differentiable NumPy programs written as their users write them: recurrent cells
unrolled over Python loops (RNN, LSTM, GRU), small convolutions (im2col and loops), attention
with padding masks and several heads, transformer blocks, Gaussian processes with ARD
lengths, mixture densities through logsumexp, robust and ranking losses, a VAE bound, count
models, ODEs integrated by RK4 in a loop, molecular energies and their forces, matrix
factorisation through embedding gathers, a Kalman filter over time, pytrees of dicts of lists
and namedtuples in dicts. Each gradient, by `ember.value_and_grad` and inside an
`ember.compile`d step, equals autograd's for the same code run on `autograd.numpy` (or central
differences in float64 where autograd has no rule): values, shapes and dtypes."""

from __future__ import annotations

from collections import namedtuple

import ember
import numpy as np
import pytest
from test_autodiff_stranger import (_on_autograd, assert_compiled_step_as_standalone,
                                    assert_trees_equal, reference)
import autograd

RNG = np.random.default_rng(77)


def _normal(*shape):
    return RNG.standard_normal(shape)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def softmax(z, axis=-1):
    e = np.exp(z - np.max(z, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def logsumexp(z, axis=-1):
    m = np.max(z, axis=axis, keepdims=True)
    return np.squeeze(m, axis) + np.log(np.sum(np.exp(z - m), axis=axis))


# --- recurrent models ------------------------------------------------------------------------

def rnn_regression(params, xs, y):
    h = np.zeros(params["wh"].shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ params["wx"] + h @ params["wh"] + params["b"])
    pred = h @ params["wo"]
    return np.mean((pred - y) ** 2)


def lstm_sequence_loss(params, xs, targets):
    n_hidden = params["wh"].shape[0]
    h = np.zeros((xs.shape[1], n_hidden))
    c = np.zeros_like(h)
    loss = 0.0
    for t in range(xs.shape[0]):
        gates = xs[t] @ params["wx"] + h @ params["wh"] + params["b"]
        i = sigmoid(gates[:, :n_hidden])
        f = sigmoid(gates[:, n_hidden:2 * n_hidden])
        o = sigmoid(gates[:, 2 * n_hidden:3 * n_hidden])
        g = np.tanh(gates[:, 3 * n_hidden:])
        c = f * c + i * g
        h = o * np.tanh(c)
        loss = loss + np.sum((h @ params["wy"] - targets[t]) ** 2)
    return loss / xs.shape[0]


def gru_final_state(w, xs):
    wz, wr, wn = w
    h = np.zeros(wz.shape[1])
    for x in xs:
        xh = np.concatenate([x, h])
        z = sigmoid(xh @ wz)
        r = sigmoid(xh @ wr)
        n = np.tanh(np.concatenate([x, r * h]) @ wn)
        h = (1 - z) * n + z * h
    return np.sum(h ** 2) + np.sum(np.abs(h))


# --- convolutions ----------------------------------------------------------------------------

def im2col_cnn(params, images, onehot):
    """A 3x3 valid convolution by im2col, ReLU, global average pooling, a dense softmax."""
    n, height, width = images.shape
    oh, ow = height - 2, width - 2
    patches = []
    for di in range(3):
        for dj in range(3):
            patches.append(images[:, di:di + oh, dj:dj + ow].reshape(n, oh * ow))
    cols = np.stack(patches, axis=-1)  # (n, positions, 9)
    feature_maps = np.maximum(cols @ params["kernels"] + params["bias"], 0.0)
    pooled = feature_maps.mean(axis=1)
    logits = pooled @ params["dense"]
    log_probs = logits - logsumexp(logits)[:, None]
    return -np.sum(log_probs * onehot) / n


def conv_by_loops(kernel, image):
    out_h, out_w = image.shape[0] - kernel.shape[0] + 1, image.shape[1] - kernel.shape[1] + 1
    total = 0.0
    for i in range(out_h):
        for j in range(out_w):
            window = image[i:i + kernel.shape[0], j:j + kernel.shape[1]]
            total = total + np.tanh(np.sum(window * kernel)) ** 2
    return total


# --- attention and transformer blocks --------------------------------------------------------

def padded_attention(wq, wk, wv, x, lengths):
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    keep = np.arange(x.shape[1])[None, None, :] < lengths[:, None, None]
    scores = np.where(keep, scores, -1e9)
    out = softmax(scores) @ v
    return np.sum(out ** 2)


def multi_head_attention(params, x):
    n, d = x.shape
    heads = 2
    dh = d // heads

    def split(z):
        return z.reshape(n, heads, dh).transpose((1, 0, 2))

    q, k, v = split(x @ params["wq"]), split(x @ params["wk"]), split(x @ params["wv"])
    weights = softmax(q @ k.transpose((0, 2, 1)) / np.sqrt(dh))
    merged = (weights @ v).transpose((1, 0, 2)).reshape(n, d)
    return np.sum(np.sin(merged @ params["wo"]))


def transformer_block(params, x):
    def norm(z, g, b):
        mu = z.mean(axis=-1, keepdims=True)
        var = ((z - mu) ** 2).mean(axis=-1, keepdims=True)
        return (z - mu) / np.sqrt(var + 1e-5) * g + b

    h = norm(x, params["g1"], params["b1"])
    attn = softmax(h @ h.T / np.sqrt(h.shape[1])) @ h
    x = x + attn
    h = norm(x, params["g2"], params["b2"])
    x = x + np.maximum(h @ params["w1"], 0.0) @ params["w2"]
    return np.mean(x ** 2)


# --- probabilistic models --------------------------------------------------------------------

def gp_ard_nll(log_lengths, log_noise, x, y):
    scaled = x / np.exp(log_lengths)
    sq = np.sum(scaled ** 2, axis=1)
    d2 = sq[:, None] + sq[None, :] - 2 * scaled @ scaled.T
    k = np.exp(-0.5 * np.maximum(d2, 0.0)) + np.exp(log_noise) * np.eye(x.shape[0])
    sign, logdet = np.linalg.slogdet(k)
    return 0.5 * y @ np.linalg.solve(k, y) + 0.5 * logdet


def mixture_density_nll(w, x, y):
    """A mixture density network head: weights, means and log scales of 3 Gaussians."""
    out = np.tanh(x) @ w
    logits, means, log_scales = out[:, :3], out[:, 3:6], out[:, 6:]
    log_weights = logits - logsumexp(logits)[:, None]
    z = (y[:, None] - means) / np.exp(log_scales)
    log_normal = -0.5 * z ** 2 - log_scales - 0.5 * np.log(2 * np.pi)
    return -np.mean(logsumexp(log_weights + log_normal, axis=1))


def vae_bound(params, x, eps):
    h = np.tanh(x @ params["enc"])
    mu, log_var = h @ params["mu"], h @ params["log_var"]
    z = mu + np.exp(0.5 * log_var) * eps
    recon = sigmoid(z @ params["dec"])
    log_lik = np.sum(x * np.log(recon + 1e-7) + (1 - x) * np.log(1 - recon + 1e-7))
    kl = -0.5 * np.sum(1 + log_var - mu ** 2 - np.exp(log_var))
    return -(log_lik - kl) / x.shape[0]


def poisson_regression(beta, x, counts):
    eta = x @ beta
    return np.sum(np.exp(eta) - counts * eta) + 0.1 * np.sum(beta ** 2)


# --- losses ----------------------------------------------------------------------------------

def robust_losses(w, x, y):
    r = x @ w - y
    pseudo_huber = np.sum(np.sqrt(1 + r ** 2) - 1)
    log_cosh = np.sum(np.log(np.cosh(r)))
    tau = 0.3
    pinball = np.sum(np.maximum(tau * r, (tau - 1) * r))
    return pseudo_huber + log_cosh + pinball


def label_smoothing_and_kl(w, x, labels):
    logits = x @ w
    log_p = logits - logsumexp(logits)[:, None]
    k = w.shape[1]
    smooth = 0.9 * labels + 0.1 / k
    ce = -np.mean(np.sum(smooth * log_p, axis=1))
    teacher = softmax(x @ np.ones_like(w) * 0.1)
    kl = np.sum(teacher * (np.log(teacher) - log_p)) / x.shape[0]
    return ce + kl


def triplet_and_contrastive(w, anchors, positives, negatives):
    a, p, n = anchors @ w, positives @ w, negatives @ w
    d_ap = np.sum((a - p) ** 2, axis=1)
    d_an = np.sum((a - n) ** 2, axis=1)
    triplet = np.mean(np.maximum(d_ap - d_an + 1.0, 0.0))
    logistic = np.mean(np.logaddexp(0.0, -(d_an - d_ap)))
    return triplet + logistic


def total_variation(u, noisy):
    dx = np.diff(u, axis=1)
    dy = np.diff(u, axis=0)
    tv = np.sum(np.sqrt(dx[:-1, :] ** 2 + dy[:, :-1] ** 2 + 1e-3))
    return 0.5 * np.sum((u - noisy) ** 2) + 0.2 * tv


# --- ODEs and physics ------------------------------------------------------------------------

def lotka_volterra_rk4(theta, y0):
    def f(y):
        prey, predator = y[0], y[1]
        return np.array([theta[0] * prey - theta[1] * prey * predator,
                         theta[2] * prey * predator - theta[3] * predator])

    y, dt = y0, 0.05
    for _ in range(20):
        k1 = f(y)
        k2 = f(y + 0.5 * dt * k1)
        k3 = f(y + 0.5 * dt * k2)
        k4 = f(y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return np.sum((y - np.array([1.0, 0.5])) ** 2)


def morse_energy(positions):
    diff = positions[:, None, :] - positions[None, :, :]
    i, j = np.triu_indices(positions.shape[0], 1)
    r = np.sqrt(np.sum(diff[i, j] ** 2, axis=-1))
    return np.sum((1 - np.exp(-1.5 * (r - 1.0))) ** 2)


def bonds_and_angles(positions):
    bonds = positions[1:] - positions[:-1]
    lengths = np.linalg.norm(bonds, axis=1)
    stretch = np.sum((lengths - 1.0) ** 2)
    cosines = np.sum(bonds[1:] * bonds[:-1], axis=1) / (lengths[1:] * lengths[:-1])
    bend = np.sum((cosines - 0.5) ** 2)
    return stretch + 0.5 * bend


def matrix_factorisation(factors, users, items, ratings):
    u, v = factors["users"], factors["items"]
    predicted = np.sum(u[users] * v[items], axis=1)
    return np.mean((predicted - ratings) ** 2) + 0.01 * (np.sum(u ** 2) + np.sum(v ** 2))


def kalman_filter_nll(params, zs):
    a, q, r = params
    mean, var = 0.0, 1.0
    nll = 0.0
    for z in zs:
        mean, var = a * mean, a * a * var + q
        s = var + r
        nll = nll + 0.5 * (np.log(2 * np.pi * s) + (z - mean) ** 2 / s)
        gain = var / s
        mean, var = mean + gain * (z - mean), (1 - gain) * var
    return nll


# --- pytrees ---------------------------------------------------------------------------------

Layer = namedtuple("Layer", ["w", "b"])


def mlp_dict_of_lists(params, x, y):
    h = x
    for w, b in zip(params["weights"], params["biases"]):
        h = np.tanh(h @ w + b)
    return np.mean((h @ params["head"] - y) ** 2)


def namedtuples_in_a_dict(model, x):
    h = np.maximum(x @ model["encoder"].w + model["encoder"].b, 0.0)
    out = h @ model["decoder"].w + model["decoder"].b
    return np.sum((out - x) ** 2) * model["scale"]


def weight_decay_cross_entropy(params, x, labels):
    logits = np.tanh(x @ params[0]) @ params[1]
    log_p = logits - logsumexp(logits)[:, None]
    nll = -np.mean(log_p[np.arange(x.shape[0]), labels])
    return nll + 1e-2 * sum(np.sum(p ** 2) for p in params)


# --- the cases -------------------------------------------------------------------------------

_SEQ = _normal(5, 3)
_IMAGES = RNG.uniform(0, 1, (3, 6, 6))
_LABELS3 = np.eye(3)[RNG.integers(0, 3, 3)]
_LABELS4 = np.eye(4)[RNG.integers(0, 4, 6)]

CASES = {
    "rnn over a python loop": (rnn_regression, ({"wx": _normal(3, 4) * 0.5,
                                                 "wh": _normal(4, 4) * 0.5, "b": _normal(4),
                                                 "wo": _normal(4)}, _SEQ, 0.3), 0, "autograd"),
    "lstm over a python loop": (lstm_sequence_loss, ({"wx": _normal(3, 8) * 0.5,
                                                      "wh": _normal(2, 8) * 0.5,
                                                      "b": _normal(8), "wy": _normal(2, 1)},
                                                     _normal(4, 2, 3), _normal(4, 2, 1)),
                                0, "autograd"),
    "gru over a python loop": (gru_final_state, ((_normal(5, 2), _normal(5, 2), _normal(5, 2)),
                                                 _SEQ), 0, "autograd"),
    "cnn by im2col": (im2col_cnn, ({"kernels": _normal(9, 4), "bias": _normal(4),
                                    "dense": _normal(4, 3)}, _IMAGES, _LABELS3), 0,
                      "autograd"),
    "convolution by loops": (conv_by_loops, (_normal(3, 3) * 0.5, _normal(5, 5)), (0, 1),
                             "autograd"),
    "attention with a padding mask": (padded_attention,
                                      (_normal(3, 4), _normal(3, 4), _normal(3, 4),
                                       _normal(2, 5, 3), np.array([3, 5])), (0, 1, 2, 3),
                                      "autograd"),
    "multi-head attention": (multi_head_attention, ({"wq": _normal(4, 4), "wk": _normal(4, 4),
                                                     "wv": _normal(4, 4),
                                                     "wo": _normal(4, 4)}, _normal(5, 4)),
                             0, "autograd"),
    "transformer block": (transformer_block, ({"g1": 1 + 0.1 * _normal(4), "b1": _normal(4),
                                               "g2": 1 + 0.1 * _normal(4), "b2": _normal(4),
                                               "w1": _normal(4, 8), "w2": _normal(8, 4)},
                                              _normal(5, 4)), 0, "autograd"),
    "gp with ard lengths": (gp_ard_nll, (np.array([0.1, -0.2]), -1.0, _normal(6, 2),
                                         _normal(6)), (0, 1), "autograd"),
    "mixture density": (mixture_density_nll, (_normal(2, 9) * 0.5, _normal(7, 2), _normal(7)),
                        0, "autograd"),
    "vae bound": (vae_bound, ({"enc": _normal(5, 4), "mu": _normal(4, 2),
                               "log_var": _normal(4, 2) * 0.3, "dec": _normal(2, 5)},
                              RNG.uniform(0, 1, (3, 5)), _normal(3, 2)), 0, "autograd"),
    "poisson regression": (poisson_regression, (_normal(3) * 0.3, _normal(8, 3),
                                                RNG.poisson(2.0, 8).astype(float)), 0,
                           "autograd"),
    "robust losses": (robust_losses, (_normal(3), _normal(9, 3), _normal(9)), 0, "autograd"),
    "label smoothing and kl": (label_smoothing_and_kl, (_normal(3, 4), _normal(6, 3),
                                                        _LABELS4), 0, "autograd"),
    "triplet and contrastive": (triplet_and_contrastive, (_normal(4, 3), _normal(5, 4),
                                                          _normal(5, 4), _normal(5, 4)),
                                0, "autograd"),
    "total variation": (total_variation, (_normal(4, 5), _normal(4, 5)), 0, "autograd"),
    "lotka-volterra by rk4": (lotka_volterra_rk4, (np.array([1.1, 0.4, 0.3, 0.9]),
                                                   np.array([1.2, 0.8])), (0, 1), "autograd"),
    "morse energy, forces": (morse_energy, (np.array([[0.0, 0.0, 0.1], [1.1, 0.1, 0.0],
                                                      [0.3, 1.2, 0.2], [1.2, 1.3, 0.9]]),),
                             0, "autograd"),
    "bonds and angles, forces": (bonds_and_angles, (np.cumsum(_normal(5, 3), axis=0),), 0,
                                 "autograd"),
    "matrix factorisation": (matrix_factorisation, ({"users": _normal(4, 2),
                                                     "items": _normal(3, 2)},
                                                    np.array([0, 1, 1, 3, 2, 0]),
                                                    np.array([2, 0, 1, 1, 2, 2]),
                                                    _normal(6)), 0, "autograd"),
    "kalman filter over time": (kalman_filter_nll, ((0.9, 0.2, 0.5), _normal(6)), 0,
                                "autograd"),
    "mlp over a dict of lists": (mlp_dict_of_lists, ({"weights": [_normal(3, 4), _normal(4, 4)],
                                                      "biases": [_normal(4), _normal(4)],
                                                      "head": _normal(4, 1)},
                                                     _normal(6, 3), _normal(6, 1)), 0,
                                 "autograd"),
    "weight decay over a list": (weight_decay_cross_entropy, ([_normal(3, 4), _normal(4, 3)],
                                                              _normal(6, 3),
                                                              RNG.integers(0, 3, 6)), 0,
                                 "autograd"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_equal_the_references(name):
    fn, args, argnums, how = CASES[name]
    value, got = ember.value_and_grad(fn, argnums=argnums)(*args)
    np.testing.assert_allclose(value, fn(*args), rtol=1e-10)
    tolerance = dict(rtol=1e-7, atol=1e-9) if how == "autograd" else dict(rtol=1e-5, atol=1e-6)
    assert_trees_equal(got, reference(CASES[name]), **tolerance)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_inside_a_compiled_step(name):
    fn, args, argnums, _ = CASES[name]
    assert_compiled_step_as_standalone(fn, args, argnums)


def test_has_aux_with_an_argnums_tuple():
    def loss(params, x, y):
        pred = np.tanh(x @ params["w"]) @ params["v"]
        err = pred - y
        return np.mean(err ** 2), {"max_error": np.max(np.abs(err)), "pred": pred}

    params, x, y = {"w": _normal(3, 4), "v": _normal(4)}, _normal(6, 3), _normal(6)
    (value, aux), (g_params, g_y) = ember.value_and_grad(loss, argnums=(0, 2),
                                                         has_aux=True)(params, x, y)
    np.testing.assert_allclose(value, loss(params, x, y)[0], rtol=1e-12)
    np.testing.assert_allclose(aux["pred"], loss(params, x, y)[1]["pred"], rtol=1e-12)
    want = reference((lambda p, x, y: loss(p, x, y)[0], (params, x, y), (0, 2), "differences"))
    assert_trees_equal((g_params, g_y), want, rtol=1e-5, atol=1e-6)


def test_namedtuples_inside_a_dict():
    """autograd knows no namedtuples: its side gets plain tuples, rebuilt inside."""
    model = {"encoder": Layer(_normal(4, 3), _normal(3)), "decoder": Layer(_normal(3, 4),
                                                                           _normal(4)),
             "scale": 0.5}
    x = _normal(5, 4)
    value, got = ember.value_and_grad(namedtuples_in_a_dict)(model, x)
    np.testing.assert_allclose(value, namedtuples_in_a_dict(model, x), rtol=1e-12)
    on_autograd = _on_autograd(namedtuples_in_a_dict)

    def plain(m, x):
        return on_autograd({"encoder": Layer(m["encoder"][0], m["encoder"][1]),
                            "decoder": Layer(m["decoder"][0], m["decoder"][1]),
                            "scale": m["scale"]}, x)

    want = autograd.grad(plain)({k: tuple(v) if isinstance(v, Layer) else v
                                 for k, v in model.items()}, x)
    want = {k: Layer(*v) if isinstance(v, tuple) else v for k, v in want.items()}
    assert_trees_equal(got, want, rtol=1e-9, atol=1e-12)
    compiled_value, compiled = ember.compile(
        lambda m, x: ember.value_and_grad(namedtuples_in_a_dict)(m, x))(model, x)
    np.testing.assert_allclose(compiled_value, value, rtol=1e-12)
    assert_trees_equal(compiled, got, rtol=1e-9, atol=1e-12)


def test_floats_inside_a_tuple_carry_gradients():
    """A tuple of Python floats is a pytree of float leaves, never one constant (its
    gradient would be silently zero)."""
    def loss(p, zs):
        a, (b, c) = p
        total = 0.0
        for z in zs:
            total = total + np.sin(a * z) * b + c * z
        return total

    zs = np.array([0.5, 1.5, -1.0])
    p = (0.7, (2.0, -0.3))
    want = ((np.sum(np.cos(0.7 * zs) * zs * 2.0)), (np.sum(np.sin(0.7 * zs)), np.sum(zs)))
    got = ember.grad(loss)(p, zs)
    assert_trees_equal(got, want, rtol=1e-12, atol=1e-12)
    compiled = ember.compile(lambda p, zs: ember.grad(loss)(p, zs))(p, zs)
    assert_trees_equal(compiled, want, rtol=1e-12, atol=1e-12)


def test_many_pairs_by_triu_indices_equal_autograd():
    """`np.triu_indices` of 20 particles (190 pairs, more than capture builds as constants)
    runs in NumPy: a call on constants alone, whose result carries no gradient anyway."""
    def pair_energy(p):
        d = p[:, None, :] - p[None, :, :]
        i, j = np.triu_indices(p.shape[0], 1)
        return np.sum(np.exp(-np.sum(d[i, j] ** 2, axis=-1)))

    x = RNG.uniform(0, 2, (20, 3))
    assert_trees_equal(ember.grad(pair_energy)(x),
                       reference((pair_energy, (x,), 0, "autograd")), rtol=1e-9, atol=1e-12)


def test_an_index_computed_in_python_is_refused_not_a_zero_gradient():
    """Indexing with index arrays capture cannot build (`np.nonzero`'s, here) would run in
    Python, unseen: refused, never a zero gradient."""
    def pair_energy(p):
        d = p[:, None] - p[None, :]
        i, j = np.nonzero(np.triu(np.ones((p.shape[0], p.shape[0])), 1))
        return np.sum(d[i, j] ** 2)

    with pytest.raises(ember.GraphBreakError, match="cannot run this in Python"):
        ember.grad(pair_energy)(np.arange(5.0))
