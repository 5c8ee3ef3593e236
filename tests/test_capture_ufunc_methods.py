"""`ufunc.outer`, `ufunc.reduce` and `ufunc.accumulate` of NumPy's binary ufuncs, compiled
against NumPy on both backends (values, dtype, shape), and refused where ember has no op."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st

OUTER = [np.add, np.subtract, np.multiply, np.maximum, np.minimum, np.less, np.equal,
         np.arctan2, np.power]
DTYPES = [np.float64, np.float32, np.int64, np.int32]


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
@pytest.mark.parametrize("ufunc", OUTER, ids=[u.__name__ for u in OUTER])
@pytest.mark.parametrize("dtype", DTYPES, ids=[np.dtype(d).name for d in DTYPES])
def test_outer_like_numpy(ufunc, dtype, backend) -> None:
    r = np.random.default_rng(0)
    a = (r.random((3, 2)) * 5 + 1).astype(dtype)
    b = (r.random(4) * 3 + 1).astype(dtype)

    def f(a, b):
        return ufunc.outer(a, b), ufunc.outer(b, b[1:])

    ember.reset()
    got = ember.compile(f, backend=backend)(a, b)
    assert_same(got, f(a, b), rtol=1e-5)
    assert ember.stats()["graph_breaks"] == 0


REDUCE = [(np.add, "reduce"), (np.multiply, "reduce"), (np.maximum, "reduce"),
          (np.minimum, "reduce"), (np.logical_and, "reduce"), (np.logical_or, "reduce"),
          (np.add, "accumulate"), (np.multiply, "accumulate")]


@settings(max_examples=30, deadline=None, derandomize=True)
@given(case=st.sampled_from(REDUCE), dtype=st.sampled_from(DTYPES + [np.bool_]),
       axis=st.sampled_from([0, 1, -1, None]), rows=st.integers(1, 5))
def test_reduce_and_accumulate_like_numpy(case, dtype, axis, rows) -> None:
    ufunc, method = case
    if method == "accumulate" and axis is None:
        axis = 0
    x = (np.random.default_rng(rows).random((rows, 3)) * 3).astype(dtype)

    def f(x):
        return getattr(ufunc, method)(x, axis=axis)

    def g(x):
        return getattr(ufunc, method)(x)

    for backend in ("eager", "cranelift"):
        ember.reset()
        assert_same(ember.compile(f, backend=backend)(x), f(x), rtol=1e-5)
        assert_same(ember.compile(g, backend=backend)(x), g(x), rtol=1e-5)


def test_methods_ember_has_no_op_for_run_as_numpy() -> None:
    x = np.arange(6.0).reshape(2, 3)

    def f(x):
        return np.subtract.reduce(x), np.add.reduce(x, dtype=np.float32), np.add.reduceat(x, [0])

    assert_same(ember.compile(f)(x), f(x))
    assert ember.stats()["graph_breaks"] >= 1


def test_outer_errors_are_numpys() -> None:
    def f(x):
        return np.add.outer(x, 2.0)

    with pytest.raises(Exception) as want:
        np.add.outer(np.arange(3.0), "a")
    with pytest.raises(type(want.value)):
        ember.compile(lambda x: np.add.outer(x, "a"))(np.arange(3.0))
    assert_same(ember.compile(f)(np.arange(3.0)), f(np.arange(3.0)))
