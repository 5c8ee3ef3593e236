"""Kernels written around Python objects, as their users write them: filters and models as
classes whose methods read `self.` arrays and parameters and update their state in place,
parameters in a `@dataclass` or a dict, NamedTuple results, nested helper functions and
closures, keyword-only options with defaults."""

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np


class ConstantVelocityKalman:
    """A 1-d position tracker with a constant-velocity model."""

    def __init__(self, dt, q, r):
        self.dt = dt
        self.F = np.array([[1.0, dt], [0.0, 1.0]])
        self.H = np.array([[1.0, 0.0]])
        self.Q = q * np.array([[dt ** 4 / 4, dt ** 3 / 2], [dt ** 3 / 2, dt ** 2]])
        self.R = np.array([[r]])
        self.x = np.zeros(2)
        self.P = np.eye(2) * 100.0

    def predict(self):
        self.x = self.F @ self.x
        self.P = self.F @ self.P @ self.F.T + self.Q

    def update(self, z):
        y = z - self.H @ self.x
        S = self.H @ self.P @ self.H.T + self.R
        K = self.P @ self.H.T / S[0, 0]
        self.x = self.x + K[:, 0] * y[0]
        self.P = (np.eye(2) - K @ self.H) @ self.P

    def filter(self, zs):
        out = np.empty((len(zs), 2))
        for k, z in enumerate(zs):
            self.predict()
            self.update(z)
            out[k] = self.x
        return out


class ParticleFilter:
    """A bootstrap particle filter on a random walk, resampled systematically when the
    effective sample size drops; the random draws are given."""

    def __init__(self, n, process_std, meas_std):
        self.n = n
        self.process_std = process_std
        self.meas_std = meas_std
        self.particles = np.zeros(n)
        self.weights = np.full(n, 1.0 / n)
        self.resamples = 0

    def step(self, z, noise, u):
        self.particles += self.process_std * noise
        d = self.particles - z
        self.weights *= np.exp(-0.5 * (d / self.meas_std) ** 2)
        self.weights += 1e-300
        self.weights /= self.weights.sum()
        n_eff = 1.0 / np.sum(self.weights ** 2)
        if n_eff < self.n / 2:
            positions = (np.arange(self.n) + u) / self.n
            idx = np.searchsorted(np.cumsum(self.weights), positions)
            self.particles = self.particles[np.minimum(idx, self.n - 1)]
            self.weights.fill(1.0 / self.n)
            self.resamples += 1
        return np.sum(self.particles * self.weights)

    def run(self, zs, noises, us):
        estimates = np.empty(len(zs))
        for t, (z, noise, u) in enumerate(zip(zs, noises, us)):
            estimates[t] = self.step(z, noise, u)
        return estimates


@dataclass
class GarchParams:
    omega: float
    alpha: float
    beta: float
    mu: float = 0.0


def garch_loglik(returns, p: GarchParams):
    if p.alpha + p.beta >= 1.0:
        raise ValueError("alpha + beta must be below 1 for a stationary GARCH(1,1)")
    eps = returns - p.mu
    sigma2 = np.empty_like(eps)
    sigma2[0] = p.omega / (1.0 - p.alpha - p.beta)
    for t in range(1, len(eps)):
        sigma2[t] = p.omega + p.alpha * eps[t - 1] ** 2 + p.beta * sigma2[t - 1]
    ll = -0.5 * np.sum(np.log(2 * math.pi * sigma2) + eps ** 2 / sigma2)
    return ll, sigma2


class NewtonFit(NamedTuple):
    coef: np.ndarray
    loss: float
    grad_norm: float


def logistic_newton(X, y, n_iter=8, l2=1e-4):
    n, d = X.shape
    w = np.zeros(d)
    for _ in range(n_iter):
        p = 1.0 / (1.0 + np.exp(-(X @ w)))
        g = X.T @ (p - y) / n + l2 * w
        H = (X.T * (p * (1.0 - p))) @ X / n + l2 * np.eye(d)
        w = w - np.linalg.solve(H, g)
    p = np.clip(1.0 / (1.0 + np.exp(-(X @ w))), 1e-12, 1 - 1e-12)
    loss = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)) + 0.5 * l2 * w @ w
    return NewtonFit(w, loss, np.linalg.norm(X.T @ (p - y) / n + l2 * w))


DEFAULT_RISK = {"lambda": 0.94, "warmup": 20, "z": 2.33}


def ewma_var_limits(returns, params=DEFAULT_RISK):
    lam = params["lambda"]
    warmup = params.get("warmup", 10)
    var = np.empty(len(returns))
    var[:warmup] = returns[:warmup].var()
    for t in range(warmup, len(returns)):
        var[t] = lam * var[t - 1] + (1 - lam) * returns[t - 1] ** 2
    limit = params["z"] * np.sqrt(var)
    breaches = np.abs(returns) > limit
    return {"vol": np.sqrt(var), "limit": limit, "breaches": int(breaches.sum()),
            "breach_rate": breaches[warmup:].mean()}


def lotka_volterra_rk4(y0, params, h, n_steps):
    a, b, c, d = params

    def rhs(y):
        prey, pred = y[0], y[1]
        return np.array([a * prey - b * prey * pred, d * prey * pred - c * pred])

    def rk4_step(y):
        k1 = rhs(y)
        k2 = rhs(y + 0.5 * h * k1)
        k3 = rhs(y + 0.5 * h * k2)
        k4 = rhs(y + h * k3)
        return y + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)

    traj = np.empty((n_steps + 1, 2))
    traj[0] = y0
    y = np.asarray(y0, dtype=np.float64)
    for i in range(n_steps):
        y = rk4_step(y)
        traj[i + 1] = y
    return traj


