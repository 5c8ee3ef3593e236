"""Reductions, views, joins, creation ops and matmul compiled natively against NumPy: every
dtype the op allows, all axes, keepdims, empty and 0-d arrays, non-contiguous inputs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from test_cranelift_elementwise import DTYPES, edge_values
from test_cranelift_harness import check
from test_ops_elementwise import sample

AXES = [None, 0, -1, 1, (0, 2), (), (2, 0, 1)]
REDUCTIONS = ["sum", "prod", "max", "min", "mean", "any", "all"]
SUMMING = {"sum", "prod", "mean"}
X = sample(np.float32, (2, 3, 4))


def floats(shape: tuple[int, ...], dtype: type = np.float64, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions_over_dtypes_axes_keepdims(name: str) -> None:
    for dt in DTYPES:
        x = sample(dt, (2, 3, 4))
        for axis, keepdims in itertools.product(AXES, (False, True)):
            assert check(lambda xp, x, a=axis, k=keepdims: getattr(xp, name)(
                x, axis=a, keepdims=k), x, sums=name in SUMMING) is not None


@pytest.mark.parametrize("name", REDUCTIONS + ["argmax", "argmin"])
def test_reductions_of_large_and_strided_arrays(name: str) -> None:
    for dt in (np.float32, np.float64, np.int32, np.uint8, np.bool_):
        big = floats((257, 129), seed=1) * 4
        big = big.astype(dt) if dt is not np.bool_ else big > 0
        if name == "prod":
            big = np.where(np.abs(big) > 1.5, 1, big).astype(dt)
        for x in (big, big.T, big[::3, 1::2], big[:, ::-1]):
            for axis in (None, 0, 1):
                assert check(lambda xp, x, a=axis: getattr(xp, name)(x, axis=a), x,
                             sums=name in SUMMING) is not None


def test_float32_sums_stay_within_pairwise_error() -> None:
    rng = np.random.default_rng(2)
    for n in (7, 128, 1000, 100_003):
        x = (rng.standard_normal(n) * 100 + 3).astype(np.float32)
        assert check(lambda xp, x: (x.sum(), x.mean(), (x * x).sum()), x, sums=True)
        m = x[: n - n % 5].reshape(5, -1)
        assert check(lambda xp, m: (m.sum(axis=1), m.mean(axis=0), m.T.sum(axis=0)), m,
                     sums=True)


def test_reductions_with_nan_and_infinities() -> None:
    for dt in (np.float32, np.float64):
        x = edge_values(dt, 48).reshape(6, 8)
        for name in ("max", "min", "argmax", "argmin", "any", "all", "sum"):
            assert check(lambda xp, x, n=name: (getattr(xp, n)(x), getattr(xp, n)(x, axis=1)),
                         x, sums=name == "sum") is not None


@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (3, 0), (1,), (5,)])
def test_reductions_of_0d_and_empty_arrays(shape: tuple[int, ...]) -> None:
    for dt in (np.int64, np.float32, np.bool_):
        x = sample(dt, shape)
        for name in REDUCTIONS + ["argmax", "argmin"]:
            check(lambda xp, x, n=name: getattr(xp, n)(x), x, sums=True)
            if x.ndim:
                check(lambda xp, x, n=name: getattr(xp, n)(x, axis=0), x, sums=True)
                check(lambda xp, x, n=name: getattr(xp, n)(x, axis=-1, keepdims=True), x,
                      sums=True)


@pytest.mark.parametrize("name", ["var", "std"])
def test_var_and_std(name: str) -> None:
    for dt in (np.float32, np.float64, np.int16):
        x = (floats((4, 6, 5), seed=7) * 10).astype(dt)
        for axis, ddof in itertools.product((None, 0, (0, 2), -1), (0, 1)):
            assert check(lambda xp, x, a=axis, d=ddof: getattr(xp, name)(x, axis=a, ddof=d),
                         x, sums=True, ulps=4) is not None


def test_sum_with_dtype() -> None:
    x = sample(np.int8, (4, 3))
    for dt in (np.int8, np.int32, np.float32, np.uint64):
        assert check(lambda xp, x, d=dt: (xp.sum(x, axis=0, dtype=d), x.prod(dtype=d)), x,
                     sums=True) is not None
    assert check(lambda xp, x: xp.mean(x, dtype=np.float32), sample(np.int32, (5,)), sums=True)


@pytest.mark.parametrize("shape", [(24,), (4, -1), (2, 3, 4), (-1, 2, 2), (1, 24, 1), ()])
def test_reshape(shape: tuple[int, ...]) -> None:
    x = X if shape != () else np.ones((1, 1), np.float32)
    for v in (x, x.transpose(2, 0, 1) if x.ndim == 3 else x.T):
        assert check(lambda xp, v: v.reshape(shape) * 2, v) is not None


@pytest.mark.parametrize("axes", [None, (2, 0, 1), (0, 1, 2), (-1, 0, 1)])
def test_transpose(axes: tuple[int, ...] | None) -> None:
    assert check(lambda xp, x: (xp.transpose(x, axes), x.T + 1, x[0].T * x[1].T), X)


def test_expand_dims_squeeze_flip_copy_broadcast() -> None:
    assert check(lambda xp, x: (xp.expand_dims(x, (0, 2)), x[None, :, None], x[..., None]), X)
    one = np.ones((1, 3, 1), np.int32)
    assert check(lambda xp, x: (xp.squeeze(x), x.squeeze(0) + 1, x.squeeze(-1)), one)
    for axis in (None, 0, -1, (0, 2)):
        assert check(lambda xp, x, a=axis: xp.flip(x, a), X)
    assert check(lambda xp, x: (xp.copy(x), x.copy().T, x.ravel(), x.T.flatten()), X)
    for shape in [(2, 3), (4, 2, 3), (0, 3)]:
        assert check(lambda xp, x, s=shape: xp.broadcast_to(x, s) + 0,
                     sample(np.float64, (1, 3)))


@pytest.mark.parametrize("index", [
    0, -1, slice(1, 3), slice(None, None, -1), slice(3, 0, -2), (slice(None), 2), (Ellipsis, 1),
    (1, Ellipsis, 2), (None, 1, None), (0, slice(1, 4, 2), slice(None, None, -1)), slice(10, 20),
    (slice(-100, 100, -1),),
], ids=repr)
def test_basic_indexing(index: object) -> None:
    x = sample(np.float64, (4, 5, 3))
    assert check(lambda xp, x: x[index] * 1.5, x) is not None


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_concatenate_and_stack(axis: int | None) -> None:
    a = sample(np.float32, (2, 3))
    b = sample(np.int16, (2, 3), 1)
    c = sample(np.float64, (4, 3), 2)
    assert check(lambda xp, a, b: xp.concatenate([a, b, a], axis=axis), a, b)
    if axis != 1:
        assert check(lambda xp, a, c: xp.concatenate([a, c.T[:, :2].T], axis=axis), a, c)
    if axis is not None:
        assert check(lambda xp, a, b: (xp.stack([a, b], axis=axis), xp.hstack([a, b]),
                                       xp.vstack([a.T, b.T])), a, b)


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int32, np.bool_])
def test_creation_ops(dt: type) -> None:
    for shape in [3, (2, 3), (), (0, 4)]:
        assert check(lambda xp, s=shape: (xp.zeros(s, dt), xp.ones(s, dtype=dt),
                                          xp.full(s, 3, dtype=dt)))
    x = sample(dt, (2, 3))
    assert check(lambda xp, x: (xp.zeros_like(x), xp.full_like(x, 2), x + xp.ones_like(x)), x)
    if dt is not np.bool_:
        for args in [(5,), (2, 7), (0, 10, 3), (10, 0, -3), (-2, 2, 1)]:
            assert check(lambda xp, a=args: xp.arange(*a, dtype=dt) * 2) is not None
        # Float bounds with an integer dtype: the core's parser takes only integer literals
        # for an integer arange, so this graph may run eagerly, still as NumPy.
        assert check(lambda xp: xp.arange(-2.5, 2.5, 0.5, dtype=dt) * 2,
                     allow_eager=True) is not None
    for n, m, k in [(3, None, 0), (2, 4, 1), (4, 2, -1), (0, 2, 0)]:
        assert check(lambda xp, n=n, m=m, k=k: xp.eye(n, m, k, dtype=dt))
    assert check(lambda xp: xp.linspace(-3.5, 2, 50) + 0)


MATMUL_SHAPES = [(3,), (2, 3), (3, 4), (4,), (5, 3, 4), (1, 4, 2), (2, 5, 3, 4), (0, 3), (3, 0)]


def test_matmul_shapes() -> None:
    for xs, ys in itertools.product(MATMUL_SHAPES, repeat=2):
        x, y = floats(xs), floats(ys, seed=1)
        check(lambda xp, x, y: x @ y, x, y, sums=True)


@pytest.mark.parametrize("n", [1, 7, 64, 130])
def test_matmul_sizes_layouts_dtypes(n: int) -> None:
    for dt in (np.float32, np.float64, np.int32, np.int64, np.bool_):
        a = floats((n, n + 3), seed=3)
        b = floats((n + 3, 5), seed=4)
        if dt is np.bool_:
            a, b = a > 0, b > 0
        a, b = (a * 4).astype(dt), (b * 4).astype(dt)
        assert check(lambda xp, a, b: (a @ b, b.T @ a.T, a[::2] @ b, a.T.T @ b[:, ::-1]), a, b,
                     sums=True) is not None
    x = floats((3, n), np.float32)
    assert check(lambda xp, x, y: x @ y, x, floats((n,), np.float64), sums=True)
