"""Reductions of 0-d values in loop bodies (`np.sum(np.sum(e))`, `np.max(np.min(...))`,
`np.any` of a number) that `scalarize` leaves once their operand became one number: native
code takes each as that number in the result's dtype, as NumPy does, rather than refusing
the loop op (which captured the frame again without it)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same


def energies(pos, vel, steps):
    out = np.zeros((steps, 6))
    for i in range(steps):
        pos = pos + 0.01 * vel
        ke = 0.5 * np.sum(np.sum(vel ** 2))
        pe = np.sum(np.sum(pos * pos, axis=1))
        out[i, 0] = ke
        out[i, 1] = pe
        out[i, 2] = np.max(np.min(pos))
        out[i, 3] = np.mean(np.sum(vel))
        out[i, 4] = np.any(np.sum(pos) > 1e9)
        out[i, 5] = np.prod(np.sum(vel[0]))
    return out


def int_counts(a, steps):
    out = np.zeros(steps, dtype=np.int64)
    for i in range(steps):
        out[i] = np.sum(np.sum(a > i)) + np.sum(np.all(a))
    return out


@pytest.mark.parametrize("steps", [4, 30])
def test_zero_d_reductions_in_loop_bodies_native(steps):
    rng = np.random.default_rng(3)
    pos, vel = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
    compiled = ember.compile(energies)
    for _ in range(2):
        assert_same(compiled(pos, vel, steps), energies(pos, vel, steps), rtol=1e-12)
    a = rng.integers(-3, 8, size=(4, 2)).astype(np.int8)
    counts = ember.compile(int_counts)
    assert_same(counts(a, steps), int_counts(a, steps))
    stats = ember.stats()
    assert stats["graph_breaks"] == 0 and stats["region_recaptures"] == 0, stats
    assert not stats["backend_fallbacks"], stats
