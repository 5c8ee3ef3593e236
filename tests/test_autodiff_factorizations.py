"""Gradients through the factorisations (`autodiff/rules/linalg.rs`, `spectral.rs`) and
`cumprod` (`scans.rs`): cholesky (lower and upper), eigh and eigvalsh (either triangle), svd
(full, reduced, values only, and what is built on it: pinv, the spectral and nuclear norms),
lstsq (solution, residuals, singular values), against autograd where it has the rule and
against central differences in float64 everywhere; stacked matrices, float32 inputs, second
derivatives and compiled steps."""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import ember
import numpy as np
import pytest
from test_autodiff_rules import numeric_grad


def _spd(rng, n, batch=()):
    m = rng.standard_normal((*batch, n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


def _sym(np, x):
    """A positive definite matrix of any square `x`, so that differences in `x` stay in the
    set of matrices the factorisation reads."""
    return x @ np.swapaxes(x, -1, -2) + x.shape[-1] * np.eye(x.shape[-1])


W4 = np.random.default_rng(100).standard_normal((4, 4))
W35 = np.random.default_rng(101).standard_normal((3, 5))


def _lstsq_parts(np, a, b):
    """What ember's np.linalg.lstsq gives, in terms autograd can differentiate."""
    x = np.linalg.pinv(a) @ b
    return x, np.sum((b - a @ x) ** 2, axis=0), np.linalg.svd(a, compute_uv=False)


def _numpy_lstsq(np, a, b):
    x, residuals, _, s = np.linalg.lstsq(a, b)
    return x, residuals, s


def _lstsq_loss(np, a, b, lstsq=_numpy_lstsq):
    x, residuals, s = lstsq(np, a, b)
    total = np.sum(np.sin(x)) + np.sum(s ** 2)
    return total + (np.sum(residuals * np.arange(1.0, 3.0)) if a.shape[0] > a.shape[1] else 0.0)


# name: (loss with the module as its first argument, autograd's loss or None for the same
# one, the arguments).
CASES = {
    "cholesky": (lambda np, x: np.sum(np.sin(np.linalg.cholesky(_sym(np, x))) * W4), None,
                 lambda rng: (rng.standard_normal((4, 4)),)),
    "cholesky of a raw matrix": (lambda np, a: np.sum(np.linalg.cholesky(a) ** 3 * W4), None,
                                 lambda rng: (_spd(rng, 4),)),
    "cholesky stacked": (lambda np, x: np.sum(np.log(np.linalg.cholesky(_sym(np, x)) ** 2 + 1)),
                         None, lambda rng: (rng.standard_normal((2, 3, 3)),)),
    "cholesky upper": (
        lambda np, x: np.sum(np.linalg.cholesky(_sym(np, x), upper=True) * W4),
        lambda np, x: np.sum(np.swapaxes(np.linalg.cholesky(_sym(np, x)), -1, -2) * W4),
        lambda rng: (rng.standard_normal((4, 4)),)),
    "gaussian log-density by cholesky": (
        lambda np, x, y: (np.sum(np.log(np.diagonal(np.linalg.cholesky(_sym(np, x)), 0, -1, -2)))
                          + 0.5 * np.sum(np.linalg.solve(np.linalg.cholesky(_sym(np, x)), y) ** 2)),
        None, lambda rng: (rng.standard_normal((4, 4)), rng.standard_normal(4))),
    "eigh values": (lambda np, a: np.sum(np.linalg.eigh(a)[0] ** 2 * np.arange(4.0)), None,
                    lambda rng: (rng.standard_normal((4, 4)),)),
    "eigh vectors": (lambda np, a: np.sum(np.linalg.eigh(a)[1] ** 3 * W4), None,
                     lambda rng: (rng.standard_normal((4, 4)),)),
    "eigh upper": (lambda np, a: np.sum(np.linalg.eigh(a, UPLO="U")[1] ** 3 * W4)
                   + np.sum(np.exp(np.linalg.eigh(a, UPLO="U")[0] / 4)), None,
                   lambda rng: (rng.standard_normal((4, 4)),)),
    "eigh stacked": (lambda np, a: np.sum(np.linalg.eigh(a)[1][..., 0] ** 4)
                     + np.sum(np.linalg.eigh(a)[0] ** 2), None,
                     lambda rng: (rng.standard_normal((3, 3, 3)),)),
    "eigvalsh": (lambda np, a: np.sum(np.linalg.eigvalsh(a) ** 3),
                 lambda np, a: np.sum(np.linalg.eigh(a)[0] ** 3),
                 lambda rng: (rng.standard_normal((4, 4)),)),
    "eigvalsh upper stacked": (lambda np, a: np.sum(np.sin(np.linalg.eigvalsh(a, UPLO="U"))),
                               lambda np, a: np.sum(np.sin(np.linalg.eigh(a, UPLO="U")[0])),
                               lambda rng: (rng.standard_normal((2, 3, 3)),)),
    "svd reduced tall": (lambda np, a: np.sum(np.linalg.svd(a, full_matrices=False)[0] ** 3)
                         + np.sum(np.linalg.svd(a, full_matrices=False)[1] ** 2)
                         + np.sum(np.linalg.svd(a, full_matrices=False)[2] ** 3), None,
                         lambda rng: (rng.standard_normal((5, 3)),)),
    "svd reduced wide stacked": (
        lambda np, a: np.sum(np.linalg.svd(a, full_matrices=False)[0] ** 3 * W35[:, :3])
        + np.sum(np.linalg.svd(a, full_matrices=False)[2] ** 3 * W35), None,
        lambda rng: (rng.standard_normal((2, 3, 5)),)),
    "svd full, leading vectors used": (
        lambda np, a: np.sum(np.linalg.svd(a)[0][:, :3] ** 3 * W35.T[:, :3])
        + np.sum(np.linalg.svd(a)[2][:3] ** 3) + np.sum(np.linalg.svd(a)[1]),
        lambda np, a: np.sum(np.linalg.svd(a, full_matrices=False)[0] ** 3 * W35.T[:, :3])
        + np.sum(np.linalg.svd(a, full_matrices=False)[2] ** 3)
        + np.sum(np.linalg.svd(a, full_matrices=False)[1]),
        lambda rng: (rng.standard_normal((5, 3)),)),
    "svdvals": (lambda np, a: np.sum(np.linalg.svd(a, compute_uv=False) ** 3), None,
                lambda rng: (rng.standard_normal((2, 4, 3)),)),
    "pinv": (lambda np, a: np.sum(np.linalg.pinv(a) * W35), None,
             lambda rng: (rng.standard_normal((5, 3)),)),
    "nuclear norm": (lambda np, a: np.linalg.norm(a, "nuc"),
                     lambda np, a: np.sum(np.linalg.svd(a, compute_uv=False)),
                     lambda rng: (rng.standard_normal((3, 5)),)),
    "spectral norm over axes": (
        lambda np, a: np.sum(np.linalg.norm(a, 2, axis=(2, 0))),
        lambda np, a: np.sum(np.max(np.linalg.svd(np.transpose(a, (1, 2, 0)),
                                                  compute_uv=False), axis=-1)),
        lambda rng: (rng.standard_normal((3, 2, 4)),)),
    "lstsq tall": (_lstsq_loss, lambda np, a, b: _lstsq_loss(np, a, b, _lstsq_parts),
                   lambda rng: (rng.standard_normal((5, 3)), rng.standard_normal((5, 2)))),
    "lstsq wide": (_lstsq_loss, lambda np, a, b: _lstsq_loss(np, a, b, _lstsq_parts),
                   lambda rng: (rng.standard_normal((3, 5)), rng.standard_normal((3, 2)))),
    "lstsq square, vector": (
        lambda np, a, b: np.sum(np.linalg.lstsq(a, b, rcond=None)[0] ** 2),
        lambda np, a, b: np.sum(np.linalg.solve(a, b) ** 2),
        lambda rng: (_spd(rng, 3), rng.standard_normal(3))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_equal_autograds_and_differences(name):
    fn, reference, make = CASES[name]
    reference = reference or fn
    args = make(np.random.default_rng(len(name)))
    argnums = tuple(range(len(args)))
    value, got = ember.value_and_grad(lambda *a: fn(np, *a), argnums=argnums)(*args)
    np.testing.assert_allclose(value, fn(np, *args), rtol=1e-10)
    want = autograd.grad(lambda *a: reference(anp, *a), argnum=argnums)(*args)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g.dtype == np.float64 and g.shape == args[i].shape
        np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-9)
        if name != "cholesky of a raw matrix":  # autograd's symmetric gradient, not NumPy's
            differences = numeric_grad(lambda *a: fn(np, *a), args, i)
            np.testing.assert_allclose(g, differences, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["cholesky", "eigh vectors", "svd reduced tall", "lstsq tall",
                                  "eigvalsh upper stacked"])
def test_gradients_inside_a_compiled_step(name):
    fn, _, make = CASES[name]
    args = make(np.random.default_rng(len(name)))

    @ember.compile
    def step(*a):
        return ember.value_and_grad(lambda *b: fn(np, *b), argnums=tuple(range(len(a))))(*a)

    value, got = step(*args)
    _, want = ember.value_and_grad(lambda *a: fn(np, *a), argnums=tuple(range(len(args))))(*args)
    np.testing.assert_allclose(value, fn(np, *args), rtol=1e-10)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)


def _projector_loss(a, c, d):
    """Depends on the full svd's complements only through their projectors (a loss of the
    span, not of the basis LAPACK chose)."""
    u, s, vh = np.linalg.svd(a)
    k = min(a.shape)
    u_rest, v_rest = u[:, k:], vh[k:].T
    return (np.sum(c * (u_rest @ u_rest.T)) + np.sum(d * (v_rest @ v_rest.T))
            + np.sum(u[:, :k] ** 2 * s) + np.sum(vh[:k] ** 4))


@pytest.mark.parametrize("shape", [(5, 3), (3, 5)])
def test_full_svd_complements_differentiate_by_their_span(shape):
    rng = np.random.default_rng(7)
    a = rng.standard_normal(shape)
    c, d = rng.standard_normal((shape[0],) * 2), rng.standard_normal((shape[1],) * 2)
    got = ember.grad(_projector_loss)(a, c, d)
    np.testing.assert_allclose(got, numeric_grad(_projector_loss, (a, c, d), 0),
                               rtol=1e-5, atol=1e-6)


def _cumprod_loss(x):
    return np.sum(np.cumprod(x, axis=-1) * np.arange(1.0, x.shape[-1] + 1))


@pytest.mark.parametrize("x", [
    [0.5, 1.5, -2.0, 0.7],
    [0.5, 0.0, -2.0, 0.7],
    [0.0, 1.5, -2.0, 0.7],
    [0.5, 1.5, -2.0, 0.0],
    [0.5, 0.0, 3.0, 0.0],
    [0.0, 0.0, 0.0, 0.0],
    [[1.0, 0.0, 2.0], [0.0, 3.0, 0.5]],
], ids=str)
def test_cumprod_gradients_with_zeros(x):
    """The product of the other elements, also at and after zeros (a polynomial: central
    differences are exact up to rounding)."""
    x = np.array(x)
    got = ember.grad(_cumprod_loss)(x)
    np.testing.assert_allclose(got, numeric_grad(_cumprod_loss, (x,), 0), rtol=1e-7, atol=1e-8)
    along_rows = ember.grad(lambda v: np.sum(np.cumprod(v, axis=0) ** 2))(np.atleast_2d(x).T)
    want = numeric_grad(lambda v: np.sum(np.cumprod(v, axis=0) ** 2), (np.atleast_2d(x).T,), 0)
    np.testing.assert_allclose(along_rows, want, rtol=1e-7, atol=1e-8)


def test_cumprod_flattened_and_discounting():
    rng = np.random.default_rng(3)
    x = rng.uniform(0.5, 1.0, (3, 4))
    fn = lambda v: np.sum(np.cumprod(v) * np.linspace(1, 2, 12))  # noqa: E731
    np.testing.assert_allclose(ember.grad(fn)(x), numeric_grad(fn, (x,), 0), rtol=1e-7)


SECOND = {
    "cholesky log-determinant": lambda np, x: 2 * np.sum(np.log(np.diagonal(
        np.linalg.cholesky(_sym(np, x)), 0, -1, -2))),
    "eigh vectors": lambda np, a: np.sum(np.linalg.eigh(a)[1] ** 3 * W4),
    "svd values": lambda np, a: np.sum(np.linalg.svd(a, compute_uv=False) ** 3),
}


@pytest.mark.parametrize("name", sorted(SECOND))
def test_second_derivatives_equal_autograds(name):
    """The rules emit ops that have rules: a Hessian-vector product is the grad of a grad."""
    fn = SECOND[name]
    rng = np.random.default_rng(4)
    x, direction = rng.standard_normal((4, 4)), rng.standard_normal((4, 4))
    got = ember.grad(lambda v: np.sum(ember.grad(lambda w: fn(np, w))(v) * direction))(x)
    want = autograd.grad(lambda v: anp.sum(autograd.grad(lambda w: fn(anp, w))(v)
                                           * direction))(x)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_float32_matrices_get_float32_gradients():
    rng = np.random.default_rng(5)
    a = _spd(rng, 3).astype(np.float32)
    for fn in (lambda a: np.sum(np.linalg.cholesky(a)), lambda a: np.sum(np.linalg.eigvalsh(a)),
               lambda a: np.sum(np.linalg.svd(a)[1]), lambda a: np.sum(np.linalg.pinv(a))):
        got = ember.grad(fn)(a)
        want = ember.grad(fn)(a.astype(np.float64))
        assert got.dtype == np.float32 and got.shape == a.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_eigenvalues_alone_of_a_degenerate_matrix_stay_finite():
    """Equal eigenvalues leave the vectors undetermined; a loss of the values alone still has
    a gradient, as autograd gives it."""
    a = np.diag([2.0, 2.0, 3.0])
    got = ember.grad(lambda a: np.sum(np.linalg.eigh(a)[0] ** 2))(a)
    want = autograd.grad(lambda a: anp.sum(anp.linalg.eigh(a)[0] ** 2))(a)
    np.testing.assert_allclose(got, want, rtol=1e-12)
