"""Small float products against NumPy, through NumPy's BLAS and through the register-tiled
loop that takes them where no BLAS is registered (or its layouts are refused): every extent around the tile edges (4 rows, 16 f32 / 8 f64 columns), matrix-vector
products in both orientations, batches with broadcasting, strided, transposed, reversed and
broadcast operands and outputs, special values, sizes either side of the size limit, and
integer products (which keep the general path)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from ember.backends import blas
from hypothesis import given
from hypothesis import strategies as st
from test_cranelift_harness import check
from test_cranelift_matmul import floats, strided_views

DTYPES = (np.float32, np.float64)
EDGES = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33)


def set_path(path: str) -> None:
    if path == "tiled":
        blas.unregister()
    else:
        assert blas.register(), "NumPy's BLAS was not found"


@pytest.fixture(params=["blas", "tiled"])
def product_path(request: pytest.FixtureRequest) -> Iterator[str]:
    set_path(request.param)
    try:
        yield request.param
    finally:
        blas.register()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m", (1, 3, 4, 5, 9))
def test_every_extent_around_the_tile_edges(product_path: str, dtype: type, m: int) -> None:
    for n in EDGES:
        for k in (1, 2, 5, 16, 17):
            a, b = floats((m, k), dtype, seed=m * 100 + k), floats((k, n), dtype, seed=n)
            assert check(lambda xp, a, b: a @ b, a, b, sums=True) is not None


@pytest.mark.parametrize("dtype", DTYPES)
def test_one_by_one_dots_and_vector_products(product_path: str, dtype: type) -> None:
    one, row, col = floats((1, 1), dtype), floats((1, 7), dtype, 1), floats((7, 1), dtype, 2)
    assert check(lambda xp, a: a @ a, one, sums=True) is not None
    assert check(lambda xp, r, c: (r @ c, c @ r), row, col, sums=True) is not None
    for n in (1, 6, 24, 40):
        m, v = floats((n, 13), dtype, seed=n), floats((13,), dtype, seed=3)
        w = floats((n,), dtype, seed=4)
        assert check(lambda xp, m, v, w: (m @ v, w @ m, v @ v), m, v, w, sums=True) is not None


@pytest.mark.parametrize("dtype", DTYPES)
def test_strided_transposed_and_broadcast_operands(product_path: str, dtype: type) -> None:
    x, y = floats((5, 6), dtype, seed=5), floats((6, 9), dtype, seed=6)
    for a in strided_views(x):
        for b in strided_views(y):
            assert check(lambda xp, a, b: (a @ b, (a @ b).T, b.T @ a.T), a, b,
                         sums=True) is not None


@pytest.mark.parametrize("dtype", DTYPES)
def test_outer_products_with_strided_rows(product_path: str, dtype: type) -> None:
    """k = 1: each output row is a scaled copy of B's single row, which may be strided."""
    for n in (8, 16, 17, 32):
        col = floats((4, 1), dtype, seed=n)
        wide = floats((1, 2 * n), dtype, seed=n + 1)
        for b in (wide[:, ::2], wide[:, ::-2], np.broadcast_to(wide[:, :1], (1, n))):
            assert check(lambda xp, a, b: (a @ b, b.T @ a.T), col, b, sums=True) is not None


@pytest.mark.parametrize("dtype", DTYPES)
def test_batches_with_broadcasting(product_path: str, dtype: type) -> None:
    cases = [((64, 4, 4), (64, 4, 4)), ((64, 8, 8), (8, 8)), ((3, 1, 5, 6), (1, 4, 6, 2)),
             ((7, 6), (2, 3, 6, 5)), ((10, 3, 7), (7,)), ((7,), (10, 7, 3)), ((0, 4, 4), (4, 4))]
    for xs, ys in cases:
        x, y = floats(xs, dtype, seed=7), floats(ys, dtype, seed=8)
        for a in strided_views(x)[:3]:
            assert check(lambda xp, a, b: a @ b, a, y, sums=True) is not None


@pytest.mark.parametrize("dtype", DTYPES)
def test_sizes_either_side_of_the_limit(product_path: str, dtype: type) -> None:
    """16^3 multiply-adds, tile padding included, is the largest product the tiled loop takes;
    17 rows pad to 20 and go to the library, as do the long matrix-vector products."""
    for m, n, k in ((16, 16, 16), (17, 16, 16), (16, 17, 16), (4, 16, 64), (4, 16, 65),
                    (100, 1, 80), (1, 100, 80), (300, 300, 1), (32, 32, 32)):
        a, b = floats((m, k), dtype, seed=m + n), floats((k, n), dtype, seed=k)
        assert check(lambda xp, a, b: a @ b, a, b, sums=True) is not None


@pytest.mark.parametrize("dtype", DTYPES)
def test_special_values_propagate(product_path: str, dtype: type) -> None:
    a, b = floats((3, 4), dtype, seed=9), floats((4, 5), dtype, seed=10)
    a[0, 1], a[2, 3], b[1, 4] = np.inf, np.nan, -np.inf
    with np.errstate(invalid="ignore", over="ignore"):
        assert check(lambda xp, a, b: a @ b, a, b, sums=True) is not None
    big = np.full((2, 3), np.finfo(dtype).max / 2, dtype)
    with np.errstate(over="ignore"):
        assert check(lambda xp, a, b: a @ b, big, big.T.copy(), sums=True) is not None


@pytest.mark.parametrize("dtype", DTYPES)
def test_small_products_inside_larger_graphs(product_path: str, dtype: type) -> None:
    x, w = floats((8, 12), dtype, seed=11), floats((12, 12), dtype, seed=12)
    bias = floats((12,), dtype, seed=13)
    assert check(lambda xp, x, w, b: xp.tanh(xp.maximum(x @ w + b, 0) @ w) * 0.5 + x @ w,
                 x, w, bias, sums=True, ulps=4) is not None


def test_integer_and_mixed_products_keep_the_general_path(product_path: str) -> None:
    a = (floats((5, 4), np.float64, seed=14) * 8).astype(np.int64)
    b = (floats((4, 3), np.float64, seed=15) * 8).astype(np.int32)
    c = floats((4, 3), np.float32, seed=16)
    assert check(lambda xp, a, b: (a @ b, a.T @ a), a, b) is not None
    assert check(lambda xp, a, c: a @ c, a, c, sums=True) is not None


@given(st.integers(1, 40), st.integers(1, 40), st.integers(1, 40), st.sampled_from(DTYPES),
       st.booleans(), st.booleans(), st.sampled_from(["blas", "tiled"]))
def test_random_small_shapes(m: int, n: int, k: int, dtype: type, ta: bool, tb: bool,
                             path: str) -> None:
    a = floats((k, m) if ta else (m, k), dtype, seed=m * 41 + k)
    b = floats((n, k) if tb else (k, n), dtype, seed=n * 41 + k)
    a, b = (a.T if ta else a), (b.T if tb else b)
    set_path(path)
    try:
        assert check(lambda xp, a, b: a @ b, a, b, sums=True) is not None
    finally:
        blas.register()
