"""Counters carried by a loop (`out[k] = v; k += 1` on one side of a branch), which take at
most one step a trip, index their arrays without a check when every value they can reach is
inside: NumPy's values, lengths and mutations on data that keeps none, some and every
element, and NumPy's `IndexError` (after the same stores) where a counter can step past its
array (two steps a trip, a step of two, an array shorter than the trips, a counter that
does not start at zero, a descending counter that goes negative)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from probe_harness import assert_behaves_as_numpy


def compact(x):
    out = np.zeros(x.shape[0])
    k = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            out[k] = x[i]
            k += 1
    return out, k


def split_sign(x):
    neg = np.empty(len(x), dtype=x.dtype)
    pos = np.empty(len(x), dtype=x.dtype)
    a = b = 0
    for v in x:
        if v < 0:
            neg[a] = v
            a = a + 1
        else:
            pos[b] = v
            b += 1
    return neg[:a], pos[:b]


def fill_from_the_end(x):
    out = np.zeros(x.shape[0], dtype=np.int64)
    k = x.shape[0] - 1
    for i in range(x.shape[0]):
        if x[i] % 2 == 0:
            out[k] = x[i]
            k -= 1
    return out, k


def two_steps_a_trip(x):
    out = np.zeros(x.shape[0])
    k = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            out[k] = x[i]
            k += 2
    return out, k


def shorter_output(x, m):
    out = np.zeros(m)
    k = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            out[k] = x[i]
            k += 1
    return out


def offset_start(x, start):
    out = np.zeros(x.shape[0])
    k = start
    for i in range(x.shape[0]):
        if x[i] > 0:
            out[k] = x[i]
            k += 1
    return out


def descending_past_zero(x):
    out = np.zeros(x.shape[0])
    k = 2
    for i in range(x.shape[0]):
        if x[i] > 0:
            out[k] = x[i]
            k -= 1
    return out


DATA = [
    np.array([1.0, 2.0, 3.0, 4.0, 5.0]),
    np.array([-1.0, -2.0, -3.0, -4.0, -5.0]),
    np.array([3.0, -1.0, 0.0, 0.5, -7.0, 2.0, -0.0, 9.0, -2.0]),
    np.array([2.0]),
]


@pytest.mark.parametrize("x", DATA, ids=range(len(DATA)))
def test_counters_that_stay_inside(x):
    assert_behaves_as_numpy(compact, x)
    assert_behaves_as_numpy(split_sign, x)
    assert_behaves_as_numpy(fill_from_the_end, (x * 3).astype(np.int64))
    assert_behaves_as_numpy(compact, np.repeat(x, 2)[::2])


@pytest.mark.parametrize("x", DATA, ids=range(len(DATA)))
def test_counters_that_can_leave_raise_as_numpy(x):
    assert_behaves_as_numpy(two_steps_a_trip, x)
    assert_behaves_as_numpy(shorter_output, x, 2)
    assert_behaves_as_numpy(offset_start, x, 3)
    assert_behaves_as_numpy(offset_start, x, -2)
    assert_behaves_as_numpy(descending_past_zero, x)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=12), st.integers(0, 6))
def test_counters_agree_with_numpy(values, m):
    x = np.array(values, dtype=np.float64)
    assert_behaves_as_numpy(compact, x)
    assert_behaves_as_numpy(split_sign, x)
    assert_behaves_as_numpy(shorter_output, x, m)
