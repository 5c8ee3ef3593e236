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


def forward_fill(x):
    idx = np.where(~np.isnan(x), np.arange(len(x)), 0)
    np.maximum.accumulate(idx, out=idx)
    return x[idx]


def running_max_into(a):
    out = np.empty_like(a)
    r = np.maximum.accumulate(a, axis=1, out=out)
    return r is out, out


def reduce_and_scan_into(a):
    total = np.zeros(a.shape[1], a.dtype)
    np.add.reduce(a, axis=0, out=total)
    np.minimum.accumulate(a[:, 0], out=a[:, 1])
    return total, a


def scan_into_other_dtype(a):
    out = np.zeros(a.shape, np.float64)
    np.add.accumulate(a, out=out)
    return out


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
@pytest.mark.parametrize("fn,make,breaks", [
    (forward_fill, lambda r: (np.where(r.random(12) < 0.3, np.nan, r.random(12)),), 0),
    (running_max_into, lambda r: (r.random((3, 5)).astype(np.float32),), 0),
    (reduce_and_scan_into, lambda r: (r.integers(-9, 9, (4, 3)),), 0),
    (scan_into_other_dtype, lambda r: (r.integers(0, 9, 7).astype(np.int32),), 1),
])
def test_reduce_and_accumulate_into_out(fn, make, breaks, backend) -> None:
    """`ufunc.accumulate(x, out=o)` and `ufunc.reduce(..., out=o)`: the result written into
    `o` (here also the argument itself, or a view of it) and returned; an `out` of another
    dtype (NumPy computes in it) is left to NumPy."""
    r = np.random.default_rng(3)
    ember.reset()
    compiled = ember.compile(fn, backend=backend)
    for _ in range(2):
        args = make(r)
        plain, mine = [a.copy() for a in args], [a.copy() for a in args]
        assert repr(compiled(*mine)) == repr(fn(*plain))
        assert all(repr(m) == repr(p) for m, p in zip(mine, plain))
    assert ember.stats()["graph_breaks"] == breaks, ember.stats()["break_reasons"]


LOGADDEXP = {
    "reduce a vector": lambda x: np.logaddexp.reduce(x[0]),
    "reduce rows": lambda x: np.logaddexp.reduce(x, axis=1),
    "reduce columns, keepdims": lambda x: np.logaddexp.reduce(x, axis=0, keepdims=True),
    "reduce all": lambda x: np.logaddexp.reduce(x, axis=None),
    "accumulate rows": lambda x: np.logaddexp.accumulate(x, axis=1),
    "accumulate columns reversed": lambda x: np.logaddexp.accumulate(x[::-1], axis=0)[::-1],
}
_SPECIAL = np.array([[-np.inf, -np.inf, 1.0, 2.0], [-np.inf] * 4, [np.inf, 0.0, 1.0, np.nan]])


@pytest.mark.parametrize("name", sorted(LOGADDEXP))
def test_logaddexp_reduce_and_accumulate_like_numpy(name) -> None:
    """`np.logaddexp.reduce`/`accumulate` (a log-sum-exp, the HMM forward step, Cox risk
    sets): an element loop in NumPy's order; infinities and nan as NumPy gives them."""
    from probe_harness import assert_behaves_as_numpy

    fn = LOGADDEXP[name]
    for x in (np.random.default_rng(3).standard_normal((3, 4)), _SPECIAL,
              np.arange(12).reshape(3, 4)):
        assert_behaves_as_numpy(fn, x)


@pytest.mark.parametrize("name", sorted(LOGADDEXP))
def test_logaddexp_reduce_and_accumulate_gradients(name) -> None:
    """Differentiated (a graph without loop ops), the reduction is a log-sum-exp shifted by
    the maximum and the accumulation one over a triangular mask: values within rounding of
    NumPy's, gradients equal central differences, float32 kept."""
    from test_autodiff_rules import numeric_grad

    fn = LOGADDEXP[name]

    def loss(x):
        return np.sum(np.sin(fn(x)) * np.arange(1, np.size(fn(x)) + 1).reshape(np.shape(fn(x))))

    x = np.random.default_rng(4).standard_normal((3, 4)) * 3
    value, got = ember.value_and_grad(loss)(x)
    np.testing.assert_allclose(value, loss(x), rtol=1e-12)
    np.testing.assert_allclose(got, numeric_grad(loss, (x,), 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ember.grad(loss, backend="eager")(x), got, rtol=1e-10)
    small = ember.grad(loss)(x.astype(np.float32))
    assert small.dtype == np.float32
    np.testing.assert_allclose(small, got, rtol=2e-3, atol=2e-4)
