"""`np.trace`, `np.diag` of a vector, `np.meshgrid`, `np.column_stack` and `np.select`,
compiled, against NumPy on both backends: values, dtypes, shapes, memory layouts, NaN and
-0.0 kept, NumPy's errors; `np.diag` of a matrix (a read-only view) runs as NumPy."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ops_compiled import BACKENDS, check
from test_ops_gather import DTYPES, data


@pytest.mark.parametrize("backend", BACKENDS)
def test_trace(backend: str) -> None:
    for dtype in DTYPES:
        for shape in ((5, 5), (4, 6), (6, 3), (0, 3)):
            check(lambda a: (np.trace(a), np.trace(a, 1), np.trace(a, -2), a.trace(),
                             np.trace(a, 9)), data(dtype, shape), backend=backend, ops=())
            ember.reset()
    check(lambda a: np.trace(a, dtype=np.float32) + np.trace(a, offset=1, dtype=np.int8),
          data(np.float64, (4, 4)), backend=backend, ops=())


@given(rows=st.integers(1, 6), cols=st.integers(1, 6), k=st.integers(-7, 7),
       backend=st.sampled_from(BACKENDS))
def test_random_traces_match_numpy(rows: int, cols: int, k: int, backend: str) -> None:
    ember.reset()
    check(lambda a: np.trace(a, k), data(np.float64, (rows, cols), seed=rows * 7 + cols),
          backend=backend, ops=())


@pytest.mark.parametrize("backend", BACKENDS)
def test_diag_of_a_vector(backend: str) -> None:
    for dtype in DTYPES:
        v = data(dtype, (4,))
        check(lambda v: (np.diag(v), np.diag(v, 2), np.diag(v, k=-1)), v, backend=backend,
              ops=("where",))
        ember.reset()
    v = np.array([np.nan, -0.0, np.inf, 1.0])
    check(lambda v: np.diag(v, 1), v, backend=backend, ops=("where",))


def test_diag_of_a_matrix_is_numpys_view() -> None:
    ember.reset()
    a = data(np.float64, (3, 3))
    got, tail = ember.compile(lambda a: (np.diag(a), np.diagonal(a, 1)[1:]))(a)
    for view in (got, tail):
        assert not view.flags.writeable and np.shares_memory(view, a)
    np.testing.assert_array_equal(got, np.diag(a))
    np.testing.assert_array_equal(tail, np.diagonal(a, 1)[1:])
    assert ember.stats()["graph_breaks"] == 0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid(backend: str, indexing: str) -> None:
    x, y, z = data(np.float64, (4,)), data(np.float32, (3,), seed=1), data(np.int64, (2,))
    check(lambda x, y: np.meshgrid(x, y, indexing=indexing), x, y, backend=backend, ops=())
    ember.reset()
    check(lambda x, y, z: np.meshgrid(x, y, z, indexing=indexing), x, y, z, backend=backend,
          ops=())
    ember.reset()
    check(lambda x: np.meshgrid(x, indexing=indexing), x, backend=backend, ops=())
    ember.reset()
    check(lambda x: np.meshgrid(x, indexing="yx"), x, backend=backend)  # NumPy's ValueError


@pytest.mark.parametrize("backend", BACKENDS)
def test_column_stack(backend: str) -> None:
    v, m = data(np.float64, (4,)), data(np.float32, (4, 2), seed=1)
    check(lambda v, m: (np.column_stack([v, m, v * 2]), np.column_stack((v, v))), v, m,
          backend=backend, ops=())
    ember.reset()
    check(lambda v, m: np.column_stack([v[:3], m]), v, m, backend=backend)  # ValueError


def select_bands(x):
    return np.select([x < -5, x > 5], [x, -x], default=0.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_select(backend: str) -> None:
    for dtype in DTYPES[:4]:
        x = data(dtype, (3, 5))
        check(select_bands, x, backend=backend, ops=("where",))
        ember.reset()
        check(lambda x: (np.select([x < 0, x > 3], [1, 2]),
                         np.select([x > 0], [x.astype(np.float32)], 5),
                         np.select([x < 0, x > 3], [x[0], 2.5], default=x[:, :1])),
              x, backend=backend, ops=("where",))
        ember.reset()
    x = data(np.float64, (4,))
    for fn in (lambda x: np.select([x > 0], [x, x]), lambda x: np.select([], []),
               lambda x: np.select([x], [x])):
        check(fn, x, backend=backend)  # NumPy's ValueError / TypeError
        ember.reset()


@pytest.mark.parametrize("backend", BACKENDS)
def test_kron(backend: str) -> None:
    a, b = data(np.float64, (2, 3)), data(np.int32, (3, 2, 2), seed=1)
    check(lambda a, b: (np.kron(a, b), np.kron(b, a), np.kron(a[0], a), np.kron(a, 2.5),
                        np.kron(b[0, 0], b[1])), a, b, backend=backend, ops=("mul",))


@pytest.mark.parametrize("backend", BACKENDS)
def test_cross(backend: str) -> None:
    a, b = data(np.float64, (4, 3)), data(np.float32, (3,), seed=1)
    c, i = data(np.float64, (3, 2, 4), seed=2), data(np.int8, (2, 3), seed=3)
    check(lambda a, b, c: (np.cross(a, b), np.cross(b, a), np.cross(c, b, axisa=0),
                           np.cross(c, c[::-1], axis=0), np.cross(a, a[::-1], axisc=0)),
          a, b, c, backend=backend, ops=("mul", "sub"))
    ember.reset()
    check(lambda i, b: (np.cross(i, i[::-1] * 3), np.cross(i, b)), i, b, backend=backend,
          ops=("mul", "sub"))
    ember.reset()
    check(lambda a, c: np.cross(a, c), a, c, backend=backend, ops=())  # NumPy's ValueError


@pytest.mark.parametrize("backend", BACKENDS)
def test_block(backend: str) -> None:
    """NumPy's np.block, inlined: it calls `concatenate` past its dispatcher."""
    a, b = data(np.float64, (2, 2)), data(np.float32, (2, 3), seed=1)
    check(lambda a, b: (np.block([[a, b], [b[:, :2], np.ones((2, 3))]]), np.block([a, a.T]),
                        np.block([[a], [b[:, 1:]]])), a, b, backend=backend, ops=("concatenate",))
