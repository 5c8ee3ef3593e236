"""`while` loops whose tests are Python values (`while i <= n: ...; i = i + 1`, Fortran
style): once their trips add more ops than the unroll budget, they are captured again as one
loop op instead of unrolling every trip into the graph."""

from __future__ import annotations

import ember
import numpy as np
from conftest import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st


def counted_fill(f, h):
    n = f.shape[0]
    out = np.empty(n)
    out[0] = 0.0
    k = 1
    while k < n:
        out[k] = out[k - 1] + 0.5 * h * (f[k - 1] + f[k])
        k += 1
    return out


def backward_sweep(dp, cp):
    n = len(dp)
    x = np.empty(n)
    x[n - 1] = dp[n - 1]
    i = n - 1
    while i >= 1:
        x[i - 1] = dp[i - 1] - cp[i - 1] * x[i]
        i = i - 1
    return x


def nested_whiles(a):
    n, m = a.shape
    s = np.zeros(m)
    i = 0
    while i < n:
        j = 0
        while j < m:
            s[j] = s[j] * 0.5 + a[i, j]
            j += 2
        i += 1
    return s, i


def while_with_python_break(x, stop):
    total = 0.0
    k = 0
    while k < len(x):
        if k == stop:
            break
        total = total + x[k] * x[k]
        k += 1
    return total, k


def short_while(x):
    k = 0
    while k < 3:
        x[k] += 1.0
        k += 1
    return x


CASES = [counted_fill, backward_sweep, nested_whiles, while_with_python_break, short_while]


def _args(fn, n, seed):
    rng = np.random.default_rng(seed)
    if fn is counted_fill:
        return rng.standard_normal(n), 0.01
    if fn is backward_sweep:
        return rng.standard_normal(n), rng.random(n)
    if fn is nested_whiles:
        return (rng.standard_normal((n, 5)),)
    if fn is while_with_python_break:
        return rng.standard_normal(n), n // 2
    return (rng.standard_normal(max(n, 3)),)


@settings(derandomize=True, deadline=None, max_examples=30)
@given(st.sampled_from(CASES), st.integers(1, 400), st.integers(0, 3))
def test_like_python(fn, n, seed):
    want_args, got_args = _args(fn, n, seed), _args(fn, n, seed)
    want = fn(*want_args)
    got = ember.compile(fn)(*got_args)
    assert_same(got, want)
    for g, w in zip(got_args, want_args):
        assert_same(g, w)


def test_long_while_is_one_loop_op(recorder):
    f = np.random.default_rng(0).standard_normal(600)
    got = ember.compile(counted_fill, backend=recorder)(f, 0.01)
    assert_same(got, counted_fill(f, 0.01))
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert "loop" in recorder.ops() and max(recorder.op_counts) < 64, recorder.op_counts


def test_short_while_still_unrolls(recorder):
    x = np.zeros(5)
    ember.compile(short_while, backend=recorder)(x)
    assert "loop" not in recorder.ops()
