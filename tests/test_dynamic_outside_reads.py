"""Symbolic sizes with numbers read from outside the frame's locals inside loop bodies (an
attribute of a parameters object, a namedtuple's field, a module global): each compiles at
most twice over any number of sizes, gives NumPy's results, and a shape mismatch raises
NumPy's exception."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pytest

import ember
from test_dynamic_rows import check_sizes

DECAY = 0.75
STEPS = 3


@dataclass
class Rates:
    alpha: float
    beta: float
    steps: int


class Coeffs(NamedTuple):
    gain: float
    leak: float


def decay_with_attributes(x, p):
    y = np.empty_like(x)
    y[0] = x[0]
    for t in range(1, len(x)):
        y[t] = p.alpha * x[t] + p.beta * y[t - 1]
    return y


def field_with_attributes(u, p):
    for _ in range(p.steps):
        u = u + p.alpha * (np.roll(u, 1, axis=0) - u) - p.beta * u * u
    return u


def leaky_with_namedtuple(x, c):
    total = 0.0
    for t in range(x.shape[0]):
        total = c.leak * total + c.gain * x[t]
    return total


def relax_with_globals(a):
    for _ in range(STEPS):
        a = DECAY * a + (1.0 - DECAY) * a.mean(axis=0)
    return a


def scale_then_sum(x, p):
    acc = np.zeros(x.shape[1])
    for row in x:
        acc = acc * p.beta + row * p.alpha
    return acc


OUTSIDE = [
    (decay_with_attributes, lambda n, rng: (rng.random(n), Rates(0.3, 0.6, 2))),
    (field_with_attributes, lambda n, rng: (rng.random((n, n + 1)), Rates(0.1, 0.05, 4))),
    (leaky_with_namedtuple, lambda n, rng: (rng.random(n), Coeffs(0.5, 0.9))),
    (relax_with_globals, lambda n, rng: (rng.random((n, 3)),)),
    (scale_then_sum, lambda n, rng: (rng.random((n, 4)), Rates(2.0, 0.5, 1))),
]
IDS = [f.__name__ for f, _ in OUTSIDE]


@pytest.fixture(autouse=True)
def _fresh():
    ember.reset()
    yield
    ember.reset()


@pytest.mark.parametrize("fn, make", OUTSIDE, ids=IDS)
@pytest.mark.parametrize("backend", ["cranelift", "eager"])
def test_numbers_read_outside_the_locals_in_loops_compile_twice(fn, make, backend):
    stats = check_sizes(fn, make, (5, 9, 14, 30, 6), backend=backend)
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]


@pytest.mark.parametrize("fn, make", OUTSIDE, ids=IDS)
def test_numbers_read_outside_the_locals_at_sizes_zero_and_one(fn, make):
    check_sizes(fn, make, (5, 9, 2, 1, 0, 7))


def test_a_changed_attribute_is_read_again():
    compiled = ember.compile(decay_with_attributes)
    for n, alpha in ((5, 0.3), (9, 0.3), (12, 0.8), (7, -1.5)):
        x = np.random.default_rng(n).random(n)
        np.testing.assert_allclose(compiled(x, Rates(alpha, 0.6, 1)),
                                   decay_with_attributes(x, Rates(alpha, 0.6, 1)))


def attribute_counted_in_loop(x, p):
    for t in range(1, len(x)):
        x[t] += p.alpha * x[t - 1]
        p.alpha = p.alpha * 0.5
    return x


def test_an_attribute_the_loop_rebinds_ends_as_numpy_leaves_it():
    compiled = ember.compile(attribute_counted_in_loop)
    for n in (5, 9, 13):
        x, p = np.random.default_rng(n).random(n), Rates(0.8, 0.0, 1)
        y, q = x.copy(), Rates(0.8, 0.0, 1)
        np.testing.assert_allclose(compiled(x, p), attribute_counted_in_loop(y, q))
        np.testing.assert_allclose(x, y)
        assert p.alpha == q.alpha


def shapes_meet(x, y, p):
    out = np.empty_like(x)
    for t in range(len(x)):
        out[t] = p.alpha * x[t] + y[t]
    return out + y


def test_a_shape_mismatch_raises_numpys_error():
    compiled = ember.compile(shapes_meet)
    p = Rates(0.5, 0.0, 1)
    for n in (4, 7, 11):
        x, y = np.arange(n, dtype=float), np.ones(n)
        np.testing.assert_allclose(compiled(x, y, p), shapes_meet(x, y, p))
    x, y = np.arange(6, dtype=float), np.ones(5)
    with pytest.raises(IndexError):
        shapes_meet(x, y, p)
    with pytest.raises(IndexError):
        compiled(x, y, p)
