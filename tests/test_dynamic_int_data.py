"""Run-time ints NumPy takes as data (`capture/variables/int_data.py`): the fill value of
`np.full`, the operands of `np.where` and bounds of `np.clip`, the lone operand of a ufunc
(`np.sqrt(n)`), an int stored into an array (`out[0] = n`). Sizes and int arguments that
change there keep one graph (at most two captures over any number of values) instead of a
guarded constant per value, and each call equals NumPy: values, dtypes, NumPy's
OverflowError where the int does not fit the integer dtype it lands in (the frame then runs
as plain Python), and float32 targets, which stay specialised."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember
from conftest import assert_same
from test_dynamic_rows import check_sizes

SIZES = (4, 5, 6, 9, 3, 30, 2, 17, 64)


def where_far(mask):
    h, w = mask.shape
    return np.where(mask, 0, h + w).cumsum(axis=1)


def where_beside_int8(mask, v):
    return np.where(mask, mask.astype(np.int8), v)


def full_of_count(x):
    n = len(x)
    return np.full(n + 1, n + 1, dtype=np.int64) - np.arange(n + 1)


def full_no_dtype(x, n):
    return np.full(x.shape, n) * 2


def full_keyword(x, n):
    return np.full(x.shape, fill_value=n - 1, dtype=np.float64) + x


def full_int8(x, n):
    return np.full(3, n, dtype=np.int8) + 1


def full_bool(x, n):
    return np.full(x.shape, n - 2, dtype=np.bool_)


def full_float32(x, n):  # float32 stays specialised on n
    return np.full(x.shape, n, dtype=np.float32) * x.astype(np.float32)


def clip_index(x, w):
    return np.clip(x, 0, w - 1)


def clip_int16(x, w):
    return np.clip(x.astype(np.int16), -w, w)


def clip_keywords(x):
    n = x.shape[0]
    return np.clip(x, a_min=1, a_max=n - 2)


def unit_vector(a):
    n = a.shape[0]
    return np.ones(n) / np.sqrt(n) * np.log(n + 1)


def negative_of_size(x):
    return np.negative(x.shape[0]) + x


def stored_ends(a):
    s = np.zeros(4, dtype=np.int64)
    s[0], s[1] = 0, len(a) - 1
    return s


def stored_int8(a, v):
    s = np.zeros(4, dtype=np.int8)
    s[2] = v
    return s


def stored_uint8(a, v):
    s = np.ones(3, dtype=np.uint8)
    s[0] = v
    return s * 2


def stored_float_and_bool(a):
    s = np.zeros(3)
    b = np.zeros(2, dtype=np.bool_)
    s[1] = len(a)
    b[0] = len(a) - 2
    return s, b


def stored_float32(a):  # float32 stays specialised on the size
    s = np.zeros(3, dtype=np.float32)
    s[1] = len(a)
    return s


def _mask(n, r):
    return r.random((n, n + 1)) < 0.4


def _ints(n, r):
    return r.integers(-60, 60, n)


CASES = [
    (where_far, lambda n, r: (_mask(n, r),)),
    (full_of_count, lambda n, r: (r.random(n),)),
    (full_no_dtype, lambda n, r: (r.random((2, 3)), 10 * n)),
    (full_keyword, lambda n, r: (r.random(n), n)),
    (full_bool, lambda n, r: (r.random(3), n)),
    (clip_index, lambda n, r: (_ints(n, r), n)),
    (clip_keywords, lambda n, r: (_ints(n, r),)),
    (unit_vector, lambda n, r: (r.random((n, n)),)),
    (negative_of_size, lambda n, r: (r.random(n),)),
    (stored_ends, lambda n, r: (r.random(n),)),
    (stored_float_and_bool, lambda n, r: (r.random(n),)),
]


@pytest.mark.parametrize("fn, make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_ints_as_data_compile_twice_over_sizes(fn, make):
    stats = check_sizes(fn, make, SIZES)
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]


@pytest.mark.parametrize("fn, make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_ints_as_data_at_sizes_zero_and_one(fn, make):
    check_sizes(fn, make, (4, 5, 0, 1, 6, 1, 0, 7))


@pytest.mark.parametrize("fn, make", CASES[:6], ids=[f.__name__ for f, _ in CASES[:6]])
def test_ints_as_data_on_the_eager_backend(fn, make):
    check_sizes(fn, make, (4, 5, 0, 1, 9), backend="eager")


def check_values(fn, make, values):
    """`fn` compiled, called with each value against NumPy (results, or the exception type
    where NumPy raises); `ember.stats()` afterwards."""
    compiled = ember.compile(fn)
    for v in values:
        try:
            want = fn(*make(v))
        except Exception as exc:
            with pytest.raises(type(exc)):
                compiled(*make(v))
            continue
        assert_same(compiled(*make(v)), want, rtol=0, path=f"{fn.__name__} of {v}")
    return ember.stats()


NARROW = [
    (where_beside_int8, lambda v: (np.array([[True, False], [False, True]]), v)),
    (full_int8, lambda v: (None, v)),
    (clip_int16, lambda v: (np.arange(-5, 5), v)),
    (stored_int8, lambda v: (None, v)),
    (stored_uint8, lambda v: (None, v)),
]


@pytest.mark.parametrize("fn, make", NARROW, ids=[f.__name__ for f, _ in NARROW])
def test_an_int_beyond_a_narrow_dtype_raises_numpys_overflow_error(fn, make):
    """Values in range run one graph; one beyond the dtype raises OverflowError from plain
    Python, as NumPy does, and later values in range run compiled again."""
    stats = check_values(fn, make, (3, 7, 100, 300, -1, 5, -129, 40000, 12, 2**40, 9))
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    assert stats["entry_fallbacks"] <= 5  # only the values beyond the dtype ran as Python


@settings(derandomize=True, deadline=None, max_examples=40)
@given(st.lists(st.integers(-2**62, 2**62), min_size=3, max_size=6),
       st.sampled_from([np.int8, np.uint8, np.int32, np.uint64, np.int64, np.float64, np.bool_]))
def test_full_and_stores_of_any_int_equal_numpy(values, dtype):
    def fill_and_store(x, v):
        out = np.full(3, v, dtype=dtype)
        out[1] = v // 3
        return out + x.astype(dtype)

    ember.reset()
    check_values(fill_and_store, lambda v: (np.ones(3, dtype=np.int8), v), values)


FLOAT32 = [(full_float32, lambda n, r: (r.random(3), 2**40 + 2 * n + 1)),
           (stored_float32, lambda n, r: (np.empty(n),))]


@pytest.mark.parametrize("fn, make", FLOAT32, ids=[f.__name__ for f, _ in FLOAT32])
def test_float32_targets_stay_exact(fn, make):
    stats = check_sizes(fn, make, (4, 5, 6, 7))
    assert stats["entry_fallbacks"] == 0


def test_where_of_two_python_ints_is_int64_as_numpy():
    f = ember.compile(where_far)
    for n in (3, 4, 8):
        got = f(_mask(n, np.random.default_rng(n)))
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, where_far(_mask(n, np.random.default_rng(n))))
    assert ember.stats()["captures"] == 2


def sqrt_below(x):
    return np.sqrt(len(x) - 5)


def lone_ufuncs(x):
    return np.negative(x.shape[0]), np.isnan(len(x)), np.square(len(x) * 3)


def where_beside_bool(x):
    return np.where(x > 0.5, len(x), x.astype(np.bool_))


def full_uint64(x):
    return np.full(2, len(x), dtype=np.uint64)


@pytest.mark.parametrize("fn", [sqrt_below, lone_ufuncs, where_beside_bool, full_uint64])
def test_ints_as_data_keep_numpys_types_and_warnings(fn):
    """NumPy scalars where NumPy gives them (`np.sqrt(n)` is an np.float64), its dtypes, and
    its warnings (the square root of a negative size difference)."""
    import warnings

    compiled = ember.compile(fn)
    for n in (4, 6, 9, 3, 12, 30):
        x = np.linspace(0, 1, n)
        with warnings.catch_warnings(record=True) as wanted:
            warnings.simplefilter("always")
            want = fn(x)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            got = compiled(x)
        want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
        for g, w in zip(got, want, strict=True):
            assert type(g) is type(w) and np.asarray(g).dtype == np.asarray(w).dtype
            np.testing.assert_array_equal(g, w)
        assert [str(m.message) for m in seen] == [str(m.message) for m in wanted]
    assert ember.stats()["entry_fallbacks"] == 0
