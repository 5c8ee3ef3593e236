"""repeat, tile, split, pad, take and diff against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from test_ops_elementwise import DTYPES, sample
from test_ops_harness import check

X = sample(np.float32, (2, 3, 4))


@pytest.mark.parametrize("axis", [None, 0, 1, -1, 3])
def test_repeat(axis: int | None) -> None:
    for r in (0, 1, 3, -1):
        check(lambda xp, x, r=r: xp.repeat(x, r, axis=axis), X)
        check(lambda xp, x, r=r: x.repeat(r, axis), X)
    check(lambda xp: xp.repeat(2.5, 3))


@pytest.mark.parametrize("reps", [2, (2,), (1, 1), (2, 1), (1, 2, 3), (3, 1, 1, 2), 0, (1, 0),
                                  -1, (1, 1, 1)])
def test_tile(reps: object) -> None:
    for x in (X, sample(np.int8, (3,)), np.float64(2.0)):
        check(lambda xp, x: xp.tile(x, reps), x)


@pytest.mark.parametrize("how", [2, 3, 1, 0, [1, 3], [2, -1], [5, 1], [], (0, 0, 4)])
def test_split_and_array_split(how: object) -> None:
    for axis in (0, 1, -1):
        x = sample(np.int32, (4, 6))
        check(lambda xp, x, a=axis: tuple(xp.split(x, how, axis=a)), x)
        check(lambda xp, x, a=axis: tuple(xp.array_split(x, how, axis=a)), x)


@pytest.mark.parametrize("width", [1, (1,), (1, 2), ((1, 2), (0, 3)), ((1, 2), (3,)), 0, -1,
                                   (1, 2, 3), 1.5])
def test_pad_constant(width: object) -> None:
    for dt in DTYPES:
        x = sample(dt, (2, 3))
        check(lambda xp, x: xp.pad(x, width), x)
        check(lambda xp, x: xp.pad(x, width, constant_values=7), x)
    check(lambda xp, x: xp.pad(x, 2, constant_values=2.5), sample(np.uint8, (3,)))
    check(lambda xp, x: xp.pad(x, 2, constant_values=300), sample(np.uint8, (3,)))


@pytest.mark.parametrize("mode", ["edge", "wrap", "reflect", "symmetric"])
@pytest.mark.parametrize("width", [1, (1, 2), ((1, 2), (0, 3)), ((2, 0), (3, 1)), 0, (3, 1)])
def test_pad_from_the_array(mode: str, width: object) -> None:
    """Slices of the array (flipped for reflect and symmetric), axis by axis; pads wider than
    the array, which NumPy repeats, are left to it."""
    for dt in (np.float64, np.int32, np.bool_):
        x = sample(dt, (3, 4))
        check(lambda xp, x: xp.pad(x, width, mode=mode), x, allow_unsupported=True)
        assert check(lambda xp, x: xp.pad(x, 1, mode=mode), x) is not None
    check(lambda xp, x: xp.pad(x, 2, mode=mode), sample(np.float32, (0, 3)),
          allow_unsupported=True)
    check(lambda xp, x: xp.pad(x, 1, mode=mode, reflect_type="odd"), sample(np.float32, (3,)),
          allow_unsupported=True)


def test_take() -> None:
    for indices in (0, -1, [0, 2], [], 10, (1, 1)):
        check(lambda xp, x, i=indices: xp.take(x, i), X)
        for axis in (0, 1, -1):
            check(lambda xp, x, i=indices, a=axis: (xp.take(x, i, axis=a), x.take(i, a)), X)


@pytest.mark.parametrize("n", [0, 1, 2, 3, -1])
def test_diff(n: int) -> None:
    for dt in (np.bool_, np.int8, np.uint8, np.float32, np.float64):
        x = sample(dt, (3, 4))
        for axis in (0, -1, 2):
            check(lambda xp, x, a=axis: xp.diff(x, n, axis=a), x)
    check(lambda xp, x: xp.diff(x), np.float64(1.0))
