"""What the kernels of `user_kernels_stranger17.py` needed: `np.cumsum`/`np.cumprod` with
`out=` (a view of a bigger array, an array of another dtype: NumPy's result or a break), the
functions a plain-Python loop calls by name, which run as plain Python when that frame calls
them (a union-find `find` per pixel), and a local that is the Python int 0 or NumPy's integer
as a branch decides (no rerun where it is never read after its loop). Results against NumPy's
on the Cranelift backend; the counters show what ran compiled."""

from __future__ import annotations

import copy

import ember
import numpy as np
import pytest
from conftest import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st
from user_kernels_stranger17 import cumsum_resets_on_zero, label_8conn_halving


def integral_image(img):
    h, w = img.shape
    ii = np.zeros((h + 1, w + 1))
    np.cumsum(np.cumsum(img, axis=0), axis=1, out=ii[1:, 1:])
    return ii


def scan_into(x, out, axis):
    got = np.cumsum(x, axis=axis, out=out)
    prod = np.cumprod(x[:2], axis=axis, out=out[:2] if axis is not None else None)
    return got is out, out, prod


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.integers(1, 9), st.integers(1, 9))
def test_cumsum_into_a_view(seed, h, w):
    img = np.random.default_rng(seed).random((h, w))
    compiled = ember.compile(integral_image, backend="cranelift")
    assert_same(compiled(img.copy()), integral_image(img))
    assert ember.stats()["graph_breaks"] == 0


@pytest.mark.parametrize("dtype,out_dtype", [(np.float64, np.float64), (np.int64, np.int64),
                                             (np.int32, np.int64), (np.bool_, np.int64),
                                             (np.float64, np.float32), (np.int64, np.float64)])
def test_cumsum_out_of_a_dtype(dtype, out_dtype):
    """An `out` of the result's dtype takes it; another dtype (NumPy accumulates in it)
    breaks the graph, and NumPy runs it."""
    x = (np.random.default_rng(1).random((3, 4)) * 10).astype(dtype)
    compiled = ember.compile(scan_into, backend="cranelift")
    for axis in (0, 1):
        args = (x.copy(), np.zeros((3, 4), out_dtype), axis)
        want_args = copy.deepcopy(args)
        assert_same(compiled(*args), scan_into(*want_args))
        assert_same(args[1], want_args[1])


def _blobs(seed, h, w, p):
    return np.random.default_rng(seed).random((h, w)) < p


@settings(max_examples=10, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.integers(16, 24), st.integers(1, 10),
       st.floats(0.1, 0.9))
def test_union_find_called_from_a_plain_loop_runs_as_python(seed, h, w, p):
    ember.reset()
    compiled = ember.compile(label_8conn_halving, backend="cranelift")
    for call in range(2):
        mask = _blobs(seed + call, h, w, p)
        assert_same(compiled(mask.copy()), label_8conn_halving(mask))
    stats = ember.stats()
    # The labelling loop of 16 trips or more runs as plain Python; `_find_halving`, which it calls per pixel,
    # is never captured (a graph call per pixel would cost more than the find).
    assert stats["captures"] <= 1 and stats["cache_hits"] == 0


def _step(x):
    return x * 2.0 + 1.0


def loop_of_helpers(x, tol):
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] > tol:  # a branch on an array value on every trip
            total += float(_step(x[i:i + 1])[0])
    return total, _step(x)


def test_function_called_outside_the_loop_still_compiles():
    """Only the calls from the plain frame run as plain Python: `_step` compiled from
    elsewhere is captured as before."""
    x = np.random.default_rng(2).standard_normal(40)
    compiled = ember.compile(loop_of_helpers, backend="cranelift")
    for _ in range(2):
        assert_same(compiled(x.copy(), 0.0), loop_of_helpers(x, 0.0))
    before = ember.stats()["captures"]
    other = ember.compile(lambda x: _step(x) - 1.0, backend="cranelift")
    assert_same(other(x.copy()), _step(x) - 1.0)
    assert ember.stats()["captures"] > before


def resets_returned(x):
    """As above, `acc` returned: a Python int where the data end on a zero."""
    acc = 0
    total = 0.0
    for i in range(len(x)):
        if x[i] == 0:
            acc = 0
        else:
            acc += x[i]
        total += acc
    return acc, total


def resets_read_after(x, scale):
    acc = 0
    for i in range(len(x)):
        if x[i] == 0:
            acc = 0
        else:
            acc = acc + x[i]
    return [acc] * 2, scale * 2


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=40),
       st.sampled_from([np.int64, np.int32, np.uint8]))
def test_local_python_or_numpy_int_after_a_loop(values, dtype):
    """The Python int 0 or NumPy's integer, as the data decide: exact types where the local
    is returned or read after the loop; no check (no rerun) where it is never read."""
    x = np.array(values, dtype=dtype)
    for fn, args in ((cumsum_resets_on_zero, (x,)), (resets_returned, (x,)),
                     (resets_read_after, (x, 1.5))):
        ember.reset()
        compiled = ember.compile(fn, backend="cranelift")
        for _ in range(2):
            assert_same(compiled(*copy.deepcopy(args)), fn(*args))


def test_dead_local_ending_a_python_int_needs_no_rerun():
    compiled = ember.compile(cumsum_resets_on_zero, backend="cranelift")
    for seed in range(4):
        x = np.random.default_rng(seed).integers(0, 5, 60)
        x[-1] = 0  # `acc` ends the Python int 0
        assert_same(compiled(x.copy()), cumsum_resets_on_zero(x))
    stats = ember.stats()
    assert stats["compiles"] == 1 and stats["entry_fallbacks"] == 0
