"""np.linalg.solve, inv, det, slogdet, cholesky, eigh, eigvalsh, lstsq, svd, pinv and
matrix_rank against NumPy on both backends: random
well-conditioned and singular matrices, stacks with broadcast batches, every dtype NumPy
takes, non-contiguous operands, NaNs, empty matrices, and NumPy's errors (a singular or
non-positive-definite matrix, non-square input) with the arguments left untouched."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import RecordingBackend
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from ops_compiled import BACKENDS, check

DTYPES = (np.float64, np.float32, np.int64, np.int32, np.bool_)


def matrices(n: int, batch: tuple[int, ...] = (), dtype: type = np.float64,
             seed_: int = 0) -> np.ndarray:
    """Well-conditioned matrices: random entries plus a dominant diagonal."""
    rng = np.random.default_rng(seed_)
    if np.dtype(dtype).kind in "biu":
        a = rng.integers(-3, 4, (*batch, n, n)) + 8 * np.eye(n, dtype=np.int64)
        return (a != 0) if dtype is np.bool_ else a.astype(dtype)
    return (rng.standard_normal((*batch, n, n)) + n * np.eye(n)).astype(dtype)


def positive_definite(n: int, batch: tuple[int, ...] = (), dtype: type = np.float64,
                      seed_: int = 0) -> np.ndarray:
    a = matrices(n, batch, np.float64, seed_)
    return (a @ np.swapaxes(a, -1, -2)).astype(dtype)


def solve(a, b):
    return np.linalg.solve(a, b)


def inv(a):
    return np.linalg.inv(a)


def det(a):
    return np.linalg.det(a)


def slogdet(a):
    return np.linalg.slogdet(a)


def slogdet_fields(a):
    result = np.linalg.slogdet(a)
    return result.sign * 2, result.logabsdet + 1


def cholesky(a):
    return np.linalg.cholesky(a)


def cholesky_upper(a):
    return np.linalg.cholesky(a, upper=True)


def eigh(a):
    return np.linalg.eigh(a)


def eigh_fields(a):
    result = np.linalg.eigh(a, UPLO="U")
    return result.eigenvalues + 1, result.eigenvectors * 2


def eigvalsh(a):
    return np.linalg.eigvalsh(a)


UNARY = ((inv, "inv"), (det, "det"), (slogdet, "slogdet"), (slogdet_fields, "slogdet"))
SYMMETRIC = ((cholesky, "cholesky"), (cholesky_upper, "cholesky_upper"), (eigh, "eigh"),
             (eigh_fields, "eigh_upper"), (eigvalsh, "eigvalsh"),
             (lambda a: np.linalg.eigvalsh(a, "u"), "eigvalsh_upper"))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_function_on_every_dtype(backend: str, dtype: type) -> None:
    a = matrices(4, dtype=dtype)
    for fn, op in UNARY:
        check(fn, a, backend=backend, ops=(op,))
        ember.reset()
    spd = positive_definite(4, dtype=dtype) if dtype is not np.bool_ else np.eye(4, dtype=bool)
    for fn, op in SYMMETRIC:
        check(fn, spd, backend=backend, ops=(op,))
        ember.reset()
    b = np.arange(4, dtype=dtype) if dtype is not np.bool_ else np.ones(4, bool)
    check(solve, a, b, backend=backend, ops=("solve",))
    ember.reset()
    check(solve, a, np.stack([b, b[::-1]], axis=1), backend=backend, ops=("solve",))


@pytest.mark.parametrize("backend", BACKENDS)
def test_mixed_dtypes_solve_in_double(backend: str) -> None:
    a = matrices(3, dtype=np.float32)
    check(solve, a, np.ones(3, np.float64), backend=backend, ops=("solve",))
    ember.reset()
    check(solve, a, np.ones(3, np.int32), backend=backend, ops=("solve",))


@pytest.mark.parametrize("backend", BACKENDS)
def test_stacks_and_broadcast_batches(backend: str) -> None:
    a = matrices(3, (2, 4))
    for fn, op in UNARY:
        check(fn, a, backend=backend, ops=(op,))
        ember.reset()
    for fn, op in SYMMETRIC:
        check(fn, positive_definite(3, (5,)), backend=backend, ops=(op,))
        ember.reset()
    # Only one triangle is read: the other may hold anything.
    check(eigh_fields, np.triu(positive_definite(4, (2,))), backend=backend, ops=("eigh_upper",))
    ember.reset()
    rng = np.random.default_rng(1)
    for b in (rng.standard_normal(3), rng.standard_normal((3, 2)), rng.standard_normal((4, 3, 2)),
              rng.standard_normal((2, 1, 3, 5))):
        check(solve, a, b, backend=backend, ops=("solve",))
        ember.reset()
    check(solve, matrices(3), rng.standard_normal((6, 3, 1)), backend=backend, ops=("solve",))


@pytest.mark.parametrize("backend", BACKENDS)
def test_non_contiguous_operands(backend: str) -> None:
    a = matrices(5, (3,))
    check(lambda a: np.linalg.inv(a.transpose(0, 2, 1)), a, backend=backend, ops=("inv",))
    ember.reset()
    check(lambda a: np.linalg.det(a[::2, ::-1, 1:4][:, :3]), a, backend=backend, ops=("det",))
    ember.reset()
    check(lambda a, b: np.linalg.solve(a[1], b[::2]), a, np.arange(10.0), backend=backend,
          ops=("solve",))
    ember.reset()
    check(lambda a: np.linalg.cholesky(a @ a.transpose(0, 2, 1) + 1.0), a, backend=backend,
          ops=("cholesky",))


@pytest.mark.parametrize("backend", BACKENDS)
def test_graphs_around_the_ops_fuse(backend: str) -> None:
    a, b = matrices(6), np.arange(6.0)
    check(lambda a, b: np.linalg.solve(a * 2 + 1, b) * 2 + 1, a, b, backend=backend,
          ops=("solve",))
    ember.reset()
    check(lambda a: np.linalg.inv(a) * np.linalg.det(a), a, backend=backend, ops=("inv", "det"))
    ember.reset()
    check(lambda a: np.linalg.inv(np.linalg.inv(a.T)) - a.T, a, backend=backend, ops=("inv",))


def test_compiled_results_are_numpys_bit_for_bit() -> None:
    """The native step calls NumPy's own LAPACK routines on the same column-major copies."""
    a, b = matrices(7, (3,)), np.random.default_rng(2).standard_normal((3, 7, 2))
    fns = (solve, inv, det, slogdet, cholesky, cholesky_upper, eigh, eigh_fields, eigvalsh)
    spd = positive_definite(7, (3,))
    for fn in fns:
        args = (a, b) if fn is solve else (a,) if fn in (inv, det, slogdet) else (spd,)
        got, want = ember.compile(fn)(*args), fn(*args)
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,), strict=True):
            np.testing.assert_array_equal(g, w)
    got = ember.compile(lstsq)(a[0, :, :4], b[0])
    for g, w in zip(got, lstsq(a[0, :, :4], b[0]), strict=True):
        np.testing.assert_array_equal(g, w)
    assert not ember.stats()["backend_fallbacks"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_singular_matrices(backend: str) -> None:
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]])
    check(det, singular, backend=backend, ops=("det",))
    ember.reset()
    check(slogdet, np.stack([singular, matrices(3)]), backend=backend, ops=("slogdet",))
    ember.reset()
    # NumPy raises LinAlgError: the compiled function raises it too, arguments untouched.
    check(inv, singular, backend=backend)
    ember.reset()
    check(solve, np.stack([matrices(3), singular]), np.ones(3), backend=backend)
    ember.reset()
    check(inv, np.zeros((2, 2), np.float32), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_cholesky_of_matrices_not_positive_definite(backend: str) -> None:
    check(cholesky, -np.eye(3), backend=backend)
    ember.reset()
    check(cholesky_upper, np.array([[1.0, 2.0], [2.0, 1.0]]), backend=backend)
    ember.reset()
    check(cholesky, np.stack([np.eye(2), [[0.0, 0.0], [0.0, 1.0]]]), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_raised_error_after_a_good_call_comes_from_numpy(backend: str) -> None:
    compiled = ember.compile(lambda a, b: np.linalg.solve(a, b) + 1, backend=backend)
    a, b = matrices(3), np.ones(3)
    np.testing.assert_allclose(compiled(a, b), np.linalg.solve(a, b) + 1)
    singular = np.ones((3, 3))
    kept = singular.copy()
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        compiled(singular, b)
    np.testing.assert_array_equal(singular, kept)


@pytest.mark.parametrize("backend", BACKENDS)
def test_nans(backend: str) -> None:
    a = matrices(3)
    a[1, 2] = np.nan
    for fn, op in UNARY:
        check(fn, a, backend=backend, ops=(op,))
        ember.reset()
    check(solve, a, np.ones(3), backend=backend, ops=("solve",))
    ember.reset()
    nan_diagonal = np.eye(3)
    nan_diagonal[0, 0] = np.nan
    check(cholesky, nan_diagonal, backend=backend, ops=("cholesky",))
    ember.reset()
    check(eigh, nan_diagonal, backend=backend, ops=("eigh",))


@pytest.mark.parametrize("backend", BACKENDS)
def test_empty_matrices(backend: str) -> None:
    for fn, op in UNARY + SYMMETRIC:
        check(fn, np.zeros((0, 0)), backend=backend, ops=(op,))
        ember.reset()
        check(fn, np.zeros((2, 0, 0)), backend=backend, ops=(op,))
        ember.reset()
        check(fn, np.zeros((0, 3, 3)), backend=backend, ops=(op,))
        ember.reset()
    check(solve, np.zeros((0, 0)), np.zeros((0, 4)), backend=backend, ops=("solve",))
    ember.reset()
    check(solve, matrices(2), np.zeros((2, 0)), backend=backend, ops=("solve",))


@pytest.mark.parametrize("backend", BACKENDS)
def test_shape_and_dtype_errors_are_numpys(backend: str) -> None:
    """Refused at capture (a graph break): the call runs as Python and NumPy raises."""
    for fn, args in ((inv, (np.ones((2, 3)),)), (det, (np.ones(3),)),
                     (cholesky, (np.ones((3, 2, 2, 4)),)), (solve, (matrices(3), np.ones(2))),
                     (solve, (matrices(3), np.ones((2, 3)))),
                     (solve, (matrices(3, (2,)), np.ones((3, 3, 1)))),
                     (inv, (np.eye(2, dtype=np.float16),)),
                     (lambda a: np.linalg.eigh(a, UPLO="X"), (np.eye(2),))):
        compiled = ember.compile(fn, backend=backend)
        try:
            fn(*args)
        except Exception as want:  # noqa: BLE001
            with pytest.raises(type(want)) as got:
                compiled(*args)
            assert str(got.value) == str(want)
        else:
            raise AssertionError(f"NumPy accepted {fn.__name__}{[a.shape for a in args]}")
        ember.reset()


def test_without_lapack_the_graph_runs_eagerly() -> None:
    from ember import _core
    from ember.backends import blas

    a = matrices(3)
    try:
        _core.set_lapack(None)
        assert ember.compile(inv)(a).tolist() == np.linalg.inv(a).tolist()
        assert ember.stats()["backend_fallbacks"]
        assert ember.stats()["graph_breaks"] == 0
    finally:
        blas.register()


@seed(20261206)
@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 6), batch=st.lists(st.integers(1, 3), max_size=2),
       k=st.one_of(st.none(), st.integers(1, 3)), dtype=st.sampled_from(DTYPES[:3]),
       singular=st.booleans(), data=st.integers(0, 2**16))
