"""NumPy functions ember computes from its own ops (`numpy_api/composites.py`, `scans.py`) and
the keywords it added to existing ones, compiled against NumPy: values, dtypes, shapes,
layouts, warnings and errors, as one graph without a break, and inside a loop body."""

from __future__ import annotations

import contextlib

import ember
import numpy as np
import pytest
from hypothesis import assume, given, seed, settings
from hypothesis import strategies as st
from ops_compiled import check
from probe_harness import assert_behaves_as_numpy
from test_ops_gather import data

FLOATS = (np.float64, np.float32)
NUMBERS = (np.float64, np.float32, np.int64, np.int32, np.bool_)


def specials(dtype: type) -> np.ndarray:
    """Values at the edges of a float dtype: zeros of both signs, infinities, NaN, the
    smallest subnormal and normal, the largest finite, halves and integers."""
    info = np.finfo(dtype)
    return np.array([0.0, -0.0, np.inf, -np.inf, np.nan, info.smallest_subnormal,
                     -info.smallest_subnormal, info.tiny, info.max, -info.max, 0.5, -2.5,
                     3.0, -7.25, 1e-3], dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_divmod_modf_and_fix_are_numpys_with_special_values(dtype: type) -> None:
    x = specials(dtype)
    for fn in (lambda x: np.divmod(x, 0.75), lambda x: np.divmod(x, x[::-1]),
               lambda x: np.divmod(x, 0.0), lambda x: np.modf(x), lambda x: np.fix(x),
               lambda x: divmod(x, x[3])):
        check(fn, x, ops=())
        ember.reset()


@pytest.mark.parametrize("dtype", (np.int64, np.int32, np.int8, np.uint8))
def test_integer_divmod_and_modf_are_numpys(dtype: type) -> None:
    a = np.array([7, -7, 0, 5, -128, 127, 3], np.int64).astype(dtype)
    b = np.array([2, 3, 0, -5, -1, 1, 7], np.int64).astype(dtype)
    for fn in (lambda a, b: np.divmod(a, b), lambda a, b: np.divmod(a, 3),
               lambda a, b: np.divmod(a, 0), lambda a, b: divmod(a, b)):
        check(fn, a, b, ops=())
        ember.reset()


def test_modf_of_integers_is_float64() -> None:
    for dtype in (np.int64, np.int32, np.uint32):
        check(lambda a: np.modf(a), np.arange(-3, 4).astype(dtype), ops=())
        ember.reset()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("exponent_dtype", (np.int64, np.int32))
def test_ldexp_is_exact_across_the_exponent_range(dtype: type, exponent_dtype: type) -> None:
    """Every result is NumPy's bit for bit, where it overflows, where it is subnormal and
    where the power of two alone is beyond the dtype's range."""
    info = np.finfo(dtype)
    span = info.maxexp - info.minexp + info.nmant + 4
    mantissas = np.array([1.0, -1.0, 0.75, 1.0 - info.eps, 1.0 + info.eps, 1.5 + 2 * info.eps,
                          info.smallest_subnormal, info.max, info.tiny * 3, 0.0, -0.0,
                          np.inf, np.nan], dtype)
    exponents = np.arange(-span, span, 7, dtype=exponent_dtype)
    x = np.repeat(mantissas, exponents.size)
    e = np.tile(exponents, mantissas.size)
    fn = lambda x, e: np.ldexp(x, e)  # noqa: E731
    check(fn, x, e, ops=())
    want = fn(x, e)
    with np.errstate(all="ignore"):
        got = ember.compile(fn)(x, e)
    assert got.dtype == want.dtype
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))


@seed(20261206)
@settings(max_examples=40)
@given(st.sampled_from(FLOATS), st.integers(-1200, 1200), st.floats(allow_nan=False,
                                                                    allow_infinity=False))
