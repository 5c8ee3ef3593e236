"""Pieces of kernels that ember hands to NumPy or to plain Python because its own lowering
ran slower than NumPy: np.nonzero's index arrays returned from a graph (NumPy's nonzero of
the array the graph computed), loops over an `np.nditer` of single elements (plain Python).
Results are compared with NumPy's: values, dtypes, aliasing, mutations."""

from __future__ import annotations

import itertools

import ember
import numpy as np
from conftest import assert_same, assert_same_aliasing
from hypothesis import given, settings
from hypothesis import strategies as st


def sieve(n):
    is_p = np.ones(n + 1, dtype=np.bool_)
    is_p[:2] = False
    i = 2
    while i * i <= n:
        if is_p[i]:
            is_p[i * i::i] = False
        i += 1
    return np.nonzero(is_p)[0]


def nonzero_2d(a, t):
    rows, cols = np.nonzero(a > t)
    return rows, cols, (a > t).sum()


def nonzero_tuple(a):
    return np.nonzero(a * 2)


def nonzero_then_mutate(a, m):
    idx = np.nonzero(m)
    m[:] = False
    a[idx] = 0.0
    return idx


def where_one_arg(a):
    idx = np.where(a % 3 == 0)
    return idx, a[idx[0]]


def nonzero_of_argument(m):
    return np.nonzero(m)


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.integers(0, 400))
def test_sieve_primes(n):
    got = ember.compile(sieve)(n)
    assert_same(got, sieve(n))


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.integers(0, 6), st.integers(0, 6), st.floats(-1.0, 1.0), st.integers(0, 2 ** 31))
def test_nonzero_of_computed_arrays(r, c, t, seed):
    a = np.random.default_rng(seed).standard_normal((r, c))
    compiled = ember.compile(nonzero_2d)
    for _ in range(2):
        assert_same(compiled(a.copy(), t), nonzero_2d(a.copy(), t))
    b = np.random.default_rng(seed).integers(-2, 3, size=(r, c, 2)).astype(np.int32)
    got, want = ember.compile(nonzero_tuple)(b), nonzero_tuple(b)
    assert_same(got, want)
    assert_same_aliasing(got, (b,), want, (b,))


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.lists(st.booleans(), min_size=1, max_size=30), st.integers(0, 2 ** 31))
def test_nonzero_with_arguments_updated(mask, seed):
    m = np.array(mask)
    a = np.random.default_rng(seed).random(m.size)
    got_a, got_m, want_a, want_m = a.copy(), m.copy(), a.copy(), m.copy()
    got = ember.compile(nonzero_then_mutate)(got_a, got_m)
    want = nonzero_then_mutate(want_a, want_m)
    assert_same(got, want)
    assert_same(got_a, want_a)
    assert_same(got_m, want_m)


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.lists(st.integers(-50, 50), min_size=0, max_size=40))
def test_where_of_one_argument(values):
    a = np.array(values, dtype=np.int64)
    assert_same(ember.compile(where_one_arg)(a.copy()), where_one_arg(a.copy()))
    m = a > 0
    got, want = ember.compile(nonzero_of_argument)(m), nonzero_of_argument(m)
    assert_same(got, want)
    assert_same_aliasing(got, (m,), want, (m,))


def nditer_sum_squares(a):
    total = 0.0
    for x in np.nditer(a):
        total += float(x) * float(x)
    return total


def nditer_pairs(a, b):
    out = []
    for x, y in np.nditer([a, b]):
        out.append(float(x) - float(y))
    return np.array(out)


def nditer_chunks(a):
    total = 0.0
    for chunk in np.nditer(a, flags=["external_loop"], order="F"):
        total += float(np.sum(chunk * chunk))
    return total


@settings(max_examples=15, deadline=None, derandomize=True)
@given(st.integers(1, 5), st.integers(1, 5), st.integers(0, 2 ** 31))
def test_nditer_loops(r, c, seed):
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal((r, c)), rng.standard_normal(c)
    for fn, args in ((nditer_sum_squares, (a,)), (nditer_pairs, (a, b)),
                     (nditer_chunks, (a,))):
        compiled = ember.compile(fn)
        for _ in range(2):
            assert_same(compiled(*args), fn(*args))


