"""A tuple or list of numbers assigned to a row at a run-time position in a loop body
(`stack[top] = (r + 1, c)`, `loops/windows.py: _numbers_row`): each number stored as
NumPy converts it. Stacks of int pairs in `while` and `for` loop ops, float rows with Python
constants, lists, three columns; conversions that could differ from a cast (floats into an int
array, a NaN) still give Python's answer. Against plain NumPy, compiled without a break."""

from __future__ import annotations

import numpy as np
from test_loops_first_assigned import check


def fill_region(img, r0, c0):
    img = img.copy()
    H, W = img.shape
    stack = np.empty((H * W * 4 + 1, 2), dtype=np.int64)
    stack[0, 0], stack[0, 1] = r0, c0
    top = 1
    filled = 0
    while top > 0:
        top -= 1
        r, c = stack[top, 0], stack[top, 1]
        if r < 0 or r >= H or c < 0 or c >= W or img[r, c] != 0:
            continue
        img[r, c] = 2
        filled += 1
        stack[top] = (r + 1, c)
        stack[top + 1] = (r - 1, c)
        stack[top + 2] = [r, c + 1]
        stack[top + 3] = (r, c - 1)
        top += 4
    return img, filled


def pairs_with_constants(x):
    out = np.zeros((x.shape[0], 3))
    for i in range(x.shape[0]):
        out[i] = (x[i], 1, -0.5)
    return out


def int_rows(a):
    out = np.zeros((a.shape[0], 3), dtype=np.int32)
    for i in range(a.shape[0]):
        out[i] = (a[i], a[i] * 2, 7)
    return out


def floats_into_ints(x):
    out = np.zeros((x.shape[0], 2), dtype=np.int64)
    for i in range(x.shape[0]):
        out[i] = (x[i] * 10.0, 1)
    return out


def nan_into_ints(x):
    out = np.zeros((x.shape[0], 2), dtype=np.int64)
    for i in range(x.shape[0]):
        out[i] = (i, float("nan"))
    return out


def test_flood_fill_stack_of_pairs():
    img = (np.random.default_rng(0).uniform(size=(9, 11)) < 0.3).astype(np.int64)
    img[4, 5] = 0
    check(fill_region, [(img, 4, 5), (np.zeros((3, 4), np.int64), 0, 0)])


def test_float_rows_with_python_constants():
    check(pairs_with_constants, [(np.random.default_rng(1).normal(size=30),)])


def test_int32_rows():
    check(int_rows, [(np.arange(20, dtype=np.int32),)])


def test_floats_into_an_int_array_still_like_numpy():
    check(floats_into_ints, [(np.random.default_rng(2).normal(size=20),)], native=False)


def test_nan_into_an_int_array_raises_like_numpy():
    check(nan_into_ints, [(np.zeros(5),)], native=False)