def test_ldexp_of_any_number_and_exponent(dtype: type, exponent: int, value: float) -> None:
    with np.errstate(over="ignore"):  # a float64 beyond float32's range is its infinity
        x = np.array([value, -value, value / 3], np.float64).astype(dtype)
    e = np.array([exponent, -exponent, exponent // 2], np.int64)
    fn = lambda x, e: np.ldexp(x, e)  # noqa: E731
    with np.errstate(all="ignore"):
        want = fn(x, e)
        got = ember.compile(fn)(x, e)
    ember.reset()
    assert got.dtype == want.dtype
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), (got, want)


def _same_bits(got, want) -> None:
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert np.array_equal(g.view(np.uint8), w.view(np.uint8)), (g, w)


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
@pytest.mark.parametrize("dtype", (*FLOATS, np.int64, np.int32, np.int16))
def test_frexp_is_numpys_bit_for_bit(dtype: type, backend: str) -> None:
    """Mantissa and int32 exponent at the edges (zeros of both signs, infinities, NaN,
    subnormals, powers of two and their neighbours) and across the exponent range."""
    if np.dtype(dtype).kind == "f":
        info = np.finfo(dtype)
        edges = np.concatenate([specials(dtype), np.array(
            [1.0, 2.0, 1.0 - info.eps, 1.0 + info.eps, 2.0 - info.eps, info.tiny * (1 - info.eps),
             info.smallest_subnormal * 3, -4.0], dtype)])
        powers = np.ldexp(np.array([1.0, 1.0 - info.epsneg / 2], dtype),
                          np.arange(info.minexp, info.maxexp, 5)[:, None]).ravel()
        x = np.concatenate([edges, powers.astype(dtype)])
    else:
        x = np.array([0, 1, -7, 100, 64, -128, np.iinfo(dtype).max]).astype(dtype)
    fn = lambda x: np.frexp(x)  # noqa: E731
    check(fn, x, backend=backend, ops=())
    with np.errstate(all="ignore"):
        _same_bits(ember.compile(fn, backend=backend)(x), fn(x))


@seed(20261207)
@settings(max_examples=40)
@given(st.sampled_from(FLOATS), st.lists(st.floats(width=32) | st.floats(), min_size=1,
                                          max_size=8))
def test_frexp_of_any_number(dtype: type, values: list[float]) -> None:
    with np.errstate(over="ignore"):
        x = np.array(values, np.float64).astype(dtype)
    fn = lambda x: np.frexp(x)  # noqa: E731
    want = fn(x)
    got = ember.compile(fn)(x)
    ember.reset()
    _same_bits(got, want)


def test_ldexp_rejects_float_exponents_as_numpy() -> None:
    x = data(np.float64, (4,))
    check(lambda x: np.ldexp(x, x), x, ops=())


@pytest.mark.parametrize("dtype", FLOATS)
def test_logaddexp2_and_i0_are_numpys(dtype: type) -> None:
    x = specials(dtype)
    for fn in (lambda x: np.i0(x), lambda x: np.i0(x[3]), lambda x: np.i0(x * 1e-300)):
        check(fn, x, ops=())
        ember.reset()
    numbers = x[~np.isnan(x)]
    for fn in (lambda x: np.logaddexp2(x, x[::-1]), lambda x: np.logaddexp2(x, 1.0),
               lambda x: np.logaddexp2(x, x)):
        check(fn, numbers, ops=())
        ember.reset()
        # NumPy warns of every NaN operand: the compiled graph hands those calls to NumPy
        assert_behaves_as_numpy(fn, x, compiled_code=False)
        ember.reset()
    y = data(dtype, (5, 6))
    for fn in (lambda y: np.i0(y), lambda y: np.i0(y / 4), lambda y: np.i0(y.astype(np.int32))):
        check(fn, y, ops=(), rtol=1e-12 if dtype == np.float64 else 1e-6)
        ember.reset()


@seed(20261206)
@settings(max_examples=40)
@given(st.sampled_from(NUMBERS), st.sampled_from(NUMBERS),
       st.sampled_from([(), (0,), (7,), (3, 4), (2, 3, 2)]), st.integers(0, 40),
       st.booleans())
def test_isin_of_any_arrays(element_dtype: type, test_dtype: type, shape: tuple[int, ...],
                            tests: int, invert: bool) -> None:
    rng = np.random.default_rng(tests)
    element = rng.integers(-6, 6, shape).astype(element_dtype)
    test_elements = rng.integers(-6, 6, tests).astype(test_dtype)
    check(lambda e, t: np.isin(e, t, invert=invert), element, test_elements, ops=())
    ember.reset()


def test_isin_of_nan_lists_and_scalars() -> None:
    x = np.array([np.nan, 1.0, -0.0, 2.5, np.inf])
    for fn in (lambda x: np.isin(x, x), lambda x: np.isin(x, [0.0, 2.5]),
               lambda x: np.isin(x[1], x), lambda x: np.isin(x, np.arange(30.0)),
               lambda x: np.isin(x, x, kind="sort"), lambda x: np.isin(x, x, kind="bogus")):
        check(fn, x, ops=())
        ember.reset()


SCANNED = (np.maximum, np.minimum, np.fmax, np.fmin, np.subtract, np.logical_and,
           np.logical_or, np.logical_xor, np.bitwise_and, np.bitwise_or, np.bitwise_xor,
           np.divide, np.hypot)


@seed(20261206)
@settings(max_examples=60)
@given(st.sampled_from(SCANNED), st.sampled_from(NUMBERS),
       st.sampled_from([(0,), (1,), (9,), (3, 5), (4, 1, 3), (2, 0)]), st.data())
def test_accumulate_and_reduce_of_any_axis(ufunc: np.ufunc, dtype: type,
                                           shape: tuple[int, ...], draw: st.DataObject) -> None:
    with np.errstate(all="ignore"), contextlib.suppress(TypeError):  # NumPy's error: checked
        assume(ufunc.accumulate(np.zeros(1, dtype)).dtype != np.float16)
    x = data(dtype, shape)
    if dtype in FLOATS and x.size:
        x.flat[0] = np.nan
    axis = draw.draw(st.integers(-len(shape), len(shape) - 1))
    keepdims = draw.draw(st.booleans())
    reductions = (lambda x: ufunc.reduce(x, axis=axis, keepdims=keepdims),
                  lambda x: ufunc.reduce(x)) if ufunc not in (np.fmax, np.fmin) else ()
    for fn in (lambda x: ufunc.accumulate(x, axis=axis), *reductions):
        check(fn, x, ops=())
        ember.reset()


def test_running_maximum_of_a_drawdown_and_reduce_errors() -> None:
    x = data(np.float64, (50,)).cumsum()
    check(lambda x: np.max(np.maximum.accumulate(x) - x), x)
    ember.reset()
    check(lambda x: np.maximum.reduce(x[:0]), x, ops=())
    ember.reset()
    big = np.array([1e308, -1e308, 1e308])
    check(lambda x: np.subtract.accumulate(x), big)
    ember.reset()
    check(lambda x: np.subtract.reduce(x), big)  # NumPy's warning names reduce


def test_diff_with_prepend_and_append() -> None:
    x, k, a = data(np.float64, (8,)), data(np.int64, (6,)), data(np.float32, (3, 4))
    for fn, arg in ((lambda x: np.diff(x, prepend=0.0), x),
                    (lambda x: np.diff(x, append=x[-1:]), x),
                    (lambda x: np.diff(x, n=2, prepend=[1.0, 2.0], append=3), x),
                    (lambda k: np.diff(k, prepend=0), k),
                    (lambda k: np.diff(k, append=2.5), k),
                    (lambda k: np.diff(k > 0, prepend=False), k),
                    (lambda a: np.diff(a, axis=0, prepend=a[:1]), a),
                    (lambda a: np.diff(a, axis=1, prepend=0, append=1), a),
                    (lambda a: np.diff(a, axis=0, prepend=a), a)):
        check(fn, arg, ops=())
        ember.reset()


def test_insert_at_one_index() -> None:
    """np.insert at an index known while tracing, any axis, values cast to the array's dtype
    (NumPy's unsafe cast) and broadcast to the slices they fill; NumPy's IndexError past the
    ends."""
    x, k, a = data(np.float64, (8,)), data(np.int64, (6,)), data(np.float32, (3, 4))
    for fn, arg in ((lambda x: np.insert(x, 0, 0.0), x),
                    (lambda x: np.cumsum(np.insert(x, 0, 0.0))[3:], x),
                    (lambda x: np.insert(x, 8, x[:3]), x),
                    (lambda x: np.insert(x, -2, [1.0, 2.0]), x),
                    (lambda k: np.insert(k, 3, 2.75), k),
                    (lambda k: np.insert(k > 0, 1, 1), k),
                    (lambda a: np.insert(a, 1, 9.0, axis=1), a),
                    (lambda a: np.insert(a, 2, [1, 2, 3], axis=1), a),
                    (lambda a: np.insert(a, 0, a[0] * 2, axis=0), a),
                    (lambda a: np.insert(a, 5, -1.0), a),
                    (lambda x: np.insert(x, 9, 1.0), x),
                    (lambda a: np.insert(a, -5, 1.0, axis=1), a)):
        check(fn, arg, ops=())
        ember.reset()


def test_insert_at_the_start_of_any_length() -> None:
    """`np.insert(x, 0, v)` on arrays whose length changes from call to call: one graph."""
    def rolling_sums(x, w):
        c = np.cumsum(np.insert(x, 0, 0.0))
        return c[w:] - c[:-w]

    ember.reset()
    fn = ember.compile(rolling_sums)
    for n in (6, 9, 14, 30):
        x = data(np.float64, (n,))
        got, want = fn(x, 3), rolling_sums(x, 3)
        assert got.shape == want.shape and np.allclose(got, want, rtol=1e-12)
    assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]


