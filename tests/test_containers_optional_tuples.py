"""Locals that are None before a loop and a tuple of numbers after a path of its body binds
one (`found = None`, then `found = (i, j)`; `if found is not None: break`): the loop op
carries the tuple's items (placeholders of their types while None) and a flag that it is
still None (`capture/loops/tuples.py: OptionalVariable`). `found is None` reads the flag;
any other use reads the tuple, checked at run time not to be None, so a search that finds
nothing returns None (or raises) as Python does."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy


def first_above(grid, target):
    found = None
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            if grid[i, j] > target:
                found = (i, j)
                break
        if found is not None:
            break
    return found


def last_pair_with_value(x, target):
    hit = None
    for i in range(len(x) - 1):
        if x[i] + x[i + 1] > target:
            hit = (i, x[i], x[i + 1])
    if hit is None:
        return -1, 0.0, 0.0
    return hit


def unpack_without_test(x, target):
    hit = None
    for i in range(len(x)):
        if x[i] > target:
            hit = (i, float(x[i]))
    i, v = hit  # TypeError where nothing was found, as in Python
    return i + v


def reset_to_none(x):
    best = None
    count = 0
    for i in range(len(x)):
        if x[i] < 0.0:
            best = None
        elif best is None or x[i] > best[1]:
            best = (i, x[i])
            count += 1
    return best, count


_grids = st.integers(1, 6).flatmap(lambda n: st.lists(
    st.integers(0, 9), min_size=n * n, max_size=n * n).map(
        lambda v: np.array(v, dtype=np.float64).reshape(n, n)))


@settings(derandomize=True, deadline=None, max_examples=40)
@given(_grids, st.sampled_from([-1.0, 4.5, 8.5, 9.0]))
def test_first_above(grid, target):
    # A search that finds nothing returns None: the run-time check of the returned tuple
    # runs that frame as Python.
    assert_behaves_as_numpy(first_above, grid, target,
                            compiled_code=first_above(grid, target) is not None)


@settings(derandomize=True, deadline=None, max_examples=40)
@given(st.lists(st.floats(-5, 5, allow_nan=False), min_size=2, max_size=30),
       st.sampled_from([0.0, 3.0, 20.0]))
def test_last_pair_with_value(values, target):
    assert_behaves_as_numpy(last_pair_with_value, np.array(values), target)


@pytest.mark.parametrize("target", [0.5, 2.0])
def test_unpacking_none_raises_as_python(target):
    x = np.random.default_rng(0).random(40)
    # target 2.0: nothing found, Python raises TypeError (the compiled frame runs as Python
    # there); 0.5 finds items.
    assert_behaves_as_numpy(unpack_without_test, x, target, compiled_code=target < 1.0)


@settings(derandomize=True, deadline=None, max_examples=40)
@given(st.lists(st.floats(-1, 5, allow_nan=False), min_size=1, max_size=30))
def test_reset_to_none(values):
    x = np.array(values)
    assert_behaves_as_numpy(reset_to_none, x, compiled_code=reset_to_none(x)[0] is not None)


def test_search_compiles_to_one_loop_op():
    grid = np.random.default_rng(0).random((30, 30))
    ember.reset()
    compiled = ember.compile(first_above)
    for target in (0.99, 0.9):
        assert compiled(grid, target) == first_above(grid, target)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]


def first_pair_while(x, target):
    found = None
    i = 0
    while i < len(x) - 1 and found is None:
        if x[i] * x[i + 1] > target:
            found = (i, x[i] * x[i + 1])
        i += 1
    return found if found is not None else (-1, 0.0)


@settings(derandomize=True, deadline=None, max_examples=30)
@given(st.lists(st.floats(-3, 3, allow_nan=False), min_size=2, max_size=25),
       st.sampled_from([0.5, 4.0, 100.0]))
def test_first_pair_in_a_while(values, target):
    # A `while` whose test reads the optional (`found is None`) is no loop op yet (as with an
    # optional number): the frame runs as Python, and must stay right.
    assert_behaves_as_numpy(first_pair_while, np.array(values), target, compiled_code=False)


def first_pair_break(x, target):
    found = None
    for i in range(len(x) - 1):
        if x[i] * x[i + 1] > target:
            found = (i, x[i] * x[i + 1])
            break
    return found if found is not None else (-1, 0.0)


@settings(derandomize=True, deadline=None, max_examples=30)
@given(st.lists(st.floats(-3, 3, allow_nan=False), min_size=2, max_size=25),
       st.sampled_from([0.5, 4.0, 100.0]))
def test_first_pair_with_break(values, target):
    assert_behaves_as_numpy(first_pair_break, np.array(values), target)
