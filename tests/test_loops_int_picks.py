"""`min(v + 1, vmax, gap)` of a NumPy int and Python ints in a loop body is either object as
the data decide (`mixed_picks`). Arithmetic of it with Python ints (`v - 1`, `(i + v) % n`)
has the same value either way unless int64 wraps, which a run-time check sends to Python:
such ops derive the pick's flag instead of running the frame as Python on every trip where
the Python int was picked, and a number bound again before it is read (`v` after
`if ...: v -= 1`) leaves the branch unmerged. Uses that tell (a returned value, a Python int
past int64) still give Python's result."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from probe_harness import assert_behaves_as_numpy, assert_compiles_whole


def ring_road(road, vmax, draws, p):
    L = road.shape[0]
    for t in range(draws.shape[0]):
        new = np.full(L, -1, dtype=road.dtype)
        for i in range(L):
            v = road[i]
            if v < 0:
                continue
            gap = 0
            while gap < vmax and road[(i + gap + 1) % L] < 0:
                gap += 1
            v = min(v + 1, vmax, gap)
            if v > 0 and draws[t, i] < p:
                v -= 1
            new[(i + v) % L] = v
        road = new
    return road


def clamp_and_shift(x, lo, hi, out):
    for i in range(x.shape[0]):
        k = max(min(x[i], hi), lo)
        out[i] = 2 * k - 1
    return out


def capped_offsets(idx, cap, table):
    n = table.shape[0]
    total = np.zeros(1, dtype=np.int64)
    for i in range(idx.shape[0]):
        j = min(idx[i] * 3, cap)
        if j > 4:
            j = j - 4
        total[0] += table[(j + i) % n]
    return total


def picked_then_returned(x, cap):
    last = 0
    for i in range(x.shape[0]):
        v = min(x[i], cap)
        last = v + 1  # its type leaves the loop: a Python int where `cap` was picked
    return last


def picked_past_int64(x, cap, out):
    for i in range(x.shape[0]):
        v = max(x[i], cap)
        out[i] = (v * 4) // 8  # a Python int past int64 first: Python's value
    return out


def picked_times_four(x, cap, out):
    for i in range(x.shape[0]):
        out[i] = max(x[i], cap) * 4  # past int64: Python raises storing it, NumPy wraps
    return out


def ints(*values):
    return np.array(values, dtype=np.int64)


def test_a_traffic_ring_runs_compiled():
    r = np.random.default_rng(0)
    road = np.where(r.random(40) < 0.3, r.integers(0, 4, 40), -1).astype(np.int64)
    assert_behaves_as_numpy(ring_road, road, 5, r.random((6, 40)), 0.25)


@pytest.mark.parametrize("lo,hi", [(0, 5), (-3, 2), (10, 20)])
def test_clamped_ints_stored_run_compiled(lo, hi):
    x = np.random.default_rng(1).integers(-8, 12, 30)
    assert_behaves_as_numpy(clamp_and_shift, x, lo, hi, np.zeros(30, dtype=np.int64))


@pytest.mark.parametrize("lo,hi", [(0, 5), (-2**40, 2**40)])
def test_clamped_ints_stored_into_int32_as_numpy(lo, hi):
    """A Python int out of int32's range raises where the NumPy int wraps: such a store
    tells them apart."""
    x = np.array([-2**33, 3, 2**35, -1], dtype=np.int64)
    assert_behaves_as_numpy(clamp_and_shift, x, lo, hi, np.zeros(4, dtype=np.int32),
                            compiled_code=False)


def test_capped_indices_run_compiled():
    r = np.random.default_rng(2)
    assert_behaves_as_numpy(capped_offsets, r.integers(0, 6, 25), 9, r.integers(0, 50, 7))


@pytest.mark.parametrize("cap", [3, 100])
def test_a_picked_int_returned_keeps_its_type(cap):
    assert_behaves_as_numpy(picked_then_returned, ints(5, 1, 7), cap, compiled_code=False)


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
@pytest.mark.parametrize("cap", [2**62, 2**61, 7])
def test_a_picked_python_int_past_int64_is_pythons(backend, cap):
    x = ints(1, 2**62 + 5, 3)
    want = picked_past_int64(x, cap, np.zeros(3, dtype=np.int64))
    got = ember.compile(picked_past_int64, backend=backend)(x, cap, np.zeros(3, dtype=np.int64))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("cap", [2**62, 3])
def test_a_picked_int_past_int64_raises_or_wraps_as_python(cap):
    assert_behaves_as_numpy(picked_times_four, ints(1, 2**62 + 1, 3), cap,
                            np.zeros(3, dtype=np.int64), compiled_code=False)


def bound_on_both_paths_only(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            t = x[i] * 2
            out[i] = t
        else:
            t = x[i] - 1
            out[i] = -t
    return out


def test_a_number_first_bound_on_both_paths_and_dead_after():
    assert_behaves_as_numpy(bound_on_both_paths_only, np.random.default_rng(3).random(20))


# A Python int counter (`n = 0`) that the first trip makes a NumPy int64 by adding an
# element read from an array (`n += table[c]`): NumPy's int64 after any trip, Python's 0
# where no trip ran.

SEGMENTS = np.array([0, 1, 1, 2, 1, 0, 2, 1])


def table_counts(field, level):
    above = (field > level).astype(np.uint8)
    codes = (above[:-1, :-1] << 2) | (above[1:, 1:] << 1) | above[1:, :-1]
    n = 0
    for i in range(codes.shape[0]):
        for j in range(codes.shape[1]):
            n += SEGMENTS[codes[i, j]]
    return n


def weighted_hits(idx, weights):
    total = 0
    hits = np.zeros(weights.shape[0], dtype=np.int64)
    for row in idx:
        for k in row:
            total = total + weights[k]
            hits[k] += 1
    return total, hits


def steps_while(jumps, start):
    pos, steps = start, 0
    while pos < jumps.shape[0]:
        steps = jumps[pos] + steps
        pos += 1 + jumps[pos]
    return pos, steps


@pytest.mark.parametrize("fn, make", [
    (table_counts, lambda r, n: (r.random((n + 1, 14)), 0.5)),
    (weighted_hits, lambda r, n: (r.integers(0, 5, (n, 13)), r.integers(-9, 9, 5))),
    (steps_while, lambda r, n: (r.integers(0, 3, 4 * n), 0)),
], ids=["table_counts", "weighted_hits", "steps_while"])
def test_a_python_int_plus_an_array_element_is_numpys(fn, make):
    for s, n in ((0, 12), (1, 20)):  # loops long enough to stay loop ops
        assert_behaves_as_numpy(fn, *make(np.random.default_rng(s), n))
    # No trip: the Python int stays.
    assert_behaves_as_numpy(fn, *make(np.random.default_rng(2), 0), compiled_code=False)
    assert_compiles_whole(fn, make(np.random.default_rng(3), 15))


# Picks of NumPy ints narrower than int64 and Python ints, only stored or compared with
# NumPy values: the same either way, so they run compiled (a Python int out of the dtype's
# range runs the frame as Python, which compares and raises as NumPy does).

def accelerate_int32(vel, gaps, vmax):
    for i in range(vel.shape[0]):
        vel[i] = min(vel[i] + 1, vmax)
        vel[i] = min(vel[i], gaps[i])
    return vel


def floor_pixels(img, floor, out):
    h, w = img.shape
    for i in range(h):
        for j in range(w):
            out[i, j] = max(img[i, j], floor)
    return out


def count_capped_above(a, b, cap):
    count = 0
    for i in range(a.shape[0]):
        if min(a[i], cap) > b[i]:
            count += 1
    return count


def capped_then_doubled(vel, vmax):
    for i in range(vel.shape[0]):
        vel[i] = min(vel[i] + 1, vmax) * 2  # arithmetic on the pick: it can tell
    return vel


@pytest.mark.parametrize("vmax", [5, 0, 2**31 - 1])
def test_narrow_int_picks_stored_run_compiled(vmax):
    r = np.random.default_rng(3)
    vel = r.integers(0, 8, 40).astype(np.int32)
    assert_behaves_as_numpy(accelerate_int32, vel, r.integers(0, 8, 40).astype(np.int32), vmax)
    img = r.integers(0, 256, (6, 7)).astype(np.uint8)
    assert_behaves_as_numpy(floor_pixels, img, 40, np.zeros((6, 7), dtype=np.uint8))
    a, b = r.integers(-9, 9, 30).astype(np.int16), r.integers(-9, 9, 30).astype(np.int16)
    assert_behaves_as_numpy(count_capped_above, a, b, 3)


@pytest.mark.parametrize("vmax", [-2**40, 2**40, -2**31 - 1])
def test_narrow_int_picks_of_ints_out_of_range_as_numpy(vmax):
    vel = np.array([1, 5, -3], dtype=np.int32)
    assert_behaves_as_numpy(accelerate_int32, vel, np.array([9, 9, 9], dtype=np.int32), vmax,
                            compiled_code=False)
    assert_behaves_as_numpy(floor_pixels, np.arange(6, dtype=np.uint8).reshape(2, 3),
                            vmax, np.zeros((2, 3), dtype=np.uint8), compiled_code=False)


@pytest.mark.parametrize("vmax", [3, 2**30 + 5])
def test_narrow_int_picks_in_arithmetic_as_numpy(vmax):
    vel = np.array([1, 2**30, 7, -2], dtype=np.int32)
    assert_behaves_as_numpy(capped_then_doubled, vel, vmax, compiled_code=False)
