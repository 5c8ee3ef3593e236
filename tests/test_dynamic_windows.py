"""Loop bodies that read or store a whole axis of symbolic size at a run-time index
(`out[:, i] = z`, `hist[t] = x`, `traj[k] = pos`, `zs[k]` of a batch of points): one loop op
for every size, so each function compiles at most twice over any number of sizes, gives
NumPy's results, and a shape mismatch raises NumPy's exception."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from test_dynamic_rows import check_sizes


def columns_of_states(seeds, n):
    state = seeds.astype(np.uint64)
    out = np.empty((seeds.shape[0], n), dtype=np.uint64)
    for i in range(n):
        state = state * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
        out[:, i] = state >> np.uint64(33)
    return out


def history_rows(x, steps):
    hist = np.zeros((steps, x.shape[0]))
    for t in range(steps):
        x = 0.5 * (x + np.roll(x, 1))
        hist[t] = x
    return hist


def trajectory(pos, vel, steps, dt):
    traj = np.empty((steps, pos.shape[0], 2))
    for k in range(steps):
        pos = pos + dt * vel
        vel = vel - dt * pos
        traj[k] = pos
    return traj


def tracked_residuals(zs, gain):
    pos = zs[0].copy()
    res = np.zeros(zs.shape[0])
    for k in range(1, zs.shape[0]):
        r = zs[k] - pos
        pos = pos + gain * r
        res[k] = np.sqrt(np.mean(r ** 2))
    return pos, res


def cleared_columns(a, every):
    out = a.copy()
    for j in range(a.shape[1]):
        out[:, j] = 0.0 if j < every else -1.0
    return out


def flipped_frames(g, draws, p):
    frames = np.zeros((draws.shape[0],) + g.shape)
    for t in range(draws.shape[0]):
        g = np.where(draws[t] < p, 1.0 - g, g)
        frames[t] = g
    return frames


# The step counts change with the sizes (both axes of the result symbolic).
WINDOWS = [
    (columns_of_states, lambda n, rng: (rng.integers(0, 2**32, n).astype(np.uint64),
                                        n // 2 + 3)),
    (history_rows, lambda n, rng: (rng.random(n), n // 3 + 2)),
    (trajectory, lambda n, rng: (rng.random((n, 2)), rng.random((n, 2)), n // 2 + 2, 0.1)),
    (tracked_residuals, lambda n, rng: (rng.random((n // 2 + 2, n, 2)), 0.4)),
    (cleared_columns, lambda n, rng: (rng.random((n, n + 4)), 3)),
    (flipped_frames, lambda n, rng: (rng.random((n, n + 1)), rng.random((n // 2 + 2, n, n + 1)),
                                     0.3)),
]
IDS = [f.__name__ for f, _ in WINDOWS]


@pytest.fixture(autouse=True)
def _fresh():
    ember.reset()
    yield
    ember.reset()


@pytest.mark.parametrize("fn, make", WINDOWS, ids=IDS)
@pytest.mark.parametrize("backend", ["cranelift", "eager"])
def test_whole_symbolic_axes_at_run_time_indices_compile_twice(fn, make, backend):
    stats = check_sizes(fn, make, (5, 9, 14, 31, 6), backend=backend)
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]


@pytest.mark.parametrize("fn, make", WINDOWS, ids=IDS)
def test_whole_symbolic_axes_at_sizes_zero_one_and_two(fn, make):
    check_sizes(fn, make, (5, 9, 2, 1, 0, 7, 2))


def lower_block_sums(a):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = a[i:, :i + 1].sum()
    return out


def clipped_band_sums(a):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = a[i:i + 3, 1:].sum() - a[i - 1:i + 1, :2].sum()
    return out


def masked_lower(a):
    b = a.copy()
    for i in range(a.shape[0]):
        b[i:, :i] = 0.5
    return b


BLOCKS = [
    (lower_block_sums, lambda n, rng: (rng.random((n, n + 2)),)),
    (clipped_band_sums, lambda n, rng: (rng.random((n, n + 3)),)),
    (masked_lower, lambda n, rng: (rng.random((n + 1, n)),)),
]
BLOCK_IDS = [f.__name__ for f, _ in BLOCKS]


@pytest.mark.parametrize("fn, make", BLOCKS, ids=BLOCK_IDS)
def test_2d_slices_with_run_time_bounds_of_symbolic_axes_compile_twice(fn, make):
    stats = check_sizes(fn, make, (5, 9, 14, 23, 6))
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]


@pytest.mark.parametrize("fn, make", BLOCKS, ids=BLOCK_IDS)
def test_2d_slices_with_run_time_bounds_at_sizes_zero_one_and_two(fn, make):
    check_sizes(fn, make, (5, 9, 2, 1, 0, 7, 2))


def column_of_other_length(a, z):
    for j in range(a.shape[1]):
        a[:, j] = z * j
    return a


def test_a_column_of_another_length_raises_numpys_error():
    compiled = ember.compile(column_of_other_length)
    for n in (4, 7, 12):
        a, z = np.zeros((n, n + 2)), np.arange(n, dtype=float)
        np.testing.assert_array_equal(compiled(a, z),
                                      column_of_other_length(np.zeros((n, n + 2)), z))
    assert ember.stats()["captures"] <= 2, ember.stats()["recompile_reasons"]
    with pytest.raises(ValueError):
        column_of_other_length(np.zeros((6, 8)), np.arange(5.0))
    with pytest.raises(ValueError):
        compiled(np.zeros((6, 8)), np.arange(5.0))