def test_nditer_of_elements_runs_as_python():
    a = np.arange(24.0).reshape(4, 6)
    compiled = ember.compile(nditer_sum_squares)
    compiled(a)
    before = ember.stats()
    assert compiled(a) == nditer_sum_squares(a)
    after = ember.stats()
    # No resume function per element: the loop runs as plain Python.
    assert after["cache_hits"] - before["cache_hits"] <= 2
    assert after["captures"] == before["captures"]


def lagged_products(frame, lo, hi):
    out = np.zeros(hi - lo)
    for lag in range(lo, hi):
        out[lag - lo] = np.dot(frame[:-lag], frame[lag:])
    return out


def prefix_sums_and_norms(a):
    n = a.shape[0]
    out = np.zeros((n, 2), dtype=a.dtype)
    for i in range(n):
        out[i, 0] = a[i, :i].sum()
        out[i, 1] = np.dot(a[i, i:], a[i, i:])
    return out


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.integers(1, 40), st.integers(0, 2 ** 31), st.sampled_from(["f8", "f4", "i8"]))
def test_sums_over_runs_in_loops(n, seed, dtype):
    rng = np.random.default_rng(seed)
    frame = (rng.standard_normal(n) * 10).astype(dtype)
    lo, hi = 1, max(1, n - 1)
    got, want = ember.compile(lagged_products)(frame, lo, hi), lagged_products(frame, lo, hi)
    tol = 1e-4 if dtype == "f4" else 1e-9
    assert_same(got, want, rtol=tol, atol=tol * 100 * n)
    a = (rng.standard_normal((n, n)) * 10).astype(dtype)
    got, want = ember.compile(prefix_sums_and_norms)(a), prefix_sums_and_norms(a)
    assert_same(got, want, rtol=tol, atol=tol * 100 * n)


def test_sums_over_runs_compile_to_one_graph():
    frame = np.random.default_rng(0).standard_normal(300)
    report = ember.explain(lagged_products, frame, 4, 60)
    assert report.graph_count == 1 and report.graph_break_count == 0


def components(edges, n):
    parent = {i: i for i in range(n)}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for e in range(edges.shape[0]):
        a, b = find(int(edges[e, 0])), find(int(edges[e, 1]))
        if a != b:
            parent[a] = b
    return np.array([find(i) for i in range(n)])


def test_comprehension_calling_a_plain_callee_runs_plain():
    rng = np.random.default_rng(3)
    edges = rng.integers(0, 30, size=(40, 2))
    compiled = ember.compile(components)
    for _ in range(3):
        assert_same(compiled(edges.copy(), 30), components(edges.copy(), 30))
    stats = ember.stats()
    # `find` runs as plain Python from the loop and from the comprehension: never captured
    # for each of its arguments.
    assert stats["recompiles"] == 0 and stats["recompile_limit_hits"] == 0
    before = ember.stats()["captures"]
    compiled(edges.copy(), 30)
    assert ember.stats()["captures"] == before


def running_max(x):
    return np.array(list(itertools.accumulate(x, max)))


def array_of_list(values, scale):
    return np.asarray(values) * scale


def array_of_short_list(values, scale):
    return np.array(values) * scale


@settings(max_examples=15, deadline=None, derandomize=True)
@given(st.lists(st.floats(-1e6, 1e6), min_size=0, max_size=200), st.integers(0, 2))
def test_arrays_of_lists_given_to_the_frame(values, kind):
    items = [values, [np.float32(v) for v in values], [int(v) for v in values]][kind]
    for fn in (array_of_list, array_of_short_list):
        compiled = ember.compile(fn)
        for _ in range(2):
            assert_same(compiled(list(items), 2.0), fn(list(items), 2.0))
    x = np.array(values)
    assert_same(ember.compile(running_max)(x), running_max(x))


def test_long_lists_of_numbers_are_converted_by_numpy():
    long = [float(v) for v in range(300)]
    report = ember.explain(array_of_list, long, 2.0)
    assert any("np.asarray of a list of 300 numbers" in b.reason for b in report.break_reasons)
    short = long[:20]
    report = ember.explain(array_of_list, short, 2.0)
    assert report.graph_count == 1 and report.graph_break_count == 0
