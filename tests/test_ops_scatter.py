"""Assignment through run-time index arrays and boolean masks, and `ufunc.at`, against NumPy
on both backends: `x[idx] = v` and `x[idx] += v` keep the last write of a repeated index,
`np.add.at` accumulates every one; arguments are updated in place as NumPy updates them."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ops_compiled import BACKENDS, check
from test_ops_gather import DTYPES, data


def assign(x, i, v):
    x[i] = v
    return x


def assign_scalar(x, i):
    x[i] = 7
    return x.sum()


def add_in_place(x, i, v):
    x[i] += v


def assign_columns(x, i, v):
    x[:, i] = v


def assign_pairs(x, i, j, v):
    x[i, j] = v


def assign_to_copy(x, i):
    y = x * 2
    y[i] = -1
    return y


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_assignment_through_index_arrays(backend: str, dtype: type) -> None:
    x = data(dtype, (6, 4))
    i = np.array([5, -1, 0, 2, 0], np.int64)  # repeated: the last value written stays
    v = data(dtype, (5, 4), seed=3)
    cases = [(assign, (x, i, v)), (assign, (x, i, v[0])), (assign_scalar, (x, i)),
             (add_in_place, (x, i, v)), (assign_columns, (x, i % 4, v.T)),
             (assign_pairs, (x, i, i % 4, v[:, 0])), (assign_to_copy, (x, i)),
             (assign, (x, i.astype(np.int32), np.float64(2.5)))]
    for fn, args in cases:
        check(fn, *args, backend=backend)
        ember.reset()


@pytest.mark.parametrize("backend", BACKENDS)
def test_assignment_errors_are_numpys(backend: str) -> None:
    x = data(np.float64, (5,))
    check(assign, x, np.array([1, 2]), np.ones(3), backend=backend)  # shape mismatch
    ember.reset()
    check(assign, x, np.array([1, 5]), np.ones(2), backend=backend)  # out of bounds
    ember.reset()
    check(add_in_place, x, np.array([-6]), 1.0, backend=backend)


def ufunc_at(name):
    def fn(x, i, v):
        getattr(np, name).at(x, i, v)
        return x

    return fn


def negative_at(x, i):
    np.negative.at(x, i)
    return x


def add_at_pairs(x, i, j, v):
    np.add.at(x, (i, j), v)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "minimum"])
def test_ufunc_at_accumulates_repeated_indices(backend: str, name: str) -> None:
    for dtype in (np.float64, np.float32, np.int64, np.int32):
        x = data(dtype, (7,))
        i = np.array([1, 1, -1, 3, 1, 0], np.int64)
        check(ufunc_at(name), x, i, data(dtype, (6,), seed=4), backend=backend)
        ember.reset()
        check(ufunc_at(name), x, i, 3, backend=backend)
        ember.reset()
    check(negative_at, data(np.float64, (5,)), np.array([0, 0, 2]), backend=backend)
    ember.reset()
    x = data(np.float64, (4, 5))
    check(add_at_pairs, x, np.array([0, 0, 3]), np.array([1, 1, -1]), 1.5, backend=backend)
    ember.reset()
    check(ufunc_at("add"), x, np.array([2, 2]), data(np.float64, (2, 5)), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_ufunc_at_errors_are_numpys(backend: str) -> None:
    x = np.zeros(4, np.int32)
    check(ufunc_at("add"), x, np.array([0, 1]), np.ones(2), backend=backend)  # float to int
    ember.reset()
    check(ufunc_at("add"), x, np.array([0, 4]), 1, backend=backend)


def mask_assign(x, m, v):
    x[m] = v
    return x


def mask_from_data(x):
    x[x < 0] = 0
    x[np.isnan(x)] = -1.5


@pytest.mark.parametrize("backend", BACKENDS)
def test_mask_assignment_of_one_value(backend: str) -> None:
    for dtype in DTYPES:
        x = data(dtype, (4, 3))
        m = data(np.float64, (4, 3), seed=5) > 0
        check(mask_assign, x, m, 2, backend=backend, ops=("where",))
        ember.reset()
        check(mask_assign, x, m[:, 0], data(dtype, (3,)), backend=backend, ops=("where",))
        ember.reset()
    x = data(np.float64, (6,))
    x[2] = np.nan
    check(mask_from_data, x, backend=backend, ops=("where",))
    ember.reset()
    check(mask_assign, data(np.float64, (4, 3)), np.ones(3, bool), 1.0, backend=backend)


def test_mask_assignment_of_one_value_per_element_runs_in_numpy() -> None:
    x = data(np.float64, (5,))
    m = np.array([True, False, True, False, False])
    got = ember.compile(mask_assign)(x.copy(), m, np.array([1.0, 2.0]))
    np.testing.assert_array_equal(got, mask_assign(x.copy(), m, np.array([1.0, 2.0])))
    assert ember.stats()["graph_breaks"] == 1


@given(st.data())
def test_random_scatters_match_numpy(draw: st.DataObject) -> None:
    n = draw.draw(st.integers(1, 8))
    dtype = draw.draw(st.sampled_from(DTYPES[:4]))
    x = data(dtype, (n,), seed=draw.draw(st.integers(0, 50)))
    i = np.array(draw.draw(st.lists(st.integers(-n, n - 1), max_size=8)), np.int64)
    v = data(dtype, i.shape, seed=7)
    backend = draw.draw(st.sampled_from(BACKENDS))
    for fn in (assign, add_in_place, ufunc_at("add"), ufunc_at("maximum")):
        ember.reset()
        check(fn, x, i, v, backend=backend)