def test_random_systems(n: int, batch: list[int], k: int | None, dtype: type,
                        singular: bool, data: int) -> None:
    a = matrices(n, tuple(batch), dtype, data)
    if singular:
        a[..., -1, :] = a[..., 0, :]
    rng = np.random.default_rng(data)
    b = rng.standard_normal(n if k is None else (*batch, n, k)).astype(dtype)
    recorder = RecordingBackend("cranelift")

    def program(a, b):
        return np.linalg.solve(a, b) * 2, np.linalg.det(a) + 1, np.linalg.slogdet(a)

    compiled = ember.compile(program, backend=recorder)
    try:
        want = program(a, b)
    except np.linalg.LinAlgError:
        with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
            compiled(a, b)
        assert singular
    else:
        got = compiled(a, b)
        rtol = 1e-5 if dtype is np.float32 else 1e-9
        for g, w in zip(got[:2] + tuple(got[2]), want[:2] + tuple(want[2]), strict=True):
            assert type(g) is type(w) and np.asarray(g).dtype == np.asarray(w).dtype
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)
        assert {"solve", "det", "slogdet"} <= set(recorder.ops(0))
    ember.reset()


@pytest.mark.parametrize("backend", BACKENDS)
def test_warnings_are_numpys(backend: str) -> None:
    """det and slogdet warn under the caller's errstate (a NaN, an overflowing determinant);
    solve, inv and cholesky ignore every floating-point error."""
    import warnings

    nan = np.eye(3)
    nan[1, 2] = np.nan
    for fn in (det, lambda a: np.linalg.slogdet(a)[1] + 1, lambda a: np.linalg.inv(a) + 1,
               lambda a: np.linalg.solve(a, np.ones(3))):
        for a in (nan, np.eye(3) * 1e200):
            with warnings.catch_warnings(record=True) as want:
                warnings.simplefilter("always")
                fn(a)
            with warnings.catch_warnings(record=True) as got:
                warnings.simplefilter("always")
                ember.compile(fn, backend=backend)(a)
            assert [str(w.message) for w in got] == [str(w.message) for w in want]
            ember.reset()