@pytest.mark.parametrize("mode", ["full", "same", "valid", None])
def test_correlate_modes_and_lengths(mode: str | None) -> None:
    for a_dtype, v_dtype in [(np.float64, np.float64), (np.float32, np.float32),
                             (np.int64, np.float64), (np.int32, np.int32)]:
        for n, m in [(12, 3), (7, 7), (3, 8), (5, 1), (4, 5)]:
            a, v = data(a_dtype, (n,)), data(v_dtype, (m,), seed=1)
            if mode is None:
                check(lambda a, v: np.correlate(a, v), a, v, ops=())
            else:
                check(lambda a, v: np.correlate(a, v, mode), a, v, ops=())
            ember.reset()


@pytest.mark.parametrize("dtype", NUMBERS)
def test_vander_and_polyfit(dtype: type) -> None:
    x = data(dtype, (5,))
    for fn in (lambda x: np.vander(x), lambda x: np.vander(x, 3, increasing=True),
               lambda x: np.vander(x, 0), lambda x: np.vander(x, 1), lambda x: np.vander(x, 7),
               lambda x: np.vander(x.reshape(1, 5))):
        check(fn, x, ops=())
        ember.reset()
    if dtype in FLOATS:
        y = data(np.float64, (5,), seed=2)
        check(lambda x, y: np.polyfit(x, y, 2), x, y, ops=(), rtol=1e-9)


