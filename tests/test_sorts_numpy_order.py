"""Compiled sorts give NumPy's values and positions bit for bit, for every numeric dtype and
every `kind=`: NumPy's default kind is not stable, and compiled code runs NumPy's own sort
functions (python/ember/backends/numpy_loops.py: `register_sorts`, rust/codegen/src/sort.rs),
so tied values come out in NumPy's order. Ties (integers from small ranges), NaNs and zeros of
both signs, every axis, strided and reversed inputs, short and long lines."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from ember import _core
from ember.backends import numpy_loops
from hypothesis import given
from hypothesis import strategies as st

DTYPES = (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float32, np.float64)
# `kind=` / `stable=` as NumPy takes them: the default kind (also "quicksort" and
# "heapsort", which NumPy 2.4 runs as it) and the stable one.
KINDS = ({}, {"kind": "quicksort"}, {"kind": "heapsort"}, {"kind": "stable"},
         {"kind": "mergesort"}, {"stable": True}, {"stable": False}, {"kind": "Q"})


def tied(dtype: type, shape: tuple[int, ...], seed: int = 0, spread: int = 6) -> np.ndarray:
    """Values from a small range (many ties); floats with NaNs of both signs and -0.0."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, spread, shape).astype(dtype)
    if np.dtype(dtype).kind == "f" and x.size:
        x[rng.random(shape) < 0.1] = np.nan
        x[rng.random(shape) < 0.05] = -np.nan
        x[rng.random(shape) < 0.2] = -0.0
    return x


def same_bits(got: np.ndarray, want: np.ndarray) -> None:
    assert type(got) is np.ndarray
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape)
    assert got.tobytes() == want.tobytes(), (got, want)


def sorted_both_ways(x: np.ndarray, axis: int | None, kw: dict) -> None:
    """np.sort's and np.argsort's results compiled equal NumPy's, bit for bit."""
    for fn in (lambda v: np.sort(v, axis=axis, **kw), lambda v: np.argsort(v, axis=axis, **kw)):
        ember.reset()
        same_bits(ember.compile(fn)(x), fn(x))


def test_numpys_sort_functions_are_registered() -> None:
    registered = numpy_loops.register_sorts()
    assert len(registered) == len(DTYPES) * 2 * 2  # values and positions, two kinds each


def test_argsort_of_ties_gives_numpys_positions() -> None:
    """The default kind's ties in NumPy's order: a stable order differs here."""
    x = np.random.default_rng(0).integers(0, 100, 1000)
    before = _core.sort_loop_lines()
    got = ember.compile(lambda x: np.argsort(x))(x)
    same_bits(got, np.argsort(x))
    assert not np.array_equal(got, np.argsort(x, kind="stable"))
    assert _core.sort_loop_lines() > before  # NumPy's own function sorted it


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", KINDS, ids=str)
def test_every_dtype_and_kind(dtype: type, kw: dict) -> None:
    for n in (1, 17, 300):  # a sorting network, and partitions
        x = tied(dtype, (3, n), seed=n)
        for axis in (-1, 0, None):
            sorted_both_ways(x, axis, kw)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int16, np.uint8])
def test_long_lines(dtype: type) -> None:
    x = tied(dtype, (70_000,), spread=50)
    for kw in ({}, {"kind": "stable"}):
        sorted_both_ways(x, -1, kw)


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.bool_])
def test_strided_and_reversed_lines(dtype: type) -> None:
    x = tied(dtype, (40, 90), seed=4)
    for view in (x[:, ::2], x[::-3], x.T, x[::2, ::-1].T, np.asfortranarray(x)):
        for axis in (0, 1):
            for kw in ({}, {"kind": "stable"}):
                sorted_both_ways(view, axis, kw)


def test_many_short_rows() -> None:
    x = tied(np.float64, (2000, 16), seed=5)
    sorted_both_ways(x, 1, {})
    sorted_both_ways(x.T, 0, {})


def test_sort_method_in_place_in_numpys_order() -> None:
    def sort_both(x):
        y = x * 1.0
        y.sort()
        return y

    x = tied(np.float64, (5, 200), seed=6)
    same_bits(ember.compile(sort_both)(x), sort_both(x))


def test_fallback_sorts_stably_when_nothing_is_registered() -> None:
    """Without NumPy's functions, compiled sorts are ember's own stable sort: NumPy's stable
    result exactly, and a valid sort for the default kind."""
    x = tied(np.float64, (4, 300), seed=7)
    numpy_loops.unregister_sorts()
    try:
        before = _core.sort_loop_lines()
        sorted_both_ways(x, 1, {"kind": "stable"})
        ember.reset()
        order = ember.compile(lambda v: np.argsort(v, axis=1))(x)
        same_bits(np.take_along_axis(x, order, axis=1), np.sort(x, axis=1, kind="stable"))
        assert _core.sort_loop_lines() == before
    finally:
        numpy_loops.register_sorts()


@pytest.mark.parametrize("kw,error", [({"kind": "bogus"}, ValueError), ({"kind": 3}, TypeError),
                                      ({"kind": "stable", "stable": True}, ValueError)])
def test_bad_kinds_raise_as_numpy_does(kw: dict, error: type) -> None:
    x = np.arange(5.0)
    with pytest.raises(error) as want:
        np.sort(x, **kw)
    with pytest.raises(error) as got:
        ember.compile(lambda v: np.sort(v, **kw))(x)
    assert str(got.value) == str(want.value)


def test_family_built_on_sorting() -> None:
    """median, percentile, unique (with and without indices and counts) and lexsort."""
    x = tied(np.float64, (500,), seed=8, spread=40)
    x[x != x] = 1.5  # no NaN: NumPy's median of NaN data is NaN, checked elsewhere
    ints = tied(np.int64, (500,), seed=9, spread=40)

    def family(x, ints):
        return (np.median(x), np.percentile(x, [5.0, 50.0, 95.0]), np.unique(x),
                np.unique(ints, return_counts=True), np.unique(x, return_index=True),
                np.lexsort((ints, x)))

    got, want = ember.compile(family)(x, ints), family(x, ints)
    for g, w in zip(got, want, strict=True):
        for a, b in zip(g if isinstance(w, tuple) else (g,), w if isinstance(w, tuple) else (w,),
                        strict=True):
            same_bits(np.asarray(a), np.asarray(b))
    assert ember.stats()["graph_breaks"] == 0


@given(st.data())
def test_random_sorts_bit_for_bit(draw: st.DataObject) -> None:
    shape = tuple(draw.draw(st.lists(st.integers(1, 40), min_size=1, max_size=3)))
    dtype = draw.draw(st.sampled_from(DTYPES))
    x = tied(dtype, shape, seed=draw.draw(st.integers(0, 1000)),
             spread=draw.draw(st.sampled_from([2, 6, 1000])))
    axis = draw.draw(st.sampled_from([None, *range(-len(shape), len(shape))]))
    if draw.draw(st.booleans()) and x.ndim > 1:
        x = x.swapaxes(0, -1)[::-1]
    sorted_both_ways(x, axis, draw.draw(st.sampled_from(KINDS)))
