"""Loops whose state is a short array: a particle's 3-vectors, a 2x2 filter covariance, a
quaternion, a pixel's channels. NumPy pays a call per short-array op; written this way, each
trip is a few scalar operations."""

from __future__ import annotations

import numpy as np


def projectile_drag(v0, k, dt, steps):
    g = np.array([0.0, 0.0, -9.81])
    pos = np.zeros(3)
    vel = v0.copy()
    path = np.empty((steps, 3))
    for i in range(steps):
        speed = np.sqrt(np.sum(vel * vel))
        acc = g - k * speed * vel
        vel = vel + dt * acc
        pos = pos + dt * vel
        path[i] = pos
    return path


def rotate_points(points, angle):
    c, s = np.cos(angle), np.sin(angle)
    R = np.array([[c, -s], [s, c]])
    out = np.empty_like(points)
    for i in range(points.shape[0]):
        out[i] = R @ points[i]
    return out


def kalman_track(zs, q, r):
    F = np.array([[1.0, 1.0], [0.0, 1.0]])
    x = np.zeros(2)
    P = np.eye(2)
    est = np.empty(len(zs))
    for t in range(len(zs)):
        x = F @ x
        P = F @ P @ F.T + q * np.eye(2)
        S = P[0, 0] + r
        K = P[:, 0] / S
        x = x + K * (zs[t] - x[0])
        P = P - np.outer(K, P[0, :])
        est[t] = x[0]
    return est


def quaternion_integrate(omegas, dt):
    q = np.array([1.0, 0.0, 0.0, 0.0])
    for i in range(omegas.shape[0]):
        wx, wy, wz = omegas[i]
        dq = 0.5 * dt * np.array([
            -q[1] * wx - q[2] * wy - q[3] * wz,
            q[0] * wx + q[2] * wz - q[3] * wy,
            q[0] * wy - q[1] * wz + q[3] * wx,
            q[0] * wz + q[1] * wy - q[2] * wx,
        ])
        q = q + dq
        q = q / np.sqrt(q @ q)
    return q


def color_balance(img, gains):
    h, w, _ = img.shape
    out = np.empty_like(img)
    for i in range(h):
        for j in range(w):
            px = img[i, j] * gains
            out[i, j] = np.minimum(px / max(px.max(), 1.0), 1.0)
    return out
