"""User-style model, geometry, image and physics code compiled with each backend and compared
with plain NumPy (values, dtypes, shapes, scalar-ness, printed output, input mutation)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_user_numerics import BACKENDS, run_like_numpy

RNG = np.random.default_rng(1)


# --- model code ---------------------------------------------------------------------------


def relu(x):
    return np.maximum(x, 0)


def gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


class Linear:
    def __init__(self, n_in, n_out, rng, dtype=np.float64):
        self.w = (rng.standard_normal((n_in, n_out)) / math.sqrt(n_in)).astype(dtype)
        self.b = np.zeros(n_out, dtype=dtype)

    def __call__(self, x):
        return x @ self.w + self.b


class MLP:
    def __init__(self, sizes, dtype=np.float64):
        rng = np.random.default_rng(7)
        self.layers = [Linear(a, b, rng, dtype) for a, b in zip(sizes[:-1], sizes[1:])]  # noqa: RUF007

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = relu(layer(x))
        return self.layers[-1](x)


def mlp_forward(x):
    return MLP([4, 8, 3]).forward(x)


MLP32 = MLP([4, 6, 2], dtype=np.float32)


def mlp32_forward(x):
    return MLP32.forward(x)


def attention(q, k, v, mask=None):
    d = q.shape[-1]
    scores = q @ k.swapaxes(-1, -2) / np.sqrt(d)
    if mask is not None:
        scores = np.where(mask, scores, -1e9)
    return softmax(scores) @ v


def layernorm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta


def batchnorm(x, running_mean, running_var, momentum=0.1, training=True):
    if training:
        mean = x.mean(axis=0)
        var = x.var(axis=0)
        running_mean *= 1 - momentum
        running_mean += momentum * mean
        running_var[:] = (1 - momentum) * running_var + momentum * var
    else:
        mean, var = running_mean, running_var
    return (x - mean) / np.sqrt(var + 1e-5)


def residual_block(x, w1, w2):
    h = relu(x @ w1)
    return x + h @ w2


def cross_entropy(logits, labels):
    logits = logits - logits.max(axis=1, keepdims=True)
    log_probs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return -log_probs[np.arange(len(labels)), labels].mean()


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def logistic_step(w, X, y, lr=0.1):
    p = sigmoid(X @ w)
    grad = X.T @ (p - y) / X.shape[0]
    return w - lr * grad, float(np.mean((p > 0.5) == y))


def kmeans_assign(points, centroids):
    d = ((points[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=-1)
    return np.argmin(d, axis=1)


def kmeans_update(points, labels, k):
    out = np.zeros((k, points.shape[1]))
    for j in range(k):
        members = points[labels == j]
        if len(members):
            out[j] = members.mean(axis=0)
    return out


def one_hot(labels, n_classes):
    return np.eye(n_classes, dtype=np.float32)[labels]


def dropout_free_mlp_verbose(x, w):
    h = np.tanh(x @ w)
    print("hidden", h.shape)
    return h


# --- geometry -----------------------------------------------------------------------------


def pairwise_distances(a, b):
    diff = a[:, np.newaxis, :] - b[np.newaxis, :, :]
    return np.sqrt(np.sum(diff * diff, axis=-1))


def rotate2d(points, theta):
    c, s = math.cos(theta), math.sin(theta)
    rot = np.array([[c, -s], [s, c]])
    return points @ rot.T


def rotation_z(points, angle):
    c, s = np.cos(angle), np.sin(angle)
    r = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return (r @ points.T).T


def unit_vectors(v):
    n = np.linalg.norm(v, axis=1, keepdims=True)
    return v / n


def triangle_area(p0, p1, p2):
    a = p1 - p0
    b = p2 - p0
    return 0.5 * np.abs(a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0])


def centroid_and_radius(pts):
    c = pts.mean(axis=0)
    r = np.max(np.linalg.norm(pts - c, axis=1))
    return c, r


# --- images -------------------------------------------------------------------------------


def normalise_pixels(img, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225)):
    img = img.astype(np.float32) / 255.0
    return (img - np.array(mean, dtype=np.float32)) / np.array(std, dtype=np.float32)


def hwc_to_chw(img):
    return np.transpose(img, (2, 0, 1))


def center_crop_flip(img, size):
    h, w = img.shape[:2]
    top = (h - size) // 2
    left = (w - size) // 2
    crop = img[top : top + size, left : left + size]
    return crop[:, ::-1]


def to_grayscale(img):
    return img[..., 0] * 0.299 + img[..., 1] * 0.587 + img[..., 2] * 0.114


def gamma_correct(img, gamma=2.2):
    return np.clip(img, 0, 1) ** (1 / gamma)


def batch_images(img):
    if img.ndim == 3:
        img = img[None]
    return img.reshape(img.shape[0], -1)


# --- physics ------------------------------------------------------------------------------


def nbody_accel(pos, mass, soft=1e-2):
    d = pos[None, :, :] - pos[:, None, :]
    r2 = (d**2).sum(-1) + soft**2
    inv = r2 ** -1.5
    return (d * (mass[None, :, None] * inv[:, :, None])).sum(axis=1)


def heat_step(u, alpha=0.1):
    new = u.copy()
    new[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
    return new


def heat_step_2d(u, alpha=0.2):
    lap = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1])
    u[1:-1, 1:-1] += alpha * lap
    return u


def kinetic_energy(v, m):
    return 0.5 * np.sum(m * np.sum(v**2, axis=1))


def leapfrog(x, v, dt, steps=3):
    for _ in range(steps):
        v = v - 0.5 * dt * x
        x = x + dt * v
        v = v - 0.5 * dt * x
    return x, v


X8 = RNG.standard_normal((5, 4))
IMG = RNG.integers(0, 256, size=(6, 6, 3), dtype=np.uint8)
CASES = {
    "relu_int": (relu, (np.array([-2, 0, 3]),), {}),
    "gelu_f32": (gelu, (RNG.standard_normal(7).astype(np.float32),), {}),
    "softmax": (softmax, (RNG.standard_normal((3, 5)),), {}),
    "softmax_axis0": (softmax, (RNG.standard_normal((3, 5)),), {"axis": 0}),
    "mlp_forward": (mlp_forward, (X8,), {}),
    "mlp32_forward": (mlp32_forward, (X8.astype(np.float32),), {}),
    "attention": (attention, (RNG.standard_normal((2, 4, 8)), RNG.standard_normal((2, 4, 8)),
                              RNG.standard_normal((2, 4, 8))), {}),
    "attention_mask": (attention, (RNG.standard_normal((4, 8)), RNG.standard_normal((4, 8)),
                                   RNG.standard_normal((4, 8))),
                       {"mask": np.tril(np.ones((4, 4), dtype=bool))}),
    "layernorm": (layernorm, (X8, np.ones(4), np.zeros(4)), {}),
    "layernorm_f32": (layernorm, (X8.astype(np.float32), np.ones(4, np.float32),
                                  np.zeros(4, np.float32)), {"eps": 1e-6}),
    "batchnorm_train": (batchnorm, (X8, np.zeros(4), np.ones(4)), {}),
    "batchnorm_eval": (batchnorm, (X8, np.zeros(4), np.ones(4)), {"training": False}),
    "residual_block": (residual_block, (X8, RNG.standard_normal((4, 6)),
                                        RNG.standard_normal((6, 4))), {}),
    "cross_entropy": (cross_entropy, (RNG.standard_normal((4, 3)), np.array([0, 2, 1, 2])), {}),
    "logistic_step": (logistic_step, (np.zeros(3), RNG.standard_normal((6, 3)),
                                      np.array([0, 1, 1, 0, 1, 0.0])), {"lr": 0.5}),
    "kmeans_assign": (kmeans_assign, (RNG.standard_normal((9, 2)),
                                      RNG.standard_normal((3, 2))), {}),
    "kmeans_update": (kmeans_update, (RNG.standard_normal((6, 2)),
                                      np.array([0, 1, 0, 2, 1, 0]), 3), {}),
    "one_hot": (one_hot, (np.array([2, 0, 1]), 4), {}),
    "verbose_mlp": (dropout_free_mlp_verbose, (X8, RNG.standard_normal((4, 2))), {}),
    "pairwise_distances": (pairwise_distances, (RNG.standard_normal((4, 3)),
                                                RNG.standard_normal((5, 3))), {}),
    "rotate2d": (rotate2d, (RNG.standard_normal((5, 2)), math.pi / 6), {}),
    "rotation_z": (rotation_z, (RNG.standard_normal((4, 3)), 0.7), {}),
    "unit_vectors": (unit_vectors, (RNG.standard_normal((4, 3)),), {}),
    "triangle_area": (triangle_area, (RNG.standard_normal((3, 2)), RNG.standard_normal((3, 2)),
                                      RNG.standard_normal((3, 2))), {}),
    "centroid_and_radius": (centroid_and_radius, (RNG.standard_normal((6, 3)),), {}),
    "normalise_pixels": (normalise_pixels, (IMG,), {}),
    "hwc_to_chw": (hwc_to_chw, (IMG,), {}),
    "center_crop_flip": (center_crop_flip, (IMG, 4), {}),
    "to_grayscale_u8": (to_grayscale, (IMG,), {}),
    "gamma_correct_f32": (gamma_correct, (RNG.random((4, 4)).astype(np.float32) * 1.2,), {}),
    "batch_images_3d": (batch_images, (IMG,), {}),
    "batch_images_4d": (batch_images, (np.stack([IMG, IMG]),), {}),
    "nbody_accel": (nbody_accel, (RNG.standard_normal((5, 3)), RNG.random(5)), {}),
    "heat_step": (heat_step, (np.sin(np.linspace(0, 3, 10)),), {}),
    "heat_step_2d_mutates": (heat_step_2d, (RNG.random((5, 6)),), {}),
    "kinetic_energy": (kinetic_energy, (RNG.standard_normal((4, 3)), RNG.random(4)), {}),
    "leapfrog": (leapfrog, (np.ones(3), np.zeros(3), 0.1), {}),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(CASES))
def test_models_like_numpy(name, backend):
    fn, args, kwargs = CASES[name]
    run_like_numpy(fn, backend, *args, rtol=1e-5, atol=1e-6, **kwargs)
