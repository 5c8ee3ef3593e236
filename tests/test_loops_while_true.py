"""`while True:` loops of the frame left by a `break` (or a `return`) on an array value: one
loop op from the first trip (`capture/loops/whiles.py: while_true`), against NumPy (values,
dtypes, the types of returned scalars, arguments); and such loops that cannot be one, which
still run right."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from test_loops_returns import run_calls
from user_kernels_physics import sandpile as topple


def newton_sqrt(a, tol):
    x = a[0]
    steps = 0
    while True:
        nxt = 0.5 * (x + a[0] / x)
        steps += 1
        if abs(nxt - x) < tol:
            break
        x = nxt
    return nxt, steps


def first_run_end(x, t):
    i = 0
    while True:
        if x[i] > t:
            return i
        i += 1
        if i == x.shape[0]:
            return -1


def collatz_steps(values):
    n = values[0]
    steps = 0
    while True:
        if n == 1:
            break
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps, n


def relax_until_small(u, tol):
    u = u.copy()
    sweeps = 0
    while True:
        new = 0.5 * (u[:-2] + u[2:])
        change = np.abs(new - u[1:-1]).max()
        u[1:-1] = new
        sweeps += 1
        if change < tol or sweeps >= 500:
            break
    return u, sweeps, change


@pytest.mark.parametrize("seed,high", [(0, 8), (1, 5), (2, 4)])
def test_toppling_grid_is_one_loop_op(seed, high) -> None:
    """`high` 4: no cell topples, the loop leaves on its first trip."""
    ember.reset()
    rng = np.random.default_rng(seed)
    grids = [rng.integers(0, high, (9, 7)) for _ in range(2)]
    run_calls(topple, [(g,) for g in grids])


def test_grid_of_int32_cells() -> None:
    ember.reset()
    rng = np.random.default_rng(5)
    run_calls(topple, [(rng.integers(0, 9, (6, 6)).astype(np.int32),)])


@pytest.mark.parametrize("value", [2.0, 0.25, 1.0, 1e6])
def test_newton_iteration_left_by_a_tolerance(value) -> None:
    ember.reset()
    run_calls(newton_sqrt, [(np.array([value]), 1e-12), (np.array([value * 3]), 1e-12)])


@pytest.mark.parametrize("t", [0.95, 0.5, 2.0])
def test_returns_from_a_while_true(t) -> None:
    """A return on either branch, the last one at the end of the data (`t` 2.0)."""
    ember.reset()
    x = np.random.default_rng(6).random(30)
    run_calls(first_run_end, [(x, t), (x[::-1].copy(), t)])


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_collatz_of_an_array_value(dtype) -> None:
    ember.reset()
    run_calls(collatz_steps, [(np.array([27], dtype),), (np.array([1], dtype),),
                              (np.array([97], dtype),)])


@pytest.mark.parametrize("tol", [1e-3, 1e-6, 10.0])
def test_sweeps_until_the_change_is_small(tol) -> None:
    ember.reset()
    u = np.random.default_rng(7).random(40)
    run_calls(relax_until_small, [(u, tol), (u[::-1].copy(), tol)])


def shrink_until_small(v, t):
    while True:
        if v.sum() < t:
            return v
        v = v[1:]


def test_while_true_that_cannot_be_a_loop_op_runs_as_python() -> None:
    """A carried array whose shape changes on every trip is no loop value."""
    ember.reset()
    x = np.random.default_rng(8).random(30)
    stats = run_calls(shrink_until_small, [(x, 4.0)], native=False)
    assert stats["graph_breaks"] >= 1


def pour_until_full(levels, cap):
    levels = levels.copy()
    rounds = 0
    while True:
        i = 0
        while i < levels.shape[0]:
            if levels[i] < cap:
                levels[i] += 1.0
            i += 1
        rounds += 1
        if levels.min() >= cap:
            break
    return levels, rounds


def test_while_inside_a_while_true() -> None:
    """The inner `while` on Python ints is a loop op inside the outer one."""
    ember.reset()
    x = np.random.default_rng(9).random(12) * 3
    run_calls(pour_until_full, [(x, 4.0), (x[::-1].copy(), 4.0)])


def fixed_point_cosine(a, tol):
    x = np.zeros_like(a)
    while True:
        x_new = np.cos(x) * 0.5 + a
        if np.max(np.abs(x_new - x)) < tol:
            break
        x = x_new
    return x_new


def value_iteration_small(rewards, P, discount, tol):
    V = np.zeros(rewards.shape[0])
    while True:
        Q = rewards + discount * (P @ V).T
        V_new = Q.max(axis=1)
        if np.max(np.abs(V_new - V)) < tol:
            break
        V = V_new
    return V_new, np.argmax(Q, axis=1)


def jacobi_sweeps(A, b, tol, max_iter=500):
    D = np.diag(A)
    R = A - np.diagflat(D)
    x = np.zeros_like(b)
    for _ in range(max_iter):
        x_new = (b - R @ x) / D
        if np.linalg.norm(x_new - x) < tol:
            break
        x = x_new
    return x_new


def old_iterate_returned(a, tol):
    x = np.zeros_like(a)
    while True:
        x_new = np.cos(x) * 0.5 + a
        if np.max(np.abs(x_new - x)) < tol:
            break
        x = x_new
    return x, x_new


@pytest.mark.parametrize("tol", [1e-3, 1e-10])
def test_iterate_rebound_after_the_break_test_is_one_loop_op(tol) -> None:
    """`x = x_new` after `if err < tol: break`: on the path that breaks `x` is not read
    after the loop, so the paths' arrays merge and the loop stays one loop op."""
    rng = np.random.default_rng(11)
    run_calls(fixed_point_cosine, [(rng.random(30), tol), (rng.random(30), tol)])
    ember.reset()
    P = rng.random((3, 6, 6))
    P /= P.sum(axis=2, keepdims=True)
    run_calls(value_iteration_small, [(rng.random((6, 3)), P, 0.9, tol)])
    ember.reset()
    A = rng.random((6, 6)) + 6 * np.eye(6)
    run_calls(jacobi_sweeps, [(A, rng.random(6), tol), (A, rng.random(6), tol)])


def test_iterate_read_after_the_loop_keeps_numpys_result() -> None:
    rng = np.random.default_rng(12)
    run_calls(old_iterate_returned, [(rng.random(30), 1e-9), (rng.random(30), 1e-3)],
              native=False)
