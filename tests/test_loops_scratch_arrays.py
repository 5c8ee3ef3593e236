"""Loop bodies that make a scratch array of a static shape (`np.zeros(m)` or `np.full` in a
body, the copy NumPy takes of a run-time slice an overlapping update reads, `T[i, v:] |=
T[i - 1, :k]`), compiled into one native function with the array in a stack slot, refilled
on every trip. Each is checked against NumPy (values, dtypes, mutations, `IndexError` at the
same trip after the same stores) at edge sizes: no trip, one, odd counts, slices that are
empty, start past the end or at negative positions, rows longer than are written out one by
one; and the loop must be one native function, not a graph run per trip."""

from __future__ import annotations

import ember
import ember._core as _core
import numpy as np
import pytest
from probe_harness import assert_behaves_as_numpy


def subset_sums(values, target):
    n = len(values)
    T = np.zeros((n + 1, target + 1), dtype=np.bool_)
    T[:, 0] = True
    for i in range(1, n + 1):
        v = values[i - 1]
        T[i] = T[i - 1]
        if v <= target:
            T[i, v:] |= T[i - 1, :target + 1 - v]
    return T[n, target], T[n].sum()


def shift_right(a, shifts):
    a = a.copy()
    n = a.shape[0]
    for k in shifts:
        a[k:] = a[:n - k] + 1.0
    return a


def reversed_rows(x):
    out = np.empty_like(x)
    m = x.shape[1]
    for i in range(x.shape[0]):
        tmp = np.zeros(m)
        for j in range(m):
            tmp[j] = x[i, j] * 2.0
        for j in range(m):
            out[i, j] = tmp[m - 1 - j]
    return out


def filled_counts(x, limit):
    total = 0
    for i in range(x.shape[0]):
        seen = np.full(200, -3, dtype=np.int32)
        for j in range(x.shape[1]):
            seen[x[i, j]] = j
        for j in range(limit):
            total += seen[j]
    return total


def _native_functions(fn, *args) -> int:
    """How many native functions `fn`'s optimised graph compiles to (a loop run as a graph
    per trip makes none)."""
    text = str(ember.explain(fn, *args)).split("graph 0:\n", 1)[1]
    lines = []
    for line in text.splitlines():
        if not line.startswith("  "):
            break
        lines.append(line[2:])
    optimised = _core.pipeline_stages("\n".join(lines) + "\n")[-1][1]
    return sum(name.startswith("native") for name in _core.disassemble_ir(optimised))


RNG = np.random.default_rng(11)


@pytest.mark.parametrize("n,target", [(0, 150), (1, 150), (7, 200), (30, 181), (5, 0)])
def test_overlapping_run_time_slice_update_matches_numpy(n, target):
    values = RNG.integers(1, 40, n)
    assert_behaves_as_numpy(subset_sums, values, target)
    # A value past the target skips the update; zero updates the whole row with itself.
    assert_behaves_as_numpy(subset_sums, np.array([0, 500, target + 1, 3]), target)


@pytest.mark.parametrize("shifts", [[], [0], [3], [3, 1, 199], [200, 250], [-2, -150, 5],
                                    list(range(-210, 230, 20))])
def test_shifted_slice_copies_match_numpy(shifts):
    a = RNG.standard_normal(200)
    assert_behaves_as_numpy(shift_right, a, np.array(shifts, dtype=np.int64))


@pytest.mark.parametrize("rows,m", [(0, 150), (1, 150), (3, 151), (2, 600)])
def test_a_scratch_row_per_trip_matches_numpy(rows, m):
    assert_behaves_as_numpy(reversed_rows, RNG.standard_normal((rows, m)))


@pytest.mark.parametrize("limit", [0, 1, 200, 201])
def test_a_filled_table_per_trip_and_its_index_error_match_numpy(limit):
    x = RNG.integers(0, 200, (5, 9))
    assert_behaves_as_numpy(filled_counts, x, limit)
    bad = x.copy()
    bad[3, 4] = 200  # past the table on the fourth trip, after three trips' stores
    assert_behaves_as_numpy(filled_counts, bad, limit)
    bad[3, 4] = -201
    assert_behaves_as_numpy(filled_counts, bad, limit)
    bad[3, 4] = -200  # wraps to the first element, as NumPy does
    assert_behaves_as_numpy(filled_counts, bad, limit)


@pytest.mark.parametrize("fn,args", [
    (subset_sums, (RNG.integers(1, 40, 30), 181)),
    (shift_right, (RNG.standard_normal(200), RNG.integers(0, 201, 30))),
    (reversed_rows, (RNG.standard_normal((4, 150)),)),
    (filled_counts, (RNG.integers(0, 200, (5, 9)), 200)),
])
def test_the_loop_is_one_native_function(fn, args):
    assert _native_functions(fn, *args) >= 1
