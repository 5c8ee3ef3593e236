"""Bool arrays under ops compiled on their own (benches/lone_ops.py): unary ops that are the
identity or a constant for bools run in vector lanes, `max`/`min` of bools are their
`any`/`all`, and `any`/`all` stop at the first block that decides them where the skipped
elements could show nothing (no warning, no stored map). Values, dtypes and warnings are
NumPy's bit for bit, in every length, step and layout."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_compiled import check
from test_lone_int_ops import LENGTHS, masks
from test_lone_ops import exactly, values

UNARY = [np.abs, np.floor, np.ceil, np.trunc, np.square, np.isnan, np.isinf, np.isfinite,
         np.signbit, np.invert, np.logical_not]
LAYOUTS = [lambda x: x, lambda x: x[::-1], lambda x: x[::3], lambda x: x[1:],
           lambda x: x[:1].reshape(()), lambda x: x[::-2]]


@pytest.mark.parametrize("n", LENGTHS)
def test_unary_ops_of_bools(n):
    a, _, odd = masks(n, n)
    for f in UNARY:
        exactly(lambda x: f(x), a)
        if f in (np.floor, np.ceil, np.trunc):
            # NumPy's loops copy the bytes, true ones not 1 included: equal as bools.
            ember.reset()
            check(lambda x: f(x), odd, rtol=0, ops=())
        else:
            exactly(lambda x: f(x), odd)
    exactly(lambda x: np.abs(x) & np.isfinite(x), a)
    exactly(lambda x: np.floor(x) + np.signbit(x), a)
    for f in (np.sign, np.positive):  # NumPy has no bool loop for these
        ember.reset()
        check(lambda x: f(x), a, rtol=0, ops=())


def test_unary_ops_of_bools_in_every_layout():
    a, _, odd = masks(3001, 3)
    for view in LAYOUTS:
        for f in (np.abs, np.isnan, np.isfinite, np.square, np.floor):
            exactly(lambda x: f(x), view(a))
            if f is not np.floor:
                exactly(lambda x: f(x), view(odd))
    exactly(lambda x: np.abs(x.reshape(3, 1000)[:, ::-1]), a[:3000])
    exactly(lambda x: np.isinf(x.reshape(30, 100).T), a[:3000])


def placed(n: int, at: list[int], fill: bool) -> np.ndarray:
    """`n` bools equal to `fill` but at the positions `at` (those inside the array)."""
    m = np.full(n, fill)
    m[[i for i in at if -n <= i < n]] = not fill
    return m


@pytest.mark.parametrize("n", LENGTHS + [256, 257, 4096, 70000])
def test_any_all_max_min_of_bools_wherever_they_are_decided(n):
    reductions = [np.any, np.all, np.max, np.min, np.amax, np.amin,
                  lambda m: (m.max(), m.min()), lambda m: np.logical_or.reduce(m)]
    cases = [placed(n, at, fill) for fill in (False, True)
             for at in ([], [0], [-1], [n // 2], [255, 256], [n - 300])]
    for m in cases:
        for view in (lambda x: x, lambda x: x[::-1], lambda x: x[::2]):
            for f in reductions:
                if n == 0 and f in (np.max, np.min, np.amax, np.amin) or (
                        n == 0 and f is reductions[6]):
                    continue  # NumPy raises for the extremes of an empty array
                exactly(lambda x: f(x), view(m))
    _, _, odd = masks(n, 5)
    exactly(lambda x: (x.any(), x.all()), odd)


def test_empty_extremes_of_bools_raise_as_numpy():
    for f in (np.max, np.min):
        ember.reset()
        check(lambda m: f(m), np.zeros(0, bool), rtol=0, ops=())
    exactly(lambda m: (m.any(), m.all()), np.zeros(0, bool))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_any_all_of_expressions_keep_numpys_warnings_and_stores(dtype):
    n = 5000
    x = values(n, dtype, 7)
    y = values(n, dtype, 8)
    y[:100] = 1
    y[-1] = 0  # a division by zero at the very end: NumPy warns (floats) after `any` is known
    x[:100] = 1
    progs = [lambda x, y: (x > 0).any(), lambda x, y: (x == x).all(),
             lambda x, y: np.any(x != 0), lambda x, y: np.all(np.isfinite(x)),
             lambda x, y: np.any(np.logical_and(x > 0, y < 1)),
             lambda x, y: np.all(x.astype(bool)), lambda x, y: np.any(np.isnan(x)),
             lambda x, y: (x / y > 0).any(), lambda x, y: (x / y > 0).all(),
             lambda x, y: (x * y > 0).any(), lambda x, y: np.max(x > 0),
             lambda x, y: np.min(x < 0), lambda x, y: np.any((x > 0)[::-1])]
    for f in progs:
        exactly(f, x, y)

    def stored(x, y):
        m = x > 0
        return m, m.any(), m.all()

    ember.reset()
    check(stored, x, y, rtol=0, ops=())


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.integers(0, 3000), st.integers(-1, 3000), st.booleans(),
       st.sampled_from([1, 2, -1, -3]))
def test_random_any_all_of_bools(n, at, fill, step):
    m = placed(n, [at] if at >= 0 else [], fill)[::step]
    exactly(lambda x: (np.any(x), np.all(x), np.max(x) if x.size else None,
                       np.min(x) if x.size else None), m)
    exactly(lambda x: (np.abs(x), np.isnan(x), np.square(x), np.ceil(x)), m)
