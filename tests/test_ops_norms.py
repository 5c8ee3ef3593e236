"""np.linalg.norm, np.roll and np.array / np.asarray of computed values against NumPy:
values, dtype, shape, exceptions (eager backend, exact), and natively compiled."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_cranelift_harness import check as check_native
from test_ops_elementwise import sample
from test_ops_harness import check

X = sample(np.float64, (3, 4))
VECTOR_ORDS = [None, 2, 1, 0, math.inf, -math.inf, 3, 0.5, -1, "fro", "nuc"]
MATRIX_ORDS = [None, "fro", "f", 1, -1, math.inf, -math.inf, 2, -2, "nuc", 3, "x"]


@pytest.mark.parametrize("ord", VECTOR_ORDS)
def test_vector_norms(ord: object) -> None:
    for dt in (np.float32, np.float64, np.int32):
        x = sample(dt, (3, 4))
        for axis in (0, 1, -1, 2, (1,)):
            for keepdims in (False, True):
                check(lambda xp, x, a=axis, k=keepdims: xp.linalg.norm(x, ord, a, k), x)
        check(lambda xp, x: xp.linalg.norm(x[0], ord), x)


@pytest.mark.parametrize("ord", MATRIX_ORDS)
def test_matrix_norms(ord: object) -> None:
    for dt in (np.float32, np.float64, np.int64):
        x = sample(dt, (2, 3, 4))
        for axis in ((1, 2), (2, 0), (0, -1), (1, 1), None):
            for keepdims in (False, True):
                check(lambda xp, x, a=axis, k=keepdims: xp.linalg.norm(x, ord, a, k), x)
                check(lambda xp, x, a=axis, k=keepdims: xp.linalg.norm(x[0], ord, a, k), x)


def test_whole_array_norms_and_errors() -> None:
    for x in (X, X[0], sample(np.float32, (2, 2, 2)), sample(np.int32, (5,))):
        check(lambda xp, x: xp.linalg.norm(x), x)
        check(lambda xp, x: xp.linalg.norm(x, keepdims=True), x)
        check(lambda xp, x: xp.linalg.norm(x * 2.0 - 1.0, axis=None), x)
    check(lambda xp, x: xp.linalg.norm(x, 1), sample(np.float64, (2, 2, 2)))
    check(lambda xp, x: xp.linalg.norm(x, axis=(0, 1, 2)), sample(np.float64, (2, 2, 2)))
    check(lambda xp, x: xp.linalg.norm(x, axis=1.5), X)


def test_spectral_norms_compile_natively() -> None:
    x = np.random.default_rng(0).standard_normal((2, 5, 3))
    assert check_native(lambda xp, x: (xp.linalg.norm(x, 2, (1, 2)),
                                       xp.linalg.norm(x, -2, (2, 0), True),
                                       xp.linalg.norm(x[0], "nuc")), x, ulps=4) is not None


def test_norms_compile_natively() -> None:
    x = sample(np.float32, (5, 7))
    assert check_native(lambda xp, x: (xp.linalg.norm(x), xp.linalg.norm(x, axis=1),
                                       xp.linalg.norm(x, 1), xp.linalg.norm(x, math.inf, 0),
                                       xp.linalg.norm(x, 3, 1, True)), x,
                        sums=True, ulps=4) is not None


@pytest.mark.parametrize("shift", [0, 1, -1, 5, -13, (1, 2), (1, -1)])
def test_roll(shift: object) -> None:
    x = sample(np.int32, (3, 4, 5))
    for axis in (None, 0, 1, -1, (0, 2), (1, 1), 3):
        check(lambda xp, x, a=axis: xp.roll(x, shift, a), x)
    check(lambda xp, x: xp.roll(x, shift), x)
    check(lambda xp, x: xp.roll(x[:, :0], shift, 1), x)
    check(lambda xp, x: xp.roll(x, 2.5), x)
    assert check_native(lambda xp, x: xp.roll(x, 2, 1) + xp.roll(x, -1), x) is not None


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8])
def test_roll_by_a_shift_read_from_data(dtype: type) -> None:
    """The shift an element of an array (`np.roll(f, cx[i], axis=1)`): of any size and sign,
    along every axis, several axes, the flattened array; a bool shift is 0 or 1."""
    x = sample(np.float64, (3, 4, 5))
    shifts = np.array([0, 1, 7, 13, 255] if dtype == np.uint8 else [0, 1, -1, 7, -13],
                      dtype=dtype)
    for k in range(len(shifts)):
        for axis in (None, 0, 1, -1, (0, 2), (1, 1)):
            check(lambda xp, x, s, k=k, a=axis: xp.roll(x, s[k], a), x, shifts)
        check(lambda xp, x, s, k=k: xp.roll(x[:, :0], s[k], 1), x, shifts)
    check(lambda xp, x, s: xp.roll(x, s[1] > 0, 1), x, shifts)
    assert check_native(lambda xp, x, s: xp.roll(x, s[3], 1) + xp.roll(x, s[4]), x,
                        shifts) is not None


def test_array_of_computed_values() -> None:
    f = sample(np.float32, (3, 4))
    i = sample(np.int32, (4,))
    check(lambda xp, x: xp.array([x.sum(), x.max(), 1.0]), f)
    check(lambda xp, x: xp.array([x.sum(), x.max()]), f)
    check(lambda xp, x: xp.array([[x[0, 0], x[1, 1]], [2, x[2, 2]]]), f)
    check(lambda xp, x: xp.asarray([x[0], x[1] * 2]), f)
    check(lambda xp, x, y: xp.array([x.sum(), y.sum(), True]), f, i)
    check(lambda xp, y: xp.array([y[0], y[1], 2]), i)
    check(lambda xp, y: xp.array([y[0], y[1]], dtype=np.float32), i)
    check(lambda xp, x: xp.array(x.sum()), f)
    check(lambda xp, x: xp.array(x, dtype=np.float64), f)
    check(lambda xp, x: xp.array((x[0], x[1], x[2])).T, f)
    check(lambda xp, x: xp.array(x, ndmin=3), f)
    check(lambda xp, x: xp.array(x[0], copy=None, ndmin=2) * 2, f)
    check(lambda xp, x: xp.array([x.sum(), 1.0], ndmin=3), f)
    check(lambda xp, x: xp.array(x, copy=None), f)
    check(lambda xp, x: xp.array(x[1:], np.float64, copy=None, ndmin=1), f)
    assert check(lambda xp, x: xp.array([x[0], x[1, :2]]), f, allow_unsupported=True) is None
    assert check_native(lambda xp, x: xp.array([x.sum(), x.min() * 2.0, 3]), f,
                        sums=True) is not None
