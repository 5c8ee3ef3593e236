"""Matrix products compiled natively against NumPy, through both product paths (NumPy's own
BLAS, registered at import, and the `gemm` crate): every shape class (matrix-vector,
vector-matrix, small, tall-skinny, batched, broadcast batches, transposed and strided
operands, 0-size dims), float32 and float64, and products feeding elementwise epilogues."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from ember import _core
from ember.backends import blas
from test_cranelift_harness import check, run

DTYPES = (np.float32, np.float64)


@pytest.fixture(params=["blas", "gemm"])
def product_path(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "gemm":
        blas.unregister()
    else:
        assert blas.register(), "NumPy's BLAS was not found"
    try:
        yield request.param
    finally:
        blas.register()


def floats(shape: tuple[int, ...], dtype: type, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def strided_views(x: np.ndarray) -> list[np.ndarray]:
    """`x` and views of the same values with other layouts: Fortran order, a transposed
    buffer, every other row of a larger buffer, a reversed last axis, a broadcast."""
    views = [x, np.asfortranarray(x)]
    if x.ndim >= 2:
        views.append(np.ascontiguousarray(np.swapaxes(x, -1, -2)).swapaxes(-1, -2))
        wide = np.zeros((*x.shape[:-2], 2 * x.shape[-2], x.shape[-1] + 3), x.dtype)
        wide[..., ::2, 1:-2] = x
        views.append(wide[..., ::2, 1:-2])
    if x.ndim >= 1 and x.shape[-1] > 0:
        views.append(np.ascontiguousarray(x[..., ::-1])[..., ::-1])
    if x.ndim >= 2 and x.shape[-2] == 1:
        views.append(np.broadcast_to(x[..., :1, :], x.shape))
    return views


SHAPE_CLASSES = {
    "mat-vec": ((37, 29), (29,)),
    "vec-mat": ((29,), (29, 37)),
    "dot": ((29,), (29,)),
    "small": ((4, 4), (4, 4)),
    "square": ((64, 64), (64, 64)),
    "tall-skinny": ((300, 8), (8, 5)),
    "wide-inner": ((5, 300), (300, 6)),
    "row-times-matrix": ((1, 17), (17, 9)),
    "matrix-times-column": ((9, 17), (17, 1)),
    "batched": ((6, 7, 5), (6, 5, 4)),
    "batched-mat-vec": ((6, 7, 5), (5,)),
    "vec-batched": ((7,), (3, 7, 5)),
    "broadcast-batch": ((6, 7, 5), (5, 4)),
    "broadcast-both": ((2, 1, 7, 5), (1, 3, 5, 4)),
    "empty-inner": ((3, 0), (0, 4)),
    "empty-rows": ((0, 5), (5, 4)),
    "empty-cols": ((3, 5), (5, 0)),
    "empty-batch": ((0, 3, 5), (5, 4)),
}


@pytest.mark.parametrize("shape_class", sorted(SHAPE_CLASSES))
@pytest.mark.parametrize("dtype", DTYPES)
def test_shape_classes_and_layouts(product_path: str, shape_class: str, dtype: type) -> None:
    xs, ys = SHAPE_CLASSES[shape_class]
    x, y = floats(xs, dtype, seed=1), floats(ys, dtype, seed=2)
    for a in strided_views(x):
        for b in strided_views(y):
            assert check(lambda xp, a, b: a @ b, a, b, sums=True) is not None


@pytest.mark.parametrize("dtype", DTYPES)
def test_transposed_operands_and_outputs(product_path: str, dtype: type) -> None:
    a, b = floats((33, 20), dtype, seed=3), floats((33, 24), dtype, seed=4)
    c = floats((20, 24), dtype, seed=5)
    assert check(lambda xp, a, b, c: (a.T @ b, b.T @ a, (a.T @ b).T, c.T @ a.T, a.T @ a),
                 a, b, c, sums=True) is not None
    v = floats((33,), dtype, seed=6)
    assert check(lambda xp, a, v: (a.T @ v, v @ a, a[::3].T @ v[::3], v[::-1] @ a),
                 a, v, sums=True) is not None


@pytest.mark.parametrize("dtype", DTYPES)
def test_transposes_of_computed_values_as_operands(product_path: str, dtype: type) -> None:
    """A computed value transposed into a product is stored once in its own order and read
    through the transposed view: the backward pass of a layer (`tanh(z).T @ d`), the value
    also used elementwise, transposes of transposes, batched swaps of the last two axes."""
    z, d = floats((40, 24), dtype, seed=15), floats((40, 7), dtype, seed=16)
    assert check(lambda xp, z, d: (xp.tanh(z).T @ d, (1 - xp.tanh(z) ** 2) * 3.0,
                                   d.T @ xp.exp(z * 0.1), (z * 2.0).T.T @ (z + 1.0).T,
                                   (z - 1.0).T @ (d * 0.5)),
                 z, d, sums=True, ulps=4) is not None
    s, t = floats((3, 9, 5), dtype, seed=17), floats((3, 9, 4), dtype, seed=18)
    assert check(lambda xp, s, t: (xp.swapaxes(s * 2.0, 1, 2) @ t,
                                   xp.transpose(s + t[..., :1], (0, 2, 1)) @ (t - 1.0)),
                 s, t, sums=True, ulps=4) is not None
    i, j = (z * 8).astype(np.int64), (d * 8).astype(np.int64)
    assert check(lambda xp, i, j: (i + 1).T @ (j * 2), i, j) is not None


@pytest.mark.parametrize("dtype", DTYPES)
def test_epilogues_after_products(product_path: str, dtype: type) -> None:
    x, w = floats((16, 24), dtype, seed=7), floats((24, 12), dtype, seed=8)
    bias = floats((12,), dtype, seed=9)
    assert check(lambda xp, x, w, bias: (xp.maximum(x @ w + bias, 0), xp.tanh(x @ w) * 0.5,
                                         (x @ w).sum(axis=1), x @ (w * 2.0) - 1.0),
                 x, w, bias, sums=True, ulps=4) is not None


@pytest.mark.parametrize("dtype", DTYPES)
def test_updates_by_a_product(product_path: str, dtype: type) -> None:
    """`w - lr * (x.T @ d)` (and `+`, no factor, the factor on either side) is computed by the
    product itself onto a copy of `w`: matrix and matrix-vector products, layouts BLAS does
    not take, batches, a computed `w`; a product read elsewhere too, a strong float64 factor
    and a broadcast `w` are computed as written."""
    x, d = floats((40, 24), dtype, seed=19), floats((40, 12), dtype, seed=20)
    w, v = floats((24, 12), dtype, seed=21), floats((40,), dtype, seed=22)
    b = floats((24,), dtype, seed=23)
    assert check(lambda xp, x, d, w, v, b: (w - 0.01 * (x.T @ d), w + (x.T @ d) * 0.5,
                                            w - x.T @ d, x.T @ d + w, w - 2 * (x.T @ d),
                                            b - 0.1 * (x.T @ v), w * 2.0 - 0.1 * (x.T @ d),
                                            w - 0.1 * (x[::2].T @ d[::2]),
                                            w - 0.1 * (x[:0].T @ d[:0])),
                 x, d, w, v, b, sums=True) is not None
    assert check(lambda xp, x, d, w, b: ((m := x.T @ d), w - 0.1 * m, w - np.float64(0.1) * m,
                                         b[:, None] - 0.1 * (x.T @ d)),
                 x, d, w, b, sums=True) is not None
    s, t = floats((3, 9, 5), dtype, seed=24), floats((3, 5, 4), dtype, seed=25)
    u = floats((3, 9, 4), dtype, seed=26)
    assert check(lambda xp, s, t, u: u - 0.1 * (s @ t), s, t, u, sums=True) is not None


def test_mixed_and_integer_dtypes_take_the_strided_path(product_path: str) -> None:
    a = floats((9, 7), np.float32, seed=10)
    b = floats((7, 5), np.float64, seed=11)
    assert check(lambda xp, a, b: (a @ b, b.T @ a.T), a, b, sums=True) is not None
    ia, ib = (a * 8).astype(np.int64), (b * 8).astype(np.int32)
    assert check(lambda xp, a, b: (a @ b, a.T @ a), ia, ib) is not None


def test_products_agree_bit_for_bit_with_numpy_on_the_blas_path(product_path: str) -> None:
    """Through NumPy's own BLAS, the same call gives the same bits as NumPy's `@` (shapes
    above the size of the products that run without a library call)."""
    a, b = floats((160, 120), np.float64, seed=12), floats((120, 96), np.float64, seed=13)
    v = floats((120,), np.float64, seed=14)
    graph = check(lambda xp, a, b, v: (a @ b, a @ v), a, b, v, sums=True)
    assert graph is not None
    if product_path == "blas":
        out = run(lambda xp, a, b, v: (a @ b, a @ v), a, b, v)
        assert out is not None
        got, want, _ = out
        np.testing.assert_array_equal(got[0], want[0], strict=True)
        np.testing.assert_array_equal(got[1], want[1], strict=True)


def test_numpy_blas_is_found_and_registration_round_trips() -> None:
    found = blas.find()
    assert found is not None, "this NumPy wheel ships OpenBLAS in numpy.libs"
    addresses, ilp64 = found
    assert all(isinstance(p, int) and p > 0 for p in addresses)
    config = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    assert ilp64 == ("64BITINT" in config["openblas configuration"])
    assert _core.set_blas(None) is True
    assert _core.set_blas(addresses, ilp64) is False
    assert blas.register() is True
