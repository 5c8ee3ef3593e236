"""Arrays private to the frame swapped in a loop body (`prev, cur = cur, prev`), carried in
place with swapped contents (`capture/loops/swaps.py`), and numbers bound to several locals
(`min_idx = i`): against NumPy, native where the arrays are private, and right where a list
also holds them (their identity is then seen, so they are not swapped in place)."""

from __future__ import annotations

import numpy as np
import pytest
from test_loops_returns import run_calls


def rolling_rows(x, steps):
    prev = np.zeros(x.shape[0])
    cur = np.zeros(x.shape[0])
    for t in range(steps):
        for i in range(x.shape[0]):
            cur[i] = prev[i] * 0.5 + x[i] * t
        prev, cur = cur, prev
    return prev, cur


def swapped_2d(a):
    u = a.copy()
    v = np.zeros_like(a)
    for t in range(a.shape[0]):
        for j in range(a.shape[1]):
            v[t, j] = u[t, j] + 1
        u, v = v, u
    return u - v


def held_by_a_list(x):
    prev = np.zeros(x.shape[0])
    cur = np.ones(x.shape[0])
    saved = [prev, cur]
    for i in range(x.shape[0]):
        cur[i] = prev[i] + x[i]
        prev, cur = cur, prev
    return saved[0], saved[1], prev, cur


def argmin_by_index(a):
    n = a.shape[0]
    for i in range(n):
        min_idx = i
        for j in range(i + 1, n):
            if a[j] < a[min_idx]:
                min_idx = j
        a[i], a[min_idx] = a[min_idx], a[i]
    return a


RNG = np.random.default_rng(12)


@pytest.mark.parametrize("steps", [9, 10])  # an odd and an even number of swaps
def test_private_arrays_swapped(steps) -> None:
    run_calls(rolling_rows, [(RNG.random(12), steps) for _ in range(2)])


def test_private_2d_arrays_swapped() -> None:
    run_calls(swapped_2d, [(RNG.random((9, 4)),) for _ in range(2)])


@pytest.mark.parametrize("n", [9, 10])
def test_arrays_a_list_holds_keep_their_identity(n) -> None:
    run_calls(held_by_a_list, [(np.arange(float(n)),)], native=False)


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_tuple_swap_through_a_carried_index(dtype) -> None:
    run_calls(argmin_by_index, [((RNG.random(20) * 100).astype(dtype),) for _ in range(3)])


def wave_passed_on(u, u_prev, c2, steps):
    for _ in range(steps):
        u_next = np.zeros_like(u)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c2 * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_prev, u = u, u_next
    return u


def wave_prev_read_after(u, u_prev, c2, steps):
    for _ in range(steps):
        u_next = np.zeros_like(u)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c2 * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_prev, u = u, u_next
    u_prev[0] = -1.0  # the argument `u` itself after one trip
    return u


def wave_prev_scaled(u, u_prev, steps):
    for _ in range(steps):
        u_next = u * 0.5 + u_prev
        u_prev *= 0.9  # an argument, on the first trip
        u_prev, u = u, u_next
    return u


@pytest.mark.parametrize("steps", [1, 2, 9, 30])
def test_arguments_passed_on_to_another_local(steps) -> None:
    rng = np.random.default_rng(steps)
    run_calls(wave_passed_on, [(rng.random(20), rng.random(20), 0.1, steps)
                               for _ in range(2)], native=steps > 8)


@pytest.mark.parametrize("steps", [1, 2, 9, 30])
def test_arguments_passed_on_and_read_after_the_loop(steps) -> None:
    rng = np.random.default_rng(steps)
    run_calls(wave_prev_read_after, [(rng.random(20), rng.random(20), 0.1, steps)],
              native=False)


@pytest.mark.parametrize("steps", [1, 9, 30])
def test_arguments_passed_on_after_an_update_in_place(steps) -> None:
    rng = np.random.default_rng(steps)
    run_calls(wave_prev_scaled, [(rng.random(20), rng.random(20), steps)], native=False)


def steps_from_an_alias(y0, h, steps):
    traj = np.empty((steps + 1, y0.shape[0]))
    traj[0] = y0
    y = np.asarray(y0, dtype=np.float64)  # the argument itself: `y0` is not read again
    for i in range(steps):
        y = y + h * np.sin(y)
        traj[i + 1] = y
    return traj


def alias_updated_in_place(y0, steps):
    y = y0
    for i in range(steps):
        y[0] += 1.0  # on the first trip, `y0` too
        y = y * 0.5
    return y


@pytest.mark.parametrize("steps", [0, 1, 9, 30])
def test_a_dead_alias_keeps_the_first_array(steps) -> None:
    rng = np.random.default_rng(steps)
    run_calls(steps_from_an_alias, [(rng.random(3), 0.1, steps) for _ in range(2)],
              native=steps > 8)
    run_calls(alias_updated_in_place, [(rng.random(3), steps) for _ in range(2)], native=False)
