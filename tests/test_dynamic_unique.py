"""`np.unique` of an array whose size changes between calls: its results (values, first
indices, inverse, counts) are buffers of the symbolic size with a count the data gives
(`sorting.unique_buffers`, `gather.Compacted` reading the size at run time), so one
symbolic graph serves every size; checked against NumPy over sizes, NaNs among the values."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same


def values(x):
    return np.unique(x)


def everything(x):
    return np.unique(x, return_index=True, return_inverse=True, return_counts=True)


def counts_only(x):
    return np.unique(x.ravel(), return_counts=True)


def without_nan_runs(x):
    return np.unique(x, equal_nan=False)


def _data(n, rng, dtype):
    x = rng.integers(0, max(2, n // 3), (n, 3)).astype(dtype)
    if dtype == np.float64 and n % 2:
        x[0, 0] = x[-1, 2] = np.nan
    return x


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
@pytest.mark.parametrize("dtype", [np.float64, np.int64])
@pytest.mark.parametrize("fn", [values, everything, counts_only, without_nan_runs],
                         ids=lambda f: f.__name__)
def test_unique_over_sizes_captures_twice(fn, dtype, backend):
    compiled = ember.compile(fn, backend=backend)
    for n in [5, 9, 14, 31, 7, 2, 3, 60]:
        x = _data(n, np.random.default_rng(n), dtype)
        assert_same(compiled(x), fn(x), path=f"{fn.__name__} at {n}")
    stats = ember.stats()
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]
