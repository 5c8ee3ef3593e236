"""Repeated calls of one compiled graph on arrays of changing layouts (`rust/py/src/hot.rs`):
a call on the last call's dtypes, shapes and strides repeats what that call worked out, any
other takes the full path. Sequences of calls alternate C and Fortran order, strided, reversed,
broadcast (zero strides), dims of one element with unusual strides, views of one base passed
twice, Python scalars, and held or dropped results; every call equals NumPy (values, dtype,
layout) and leaves earlier results untouched."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same

SHAPE = (6, 5)


def _layouts(rng: np.random.Generator) -> list:
    base = rng.standard_normal((12, 10))
    c = np.ascontiguousarray(base[:6, :5])
    unit_row = rng.standard_normal((1, 5))
    return [
        c,
        np.asfortranarray(c),
        base[::2, ::2],
        base[:6, :5][::-1],
        base[:6, :5][:, ::-1],
        np.broadcast_to(rng.standard_normal(5), SHAPE),
        np.broadcast_to(rng.standard_normal((6, 1)), SHAPE),
        np.broadcast_to(unit_row, SHAPE),
        np.broadcast_to(base[:1, :5], SHAPE),  # the same values as a row of base, other strides
        c.copy(),
        base[1:7, 2:7],
    ]


def add_scaled(x, y):
    return x * 2.0 + y


def reductions(x, y):
    return x.sum(axis=0), (x * y).max(axis=1), x.T + 1.0


def product(x, y):
    return x @ y.T


def scaled(x, s):
    return x * s + 1.0


@pytest.mark.parametrize("fn", [add_scaled, reductions, product], ids=lambda f: f.__name__)
@pytest.mark.parametrize("seed", range(4))
def test_changing_layouts_match_numpy_on_every_call(fn, seed):
    rng = np.random.default_rng(seed)
    layouts = _layouts(rng)
    ember.reset()
    compiled = ember.compile(fn)
    held = []
    for step in range(40):
        x = layouts[int(rng.integers(len(layouts)))]
        y = x if rng.random() < 0.2 else layouts[int(rng.integers(len(layouts)))]
        got, want = compiled(x, y), fn(x, y)
        assert_same(got, want, rtol=1e-12, path=f"call {step}")
        if rng.random() < 0.5:
            held.append((got, want))  # a held result must never be written again
    for got, want in held:
        assert_same(got, want, rtol=1e-12)
    stats = ember.stats()  # strides are not guarded: one entry answers every layout natively
    assert stats["compiles"] == 1 and stats["native_calls"] == 39, stats


def test_python_scalars_change_value_on_the_repeated_path():
    ember.reset()
    compiled = ember.compile(scaled)
    x = np.arange(6.0).reshape(2, 3)
    compiled(x, 1.5)
    compiled(x, 2.5)  # a new value: the scalar becomes a run-time input
    results = []
    for s in (0.5, -3.0, 1e300, float("inf"), 2.5, 0.0, -0.0):
        got = compiled(x, s)
        results.append((got, scaled(x, s)))
        assert_same(got, scaled(x, s), rtol=0, atol=0)
    for got, want in results:
        assert_same(got, want, rtol=0, atol=0)
    assert ember.stats()["native_calls"] == 7


def test_an_array_changed_in_place_between_calls_is_read_again():
    compiled = ember.compile(add_scaled)
    x, y = np.ones(SHAPE), np.zeros(SHAPE)
    compiled(x, y)
    x[2, 3] = 7.0
    y[:] = 1.0
    assert_same(compiled(x, y), add_scaled(x, y), rtol=0, atol=0)
    x.shape = (5, 6)  # the same memory seen with another shape: a new layout
    y.shape = (5, 6)
    assert_same(compiled(x, y), add_scaled(x, y), rtol=0, atol=0)
    x.dtype = np.int64  # the same memory seen with another dtype
    assert_same(compiled(x, y), add_scaled(x, y), rtol=0, atol=0)
