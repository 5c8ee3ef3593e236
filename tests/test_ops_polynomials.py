"""`np.polyval`, `np.convolve`, `np.count_nonzero`, the `np.ndarray(shape, dtype)`
constructor and `ndarray.fill`, compiled, against NumPy on both backends: values, dtypes, shapes, the scalar
NumPy returns for a scalar `x`, every `mode=`, the longer sequence given second, NumPy's
errors; what ember does not unroll (too many coefficients) runs as NumPy."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ops_compiled import BACKENDS, check
from test_ops_gather import data

NUMBERS = (np.float64, np.float32, np.int64, np.int32)


@pytest.mark.parametrize("backend", BACKENDS)
def test_polyval_is_numpys_horner_loop(backend: str) -> None:
    for p_dtype in NUMBERS:
        for x_dtype in NUMBERS:
            p, x = data(p_dtype, (5,)), data(x_dtype, (3, 4), seed=1)
            check(lambda p, x: np.polyval(p, x), p, x, backend=backend, ops=())
            ember.reset()
    x = data(np.float64, (6,))
    check(lambda x: np.polyval([1.5, -2, 3], x), x, backend=backend, ops=())
    ember.reset()
    check(lambda p: np.polyval(p, 2.0), data(np.float32, (4,)), backend=backend, ops=())
    ember.reset()
    check(lambda p, x: np.polyval(p, x), data(np.float64, (0,)), x, backend=backend, ops=())


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_modes_and_dtypes(backend: str, mode: str) -> None:
    for a_dtype, v_dtype in [(np.float64, np.float64), (np.float32, np.float32),
                             (np.int64, np.float64), (np.int32, np.int32)]:
        for n, m in [(12, 3), (7, 7), (3, 8), (5, 1)]:
            a, v = data(a_dtype, (n,)), data(v_dtype, (m,), seed=1)
            check(lambda a, v: np.convolve(a, v, mode=mode), a, v, backend=backend, ops=())
            ember.reset()
    a = data(np.float64, (9,))
    check(lambda a: np.convolve(a, [0.25, 0.5, 0.25], mode), a, backend=backend, ops=())


@pytest.mark.parametrize("backend", BACKENDS)
def test_convolve_errors_are_numpys(backend: str) -> None:
    a = data(np.float64, (4,))
    for fn in (lambda a: np.convolve(a[:0], a), lambda a: np.convolve(a, a[:0]),
               lambda a: np.convolve(a, a[:0] * 2), lambda a: np.convolve(a.reshape(2, 2), a)):
        check(fn, a, backend=backend)
        ember.reset()


def test_long_coefficient_sequences_run_as_numpy() -> None:
    p, x = data(np.float64, (200,)) / 100, data(np.float64, (5,))
    for fn, args in ((lambda p, x: np.polyval(p, x), (p, x)),
                     (lambda x, p: np.convolve(x, p), (p * 2, p))):
        ember.reset()
        np.testing.assert_allclose(ember.compile(fn)(*args), fn(*args))
        assert ember.stats()["graph_breaks"] == 1


@given(n=st.integers(1, 20), m=st.integers(1, 20), mode=st.sampled_from(["full", "same",
                                                                         "valid"]),
       seed=st.integers(0, 50), backend=st.sampled_from(BACKENDS))
def test_random_convolutions_match_numpy(n: int, m: int, mode: str, seed: int,
                                         backend: str) -> None:
    ember.reset()
    a, v = data(np.float64, (n,), seed), data(np.float64, (m,), seed + 1)
    check(lambda a, v: np.convolve(a, v, mode), a, v, backend=backend, ops=())


@pytest.mark.parametrize("backend", BACKENDS)
def test_count_nonzero(backend: str) -> None:
    for dtype in (np.float64, np.int32, np.bool_):
        x = data(dtype, (4, 5))
        x[1] = 0
        check(lambda x: (np.count_nonzero(x), np.count_nonzero(x > 1),
                         np.count_nonzero(x, axis=0), np.count_nonzero(x, axis=(0, 1)),
                         np.count_nonzero(x, axis=1, keepdims=True),
                         np.count_nonzero(x, keepdims=True)), x, backend=backend, ops=())
        ember.reset()
    x = np.array([np.nan, 0.0, -0.0, 1.0])
    check(lambda x: np.count_nonzero(x) + 1, x, backend=backend, ops=())


@pytest.mark.parametrize("backend", BACKENDS)
def test_ndarray_constructor_is_empty(backend: str) -> None:
    def fill(n):
        a = np.ndarray(n + 1, dtype=np.float64)
        b = np.ndarray((2, 3), np.int32)
        c = np.ndarray(shape=(n,))
        a[:] = 1.5
        b[...] = 7
        c.fill(2)
        return a, b, c, a.dtype, c.dtype

    check(fill, 4, backend=backend, ops=())


def fill_all(x, value):
    x.fill(value)
    y = np.empty_like(x)
    y.fill(1)
    return y


@pytest.mark.parametrize("backend", BACKENDS)
def test_fill_stores_as_numpy_stores(backend: str) -> None:
    for dtype in (np.float64, np.float32, np.int64, np.int8, np.bool_):
        for value in (2.7, 3, True, -0.0):
            check(fill_all, data(dtype, (3, 4)), value, backend=backend, ops=())
            ember.reset()
    x = data(np.float64, (5,))
    check(lambda x: x.fill(x[2]), x, backend=backend, ops=())


def test_fill_numpy_refuses_runs_as_numpy() -> None:
    compiled = ember.compile(fill_all)
    with pytest.raises(OverflowError, match="out of bounds for int8"):
        compiled(np.zeros(3, np.int8), 300)
    with pytest.raises(ValueError, match="NaN"):
        compiled(np.zeros(3, np.int64), float("nan"))
