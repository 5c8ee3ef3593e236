"""Constructs ember leaves to plain Python because compiling them costs more than NumPy does:
Python ints past int64 (the `big_int` break: the whole frame runs as plain Python), and the
functions a loop calls on every trip where the loop's frame runs as plain Python by the loop
cost rule (`plain_callees`: run with the frame hook off when that frame calls them). Results
are compared with plain Python's; the counters show what ran compiled."""

from __future__ import annotations

import copy
import math

import ember
import numpy as np
from conftest import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st
from user_kernels_ported2 import zbrent_kepler


def fnv1a_64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h ^= int(b)
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def wide_sum(x):
    total = 0
    for v in x:
        total = total + int(v) * (1 << 70)
    return total, x.sum()


def small_int_hash(data):
    h = 17
    for b in data:
        h = (h * 31 + int(b)) & 0xFFFFFFF
    return h


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 255), min_size=0, max_size=60))
def test_python_ints_past_int64_run_as_python(values):
    data = np.array(values, dtype=np.uint8)
    compiled = ember.compile(fnv1a_64)
    for _ in range(2):
        got = compiled(data.copy())
        assert type(got) is int and got == fnv1a_64(data)


def test_big_int_break_runs_the_whole_frame():
    data = np.arange(40, dtype=np.uint8)
    report = ember.explain(fnv1a_64, data)
    assert report.graph_count == 0
    assert [b.reason for b in report.break_reasons] == [
        "operator ^ on 0xcbf29ce484222325: a Python int past int64"]
    ember.reset()
    compiled = ember.compile(fnv1a_64)
    compiled(data)
    before = ember.stats()
    assert compiled(data) == fnv1a_64(data)
    after = ember.stats()
    # No resume function per trip: the frame runs as Python, nothing else is looked up.
    assert after["cache_hits"] == before["cache_hits"]
    assert after["captures"] == before["captures"]


def test_big_int_operand_of_another_op():
    x = np.arange(1, 30, dtype=np.int64)
    got = ember.compile(wide_sum)(x.copy())
    assert_same(got, wide_sum(x))
    assert type(got[0]) is int


def test_ints_within_int64_stay_compiled():
    data = np.arange(50, dtype=np.uint8)
    report = ember.explain(small_int_hash, data)
    assert report.graph_count == 1 and report.graph_break_count == 0
    assert ember.compile(small_int_hash)(data) == small_int_hash(data)


def first_mismatch(read, ref, offset):
    i = 0
    while i < read.shape[0]:
        if read[i] != ref[offset + i]:
            return i
        i += 1
    return -1


def best_offsets(reads, ref):
    out = np.zeros(reads.shape[0], dtype=np.int64)
    span = ref.shape[0] - reads.shape[1] + 1
    for r in range(reads.shape[0]):
        best = -1
        best_len = -1
        for off in range(span):
            mm = first_mismatch(reads[r], ref, off)
            run = reads.shape[1] if mm < 0 else mm
            if run > best_len:
                best_len = run
                best = off
        out[r] = best
    return out


def _kepler(E, ecc, M):
    return E - ecc * math.sin(E) - M


def bisect_kepler(ecc, M):
    lo, hi = 0.0, 2.0 * math.pi
    flo = _kepler(lo, ecc, M)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        fm = _kepler(mid, ecc, M)
        if (fm > 0.0) == (flo > 0.0):
            lo, flo = mid, fm
        else:
            hi = mid
    return 0.5 * (lo + hi)


def kepler_all(means, ecc):
    out = np.zeros_like(means)
    for i in range(means.shape[0]):
        out[i] = bisect_kepler(ecc, means[i])
    return out


def _genome(seed, n_reads, length, span):
    rng = np.random.default_rng(seed)
    ref = rng.integers(0, 4, span + length).astype(np.uint8)
    reads = rng.integers(0, 4, (n_reads, length)).astype(np.uint8)
    for r in range(0, n_reads, 2):  # some reads match the reference somewhere
        start = rng.integers(0, span)
        reads[r] = ref[start:start + length]
    return reads, ref


@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.integers(1, 5), st.integers(2, 10), st.integers(16, 60))
def test_callee_of_a_plain_loop_runs_as_python(seed, n_reads, length, span):
    reads, ref = _genome(seed, n_reads, length, span)
    ember.reset()
    compiled = ember.compile(best_offsets)
    for _ in range(2):
        args = (reads.copy(), ref.copy())
        assert_same(compiled(*copy.deepcopy(args)), best_offsets(*args))
    stats = ember.stats()
    # The caller is captured once and runs as plain Python; its callee is never captured.
    assert stats["captures"] == 1
    assert stats["cache_hits"] == 0


def test_callee_runs_as_python_with_what_it_calls():
    means = np.random.default_rng(3).uniform(0.0, 2.0 * math.pi, 40)
    report = ember.explain(zbrent_kepler, means, 0.3)
    assert [b.function for b in report.break_reasons][:1] == ["zbrent_kepler"]
    assert "inside a loop of 40 trips" in report.break_reasons[0].reason
    ember.reset()
    compiled = ember.compile(zbrent_kepler)
    for _ in range(2):
        assert_same(compiled(means.copy(), 0.3), zbrent_kepler(means, 0.3))
    stats = ember.stats()
    # `zbrent` and the `_kepler` it calls run as plain Python: only `zbrent_kepler` was
    # captured.
    assert stats["captures"] == 1 and stats["cache_hits"] == 0


def test_callee_without_a_break_stays_in_the_graph():
    means = np.random.default_rng(3).uniform(0.0, 2.0 * math.pi, 40)
    compiled = ember.compile(kepler_all)
    for _ in range(2):
        assert_same(compiled(means.copy(), 0.3), kepler_all(means, 0.3))
    stats = ember.stats()
    assert stats["captures"] == 1 and stats["cache_hits"] == 1


def test_callee_called_elsewhere_still_compiles():
    reads, ref = _genome(1, 3, 6, 30)
    ember.compile(best_offsets)(reads, ref)
    ember.compile(best_offsets)(reads, ref)
    before = ember.stats()["captures"]
    # Called by another function, `first_mismatch` is captured and compiled as before.
    caller = ember.compile(lambda read, ref: first_mismatch(read, ref, 3) + 1)
    assert caller(reads[0], ref) == first_mismatch(reads[0], ref, 3) + 1
    assert ember.stats()["captures"] > before
    assert ember.explain(first_mismatch, reads[0], ref, 3).graph_count >= 1