def lstsq(a, b):
    return np.linalg.lstsq(a, b, rcond=None)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES[:3])
def test_lstsq_of_full_rank(backend: str, dtype: type) -> None:
    rng = np.random.default_rng(3)
    for m, n in ((7, 3), (3, 3), (3, 5)):
        a = (rng.standard_normal((m, n)) * 4).astype(dtype)
        for b in (rng.standard_normal(m), rng.standard_normal((m, 2))):
            check(lstsq, a, b.astype(dtype), backend=backend, ops=("lstsq",))
            ember.reset()
    a = rng.standard_normal((6, 2))
    check(lambda a, b: np.linalg.lstsq(a.T, b[:2], rcond=1e-3)[0] * 2, a, np.ones(6),
          backend=backend, ops=("lstsq",))
    ember.reset()
    check(lambda a, b: np.linalg.lstsq(a[::2], b[::2])[1] + 1, a, np.arange(6.0),
          backend=backend, ops=("lstsq",))


@pytest.mark.parametrize("backend", BACKENDS)
def test_lstsq_below_full_rank_runs_as_numpy(backend: str) -> None:
    """NumPy's residuals are empty then (a shape only the data decides): the graph fails and
    the frame runs as Python, with NumPy's rank and residuals."""
    a = np.ones((5, 3))
    compiled = ember.compile(lstsq, backend=backend)
    for b in (np.arange(5.0), np.arange(5.0) + 1):
        got, want = compiled(a, b), lstsq(a, b)
        assert got[2] == want[2] == 1 and got[1].shape == want[1].shape == (0,)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)
    assert ember.stats()["entry_fallbacks"] == 2
    ember.reset()
    with pytest.raises(np.linalg.LinAlgError, match="Incompatible dimensions"):
        ember.compile(lstsq, backend=backend)(a, np.ones(4))


