"""Arrays whose length only the data knows, compiled against NumPy on random inputs (fixed
seed): slices whose bounds the graph computes (`out[:k]` after a counting loop, `x[k:]`
with `k` a count), taken by the entry as views of the graph's buffer or of the argument;
`np.unique` (with `return_index`, `return_inverse`, `return_counts`, `equal_nan`);
`np.argwhere`, `np.extract`, `np.compress`; an element of a boolean-mask selection
(`cdf[cdf > 0][0]`); and the handlers `np.lexsort` and `np.interp`. Values, dtypes, shapes,
memory shared as NumPy shares it, errors, and no graph break."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _compiled(fn, *args):
    """The compiled function's result on fresh copies (twice: capture, then the entry),
    NumPy's, and the stats."""
    ember.reset()
    compiled = ember.compile(fn)
    compiled(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
    got = compiled(*args)
    return got, ember.stats()


def _same_no_break(fn, *args, **same):
    want = fn(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
    got, stats = _compiled(fn, *args)
    assert_same(got, want, **same)
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["compiles"] >= 1 and not stats["backend_fallbacks"]
    return got


# ---- slices with bounds the graph computes ------------------------------------------------


def compact(x, t):
    out = np.empty_like(x)
    k = 0
    for i in range(len(x)):
        if x[i] > t:
            out[k] = x[i]
            k += 1
    return out[:k], k


def split_at_count(x, t):
    k = np.count_nonzero(x > t)
    head = x[:k]
    return head, x[k:], x[-k:], x[k - 2:k + 1], len(head), head.shape, x[1:k]


def rows_at_count(m, t):
    k = (m[:, 0] > t).sum()
    return m[:k], m[k:, 1:], m[:k, :].shape, m[:k, ::-1]


def buffer_and_prefix(x, t):
    buf = x * 2.0
    k = (x > t).sum()
    return buf, buf[:k]


@st.composite
def vectors(draw, min_size=0):
    n = draw(st.integers(min_size, 12))
    dtype = draw(st.sampled_from([np.int64, np.float64, np.float32]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    return rng.integers(-5, 6, n).astype(dtype), float(draw(st.integers(-6, 6)))


@seed(20261206)
@SETTINGS
@given(vectors())
def test_prefix_after_a_counting_loop(case) -> None:
    x, t = case
    _same_no_break(compact, x, t)


@seed(20261207)
@SETTINGS
@given(vectors(min_size=2))
def test_slices_by_a_count_are_views_of_the_argument(case) -> None:
    x, t = case
    got = _same_no_break(split_at_count, x, t)
    want = split_at_count(x, t)
    for g, w in zip(got, want, strict=True):
        if isinstance(w, np.ndarray):
            assert np.shares_memory(g, x) == np.shares_memory(w, x)


@seed(20261208)
@SETTINGS
@given(st.integers(2, 8), st.integers(1, 4), st.integers(0, 2**16))
def test_rows_sliced_by_a_count(rows, cols, draw_seed) -> None:
    m = np.random.default_rng(draw_seed).standard_normal((rows, cols))
    _same_no_break(rows_at_count, m, 0.0)


def test_prefix_is_a_view_of_the_returned_buffer() -> None:
    x = np.array([3.0, -1.0, 4.0, 1.0, -5.0])
    buf, head = _same_no_break(buffer_and_prefix, x, 0.0)
    assert head.base is buf or np.shares_memory(head, buf)


def prefix_then_update(x, t):
    buf = x * 2.0
    k = (x > t).sum()
    head = buf[:k]
    buf[0] = -1.0
    return head


def test_prefix_sees_a_later_update_of_its_buffer() -> None:
    x = np.array([3.0, -1.0, 4.0, 1.0])
    got, _ = _compiled(prefix_then_update, x, 0.0)
    assert_same(got, prefix_then_update(x, 0.0))


def float_bound(x):
    return x[:x.sum()]


def test_a_float_bound_raises_as_in_python() -> None:
    compiled = ember.compile(float_bound)
    with pytest.raises(TypeError):
        float_bound(np.ones(3))
    with pytest.raises(TypeError):
        compiled(np.ones(3))


# ---- np.unique ----------------------------------------------------------------------------


def uniques(x):
    return np.unique(x), len(np.unique(x))


def unique_with_index_and_counts(x):
    values, first, counts = np.unique(x, return_index=True, return_counts=True)
    return values, first, counts, np.unique(x, return_counts=True)[1]


@st.composite
def arrays(draw):
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=1, max_size=2)))
    dtype = draw(st.sampled_from([np.bool_, np.int32, np.int64, np.float32, np.float64]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    x = rng.integers(-3, 4, shape).astype(dtype)
    if dtype in (np.float32, np.float64) and x.size and draw(st.booleans()):
        x.flat[rng.integers(0, x.size, 2)] = np.nan  # NaNs are one value to np.unique
    return x


@seed(20261209)
@SETTINGS
@given(arrays())
def test_unique_matches_numpy(x) -> None:
    _same_no_break(uniques, x)
    _same_no_break(unique_with_index_and_counts, x)


def unique_inverse(x):
    return np.unique(x, return_inverse=True)


def unique_everything(x):
    values, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                               return_counts=True)
    return values, first, inverse, counts, inverse * 2 + 1, len(values)


def unique_nans_apart(x):
    values, inverse = np.unique(x, return_inverse=True, equal_nan=False)
    return values, inverse, np.unique(x, return_counts=True, equal_nan=False)


def unique_array_api(x):
    counted, inverted, everything = np.unique_counts(x), np.unique_inverse(x), np.unique_all(x)
    return (tuple(counted), tuple(inverted), tuple(everything), counted.counts,
            inverted.inverse_indices.sum(), everything.indices)


@seed(20261207)
@SETTINGS
@given(arrays(), st.sampled_from(["cranelift", "eager"]))
def test_unique_with_return_inverse_matches_numpy(x, backend) -> None:
    """The inverse is an array of the graph, of `x`'s shape (NaNs one value, or each its own
    with `equal_nan=False`, as NumPy's)."""
    for fn in (unique_inverse, unique_everything, unique_nans_apart, unique_array_api):
        want = fn(np.copy(x))
        ember.reset()
        compiled = ember.compile(fn, backend=backend)
        compiled(np.copy(x))
        assert_same(compiled(x), want)
        assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]


# # ---- np.argwhere, np.extract, np.compress --------------------------------------------------


def where_and_what(x):
    return np.argwhere(x), np.argwhere(x > 0), np.extract(x > 0, x), np.extract(x, x * 2)


def compressed(x):
    rows = np.compress(x[:, 0] > 0, x, axis=0)
    return rows, np.compress(x.ravel() > 0, x), np.compress((x > 1)[0], x[0]), len(rows)


def located(x):
    places = np.argwhere(x < 0)
    return places, places.shape, len(np.argwhere(x)), np.argwhere(x.T).dtype


@seed(20261211)
@SETTINGS
@given(arrays(), st.sampled_from(["cranelift", "eager"]))
def test_argwhere_extract_and_compress_match_numpy(x, backend) -> None:
    """The chosen rows at the front of a buffer, their count its length (any shape, dtype
    and condition type: NaN is nonzero as NumPy counts it)."""
    fns = [where_and_what, located] + [compressed] * (x.ndim == 2 and x.size > 0)
    if not x.size:
        return
    for fn in fns:
        want = fn(np.copy(x))
        ember.reset()
        compiled = ember.compile(fn, backend=backend)
        compiled(np.copy(x))
        assert_same(compiled(x), want)
        assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]


