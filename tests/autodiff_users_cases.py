"""Differentiable NumPy programs of kinds the other autodiff corpora lack, written as their
users write them: physics-informed residual losses, normalizing flows (planar, radial, their
log-determinants), Hamiltonian energies and leapfrog integrators, optimal control by shooting
through a loop, soft rasterisation, neural ODEs by RK4, batch/layer/group norms by hand,
convolutions by `sliding_window_view` with `np.einsum`, pooling, robust and quantile losses,
nan-safe `np.where` (the double-where trick), `logsumexp` with max subtraction, gradients
through `np.sort`, `np.median`, `np.partition`, `np.maximum.accumulate` and `np.linalg`, and pytrees of dicts, namedtuples and nested lists.

Each case is `(function, arguments, argnums, how)`: `how` says what the gradient is checked
against, "autograd" (the same code run on `autograd.numpy`) or "differences" (central
differences in float64, where autograd has no rule for a call)."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

RNG = np.random.default_rng(31415)


def _normal(*shape):
    return RNG.standard_normal(shape)


def logsumexp(z, axis=-1):
    m = np.max(z, axis=axis, keepdims=True)
    return np.squeeze(m, axis) + np.log(np.sum(np.exp(z - m), axis=axis))


# --- physics-informed residuals --------------------------------------------------------------

def pinn_poisson_residual(params, x):
    """u(x) = x (1 - x) N(x) solves u'' = -pi^2 sin(pi x) at collocation points; second
    derivatives by central differences of the network over a small step."""
    def u(z):
        h = np.tanh(z[:, None] * params["w1"] + params["b1"])
        return z * (1 - z) * (h @ params["w2"])

    step = 1e-2
    d2 = (u(x + step) - 2 * u(x) + u(x - step)) / step ** 2
    residual = d2 + np.pi ** 2 * np.sin(np.pi * x)
    return np.mean(residual ** 2)


def heat_equation_residual(field, kappa):
    """Explicit heat-equation residual on a grid: time derivative against the Laplacian."""
    dt, dx = 0.1, 0.5
    u_t = (field[1:, 1:-1] - field[:-1, 1:-1]) / dt
    lap = (field[:-1, 2:] - 2 * field[:-1, 1:-1] + field[:-1, :-2]) / dx ** 2
    return np.sum((u_t - kappa * lap) ** 2) + 0.1 * np.sum(field[0] ** 2)


# --- normalizing flows -----------------------------------------------------------------------

def planar_flow_nll(params, z):
    total_log_det = 0.0
    for u, w, b in params:
        lin = z @ w + b
        h = np.tanh(lin)
        z = z + np.outer(h, u)
        psi = np.outer(1 - h ** 2, w)
        total_log_det = total_log_det + np.log(np.abs(1 + psi @ u) + 1e-8)
    log_base = -0.5 * np.sum(z ** 2, axis=1)
    return -np.mean(log_base + total_log_det)


def radial_flow_log_det(z0, alpha, beta, z):
    d = z.shape[1]
    diff = z - z0
    r = np.sqrt(np.sum(diff ** 2, axis=1, keepdims=True))
    h = 1.0 / (alpha + r)
    out = z + beta * h * diff
    log_det = (d - 1) * np.log(1 + beta * h[:, 0]) + np.log(1 + beta * h[:, 0]
                                                           - beta * r[:, 0] * h[:, 0] ** 2)
    return np.mean(np.sum(out ** 2, axis=1)) - np.mean(log_det)


def coupling_layer_nll(params, x):
    """A RealNVP affine coupling: half the features scale and shift the other half."""
    a, b = x[:, :2], x[:, 2:]
    s = np.tanh(a @ params["ws"])
    t = a @ params["wt"]
    b = b * np.exp(s) + t
    z = np.concatenate([a, b], axis=1)
    return np.mean(0.5 * np.sum(z ** 2, axis=1) - np.sum(s, axis=1))


# --- Hamiltonian mechanics -------------------------------------------------------------------

def pendulum_energy(state, mass, length):
    q, p = state[..., 0], state[..., 1]
    kinetic = p ** 2 / (2 * mass * length ** 2)
    potential = mass * 9.81 * length * (1 - np.cos(q))
    return np.sum(kinetic + potential)


def leapfrog_final_position(q0, p0, k):
    """Leapfrog for H = p^2/2 + k q^4 / 4, 25 steps; the loss is the final position's
    distance to 1."""
    q, p, dt = q0, p0, 0.05
    for _ in range(25):
        p = p - 0.5 * dt * k * q ** 3
        q = q + dt * p
        p = p - 0.5 * dt * k * q ** 3
    return np.sum((q - 1.0) ** 2) + 0.1 * np.sum(p ** 2)


def n_body_hamiltonian(positions, momenta, masses):
    kinetic = np.sum(np.sum(momenta ** 2, axis=1) / (2 * masses))
    diff = positions[:, None, :] - positions[None, :, :]
    dist = np.sqrt(np.sum(diff ** 2, axis=-1) + np.eye(len(masses)))
    potential = -0.5 * np.sum((masses[:, None] * masses[None, :] / dist)
                              * (1 - np.eye(len(masses))))
    return kinetic + potential


# --- optimal control by shooting -------------------------------------------------------------

def cart_shooting_cost(controls, x0):
    """A double integrator driven by a control sequence, reaching the origin cheaply."""
    pos, vel = x0[0], x0[1]
    cost = 0.0
    for u in controls:
        vel = vel + 0.1 * u
        pos = pos + 0.1 * vel
        cost = cost + 0.01 * u ** 2
    return cost + 10 * (pos ** 2 + vel ** 2)


def linear_quadratic_rollout(gains, a, b, x0):
    x = x0
    total = 0.0
    for t in range(gains.shape[0]):
        u = -gains[t] @ x
        total = total + x @ x + 0.1 * u @ u
        x = a @ x + b @ u
    return total + 5.0 * x @ x


# --- soft rasterisation ----------------------------------------------------------------------

def soft_disc_render(centres, radii, target):
    """Discs rendered with a sigmoid edge and composited by soft union on a pixel grid."""
    xs, ys = np.meshgrid(np.linspace(0.0, 1.0, 8), np.linspace(0.0, 1.0, 8))
    coverage = np.zeros((8, 8))
    for c, r in zip(centres, radii):
        d = np.sqrt((xs - c[0]) ** 2 + (ys - c[1]) ** 2 + 1e-12)
        alpha = 1.0 / (1.0 + np.exp(-(r - d) * 20.0))
        coverage = coverage + alpha - coverage * alpha
    return np.mean((coverage - target) ** 2)


def soft_triangle_edges(vertices, pixels):
    """Signed edge functions of one triangle through a smooth-min of sigmoids."""
    total = np.zeros(pixels.shape[0])
    for i in range(3):
        a, b = vertices[i], vertices[(i + 1) % 3]
        edge = (pixels[:, 0] - a[0]) * (b[1] - a[1]) - (pixels[:, 1] - a[1]) * (b[0] - a[0])
        total = total + np.logaddexp(0.0, -10.0 * edge)
    inside = np.exp(-total)
    return np.sum(inside * np.linspace(0.0, 1.0, pixels.shape[0]))


# --- neural ODEs -----------------------------------------------------------------------------

def neural_ode_rk4(params, y0, target):
    def f(y):
        return np.tanh(y @ params["w1"] + params["b1"]) @ params["w2"]

    y, dt = y0, 0.1
    for _ in range(10):
        k1 = f(y)
        k2 = f(y + 0.5 * dt * k1)
        k3 = f(y + 0.5 * dt * k2)
        k4 = f(y + dt * k3)
        y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.mean((y - target) ** 2)


def trajectory_fit_euler(log_rates, y0, observed):
    rates = np.exp(log_rates)
    y = y0
    loss = 0.0
    for t in range(observed.shape[0]):
        y = y + 0.1 * np.array([-rates[0] * y[0], rates[0] * y[0] - rates[1] * y[1]])
        loss = loss + np.sum((y - observed[t]) ** 2)
    return loss


# --- normalisations by hand ------------------------------------------------------------------

def batch_norm_by_hand(gamma, beta, x):
    n = x.shape[0]
    mu = np.sum(x, axis=0) / n
    xc = x - mu
    var = np.sum(xc * xc, axis=0) / n
    xhat = xc / np.sqrt(var + 1e-5)
    return np.sum(np.sin(gamma * xhat + beta))


def layer_norm_then_mlp(params, x):
    mu = np.mean(x, axis=-1, keepdims=True)
    sigma = np.sqrt(np.mean((x - mu) ** 2, axis=-1, keepdims=True) + 1e-6)
    h = (x - mu) / sigma * params["g"] + params["b"]
    return np.sum(np.maximum(h @ params["w"], 0.0) ** 2)


def group_norm_images(gamma, beta, x, groups=2):
    n, c, h, w = x.shape
    g = x.reshape(n, groups, c // groups, h, w)
    mean = g.mean(axis=(2, 3, 4), keepdims=True)
    var = g.var(axis=(2, 3, 4), keepdims=True)
    y = ((g - mean) / np.sqrt(var + 1e-5)).reshape(n, c, h, w)
    y = y * gamma[None, :, None, None] + beta[None, :, None, None]
    return np.sum(y ** 3) / n


# --- convolutions and pooling ----------------------------------------------------------------

def conv2d_einsum(kernels, images):
    """Several 3x3 kernels over a batch by `sliding_window_view` and `np.einsum`, ReLU, 2x2
    average pooling by reshape."""
    windows = sliding_window_view(images, (3, 3), axis=(1, 2))  # (n, 6, 6, 3, 3)
    maps = np.maximum(np.einsum("nijkl,ckl->ncij", windows, kernels), 0.0)
    n, c, h, w = maps.shape
    pooled = maps.reshape(n, c, h // 2, 2, w // 2, 2).mean(axis=(3, 5))
    return np.sum(pooled ** 2)


def conv1d_channels(weights, signal):
    windows = sliding_window_view(signal, 4, axis=-1)  # (channels_in, positions, 4)
    out = np.einsum("cpk,ock->op", windows, weights)
    return np.sum(np.tanh(out)) + 0.1 * np.sum(weights ** 2)


def max_pool_windows(w, image):
    x = image * w
    windows = sliding_window_view(x, (2, 2))[::2, ::2]
    return np.sum(windows.max(axis=(-2, -1)) ** 2)


# --- robust and quantile losses --------------------------------------------------------------

def tukey_biweight(w, x, y, c=2.0):
    r = x @ w - y
    inside = np.abs(r) < c
    rho = c ** 2 / 6 * (1 - (1 - (r / c) ** 2) ** 3)
    return np.mean(np.where(inside, rho, c ** 2 / 6))


def quantile_regression(w, x, y, taus=(0.1, 0.5, 0.9)):
    total = 0.0
    for i, tau in enumerate(taus):
        r = y - x @ w[:, i]
        total = total + np.mean(np.maximum(tau * r, (tau - 1) * r))
    return total


def log_cosh_and_cauchy(w, x, y):
    r = x @ w - y
    return np.mean(np.log(np.cosh(r))) + np.mean(np.log1p(r ** 2))


# --- nan-safe patterns -----------------------------------------------------------------------

def double_where_sqrt(x):
    """sqrt of a value that may be zero, without a nan gradient: the inner `where` keeps the
    untaken branch's input finite."""
    safe = np.where(x > 0, x, 1.0)
    return np.sum(np.where(x > 0, np.sqrt(safe), 0.0))


