"""Numerics probed as a new user would: float32 sums in every layout and inside loops
against NumPy's pairwise order, integer wraparound, NaN and inf in max/min/argmax, empty
reductions' errors, integer corner cases. Results compare by repr: every digit."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_behaves_as_numpy

RNG = np.random.default_rng(0)
F32 = (RNG.random((1000, 7)) * 1000).astype(np.float32)


def sums(x):
    return x.sum(), x.mean(), x.sum(axis=0), x.sum(axis=1)[:5], x.mean(axis=0)


@pytest.mark.parametrize("x", [F32, np.asfortranarray(F32), F32[::-1], F32.T.copy().T,
                               F32[::3], (F32 * 1e6).astype(np.float32)])
def test_float32_sums_in_every_layout_are_numpys_to_the_last_digit(x):
    assert_behaves_as_numpy(sums, x)


def column_sums(x):
    return x.sum(axis=0)


@pytest.mark.parametrize("x", [np.asfortranarray(F32), F32.T, np.asfortranarray(F32[:, :1])])
def test_column_sums_of_fortran_arrays(x):
    assert_behaves_as_numpy(column_sums, x)


def loop_sum(x):
    t = np.float32(0)
    for i in range(x.shape[0]):
        t += x[i].sum()
    return t


def test_sums_inside_a_loop():
    assert_behaves_as_numpy(loop_sum, F32[:50])


def integer_reductions(x):
    return x.sum(), x.prod(), (x * x).sum(), x + x, x * 3, -x, abs(x)


@pytest.mark.parametrize("x", [
    np.array([2**31 - 1, 1], np.int32), np.array([2**62, 2**62, 4], np.int64),
    np.array([127, -128, 100], np.int8), np.array([255, 1], np.uint8),
    np.array([-(2**63), -1], np.int64),
])
def test_integers_wrap_as_numpys(x):
    assert_behaves_as_numpy(integer_reductions, x)


def extremes(x):
    return x.max(), x.min(), np.argmax(x), np.argmin(x), np.maximum(x, 0.0), np.fmax(x, 0.0)


@pytest.mark.parametrize("x", [
    np.array([1.0, np.nan, 3.0]), np.array([1.0, np.inf, -np.inf]), np.array([np.nan, np.nan]),
    np.array([-0.0, 0.0]),
    np.array([np.inf, np.nan, -np.inf], np.float32),
])
def test_nan_and_inf_in_max_min_argmax(x):
    assert_behaves_as_numpy(extremes, x)


@pytest.mark.parametrize(("fn", "x"), [
    (lambda x: x.max(), np.zeros(0)), (lambda x: x.min(), np.zeros((0, 3))),
    (lambda x: np.argmax(x), np.zeros(0)), (lambda x: x.max(axis=0), np.zeros((0, 3))),
    (lambda x: x.max(axis=1), np.zeros((0, 3))), (lambda x: x.max(axis=0), np.zeros((3, 0))),
    (lambda x: (x.mean(), x.sum(), x.prod()), np.zeros(0)),
    (lambda x: x.mean(axis=0), np.zeros((0, 2))), (lambda x: x.var(), np.zeros(0)),
])
def test_empty_reductions(fn, x):
    # An empty mean or var breaks the graph on purpose, so that NumPy gives its warning.
    assert_behaves_as_numpy(fn, x, compiled_code=False)


@pytest.mark.parametrize(("fn", "x"), [
    (lambda x: np.reciprocal(x), np.array([0, 1, 2, -1])),
    (lambda x: np.reciprocal(x), np.array([0, 1, 2], np.uint8)),
    (lambda x: (x ** 2, x ** 0, 2 ** x), np.array([3, 40000], np.int32)),
    (lambda x: (x << 70, x >> 65), np.array([1, -1])),
    (lambda x: (x + x, x * 2, x.sum(), ~x), np.array([True, False])),
    (lambda x: (x // 0, x % 0), np.array([5, -5])),
    (lambda x: np.float32(x.prod()), np.full(100, 1e10, np.float32)),
    (lambda x: x.prod(), np.full(100, 1e10, np.float32)),
])
def test_integer_and_overflow_corner_cases(fn, x):
    assert_behaves_as_numpy(fn, x)
