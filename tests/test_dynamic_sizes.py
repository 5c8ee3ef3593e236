"""Sizes of symbolic dims read as Python ints (`x.shape[0]`, `len(x)`, `x.size`,
`r, c = x.shape`): where they are data (a mean written as a sum over a count, a loss over the
batch) they reach the graph as run-time scalars, so a function called with many batch sizes
still compiles twice; where they are structure (a reshape size, a `range` bound, a shape passed
to `np.zeros`) they are guarded constants, as before. Every call equals NumPy: values, dtypes,
types of the results (a Python int stays a Python int)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same

BATCHES = (4, 5, 6, 7, 8, 9, 10, 11, 12, 40)


def _args(n: int, dtype=np.float64) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(n)
    return (rng.standard_normal((n, 3)).astype(dtype),
            rng.standard_normal((n, 3)).astype(dtype))


def mean_by_shape(x, y):
    return x.sum(axis=0) / x.shape[0]


def mean_by_len(x, y):
    return (x * y).sum() / len(x)


def mse_loss(x, y):
    n = x.shape[0]
    return ((x - y) ** 2).sum() / n, n


def by_size(x, y):
    return x.sum() / x.size + y.mean() * x.shape[1]


def unpacked(x, y):
    rows, cols = x.shape
    return x * (rows * cols) - y / rows


def float32_count(x, y):
    return x.sum(axis=1) / x.shape[0]  # a Python int: weak, the result stays float32


def batch_scaled(x, y):
    return x * (2.0 * len(y) - 1), len(x) + 1  # a run-time int returned as a Python int


DATA_USES = [mean_by_shape, mean_by_len, mse_loss, by_size, unpacked, batch_scaled]


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
@pytest.mark.parametrize("fn", DATA_USES, ids=lambda f: f.__name__)
def test_sizes_used_as_data_keep_the_graph_symbolic(fn, backend):
    ember.reset()
    compiled = ember.compile(fn, backend=backend)
    for n in BATCHES:
        x, y = _args(n)
        got, want = compiled(x, y), fn(x, y)
        assert type(got) is type(want)
        assert_same(got, want, rtol=1e-12)
    stats = ember.stats()
    assert stats["compiles"] == 2 and stats["graph_breaks"] == 0, stats


def test_float32_stays_float32_over_a_run_time_count():
    ember.reset()
    compiled = ember.compile(float32_count)
    for n in BATCHES:
        x, y = _args(n, np.float32)
        got, want = compiled(x, y), float32_count(x, y)
        assert got.dtype == want.dtype == np.float32
        assert_same(got, want, rtol=1e-6)
    assert ember.stats()["compiles"] == 2


def reshaped(x, y):
    n = x.shape[0]
    return x.reshape(n, -1, 1) + y.reshape(n * 3, 1).sum()


def looped(x, y):
    total = 0.0
    for i in range(len(x)):
        total += x[i, 0] * y[i, 1]
    return total


def zeros_of_shape(x, y):
    return np.zeros(x.shape) + x * x.shape[0]


@pytest.mark.parametrize("fn", [reshaped, looped, zeros_of_shape], ids=lambda f: f.__name__)
def test_sizes_used_as_structure_are_specialised_and_right(fn):
    ember.reset()
    compiled = ember.compile(fn)
    for n in BATCHES[:5] + BATCHES[:2]:
        x, y = _args(n)
        got, want = compiled(x, y), fn(x, y)
        assert type(got) is type(want)
        assert_same(got, want, rtol=1e-12)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0 and stats["compiles"] <= 6, stats
    assert stats["cache_hits"] >= 2  # sizes seen before are answered by their entries


def test_a_size_read_in_a_loop_body_still_compiles():
    def normalised_rows(x):
        out = np.zeros_like(x)
        for i in range(4):
            out[i] = x[i] / x.shape[1]
        return out

    ember.reset()
    compiled = ember.compile(normalised_rows)
    for n in (4, 5, 6):
        x = _args(n)[0]
        assert_same(compiled(x), normalised_rows(x), rtol=1e-12)


@pytest.mark.parametrize("fn", [mean_by_shape, mean_by_len, float32_count],
                         ids=lambda f: f.__name__)
def test_symbolic_entries_reading_sizes_take_the_native_fast_path(fn):
    """A size read as it is goes in natively; one computed in Python (`x.size`, `rows * cols`)
    is computed by the entry (`by_size`, `unpacked`: the path through the frame hook)."""
    ember.reset()
    compiled = ember.compile(fn)
    for n in BATCHES[:3]:
        compiled(*_args(n))
    for n in BATCHES[3:]:
        x, y = _args(n)
        before = ember.stats()["native_calls"]
        got = compiled(x, y)
        assert ember.stats()["native_calls"] == before + 1  # sizes read natively as ints
        assert_same(got, fn(x, y), rtol=1e-12)
    assert ember.stats()["compiles"] == 2


def _relax_all_pairs(path):
    for k in range(path.shape[0]):
        path[:] = np.minimum(path[:], np.add.outer(path[:, k], path[k, :]))


@pytest.mark.parametrize("fn, make", [
    (_relax_all_pairs, lambda n: (np.random.default_rng(n).integers(1, 50, (n, n)),)),
])
def test_loops_refused_under_run_time_sizes_are_captured_static(fn, make):
    """A loop a capture with symbolic sizes (or run-time scalars) cannot make one loop op is
    captured with them static, not left to plain Python, as each new size arrives."""
    ember.reset()
    compiled = ember.compile(fn)
    for n in (4, 6, 9, 5):
        want_args, got_args = make(n), make(n)
        want = fn(*want_args)
        got = compiled(*got_args)
        if want is not None:
            np.testing.assert_allclose(got, want, rtol=1e-12)
        for g, w in zip(got_args, want_args, strict=True):
            np.testing.assert_array_equal(g, w)
    stats = ember.stats()
    assert stats["failed_frames"] == 0 and stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["compiles"] == 4
