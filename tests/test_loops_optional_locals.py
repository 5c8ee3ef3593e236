"""Locals that are None before a loop and a number after a path of its body binds one
(`best_threshold = None`, then `best_threshold = 0.5 * (xs[i] + xs[i + 1])` in a branch): the
loop op carries the number (a placeholder of its type while None) and a flag that it is
still None (`capture/loops/tuples.py: OptionalVariable`). `x is None` reads the flag; any other
use reads the number with a run-time check that sends the frame to Python where it is None,
so a loop that never binds it returns None (or raises) as Python does."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy


def argmin_first(x):
    best = None
    best_i = -1
    for i in range(len(x)):
        if best is None or x[i] < best:
            best = x[i]
            best_i = i
    return best, best_i


def first_crossing(x, level):
    hit = None
    for i in range(len(x)):
        if hit is None and x[i] > level:
            hit = i
    return hit


def last_peak_doubled(x):
    peak = None
    for i in range(1, len(x) - 1):
        if x[i] > x[i - 1] and x[i] > x[i + 1]:
            peak = x[i]
    if peak is None:
        return 0.0
    return peak * 2


def best_gap_threshold(x, y):
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y[order]
    best_gap, threshold = 0.0, None
    for i in range(len(xs) - 1):
        gap = abs(ys[i + 1] - ys[i])
        if gap > best_gap:
            best_gap = gap
            threshold = 0.5 * (xs[i] + xs[i + 1])
    return threshold, best_gap


def nested_first_pair(a, limit):
    found = None
    count = 0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] > limit:
                count += 1
                if found is None:
                    found = a[i, j] * 10.0
    return found, count


def last_above_while(x, level):
    i = 0
    found = None
    while i < len(x):
        if x[i] > level:
            found = i
        i += 1
    return found


def previous_value_rises(x):
    last = None
    rises = 0
    for i in range(len(x)):
        if last is not None and x[i] > last:
            rises += 1
        last = x[i]
    return rises


NATIVE = [
    (argmin_first, lambda r: (r.random(40),)),
    (first_crossing, lambda r: (r.random(40), 0.9)),
    (last_peak_doubled, lambda r: (r.random(40),)),
    (best_gap_threshold, lambda r: (r.random(30), r.random(30))),
    (nested_first_pair, lambda r: (r.random((6, 30)), 0.95)),
    (last_above_while, lambda r: (r.random(40), 0.8)),
    (previous_value_rises, lambda r: (r.random(40),)),
]


def _native(fn, args):
    ember.reset()
    compiled = ember.compile(fn)
    for _ in range(2):
        compiled(*args)
    stats = ember.stats()
    assert stats["compiles"] >= 1 and stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["region_recaptures"] == 0 and not stats["backend_fallbacks"], stats
    assert stats["entry_fallbacks"] == 0, stats


@pytest.mark.parametrize("fn, make", NATIVE, ids=[f.__name__ for f, _ in NATIVE])
def test_optional_locals_behave_as_numpy_and_compile(fn, make):
    args = make(np.random.default_rng(5))
    assert_behaves_as_numpy(fn, *args)
    _native(fn, args)


@pytest.mark.parametrize("fn, args", [
    (first_crossing, (np.zeros(40), 0.5)),
    (last_peak_doubled, (np.arange(40.0),)),
    (best_gap_threshold, (np.arange(30.0), np.zeros(30))),
    (nested_first_pair, (np.zeros((6, 30)), 0.5)),
    (argmin_first, (np.zeros(0),)),
    (last_above_while, (np.zeros(40), 0.5)),
])
def test_still_none_after_the_loop_gives_python_results(fn, args):
    # The run-time check sends these calls to Python, which returns None.
    assert_behaves_as_numpy(fn, *args, compiled_code=False)


def uses_none_in_arithmetic(x):
    top = None
    for i in range(len(x)):
        if x[i] > 0.5:
            top = x[i]
    return top + 1.0


def test_none_in_arithmetic_raises_as_python():
    assert_behaves_as_numpy(uses_none_in_arithmetic, np.zeros(30), compiled_code=False)
    assert_behaves_as_numpy(uses_none_in_arithmetic, np.linspace(0, 1, 30))


@seed(11)
@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-2, 2, allow_nan=False, width=32), min_size=0, max_size=40),
       st.floats(-1, 1, allow_nan=False))
def test_optional_locals_random(values, level):
    x = np.array(values, dtype=np.float64)
    for fn, args in ((argmin_first, (x,)), (first_crossing, (x, level)),
                     (last_peak_doubled, (x,))):
        assert_behaves_as_numpy(fn, *args, compiled_code=False)
