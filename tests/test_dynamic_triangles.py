"""`np.tril`, `np.triu` and `np.fill_diagonal` of arrays with symbolic sizes: masks built
from aranges and `eye` of the symbols, so a function called with many sizes compiles twice
(and once more for each of sizes 0 and 1), with NumPy's results and in-place updates."""

import numpy as np
import pytest

import ember
from test_dynamic_rows import check_sizes


def lower(x):
    return np.tril(x)


def bands(x):
    return np.triu(x, 1) + np.tril(x, -2) * 2.0


def stacked_rect(x):
    return np.tril(x, 1).sum(axis=0)


def of_vector(v):
    return np.triu(v)


def gram_lower(a):
    g = np.tril(a @ a.T)
    return g / (np.abs(g).sum() + 1.0)


def zero_diagonal(x):
    y = x.copy()
    np.fill_diagonal(y, 0.0)
    return y


def int_diagonal(x):
    np.fill_diagonal(x, 2.7)  # truncated to 2, as NumPy assigns
    return x.sum()


def tall_diagonal(x, v):
    np.fill_diagonal(x, v)
    return x


def square_wrap(x):
    np.fill_diagonal(x, -1, wrap=True)
    return x * 2


CASES = [
    (lower, lambda n, rng: (rng.random((n, n)),)),
    (bands, lambda n, rng: (rng.random((n, n + 2)),)),
    (stacked_rect, lambda n, rng: (rng.random((3, n, n + 1)),)),
    (of_vector, lambda n, rng: (rng.random(n),)),
    (gram_lower, lambda n, rng: (rng.random((n, 3)),)),
    (zero_diagonal, lambda n, rng: (rng.random((n, n)),)),
    (int_diagonal, lambda n, rng: (rng.integers(0, 9, (n, n)),)),
    (tall_diagonal, lambda n, rng: (rng.random((2 * n, n)), 3.5)),
    (square_wrap, lambda n, rng: (rng.random((n, n)),)),
]
IDS = [f.__name__ for f, _ in CASES]


@pytest.fixture(autouse=True)
def _fresh():
    ember.reset()
    yield
    ember.reset()


@pytest.mark.parametrize("fn, make", CASES, ids=IDS)
@pytest.mark.parametrize("backend", ["cranelift", "eager"])
def test_triangles_compile_twice_for_every_size(fn, make, backend):
    stats = check_sizes(fn, make, (3, 4, 5, 2, 7, 30, 11, 2), backend=backend)
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]


@pytest.mark.parametrize("fn, make", CASES, ids=IDS)
def test_triangles_at_sizes_zero_and_one(fn, make):
    check_sizes(fn, make, (4, 5, 0, 1, 6, 1, 0, 2))


def test_fill_diagonal_of_a_scalar_out_of_range_raises_as_numpy():
    def fill(x):
        np.fill_diagonal(x, 300)
        return x

    compiled = ember.compile(fill, backend="cranelift")
    for n in (3, 4, 5):
        with pytest.raises(OverflowError):
            fill(np.zeros((n, n), np.int8))
        with pytest.raises(OverflowError):
            compiled(np.zeros((n, n), np.int8))
