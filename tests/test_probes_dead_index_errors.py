"""An element read or write whose result is never used still raises NumPy's IndexError
when its index lies outside the array (`seen[x[i]] = j` into a table never read again, in a
short loop written out), as a gather or a scatter does; a constant index within a static
size is dropped freely."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_behaves_as_numpy


def table_never_read(x):
    seen = np.zeros(3)
    for j in range(4):
        seen[x[j]] = 1.0
    return 0


def read_never_used(x, k):
    x[k]
    return x.sum()


def rows_filled(x, limit):
    total = 0
    for i in range(x.shape[0]):
        seen = np.full(200, -3, dtype=np.int32)
        for j in range(x.shape[1]):
            seen[x[i, j]] = j
        for j in range(limit):
            total += seen[j]
    return total


def gathered_never_used(x, idx):
    x[idx]
    return x * 2


@pytest.mark.parametrize("bad", [True, False])
def test_dead_element_access_raises_as_numpy(bad):
    x = np.array([0, 1, 5 if bad else 2, 2])
    assert_behaves_as_numpy(table_never_read, x, compiled_code=not bad)
    assert_behaves_as_numpy(read_never_used, np.arange(4.0), 7 if bad else 2,
                            compiled_code=not bad)
    grid = np.random.default_rng(0).integers(0, 200, (5, 7))
    if bad:
        grid[3, 4] = 200
    assert_behaves_as_numpy(rows_filled, grid, 0, compiled_code=not bad)
    assert_behaves_as_numpy(gathered_never_used, np.arange(4.0),
                            np.array([0, 9 if bad else 3]), compiled_code=not bad)
