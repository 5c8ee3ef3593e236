"""Returns from inside `while` loops whose trip count only the data knows (a validating
scanner: `continue` past plain bytes, an `elif` chain that returns on its last path, a `for`
loop over the bytes a lead byte announces that returns on a bad one). The `while` is one loop
op whose first test is a Python value; the inner `for` loop is unrolled on paths where its
trip count is a constant (a path that returns ends the trip, so the other runs on through the
loop's remaining trips: `body.run_span`'s `through`), a nested loop op elsewhere; and where a
loop op that may return sits in a `while` run as code, the `while` becomes the loop op rather
than the rest of the frame being traced once per trip (`returns._rest_traced`). Against
plain NumPy (values, Python types of what is returned, the arguments afterwards), compiled
without a break, with the loop op in the graph."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_loops_first_assigned import check
from user_kernels_algorithms import utf8_validate


def two_byte_runs(data):
    i = 0
    n = len(data)
    while i < n:
        b = data[i]
        if b < 0x80:
            i += 1
            continue
        need = 1
        for k in range(1, need + 1):
            if data[i + k] >> 6 != 0b10:
                return False, i
        i += need + 1
    return True, n


def fixed_groups(data, bad):
    i = 0
    n = len(data) - 2
    while i < n:
        for k in range(1, 3):
            if data[i + k] == bad:
                return False, i
        i += 3
    return True, n


def lead_bytes(data):
    i = 0
    n = len(data)
    while i < n:
        b = data[i]
        if b < 0x80:
            i += 1
            continue
        if b >> 5 == 0b110:
            need = 1
        elif b >> 4 == 0b1110:
            need = 2
        else:
            return -1
        if i + need >= n:
            return -2
        i += need + 1
    return i


def first_bad_window(x, width, limit):
    i = 0
    while i + width <= x.shape[0]:
        for k in range(width):
            if x[i + k] > limit:
                return i + k
        i += width
    return -1


def _bytes(seed, n, top=0xF0):
    return np.random.default_rng(seed).integers(0, top, n).astype(np.uint8)


def _has_loop_op(fn, *args) -> bool:
    return any(" = loop(" in text for text in ember.explain(fn, *args).graphs)


@pytest.mark.parametrize("top", [0x80, 0xC8, 0xE0, 0xF0, 0x100])
def test_the_corpus_validator(top):
    valid = np.frombuffer("añ€x𝄞 ok".encode() * 20, dtype=np.uint8).copy()
    check(utf8_validate, [(_bytes(top, 300, top),), (valid,), (valid[:-1],),
                          (valid[:0],)])


def test_a_for_loop_that_returns_after_a_continue():
    check(two_byte_runs, [(_bytes(1, 200, 0x81),), (_bytes(2, 200),),
                          (np.array([0xC3, 0xA9, 0x41], np.uint8),)])
    assert _has_loop_op(two_byte_runs, _bytes(1, 200, 0x81))


def test_a_for_loop_that_returns_as_a_whole_trip():
    data = _bytes(3, 300)
    check(fixed_groups, [(data, 7), (data, 250), (data[:2], 7)])
    assert _has_loop_op(fixed_groups, data, 7)


def test_an_elif_chain_that_returns_on_its_last_path():
    check(lead_bytes, [(_bytes(4, 300),), (_bytes(5, 300, 0xE0),),
                       (np.array([0x41, 0xE2, 0x82], np.uint8),)])


@settings(max_examples=25)
@given(st.integers(0, 2**32 - 1), st.integers(5, 40), st.integers(1, 5),
       st.sampled_from([np.float64, np.float32, np.int64]))
def test_random_windows_match_numpy(seed, n, width, dtype):
    x = (np.random.default_rng(seed).random(n) * 10).astype(dtype)
    ember.reset()
    check(first_bad_window, [(x, width, 9.5), (x, width, 11)])