def test_compress_and_extract_with_other_lengths_match_numpy() -> None:
    """A shorter condition chooses among the first places (NumPy's truncation); a longer
    one, another axis or a 0-d array run as NumPy, with its errors."""
    x = np.arange(12.0).reshape(3, 4)

    def shorter(x):
        return np.compress([True, False, True], x), np.extract(x[0] > 1, x)

    want = shorter(x)
    got, stats = _compiled(shorter, x)
    assert_same(got, want)
    for fn in (lambda x: np.compress(np.ones(5, bool), x, axis=0),
               lambda x: np.compress(x[0] > 1, x, axis=1), lambda x: np.argwhere(x[0, 0])):
        try:
            want = fn(x)
        except Exception as exc:  # noqa: BLE001 -- the compiled function must raise it too
            with pytest.raises(type(exc)):
                ember.compile(fn)(x)
            continue
        assert_same(ember.compile(fn)(x), want)


# ---- x[mask][i] ---------------------------------------------------------------------------


def first_selected(x, t, i):
    return x[x > t][i]


@seed(20261210)
@SETTINGS
@given(arrays(), st.integers(-4, 4))
def test_an_element_of_a_selection(x, i) -> None:
    if x.dtype == np.bool_:
        x = x.astype(np.int64)
    try:
        first_selected(x, 0, i)
    except IndexError:
        ember.reset()
        compiled = ember.compile(first_selected)
        with pytest.raises(IndexError):
            compiled(x, 0, i)
        return
    _same_no_break(first_selected, x, 0, i)


# ---- np.lexsort ---------------------------------------------------------------------------


def lexsort_keys(a, b, c):
    return np.lexsort((a, b)), np.lexsort((a, b, c)), np.lexsort((c,)), np.lexsort(
        np.stack([a, b]))


@seed(20261211)
@SETTINGS
@given(st.integers(1, 12), st.integers(0, 2**16), st.booleans())
def test_lexsort_matches_numpy(n, draw_seed, with_nan) -> None:
    rng = np.random.default_rng(draw_seed)
    a, b = rng.integers(0, 3, n).astype(np.float64), rng.integers(0, 3, n).astype(np.float64)
    if with_nan:
        b[rng.integers(0, n)] = np.nan
    c = rng.integers(-2, 2, n)
    _same_no_break(lexsort_keys, a, b, c)


