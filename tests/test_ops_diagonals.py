"""np.diagonal, np.diag, np.trace (and the `.diagonal()`/`.trace()` methods), np.tensordot,
np.conjugate of real arrays and np.cov (NumPy's Python code around them)
against NumPy: offsets on and past either edge, wide, tall and square operands, strided and
reversed views, integer and bool dtypes (np.sum's result types for traces), NumPy's errors;
gradients through them equal autograd's."""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import ember
import numpy as np
import pytest
from test_cranelift_harness import check as check_native
from test_ops_harness import check


def operand(shape: tuple[int, ...], dtype: type = np.float64, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "b":
        return rng.random(shape) > 0.5
    if np.dtype(dtype).kind in "iu":
        return rng.integers(0, 9, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


SHAPES = [(4, 4), (3, 5), (5, 3), (1, 4), (4, 1)]
OFFSETS = [0, 1, 2, -1, -2, 4, -5]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64, np.uint8, np.bool_])
def test_diagonals_and_traces(shape, dtype):
    x = operand(shape, dtype)
    for k in OFFSETS:
        check(lambda xp, a, k=k: xp.diagonal(a, k), x)
        check(lambda xp, a, k=k: xp.diag(a, k), x)
        check(lambda xp, a, k=k: xp.trace(a, k), x)
    check(lambda xp, a: a.diagonal() + 1, x)
    check(lambda xp, a: a.trace(), x)
    check(lambda xp, a: xp.trace(a, dtype=np.float32), x)


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.bool_])
def test_diag_of_a_vector_is_a_square_array(dtype):
    v = operand((5,), dtype)
    check(lambda xp, v: xp.diag(v), v)
    check(lambda xp, v: xp.diag(v[::-2]) @ xp.diag(v[::-2]), v)


def test_views_and_native_code():
    a = operand((6, 7), seed=1)
    for view in (a, a.T, a[::2, 1:], a[::-1, ::-2], np.asfortranarray(a)):
        assert check_native(lambda xp, x: xp.diag(x) * 2 + xp.trace(x), view, sums=True)
        assert check_native(lambda xp, x: xp.diagonal(x, -1).sum() - x.trace(1), view, sums=True)


AXES = [(0, 1), (1, 0), (1, 2), (2, 1), (-1, -2), (-2, -1), (0, 2), (2, 0), (1, 1), (0, 3),
        (-4, 0)]


@pytest.mark.parametrize("axes", AXES)
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_diagonals_and_traces_across_any_two_axes(axes, dtype):
    x = operand((3, 4, 5), dtype)
    for k in (0, 1, -2, 6):
        check(lambda xp, a, k=k: xp.diagonal(a, k, *axes), x)
        check(lambda xp, a, k=k: xp.trace(a, k, *axes), x)
    check(lambda xp, a: a.diagonal(axis1=axes[0], axis2=axes[1]) * 2, x[:, ::-1])


def test_errors():
    check(lambda xp, a: xp.diag(a), operand((2, 3, 4)))
    check(lambda xp, a: xp.diagonal(a), operand((3,)))
    check(lambda xp, a: xp.trace(a), operand((3,)))


PAIRS = [((3, 4), (4, 5), 1), ((3, 4), (3, 4), 2), ((2, 3, 4), (3, 4, 5), 2), ((3,), (4,), 0),
         ((3, 4), (4, 3), ([0, 1], [1, 0])), ((2, 3, 4), (4, 2), ([2, 0], [0, 1])),
         ((3, 4), (5, 4), ([1], [1])), ((3, 4), (4, 5), (1, 0))]


@pytest.mark.parametrize("sa, sb, axes", PAIRS)
@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_tensordot(sa, sb, axes, dtype):
    a, b = operand(sa, dtype, 1), operand(sb, dtype, 2)
    check(lambda xp, a, b: xp.tensordot(a, b, axes), a, b)


def test_tensordot_errors():
    a, b = operand((3, 4)), operand((5, 6))
    check(lambda xp, a, b: xp.tensordot(a, b, 1), a, b)
    check(lambda xp, a, b: xp.tensordot(a, b, ([0], [0, 1])), a, b)


def _losses(xp):
    return [
        lambda a, b: xp.trace(xp.dot(a, b)) ** 2,
        lambda a, b: xp.sum(xp.diag(a[:, :4]) * xp.diag(b.T[:4, :4])),
        lambda a, b: xp.sum(xp.tensordot(a, b, 1) ** 2),
        lambda a, b: xp.sum(xp.diag(xp.diag(a[:, 1:])) @ a),
    ]


@pytest.mark.parametrize("k", range(4))
def test_gradients_equal_autograds(k):
    rng = np.random.default_rng(k)
    a, b = rng.standard_normal((4, 5)), rng.standard_normal((5, 4))
    ember.reset()
    got = ember.grad(_losses(np)[k], argnums=(0, 1))(a, b)
    want = autograd.grad(_losses(anp)[k], (0, 1))(a, b)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_gradients_of_diagonals_across_axes_equal_differences():
    from test_autodiff_rules import numeric_grad

    def loss(a):
        return (np.sum(np.diagonal(a, 1, 2, 0) ** 2) + np.trace(a, -1, 1, 2) @ a[:, 0, 0]
                + np.sum(np.sin(a.diagonal(axis1=-1, axis2=-2))))

    a = np.random.default_rng(3).standard_normal((3, 4, 3))
    np.testing.assert_allclose(ember.grad(loss)(a), numeric_grad(loss, (a,), 0), rtol=1e-6)


def test_conjugates_of_real_arrays_and_covariances():
    x = operand((3, 5))
    check(lambda xp, a: (xp.conj(a), xp.conjugate(a * 2), a.conj() + 1, a.T.conjugate()), x)
    check(lambda xp, a: xp.conj(a), operand((4,), np.int32))

    def covariances(a):
        return np.cov(a), np.cov(a, bias=True), np.cov(a[0], a[1], ddof=0)

    for got, want in zip(ember.compile(covariances, fullgraph=True)(x), covariances(x),
                         strict=True):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
