"""np.roll by a shift read from an array inside loop ops (lattice-Boltzmann streaming,
`np.roll(f[i], CX[i], axis=1)` over the velocity tables): against NumPy, and one graph of
loop ops (`numpy_api/norms.py: _roll_by_data`)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from test_loops_returns import run_calls

CX = np.array([0, 1, 0, -1, 0, 1, -1, -1, 1, 3, -4, 2])
CY = np.array([0, 0, 1, 0, -1, 1, 1, -1, -1, -2, 5, 1])


def stream(f, steps):
    for _ in range(steps):
        for i in range(f.shape[0]):
            f[i] = np.roll(np.roll(f[i], CX[i], axis=1), CY[i], axis=0)
    return f


def shifted_sum(x, shifts):
    total = np.zeros_like(x)
    for k in range(shifts.shape[0]):
        total += np.roll(x, shifts[k]) * (k + 1)
    return total


def ring_walk(x, steps, hops):
    for t in range(steps):
        x = 0.5 * (x + np.roll(x, hops[t % hops.shape[0]], axis=0))
    return x


RNG = np.random.default_rng(5)


@pytest.mark.parametrize("fn,make", [
    (stream, lambda: (RNG.random((12, 6, 7)), 3)),
    (shifted_sum, lambda: (RNG.standard_normal((4, 5)),
                           RNG.integers(-30, 30, 11).astype(np.int32))),
    (ring_walk, lambda: (RNG.standard_normal((9, 2)), 14, np.array([1, -2, 4, 0, -9]))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_roll_by_data_in_loops(fn, make) -> None:
    ember.reset()
    run_calls(fn, [make() for _ in range(2)])
