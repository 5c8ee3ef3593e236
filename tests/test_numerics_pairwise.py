"""Float sums add in NumPy's pairwise order, in the array's own dtype: along a reduced run
(a 1-D array of any stride, the inner axis of rows, and a run of adjacent axes of a
C-contiguous value, which NumPy visits as one flat axis) compiled results are NumPy's bit for
bit, intermediate overflow to inf included; float products multiply in order, as NumPy
does."""

from __future__ import annotations

import warnings

import ember
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

LENGTHS = [0, 1, 7, 8, 9, 15, 16, 127, 128, 129, 255, 256, 257, 1000, 4097, 100_003]


def _same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want, equal_nan=True), (got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sums_of_one_run_are_numpys_bit_for_bit(dtype):
    rng = np.random.default_rng(5)
    fns = {
        "sum": lambda x: x.sum(),
        "mean": lambda x: np.mean(x),
        "fused": lambda x: (x * x - 1).sum(),
        "var": lambda x: x.var(),
        "std": lambda x: np.std(x, ddof=1),
    }
    for name, fn in fns.items():
        compiled = ember.compile(fn)
        for n in LENGTHS:
            if n < 2 and name in ("var", "std", "mean"):
                continue
            base = rng.standard_normal(3 * n + 1).astype(dtype)
            for view in (base[:n], base[::3][:n], base[::-1][:n], base[1::2][:n]):
                _same_bits(compiled(view), fn(view))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_row_sums_and_column_sums_are_numpys_bit_for_bit(dtype):
    rng = np.random.default_rng(6)
    for shape in [(3, 300), (40, 129), (257, 9), (5, 1000)]:
        x = rng.standard_normal(shape).astype(dtype)
        for fn in (lambda a: a.sum(axis=1), lambda a: a.mean(axis=-1, keepdims=True),
                   lambda a: a.sum(axis=0), lambda a: (a * 2).sum(axis=1)):
            _same_bits(ember.compile(fn)(x), fn(x))


def test_float32_intermediate_overflow_is_inf_as_in_numpy():
    def f(x):
        return x.sum()

    compiled = ember.compile(f)
    big = np.float32(3e38)
    # Each of these overflows in NumPy's order (to inf, or to NaN as inf - inf) although
    # float64 partial sums would stay finite.
    cases = [
        np.array([big, big, -big, -big], np.float32),
        np.concatenate([np.full(200, big, np.float32), np.full(200, -big, np.float32)]),
        np.full(10**5, 3e34, np.float32),
    ]
    for x in cases:
        with warnings.catch_warnings(record=True) as want_w:
            warnings.simplefilter("always")
            want = f(x)
        with warnings.catch_warnings(record=True) as got_w:
            warnings.simplefilter("always")
            got = compiled(x)
        _same_bits(got, want)
        assert not np.isfinite(want)
        assert [str(w.message) for w in got_w] == [str(w.message) for w in want_w]


def test_negative_zeros_sum_to_positive_zero():
    x = np.array([-0.0] * 9, np.float32)
    _same_bits(ember.compile(lambda a: a.sum())(x), x.sum())
    _same_bits(ember.compile(lambda a: a.sum())(x[:3]), x[:3].sum())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_products_multiply_in_order(dtype):
    rng = np.random.default_rng(7)

    def f(x):
        return x.prod()

    compiled = ember.compile(f)
    for n in (5, 100, 1000, 10_000):
        x = rng.uniform(0.97, 1.03, n).astype(dtype)
        _same_bits(compiled(x), f(x))
        _same_bits(compiled(x[::-2]), f(x[::-2]))


# (name, fn(x, axis, keepdims)): a reduction of an argument, of a value computed from it, and
# of a value whose operands broadcast along the reduced axes (stored whole, as NumPy does).
RUN_REDUCTIONS = [
    ("sum", lambda x, axis, kd: x.sum(axis=axis, keepdims=kd)),
    ("mean", lambda x, axis, kd: np.mean(x, axis=axis, keepdims=kd)),
    ("fused", lambda x, axis, kd: ((x - 0.25) ** 2).sum(axis=axis, keepdims=kd)),
    ("broadcast", lambda x, axis, kd: (x * x[..., :1]).sum(axis=axis, keepdims=kd)),
    ("centred", lambda x, axis, kd: np.sum(x - x.mean(axis=-1, keepdims=True), axis=axis,
                                           keepdims=kd)),
    ("prod", lambda x, axis, kd: (1 + x / 64).prod(axis=axis, keepdims=kd)),
]


def _adjacent_axes(ndim):
    """None and every run of adjacent axes (all NumPy visits as one flat axis)."""
    return [None] + [tuple(range(a, b)) for a in range(ndim) for b in range(a + 1, ndim + 1)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,fn", RUN_REDUCTIONS, ids=[n for n, _ in RUN_REDUCTIONS])
def test_reductions_over_runs_of_axes_are_numpys_bit_for_bit(dtype, name, fn):
    # Whole-array sums of 2-D arrays differed from NumPy's in the last digit when each row
    # was summed pairwise and then the row sums: NumPy sums all the elements as one run.
    rng = np.random.default_rng(8)
    for shape in [(6, 5), (3, 4, 5), (40, 3, 3), (2, 3, 4, 5), (9, 130), (1000, 3), (7, 1),
                  (1, 9), (4, 1, 6)]:
        x = rng.standard_normal(shape).astype(dtype)
        for axis in _adjacent_axes(len(shape)):
            for keepdims in (False, True):
                ember.reset()
                compiled = ember.compile(lambda a: fn(a, axis, keepdims))
                _same_bits(compiled(x), fn(x, axis, keepdims))


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(shape=st.lists(st.integers(1, 40), min_size=2, max_size=4),
       dtype=st.sampled_from([np.float32, np.float64]), data=st.data())
def test_random_runs_of_axes_sum_as_numpy_does(shape, dtype, data):
    x = np.random.default_rng(len(shape)).standard_normal(shape).astype(dtype) * 1e3
    axis = data.draw(st.sampled_from(_adjacent_axes(len(shape))))
    fn = data.draw(st.sampled_from([f for _, f in RUN_REDUCTIONS]))
    ember.reset()
    _same_bits(ember.compile(lambda a: fn(a, axis, False))(x), fn(x, axis, False))