def double_where_log(x):
    positive = x > 0
    safe = np.where(positive, x, 1.0)
    return np.sum(np.where(positive, x * np.log(safe), 0.0))


def safe_norm_distances(points):
    diff = points[:, None, :] - points[None, :, :]
    sq = np.sum(diff ** 2, axis=-1)
    nonzero = sq > 0
    dist = np.where(nonzero, np.sqrt(np.where(nonzero, sq, 1.0)), 0.0)
    return np.sum(np.exp(-dist))


def logsumexp_both_axes(w, x):
    scores = x @ w
    per_row = logsumexp(scores, axis=1)
    per_col = logsumexp(scores, axis=0)
    return np.sum(per_row) - np.mean(per_col)


# --- sorting, order statistics, scans --------------------------------------------------------

def sorted_weighted_sum(x):
    s = np.sort(x)
    return np.sum(s * np.linspace(1.0, 2.0, x.shape[0]) ** 2)


def median_absolute_deviation(x):
    med = np.median(x)
    return np.median(np.abs(x - med)) + med ** 2


def partition_top_k(x):
    top = np.partition(x, -3)[-3:]
    return np.sum(top ** 2)


def running_maximum(x):
    peaks = np.maximum.accumulate(x)
    drawdown = peaks - x
    return np.sum(drawdown ** 2)


