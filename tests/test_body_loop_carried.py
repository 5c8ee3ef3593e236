"""A loop op whose body computes with whole arrays reads its first trip's carried arrays
where the caller's lie and writes its last trip's results where they go (`body_loop::run`):
strided and packed operands, arguments changed in place and returned, 0, 1 and many trips,
loops that end early and results the arguments alias, each over many sizes of one compiled
function against NumPy."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from probe_harness import record


def relax(steps, a):
    for _ in range(1, steps):
        a[1:-1] = (a[:-2] + a[1:-1] + a[2:]) / 3.0
    return a


def smooth_copy(x, steps):
    y = x.copy()
    for _ in range(steps):
        y = 0.5 * y + 0.25 * (np.roll(y, 1) + np.roll(y, -1))
    return y, x


def two_carried(x, steps):
    u, v = x.copy(), x * 2.0
    for k in range(steps):
        u, v = v - 0.1 * u, u + 0.01 * k
    return u + v, u


def until_small(x, steps):
    y = x.copy()
    for _ in range(steps):
        y = y * 0.5
        if np.abs(y).max() < 1e-3:
            break
    return y


def rows_relax(grid, steps):
    for _ in range(steps):
        grid[1:-1, :] = 0.5 * grid[1:-1, :] + 0.25 * (grid[:-2, :] + grid[2:, :])
    return grid


def _calls(fn, argss):
    ember.reset()
    compiled = ember.compile(fn)
    for args in argss:
        assert record(compiled, args) == record(fn, args), args
    return ember.stats()


@pytest.mark.parametrize("steps", [0, 1, 2, 3, 8])
def test_relax_in_place_over_sizes(steps: int) -> None:
    rng = np.random.default_rng(steps)
    stats = _calls(relax, [(steps, rng.standard_normal(n)) for n in (5, 9, 40, 17)])
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    # Sizes the symbolic graph's slices cannot bind (each slice keeps 2 or more) still
    # behave as NumPy, on entries of their own.
    _calls(relax, [(steps, rng.standard_normal(n)) for n in (5, 9, 3, 2, 1, 0)])


def test_relax_of_a_strided_argument() -> None:
    rng = np.random.default_rng(1)
    _calls(relax, [(4, rng.standard_normal(2 * n)[::2]) for n in (6, 11, 30)])
    _calls(relax, [(4, rng.standard_normal(n)[::-1]) for n in (6, 11, 30)])


@pytest.mark.parametrize("fn", [smooth_copy, two_carried, until_small])
def test_carried_copies_over_sizes_and_trips(fn) -> None:
    rng = np.random.default_rng(2)
    argss = [(rng.standard_normal(n), steps) for n in (4, 13, 50) for steps in (0, 1, 2, 5)]
    stats = _calls(fn, argss)
    assert stats["entry_fallbacks"] == 0


def test_ending_early_or_on_the_last_trip() -> None:
    big = np.full(8, 2.0 ** 10)
    small = np.full(8, 2.0 ** -9)
    _calls(until_small, [(small, 1), (small, 3), (big, 3), (big, 12), (big, 30)])


def test_two_d_rows_over_sizes() -> None:
    rng = np.random.default_rng(3)
    stats = _calls(rows_relax, [(rng.standard_normal((r, 4)), s)
                                for r, s in ((5, 3), (9, 1), (12, 4), (7, 0))])
    assert stats["entry_fallbacks"] == 0


def test_a_size_the_stencil_cannot_take_raises_as_numpy() -> None:
    compiled = ember.compile(relax)
    compiled(3, np.ones(10))
    compiled(3, np.ones(12))
    with pytest.raises(ValueError) as want:
        relax(3, np.ones((4, 3)))[0:0] = np.ones(2)
    with pytest.raises(type(want.value)):
        compiled(3, np.ones((4, 3)))[0:0] = np.ones(2)
