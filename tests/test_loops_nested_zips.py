"""Loops over `zip`s and `enumerate`s nested in each other (`for k, (a, b) in
enumerate(zip(x, y))`, `for (i, a), b in zip(enumerate(x), y)`) as loop ops
(`loops/zipped.py`): the trip's item groups the parts' items as the nesting does, the target
unpacks them, the shortest part sets the trips. Checked against NumPy (values, types, the
arguments and what the loop leaves bound) and that each compiles without a break."""

from __future__ import annotations

import math

import ember
import numpy as np
import pytest
from probe_harness import assert_behaves_as_numpy


def odometry(v_left, v_right, base=0.5, dt=0.02):
    x = y = theta = 0.0
    path = np.zeros((len(v_left), 3))
    for k, (vl, vr) in enumerate(zip(v_left, v_right)):
        v = 0.5 * (vl + vr)
        x += v * math.cos(theta) * dt
        y += v * math.sin(theta) * dt
        theta += (vr - vl) / base * dt
        path[k] = x, y, theta
    return path


def weighted_from_one(a, b):
    total = 0.0
    for k, (p, q) in enumerate(zip(a, b), start=1):
        total += k * p * q
    return total, k, p, q


def index_outside(a, b):
    out = np.zeros_like(b)
    for (i, p), q in zip(enumerate(a), b):
        out[i] = p - q * i
    return out, i


def rows_and_pair(m, a, b):
    acc = np.zeros(m.shape[1])
    for row, (p, q) in zip(m, zip(a, b)):
        acc += row * (p - q)
    return acc


def pair_kept_whole(a, b):
    total = 0.0
    for k, pq in enumerate(zip(a, b)):
        total += pq[0] * pq[1] - k
    return total


def zip_used_up(a, b):
    z = zip(a, b)
    total = 0.0
    for k, (p, q) in enumerate(z):
        total += p + k * q
    return total, len(list(z))


@pytest.mark.parametrize("n", [40, 200])
def test_enumerate_of_zip_like_numpy(n):
    rng = np.random.default_rng(n)
    a, b = rng.random(n), rng.random(n)
    assert_behaves_as_numpy(odometry, a, b)
    assert_behaves_as_numpy(weighted_from_one, a, b[:n - 3])
    assert_behaves_as_numpy(index_outside, a[:n - 1], b)
    assert_behaves_as_numpy(rows_and_pair, rng.random((n, 3)), a, b)
    assert_behaves_as_numpy(pair_kept_whole, a.astype(np.float32), b)
    assert_behaves_as_numpy(zip_used_up, a, b)


@pytest.mark.parametrize("fn,args", [
    (odometry, (np.ones(300), np.linspace(0.5, 1.5, 300))),
    (weighted_from_one, (np.arange(300.0), np.ones(300))),
    (index_outside, (np.arange(300.0), np.ones(300))),
    (pair_kept_whole, (np.arange(300.0), np.ones(300))),
])
def test_enumerate_of_zip_is_one_loop_op(fn, args):
    ember.reset()
    compiled = ember.compile(fn)
    compiled(*args)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["compiles"] == 1 and stats["region_recaptures"] == 0