def drawdown_of_paths(returns):
    """The deepest relative drawdown of each price path (rows), averaged."""
    prices = np.exp(np.cumsum(returns, axis=1))
    peaks = np.maximum.accumulate(prices, axis=1)
    return np.mean(np.max(1 - prices / peaks, axis=1))


def running_minimum_columns(x, w):
    lows = np.minimum.accumulate(x * w, axis=0)
    return np.sum(lows ** 2) + np.minimum.reduce(x, axis=0) @ w


def trimmed_by_partition(x, k=2):
    """The mean of the middle of each row, its k smallest and k largest cut by
    `np.partition` at both ends."""
    n = x.shape[1]
    p = np.partition(x, [k, n - k - 1], axis=1)
    return np.sum(np.mean(p[:, k:n - k], axis=1) ** 2)


def sort_along_rows(w, x):
    s = np.sort(x @ w, axis=1)
    return np.sum(s[:, -1] - s[:, 0]) + np.sum(s[:, 1] ** 2)


# --- linear algebra --------------------------------------------------------------------------

def lstsq_by_pinv(w, y):
    coef = np.linalg.pinv(w) @ y
    return np.sum(coef ** 2)


def log_det_kernel(log_ls, x):
    d2 = np.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1)
    k = np.exp(-0.5 * d2 / np.exp(2 * log_ls)) + 0.1 * np.eye(x.shape[0])
    sign, logdet = np.linalg.slogdet(k)
    return logdet + np.trace(np.linalg.inv(k))


