"""Loops whose iterations read the element the previous iteration stored (`y[i - 1]` after
`y[i] = ...`), which native code keeps in a register: the same values as NumPy for every
step, direction and layout, the first element read through a negative index, stores in both
or one side of a branch, stores the next iteration reads back at other indices, and column
recurrences in 2-d tables."""

from __future__ import annotations

import re

import ember
import numpy as np
import pytest
from conftest import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st


def run_both(fn, *args):
    want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = fn(*want_args)
    ember.reset()
    got = ember.compile(fn)(*got_args)
    assert_same(got, want, rtol=0, atol=0)
    for g, w in zip(got_args, want_args, strict=True):
        if isinstance(w, np.ndarray):
            np.testing.assert_array_equal(g, w)
    assert ember.stats()["graph_breaks"] == 0
    return got


def forward_recurrence(x):
    y = x.copy()
    for i in range(1, x.shape[0]):
        y[i] = 0.5 * y[i - 1] + x[i]
    return y


def backward_recurrence(x):
    y = x.copy()
    for i in range(x.shape[0] - 2, -1, -1):
        y[i] = y[i + 1] * 0.75 - x[i]
    return y


def every_other(x):
    y = x.copy()
    for i in range(2, x.shape[0], 2):
        y[i] = y[i - 2] + x[i - 1]
    return y


def wraps_at_the_start(x):
    y = x.copy()
    for i in range(x.shape[0]):
        y[i] = y[i - 1] * 0.5 + 1.0
    return y


def read_twice(x):
    y = np.zeros_like(x)
    for i in range(1, x.shape[0]):
        y[i] = y[i - 1] + x[i] * y[i - 1] - y[i]
    return y


def stored_in_both_sides(x):
    y = np.zeros(x.shape[0], dtype=np.int64)
    for i in range(1, x.shape[0]):
        if x[i] > x[i - 1]:
            y[i] = y[i - 1] + 1
        else:
            y[i] = y[i - 1] - 2
    return y


def stored_in_one_side(x):
    y = np.ones(x.shape[0])
    for i in range(1, x.shape[0]):
        if x[i] > 0:
            y[i] = y[i - 1] + x[i]
    return y


def read_back_after_store(x):
    y = np.zeros_like(x)
    for i in range(1, x.shape[0]):
        y[i] = y[i - 1] + x[i]
        y[i - 1] = y[i] * 0.5
    return y


def column_recurrence(A):
    T = A.copy()
    for j in range(T.shape[1]):
        for i in range(1, T.shape[0]):
            T[i, j] = T[i - 1, j] * 0.5 + T[i, j]
    return T


def diagonal(A):
    T = A.copy()
    for i in range(1, min(T.shape[0], T.shape[1])):
        T[i, i] = T[i - 1, i - 1] + T[i, i - 1]
    return T


def int32_counter(x):
    c = np.zeros(x.shape[0], dtype=np.int32)
    for i in range(1, x.shape[0]):
        c[i] = c[i - 1] * 3 + x[i]
    return c


def row_products(x):
    # an accumulator at an index the inner loop does not move (mvt's `x1[i]`)
    n = x.shape[0]
    out = np.zeros(n)
    for i in range(n):
        for j in range(n):
            out[i] = out[i] + x[(i + j) % n] * x[j]
    return out


def last_slot(x):
    y = np.zeros(3)
    for i in range(x.shape[0]):
        y[-1] = y[-1] * 0.5 + x[i]
        y[0] = y[-1] - 1.0
    return y


def accumulator_read_at_moving_index(x):
    # y[2] is also read through y[i] (at i == 2), after the iterations that stored it
    y = x.copy()
    for i in range(y.shape[0]):
        y[2] = y[2] + y[i] * 0.25
    return y


def accumulator_in_one_branch(x):
    y = np.zeros(2)
    for i in range(x.shape[0]):
        if x[i] > 0:
            y[1] = y[1] + x[i]
    return y


KERNELS = [forward_recurrence, backward_recurrence, every_other, wraps_at_the_start,
           read_twice, stored_in_both_sides, stored_in_one_side, read_back_after_store,
           row_products, last_slot, accumulator_read_at_moving_index,
           accumulator_in_one_branch]


@pytest.mark.parametrize("fn", KERNELS, ids=lambda f: f.__name__)
@settings(max_examples=6, deadline=None, derandomize=True)
@given(n=st.integers(10, 60), seed=st.integers(0, 2**16))
def test_one_dimensional(fn, n, seed) -> None:
    run_both(fn, np.random.default_rng(seed).standard_normal(n))


@pytest.mark.parametrize("fn", [forward_recurrence, backward_recurrence, every_other])
def test_strided_and_reversed_inputs(fn) -> None:
    x = np.random.default_rng(1).standard_normal(61)
    run_both(fn, x[::3])
    run_both(fn, x[::-2])


@pytest.mark.parametrize("fn", [column_recurrence, diagonal], ids=lambda f: f.__name__)
@pytest.mark.parametrize("order", ["C", "F", "strided"])
def test_two_dimensional(fn, order) -> None:
    big = np.random.default_rng(2).standard_normal((24, 30))
    A = {"C": big[:12, :15].copy(), "F": np.asfortranarray(big[:12, :15]),
         "strided": big[::2, ::2]}[order]
    run_both(fn, A)


def test_integer_wraparound_is_numpys() -> None:
    run_both(int32_counter, np.arange(40, dtype=np.int32))


def accumulate_at(x, k):
    y = np.zeros(4)
    for i in range(x.shape[0]):
        y[k] = y[k] + x[i]
    return y


@pytest.mark.parametrize("k", [0, 3, -4, 4, -5])
def test_accumulator_index_out_of_bounds_raises_as_numpy(k) -> None:
    x = np.arange(20.0)
    try:
        want = accumulate_at(x, k)
    except IndexError as e:
        with pytest.raises(IndexError, match=re.escape(str(e))):
            ember.compile(accumulate_at)(x, k)
        return
    np.testing.assert_array_equal(ember.compile(accumulate_at)(x, k), want)
