"""A tuple or list of numbers assigned to a row (`stack[top] = lo, hi, eps`): NumPy makes it
an array of the target's type, at the frame's level and in loop bodies at run-time rows."""

from __future__ import annotations

import copy

import ember
import numpy as np
import pytest
from conftest import assert_same


def frame_rows(a, x):
    a[1] = x[0], x[1] * 2, 3
    a[2] = (1.5, 2, 7)
    a[0, :2] = [x[1], -x[0]]
    return a


def loop_rows(n, x):
    stack = np.zeros((n, 3))
    for i in range(n):
        stack[i] = x[i], x[i] * 2, i
    return stack


def stack_pops(x):
    stack = np.zeros((2 * len(x), 2))
    top = 0
    total = 0.0
    for i in range(len(x)):
        stack[top] = x[i], 0.5 * x[i]
        top += 1
        if x[i] > 0.5:
            stack[top] = (-x[i], i)
            top += 1
    while top > 0:
        top -= 1
        a, b = stack[top]
        total += a * b
    return total


CASES = [
    (frame_rows, lambda rng: (np.zeros((3, 3)), rng.standard_normal(2))),
    (frame_rows, lambda rng: (np.zeros((3, 3), dtype=np.int32), rng.standard_normal(2) * 9)),
    (loop_rows, lambda rng: (6, rng.standard_normal(6))),
    (stack_pops, lambda rng: (rng.random(12),)),
]


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
@pytest.mark.parametrize("fn,make", CASES, ids=[f"{c[0].__name__}{i}" for i, c in enumerate(CASES)])
def test_tuple_assigned_to_a_row(fn, make, backend) -> None:
    compiled = ember.compile(fn, backend=backend)
    for seed in range(2):
        args = make(np.random.default_rng(seed))
        got_args, want_args = copy.deepcopy(args), copy.deepcopy(args)
        assert_same(compiled(*got_args), fn(*want_args), rtol=1e-12)
        for got, want in zip(got_args, want_args):
            assert_same(got, want)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]


def test_nan_in_a_tuple_into_an_int_row_raises_as_numpy() -> None:
    def put(a, x, i):
        for k in range(i):
            a[k] = x[k], 1.0
        return a

    x = np.array([1.0, np.nan, 2.0])
    with pytest.raises(ValueError):
        put(np.zeros((3, 2), dtype=np.int64), x, 3)
    with pytest.raises(ValueError):
        ember.compile(put)(np.zeros((3, 2), dtype=np.int64), x, 3)
    want = put(np.zeros((3, 2), dtype=np.int64), x[::2], 2)
    assert_same(ember.compile(put)(np.zeros((3, 2), dtype=np.int64), x[::2], 2), want)
