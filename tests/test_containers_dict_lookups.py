"""Lookups of a dict of constant int keys at an int the graph computes in loop bodies
(`table[k]`, `table.get(k, default)`, `k in table`, `k not in table` with `k =
int(codes[i])`), and membership in constant sets and tuples of ints: one select per key (`capture/variables/dict_lookups.py`).
Each must equal plain Python: the value's type, bool keys equal to 0 and 1, a missing key's
KeyError (the frame reruns as Python), a dict argument changed between calls; float keys and
values of several types keep breaking the graph and stay correct."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy


def recode_get(codes, table, default):
    out = np.empty(len(codes), dtype=np.float64)
    for i in range(len(codes)):
        out[i] = table.get(int(codes[i]), default)
    return out


def recode_index(codes, table):
    total = 0
    for i in range(len(codes)):
        total += table[int(codes[i])]
    return total


def count_known(codes, table):
    known = 0
    unknown = 0
    for i in range(len(codes)):
        if int(codes[i]) in table:
            known += 1
        if codes[i] not in table:
            unknown += 1
    return known, unknown


def built_before_loop(codes):
    weights = {0: 0.5, 1: 1.5, 3: -2.0, 7: 4.25}
    s = 0.0
    for i in range(len(codes)):
        s += weights.get(int(codes[i]), 0.0) * codes[i]
    return s


def at_frame_level(codes, table):
    return table.get(int(codes[0]), -1), int(codes[1]) in table


_keys = st.integers(-3, 12)
_int_tables = st.dictionaries(_keys, st.integers(-100, 100), min_size=1, max_size=10)
_float_tables = st.dictionaries(_keys, st.floats(-1e3, 1e3, allow_nan=False), min_size=1,
                                max_size=10)
_codes = st.lists(_keys, min_size=1, max_size=30).map(lambda v: np.array(v, dtype=np.int64))


@settings(derandomize=True, deadline=None, max_examples=40)
@given(_codes, st.one_of(_int_tables, _float_tables))
def test_get_with_default(codes, table):
    default = -1 if type(next(iter(table.values()))) is int else -1.0
    assert_behaves_as_numpy(recode_get, codes, table, default)


@settings(derandomize=True, deadline=None, max_examples=40)
@given(_codes, _int_tables)
def test_index_and_key_error(codes, table):
    # A missing key raises KeyError in Python: the compiled frame reruns as Python there.
    missing = any(int(c) not in table for c in codes)
    assert_behaves_as_numpy(recode_index, codes, table, compiled_code=not missing)


@settings(derandomize=True, deadline=None, max_examples=40)
@given(_codes, _int_tables)
def test_membership(codes, table):
    assert_behaves_as_numpy(count_known, codes, table)


@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.int16, np.bool_])
def test_key_dtypes_and_bool_keys(dtype):
    codes = np.array([0, 1, 1, 0, 1, 2, 3], dtype=np.int64).astype(dtype)
    for table in ({True: 2.5, 0: 1.0}, {1: 3.0, 2: 4.0, 3: 5.0}, {False: 7.0}):
        assert_behaves_as_numpy(recode_get, codes, table, 0.0)
        assert_behaves_as_numpy(count_known, codes, table)


def test_dict_built_before_the_loop():
    codes = np.random.default_rng(0).integers(0, 9, 200)
    assert_behaves_as_numpy(built_before_loop, codes)


def test_frame_level():
    # A dict looked up at the frame's level breaks the graph (by design), and stays right.
    assert_behaves_as_numpy(at_frame_level, np.array([3, 5]), {3: 10, 4: 11},
                            compiled_code=False)
    assert_behaves_as_numpy(at_frame_level, np.array([2, 4]), {3: 10, 4: 11},
                            compiled_code=False)


def test_dict_argument_changed_between_calls():
    codes = np.array([1, 2, 3, 2])
    table = {1: 10.0, 2: 20.0}
    ember.reset()
    compiled = ember.compile(recode_get)
    assert np.array_equal(compiled(codes, table, 0.0), recode_get(codes, table, 0.0))
    table[3] = 30.0
    table[2] = -1.0
    assert np.array_equal(compiled(codes, table, 0.0), recode_get(codes, table, 0.0))


def test_values_of_two_types_stay_python():
    codes = np.array([1, 2, 3, 2])
    assert_behaves_as_numpy(recode_get, codes, {1: 1, 2: 2.5}, 0.0, compiled_code=False)
    # float keys: 2.0 == 2, -0.0 == 0, NaN never equal: left to Python
    assert_behaves_as_numpy(recode_get, codes, {2.0: 1.5, -0.0: 3.0}, 0.0,
                            compiled_code=False)


def test_loop_compiles_whole():
    codes = np.random.default_rng(1).integers(0, 12, 300)
    ember.reset()
    compiled = ember.compile(recode_get)
    table = {k: 3.0 * k for k in range(0, 12, 3)}
    for _ in range(2):
        assert np.array_equal(compiled(codes, table, -1.0), recode_get(codes, table, -1.0))
    stats = ember.stats()
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]


def in_constant_sets(codes):
    n = 0
    for i in range(len(codes)):
        if int(codes[i]) in {1, 3, 5, -2}:
            n += 1
        if codes[i] not in (2, 4, True):
            n += 10
    return n


def in_float_tuple(values):
    n = 0
    for i in range(len(values)):
        if values[i] in (0.5, -0.0):  # float items: left to Python (NaN, -0.0)
            n += 1
    return n


@settings(derandomize=True, deadline=None, max_examples=30)
@given(st.lists(st.integers(-3, 7), min_size=1, max_size=30))
def test_membership_in_constant_sets_and_tuples(values):
    for dtype in (np.int64, np.int8):
        assert_behaves_as_numpy(in_constant_sets, np.array(values, dtype=dtype))


def test_membership_in_a_float_tuple_stays_right():
    values = np.array([0.5, 0.0, -0.0, np.nan, 1.0])
    assert_behaves_as_numpy(in_float_tuple, values, compiled_code=False)
