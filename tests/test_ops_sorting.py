"""`np.sort`, `np.argsort` and `np.searchsorted` against NumPy on both backends: every axis,
NaNs last, ties (in NumPy's order exactly, for the stable and the default kind), empty
arrays, non-contiguous inputs. `test_sorts_numpy_order.py` checks every dtype and kind bit
for bit."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ops_compiled import BACKENDS, check
from test_ops_gather import DTYPES, data


def with_ties_and_nans(dtype: type, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 4, shape).astype(dtype)
    if np.dtype(dtype).kind == "f" and x.size:
        x.flat[:: 3] = np.nan
        x.flat[1:: 5] = -0.0
    return x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_stable_sort_and_argsort_on_every_axis(backend: str, dtype: type) -> None:
    x = with_ties_and_nans(dtype, (4, 5, 3))
    for axis in (0, 1, -1, None):
        check(lambda x, a=axis: np.sort(x, axis=a, kind="stable"), x, backend=backend,
              ops=("sort",))
        ember.reset()
        check(lambda x, a=axis: np.argsort(x, axis=a, stable=True), x, backend=backend,
              ops=("argsort",))
        ember.reset()
    check(lambda x: x.argsort(kind="stable") * 2, x[:, ::-2].T, backend=backend,
          ops=("argsort",))
    ember.reset()
    check(lambda x: np.sort(np.exp(x[::2]) + 1, axis=0), x.astype(np.float64),
          backend=backend, ops=("sort_default",))


@pytest.mark.parametrize("backend", BACKENDS)
def test_default_kind_gives_numpys_positions(backend: str) -> None:
    """NumPy's default argsort is not stable: tied values come out in its own order."""
    x = np.random.default_rng(3).integers(0, 100, 1000)
    got = ember.compile(lambda x: np.argsort(x), backend=backend)(x)
    np.testing.assert_array_equal(got, np.argsort(x))
    assert not np.array_equal(got, np.argsort(x, kind="stable"))  # ties do differ here
    x = with_ties_and_nans(np.float64, (3, 40))
    check(lambda x: np.argsort(x, axis=1), x, backend=backend, ops=("argsort_default",))
    assert ember.stats()["graph_breaks"] == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_sort_edge_cases(backend: str) -> None:
    check(lambda x: np.sort(x), np.zeros((3, 0)), backend=backend, ops=("sort_default",))
    ember.reset()
    check(lambda x: np.argsort(x, axis=0, kind="stable"), np.zeros((0, 2)), backend=backend,
          ops=("argsort",))
    ember.reset()
    check(lambda x: np.sort(x, axis=None), np.ones((3, 1)), backend=backend,
          ops=("sort_default",))
    ember.reset()
    check(lambda x: np.sort(x, axis=2), np.zeros((2, 2)), backend=backend)  # AxisError
    ember.reset()
    check(lambda x: np.sort(x, kind="bogus"), np.zeros(3), backend=backend)


def sort_in_place(x, y):
    x.sort()
    z = y * 2
    z.sort(axis=0, kind="stable")
    return z


@pytest.mark.parametrize("backend", BACKENDS)
def test_sort_method_sorts_in_place(backend: str) -> None:
    for dtype in DTYPES:
        check(sort_in_place, with_ties_and_nans(dtype, (3, 6)),
              with_ties_and_nans(dtype, (5, 2), seed=3), backend=backend,
              ops=("sort_default", "sort"))
        ember.reset()


def top_k(x):
    order = np.argsort(-x, kind="stable")[:3]
    return order, x[order]


@pytest.mark.parametrize("backend", BACKENDS)
def test_top_k(backend: str) -> None:
    check(top_k, data(np.float64, (20,)), backend=backend, ops=("argsort", "loop"))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(backend: str, side: str) -> None:
    for dtype in (np.float64, np.float32, np.int64, np.int32):
        a = np.sort(with_ties_and_nans(dtype, (11,)))
        v = with_ties_and_nans(dtype, (3, 4), seed=1)
        # Many values: the `if` choosing a merge (increasing values) or bisections.
        check(lambda a, v: np.searchsorted(a, v, side=side), a, v, backend=backend,
              ops=("if",))
        ember.reset()
        check(lambda a, v: a.searchsorted(v[0, 1], side=side), a, v, backend=backend)
        ember.reset()
    a = np.array([1.0, 2.0, 2.0, 3.0])
    for n in range(5):
        check(lambda a, v: np.searchsorted(a, v, side=side), a[:n], np.arange(5) * 0.75,
              backend=backend, ops=("if",) if n else ())
        ember.reset()
    check(lambda a, v: np.searchsorted(a, v + 1.5, side=side), a, 2, backend=backend)
    ember.reset()
    shuffled = with_ties_and_nans(np.float64, (9,), seed=4)
    check(lambda a, v: np.searchsorted(a, v, side=side, sorter=np.argsort(a)), shuffled,
          with_ties_and_nans(np.float64, (5,), seed=5), backend=backend, ops=("if",))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("right", [False, True])
def test_digitize(backend: str, right: bool) -> None:
    x = with_ties_and_nans(np.float64, (4, 5), seed=2)
    for bins in (np.array([-2.0, 0.0, 0.0, 1.5]), np.array([3.0, 1.0, 1.0, -1.0]),
                 np.array([1.0]), np.array([0.0, 2.0, 1.0]), np.array([2.0, 2.0, 2.0])):
        check(lambda x, b: np.digitize(x, b, right=right), x, bins, backend=backend,
              ops=("if",))
        ember.reset()
    check(lambda x, b: np.digitize(x[0, 0], b), x, np.arange(3.0), backend=backend)


@given(st.data())
def test_random_sorts_match_numpy(draw: st.DataObject) -> None:
    shape = tuple(draw.draw(st.lists(st.integers(1, 6), min_size=1, max_size=2)))
    dtype = draw.draw(st.sampled_from(DTYPES))
    x = with_ties_and_nans(dtype, shape, seed=draw.draw(st.integers(0, 100)))
    axis = draw.draw(st.integers(-len(shape), len(shape) - 1))
    backend = draw.draw(st.sampled_from(BACKENDS))
    ember.reset()
    check(lambda x: np.argsort(x, axis=axis, kind="stable"), x, backend=backend,
          ops=("argsort",))
    ember.reset()
    check(lambda x: np.sort(x, axis=axis), x, backend=backend, ops=("sort_default",))
    ember.reset()
    check(lambda x: np.argsort(x, axis=axis), x, backend=backend, ops=("argsort_default",))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sorted_values_keep_signed_zeros_in_numpys_order(backend: str, dtype: type) -> None:
    """Sorted values, bit for bit as NumPy's sort of each kind leaves them: zeros of either
    sign and NaNs of either sign in its order (the stable kind: their input order)."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal(997).astype(dtype)
    x[rng.integers(0, 997, 60)] = 0.0
    x[rng.integers(0, 997, 60)] = -0.0
    x[rng.integers(0, 997, 9)] = np.nan
    x[5] = -np.nan
    for kind in ("stable", None):
        want = np.sort(x, kind=kind)
        got = ember.compile(lambda v, k=kind: np.sort(v, kind=k), backend=backend)(x)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
