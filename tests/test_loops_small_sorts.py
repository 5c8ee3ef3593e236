"""`a.sort()` of a short 1-d array in a loop body (`capture/loops/small_sorts.py`): a network
of compare-exchanges on its elements, equal to NumPy's sort (NaNs last, infinities, every
integer dtype), in one native loop op."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import RecordingBackend
from hypothesis import given, seed, settings
from hypothesis import strategies as st


def medians(img, k):
    H, W = img.shape
    out = img.copy()
    window = np.empty(k * k, dtype=img.dtype)
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            n = 0
            for di in range(k):
                for dj in range(k):
                    window[n] = img[i + di, j + dj]
                    n += 1
            window.sort()
            out[i, j] = window[k * k // 2]
    return out, window


def sorted_rows(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        row = x[i].copy()
        row.sort()
        out[i] = row
    return out


def _ops(graph):
    for node in graph.nodes:
        yield node.op
        for key in ("body", "then", "else"):
            if key in node.attrs:
                yield from _ops(node.attrs[key])


def _compiled(fn, *args):
    ember.reset()
    recorder = RecordingBackend("cranelift")
    got = ember.compile(fn, backend=recorder)(*args)
    stats = ember.stats()
    assert stats["compiles"] == 1 and stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["region_recaptures"] == 0 and not stats["backend_fallbacks"], stats
    ops = list(_ops(recorder.graphs[0]))
    assert "loop" in ops and not {"sort", "sort_default"} & set(ops)  # in registers
    return got


def _same(got, want):
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)  # -0.0 beside 0.0: NumPy's order depends on the CPU


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint8, np.int16])
def test_median_filter_matches_numpy(dtype):
    r = np.random.default_rng(0)
    img = (r.random((14, 15)) * 20 - 10).astype(dtype)
    _same(_compiled(medians, img, 3), medians(img, 3))


@seed(10)
@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from([0.0, -0.0, 1.5, -2.0, np.nan, np.inf, -np.inf, 3.0]),
                min_size=20 * 7, max_size=20 * 7))
def test_nans_infinities_and_zeros_sort_as_numpy(values):
    x = np.array(values).reshape(20, 7)
    _same(_compiled(sorted_rows, x), sorted_rows(x))


def rolling_medians(x, w):
    out = np.empty(len(x) - w + 1, dtype=x.dtype)
    for i in range(len(x) - w + 1):
        window = np.sort(x[i:i + w])
        out[i] = window[w // 2]
    return out


def sorted_windows(x, w):
    out = np.empty((len(x) - w + 1, w), dtype=x.dtype)
    for i in range(len(x) - w + 1):
        out[i] = np.sort(x[i:i + w], axis=-1)
    return out


def sorted_rows_functional(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = np.sort(x[i])
    return out


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint8])
@pytest.mark.parametrize("w", [2, 3, 7, 12])
def test_np_sort_of_a_window_matches_numpy(dtype, w):
    """`np.sort(x[i:i + w])` is a vector sorted by the network: `window[w // 2]` picks an
    element, and stored whole it fills the row, with NumPy's values and dtype."""
    x = (np.random.default_rng(w).random(40) * 20 - 10).astype(dtype)
    _same(_compiled(rolling_medians, x, w), rolling_medians(x, w))
    _same(_compiled(sorted_windows, x, w), sorted_windows(x, w))


@seed(11)
@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from([0.0, -0.0, 1.5, -2.0, np.nan, np.inf, -np.inf, 3.0]),
                min_size=20 * 5, max_size=20 * 5))
def test_np_sort_of_rows_with_nans_and_infinities_as_numpy(values):
    x = np.array(values).reshape(20, 5)
    _same(_compiled(sorted_rows_functional, x), sorted_rows_functional(x))


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_np_sort_of_a_long_window_stays_a_sort(backend):
    """Past the network's length the window is sorted by the `sort` op, still like NumPy."""
    x = np.random.default_rng(3).random(60)
    got = ember.compile(rolling_medians, backend=backend)(x, 13)
    np.testing.assert_array_equal(got, rolling_medians(x, 13))
