"""Arrays a compiled function updates in place (`out[:] = ...`, returning None), written back
by the native fast path (`dispatch/direct.rs: copy_into`): one copy of bytes where target and
result are C-contiguous arrays of one numeric dtype, NumPy's `copyto` for everything else.
Checked against plain NumPy: the values, the dtype and identity of the updated array, what
the function returns, the read-only and warn-on-write views NumPy refuses or warns about, and
targets that share memory with other arguments.
"""

from __future__ import annotations

import warnings

import ember
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


def native_calls() -> int:
    return ember.stats()["native_calls"]


@pytest.fixture(autouse=True)
def _fresh():
    ember.reset()
    yield
    ember.reset()


def fill(out, x, y):
    out[:] = x * y + 1


def fill_all(out, x):
    out[...] = x - 2


def fill_and_total(out, x):
    out[:] = x * 2
    return out.sum()


def run_both(fn, make_args):
    """`fn` as plain NumPy and compiled (twice, so the second call is a cache hit), on fresh
    copies of the same arguments; returns both results, both argument lists and whether the
    compiled hit ran natively."""
    plain_args = make_args()
    expected = fn(*plain_args)
    compiled = ember.compile(fn)
    compiled(*make_args())
    args = make_args()
    before = native_calls()
    got = compiled(*args)
    return expected, got, plain_args, args, native_calls() == before + 1


def assert_same_arrays(a, b):
    assert type(a) is type(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)


DTYPES = [np.float64, np.float32, np.int64, np.int32, np.int8, np.uint16, np.complex128, np.bool_]


@pytest.mark.parametrize("dtype", DTYPES)
def test_contiguous_targets_of_each_dtype(dtype):
    def make():
        rng = np.random.default_rng(3)
        x = (rng.standard_normal(12) * 4).astype(dtype)
        y = (rng.standard_normal(12) * 4).astype(dtype)
        return [np.zeros(12, dtype), x, y]

    expected, got, plain, args, native = run_both(fill, make)
    assert expected is None and got is None
    assert native or dtype is np.complex128  # complex graphs run on the eager backend
    assert_same_arrays(args[0], plain[0])


@pytest.mark.parametrize("shape", [(0,), (1,), (5,), (3, 4), (2, 3, 4)])
def test_shapes(shape):
    def make():
        x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
        return [np.full(shape, 7.0), x]

    expected, got, plain, args, _ = run_both(fill_all, make)
    assert expected is None and got is None
    assert_same_arrays(args[0], plain[0])


def test_zero_d_target():
    def make():
        return [np.array(5.0), np.array(3.0)]

    expected, got, plain, args, _ = run_both(fill_all, make)
    assert expected is got is None
    assert_same_arrays(args[0], plain[0])


@pytest.mark.parametrize("layout", ["strided", "fortran", "reversed"])
def test_non_contiguous_targets(layout):
    def make():
        base = np.zeros((6, 8))
        target = {"strided": base[:, ::2], "fortran": np.asfortranarray(np.zeros((6, 4))),
                  "reversed": base[::-1, :4]}[layout]
        x = np.arange(24, dtype=np.float64).reshape(6, 4)
        return [target, x]

    expected, got, plain, args, _ = run_both(fill_all, make)
    assert expected is got is None
    assert_same_arrays(args[0], plain[0])
    assert args[0].flags.c_contiguous == plain[0].flags.c_contiguous


def test_result_alongside_update():
    def make():
        return [np.zeros(9, np.float32), np.linspace(0, 1, 9, dtype=np.float32)]

    expected, got, plain, args, native = run_both(fill_and_total, make)
    assert native
    assert type(got) is type(expected) and got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    assert_same_arrays(args[0], plain[0])


def test_read_only_target_raises_as_numpy():
    x = np.arange(4.0)
    target = np.zeros(4)
    compiled = ember.compile(fill_all)
    compiled(np.zeros(4), x)
    compiled(np.zeros(4), x)
    target.flags.writeable = False
    with pytest.raises(ValueError) as plain_error:
        fill_all(target, x)
    with pytest.raises(ValueError) as compiled_error:
        compiled(target, x)
    assert str(compiled_error.value) == str(plain_error.value)
    np.testing.assert_array_equal(target, np.zeros(4))


def test_warn_on_write_view_warns_as_numpy():
    """`np.broadcast_arrays` gives views that warn when written (NumPy's deprecation):
    the write goes through NumPy, which warns as the plain function does."""
    x = np.arange(4.0)
    compiled = ember.compile(fill_all)
    compiled(np.zeros(4), x)
    compiled(np.zeros(4), x)

    def outcome(fn):
        target, _ = np.broadcast_arrays(np.zeros(4), x)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = fn(target, x)
            except Exception as error:  # noqa: BLE001 - compared below
                return type(error), [], target.copy()
        return result, [(w.category, str(w.message)) for w in caught], target.copy()

    plain_result, plain_warnings, plain_target = outcome(fill_all)
    got_result, got_warnings, got_target = outcome(compiled)
    assert got_result == plain_result
    assert [c for c, _ in got_warnings] == [c for c, _ in plain_warnings]
    np.testing.assert_array_equal(got_target, plain_target)


def test_target_sharing_memory_with_an_argument():
    """`out[:] = x * y + 1` where `x` is `out` itself or a shifted view of the same buffer."""
    def shifted():
        base = np.arange(10.0)
        return [base[1:], base[:-1], np.full(9, 2.0)]

    def same():
        a = np.arange(6.0)
        return [a, a, np.full(6, 3.0)]

    for make in (shifted, same):
        expected, got, plain, args, _ = run_both(fill, make)
        assert expected is got is None
        assert_same_arrays(args[0], plain[0])
        assert_same_arrays(args[1], plain[1])


@settings(derandomize=True, deadline=None, max_examples=40)
@given(n=st.integers(0, 40), dtype=st.sampled_from(DTYPES[:5]), scale=st.floats(-3, 3))
def test_matches_numpy_over_sizes(n, dtype, scale):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 5).astype(dtype)
    y = np.full(n, scale).astype(dtype)
    compiled = ember.compile(fill)
    for _ in range(2):
        got_target, plain_target = np.empty(n, dtype), np.empty(n, dtype)
        with np.errstate(all="ignore"):
            fill(plain_target, x, y)
            assert compiled(got_target, x, y) is None
        assert_same_arrays(got_target, plain_target)
