"""More differentiable NumPy programs of kinds the other corpora lack, written as their users
write them: Gaussian-process marginal likelihoods by Cholesky over kernel hyperparameters,
mixture-model log-likelihoods by logsumexp, HMM (`np.logaddexp.reduce` too) and linear-chain CRF forward algorithms in a
loop, an LSTM over a sequence loop, a transformer block (attention, layer norm, GELU), the Cox
partial likelihood (reversed cumsum), Sinkhorn iterations, Black-Scholes prices (their greeks
are checked against the closed forms in the test file) and float32 parameters in dicts of lists.

Each case is `(function, arguments, argnums, how)` as in `autodiff_users_cases`."""

from __future__ import annotations

import math

import numpy as np

RNG = np.random.default_rng(27182)


def _normal(*shape):
    return RNG.standard_normal(shape)


def logsumexp(z, axis=-1):
    m = np.max(z, axis=axis, keepdims=True)
    return np.squeeze(m, axis) + np.log(np.sum(np.exp(z - m), axis=axis))


# --- Gaussian processes ----------------------------------------------------------------------

def gp_neg_log_marginal(log_params, x, y):
    """RBF kernel with log length scale, log signal and log noise variance; the negative log
    marginal likelihood through the Cholesky factor and two triangular solves."""
    length, signal, noise = np.exp(log_params[0]), np.exp(log_params[1]), np.exp(log_params[2])
    sq = np.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1)
    k = signal * np.exp(-0.5 * sq / length ** 2) + (noise + 1e-6) * np.eye(x.shape[0])
    chol = np.linalg.cholesky(k)
    alpha = np.linalg.solve(chol.T, np.linalg.solve(chol, y))
    return (0.5 * y @ alpha + np.sum(np.log(np.diag(chol)))
            + 0.5 * x.shape[0] * np.log(2 * np.pi))


def gp_ard_nll(hyp, x, y):
    """Automatic relevance determination: one length scale per input dimension, given in a
    dict; the data fit by `inv` of the factor, the log-determinant by `slogdet`."""
    scaled = x / np.exp(hyp["log_ls"])
    norms = np.sum(scaled ** 2, axis=1)
    sq = norms[:, None] + norms[None, :] - 2.0 * scaled @ scaled.T
    k = np.exp(2 * hyp["log_sf"]) * np.exp(-0.5 * np.maximum(sq, 0.0))
    k = k + np.exp(2 * hyp["log_sn"]) * np.eye(len(y))
    l_inv = np.linalg.inv(np.linalg.cholesky(k))
    z = l_inv @ y
    sign, logdet = np.linalg.slogdet(k)
    return 0.5 * np.dot(z, z) + 0.5 * logdet


def gp_matern_predictive(log_ls, x, y, x_star):
    """A Matern-3/2 kernel and the posterior mean at test points, fitted to targets there."""
    def matern(a, b):
        d = np.sqrt(np.sum((a[:, None] - b[None]) ** 2, axis=-1) + 1e-12) / np.exp(log_ls)
        return (1 + np.sqrt(3.0) * d) * np.exp(-np.sqrt(3.0) * d)

    chol = np.linalg.cholesky(matern(x, x) + 0.1 * np.eye(len(x)))
    weights = np.linalg.solve(chol.T, np.linalg.solve(chol, y))
    mean = matern(x_star, x) @ weights
    return np.sum((mean - np.sin(x_star[:, 0])) ** 2)


# --- mixtures --------------------------------------------------------------------------------

def gmm_log_likelihood(params, x):
    """A diagonal Gaussian mixture: softmax weights, log standard deviations."""
    logits, means, log_sd = params["logits"], params["means"], params["log_sd"]
    log_w = logits - logsumexp(logits, axis=0)
    diff = (x[:, None, :] - means[None, :, :]) / np.exp(log_sd)[None]
    comp = -0.5 * np.sum(diff ** 2, axis=2) - np.sum(log_sd, axis=1) \
        - 0.5 * x.shape[1] * np.log(2 * np.pi)
    return -np.mean(logsumexp(log_w + comp, axis=1))


