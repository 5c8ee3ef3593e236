"""A local that is a NumPy scalar on one path and a Python number on the other (`up =
labels[i - 1, j] if i > 0 else 0`): capture keeps both, each of its own type, with the flag
that picks one (`capture/variables/choice.py`). Operators and `min`/`max` are computed for
each side (`lift`), a truth test, an index or a store settles to one value, and loops carry
such a local as its flag and both numbers (`capture/loops/tuples.py`), so the result's type
(a Python int or an `np.int32`) is what plain Python gives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy, assert_compiles_whole


def prefix_restart(a):
    out = np.zeros(a.shape[0], dtype=np.int32)
    for i in range(a.shape[0]):
        prev = out[i - 1] if i > 0 else 0
        if prev == 0:
            out[i] = a[i]
        else:
            out[i] = prev + a[i] % 3
    return out


def grid_best_path(a):
    h, w = a.shape
    s = np.zeros_like(a)
    for i in range(h):
        for j in range(w):
            up = s[i - 1, j] if i > 0 else 0
            left = s[i, j - 1] if j > 0 else 0
            s[i, j] = max(up, left) + a[i, j]
    return s


def grid_labels(a):
    h, w = a.shape
    s = np.zeros_like(a)
    for i in range(h):
        for j in range(w):
            up = s[i - 1, j] if i > 0 else 0
            left = s[i, j - 1] if j > 0 else 0
            if up and left:
                s[i, j] = min(up, left)
            elif up > left:
                s[i, j] = up + 1
            elif not left:
                s[i, j] = a[i, j]
    return s


def thresholded_total(a, cut):
    t = 0
    for i in range(a.shape[0]):
        v = a[i] if a[i] > cut else 0
        t += v
    return t


def count_rises(a):
    c = 0
    for i in range(len(a)):
        v = a[i - 1] if i else -1
        if v < a[i]:
            c += 1
    return c


def chase_roots(a, parent):
    out = np.zeros(a.shape[0], dtype=np.int32)
    for i in range(a.shape[0]):
        x = a[i - 1] if i > 0 else 0
        while parent[x] != x:
            x = parent[x]
        out[i] = x
    return out


def roots_by_helper(a, parent):
    out = np.zeros(a.shape[0], dtype=np.int32)

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    for i in range(a.shape[0]):
        up = a[i - 1] if i > 0 else 0
        if up:
            out[i] = find(up)
    return out


def widest_gap(a):
    best = 0
    for i in range(1, len(a)):
        gap = a[i] - a[i - 1] if a[i] > a[i - 1] else 0
        best = max(best, gap)
    return best


def _ints(r, n=24, hi=6):
    return (r.integers(0, hi, n).astype(np.int32),)


def _parents(r):
    a = r.integers(0, 8, 16).astype(np.int32)
    parent = np.array([0, 0, 1, 2, 2, 4, 5, 6], dtype=np.int32)
    return a, parent


CASES = [
    (prefix_restart, _ints),
    (grid_best_path, lambda r: (r.integers(0, 9, (5, 7)),)),
    (grid_labels, lambda r: (r.integers(0, 4, (6, 6)).astype(np.int32),)),
    (thresholded_total, lambda r: (r.integers(0, 6, 30).astype(np.int32), 2)),
    (count_rises, lambda r: (r.integers(-3, 3, 20),)),
    (chase_roots, _parents),
    (roots_by_helper, _parents),
    (widest_gap, lambda r: (r.integers(0, 50, 30).astype(np.int16),)),
]


@pytest.mark.parametrize("fn, make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_mixed_numbers_behave_as_numpy_and_compile(fn, make):
    args = make(np.random.default_rng(3))
    assert_behaves_as_numpy(fn, *args)
    assert_compiles_whole(fn, args)


@pytest.mark.parametrize("fn, args", [
    # No trip picks the NumPy side: the result stays the Python number.
    (thresholded_total, (np.zeros(10, dtype=np.int32), 2)),
    (widest_gap, (np.arange(10, 0, -1, dtype=np.int16),)),
    # Every trip picks it: the NumPy scalar, of the array's dtype.
    (thresholded_total, (np.full(10, 7, dtype=np.int32), 2)),
    (widest_gap, (np.arange(0, 20, 2, dtype=np.int16),)),
    # Wrapping of the narrow type where NumPy wraps.
    (thresholded_total, (np.full(10, 2 ** 30, dtype=np.int32), 2)),
    (prefix_restart, (np.zeros(0, dtype=np.int32),)),
])
def test_the_type_of_the_result_is_pythons(fn, args):
    assert_behaves_as_numpy(fn, *args)


@seed(23)
@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-5, 9), min_size=0, max_size=30),
       st.sampled_from([np.int8, np.int32, np.int64, np.uint8]))
def test_mixed_numbers_random(values, dtype):
    a = np.array(values).astype(dtype)
    for fn, args in ((thresholded_total, (a, 3)), (count_rises, (a,)), (widest_gap, (a,))):
        assert_behaves_as_numpy(fn, *args, compiled_code=False)
