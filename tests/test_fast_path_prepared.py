"""Hot calls on the native fast path: a kernel launch prepared by an earlier run keeps its
operands (strides and all) and takes each call's addresses from that call's arrays, and the
vectorcall slot marks the thread attached as PyO3's own methods do. Differential tests
against NumPy: every call sees its own arguments' data (fresh arrays, views at other offsets
of one buffer, the same array updated between calls), results keep their type (Python
scalars taken of reductions, tuples, no arguments), guards that fail recompile, errors keep
their type."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember


def multiply_add(x, y):
    return x * y + 1.0


def dot_as_float(x, y):
    return float((x * y).sum())


def count_as_int(x):
    return int((x > 0.5).sum())


def mean_as_item(x):
    return (x * 2.0).mean().item()


def any_as_bool(x, y):
    return bool((x > y).any())


def sum_and_product(x, y):
    return x + y, x * y


def scalars_and_array(x, y):
    s = (x * y).sum()
    return float(s), x - y, int((x > y).sum())


def no_arguments():
    return 1.0


def rows_then_total(a, b):
    return (a * b).sum(axis=1) + a[:, 0], float((a - b).max())


def native_calls() -> int:
    return ember.stats()["native_calls"]


def same(got, want) -> None:
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
    elif isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    else:
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


@pytest.fixture(autouse=True)
def fresh():
    ember.reset()
    yield
    ember.reset()


FUNCTIONS = [multiply_add, dot_as_float, sum_and_product, scalars_and_array, any_as_bool]


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_every_call_reads_its_own_arrays(fn):
    rng = np.random.default_rng(7)
    compiled = ember.compile(fn)
    before = native_calls()
    for _ in range(12):
        x, y = rng.random(8), rng.random(8)
        same(compiled(x, y), fn(x, y))
    assert native_calls() - before >= 10  # the hot calls ran natively


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_views_at_other_offsets_of_one_buffer(fn):
    buffer = np.random.default_rng(3).random(40)
    compiled = ember.compile(fn)
    before = native_calls()
    for start in range(0, 30, 3):
        x, y = buffer[start:start + 8], buffer[start + 1:start + 9]  # one layout, other data
        same(compiled(x, y), fn(x, y))
    assert native_calls() - before >= 8


def test_an_array_updated_between_calls_is_read_again():
    x, y = np.linspace(0.0, 1.0, 8), np.linspace(1.0, 2.0, 8)
    compiled = ember.compile(dot_as_float)
    for k in range(6):
        x[k] = 10.0 + k
        same(compiled(x, y), dot_as_float(x, y))


def test_two_dims_and_two_kernels():
    rng = np.random.default_rng(11)
    compiled = ember.compile(rows_then_total)
    for _ in range(6):
        a, b = rng.random((4, 5)), rng.random((4, 5))
        same(compiled(a, b), rows_then_total(a, b))
    t = rng.random((5, 4)).T  # a transposed layout: a guard fails, another entry
    same(compiled(t, t.copy()), rows_then_total(t, t.copy()))


@pytest.mark.parametrize("fn", [count_as_int, mean_as_item], ids=lambda f: f.__name__)
def test_python_scalars_of_reductions_keep_their_type(fn):
    rng = np.random.default_rng(5)
    compiled = ember.compile(fn)
    for _ in range(6):
        x = rng.random(9)
        same(compiled(x), fn(x))


def test_no_arguments():
    compiled = ember.compile(no_arguments)
    before = native_calls()
    for _ in range(5):
        same(compiled(), 1.0)
    assert native_calls() - before >= 4


def test_guard_failures_recompile_and_later_calls_stay_right():
    rng = np.random.default_rng(9)
    compiled = ember.compile(dot_as_float)
    for n in (8, 8, 16, 8, 16, 3):
        x, y = rng.random(n), rng.random(n)
        same(compiled(x, y), dot_as_float(x, y))
    x32 = rng.random(8).astype(np.float32)
    same(compiled(x32, x32), dot_as_float(x32, x32))


def test_errors_from_the_slot_keep_their_type():
    compiled = ember.compile(multiply_add)
    x = np.ones(8)
    compiled(x, x)
    with pytest.raises(TypeError):
        compiled(x)
    with pytest.raises(TypeError):
        compiled(x, x, x)
    with pytest.raises(ValueError):
        compiled(np.ones(8), np.ones(3))  # NumPy's broadcasting error, from the plain function
    same(compiled(x, x), multiply_add(x, x))


def test_recycled_outputs_do_not_alias_earlier_results():
    compiled = ember.compile(sum_and_product)
    x, y = np.linspace(0.0, 1.0, 8), np.linspace(1.0, 2.0, 8)
    first = compiled(x, y)
    kept = [a.copy() for a in first]
    second = compiled(x * 2.0, y)
    for a, b in zip(first, kept):
        np.testing.assert_array_equal(a, b)
    assert not np.shares_memory(first[0], second[0])
    same(second, sum_and_product(x * 2.0, y))


@settings(derandomize=True, deadline=None, max_examples=30)
@given(st.lists(st.floats(-1e3, 1e3), min_size=8, max_size=8),
       st.lists(st.floats(-1e3, 1e3), min_size=8, max_size=8),
       st.integers(0, 4))
def test_hypothesis_calls_alike(xs, ys, offset):
    buffer = np.array(xs + ys + [0.5] * 4)
    x, y = buffer[offset:offset + 8], buffer[8 + offset % 4:16 + offset % 4]
    for fn in (dot_as_float, scalars_and_array):
        compiled = ember.compile(fn)
        same(compiled(x, y), fn(x, y))


def test_guards_of_unpickled_dtypes_match_arrays_of_numpys_own():
    """A stored entry's guards hold unpickled dtypes (copies of NumPy's singletons): arrays of
    the plain dtype still hit, arrays of an equivalent copy too, others still miss."""
    import pickle

    from ember.capture.stored import restore  # noqa: F401 -- the path this stands for

    copy = pickle.loads(pickle.dumps(np.dtype(np.float64)))
    assert copy is not np.dtype(np.float64)
    compiled = ember.compile(dot_as_float)
    x = np.linspace(0.0, 1.0, 8).view(copy)  # captured with the copy's descriptor
    y = np.linspace(1.0, 2.0, 8)
    same(compiled(x, y), dot_as_float(x, y))
    misses = ember.stats()["cache_misses"]
    for a, b in ((y, x), (x.view(np.float64), y), (x, y.view(copy))):
        same(compiled(a, b), dot_as_float(a, b))
    assert ember.stats()["cache_misses"] == misses
    big = x.astype(">f8")  # not equivalent: the guard fails, another entry
    same(compiled(big, big), dot_as_float(big, big))
    assert ember.stats()["cache_misses"] == misses + 1
