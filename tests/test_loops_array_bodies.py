"""Loop ops whose bodies compute with whole arrays (products, norms, elementwise updates),
called again and again: what a loop keeps between runs (`body_loop::State`, planned
products) must follow each call's arrays, an inner loop op's state each outer trip's, and
the floating-point flags a trip raises must reach NumPy's warnings."""

from __future__ import annotations

import warnings

import ember
import numpy as np
from conftest import assert_same
from test_loops_returns import run_calls


def power_iteration(A, iters):
    b = np.ones(A.shape[1])
    for _ in range(iters):
        b = A @ b
        b = b / np.linalg.norm(b)
    return b


def products_both_sides(A, x, iters):
    y = x.copy()
    for _ in range(iters):
        y = 0.5 * (A.T @ y) + 0.25 * (y @ A) + (y @ y) * 1e-3
    return y


def nested_products(A, x, steps):
    y = x.copy()
    for _ in range(steps):
        z = y * 0.5
        for _ in range(10):
            z = A @ z * 0.1 + y * 0.01
        y = y + z
    return y


def overflowing(A, iters):
    b = np.ones(A.shape[1])
    for _ in range(iters):
        b = (A @ b) * 1e200
    return b


RNG = np.random.default_rng(21)


def test_loop_ops_follow_each_calls_arrays() -> None:
    run_calls(power_iteration, [(RNG.random((30, 30)), 12) for _ in range(4)])


def test_products_with_transposed_and_vector_operands() -> None:
    run_calls(products_both_sides, [(RNG.random((16, 16)) / 16, RNG.random(16), 20)
                                    for _ in range(3)])


def test_inner_loop_op_follows_the_outer_trips() -> None:
    run_calls(nested_products, [(RNG.random((12, 12)) / 12, RNG.random(12), 11)
                                for _ in range(3)])


def test_flags_raised_in_a_trip_give_numpys_warnings() -> None:
    A = np.ones((4, 4))
    compiled = ember.compile(overflowing)
    for _ in range(2):
        with warnings.catch_warnings(record=True) as want_log:
            warnings.simplefilter("always")
            want = overflowing(A, 20)
        with warnings.catch_warnings(record=True) as got_log:
            warnings.simplefilter("always")
            got = compiled(A, 20)
        assert_same(got, want)
        assert [str(w.message) for w in got_log] == [str(w.message) for w in want_log]
        assert want_log
