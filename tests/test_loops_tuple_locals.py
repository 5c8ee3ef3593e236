"""Locals bound to tuples of numbers that loops carry and branches rebind (`pair = (-1, -1)`,
then `pair = (i, j)` on a path of a nested loop's body): each item is carried and merged on
its own (`capture/loops/tuples.py`), so the loops stay loop ops, with Python's item types
(a Python int index, a Python float that one path makes a NumPy scalar) and NumPy's values."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy


def argmax_2d(a):
    best = (0, 0)
    top = a[0, 0]
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] > top:
                top = a[i, j]
                best = (i, j)
    return best, top


def longest_rise(x):
    best = (0, 1)
    start = 0
    for i in range(1, len(x)):
        if x[i] <= x[i - 1]:
            start = i
        if i - start + 1 > best[1]:
            best = (start, i - start + 1)
    return best


def nearest_with_distance(points, q):
    best = (np.inf, -1)
    for k in range(len(points)):
        d = np.sqrt(np.sum((points[k] - q) ** 2))
        if d < best[0]:
            best = (d, k)
    dist, index = best
    return dist, index


def running_pair(x):
    state = (0.0, 0)
    for v in x:
        lo, hi = state
        state = (lo * 0.5 + v, hi + 1) if v < 0.5 else (lo, hi - 1)
    return state


def while_bracket(x, target):
    bounds = (0, len(x) - 1)
    while bounds[1] - bounds[0] > 1:
        lo, hi = bounds
        mid = (lo + hi) // 2
        if x[mid] < target:
            bounds = (mid, hi)
        else:
            bounds = (lo, mid)
    return bounds


def tuple_of_three(a):
    rec = (0, 0.0, False)
    for i in range(len(a)):
        if a[i] > rec[1]:
            rec = (i, a[i] * 2.0, True)
    return rec


def changes_length(a):
    rec = (0, 0)
    for i in range(len(a)):
        if a[i] > 0.9:
            rec = (i, i, i)
    return rec


def frame_level_choice(x):
    if x.sum() > 0:
        r = (1, x[0])
    else:
        r = (0, x[1])
    return r[0] + 1, r[1] * 2


NATIVE = [
    (argmax_2d, lambda r: (r.random((7, 9)),)),
    (longest_rise, lambda r: (r.random(40),)),
    (nearest_with_distance, lambda r: (r.random((30, 3)), r.random(3))),
    (running_pair, lambda r: (r.random(40),)),
    (while_bracket, lambda r: (np.sort(r.random(50)), 0.4)),
    (tuple_of_three, lambda r: (r.random(30),)),
]


def _native(fn, args):
    ember.reset()
    compiled = ember.compile(fn)
    for _ in range(2):
        compiled(*args)
    stats = ember.stats()
    assert stats["compiles"] >= 1 and stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["region_recaptures"] == 0 and not stats["backend_fallbacks"], stats


@pytest.mark.parametrize("fn, make", NATIVE, ids=[f.__name__ for f, _ in NATIVE])
def test_tuple_locals_behave_as_numpy_and_compile(fn, make):
    args = make(np.random.default_rng(3))
    assert_behaves_as_numpy(fn, *args)
    _native(fn, args)


def test_python_float_item_kept_where_no_path_rebinds():
    # No point closer than infinity: Python leaves the Python float and -1.
    # The run-time check sends such calls to Python (the entry falls back).
    far = np.full((5, 3), np.inf)
    assert_behaves_as_numpy(nearest_with_distance, far, np.zeros(3), compiled_code=False)
    assert_behaves_as_numpy(nearest_with_distance, np.zeros((0, 3)), np.zeros(3),
                            compiled_code=False)
    assert_behaves_as_numpy(nearest_with_distance, np.ones((5, 3)), np.zeros(3))


@pytest.mark.parametrize("fn, args", [
    (argmax_2d, (np.zeros((1, 1)),)), (longest_rise, (np.zeros(1),)),
    (tuple_of_three, (np.zeros(0),)), (tuple_of_three, (-np.ones(4),)),
    (running_pair, (np.zeros(0),)), (while_bracket, (np.arange(2.0), 0.5))])
def test_empty_and_short_inputs(fn, args):
    assert_behaves_as_numpy(fn, *args, compiled_code=False)


def test_a_path_binding_another_length_keeps_python_results():
    a = np.random.default_rng(0).random(40)
    assert_behaves_as_numpy(changes_length, a, compiled_code=False)
    assert_behaves_as_numpy(changes_length, a * 0.5, compiled_code=False)


def test_frame_level_branch_merges_tuples():
    assert_behaves_as_numpy(frame_level_choice, np.array([1.0, 2.0]))
    assert_behaves_as_numpy(frame_level_choice, np.array([-1.0, -2.0]))


@seed(7)
@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-3, 3, allow_nan=False, width=32), min_size=1, max_size=30),
       st.integers(1, 5))
def test_tuple_locals_random(values, cols):
    # Values only: short inputs unroll or fold rather than compile loop ops.
    a = np.array(values + [0.0] * (-len(values) % cols)).reshape(-1, cols)
    assert_behaves_as_numpy(argmax_2d, a, compiled_code=False)
    x = a.ravel()
    for fn in (longest_rise, running_pair, tuple_of_three):
        assert_behaves_as_numpy(fn, x, compiled_code=False)
