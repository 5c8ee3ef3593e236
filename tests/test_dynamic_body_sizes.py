"""Sizes a loop body gives as shapes stay symbolic (`loops/sizes.py: dim_of`): `np.empty(n)`
for an `n = len(d)` the body reads, or an `n` read before the loop, `n - 1`, `2 * n`, an
enclosing body's `n`, keep the loop one loop op, so one compiled function serves every size
(compiled at most twice), equal to NumPy at each, and raises NumPy's exception where the
sizes do not fit together."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from probe_harness import record


def _tridiagonal(a, b, c, d):
    n = len(d)
    cp = np.empty(n)
    dp = np.empty(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.empty(n)
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def implicit_steps(u0, r, steps):
    n = len(u0)
    a = np.full(n, -r)
    b = np.full(n, 1 + 2 * r)
    c = np.full(n, -r)
    u = u0.copy()
    for _ in range(steps):
        u = _tridiagonal(a, b, c, u)
    return u


def fresh_rows_each_step(u, steps):
    n = len(u)
    for _ in range(steps):
        rhs = np.empty(n)
        rhs[1:-1] = 0.25 * u[:-2] + 0.5 * u[1:-1] + 0.25 * u[2:]
        rhs[0] = u[0]
        rhs[-1] = u[-1]
        u = rhs
    return u


def shorter_and_longer(x, steps):
    total = np.zeros(2 * len(x))
    for k in range(steps):
        m = len(x) - 1
        d = np.zeros(m)
        d[:] = x[1:] - x[:-1]
        wide = np.ones((2 * len(x),)) * k
        total = total + wide + d.sum()
    return total


def nested_sizes(x, steps):
    n = x.shape[0]
    out = np.zeros(n)
    for _ in range(steps):
        for j in range(steps % 7):
            acc = np.zeros(n)
            acc += x * (j + 1)
            out = out + acc
    return out


def _calls(fn, argss):
    ember.reset()
    compiled = ember.compile(fn)
    for args in argss:
        assert record(compiled, args) == record(fn, args), args
    return ember.stats()


RNG = np.random.default_rng(5)


@pytest.mark.parametrize("fn,make", [
    (implicit_steps, lambda n: (RNG.random(n), 0.3, 12)),
    (fresh_rows_each_step, lambda n: (RNG.random(n), 12)),
    (shorter_and_longer, lambda n: (RNG.random(n), 40)),
    (nested_sizes, lambda n: (RNG.random(n), 40)),
])
def test_one_compiled_function_over_sizes(fn, make) -> None:
    stats = _calls(fn, [make(n) for n in (6, 11, 29, 8)])
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    assert stats["entry_fallbacks"] == 0 and stats["graph_breaks"] == 0, stats["break_reasons"]


@pytest.mark.parametrize("fn,make", [
    (implicit_steps, lambda n: (RNG.random(n), 0.3, 2)),
    (fresh_rows_each_step, lambda n: (RNG.random(n), 2)),
    (shorter_and_longer, lambda n: (RNG.random(n), 2)),
    (nested_sizes, lambda n: (RNG.random(n), 2)),
])
def test_small_and_empty_sizes_behave_as_numpy(fn, make) -> None:
    _calls(fn, [make(n) for n in (6, 9, 3, 2, 1, 0)])


def mismatched(u, w, steps):
    n = len(u)
    for _ in range(steps):
        t = np.empty(n)
        t[:] = u * 0.5
        u = t + w
    return u


def test_sizes_that_do_not_fit_raise_as_numpy() -> None:
    _calls(mismatched, [(RNG.random(n), RNG.random(n), 12) for n in (5, 8, 13)])
    _calls(mismatched, [(RNG.random(5), RNG.random(5), 12), (RNG.random(8), RNG.random(8), 12),
                        (RNG.random(9), RNG.random(7), 12), (RNG.random(9), RNG.random(9), 12)])


def moving_mean(x, w):
    out = np.empty(x.shape[0] - w + 1)
    s = x[:w].sum()
    out[0] = s / w
    for i in range(1, out.shape[0]):
        s += x[i + w - 1] - x[i - 1]
        out[i] = s / w
    return out


def upsampled(x, factor):
    n = len(x)
    m = (n - 1) * factor + 1
    out = np.zeros(m)
    out[::factor] = x
    return out


def padded_rows(a, pad):
    rows, cols = a.shape
    out = np.zeros((rows + 2 * pad, cols))
    out[pad:-pad] = a
    return out.sum(axis=1)


@pytest.mark.parametrize("fn,make", [
    (moving_mean, lambda n: (RNG.random(n), 4)),
    (padded_rows, lambda n: (RNG.random((n, 3)), 2)),
])
def test_an_int_argument_that_never_changes_joins_a_symbolic_size(fn, make) -> None:
    stats = _calls(fn, [make(n) for n in (9, 14, 31, 10)])
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    # The same int changed later: a symbol of its own, or its value, as NumPy gives.
    _calls(fn, [make(9), make(14), make(20)[:1] + (3,), make(21)[:1] + (5,)])


def test_a_shape_an_int_argument_gives_beside_a_step() -> None:
    _calls(upsampled, [(RNG.random(n), 3) for n in (5, 8, 13, 1)])


def test_a_window_longer_than_the_data_raises_as_numpy() -> None:
    _calls(moving_mean, [(RNG.random(n), 4) for n in (9, 14, 3, 2)])


def last_two(x):
    n = len(x)
    y = x * 2.0
    y[n - 1] = x[n - 2] + 1.0
    return y, x[len(x) - 1]


def last_rows(a):
    r, c = a.shape
    b = a.copy()
    b[r - 1, :] = b[r - 2, :] * 3
    b[0, c - 1] = b[r - 1, c - 2]
    return b


def from_a_fixed_int(x, k):
    return x[x.shape[0] - k] * 2.0


@pytest.mark.parametrize("fn,make", [
    (last_two, lambda n: (RNG.random(n),)),
    (last_rows, lambda n: (RNG.random((n, n + 1)),)),
    (from_a_fixed_int, lambda n: (RNG.random(n), 2)),
])
def test_an_index_a_size_less_a_constant_gives_is_counted_from_the_end(fn, make) -> None:
    stats = _calls(fn, [make(n) for n in (5, 9, 17, 3)])
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    assert stats["entry_fallbacks"] == 0 and stats["graph_breaks"] == 0


@pytest.mark.parametrize("fn,make", [
    (last_two, lambda n: (RNG.random(n),)),
    (last_rows, lambda n: (RNG.random((n, n + 1)),)),
    (from_a_fixed_int, lambda n: (RNG.random(n), 3)),
])
def test_an_index_past_the_front_raises_as_numpy(fn, make) -> None:
    _calls(fn, [make(n) for n in (5, 9, 2, 1, 0)])


def table_corner(a, b):
    n, m = len(a), len(b)
    D = np.zeros((n + 1, m + 1))
    D[:, 0] = np.arange(n + 1)
    D[0, :] = np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0.0 if a[i - 1] == b[j - 1] else 1.0
            D[i, j] = min(D[i - 1, j] + 1.0, D[i, j - 1] + 1.0, D[i - 1, j - 1] + cost)
    return D[n, m]


def prefix_total(x):
    n = x.shape[0]
    s = np.zeros(n + 1)
    for i in range(n):
        s[i + 1] = s[i] + x[i]
    return s[n], s[n - 1]


@pytest.mark.parametrize("fn,make", [
    (table_corner, lambda n: (RNG.integers(0, 3, n), RNG.integers(0, 3, n + 2))),
    (prefix_total, lambda n: (RNG.random(n),)),
])
def test_the_last_cell_of_a_table_one_longer_than_the_data(fn, make) -> None:
    stats = _calls(fn, [make(n) for n in (6, 11, 14, 9)])
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    _calls(fn, [make(n) for n in (4, 7, 1, 0)])
