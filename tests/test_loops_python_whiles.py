"""`while` loops of the frame whose tests are Python values (`while i * i <= n:`) and whose
body branches on array values: one loop op carrying the ints the body assigns as loop values
(`capture/loops/whiles.py: python_while`), against NumPy; and such loops that cannot be one,
which still run right."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from test_loops_returns import run_calls
from test_loops_windows import run_both


def sieve_count(n):
    is_prime = np.ones(n + 1, dtype=np.bool_)
    is_prime[:2] = False
    i = 2
    while i * i <= n:
        if is_prime[i]:
            for j in range(i * i, n + 1, i):
                is_prime[j] = False
        i += 1
    return len(np.nonzero(is_prime)[0])


def sieve_and_index(n):
    is_prime = np.ones(n + 1, dtype=np.bool_)
    is_prime[:2] = False
    i = 2
    while i * i <= n:
        if is_prime[i]:
            for j in range(i * i, n + 1, i):
                is_prime[j] = False
        i += 1
    return is_prime, i


def marks_until(x, limit):
    out = np.zeros(x.shape[0], dtype=np.int32)
    i = 0
    total = 0.0
    while i < x.shape[0]:
        if x[i] > 0.5:
            out[i] = 1
            total += x[i]
            if total >= limit:
                break
        i += 1
    return out, total, i


def marks_listed(x):
    found = []
    i = 0
    while i < x.shape[0]:
        if x[i] > 0.5:
            found.append(i)
        else:
            found.append(x[i])  # items of two types, which one buffer cannot hold
        i += 1
    return found


@pytest.mark.parametrize("n", [3, 4, 30, 97, 600])
def test_sieve_while_is_one_loop_op(n) -> None:
    ember.reset()
    run_calls(sieve_count, [(n,), (n,)])


@pytest.mark.parametrize("n", [10, 49, 200])
def test_while_carries_its_python_int_out(n) -> None:
    ember.reset()
    run_calls(sieve_and_index, [(n,)])


@pytest.mark.parametrize("limit", [0.0, 2.5, 100.0])
def test_while_left_by_a_break(limit) -> None:
    ember.reset()
    x = np.random.default_rng(3).random(40)
    run_calls(marks_until, [(x, limit), (x[::-1].copy(), limit)])


def test_while_that_cannot_be_a_loop_op_runs_as_python() -> None:
    ember.reset()
    x = np.random.default_rng(4).random(30)
    stats = run_calls(marks_listed, [(x,)], native=False)
    assert stats["graph_breaks"] >= 1


@pytest.mark.parametrize("n", [30, 97])
def test_sieve_while_on_the_eager_backend(n) -> None:
    ember.reset()
    run_both(sieve_and_index, n, backend="eager")


def golden_section(a, b, coeffs, tol):
    gr = (5 ** 0.5 - 1) / 2
    c = b - gr * (b - a)
    d = a + gr * (b - a)
    it = 0
    while abs(b - a) > tol:
        if np.polyval(coeffs, c) < np.polyval(coeffs, d):
            b = d
        else:
            a = c
        c = b - gr * (b - a)
        d = a + gr * (b - a)
        it += 1
    return (a + b) / 2, it


def bisect_root(bounds, coeffs, tol):
    a, b = bounds[0], bounds[1]
    fa = np.polyval(coeffs, a)
    steps = 0
    while b - a > tol and steps < 200:
        m = 0.5 * (a + b)
        fm = np.polyval(coeffs, m)
        if fm * fa <= 0:
            b = m
        else:
            a, fa = m, fm
        steps += 1
    return a, b, steps


def polynomial_sum(x, coeffs):
    s = 0.0
    for i in range(x.shape[0]):
        s += np.polyval(coeffs, x[i]) * coeffs[1]
    return s


@pytest.mark.parametrize("tol", [1e-8, 1e-3, 10.0])
def test_golden_section_on_python_floats(tol) -> None:
    """The test `abs(b - a) > tol` on Python floats the body keeps; `tol` 10.0: no trip."""
    ember.reset()
    coeffs = np.array([1.0, -1.0, -2.0, 1.0])
    run_calls(golden_section, [(-2.0, 3.0, coeffs, tol), (-2.0, 3.0, coeffs * 2, tol)])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_bisection_on_array_scalars(dtype) -> None:
    ember.reset()
    coeffs = np.array([1.0, 0.0, -2.0], dtype)
    run_calls(bisect_root, [(np.array([0.0, 2.0], dtype), coeffs, 1e-6),
                            (np.array([-3.0, 0.0], dtype), coeffs, 1e-6)])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_polyval_of_an_element_in_a_loop_op(dtype) -> None:
    ember.reset()
    rng = np.random.default_rng(9)
    x = (rng.random(50) * 10).astype(dtype)
    run_calls(polynomial_sum, [(x, np.array([2, -1, 3], dtype))])


# A first test on Python values that passes (`delta = 1.0; while delta > 1e-14:`): the loop
# op makes a trip on every call, so locals its body first assigns are read after it.
def legendre_roots(n):
    z = np.cos(np.pi * (np.arange(1, n + 1) - 0.25) / (n + 0.5))
    delta = 1.0
    while delta > 1e-14:
        p0 = np.ones_like(z)
        p1 = z.copy()
        for k in range(2, n + 1):
            p0, p1 = p1, ((2 * k - 1) * z * p1 - (k - 1) * p0) / k
        dp = n * (z * p1 - p0) / (z ** 2 - 1)
        step = p1 / dp
        z -= step
        delta = np.max(np.abs(step))
    return z, 2 / ((1 - z ** 2) * dp ** 2)


def cosine_fixed_point(x):
    err = np.inf
    it = 0
    while err > 1e-10 and it < 200:
        new = np.cos(x)
        err = np.max(np.abs(new - x))
        x = new
        it += 1
    return new, err, it


def newton_cube_root(c):
    x = 1.0
    step = 1.0
    while abs(step) > 1e-13:
        fx = x ** 3 - c[0]
        step = fx / (3 * x ** 2)
        x -= step
    return x, fx


@pytest.mark.parametrize("fn, calls", [
    (legendre_roots, [(12,), (12,)]),
    (cosine_fixed_point, [(np.linspace(0.0, 1.0, 9),), (np.linspace(-1.0, 2.0, 9),)]),
    (newton_cube_root, [(np.array([8.0]),), (np.array([30.0]),)]),
], ids=["legendre_roots", "cosine_fixed_point", "newton_cube_root"])
def test_locals_first_assigned_in_a_while_that_trips(fn, calls) -> None:
    ember.reset()
    run_calls(fn, calls)
