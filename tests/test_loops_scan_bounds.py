"""Scans whose index moves one way while the loop's own test keeps it inside the array
(`while j >= 0 and a[j] > key: j -= 1`, `while k < n and x[k] <= x[i]: k += 1`), whose
accesses native code runs unchecked: NumPy's values and mutations on sorted, reversed and
random data, strided inputs, and NumPy's wrap-around and `IndexError` where the test does
not bound the index (no bound test, a bound test on another value, a step past the bound)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from probe_harness import assert_behaves_as_numpy


def insertion(a):
    a = a.copy()
    for i in range(1, a.shape[0]):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


def gapped(a, gap):
    for i in range(gap, len(a)):
        tmp = a[i]
        j = i
        while j >= gap and a[j - gap] > tmp:
            a[j] = a[j - gap]
            j -= gap
        a[j] = tmp
    return a


def next_greater(x):
    n = x.shape[0]
    out = np.full(n, -1, dtype=np.int64)
    for i in range(n):
        k = i + 1
        while k < n and x[k] <= x[i]:
            k += 1
        if k < n:
            out[i] = k
    return out


def unguarded_scan(a, key):
    # No bound test: `j` walks to negative indices (NumPy wraps them) and then past them.
    j = a.shape[0] - 1
    count = 0
    while a[j] > key:
        j -= 1
        count += 1
    return j, count


def guard_on_other_value(a, limit):
    # The loop's test bounds `t`, not the index `j`, which leaves the array.
    j = 0
    t = 0
    total = 0.0
    while t < limit:
        total += a[j]
        j += 2
        t += 1
    return total, j


def step_past_the_bound(a):
    # The test holds for the new value, but the body reads two past it.
    j = a.shape[0] - 1
    s = 0.0
    while j >= 0 and a[j] > 0:
        s += a[j - 2]
        j -= 1
    return s


DATA = [
    np.arange(12.0),
    np.arange(12.0)[::-1].copy(),
    np.array([3.0, -1.0, 3.0, 0.5, -7.0, 2.0, 2.0, 9.0, -0.0, 0.0, 1.0, -1.0]),
    np.array([5.0]),
    np.array([2.0, 1.0]),
]


@pytest.mark.parametrize("a", DATA, ids=range(len(DATA)))
def test_insertion_sort_and_next_greater(a):
    assert_behaves_as_numpy(insertion, a)
    assert_behaves_as_numpy(insertion, np.ascontiguousarray(np.repeat(a, 2))[::2])
    assert_behaves_as_numpy(next_greater, a)


@pytest.mark.parametrize("gap", [1, 2, 3, 5])
def test_gapped_insertion(gap):
    rng = np.random.default_rng(gap)
    assert_behaves_as_numpy(gapped, rng.integers(-20, 20, 17), gap)
    assert_behaves_as_numpy(gapped, rng.standard_normal(9).astype(np.float32), gap)


@pytest.mark.parametrize("key", [-1.0, 0.5, 3.0, 20.0])
def test_an_unguarded_scan_wraps_then_raises(key):
    a = np.array([0.0, 4.0, 1.0, 6.0, 2.0, 8.0])
    assert_behaves_as_numpy(unguarded_scan, a, key)


@pytest.mark.parametrize("limit", [0, 3, 5, 6, 9])
def test_a_test_on_another_value_keeps_the_check(limit):
    # No trip (`limit` 0) leaves nothing to compile.
    assert_behaves_as_numpy(guard_on_other_value, np.arange(10.0), limit,
                            compiled_code=limit > 0)


@pytest.mark.parametrize("data", [[1.0, 2.0, 3.0], [-1.0, 2.0, 3.0, 4.0], [1.0, 1.0], [0.0]])
def test_an_access_past_the_tested_value_keeps_the_check(data):
    assert_behaves_as_numpy(step_past_the_bound, np.array(data))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(st.integers(-5, 5), min_size=2, max_size=14), st.integers(1, 4))
def test_scans_agree_with_numpy(values, gap):
    a = np.array(values, dtype=np.int64)
    gap = min(gap, len(values) - 1)
    assert_behaves_as_numpy(insertion, a)
    assert_behaves_as_numpy(next_greater, a)
    assert_behaves_as_numpy(gapped, a.copy(), gap)
