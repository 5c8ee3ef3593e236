"""Loops and assignments that change with their inputs' sizes keep one compiled graph: a
`for` over `range(n)` for an int argument `n`, or over `range(len(x))`, is one loop op with
run-time bounds once `n` changed (`loops/ranges.py: runtime_range`), and `y[1:-1] = ...`,
`y[0] = ...`, `v[:, -1] = ...` into arrays of symbolic shape are functional updates with
bounds counted from either end (`numpy_api/assignment.py`). Every call equals NumPy
(values, shapes, arguments, IndexError), and a function called with many sizes or trip
counts compiles twice. A bound read from the data (`range(indptr[-1])`, a NumPy integer)
is one loop op from the first call."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same
from hypothesis import given, seed, settings
from hypothesis import strategies as st


def horner_backwards(x, n):
    t = 0.0
    for i in range(n - 1, -1, -1):
        t = t * 0.5 + x[i]
    return t


def squares_between(x, lo, hi):
    t = x[0] * 0.0  # a NumPy float from the start: the loop may make no trip
    for i in range(lo, hi):
        t += x[i] ** 2
    return t


def repeated_update(x, n):
    for _ in range(n):
        x = x * 0.5 + 1.0
    return x


def strided_sum(x, n):
    t = 0.0
    for i in range(1, n, 3):
        t += x[i]
    return t


def float_accumulator(x, n):
    t = 0.0  # a Python float until the first trip makes it a NumPy one
    for i in range(n):
        t += x[i]
    return t


def float_accumulator_from_one(x, n):
    t = 0.0
    for i in range(1, n - 1):
        t = t + x[i] * x[i - 1]
    return t


def delay_line(x, n):
    x1 = x2 = 0.0  # Python floats: the first trip makes `x1` a NumPy float, the second `x2`
    for i in range(n):
        x2, x1 = x1, x[i] - 0.5 * x2
    return x1, x2


# (function, arguments for a trip count, trip counts, those that compile apart: where the
# loop makes no trip and its first trip would change the type of a value it carries).
TRIPS = [
    (float_accumulator, lambda rng, n: (rng.random(12), n), (5, 6, 7, 0, 1, 12, 3, 0, 9), {0}),
    (float_accumulator_from_one, lambda rng, n: (rng.random(12), n), (5, 6, 7, 2, 1, 12, 4),
     {1, 2}),
    (horner_backwards, lambda rng, n: (rng.random(12), n), (5, 6, 7, 0, 1, 12, 3, 9), {0}),
    (squares_between, lambda rng, n: (rng.random(12), n % 4, n), (5, 6, 9, 2, 3, 12, 0, 7),
     set()),
    (repeated_update, lambda rng, n: (rng.random(4), n), (5, 6, 7, 0, 1, 30, 2), set()),
    (strided_sum, lambda rng, n: (rng.random(12), n), (5, 6, 7, 0, 1, 12, 2), {0, 1}),
    (delay_line, lambda rng, n: (rng.random(12), n), (5, 6, 7, 0, 1, 12, 2, 3), {0, 1}),
]


@pytest.mark.parametrize("fn, make, trips, apart", TRIPS,
                         ids=lambda c: getattr(c, "__name__", ""))
def test_a_range_of_an_int_argument_is_one_loop_for_every_trip_count(fn, make, trips, apart):
    """Captured twice, and once more for each trip count that makes no trip where a value
    the loop carries changes type on its first trip (NumPy then returns the Python float),
    or fewer trips than its values take to reach their types."""
    ember.reset()
    compiled = ember.compile(fn)
    rng = np.random.default_rng(0)
    for n in trips:
        args = make(rng, n)
        assert_same(compiled(*args), fn(*args), rtol=1e-12)
    stats = ember.stats()
    assert stats["captures"] == 2 + len(apart) and stats["graph_breaks"] == 0, \
        stats["recompile_reasons"]


def shorter_output(x):
    n = x.shape[0]
    d = np.empty(n - 1)
    t = 0.0
    for i in range(1, n):
        d[i - 1] = x[i] - x[i - 1]
        t += d[i - 1]
    return d, t


def running_products(x):
    n = len(x)
    out = np.zeros(n)
    for i in range(1, n):
        out[i] = out[i - 1] + x[i] * x[i - 1]
    return out


def recurrence(x):
    y = np.empty_like(x)
    y[0] = x[0]
    for i in range(1, x.shape[0]):
        y[i] = 0.9 * y[i - 1] + x[i]
    return y


def lower_outer(a):
    n = a.shape[0]
    c = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            c[i, j] = a[i] * a[j]
    return c


def smoothing_steps(u):
    out = u.copy()
    for _ in range(10):
        out[1:-1] = 0.5 * out[1:-1] + 0.25 * (out[2:] + out[:-2])
    return out


SIZED = [running_products, recurrence, lower_outer, smoothing_steps, shorter_output]


@pytest.mark.parametrize("fn", SIZED, ids=lambda f: f.__name__)
def test_loops_over_symbolic_sizes_compile_twice(fn):
    ember.reset()
    compiled = ember.compile(fn)
    rng = np.random.default_rng(1)
    for n in (6, 7, 9, 12, 30, 8, 6):
        x = rng.random(n)
        assert_same(compiled(x.copy()), fn(x.copy()), rtol=1e-12)
    stats = ember.stats()
    assert stats["compiles"] == 2 and stats["graph_breaks"] == 0, stats["recompile_reasons"]


def ends_set(x):
    y = x.copy()
    y[0] = -1.0
    y[-1] = 5.0
    return y


def interior_2d(u):
    v = u.copy()
    v[1:-1, 1:-1] = 0.25 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2])
    return v


def columns_and_rows(u):
    v = np.zeros_like(u)
    v[:, 0] = u[:, -1]
    v[2:, 1] = 3
    v[-2] = 7
    return v


ASSIGNED = [(ends_set, lambda rng, n: (rng.random(n),)),
            (interior_2d, lambda rng, n: (rng.random((n, n + 1)),)),
            (columns_and_rows, lambda rng, n: (rng.random((n, 4)),))]


@pytest.mark.parametrize("fn, make", ASSIGNED, ids=lambda c: getattr(c, "__name__", ""))
def test_assignments_into_symbolic_arrays_stay_symbolic(fn, make):
    ember.reset()
    compiled = ember.compile(fn)
    rng = np.random.default_rng(2)
    for n in (6, 7, 9, 12, 30, 8):
        args = make(rng, n)
        assert_same(compiled(*args), fn(*args), rtol=1e-12)
    stats = ember.stats()
    assert stats["compiles"] == 2 and stats["graph_breaks"] == 0, stats["recompile_reasons"]


def test_an_index_past_a_run_time_bound_raises_as_numpy_does():
    def total(x, n):
        t = 0.0
        for i in range(n):
            t += x[i]
        return t

    compiled = ember.compile(total)
    x = np.arange(10.0)
    for n in (3, 4, 5):
        assert compiled(x, n) == total(x, n)
    with pytest.raises(IndexError):
        total(x, 12)
    with pytest.raises(IndexError):
        compiled(x, 12)


def test_an_assignment_past_a_small_size_raises_as_numpy_does():
    def fourth(x):
        y = x.copy()
        y[3] = 1.0
        return y

    compiled = ember.compile(fourth)
    for n in (5, 6, 7):
        assert_same(compiled(np.zeros(n)), fourth(np.zeros(n)))
    with pytest.raises(IndexError):
        compiled(np.zeros(2))


_BOUND = st.one_of(st.none(), st.integers(-4, 4))
_ITEM = st.one_of(st.integers(-3, 2), st.builds(slice, _BOUND, _BOUND))


@seed(20261206)
@settings(max_examples=60, deadline=None, derandomize=True)
@given(index=st.one_of(_ITEM, st.tuples(_ITEM, _ITEM)), scalar=st.booleans(),
       sizes=st.lists(st.integers(1, 9), min_size=3, max_size=5))
def test_random_assignments_equal_numpy_at_every_size(index, scalar, sizes):
    """`y[index] = value` on arrays whose sizes change from call to call: each call gives
    NumPy's array or NumPy's exception."""

    def assign(x, v):
        y = x.copy()
        y[index] = v
        return y

    compiled = ember.compile(assign)
    for n in sizes:
        x = np.arange(n * 4.0).reshape(n, 4)
        try:
            target = x[index]
        except IndexError:
            with pytest.raises(IndexError):
                compiled(x, 1.0)
            continue
        v = -1.5 if scalar else -np.arange(target.size, dtype=float).reshape(target.shape)
        assert_same(compiled(x, v), assign(x, v))


def scatter_counts(indptr, cols):
    counts = np.zeros(5, dtype=np.int64)
    for p in range(indptr[-1]):
        counts[int(cols[p]) % 4 + 1] += 1
    return np.cumsum(counts)


def weighted_between(indptr, x):
    total = np.float64(0.0)
    for p in range(indptr[0], indptr[-1] - indptr[0]):
        total += x[p] * p
    return total


def shift_down(indptr, x):
    out = x.copy()
    for p in range(int(indptr[-1]) - 1, indptr[0], -1):
        out[p] = out[p - 1] + 1.5
    return out


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
@pytest.mark.parametrize("fn", [scatter_counts, weighted_between, shift_down])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8])
def test_a_range_to_a_count_read_from_the_data_is_one_loop(fn, dtype, backend):
    """`range` of NumPy integers read from the data (CSR's `indptr[-1]`): one loop op, every
    trip count (none, past the data: NumPy's IndexError) from one capture, no break."""
    ember.reset()
    compiled = ember.compile(fn, backend=backend)
    for last in (5, 7, 2, 0, 12, 9):
        indptr, x = np.array([0, 2, last], dtype=dtype), np.arange(10.0)
        try:
            want = repr(fn(indptr, x.copy()))
        except IndexError as exc:
            want = repr(exc)
        try:
            got = repr(compiled(indptr, x.copy()))
        except IndexError as exc:
            got = repr(exc)
        assert got == want, last
    stats = ember.stats()
    assert stats["compiles"] == 1 and stats["graph_breaks"] == 0, stats["break_reasons"]


# Bounds read from int32 (uint16, int8) arrays inside a loop body: `range(ptr[i], ptr[i + 1])`
# of a neighbour list, its body updating rows, is one loop op with int64 bounds.

def pair_row_forces(start, nbrs, x):
    f = np.zeros_like(x)
    for i in range(len(start) - 1):
        for kk in range(start[i], start[i + 1]):
            j = nbrs[kk]
            d = x[i] - x[j]
            f[i] += d
            f[j] -= d
    return f


def csr_backwards_sums(ptr, vals):
    out = np.zeros(len(ptr) - 1)
    for r in range(len(ptr) - 1):
        acc = 0.0
        for k in range(ptr[r + 1] - 1, ptr[r] - 1, -1):
            acc = acc * 0.5 + vals[k]
        out[r] = acc
    return out


def _neighbours(rng, n, dtype):
    counts = rng.integers(0, 4, n)
    start = np.concatenate(([0], np.cumsum(counts))).astype(dtype)
    return start, rng.integers(0, n, int(start[-1])).astype(dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.uint16, np.int8, np.int64])
def test_ranges_of_narrow_ints_from_the_data_are_loop_ops(dtype):
    from probe_harness import assert_behaves_as_numpy, assert_compiles_whole

    rng = np.random.default_rng(4)
    start, nbrs = _neighbours(rng, 30, dtype)
    x = rng.random((30, 3))
    assert_behaves_as_numpy(pair_row_forces, start, nbrs, x)
    assert_compiles_whole(pair_row_forces, (start, nbrs, x))
    vals = rng.random(int(start[-1]))
    assert_behaves_as_numpy(csr_backwards_sums, start, vals)
    assert_compiles_whole(csr_backwards_sums, (start, vals))
