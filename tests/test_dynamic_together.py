"""Sizes and ints that change on the same call (a problem size with its step count), loops
whose `for` has a long jump (an EXTENDED_ARG before FOR_ITER), and sizes read inside loop
bodies: each compiles twice over any number of sizes and gives NumPy's results."""

import dis

import numpy as np
import pytest

import ember
from test_dynamic_rows import check_sizes


def relax(steps, a):
    for _ in range(1, steps):
        a[1:-1] = (a[:-2] + a[1:-1] + a[2:]) / 3.0
    return a


def smooth_into(b, a, steps):
    for t in range(steps):
        b[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2]
                               + a[1:-1, 2:])
        a[1:-1, 1:-1] = 0.2 * (b[1:-1, 1:-1] + b[:-2, 1:-1] + b[2:, 1:-1] + b[1:-1, :-2]
                               + b[1:-1, 2:])
        b[0, :] = a[0, :] * 0.5 + t
        a[-1, :] = b[-1, :] * 0.5 - t
    return a.sum() + b.sum()


def long_body(u, v, steps):
    for _ in range(steps):
        v[1:-1, 1:-1, 1:-1] = (0.125 * (u[2:, 1:-1, 1:-1] - 2.0 * u[1:-1, 1:-1, 1:-1]
                                        + u[:-2, 1:-1, 1:-1])
                               + 0.125 * (u[1:-1, 2:, 1:-1] - 2.0 * u[1:-1, 1:-1, 1:-1]
                                          + u[1:-1, :-2, 1:-1])
                               + 0.125 * (u[1:-1, 1:-1, 2:] - 2.0 * u[1:-1, 1:-1, 1:-1]
                                          + u[1:-1, 1:-1, :-2]) + u[1:-1, 1:-1, 1:-1])
        u[1:-1, 1:-1, 1:-1] = (0.125 * (v[2:, 1:-1, 1:-1] - 2.0 * v[1:-1, 1:-1, 1:-1]
                                        + v[:-2, 1:-1, 1:-1])
                               + 0.125 * (v[1:-1, 2:, 1:-1] - 2.0 * v[1:-1, 1:-1, 1:-1]
                                          + v[1:-1, :-2, 1:-1])
                               + 0.125 * (v[1:-1, 1:-1, 2:] - 2.0 * v[1:-1, 1:-1, 1:-1]
                                          + v[1:-1, 1:-1, :-2]) + v[1:-1, 1:-1, 1:-1])
    return u


def scaled_rows(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] * (x.shape[0] - i) / x.shape[1]
    return out


def weighted_tail(x):
    total = 0.0
    for i in range(len(x)):
        total += x[i] * (len(x) - i)
    return total


TOGETHER = [
    (relax, lambda n, rng: (n // 2 + 1, rng.random(n))),
    (smooth_into, lambda n, rng: (np.zeros((n, n + 1)), rng.random((n, n + 1)), n % 5 + 1)),
    (long_body, lambda n, rng: (rng.random((n, n, 3)), np.zeros((n, n, 3)), n % 4 + 1)),
    (scaled_rows, lambda n, rng: (rng.random((n, n + 2)),)),
    (weighted_tail, lambda n, rng: (rng.random(n),)),
]
IDS = [f.__name__ for f, _ in TOGETHER]
SIZES = (3, 4, 5, 7, 30, 11, 3, 64)


@pytest.fixture(autouse=True)
def _fresh():
    ember.reset()
    yield
    ember.reset()


@pytest.mark.parametrize("fn, make", TOGETHER, ids=IDS)
@pytest.mark.parametrize("backend", ["cranelift", "eager"])
def test_sizes_and_steps_changing_together_compile_twice(fn, make, backend):
    stats = check_sizes(fn, make, SIZES, backend=backend)
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]


@pytest.mark.parametrize("fn, make", TOGETHER, ids=IDS)
def test_sizes_and_steps_at_sizes_zero_one_and_two(fn, make):
    check_sizes(fn, make, (4, 5, 2, 1, 0, 6, 2, 3))


def test_long_body_loop_has_an_extended_jump():
    # What `long_body` is there for: its FOR_ITER's jump needs an EXTENDED_ARG prefix.
    ops = [i.opname for i in dis.get_instructions(long_body)]
    at = ops.index("FOR_ITER")
    assert ops[at - 1] == "EXTENDED_ARG"
