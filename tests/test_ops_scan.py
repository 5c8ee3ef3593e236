"""np.cumsum / np.cumprod (functions and methods) against NumPy: every axis, the flattened
form, dtype=, integer wrapping, empty axes, non-contiguous inputs; the eager harness exactly,
and natively compiled exactly too (both accumulate in order in the result dtype)."""

from __future__ import annotations

import numpy as np
import pytest
from test_cranelift_harness import check as check_native
from test_ops_elementwise import DTYPES, sample
from test_ops_harness import check


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scans_over_dtypes_and_axes(name: str) -> None:
    for dt in DTYPES:
        x = sample(dt, (2, 3, 4))
        for axis in (None, 0, 1, 2, -1, -3, 3):
            check(lambda xp, x, a=axis: getattr(xp, name)(x, axis=a), x)
            check(lambda xp, x, a=axis: getattr(x, name)(a), x)
        check(lambda xp, x: getattr(xp, name)(x, axis=1, dtype=np.float32), x)
        check(lambda xp, x: getattr(xp, name)(x, dtype=np.int8), x)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scans_compile_natively_bit_for_bit(name: str) -> None:
    for dt in (np.bool_, np.int32, np.int64, np.float32, np.float64):
        x = sample(dt, (5, 7))
        for view in (x, x.T, x[::2, ::-1]):
            for axis in (None, 0, 1):
                assert check_native(lambda xp, v, a=axis: getattr(xp, name)(v, axis=a) * 1,
                                    view) is not None
    big = np.full((3, 40), 3, np.int32)
    assert check_native(lambda xp, v: getattr(xp, name)(v, axis=1), big) is not None
    assert check_native(lambda xp, v: getattr(xp, name)(v[:, :0], axis=1), big) is not None
    assert check_native(lambda xp, v: getattr(xp, name)(v.sum(axis=0) + 1.5), big) is not None


def test_scans_of_scalars_and_constants() -> None:
    # Scans of Python numbers are NumPy's results, constant arrays of the graph.
    assert check(lambda xp: xp.cumsum([1, 2, 3])) is not None
    check(lambda xp: xp.cumprod([[1.5, 2.0], [0.5, 3.0]], axis=0))
    check(lambda xp, x: x[xp.cumsum([0, 1, 1])], sample(np.float64, (4,)))
    check(lambda xp, x: xp.cumsum(x.sum()), sample(np.float64, (3,)))
    for axis in (0, -1, 1):
        check(lambda xp, x, a=axis: xp.cumprod(x[0, 0], axis=a), sample(np.float64, (2, 2)))