def matrix_power_norm(a):
    return np.linalg.norm(np.linalg.matrix_power(a, 3), "fro") + np.linalg.det(a)


# --- pytrees ---------------------------------------------------------------------------------

Layer = namedtuple("Layer", ["w", "b"])


def mlp_dict_of_namedtuples(params, x, y):
    h = np.tanh(x @ params["hidden"].w + params["hidden"].b)
    out = h @ params["out"].w + params["out"].b
    return np.mean((out[:, 0] - y) ** 2) + params["decay"] * np.sum(params["hidden"].w ** 2)


def nested_list_network(layers, x):
    for block in layers:
        for w, b in block:
            x = np.tanh(x @ w + b)
    return np.sum(x ** 2)


def float32_mlp(params, x, y):
    h = np.maximum(x @ params["w1"] + params["b1"], 0.0)
    logits = h @ params["w2"]
    log_probs = logits - logsumexp(logits)[:, None]
    return -np.mean(np.sum(log_probs * y, axis=1))


# --- the cases -------------------------------------------------------------------------------

_F32 = np.float32
_ONEHOT3 = np.eye(3)[RNG.integers(0, 3, size=6)]

CASES = {
    "pinn poisson residual": (pinn_poisson_residual, ({"w1": _normal(6), "b1": _normal(6),
                                                       "w2": _normal(6)},
                                                      np.linspace(0.05, 0.95, 7)), 0,
                              "autograd"),
    "heat equation residual": (heat_equation_residual, (_normal(4, 6), 0.3), (0, 1),
                               "autograd"),
    "planar flows": (planar_flow_nll, ([(_normal(2) * 0.5, _normal(2) * 0.5, 0.1),
                                        (_normal(2) * 0.5, _normal(2) * 0.5, -0.2)],
                                       _normal(5, 2)), 0, "autograd"),
    "radial flow": (radial_flow_log_det, (_normal(3), 1.5, 0.7, _normal(6, 3)), (0, 1, 2),
                    "autograd"),
    "affine coupling": (coupling_layer_nll, ({"ws": _normal(2, 2) * 0.5, "wt": _normal(2, 2)},
                                             _normal(6, 4)), (0, 1), "autograd"),
    "pendulum energy": (pendulum_energy, (_normal(5, 2), 1.3, 0.8), (0, 1, 2), "autograd"),
    "leapfrog": (leapfrog_final_position, (_normal(3) * 0.5, _normal(3) * 0.5, 1.2), (0, 1, 2),
                 "autograd"),
    "n-body hamiltonian": (n_body_hamiltonian, (_normal(4, 3), _normal(4, 3),
                                                RNG.uniform(1, 2, 4)), (0, 1, 2), "autograd"),
    "shooting a double integrator": (cart_shooting_cost, (_normal(12), np.array([1.0, -0.5])),
                                     (0, 1), "autograd"),
    "lqr rollout": (linear_quadratic_rollout, (_normal(6, 1, 2) * 0.3,
                                               np.array([[1.0, 0.1], [0.0, 1.0]]),
                                               np.array([[0.0], [0.1]]), _normal(2)),
                    (0, 1, 3), "autograd"),
    "soft disc rendering": (soft_disc_render, (RNG.uniform(0.2, 0.8, (3, 2)),
                                               RNG.uniform(0.1, 0.3, 3),
                                               RNG.uniform(size=(8, 8))), (0, 1), "autograd"),
    "soft triangle": (soft_triangle_edges, (np.array([[0.1, 0.1], [0.9, 0.2], [0.4, 0.8]]),
                                            RNG.uniform(size=(12, 2))), 0, "autograd"),
    "neural ode by rk4": (neural_ode_rk4, ({"w1": _normal(2, 5) * 0.5, "b1": _normal(5) * 0.1,
                                            "w2": _normal(5, 2) * 0.5}, _normal(4, 2),
                                           _normal(4, 2)), (0, 1), "autograd"),
    "trajectory fit by euler": (trajectory_fit_euler, (np.array([-0.5, -1.0]),
                                                       np.array([1.0, 0.0]),
                                                       RNG.uniform(size=(8, 2))), (0, 1),
                                "differences"),
    "batch norm by hand": (batch_norm_by_hand, (1 + 0.1 * _normal(3), _normal(3),
                                                _normal(6, 3)), (0, 1, 2), "autograd"),
    "layer norm then mlp": (layer_norm_then_mlp, ({"g": 1 + 0.1 * _normal(4), "b": _normal(4),
                                                   "w": _normal(4, 3)}, _normal(5, 4)),
                            (0, 1), "autograd"),
    "group norm of images": (group_norm_images, (1 + 0.1 * _normal(4), _normal(4),
                                                 _normal(2, 4, 3, 3)), (0, 1, 2),
                             "autograd"),
    "conv2d by einsum": (conv2d_einsum, (_normal(2, 3, 3), _normal(2, 8, 8)), (0, 1),
                         "differences"),
    "conv1d with channels": (conv1d_channels, (_normal(3, 2, 4) * 0.5, _normal(2, 9)), (0, 1),
                             "differences"),
    "max pooling windows": (max_pool_windows, (_normal(6, 6), _normal(6, 6)), (0, 1),
                            "differences"),
    "tukey biweight": (tukey_biweight, (_normal(3) * 0.5, _normal(9, 3), _normal(9)), 0,
                       "autograd"),
    "quantile regression": (quantile_regression, (_normal(3, 3), _normal(10, 3), _normal(10)),
                            0, "autograd"),
    "log-cosh and cauchy": (log_cosh_and_cauchy, (_normal(3), _normal(8, 3), _normal(8)), 0,
                            "autograd"),
    "double where sqrt": (double_where_sqrt, (np.array([0.0, 1.5, -2.0, 0.3, 0.0]),), 0,
                          "autograd"),
    "double where x log x": (double_where_log, (np.array([0.0, 0.5, 2.0, -1.0]),), 0,
                             "autograd"),
    "safe pairwise distances": (safe_norm_distances, (np.array([[0.0, 0.0], [1.0, 0.5],
                                                                [0.0, 0.0], [-0.3, 2.0]]),),
                                0, "autograd"),
    "logsumexp both axes": (logsumexp_both_axes, (_normal(3, 4), _normal(5, 3)), (0, 1),
                            "autograd"),
    "sorted weighted sum": (sorted_weighted_sum, (_normal(7),), 0, "autograd"),
    "median absolute deviation": (median_absolute_deviation, (_normal(7),), 0, "differences"),
    "partition top k": (partition_top_k, (_normal(8),), 0, "differences"),
    "running maximum": (running_maximum, (_normal(9),), 0, "differences"),
    "sort along rows": (sort_along_rows, (_normal(3, 4), _normal(5, 3)), (0, 1),
                        "differences"),
    "drawdown of paths": (drawdown_of_paths, (0.1 * _normal(3, 12),), 0, "differences"),
    "running minimum of columns": (running_minimum_columns, (_normal(6, 3), _normal(3)),
                                   (0, 1), "differences"),
    "trimmed by partition": (trimmed_by_partition, (_normal(3, 8),), 0, "differences"),
    "pinv least squares": (lstsq_by_pinv, (_normal(5, 3), _normal(5)), (0, 1), "differences"),
    "log det of a kernel": (log_det_kernel, (0.2, _normal(5, 2)), (0, 1), "autograd"),
    "matrix power and det": (matrix_power_norm, (_normal(3, 3),), 0, "differences"),
    "dict of namedtuples": (mlp_dict_of_namedtuples, ({"hidden": Layer(_normal(3, 4),
                                                                      _normal(4)),
                                                       "out": Layer(_normal(4, 1), _normal(1)),
                                                       "decay": 0.05}, _normal(6, 3),
                                                      _normal(6)), 0, "differences"),
    "nested lists of layers": (nested_list_network, ([[(_normal(3, 3) * 0.5, _normal(3))],
                                                      [(_normal(3, 2) * 0.5, _normal(2)),
                                                       (_normal(2, 2) * 0.5, _normal(2))]],
                                                     _normal(4, 3)), 0, "autograd"),
    "float32 mlp": (float32_mlp, ({"w1": _normal(4, 5).astype(_F32),
                                   "b1": _normal(5).astype(_F32),
                                   "w2": _normal(5, 3).astype(_F32)},
                                  _normal(6, 4).astype(_F32), _ONEHOT3.astype(_F32)), 0,
                    "float32"),
}
