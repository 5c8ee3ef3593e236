"""User-style kernels on gathers, scatters, sorting and counting (`ops_kernels.py`), compiled
on both backends: NumPy's results and argument updates, one graph, no break."""

from __future__ import annotations

import ember
import pytest
from ops_compiled import BACKENDS, check
from ops_kernels import kernel_inputs

SMALL = kernel_inputs(2)
LARGER = kernel_inputs(12)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(SMALL))
def test_kernel_matches_numpy(name: str, backend: str) -> None:
    fn, args = SMALL[name]
    ops = ("where",) if name == "clip_outliers" else ("loop",)
    check(fn, *args, backend=backend, ops=ops, rtol=1e-9)


@pytest.mark.parametrize("name", sorted(LARGER))
def test_kernel_matches_numpy_natively_at_a_larger_size(name: str) -> None:
    fn, args = LARGER[name]
    ops = ("where",) if name == "clip_outliers" else ("loop",)
    check(fn, *args, ops=ops, rtol=1e-9)
    ember.reset()
