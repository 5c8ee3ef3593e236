"""Arrays a loop body reads from the module's globals or from an object's attributes
(`loops/inputs.py`): the loop is one loop op, the values are NumPy's, an update in place of
such an array is seen after the call and by its other names, and a new table recompiles."""

from __future__ import annotations

import copy

import ember
import numpy as np
import pytest
from conftest import assert_same

TABLE = np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype=np.int64)
WEIGHTS = np.array([0.5, -1.25, 2.0, 0.75])
COUNTS = np.zeros(8, dtype=np.int64)
SCALE = np.float64(1.5)


def table_lookup(codes):
    total = 0
    for i in range(len(codes)):
        total += TABLE[codes[i]]
    return total


def nested_weighted(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        for k in range(len(WEIGHTS)):
            out[i] += WEIGHTS[k] * x[i] ** k
    return out


def branch_in_loop(x):
    out = np.empty_like(x)
    for i in range(len(x)):
        if x[i] > 0:
            out[i] = x[i] * WEIGHTS[i % 4]
        else:
            out[i] = -x[i] * SCALE
    return out


def _poly(t):
    acc = 0.0
    for k in range(len(WEIGHTS)):
        acc = acc * t + WEIGHTS[k]
    return acc


def helper_reads_global(x):
    out = np.empty_like(x)
    for i in range(len(x)):
        out[i] = _poly(x[i])
    return out


def counts_in_place(codes):
    for i in range(len(codes)):
        COUNTS[codes[i]] += 1
    return COUNTS.sum()


def while_reads_global(x):
    i = 0
    acc = 0.0
    while i < len(x):
        acc += x[i] * WEIGHTS[i % 4]
        i += 1
    return acc


def read_before_and_inside(codes):
    first = TABLE[0] * 2
    total = 0
    for c in codes:
        total += TABLE[c] + first
    return total


class Layer:
    def __init__(self, w):
        self.w = w

    def apply(self, x):
        out = np.zeros(x.shape[0])
        for i in range(x.shape[0]):
            for j in range(self.w.shape[0]):
                out[i] += self.w[j] * x[i, j]
        return out


def layer_apply(layer, x):
    return layer.apply(x)


def _codes(rng, n=40):
    return (rng.integers(0, 8, n),)


CASES = [
    (table_lookup, _codes),
    (nested_weighted, lambda rng: (rng.standard_normal(30),)),
    (branch_in_loop, lambda rng: (rng.standard_normal(30),)),
    (helper_reads_global, lambda rng: (rng.standard_normal(30),)),
    (while_reads_global, lambda rng: (rng.standard_normal(30),)),
    (read_before_and_inside, _codes),
    (layer_apply, lambda rng: (Layer(rng.standard_normal(5)), rng.standard_normal((20, 5)))),
]


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
@pytest.mark.parametrize("fn,make", CASES, ids=[c[0].__name__ for c in CASES])
def test_global_arrays_read_in_loop_bodies(fn, make, backend) -> None:
    compiled = ember.compile(fn, backend=backend)
    for seed in range(2):
        args = make(np.random.default_rng(seed))
        assert_same(compiled(*copy.deepcopy(args)), fn(*copy.deepcopy(args)), rtol=1e-12)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["compiles"] >= 1 and not stats["backend_fallbacks"]


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_global_array_updated_in_place_in_a_loop(backend) -> None:
    codes = np.random.default_rng(3).integers(0, 8, 50)
    COUNTS[:] = 0
    want_total = counts_in_place(codes)
    want = COUNTS.copy()
    COUNTS[:] = 0
    compiled = ember.compile(counts_in_place, backend=backend)
    got_total = compiled(codes)
    assert_same(got_total, want_total)
    assert_same(COUNTS, want)
    assert ember.stats()["graph_breaks"] == 0
    COUNTS[:] = 0


def test_a_new_table_is_read_on_the_next_call() -> None:
    global TABLE
    saved = TABLE
    compiled = ember.compile(table_lookup)
    codes = np.random.default_rng(4).integers(0, 8, 40)
    try:
        assert_same(compiled(codes), table_lookup(codes))
        TABLE = saved * 3
        assert_same(compiled(codes), table_lookup(codes))
        TABLE = saved[:4].astype(np.float64)
        small = codes % 4
        assert_same(compiled(small), table_lookup(small))
    finally:
        TABLE = saved


def test_global_array_passed_as_an_argument_too() -> None:
    """The loop writes the table through the argument and reads it through the global:
    one array, as in NumPy."""

    def bump_and_read(t, codes):
        total = 0
        for c in codes:
            t[c] += 1
            total += TABLE[c]
        return total

    codes = np.random.default_rng(5).integers(0, 8, 30)
    saved = TABLE.copy()
    want = bump_and_read(TABLE, codes)
    want_table = TABLE.copy()
    TABLE[:] = saved
    try:
        got = ember.compile(bump_and_read)(TABLE, codes)
        assert_same(got, want)
        assert_same(TABLE, want_table)
    finally:
        TABLE[:] = saved