def poisson_mixture_nll(log_rates, weight_logits, counts):
    """A mixture of Poissons, `np.logaddexp.reduce`-free: the max trick written inline."""
    rates = np.exp(log_rates)
    log_w = weight_logits - np.log(np.sum(np.exp(weight_logits)))
    log_p = counts[:, None] * log_rates[None, :] - rates[None, :] + log_w[None, :]
    m = log_p.max(axis=1, keepdims=True)
    return -np.sum(m[:, 0] + np.log(np.exp(log_p - m).sum(axis=1)))


def mixture_of_experts(params, x, y):
    """Gated experts: a softmax gate over linear experts, the likelihood of a Gaussian
    mixture with the experts' predictions as means."""
    gate = x @ params[0]
    gate = gate - logsumexp(gate, axis=1)[:, None]
    preds = x @ params[1]
    resid = y[:, None] - preds
    return -np.mean(logsumexp(gate - 0.5 * resid ** 2, axis=1))


# --- sequence models -------------------------------------------------------------------------

def hmm_forward(log_trans, log_emit, log_start, obs):
    """The log-space forward algorithm of a hidden Markov model over an observation
    sequence, one step per observation."""
    alpha = log_start + log_emit[:, obs[0]]
    for t in range(1, len(obs)):
        alpha = logsumexp(alpha[:, None] + log_trans, axis=0) + log_emit[:, obs[t]]
    return logsumexp(alpha, axis=0)


def hmm_logaddexp_reduce(log_trans, log_emit, obs):
    """The forward recursion by `np.logaddexp.reduce` over the previous state's axis."""
    alpha = log_emit[:, obs[0]] - np.log(log_trans.shape[0])
    for o in obs[1:]:
        alpha = np.logaddexp.reduce(alpha[:, None] + log_trans, axis=0) + log_emit[:, o]
    return -np.logaddexp.reduce(alpha)


def hmm_scaled_forward(trans_logits, emit_logits, obs):
    """The forward algorithm in probability space with per-step normalisation; rows made
    stochastic by a softmax."""
    trans = np.exp(trans_logits)
    trans = trans / trans.sum(axis=1, keepdims=True)
    emit = np.exp(emit_logits)
    emit = emit / emit.sum(axis=1, keepdims=True)
    alpha = np.ones(trans.shape[0]) / trans.shape[0] * emit[:, obs[0]]
    log_like = 0.0
    for o in obs[1:]:
        scale = np.sum(alpha)
        log_like = log_like + np.log(scale)
        alpha = (alpha / scale) @ trans * emit[:, o]
    return -(log_like + np.log(np.sum(alpha)))


def crf_nll(params, features, tags):
    """A linear-chain CRF: unary scores from features, a transition matrix; the partition
    function by the forward recursion, the gold path's score by indexing."""
    unary = features @ params["w"]
    trans = params["trans"]
    alpha = unary[0]
    for t in range(1, unary.shape[0]):
        alpha = logsumexp(alpha[:, None] + trans, axis=0) + unary[t]
    log_z = logsumexp(alpha, axis=0)
    gold = np.sum(unary[np.arange(len(tags)), tags]) + np.sum(trans[tags[:-1], tags[1:]])
    return log_z - gold


def lstm_sequence_loss(params, xs, target):
    """An LSTM cell run over a sequence, gates split from one product, the last hidden state
    read out."""
    wx, wh, b, w_out = params
    n = wh.shape[0]
    h = np.zeros(n)
    c = np.zeros(n)
    for x in xs:
        z = x @ wx + h @ wh + b
        i = 1 / (1 + np.exp(-z[:n]))
        f = 1 / (1 + np.exp(-z[n:2 * n]))
        o = 1 / (1 + np.exp(-z[2 * n:3 * n]))
        g = np.tanh(z[3 * n:])
        c = f * c + i * g
        h = o * np.tanh(c)
    return np.sum((h @ w_out - target) ** 2)


