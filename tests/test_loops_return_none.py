"""A bare `return` (None) inside a loop captured as a loop op: in the frame (`for ...: if
x[i] < 0: return`) and in a helper the loop body calls (`sift_down`'s `else: return` inside its
`while`), where only the `.ret` flag is carried (`loops/returns.py`), against NumPy (values,
the None returned, the arguments updated in place); and loops that return None on one path
and a value on another, which still run right."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from test_loops_returns import run_calls
from user_kernels_algorithms import heap_sort as heapsort


def _sink(a, i):
    while i > 0:
        if a[i - 1] <= a[i]:
            return
        a[i - 1], a[i] = a[i], a[i - 1]
        i -= 1


def insertion_sort(a):
    for k in range(1, a.shape[0]):
        _sink(a, k)
    return a


def double_until_negative(x, out):
    for i in range(x.shape[0]):
        if x[i] < 0:
            return
        out[i] = x[i] * 2


def _mark_first_above(A, r, t, flags):
    for j in range(A.shape[1]):
        if A[r, j] > t:
            flags[r, j] = 1
            return


def mark_rows(A, t):
    flags = np.zeros(A.shape, dtype=np.int8)
    for r in range(A.shape[0]):
        _mark_first_above(A, r, t, flags)
    return flags


def index_or_none(x, t):
    for i in range(x.shape[0]):
        if x[i] > t:
            return i
        if x[i] < -t:
            return
    return -1


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_insertion_sort_helper_returns_none_from_its_while(dtype) -> None:
    ember.reset()
    rng = np.random.default_rng(0)
    run_calls(insertion_sort, [((rng.random(40) * 100).astype(dtype),),
                               (np.arange(40, dtype=dtype),)])


@pytest.mark.parametrize("n", [2, 17, 64])
def test_heapsort_helper_returns_none_from_its_while(n) -> None:
    ember.reset()
    rng = np.random.default_rng(n)
    run_calls(heapsort, [(rng.random(n),), (rng.random(n),)])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_frame_returns_none_from_a_loop(seed) -> None:
    """The early `return` and the end of the frame both give None."""
    ember.reset()
    x = np.random.default_rng(seed).random(30) - 0.05
    x = x if seed != 2 else np.abs(x)
    run_calls(double_until_negative, [(x, np.zeros(30))])


@pytest.mark.parametrize("t", [0.5, 0.99, 2.0])
def test_helper_returns_none_from_a_for_loop(t) -> None:
    ember.reset()
    A = np.random.default_rng(3).random((12, 20))
    run_calls(mark_rows, [(A, t)])


@pytest.mark.parametrize("t", [0.9, 2.0])
def test_none_and_a_value_returned_in_one_loop_run_as_numpy(t) -> None:
    ember.reset()
    x = np.random.default_rng(4).random(30) * 2 - 1
    run_calls(index_or_none, [(x, t)], native=False)