class Biquad:
    """One second-order IIR section in transposed direct form II; `self.z` is its state and
    carries over from one block of samples to the next."""

    def __init__(self, b, a):
        self.b0, self.b1, self.b2 = b
        self.a1, self.a2 = a[1] / a[0], a[2] / a[0]
        self.b0, self.b1, self.b2 = self.b0 / a[0], self.b1 / a[0], self.b2 / a[0]
        self.z = np.zeros(2)

    def process(self, x):
        y = np.empty_like(x)
        z1, z2 = self.z[0], self.z[1]
        for n in range(len(x)):
            xn = x[n]
            yn = self.b0 * xn + z1
            z1 = self.b1 * xn - self.a1 * yn + z2
            z2 = self.b2 * xn - self.a2 * yn
            y[n] = yn
        self.z[0] = z1
        self.z[1] = z2
        return y


def lowpass_sections(fc, fs, q=0.7071):
    w0 = 2 * math.pi * fc / fs
    alpha = math.sin(w0) / (2 * q)
    cw = math.cos(w0)
    b = ((1 - cw) / 2, 1 - cw, (1 - cw) / 2)
    a = (1 + alpha, -2 * cw, 1 - alpha)
    return Biquad(b, a), Biquad(b, a)


def biquad_cascade_blocks(signal, block, sections):
    out = np.empty_like(signal)
    for start in range(0, len(signal), block):
        y = signal[start:start + block]
        for sec in sections:
            y = sec.process(y)
        out[start:start + block] = y
    return out


class HiddenMarkovModel:
    def __init__(self, A, B, pi):
        self.A = A
        self.B = B
        self.pi = pi
        self.n_states = A.shape[0]

    def forward(self, obs):
        T = len(obs)
        alpha = np.zeros((T, self.n_states))
        scale = np.zeros(T)
        alpha[0] = self.pi * self.B[:, obs[0]]
        scale[0] = alpha[0].sum()
        alpha[0] /= scale[0]
        for t in range(1, T):
            alpha[t] = (alpha[t - 1] @ self.A) * self.B[:, obs[t]]
            scale[t] = alpha[t].sum()
            alpha[t] /= scale[t]
        return alpha, scale

    def backward(self, obs, scale):
        T = len(obs)
        beta = np.ones((T, self.n_states))
        for t in range(T - 2, -1, -1):
            beta[t] = self.A @ (self.B[:, obs[t + 1]] * beta[t + 1]) / scale[t + 1]
        return beta

    def posterior(self, obs):
        alpha, scale = self.forward(obs)
        beta = self.backward(obs, scale)
        gamma = alpha * beta
        gamma /= gamma.sum(axis=1, keepdims=True)
        return gamma, np.log(scale).sum()


class NBodySystem:
    def __init__(self, pos, vel, mass, G=1.0, softening=0.05):
        self.pos = pos
        self.vel = vel
        self.mass = mass
        self.G = G
        self.softening = softening

    def accelerations(self):
        d = self.pos[None, :, :] - self.pos[:, None, :]
        r2 = (d ** 2).sum(axis=-1) + self.softening ** 2
        inv_r3 = r2 ** -1.5
        np.fill_diagonal(inv_r3, 0.0)
        return self.G * (d * (inv_r3 * self.mass[None, :])[:, :, None]).sum(axis=1)

    def energy(self):
        kinetic = 0.5 * np.sum(self.mass[:, None] * self.vel ** 2)
        d = self.pos[None, :, :] - self.pos[:, None, :]
        r = np.sqrt((d ** 2).sum(axis=-1) + self.softening ** 2)
        iu = np.triu_indices(len(self.mass), 1)
        potential = -self.G * np.sum((self.mass[:, None] * self.mass[None, :] / r)[iu])
        return kinetic + potential

    def leapfrog(self, n_steps, *, dt=0.01):
        acc = self.accelerations()
        for _ in range(n_steps):
            self.vel += 0.5 * dt * acc
            self.pos += dt * self.vel
            acc = self.accelerations()
            self.vel += 0.5 * dt * acc
        return self.energy()


@dataclass
class PCAConfig:
    n_components: int = 3
    n_iter: int = 50
    center: bool = True


def pca_power_deflation(X, cfg: PCAConfig):
    if cfg.center:
        X = X - X.mean(axis=0)
    C = X.T @ X / (X.shape[0] - 1)
    d = C.shape[0]
    components = np.zeros((cfg.n_components, d))
    variances = np.zeros(cfg.n_components)
    for k in range(cfg.n_components):
        v = np.ones(d) / math.sqrt(d)
        for _ in range(cfg.n_iter):
            w = C @ v
            v = w / np.linalg.norm(w)
        lam = v @ C @ v
        components[k] = v
        variances[k] = lam
        C = C - lam * np.outer(v, v)
    return components, variances


def kmeans_reseed_empty(X, init_idx, n_iter=10):
    centers = X[init_idx].copy()
    k = len(centers)
    labels = np.zeros(len(X), dtype=np.int64)
    for _ in range(n_iter):
        d2 = ((X[:, None, :] - centers[None, :, :]) ** 2).sum(axis=-1)
        labels = np.argmin(d2, axis=1)
        nearest = d2[np.arange(len(X)), labels]
        for j in range(k):
            members = labels == j
            count = members.sum()
            if count == 0:
                far = np.argmax(nearest)
                centers[j] = X[far]
                nearest[far] = 0.0
            else:
                centers[j] = X[members].mean(axis=0)
    inertia = ((X - centers[labels]) ** 2).sum()
    return centers, labels, inertia
