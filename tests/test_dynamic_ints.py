"""Int arguments given as sizes (`np.zeros(n)`, `np.arange(n)`, `range(n)` over an array of
`n` elements): after a call with another `n`, the int is a symbol of its own
(`Tracer.int_symbol`), guarded on its least size, so that every later `n` of 2 or more runs
the same compiled code; 0 and 1 are specialised, and a negative size raises NumPy's error."""

import numpy as np
import pytest

import ember
from conftest import assert_same
from test_dynamic_rows import check_sizes


def logistic(r, n):
    xs = np.empty(n, dtype=np.float32)
    x = np.float32(0.25)
    for i in range(n):
        x = r * x * (1 - x)
        xs[i] = x
    return xs


def fib_mod(n, m):
    out = np.zeros(n, dtype=np.int64)
    a, b = 0, 1
    for i in range(n):
        out[i] = a
        a, b = b, (a + b) % m
    return out


def ramp(x, n):
    return np.arange(n) * 0.5 + x.sum()


def scaled_ramp(n):
    return np.arange(n) / n


def padded_ones(x, n):
    out = np.ones(n + 2)
    out[1:-1] *= x.mean()
    return out


def grid(n):
    return np.zeros((n, n)) + np.eye(n) * 2.0


def full_rows(v, n):
    return np.full((2, n), v).cumsum(axis=1)


def by_keyword(n, step):
    acc = np.zeros(shape=n)
    for i in range(1, n):
        acc[i] = acc[i - 1] + step
    return acc


def unit_spacing(n):
    return np.linspace(0.0, 1.0, n) ** 2


def squares_then_sum(n):
    out = np.empty(n)
    for i in range(n):
        out[i] = i * i
    return out.sum(), out


def integrate(x0, v0, dt, steps):
    x, v = x0, v0
    out = np.empty(steps)
    for i in range(steps):
        a = -x * 4.0
        x, v = x + dt * v, v + dt * a
        out[i] = x
    return out


def _r(n, rng):
    return (np.float32(3.7), n)


INTS = [(logistic, _r), (fib_mod, lambda n, rng: (n, 7)),
        (ramp, lambda n, rng: (rng.random(5), n)), (scaled_ramp, lambda n, rng: (n,)),
        (padded_ones, lambda n, rng: (rng.random(3), n)), (grid, lambda n, rng: (n,)),
        (full_rows, lambda n, rng: (1.5, n)), (by_keyword, lambda n, rng: (n, 0.25)),
        (squares_then_sum, lambda n, rng: (n,)),
        (integrate, lambda n, rng: (1.0, 0.0, 0.01, 40 * n))]
IDS = [f.__name__ for f, _ in INTS]
SIZES = (3, 4, 5, 2, 7, 30, 11, 2, 64)


@pytest.fixture(autouse=True)
def _fresh():
    ember.reset()
    yield
    ember.reset()


@pytest.mark.parametrize("fn, make", INTS, ids=IDS)
@pytest.mark.parametrize("backend", ["cranelift", "eager"])
def test_int_sizes_compile_twice_for_every_size(fn, make, backend):
    stats = check_sizes(fn, make, SIZES, backend=backend)
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]


@pytest.mark.parametrize("fn, make", INTS, ids=IDS)
def test_int_sizes_zero_one_and_negative_as_numpy(fn, make):
    compiled = ember.compile(fn, backend="cranelift")
    for n in (4, 5, 0, 1, 6, 1, 0, -1, 2, -3, 9):
        args = make(n, np.random.default_rng(abs(n)))
        try:
            want = fn(*args)
        except ValueError:  # a negative size
            with pytest.raises(ValueError):
                compiled(*args)
            continue
        assert_same(compiled(*args), want, rtol=1e-6, path=f"{fn.__name__} at {n}")


def test_linspace_count_takes_three_or_more_after_one_static_two():
    # `np.linspace(a, b, n)` divides by `n - 1`, a size that must be 2 or more: a count of 2
    # compiles on its own, every count of 3 or more runs the symbolic graph.
    stats = check_sizes(unit_spacing, lambda n, rng: (n,), (3, 4, 5, 2, 7, 30, 11, 2, 64, 0, 1))
    assert stats["captures"] <= 5, stats["recompile_reasons"]
    assert stats["entry_fallbacks"] == 0
