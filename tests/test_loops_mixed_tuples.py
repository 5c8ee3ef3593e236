"""Lists of tuples of numbers of several types built in loop ops (`out.append((i, x[i]))`,
`runs.append((value, length))`): each number keeps its type (a Python int, a NumPy float64,
a NumPy bool...), stored in float64 rows that hold each exactly, an integer beyond 2**53
sending the frame to Python (`variables/appended.py: mixed_tuple`). Also appends after the
loop that built a list (the last run of a run-length code)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy, assert_compiles_whole


def positive_pairs(x):
    out = []
    for i in range(len(x)):
        if x[i] > 0:
            out.append((i, x[i]))
    return out


def run_lengths(x):
    res = []
    start = 0
    for i in range(1, len(x)):
        if x[i] != x[i - 1]:
            res.append((x[i - 1], i - start))
            start = i
    res.append((x[-1], len(x) - start))
    return res


def peaks_as_array(x):
    found = []
    for i in range(1, len(x) - 1):
        if x[i] > x[i - 1] and x[i] >= x[i + 1]:
            found.append((i, x[i], x[i] > 0))
    return np.array(found), len(found)


def best_per_row(a):
    picks = []
    for r in range(a.shape[0]):
        j = 0
        for c in range(1, a.shape[1]):
            if a[r, c] > a[r, j]:
                j = c
        picks.append((r, j, float(a[r, j])))
    return picks


def stack_of_pairs(x):
    # (index, running value) pairs pushed and popped: a monotone stack of mixed tuples.
    stack = [(0, x[0])]
    spans = np.zeros(len(x), dtype=np.int64)
    for i in range(1, len(x)):
        while stack and stack[-1][1] <= x[i]:
            stack.pop()
        spans[i] = i - stack[-1][0] if stack else i + 1
        stack.append((i, x[i]))
    return spans, len(stack)


def counts_after_loop(x, k):
    out = []
    for i in range(len(x)):
        out.append(x[i] * 2.0)
    out.append(k * x[0])
    return out, len(out)


def other_type_after_loop(x, k):
    out = []
    for i in range(len(x)):
        out.append(x[i] * 2.0)
    out.append(k)  # a Python float among NumPy float64s: the rest runs as Python
    return out, len(out)


def test_an_append_of_another_type_after_the_loop_is_as_python():
    assert_behaves_as_numpy(other_type_after_loop, np.arange(4.0), 3.5, compiled_code=False)


CASES = [
    (positive_pairs, lambda r: (r.standard_normal(25),)),
    (run_lengths, lambda r: (r.integers(0, 3, 30),)),
    (run_lengths, lambda r: (r.integers(0, 3, 30).astype(np.int32),)),
    (peaks_as_array, lambda r: (r.standard_normal(40),)),
    (peaks_as_array, lambda r: (r.standard_normal(40).astype(np.float32),)),
    (best_per_row, lambda r: (r.standard_normal((6, 5)),)),
    (stack_of_pairs, lambda r: (r.standard_normal(30),)),
    (counts_after_loop, lambda r: (r.standard_normal(9), 3.5)),
]


@pytest.mark.parametrize(("fn", "make"), CASES,
                         ids=[f"{fn.__name__}-{k}" for k, (fn, _) in enumerate(CASES)])
def test_mixed_tuples_behave_as_python_and_compile(fn, make):
    args = make(np.random.default_rng(5))
    assert_behaves_as_numpy(fn, *args)
    assert_compiles_whole(fn, args)


def test_each_number_keeps_its_type():
    import ember

    x = np.array([3, 3, 1, 2, 2, 2])
    got = ember.compile(run_lengths)(x)
    want = run_lengths(x)
    assert got == want
    assert [tuple(type(v) for v in t) for t in got] == [tuple(type(v) for v in t) for t in want]


def big_offsets(x, base):
    out = []
    for i in range(len(x)):
        out.append((base + x[i], 0.5 * i))
    return out


def test_integers_beyond_float64s_exact_range_run_as_python():
    x = np.arange(4, dtype=np.int64)
    assert_behaves_as_numpy(big_offsets, x, np.int64(2 ** 60), compiled_code=False)
    assert_behaves_as_numpy(big_offsets, x, np.int64(-(2 ** 53) - 3), compiled_code=False)
    assert_behaves_as_numpy(big_offsets, x, np.int64(2 ** 40))


@seed(62)
@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=30))
def test_run_lengths_random(values):
    assert_behaves_as_numpy(run_lengths, np.array(values, dtype=np.int64))
