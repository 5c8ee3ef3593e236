"""Small results of the native fast path against plain NumPy: NumPy scalars built natively
(`dispatch/direct.rs: numpy_scalar`, for integer and float dtypes in native byte order;
`PyArray_Scalar` for the rest), and small outputs kept for reuse by the graph's own
repeated-layout state instead of the recycling pool (`recycle::SMALL_OUTPUTS`): a result
the caller still holds is never overwritten, a budget of 0 keeps nothing, layouts that
change and come back give the right values.
"""

from __future__ import annotations

import gc
import warnings
import weakref

import ember
import numpy as np
import pytest
from ember import _core
from ember.config import config
from hypothesis import given, settings
from hypothesis import strategies as st


def native_calls() -> int:
    return ember.stats()["native_calls"]


@pytest.fixture(autouse=True)
def _fresh():
    ember.reset()
    yield
    ember.reset()


def total(x):
    return x.sum()


def largest(x):
    return x.max()


def pair(x):
    return x.min(), x[1]


def doubled(x):
    return x * 2


def assert_same_scalar(got, expected):
    assert type(got) is type(expected)
    if isinstance(expected, np.generic):
        assert got.dtype == expected.dtype
    if isinstance(expected, (np.floating, float)) and np.isnan(expected):
        assert np.isnan(got)
    else:
        assert got == expected


DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
          np.float32, np.float64, np.bool_, np.float16, np.complex128]


def sample(dtype, n=9, seed=0):
    values = np.random.default_rng(seed).integers(-100, 100, n)
    if np.dtype(dtype).kind == "u":
        values = np.abs(values)
    return values.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", [largest, pair])
def test_numpy_scalars_of_each_dtype(fn, dtype):
    x = sample(dtype)
    compiled = ember.compile(fn)
    compiled(x)
    before = native_calls()
    for _ in range(3):
        got = compiled(x)
        expected = fn(x)
        if isinstance(expected, tuple):
            assert type(got) is tuple and len(got) == len(expected)
            for g, e in zip(got, expected):
                assert_same_scalar(g, e)
        else:
            assert_same_scalar(got, expected)
    if np.dtype(dtype).kind in "iuf" and dtype is not np.float16:
        assert native_calls() == before + 3


def test_byte_swapped_input_gives_numpy_scalar():
    x = sample(np.float64).astype(">f8")
    compiled = ember.compile(largest)
    for _ in range(3):
        assert_same_scalar(compiled(x), largest(x))


def warned(fn, x):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(x)
    return result, [(w.category, str(w.message)) for w in caught]


def test_nan_and_extremes():
    compiled = ember.compile(total)
    for x in (np.array([np.nan, 1.0]), np.array([np.inf, -np.inf]),
              np.array([np.finfo(np.float64).max] * 2), np.array([-0.0, -0.0])):
        got, got_warned = warned(compiled, x)
        expected, expected_warned = warned(total, x)
        assert got_warned == expected_warned
        assert_same_scalar(got, expected)
        assert np.signbit(got) == np.signbit(expected)
    ints = ember.compile(largest)
    for x in (np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max]),
              np.array([np.iinfo(np.uint64).max, 0], dtype=np.uint64)):
        assert_same_scalar(ints(x), largest(x))


def test_scalar_results_are_independent_objects():
    compiled = ember.compile(total)
    a = compiled(np.arange(4.0))
    b = compiled(np.arange(5.0, 9.0))
    assert a == 6.0 and b == 26.0
    assert a is not b


def test_a_held_small_result_is_never_overwritten():
    compiled = ember.compile(doubled)
    x = np.arange(5.0)
    held = [compiled(x + k) for k in range(6)]
    for k, result in enumerate(held):
        np.testing.assert_array_equal(result, (x + k) * 2)
    assert len({r.__array_interface__["data"][0] for r in held}) == len(held)


def test_a_dropped_small_result_is_reused_in_place():
    compiled = ember.compile(doubled)
    x = np.arange(5.0)
    compiled(x)
    address = compiled(x).__array_interface__["data"][0]
    again = compiled(x + 1)
    assert again.__array_interface__["data"][0] == address
    np.testing.assert_array_equal(again, (x + 1) * 2)


def test_a_zero_budget_keeps_no_small_output():
    saved = config.recycle_bytes
    config.recycle_bytes = 0
    try:
        compiled = ember.compile(doubled)
        x = np.arange(5.0)
        for _ in range(3):
            result = compiled(x)
            ref = weakref.ref(result)
            del result
            assert ref() is None
        assert _core.recycle_usage() == (0, 0)
    finally:
        config.recycle_bytes = saved


def test_a_weakly_referenced_small_result_is_not_reused():
    compiled = ember.compile(doubled)
    x = np.arange(5.0)
    compiled(x)
    result = compiled(x)
    ref = weakref.ref(result)
    del result
    again = compiled(x + 1)
    assert ref() is None
    np.testing.assert_array_equal(again, (x + 1) * 2)


def test_small_outputs_die_with_the_compiled_function():
    compiled = ember.compile(doubled)
    x = np.arange(5.0)
    kept = compiled(x)
    compiled(x)  # the graph keeps this call's output for the next
    ref = weakref.ref(kept)
    del kept, compiled
    ember.reset()
    gc.collect()
    assert ref() is None


@settings(derandomize=True, deadline=None, max_examples=30)
@given(sizes=st.lists(st.integers(1, 6), min_size=2, max_size=8),
       dtype=st.sampled_from([np.float64, np.int32, np.float32]))
def test_layouts_that_change_and_come_back(sizes, dtype):
    """Shapes alternate between calls (the repeated-layout state is dropped and rebuilt),
    results held or dropped: every result is NumPy's."""
    compiled = ember.compile(doubled)
    held = []
    for k, n in enumerate(sizes):
        x = sample(dtype, n, seed=k)
        got = compiled(x)
        expected = doubled(x)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
        if k % 2:
            held.append((got, expected))
    for got, expected in held:
        np.testing.assert_array_equal(got, expected)
