"""`np.flip` of slices with run-time bounds inside loop ops (`loops/run_exprs.py: flip`):
reduced, stored into another array, and stored into its own array at other elements (which
NumPy evaluates first: by mirrored pairs, or a temporary), for float and int dtypes, rows of
2-d arrays and both bounds run-time; against NumPy, compiled to one native graph without a break."""

from __future__ import annotations

import numpy as np
import pytest
from test_loops_returns import run_calls


def durbin_like(r):
    y = np.empty_like(r)
    alpha = -r[0]
    beta = 1.0
    y[0] = -r[0]
    for k in range(1, r.shape[0]):
        beta *= 1.0 - alpha * alpha
        alpha = -(r[k] + np.dot(np.flip(r[:k]), y[:k])) / beta
        y[:k] += alpha * np.flip(y[:k])
        y[k] = alpha
    return y


def prefix_convolution(x, h):
    out = np.zeros(x.shape[0])
    for k in range(1, x.shape[0]):
        out[k] = np.dot(np.flip(x[:k]), h[:k]) + np.flip(x[:k] * 2.0 - h[:k]).sum()
    return out


def pancake_prefixes(x, flips):
    for t in range(flips.shape[0]):
        k = flips[t]
        x[:k] = np.flip(x[:k])
    return x


def reversed_rows(A):
    out = np.zeros_like(A)
    for i in range(A.shape[0]):
        out[i, :i] = np.flip(A[i, :i]) * 2
        A[i, :i] -= np.flip(A[i, :i])
    return out


def middle_reversals(x):
    for k in range(2, x.shape[0]):
        x[k // 2:k] = np.flip(x[k // 2:k]) + x[k // 2:k]
    return x


def rows_from_the_row_before(A):
    for i in range(1, A.shape[0]):
        A[i, :i] += np.flip(A[i - 1, :i]) * 0.5 + A[i - 1, :i]
    return A


RNG = np.random.default_rng(11)


def test_durbin_recurrence() -> None:
    run_calls(durbin_like, [(RNG.random(24) / 24,) for _ in range(3)])


def test_reductions_of_flipped_runs_and_run_arithmetic() -> None:
    run_calls(prefix_convolution, [(RNG.random(18), RNG.random(18)) for _ in range(3)])


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.float32])
def test_prefix_reversed_in_place(dtype) -> None:
    run_calls(pancake_prefixes, [((RNG.random(16) * 100).astype(dtype),
                                  RNG.integers(0, 17, 30)) for _ in range(3)])


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_rows_of_a_matrix(dtype) -> None:
    run_calls(reversed_rows, [((RNG.random((9, 9)) * 50).astype(dtype),) for _ in range(2)])


def test_a_right_side_reading_another_row_of_the_target() -> None:
    # Not the stored element nor its mirror: computed first into a temporary.
    run_calls(rows_from_the_row_before, [(RNG.random((9, 9)),) for _ in range(2)])


def test_both_bounds_at_run_time() -> None:
    run_calls(middle_reversals, [(RNG.random(15),) for _ in range(2)])