def lstm_batched_stacked(weights, xs):
    """A batched LSTM, separate gate matrices in a dict, hidden states stacked then pooled."""
    batch = xs.shape[1]
    h = np.zeros((batch, weights["wi"].shape[1]))
    c = np.zeros_like(h)
    outs = []
    for t in range(xs.shape[0]):
        inp = np.concatenate([xs[t], h], axis=1)
        i = 0.5 * (1 + np.tanh(0.5 * (inp @ weights["wi"])))
        f = 0.5 * (1 + np.tanh(0.5 * (inp @ weights["wf"] + 1.0)))
        g = np.tanh(inp @ weights["wg"])
        c = f * c + i * g
        h = np.tanh(c)
        outs.append(h)
    return np.mean(np.stack(outs) ** 2)


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def layer_norm(x, g, b, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return g * (x - mu) / np.sqrt(var + eps) + b


def transformer_block(p, x):
    """Pre-norm single-head attention with a causal mask, then a GELU MLP, both residual."""
    t, d = x.shape
    h = layer_norm(x, p["ln1_g"], p["ln1_b"])
    q, k, v = h @ p["wq"], h @ p["wk"], h @ p["wv"]
    scores = q @ k.T / np.sqrt(d)
    scores = np.where(np.tril(np.ones((t, t))) > 0, scores, -1e9)
    scores = scores - scores.max(axis=-1, keepdims=True)
    att = np.exp(scores)
    att = att / att.sum(axis=-1, keepdims=True)
    x = x + (att @ v) @ p["wo"]
    h = layer_norm(x, p["ln2_g"], p["ln2_b"])
    x = x + gelu(h @ p["w1"]) @ p["w2"]
    return np.mean(x ** 2)


def multi_head_attention(w, x):
    """Several heads by reshape and transpose, `np.einsum` for the scores, erf-free GELU."""
    t, d = x.shape
    heads = 2
    qkv = (x @ w["qkv"]).reshape(t, 3, heads, d // heads).transpose((1, 2, 0, 3))
    q, k, v = qkv[0], qkv[1], qkv[2]
    s = np.einsum("htd,hsd->hts", q, k) / math.sqrt(d // heads)
    s = np.exp(s - np.max(s, axis=-1, keepdims=True))
    a = s / np.sum(s, axis=-1, keepdims=True)
    out = np.einsum("hts,hsd->htd", a, v).transpose((1, 0, 2)).reshape(t, d)
    y = out @ w["o"]
    y = y * 1 / (1 + np.exp(-1.702 * y))
    return np.sum(y)


# --- survival and transport ------------------------------------------------------------------

def cox_partial_likelihood(beta, x, times, events):
    """Breslow's partial likelihood: risk sets by sorting on time and a reversed cumsum."""
    order = np.argsort(times)
    eta = x[order] @ beta
    risk = np.log(np.cumsum(np.exp(eta)[::-1])[::-1])
    return -np.sum((eta - risk) * events[order])


def cox_stable(beta, x, events):
    """Rows already sorted by time; the risk set's log-sum by a max shift and a flipped
    cumulative sum."""
    eta = x @ beta
    m = np.max(eta)
    risk = m + np.log(np.flip(np.cumsum(np.flip(np.exp(eta - m)))))
    return -np.mean(events * (eta - risk))


def cox_logaddexp_accumulate(beta, x, events):
    """Rows sorted by time; each risk set's log-sum by `np.logaddexp.accumulate` from the end."""
    eta = x @ beta
    log_risk = np.logaddexp.accumulate(eta[::-1])[::-1]
    return -np.sum(events * (eta - log_risk))


def sinkhorn_cost(log_a, cost, eps=0.5, iters=30):
    """Entropic optimal transport between softmax(log_a) and a uniform target by Sinkhorn's
    scaling iterations; the transport cost of the plan."""
    a = np.exp(log_a) / np.sum(np.exp(log_a))
    b = np.ones(cost.shape[1]) / cost.shape[1]
    k = np.exp(-cost / eps)
    u = np.ones_like(a)
    for _ in range(iters):
        v = b / (k.T @ u)
        u = a / (k @ v)
    plan = u[:, None] * k * v[None, :]
    return np.sum(plan * cost)


def sinkhorn_log_domain(x, y, eps=0.3):
    """Log-domain Sinkhorn between two point clouds, the cost from their coordinates, 20
    iterations of dual updates by logsumexp."""
    cost = np.sum((x[:, None, :] - y[None, :, :]) ** 2, axis=-1)
    n, m = cost.shape
    f, g = np.zeros(n), np.zeros(m)
    for _ in range(20):
        f = -eps * logsumexp((g[None, :] - cost) / eps, axis=1) - eps * np.log(m)
        g = -eps * logsumexp((f[:, None] - cost) / eps, axis=0) - eps * np.log(n)
    return np.mean(f) + np.mean(g)


# --- finance ---------------------------------------------------------------------------------

def _erf(x):
    """erf by its Maclaurin series (40 terms: exact to float64 rounding for |x| < 2.5)."""
    total = np.zeros_like(x)
    term = x
    for n in range(40):
        total = total + term / (2 * n + 1)
        term = -term * x * x / (n + 1)
    return 2 / np.sqrt(np.pi) * total


def black_scholes_call(spot, strike, rate, vol, tau):
    d1 = (np.log(spot / strike) + (rate + 0.5 * vol ** 2) * tau) / (vol * np.sqrt(tau))
    d2 = d1 - vol * np.sqrt(tau)
    cdf = lambda z: 0.5 * (1 + _erf(z / np.sqrt(2)))  # noqa: E731
    return np.sum(spot * cdf(d1) - strike * np.exp(-rate * tau) * cdf(d2))


def black_scholes_put_book(params, strikes):
    """A book of puts at several strikes priced from one spot and volatility in a dict."""
    s, v = params["spot"], params["vol"]
    tau, r = 0.75, 0.02
    d1 = (np.log(s / strikes) + (r + v * v / 2) * tau) / (v * tau ** 0.5)
    d2 = d1 - v * tau ** 0.5
    cdf = lambda z: 0.5 * (1 + _erf(z / 2 ** 0.5))  # noqa: E731
    return np.sum(strikes * np.exp(-r * tau) * cdf(-d2) - s * cdf(-d1))


# --- float32 parameters in dicts of lists ----------------------------------------------------

def float32_layers_in_dict(params, x, y):
    """Weights and biases as lists under two keys, float32 throughout."""
    h = x
    for w, b in zip(params["weights"][:-1], params["biases"][:-1]):
        h = np.tanh(h @ w + b)
    out = h @ params["weights"][-1] + params["biases"][-1]
    return np.mean((out[:, 0] - y) ** 2)


def float32_embedding_softmax(params, tokens, labels):
    """float32 embeddings and a classifier in a dict of lists, cross-entropy by logsumexp."""
    emb = params["tables"][0][tokens].mean(axis=1)
    logits = emb @ params["tables"][1] + params["bias"][0]
    return np.mean(logsumexp(logits, axis=1) - logits[np.arange(len(labels)), labels])


def _f32(*shape):
    return (_normal(*shape) * 0.5).astype(np.float32)


_GP_X = RNG.uniform(-2, 2, (8, 2))
_GP_Y = np.sin(_GP_X[:, 0]) + 0.1 * _normal(8)
_T, _D = 4, 4

CASES = {
    "gp marginal likelihood": (gp_neg_log_marginal, (np.array([0.1, -0.2, -1.5]), _GP_X,
                                                     _GP_Y), 0, "autograd"),
    "gp ard by inv and slogdet": (gp_ard_nll, ({"log_ls": np.array([0.2, -0.1]),
                                                "log_sf": 0.1, "log_sn": -1.0}, _GP_X, _GP_Y),
                                  0, "autograd"),
    "gp matern predictive": (gp_matern_predictive, (0.3, _GP_X[:6], _GP_Y[:6], _GP_X[6:]),
                             (0, 1), "autograd"),
    "gaussian mixture": (gmm_log_likelihood, ({"logits": _normal(3), "means": _normal(3, 2),
                                               "log_sd": 0.2 * _normal(3, 2)}, _normal(10, 2)),
                         0, "autograd"),
    "poisson mixture": (poisson_mixture_nll, (np.array([0.1, 1.2, 2.0]), _normal(3),
                                              RNG.poisson(3.0, 12).astype(float)), (0, 1),
                        "autograd"),
    "mixture of experts": (mixture_of_experts, ([_normal(3, 2), _normal(3, 2)], _normal(9, 3),
                                                _normal(9)), 0, "autograd"),
    "hmm forward": (hmm_forward, (np.log(RNG.dirichlet(np.ones(3), 3)),
                                  np.log(RNG.dirichlet(np.ones(4), 3)), np.log(np.ones(3) / 3),
                                  np.array([0, 2, 1, 3, 3, 0, 1])), (0, 1, 2), "autograd"),
    "hmm by logaddexp.reduce": (hmm_logaddexp_reduce, (_normal(3, 3), _normal(3, 4),
                                                       np.array([2, 0, 1, 3, 1])), (0, 1),
                                "differences"),
    "hmm scaled forward": (hmm_scaled_forward, (_normal(3, 3), _normal(3, 4),
                                                np.array([1, 0, 3, 2, 2, 1])), (0, 1),
                           "autograd"),
    "linear-chain crf": (crf_nll, ({"w": _normal(3, 4), "trans": _normal(4, 4)},
                                   _normal(6, 3), np.array([0, 1, 1, 3, 2, 0])), 0, "autograd"),
    "lstm over a sequence": (lstm_sequence_loss, ((_normal(2, 12) * 0.5, _normal(3, 12) * 0.5,
                                                   _normal(12) * 0.1, _normal(3, 2)),
                                                  _normal(5, 2), _normal(2)), 0, "autograd"),
    "batched lstm in a dict": (lstm_batched_stacked, ({"wi": _normal(5, 3) * 0.5,
                                                       "wf": _normal(5, 3) * 0.5,
                                                       "wg": _normal(5, 3) * 0.5},
                                                      _normal(4, 2, 2)), (0, 1), "autograd"),
    "transformer block": (transformer_block, ({"ln1_g": 1 + 0.1 * _normal(_D),
                                               "ln1_b": 0.1 * _normal(_D),
                                               "wq": _normal(_D, _D) * 0.5,
                                               "wk": _normal(_D, _D) * 0.5,
                                               "wv": _normal(_D, _D) * 0.5,
                                               "wo": _normal(_D, _D) * 0.5,
                                               "ln2_g": 1 + 0.1 * _normal(_D),
                                               "ln2_b": 0.1 * _normal(_D),
                                               "w1": _normal(_D, 8) * 0.5,
                                               "w2": _normal(8, _D) * 0.5}, _normal(_T, _D)),
                          (0, 1), "autograd"),
    "multi-head attention": (multi_head_attention, ({"qkv": _normal(4, 12) * 0.5,
                                                     "o": _normal(4, 4) * 0.5},
                                                    _normal(5, 4)), (0, 1), "autograd"),
    "cox partial likelihood": (cox_partial_likelihood, (_normal(3) * 0.3, _normal(10, 3),
                                                        RNG.exponential(1.0, 10),
                                                        (RNG.uniform(size=10) < 0.7) * 1.0),
                               (0, 1), "autograd"),
    "cox by flips": (cox_stable, (_normal(3) * 0.3, _normal(9, 3),
                                  (RNG.uniform(size=9) < 0.6) * 1.0), (0, 1), "differences"),
    "cox by logaddexp.accumulate": (cox_logaddexp_accumulate,
                                    (_normal(3) * 0.3, _normal(8, 3),
                                     (RNG.uniform(size=8) < 0.6) * 1.0), (0, 1), "differences"),
    "sinkhorn scaling": (sinkhorn_cost, (_normal(4) * 0.3, RNG.uniform(0, 1, (4, 5))), (0, 1),
                         "autograd"),
    "sinkhorn log domain": (sinkhorn_log_domain, (_normal(4, 2), _normal(5, 2)), (0, 1),
                            "autograd"),
    "black-scholes call": (black_scholes_call, (100.0, 95.0, 0.03, 0.25, 0.5), (0, 1, 2, 3, 4),
                           "autograd"),
    "black-scholes put book": (black_scholes_put_book, ({"spot": 50.0, "vol": 0.3},
                                                        np.array([45.0, 50.0, 55.0])), 0,
                               "autograd"),
    "float32 layers in a dict of lists": (float32_layers_in_dict,
                                          ({"weights": [_f32(3, 5), _f32(5, 4), _f32(4, 1)],
                                            "biases": [_f32(5), _f32(4), _f32(1)]},
                                           _f32(7, 3), _f32(7)), 0, "float32"),
    "float32 embedding softmax": (float32_embedding_softmax,
                                  ({"tables": [_f32(10, 4), _f32(4, 3)], "bias": [_f32(3)]},
                                   RNG.integers(0, 10, (6, 3)), RNG.integers(0, 3, 6)), 0,
                                  "float32"),
}
