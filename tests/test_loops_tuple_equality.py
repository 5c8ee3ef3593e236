"""`(r, c) == goal` and `!=` of tuples of ints inside loop bodies (a grid search's goal
test, a pair lookup), as the `and` of the items' equalities (`operators._tuples_equal`):
against Python and NumPy, one compiled graph whose loops are loop ops; tuples of floats
(whose NaN an item's identity makes equal in Python) still refuse, and stay right."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_behaves_as_numpy, assert_compiles_whole
from user_kernels_puzzles import maze_shortest_path


def find_pair(a, target):
    n = a.shape[0]
    for i in range(n):
        for j in range(n):
            if (a[i], a[j]) == target:
                return i, j
    return -1, -1


def walk_hits(path, start):
    hits = 0
    pos = start
    for k in range(path.shape[0]):
        pos = (pos[0] + path[k, 0], pos[1] + path[k, 1])
        if pos == start or pos != (0, 0) and pos == (1, 1, 1)[:2]:
            hits += 1
    return hits


def unequal_pairs(a, b):
    c = 0
    for i in range(a.shape[0]):
        if (a[i], b[i]) != (b[i], a[i]):
            c += 1
        if (a[i],) == (a[i], b[i]):
            c += 100
    return c


def float_pairs(x):
    c = 0
    for i in range(x.shape[0]):
        if (x[i], 1) == (x[i], 1):
            c += 1
    return c


def _maze(seed, goal):
    walls = np.random.default_rng(seed).random((15, 15)) < 0.2
    walls[0, 0] = walls[goal] = False
    return walls, (0, 0), goal


rng = np.random.default_rng(5)


@pytest.mark.parametrize("fn,args", [
    (maze_shortest_path, _maze(1, (14, 14))),
    (maze_shortest_path, _maze(2, (7, 3))),
    (find_pair, (rng.integers(0, 10, 30), (3, 7))),
    (find_pair, (rng.integers(0, 10, 30), (30, 7))),
    (walk_hits, (rng.integers(-1, 2, (50, 2)), (0, 0))),
    (unequal_pairs, (rng.integers(0, 3, 40), rng.integers(0, 3, 40))),
], ids=["maze_far", "maze_near", "pair_found", "pair_missing", "walk", "unequal"])
def test_tuple_equality_in_loops_is_pythons(fn, args):
    assert_behaves_as_numpy(fn, *args)
    assert_compiles_whole(fn, args)


def test_tuples_of_floats_stay_right():
    assert_behaves_as_numpy(float_pairs, np.array([1.0, np.nan, 2.0] * 10), compiled_code=False)
