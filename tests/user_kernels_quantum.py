"""Quantum state vectors in real arithmetic, written the way their users write them: gates
applied by reshaping the state, layers of rotations, Grover iterations and a noisy Bell pair."""

import numpy as np


# ---------------------------------------------------------------- quantum state vectors

def _apply_1q(re, im, u_re, u_im, q, n):
    """Apply a 2x2 gate to qubit q of an n-qubit state (real and imaginary parts)."""
    shape = (2 ** q, 2, 2 ** (n - q - 1))
    r = re.reshape(shape)
    i = im.reshape(shape)
    nr = np.einsum("ab,xby->xay", u_re, r) - np.einsum("ab,xby->xay", u_im, i)
    ni = np.einsum("ab,xby->xay", u_re, i) + np.einsum("ab,xby->xay", u_im, r)
    return nr.reshape(-1), ni.reshape(-1)


def hadamard_all_then_phase(n, phases):
    re = np.zeros(2 ** n)
    im = np.zeros(2 ** n)
    re[0] = 1.0
    h = np.array([[1.0, 1.0], [1.0, -1.0]]) / np.sqrt(2.0)
    zero = np.zeros((2, 2))
    for q in range(n):
        re, im = _apply_1q(re, im, h, zero, q, n)
    for q in range(n):
        c, s = np.cos(phases[q]), np.sin(phases[q])
        re, im = _apply_1q(re, im, np.diag([1.0, c]), np.diag([0.0, s]), q, n)
    probs = re ** 2 + im ** 2
    return probs, probs.sum()


def apply_gate_transpose(state, gate, target, n):
    """A real gate on one qubit by moving its axis to the front (reshape/transpose)."""
    psi = state.reshape((2,) * n)
    psi = np.moveaxis(psi, target, 0)
    shape = psi.shape
    psi = (gate @ psi.reshape(2, -1)).reshape(shape)
    psi = np.moveaxis(psi, 0, target)
    return psi.reshape(-1)


def ry_layer_circuit(angles, n):
    """Layers of RY rotations followed by a CNOT ladder, on a real state vector."""
    state = np.zeros(2 ** n)
    state[0] = 1.0
    for layer in range(angles.shape[0]):
        for q in range(n):
            t = angles[layer, q] / 2
            ry = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
            state = apply_gate_transpose(state, ry, q, n)
        for q in range(n - 1):
            psi = state.reshape((2,) * n).copy()
            idx1 = [slice(None)] * n
            idx1[q] = 1
            sub = psi[tuple(idx1)]
            psi[tuple(idx1)] = np.flip(sub, axis=q)
            state = psi.reshape(-1)
    z_expect = np.empty(n)
    probs = state ** 2
    for q in range(n):
        p = probs.reshape((2 ** q, 2, -1)).sum(axis=(0, 2))
        z_expect[q] = p[0] - p[1]
    return z_expect


def grover_real(n, marked, iterations):
    N = 2 ** n
    amp = np.full(N, 1.0 / np.sqrt(N))
    success = np.zeros(iterations)
    for k in range(iterations):
        amp[marked] = -amp[marked]
        amp = 2.0 * amp.mean() - amp
        success[k] = amp[marked] ** 2
    return amp, success


def bell_pair_fidelity(theta, noise):
    """A two-qubit real state after RY(theta) on qubit 0, a CNOT, and a bit-flip noise
    mixture; fidelity against |00> + |11>."""
    psi = np.zeros((2, 2))
    psi[0, 0] = 1.0
    c, s = np.cos(theta / 2), np.sin(theta / 2)
    ry = np.array([[c, -s], [s, c]])
    psi = np.einsum("ab,bc->ac", ry, psi)
    psi[1] = psi[1, ::-1].copy()
    bell = np.array([[1.0, 0.0], [0.0, 1.0]]) / np.sqrt(2.0)
    clean = np.sum(psi * bell) ** 2
    flipped = np.sum(psi[:, ::-1] * bell) ** 2
    return (1 - noise) * clean + noise * flipped
