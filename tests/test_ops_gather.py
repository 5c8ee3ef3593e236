"""Integer-array indexing with index arrays computed at run time (`x[idx]`, `x[:, idx]`,
`x[i, j]`, `np.take`, `np.take_along_axis`) against NumPy, compiled on both backends: dtypes,
negative and repeated indices, empty arrays, non-contiguous inputs, NumPy's position rule
for the indexed axes, and NumPy's IndexError for an index out of bounds."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ops_compiled import BACKENDS
from ops_compiled import check as check_compiled

DTYPES = (np.float64, np.float32, np.int64, np.int32, np.bool_)


def check(fn, *args, backend: str = "cranelift", ops: tuple[str, ...] | None = None):
    """A gather compiles to the `gather` op or to element loops (`ops=None`: either)."""
    recorder = check_compiled(fn, *args, backend=backend, ops=ops or ())
    if ops is None and recorder.graphs:
        assert {"gather", "loop"} & set(recorder.ops(0)), recorder.ops(0)
    return recorder


def test_the_gather_op_where_rows_move_element_loops_where_elements_do() -> None:
    table = data(np.float32, (10, 16))
    tokens = np.array([[1, 9], [-1, 0]])
    assert "gather" in check(lambda t, i: t[i], table, tokens).ops(0)
    ember.reset()
    assert "gather" in check(lambda t, i: np.take(t, i, axis=0), table, tokens).ops(0)
    ember.reset()
    ops = check(lambda t, i: t[:, i % 16], table, tokens).ops(0)
    assert "loop" in ops and "gather" not in ops


def data(dtype: type, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 10).astype(dtype)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_one_index_array_over_every_axis_position(backend: str, dtype: type) -> None:
    x = data(dtype, (5, 4, 3))
    idx = np.array([4, -1, 0, 2, 2, -5], np.int64)
    for fn in (lambda x, i: x[i], lambda x, i: x[i, :], lambda x, i: x[:, i],
               lambda x, i: x[..., i % 3], lambda x, i: x[1:4, i % 4, ::-1],
               lambda x, i: x[::2, :, i % 3] * 1):
        check(fn, x, idx, backend=backend)
        ember.reset()


@pytest.mark.parametrize("backend", BACKENDS)
def test_several_index_arrays_broadcast_and_place_their_shape(backend: str) -> None:
    x = data(np.float64, (4, 5, 6))
    i = np.array([[0], [3], [-1]], np.int32)
    j = np.array([1, 4, 0, -2], np.int64)
    for fn in (lambda x, i, j: x[i, j],          # adjacent: B in place of axes 0, 1
               lambda x, i, j: x[:, i, j],       # adjacent after a slice
               lambda x, i, j: x[i, :, j],       # apart: B first
               lambda x, i, j: x[i, 2, j],       # an integer joins the index arrays
               lambda x, i, j: x[1, i, j % 6],
               lambda x, i, j: x[i, j, 3]):
        check(fn, x, i, j, backend=backend)
        ember.reset()


@pytest.mark.parametrize("backend", BACKENDS)
def test_indices_computed_in_the_function(backend: str) -> None:
    x = data(np.float64, (6, 3))
    y = data(np.float64, (6,), seed=1)
    check(lambda x, y: x[np.argsort(y, kind="stable")], x, y, backend=backend)
    ember.reset()
    check(lambda x, y: x[np.argmax(y)], x, y, backend=backend)  # a row
    ember.reset()
    check(lambda x, y: x[np.argmin(x, axis=0), np.arange(3)], x, y, backend=backend)
    ember.reset()
    check(lambda x, y: x[:, 1][np.argmax(y)], x, y, backend=backend,
          ops=("load",))  # one element: a NumPy scalar


@pytest.mark.parametrize("backend", BACKENDS)
def test_non_contiguous_inputs_and_empty_index_arrays(backend: str) -> None:
    base = data(np.float32, (6, 8))
    idx = np.array([3, 0, 3, -1], np.int64)
    for x in (base.T, base[::2, ::-3], base[:, 1:]):
        check(lambda x, i: x[i] + x[i, ::-1], x, idx, backend=backend)
        ember.reset()
    check(lambda x, i: x[i], base, np.zeros(0, np.int64), backend=backend)
    ember.reset()
    check(lambda x, i: x[:, i], base, np.zeros((2, 0), np.int32), backend=backend)
    ember.reset()
    check(lambda x, i: x[i], base[:0], np.zeros(0, np.int64), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_index_out_of_bounds_raises_numpys_index_error(backend: str) -> None:
    x = data(np.float64, (5, 3))
    for idx in (np.array([0, 5]), np.array([-6, 1]), np.array([[1], [9]])):
        with pytest.raises(IndexError, match="is out of bounds for axis 0 with size 5"):
            np.asarray(x)[idx]
        check(lambda x, i: x[i] * 2, x, idx, backend=backend)
        ember.reset()
        check(lambda x, i: x[:, i], x.T, idx, backend=backend)
        ember.reset()
    check(lambda x, i, j: x[i, j], x, np.array([0, 1]), np.array([0, 1, 2]), backend=backend)


def test_the_graph_itself_raises_for_an_index_out_of_bounds() -> None:
    x = data(np.float64, (5,))
    compiled = ember.compile(lambda x, i: x[i] + 1)
    compiled(x, np.array([1, 2]))
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 0 with size 5"):
        compiled(x, np.array([1, 7]))
    assert ember.stats()["entry_fallbacks"] == 1  # the graph raised, NumPy's rerun too


@pytest.mark.parametrize("backend", BACKENDS)
def test_gathered_results_are_new_arrays(backend: str) -> None:
    x = data(np.float64, (4,))
    idx = np.arange(4)
    out = ember.compile(lambda x, i: x[i], backend=backend)(x, idx)
    assert not np.shares_memory(out, x)
    out[0] = 99.0
    assert x[0] != 99.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_take_with_index_arrays_and_modes(backend: str) -> None:
    x = data(np.int32, (4, 5))
    idx = np.array([[0, -1], [7, 3]], np.int64)
    for fn in (lambda x, i: np.take(x, i % 20), lambda x, i: np.take(x, i % 4, axis=0),
               lambda x, i: x.take(i % 5, axis=1), lambda x, i: np.take(x, i, axis=-1,
                                                                         mode="wrap"),
               lambda x, i: np.take(x, i, axis=0, mode="clip"),
               lambda x, i: np.take(x, i, axis=1)):
        check(fn, x, idx, backend=backend)
        ember.reset()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_take_along_axis(backend: str, axis: int | None) -> None:
    x = data(np.float64, (4, 6))
    if axis is None:
        fn = lambda x: np.take_along_axis(x, np.argsort(x, axis=None, kind="stable")[:5],
                                          axis=None)
    else:
        fn = lambda x: np.take_along_axis(x, np.argsort(x, axis=axis, kind="stable"),
                                          axis=axis)
    check(fn, x, backend=backend)
    ember.reset()
    keep = np.array([[1], [0], [3], [2]])
    check(lambda x, k: np.take_along_axis(x, k, axis=1), x, keep, backend=backend)


def put_along(x, i, v, axis):
    np.put_along_axis(x, i, v, axis=axis)
    return x.sum()


@pytest.mark.parametrize("backend", BACKENDS)
def test_put_along_axis(backend: str) -> None:
    x = data(np.float64, (4, 6))
    top = np.array([[0], [5], [2], [-1]])
    check(put_along, x, top, 9.5, 1, backend=backend, ops=("loop",))
    ember.reset()
    check(put_along, x, np.array([[1, 1, 0, 3, 2, 0]]), data(np.float64, (1, 6)), 0,
          backend=backend, ops=("loop",))
    ember.reset()
    check(put_along, x.astype(np.int32), top, 2.7, -1, backend=backend, ops=("loop",))
    ember.reset()
    check(put_along, x, np.array([[7], [0], [0], [0]]), 1.0, 1, backend=backend)  # IndexError


@given(st.data())
def test_random_gathers_match_numpy(draw: st.DataObject) -> None:
    shape = tuple(draw.draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    dtype = draw.draw(st.sampled_from(DTYPES))
    x = data(dtype, shape, seed=draw.draw(st.integers(0, 100)))
    axis = draw.draw(st.integers(0, len(shape) - 1))
    size = shape[axis]
    idx = np.array(draw.draw(st.lists(st.integers(-size, size - 1), max_size=6)), np.int64)
    index = (slice(None),) * axis + (idx,)
    backend = draw.draw(st.sampled_from(BACKENDS))
    ember.reset()
    check(lambda x, i: x[(slice(None),) * axis + (i,)], x, idx, backend=backend)
    ember.reset()
    check(lambda x, i: np.take(x, i, axis=axis), x, idx, backend=backend)
    assert np.asarray(x)[index].shape == np.take(x, idx, axis=axis).shape


def probs_of_labels(p, y):  # the loss of softmax assignments: probs[range(N), y]
    n = p.shape[0]
    return -np.sum(np.log(p[range(n), y])) / n


def minus_one_at_labels(p, y):
    d = p.copy()
    d[range(d.shape[0]), y] -= 1
    return d


def rows_and_columns_by_range(p):
    q = p.copy()
    q[range(1, 5, 2)] = 7.0
    q[range(0), 0] = 3.0
    return q, p[range(5, 0, -2), 1], p[range(0)], p[:, range(3)], p[range(-1, 2), range(3)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_range_index_is_the_integer_array_numpy_makes_of_it(backend: str) -> None:
    p = data(np.float64, (6, 4)) + 2.0
    y = np.array([3, 0, 1, 1, 2, 0])
    check(probs_of_labels, p, y, backend=backend)
    check(minus_one_at_labels, p, y, backend=backend)
    check(rows_and_columns_by_range, p, backend=backend)
    check(lambda p, y: p[range(7), y], p, np.zeros(7, np.int64), backend=backend)  # IndexError
