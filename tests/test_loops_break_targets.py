"""The loop variable read after a loop a `break` may end (`for it in range(maxit): ... if err
< tol: break`, then `return x, it`): the solver idiom. The loop op carries it out, so it holds
the item of the trip where the loop stopped, or the last item where none broke. Each must
equal plain Python and compile without a break."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_behaves_as_numpy, assert_compiles_whole


def jacobi_iterations(A, b, tol):
    x = np.zeros_like(b)
    D = np.diag(A)
    R = A - np.diag(D)
    for k in range(500):
        x_new = (b - R @ x) / D
        if np.linalg.norm(x_new - x) < tol:
            x = x_new
            break
        x = x_new
    return x, k


def newton_sqrt(x0, maxit):
    x = x0
    for it in range(maxit):
        nx = 0.5 * (x + 2.0 / x)
        if abs(nx - x) < 1e-12:
            break
        x = nx
    return x, it


def first_above(values, t):
    for i, v in enumerate(values):
        if v > t:
            break
    return i, v


def scan_rows(M, t):
    hits = np.zeros(M.shape[0], dtype=np.int64)
    for r in range(M.shape[0]):
        for c in range(M.shape[1]):
            if M[r, c] > t:
                break
        hits[r] = c
    return hits


def power_iteration(A, tol):
    v = np.ones(A.shape[0]) / np.sqrt(A.shape[0])
    lam = 0.0
    for step in range(1, 200):
        w = A @ v
        new = float(v @ w)
        v = w / np.linalg.norm(w)
        if abs(new - lam) < tol:
            lam = new
            break
        lam = new
    return lam, step


def halvings_counted_from_one(x, tol):
    k = 0
    for k in range(1, 50):
        x = x * 0.5
        if x.max() < tol:
            break
    return x, k


def second_loop_reuses_the_variable(x, t):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i]
    for i in range(x.shape[0]):
        if x[i] > t:
            break
    return total, i


def first_cell_above(M, t):
    found = False
    r = c = -1
    for i in range(M.shape[0]):
        for j in range(M.shape[1]):
            if M[i, j] > t:
                found = True
                r, c = i, j
                break
        if found:
            break
    return r, c, i


def rows_until_a_hit(M, t):
    hits = 0
    for i in range(M.shape[0]):
        hit = False
        for v in M[i]:
            if v > t:
                hit = True
                break
        if hit:
            hits += 1
    return hits


_rng = np.random.default_rng(11)
_A = _rng.standard_normal((6, 6)) + 12 * np.eye(6)
_b = _rng.standard_normal(6)
_S = _rng.standard_normal((6, 6))
_S = _S @ _S.T + np.diag(np.arange(6.0) * 3)
_v = _rng.standard_normal(40)
_M = _rng.standard_normal((12, 9))

CASES = [
    (jacobi_iterations, (_A, _b, 1e-10)),
    (jacobi_iterations, (_A, _b, 0.0)),  # never converges: the last trip's k
    (newton_sqrt, (1.0, 100)),
    (newton_sqrt, (np.float64(3.0), 3)),
    (first_above, (_v, 1.0)),
    (first_above, (_v, 100.0)),  # no break: the last item
    (scan_rows, (_M, 1.2)),
    (halvings_counted_from_one, (np.ones(3), 1e-3)),
    (halvings_counted_from_one, (np.ones(3), 0.0)),
    (second_loop_reuses_the_variable, (_v, 1.5)),
    (second_loop_reuses_the_variable, (_v, 50.0)),
    (first_cell_above, (_M[:6, :6], 1.5)),
    (first_cell_above, (_M[:6, :6], 9.0)),
    (rows_until_a_hit, (_M[:7, :5], 0.8)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(CASES)])
def test_loop_variables_after_a_break_behave_as_python_and_compile(fn, args):
    assert_behaves_as_numpy(fn, *args)
    assert_compiles_whole(fn, args)


def test_a_loop_that_may_make_no_trip_runs_as_python_there():
    # range(maxit) of an argument: no trip leaves `it` unbound, and Python raises.
    assert_behaves_as_numpy(newton_sqrt, 1.0, 0, compiled_code=False)
    assert_behaves_as_numpy(newton_sqrt, 2.0, 5)


def test_power_iteration_within_rounding_and_its_step_exactly():
    import ember

    want = power_iteration(_S, 1e-9)
    ember.reset()
    got = ember.compile(power_iteration)(_S, 1e-9)
    assert got[1] == want[1] and type(got[1]) is int
    assert got[0] == pytest.approx(want[0], rel=1e-13)
    assert_compiles_whole(power_iteration, (_S, 1e-9))
