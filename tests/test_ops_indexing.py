"""Basic indexing against NumPy: integers, slices with any step, None, Ellipsis."""

from __future__ import annotations

import numpy as np
import pytest
from ember.errors import Unsupported
from ember.graph import Graph
from ember.numpy_api import getitem
from test_ops_elementwise import sample
from test_ops_harness import check

X = sample(np.float64, (4, 5, 3))
E = Ellipsis
INDICES = [
    0, -1, 3, 4, -5, (1, 2), (1, 2, 0), (-1, -1, -1), (1, 2, 0, 0), slice(None),
    slice(1, 3), slice(None, None, -1), slice(3, 0, -2), slice(-2, None), slice(10, 20),
    slice(None, None, 3), slice(-100, 100, -1), (slice(None), 2), (E, 1), (1, E), (E,), E,
    (None,), (None, 1, None), (1, None, E, None), (slice(None, None, -1), None, 2),
    (E, None), (1, E, 2), (E, E), (), (0, slice(1, 4, 2), slice(None, None, -1)),
    (slice(None, None, 0),), np.int64(2), (np.int32(1), slice(np.int64(1), None)),
]


@pytest.mark.parametrize("index", INDICES, ids=[repr(i) for i in INDICES])
def test_basic_indexing(index: object) -> None:
    check(lambda xp, x: x[index], X)


def test_indexing_0d_and_scalar_results() -> None:
    for x in (np.array(2.5), np.float32(3.0)):
        for index in ((), E, None, (None, E), 0):
            check(lambda xp, x, i=index: x[i], x)
    check(lambda xp, x: (x[0], x[-1], x[0:1], x[...]), sample(np.int8, (3,)))


def test_bad_indices_raise_numpys_errors() -> None:
    check(lambda xp, x: x[1.0], X)
    check(lambda xp, x: x["a"], X)
    check(lambda xp, x: x[0:1.5], X)


def test_advanced_indexing_is_unsupported() -> None:
    g = Graph()
    x = g.add_input(np.float32, (3, 4))
    for index in ([0, 1.5], True, ([0], [1]), (0, [1]), [True, False]):
        with pytest.raises(Unsupported):
            getitem(g, x, index)
    for index in (x, (x, 1)):  # a float array is no index (integer arrays are gathers)
        with pytest.raises(IndexError, match="must be of integer"):
            getitem(g, x, index)


@pytest.mark.parametrize("index", [[0, 2], [-1], [], [3, 3, 0], (slice(None), [1, 0]),
                                   (E, [2, 0]), (None, [1], slice(1, 3)), ([1, 5],),
                                   (slice(None), slice(None), [2, -4])])
def test_a_static_list_of_integers_on_one_axis(index: object) -> None:
    check(lambda xp, x: x[index], X)
