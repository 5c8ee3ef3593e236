"""`np.arange` between bounds made of sizes read at run time (`np.arange(1, n + 1)`,
`np.arange(n - 1, -1, -1)`, `np.arange(n, 0, -1.0)`), by a step of 1 or -1: once the size
changed its length is the dim between the bounds (`numpy_api/creation.py:
_symbolic_arange`), so the function compiles twice for every size where the length is 2 or
more, and every call equals NumPy, the shorter ones too (specialised)."""

from __future__ import annotations

import re

import ember
import numpy as np
import pytest
from test_dynamic_rows import check_sizes


def ranks(a):
    order = np.argsort(a)
    r = np.empty(len(a))
    r[order] = np.arange(1, len(a) + 1)
    return r


def reversed_by_index(a):
    n = a.shape[0]
    return a[np.arange(n - 1, -1, -1)] * np.arange(n, 0, -1.0)


def weights_from_two(x):
    n = len(x)
    w = np.arange(2, n, dtype=np.float32)
    return (x[2:] * w).sum() / w.sum()


def window_positions(x):
    n = x.shape[0]
    return np.arange(n - 3, n) + x[-3:], np.arange(3, n + 3) - x


def _floats(n, rng):
    return (rng.random(n),)


CASES = [ranks, reversed_by_index, weights_from_two, window_positions]
SIZES = (5, 6, 7, 9, 30, 11, 64)


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_aranges_of_sizes_compile_twice_for_every_size(fn):
    stats = check_sizes(fn, _floats, SIZES)
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_aranges_of_sizes_equal_numpy_at_small_sizes(fn):
    check_sizes(fn, _floats, (6, 7, 0, 1, 2, 3, 4, 8, 1, 0))


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_aranges_of_sizes_on_the_eager_backend(fn):
    check_sizes(fn, _floats, (6, 7, 2, 9, 1, 12), backend="eager")


def scaled(a, b):
    return np.arange(1, len(a) + 1) * b


def test_a_length_that_does_not_broadcast_raises_numpys_error():
    compiled = ember.compile(scaled)
    for n in (5, 8):
        np.testing.assert_array_equal(compiled(np.ones(n), np.ones(n)), scaled(np.ones(n),
                                                                                np.ones(n)))
    assert ember.stats()["captures"] == 2
    with pytest.raises(ValueError) as want:
        scaled(np.ones(7), np.ones(6))
    with pytest.raises(ValueError, match=re.escape(str(want.value))):
        compiled(np.ones(7), np.ones(6))
