"""matmul, `@` and dot against NumPy: 1-D, 2-D, batched, dtypes and shape errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from test_ops_elementwise import sample
from test_ops_harness import check

SHAPES = [(3,), (2, 3), (3, 4), (4,), (5, 3, 4), (1, 4, 2), (2, 5, 3, 4), (), (0, 3), (3, 0)]


@pytest.mark.parametrize(("xs", "ys"), list(itertools.product(SHAPES, repeat=2)))
def test_matmul_shapes(xs: tuple[int, ...], ys: tuple[int, ...]) -> None:
    x = sample(np.float64, xs)
    y = sample(np.float64, ys, 1)
    check(lambda xp, x, y: xp.matmul(x, y), x, y)
    check(lambda xp, x, y: x @ y, x, y)
    if len(xs) <= 2 and len(ys) <= 2:
        check(lambda xp, x, y: (xp.dot(x, y), x.dot(y)), x, y)


def test_matmul_dtypes() -> None:
    for dx, dy in itertools.product([np.bool_, np.int8, np.int32, np.uint16, np.float32,
                                     np.float64], repeat=2):
        x = sample(dx, (2, 3))
        y = sample(dy, (3,), 1)
        check(lambda xp, x, y: (x @ y, xp.dot(x, y), y @ x.T), x, y)


def test_dot_with_scalars_is_multiply() -> None:
    x = sample(np.float32, (2, 3))
    check(lambda xp, x: (xp.dot(x, 2), xp.dot(2.5, x), xp.dot(x, np.float64(2))), x)
    check(lambda xp, x: xp.dot(x, x), x)


def test_outer() -> None:
    for xs, ys in [((3,), (4,)), ((2, 2), (3,)), ((), (2,)), ((0,), (2,))]:
        check(lambda xp, x, y: xp.outer(x, y), sample(np.float32, xs), sample(np.int16, ys, 1))
    check(lambda xp, x: xp.outer(x, 2), sample(np.float32, (3,)))