def test_item_with_an_index_and_clip_into_itself() -> None:
    x, a = data(np.float64, (6,)), data(np.int32, (3, 4))
    for fn, arg in ((lambda x: x.item(3) * 2, x), (lambda x: x.item(-1), x),
                    (lambda x: x.item(6), x), (lambda a: a.item(1, 2), a),
                    (lambda a: a.item(7), a), (lambda a: a.item((2, 3)), a),
                    (lambda a: a.item(3, 4), a), (lambda a: a.item(-12), a)):
        assert_behaves_as_numpy(fn, arg)

    def clip_into(x):
        x.clip(-1.0, 1.0, out=x)
        return x.sum()

    assert_behaves_as_numpy(clip_into, x)


def test_each_inside_a_loop_body() -> None:
    """In a loop body none of them breaks the graph: the loop stays one loop op."""
    def body(x, t, n):
        total = 0.0
        for i in range(n):
            row = x[i]
            q, r = np.divmod(row, 0.5)
            f, w = np.modf(row)
            total += np.sum(np.ldexp(r, 2) + f) + np.sum(q * 0) + np.sum(w * 0)
            total += np.sum(np.i0(row)) + np.sum(np.logaddexp2(row, 0.0))
            total += np.count_nonzero(np.isin(np.floor(row), t))
            total += np.max(np.maximum.accumulate(row) - row)
            total += np.sum(np.diff(row, prepend=0.0)) + x.item(i, 0)
            total += np.sum(np.correlate(row, t[:3], "same"))
        return total

    x, t = data(np.float64, (6, 9)) / 4, np.arange(-3.0, 3.0)
    check(body, x, t, 6, rtol=1e-9)


@seed(20261206)
@settings(max_examples=40)
@given(st.sampled_from((np.float64, np.float32, np.int64)),
       st.sampled_from([(5,), (3, 6), (4, 2), (1, 5)]), st.booleans(), st.booleans())
def test_corrcoef_of_any_rows(dtype: type, shape: tuple[int, ...], rowvar: bool,
                              second: bool) -> None:
    assume(rowvar or shape[0] > 1)  # one sample: NumPy warns of no degrees of freedom
    x, y = data(dtype, shape), data(dtype, shape, seed=1)
    if second:
        check(lambda x, y: np.corrcoef(x, y, rowvar=rowvar), x, y, ops=(), rtol=1e-5)
    else:
        check(lambda x, y: np.corrcoef(x, rowvar=rowvar), x, y, ops=(), rtol=1e-5)
    ember.reset()


def test_corrcoef_with_dtype_nan_and_a_constant_row() -> None:
    x = data(np.float32, (3, 6))
    check(lambda x: np.corrcoef(x, dtype=np.float32), x, ops=(), rtol=1e-5)
    ember.reset()
    x = data(np.float64, (3, 6))
    x[1] = 2.0
    x[2, 3] = np.nan
    check(lambda x: np.corrcoef(x), x, ops=())


def test_broadcast_arrays() -> None:
    x, a = data(np.float64, (4,)), data(np.float32, (3, 1))
    for fn in (lambda x, a: tuple(v * 2 for v in np.broadcast_arrays(x, a)),
               lambda x, a: np.broadcast_arrays(x, a, 1.0)[2] + a,
               lambda x, a: np.broadcast_arrays(x, a[:, :1], x)[0].sum(axis=0),
               lambda x, a: np.broadcast_arrays(x, a.T)):
        check(fn, x, a, ops=())
        ember.reset()


def test_isin_of_many_elements_in_many_tests_runs_as_numpy() -> None:
    """NumPy's sort of both (or table) beats a search per element there: NumPy runs it."""
    element, tests = np.arange(3000) % 97, np.arange(0, 200, 3)
    fn = lambda e, t: np.isin(e, t) & (e > 3)  # noqa: E731
    assert_behaves_as_numpy(fn, element, tests, compiled_code=False)
    reasons = [b.reason for b in ember.explain(fn, element, tests).break_reasons]
    assert any("np.isin of more than" in r for r in reasons), reasons
