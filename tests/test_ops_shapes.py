"""Reshaping, transposing, joining, broadcasting and casting against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from test_ops_elementwise import DTYPES, sample
from test_ops_harness import check

X = sample(np.float32, (2, 3, 4))


@pytest.mark.parametrize(
    "shape",
    [(24,), (-1,), (4, -1), (2, 3, 4), (6, 4), (-1, 2, 2), (4, 2), (-1, -1), (5, -1), (1, 24, 1),
     (0, -1), ()],
)
def test_reshape_function_and_method(shape: tuple[int, ...]) -> None:
    check(lambda xp, x: xp.reshape(x, shape), X)
    check(lambda xp, x: x.reshape(shape), X)
    check(lambda xp, x: x.reshape(*shape), X)


def test_reshape_of_0d_and_empty() -> None:
    check(lambda xp, x: x.reshape(1, 1), np.float64(2.0))
    check(lambda xp, x: x.reshape(()), np.ones((1, 1)))
    check(lambda xp, x: x.reshape(-1), np.array(3))
    check(lambda xp, x: x.reshape(3, -1), np.ones((0, 3)))


@pytest.mark.parametrize("axes", [None, (2, 0, 1), (0, 1, 2), (-1, 0, 1), (0, 0, 1), (0, 1),
                                  (0, 1, 3)])
def test_transpose(axes: tuple[int, ...] | None) -> None:
    check(lambda xp, x: xp.transpose(x, axes), X)
    check(lambda xp, x: xp.permute_dims(x, axes), X)
    if axes is not None:
        check(lambda xp, x: x.transpose(axes), X)
        check(lambda xp, x: x.transpose(*axes), X)
    check(lambda xp, x: (x.T, x.transpose(), x[0].T, x.mT), X)


@pytest.mark.parametrize(("a", "b"), [(0, 2), (-1, 0), (1, 1), (0, 3)])
def test_swapaxes(a: int, b: int) -> None:
    check(lambda xp, x: xp.swapaxes(x, a, b), X)
    check(lambda xp, x: x.swapaxes(a, b), X)


@pytest.mark.parametrize(("src", "dst"), [(0, -1), (-1, 0), ((0, 1), (2, 0)), ((0, 1), (1, 1)),
                                          (3, 0), ((0,), (1, 2))])
def test_moveaxis(src: object, dst: object) -> None:
    check(lambda xp, x: xp.moveaxis(x, src, dst), X)


@pytest.mark.parametrize("axis", [0, 1, 3, -1, -4, (0, 2), (0, -1), 4, (1, 1)])
def test_expand_dims(axis: object) -> None:
    check(lambda xp, x: xp.expand_dims(x, axis), X)


@pytest.mark.parametrize("axis", [None, 0, 2, -1, (0, 2), 1])
def test_squeeze(axis: object) -> None:
    x = np.ones((1, 3, 1), np.int32)
    check(lambda xp, x: xp.squeeze(x, axis), x)
    check(lambda xp, x: x.squeeze(axis), x)
    check(lambda xp, x: x.squeeze(), np.ones((2, 3)))


def test_ravel_flatten_copy_astype() -> None:
    for x in (X, np.float64(1.5), np.array(2, np.int8), np.ones((0, 2), np.bool_)):
        check(lambda xp, x: (xp.ravel(x), x.ravel(), x.flatten(), xp.copy(x), x.copy()), x)
        for dt in DTYPES:
            check(lambda xp, x, d=dt: (x.astype(d), xp.astype(x, d) if x.ndim else x), x)
            check(lambda xp, x, d=dt: getattr(xp, np.dtype(d).type.__name__)(x), x)
    check(lambda xp, x: x.astype("float32") + x.astype(float), X)


@pytest.mark.parametrize("axis", [0, 1, -1, 2, None])
def test_concatenate(axis: int | None) -> None:
    a = sample(np.float32, (2, 3))
    b = sample(np.int16, (2, 3), 1)
    c = sample(np.float64, (4, 3), 2)
    check(lambda xp, a, b: xp.concatenate([a, b], axis=axis), a, b)
    check(lambda xp, a, b: xp.concatenate((a, b, a), axis), a, b)
    check(lambda xp, a, c: xp.concatenate([a, c], axis=axis), a, c)
    check(lambda xp, a, c: xp.concat([a, c[0]], axis=axis), a, c)
    check(lambda xp, a: xp.concatenate([a[0, 0], a[0, 1]]), a)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3, 3])
def test_stack(axis: int) -> None:
    a = sample(np.float32, (2, 3))
    b = sample(np.uint8, (2, 3), 1)
    check(lambda xp, a, b: xp.stack([a, b], axis=axis), a, b)
    check(lambda xp, a, b: xp.stack([a, b[0]], axis=axis), a, b)


def test_hstack_vstack() -> None:
    for shapes in [((3,), (2,)), ((2, 3), (2, 1)), ((), ()), ((2, 3), (4, 3)), ((3,), (3,))]:
        a = sample(np.float32, shapes[0])
        b = sample(np.int64, shapes[1], 1)
        check(lambda xp, a, b: xp.hstack([a, b]), a, b)
        check(lambda xp, a, b: xp.vstack((a, b)), a, b)


@pytest.mark.parametrize("shape", [(2, 3), (4, 2, 3), (3,), (2, 1), (0, 3), (-1, 3)])
def test_broadcast_to(shape: tuple[int, ...]) -> None:
    check(lambda xp, x: xp.broadcast_to(x, shape), sample(np.float64, (1, 3)))
    check(lambda xp, x: xp.broadcast_to(x, shape), np.float32(2.0))


def test_flip() -> None:
    for axis in (None, 0, -1, (0, 2)):
        check(lambda xp, x, a=axis: xp.flip(x, a), X)


def test_atleast_nd() -> None:
    for shape in [(), (3,), (2, 3), (2, 3, 4), (1, 2, 3, 4)]:
        x = sample(np.int32, shape)
        check(lambda xp, x: (xp.atleast_1d(x), xp.atleast_2d(x), xp.atleast_3d(x)), x)
        check(lambda xp, x: xp.atleast_2d(x, x[..., None]), x)
    check(lambda xp, x: (xp.atleast_1d(x), xp.atleast_3d(2.5)), np.float64(2.0))


def test_static_queries() -> None:
    check(lambda xp, x: (xp.ndim(x), xp.shape(x), xp.size(x), xp.size(x, 1), xp.size(x, -1)),
          X)
    check(lambda xp, x: (x.ndim, x.shape, x.size, x.dtype, x.itemsize, x.nbytes), X)


def test_axis_lists_where_numpy_takes_them() -> None:
    check(lambda xp, x: xp.sum(x, axis=[0, 1]), X)
    check(lambda xp, x: x.mean([0]), X)
    check(lambda xp, x: xp.squeeze(x[None], [0]), X)
    check(lambda xp, x: (xp.expand_dims(x, [0]), xp.flip(x, [0]), xp.moveaxis(x, [0], [1])), X)
