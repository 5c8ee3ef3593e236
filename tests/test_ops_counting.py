"""`np.bincount`, `np.histogram` and `ufunc.outer` against NumPy on both backends: NumPy's bin
of every value (edges included, values outside the range dropped), weights, density,
counts past `minlength` (the frame reruns in NumPy), NumPy's errors."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ops_compiled import BACKENDS, check
from test_ops_gather import data


@pytest.mark.parametrize("backend", BACKENDS)
def test_bincount_with_minlength_and_weights(backend: str) -> None:
    for dtype in (np.int64, np.int32, np.bool_):
        x = np.array([0, 3, 3, 1, 0, 3], dtype)
        check(lambda x: np.bincount(x, minlength=5), x, backend=backend)
        ember.reset()
    x = np.array([0, 3, 3, 1, 0, 3])
    for w in (data(np.float64, (6,)), data(np.float32, (6,)), np.arange(6)):
        check(lambda x, w: np.bincount(x, weights=w, minlength=4), x, w, backend=backend)
        ember.reset()
    check(lambda x: np.bincount(x[:0], minlength=2), x, backend=backend, ops=())


@pytest.mark.parametrize("backend", BACKENDS)
def test_bincount_past_minlength_or_negative_reruns_in_numpy(backend: str) -> None:
    compiled = ember.compile(lambda x: np.bincount(x, minlength=3), backend=backend)
    np.testing.assert_array_equal(compiled(np.array([0, 2])), [1, 0, 1])
    np.testing.assert_array_equal(compiled(np.array([0, 5])), [1, 0, 0, 0, 0, 1])
    with pytest.raises(ValueError, match="must have no negative elements"):
        compiled(np.array([0, -1]))
    assert ember.stats()["entry_fallbacks"] == 2
    check(lambda x: np.bincount(x, minlength=3), np.ones(2), backend=backend)  # TypeError


def test_small_integer_counts_compile_natively() -> None:
    x = np.array([0, 3, 3, 1], np.uint8)
    check(lambda x: np.bincount(x, minlength=5), x, backend="eager")
    ember.reset()
    got = ember.compile(lambda x: np.bincount(x, minlength=5) + 1)(x)
    np.testing.assert_array_equal(got, np.bincount(x, minlength=5) + 1)
    assert ember.stats()["region_recaptures"] == 0
    assert ember.stats()["graph_breaks"] == 0


def histogram_of(bins, range_, **kwargs):
    return lambda x: np.histogram(x, bins=bins, range=range_, **kwargs)


@pytest.mark.parametrize("backend", BACKENDS)
def test_histogram_bins_match_numpy(backend: str) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(500) * 3
    x[:40] = np.linspace(-2, 2, 40)  # values on the edges of the bins
    x[40:45] = [np.nan, np.inf, -np.inf, 2.0, -2.0]
    for dtype in (np.float64, np.float32, np.int64, np.int32):
        xs = x.astype(dtype) if dtype in (np.float64, np.float32) else \
            np.nan_to_num(x, posinf=9, neginf=-9).astype(dtype)
        for bins, range_ in ((10, (-2, 2)), (7, (-2.5, 3.1)), (1, (0, 0)), (33, (-3, 2))):
            check(histogram_of(bins, range_), xs, backend=backend)
            ember.reset()
    x2 = x.reshape(20, 25)[:, ::2]
    check(histogram_of(5, (-1, 1)), x2, backend=backend)
    ember.reset()
    check(histogram_of(4, (-1, 1), density=True), x2, backend=backend)
    ember.reset()
    w = rng.random((20, 13)).astype(np.float32)
    check(lambda x, w: np.histogram(x, 6, (-2, 2), weights=w), x2, w, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_histogram_range_from_the_data(backend: str) -> None:
    rng = np.random.default_rng(1)
    for dtype in (np.float64, np.float32, np.int64, np.int32):
        x = (rng.standard_normal(300) * 5).astype(dtype)
        for bins in (1, 7, 64):
            check(lambda x, b=bins: np.histogram(x, bins=b), x, backend=backend)
            ember.reset()
        check(lambda x: np.histogram(x[::3].reshape(10, 10)), x, backend=backend)
        ember.reset()
        check(lambda x: np.histogram(x[:5] * 0 + 3), x, backend=backend)  # min == max
        ember.reset()
    check(lambda x: np.histogram(x), np.zeros(0), backend=backend, ops=())  # range (0, 1)
    ember.reset()
    w = rng.random(300)
    check(lambda x, w: np.histogram(x, 5, weights=w, density=True), x, w, backend=backend)
    ember.reset()
    tiny = np.array([1.0, 1.0 + 2e-16, 1.0], np.float64)
    check(lambda x: np.histogram(x, bins=30), tiny, backend=backend)  # too many bins
    for bad in (np.inf, np.nan):
        x = rng.standard_normal(20)
        x[3] = bad
        ember.reset()
        check(lambda x: np.histogram(x), x, backend=backend)  # NumPy's ValueError


@pytest.mark.parametrize("backend", BACKENDS)
def test_histogram_errors_are_numpys(backend: str) -> None:
    x = data(np.float64, (5,))
    check(histogram_of(3, (2, 1)), x, backend=backend)
    ember.reset()
    check(histogram_of(3, (0, np.inf)), x, backend=backend)
    ember.reset()
    check(histogram_of(0, (0, 1)), x, backend=backend)
    ember.reset()
    check(histogram_of(2, (0, 1e-300)), x.astype(np.float32), backend=backend)



@pytest.mark.parametrize("backend", BACKENDS)
def test_ufunc_outer(backend: str) -> None:
    a = data(np.float32, (3,))
    b = data(np.float64, (2, 4), seed=1)
    for name in ("add", "subtract", "multiply", "maximum", "less"):
        check(lambda a, b, n=name: getattr(np, n).outer(a, b), a, b, backend=backend,
              ops=())
        ember.reset()
    check(lambda a: np.multiply.outer(a, 2), a, backend=backend, ops=())
    ember.reset()
    check(lambda a: np.add.outer(a[0], a), a, backend=backend, ops=())


def k_means_step(points, centers):
    d = ((points[:, None, :] - centers[None, :, :]) ** 2).sum(axis=-1)
    labels = np.argmin(d, axis=1)
    counts = np.bincount(labels, minlength=centers.shape[0])
    sums = np.zeros_like(centers)
    np.add.at(sums, labels, points)
    return labels, counts, sums / np.maximum(counts, 1)[:, None]


@pytest.mark.parametrize("backend", BACKENDS)
def test_k_means_assignment(backend: str) -> None:
    points = data(np.float64, (40, 3))
    centers = points[:4].copy()
    check(k_means_step, points, centers, backend=backend)


@given(st.data())
def test_random_histograms_match_numpy(draw: st.DataObject) -> None:
    n = draw.draw(st.integers(0, 30))
    values = draw.draw(st.lists(st.floats(-5, 5, width=32), min_size=n, max_size=n))
    dtype = draw.draw(st.sampled_from([np.float64, np.float32]))
    x = np.array(values, dtype)
    lo = draw.draw(st.floats(-5, 4))
    hi = lo + draw.draw(st.floats(0, 5))
    bins = draw.draw(st.integers(1, 12))
    ember.reset()
    check(histogram_of(bins, (lo, hi)), x, backend=draw.draw(st.sampled_from(BACKENDS)))