def inverse_iteration(a, n):
    x = np.ones(a.shape[0])
    for _ in range(n):
        x = np.linalg.solve(a, x)
        x = x / np.sqrt(np.sum(x * x))
    return x


@pytest.mark.parametrize("backend", BACKENDS)
def test_inside_a_loop_op(backend: str) -> None:
    recorder = check(inverse_iteration, matrices(5), 12, backend=backend, ops=("loop",))
    assert "solve(" in recorder.graphs[0].to_ir()


def svd(a):
    return np.linalg.svd(a)


def svd_reduced(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return u * 2, s + 1, vh


def svdvals(a):
    return np.linalg.svd(a, compute_uv=False)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES[:3])
def test_svd(backend: str, dtype: type) -> None:
    rng = np.random.default_rng(4)
    for shape in ((4, 4), (5, 3), (3, 5), (2, 4, 3)):
        a = (rng.standard_normal(shape) * 4).astype(dtype)
        for fn, op in ((svd, "svd"), (svd_reduced, "svd_reduced"), (svdvals, "svdvals")):
            check(fn, a, backend=backend, ops=(op,))
            ember.reset()
            if backend == "cranelift":
                got = ember.compile(fn)(a)
                for g, w in zip(got if isinstance(got, tuple) else (got,),
                                fn(a) if isinstance(got, tuple) else (fn(a),), strict=True):
                    np.testing.assert_array_equal(g, w)
                ember.reset()
    nan = np.eye(3)
    nan[0, 1] = np.nan
    check(svd, nan, backend=backend)  # NumPy's LinAlgError, raised again by NumPy


@pytest.mark.parametrize("backend", BACKENDS)
def test_pinv_and_matrix_rank(backend: str) -> None:
    """Written around svd as NumPy writes them: a zero singular value is dropped without a
    division (no warning), tolerances as NumPy defaults them."""
    rng = np.random.default_rng(5)
    full, low = rng.standard_normal((5, 3)), np.ones((4, 4))
    stack = rng.standard_normal((2, 3, 4)).astype(np.float32)
    for a in (full, low, stack):
        for fn, op in ((lambda a: np.linalg.pinv(a), "svd_reduced"),
                       (lambda a: np.linalg.matrix_rank(a), "svdvals"),
                       (lambda a: np.linalg.pinv(a, rcond=0.3) * 2, "svd_reduced"),
                       (lambda a: np.linalg.matrix_rank(a, tol=0.5), "svdvals"),
                       (lambda a: np.linalg.matrix_rank(a, rtol=0.1), "svdvals")):
            check(fn, a, backend=backend, ops=(op,))
            ember.reset()
