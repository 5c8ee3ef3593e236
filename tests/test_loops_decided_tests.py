"""Comparisons of index arithmetic that a loop's bounds decide (`i + 1 > 0` for `i` in a
`range`, the overflow test each Python-int `i + 1` and `j - 1` carries) are folded in native
code, and a flag or-ed with a test found false is the flag. Checked against NumPy and Python
where the ranges decide a test, where they do not (a test true on part of the range, steps
of -1 and 2, no trip, one trip), and where the arithmetic does leave `int64` (bounds near
2**63, a doubling Python int), which must still give Python's exact integers."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_behaves_as_numpy


def clipped_prefix(a):
    n = a.shape[0]
    out = np.zeros(n)
    for i in range(n):
        if i - 3 >= 0:  # true on part of the range
            out[i] = a[i - 3]
        if i + 1 > 0:  # always
            out[i] += 1.0
        if i > n + 5 or i < -1:  # never
            out[i] = -1.0
    return out


def backwards_pairs(a, step):
    total = 0.0
    n = a.shape[0]
    for i in range(n - 1, -1, step):
        if i - 1 < 0:
            total += 100.0
        elif i + 1 <= n and a[i - 1] > a[i]:
            total += a[i - 1] - a[i]
    return total


def table_walk(T):
    n = T.shape[0]
    best = 0
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            v = T[i + 1, j - 1] + 2 if length > 2 else 2
            if v > best:
                best = v
    return best


def near_limit(a, start):
    s = 0.0
    for i in range(start, start + 3):
        s += a[(i + 10) % 4]
    return s


def doubling(k):
    x = 1
    for i in range(k):
        x = x * 2 + i
    return x


RNG = np.random.default_rng(5)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 9, 40])
def test_tests_decided_on_all_or_part_of_the_range_match_numpy(n):
    assert_behaves_as_numpy(clipped_prefix, RNG.standard_normal(n))


@pytest.mark.parametrize("n,step", [(0, -1), (1, -1), (2, -1), (7, -1), (7, -2), (12, -3)])
def test_descending_ranges_match_numpy(n, step):
    # Under two trips the loop folds away at capture: nothing is left to compile.
    assert_behaves_as_numpy(backwards_pairs, RNG.standard_normal(n), step,
                            compiled_code=n >= 2)


@pytest.mark.parametrize("n", [1, 2, 3, 17])
def test_index_arithmetic_of_a_table_matches_numpy(n):
    assert_behaves_as_numpy(table_walk, RNG.integers(0, 9, (n, n)), compiled_code=n >= 3)


@pytest.mark.parametrize("start", [0, 2**62, 2**63 - 13, 2**63 - 11, 2**63 - 4, -2**63])
def test_index_arithmetic_leaving_int64_matches_python(start):
    assert_behaves_as_numpy(near_limit, RNG.standard_normal(4), start)


@pytest.mark.parametrize("k", [0, 1, 61, 62, 63, 70])
def test_a_growing_python_int_matches_python(k):
    assert_behaves_as_numpy(doubling, k, compiled_code=False)
