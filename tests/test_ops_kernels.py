"""User-style kernels on gathers, scatters, sorting and counting (`ops_kernels.py`), compiled
on both backends: NumPy's results and argument updates, one graph, no break."""

from __future__ import annotations

import ember
import pytest
from ops_compiled import BACKENDS, check
from ops_kernels import kernel_inputs

SMALL = kernel_inputs(2)
LARGER = kernel_inputs(12)
# The op each kernel's graph must hold (most are element loops).
# `bucketize`'s searches: an `if` op picks a merge (increasing values) or bisections.
OPS = {"clip_outliers": ("where",), "row_median": ("sort_default",), "embedding_bag": ("gather",),
       "bucketize": ("if",)}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(SMALL))
def test_kernel_matches_numpy(name: str, backend: str) -> None:
    fn, args = SMALL[name]
    check(fn, *args, backend=backend, ops=OPS.get(name, ("loop",)), rtol=1e-9)


@pytest.mark.parametrize("name", sorted(LARGER))
def test_kernel_matches_numpy_natively_at_a_larger_size(name: str) -> None:
    fn, args = LARGER[name]
    check(fn, *args, ops=OPS.get(name, ("loop",)), rtol=1e-9)
    ember.reset()