# ---- np.interp ----------------------------------------------------------------------------


def interp_plain(x, xp, fp):
    return np.interp(x, xp, fp)


def interp_ends(x, xp, fp):
    return np.interp(x, xp, fp, left=-7.0, right=np.float64(9.5)), np.interp(x[0], xp, fp)


@st.composite
def samples(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    n = draw(st.integers(2, 8))
    xp = np.sort(rng.integers(-4, 5, n).astype(np.float64))  # repeated points too
    fp = rng.standard_normal(n)
    if draw(st.booleans()):
        fp[rng.integers(0, n)] = draw(st.sampled_from([np.inf, -np.inf, np.nan]))
    m = draw(st.integers(1, 10))
    x = np.concatenate([rng.uniform(-6, 6, m), xp[rng.integers(0, n, 2)], [np.nan]])
    return x, xp, fp


@seed(20261212)
@SETTINGS
@given(samples())
def test_interp_matches_numpy(case) -> None:
    x, xp, fp = case
    with np.errstate(all="ignore"):
        _same_no_break(interp_plain, x, xp, fp, rtol=0, atol=0)
        _same_no_break(interp_ends, x, xp, fp, rtol=0, atol=0)


def test_interp_of_unordered_points_is_numpys() -> None:
    xp = np.array([0.0, 3.0, 1.0, 2.0])
    fp = np.array([1.0, -2.0, 5.0, 0.5])
    x = np.linspace(-1, 4, 11)
    got, _ = _compiled(interp_plain, x, xp, fp)
    assert_same(got, interp_plain(x, xp, fp), rtol=0, atol=0)


# ---- searches from the last position (increasing values) and bisections -------------------


def searches(a, v):
    return (np.searchsorted(a, v), np.searchsorted(a, v, side="right"),
            np.digitize(v, a), np.digitize(v, a, right=True))


@seed(20261213)
@SETTINGS
@given(st.integers(1, 9), st.integers(1, 12), st.integers(0, 2**16), st.booleans(),
       st.booleans())
def test_searches_of_increasing_and_other_values(n, m, draw_seed, increasing, nan) -> None:
    rng = np.random.default_rng(draw_seed)
    a = np.sort(rng.integers(-3, 4, n).astype(np.float64))
    v = rng.integers(-5, 6, m).astype(np.float64)
    if nan:
        v[-1] = np.nan
        a[-1] = np.nan  # sorted: NaN last
    if increasing:
        v = np.sort(v)
    _same_no_break(searches, a, v)


# ---- a carried array whose shape changes on every trip ------------------------------------


def shrinking(values, steps, p):
    for _ in range(steps):
        values = 0.99 * (p * values[:-1] + (1 - p) * values[1:])
    return values


def growing(values, steps):
    for _ in range(steps):
        values = np.concatenate([values, values[-1:] * 0.5])
    return values.sum()


@seed(20261214)
@SETTINGS
@given(st.integers(9, 60), st.integers(0, 2**16))
def test_a_carried_array_that_shrinks_unrolls(steps, draw_seed) -> None:
    values = np.random.default_rng(draw_seed).random(steps + 3)
    _same_no_break(shrinking, values, steps, 0.25, rtol=0, atol=0)
    _same_no_break(growing, values, steps)


def test_a_shrinking_loop_past_the_op_limit_runs_in_python() -> None:
    values = np.random.default_rng(0).random(3000)
    got, stats = _compiled(shrinking, values, 2990, 0.5)
    assert_same(got, shrinking(values, 2990, 0.5))
    assert stats["break_reasons"] and all("ops unrolled" in r for r in stats["break_reasons"])


def test_interp_of_many_values_is_left_to_numpy() -> None:
    xp = np.linspace(0.0, 1.0, 50)
    fp = np.cos(xp)
    x = np.linspace(-0.1, 1.1, 2000)
    got, stats = _compiled(interp_plain, x, xp, fp)
    assert_same(got, interp_plain(x, xp, fp), rtol=0, atol=0)
    assert any("np.interp of more than" in r for r in stats["break_reasons"])


# ---- np.nonzero's indices handed to Python ------------------------------------------------


def nonzero_indices(x):
    found = np.nonzero(x)
    return found, len(found[0]), np.where(x > 0)


@seed(20261215)
@SETTINGS
@given(arrays())
def test_nonzero_indices_returned(x) -> None:
    got = _same_no_break(nonzero_indices, x)
    want = nonzero_indices(x)
    if x.ndim > 1:  # NumPy's indices are views of one array
        assert (got[0][0].base is got[0][1].base) == (want[0][0].base is want[0][1].base)
