"""`min`/`max`/`sorted` with `key=` over a few items whose keys the graph computes
(`capture/variables/keyed.py`): the key inlined on each item, the items picked by compares
of the keys as Python compares them (first of equals, NaN keys as CPython's loop meets
them), in one native loop op where the pick is in a loop body."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy

SPECIAL = [0.0, -0.0, 1.5, -2.0, 1.5, 3.0, np.nan, np.inf, -np.inf]


def cheapest_of_four(cost):
    picks = np.empty(cost.shape[0], dtype=np.int64)
    for t in range(cost.shape[0]):
        picks[t] = min(range(4), key=lambda k: cost[t, k])
    return picks


def dearest_of_four(cost):
    total = 0
    for t in range(cost.shape[0]):
        total += max([0, 1, 2, 3], key=lambda k: cost[t, k])
    return total


def best_pair_of_three(x):
    total = 0.0
    picks = []
    for i in range(len(x) - 2):
        j, v = max(((i, x[i]), (i + 1, x[i + 1]), (i + 2, x[i + 2])), key=lambda p: p[1])
        total += v
        picks.append(j)
    return total, picks


def key_of_python_and_numpy_numbers(x):
    # keys of two types: the constant 0.5 (a Python float) and the data's NumPy floats
    out = []
    for i in range(len(x)):
        out.append(min((0, 1, 2), key=lambda k: 0.5 if k == 1 else x[i] * k))
    return out


def order_of_five(x):
    out = np.empty((len(x) - 4, 5), dtype=np.int64)
    for i in range(len(x) - 4):
        for place, k in enumerate(sorted(range(5), key=lambda k: x[i + k])):
            out[i, place] = k
    return out


def order_of_four_reversed(x):
    acc = []
    for i in range(len(x) - 3):
        order = sorted((3, 1, 0, 2), key=lambda k: x[i + k], reverse=True)
        acc.append(order[0] * 1000 + order[1] * 100 + order[2] * 10 + order[3])
    return acc


def frame_level_argmax_row(w):
    best = max(range(w.shape[0]), key=lambda i: w[i].sum())
    return best, w[best]


def empty_with_default(x):
    lo = min((), key=lambda i: x[i], default=-1)
    return lo + min(range(3), key=lambda i: -x[i])


def empty_without_default(x):
    return min([], key=lambda i: x[i])


def negative_indices(x):
    out = []
    for i in range(1, len(x)):
        out.append(max((-1, -2, 0), key=lambda k: x[k] * i))
    return out


PROGRAMS = [cheapest_of_four, dearest_of_four]


@pytest.mark.parametrize("fn", PROGRAMS)
@seed(5)
@settings(max_examples=20, deadline=None)
@given(values=st.lists(st.sampled_from(SPECIAL), min_size=40, max_size=40))
def test_picks_with_ties_nans_and_infinities(fn, values):
    assert_behaves_as_numpy(fn, np.array(values).reshape(10, 4))


@seed(6)
@settings(max_examples=15, deadline=None)
@given(values=st.lists(st.sampled_from(SPECIAL), min_size=3, max_size=20))
def test_tuple_items_picked_by_their_second(values):
    assert_behaves_as_numpy(best_pair_of_three, np.array(values))


@seed(7)
@settings(max_examples=15, deadline=None)
@given(values=st.lists(st.sampled_from([0.0, -1.0, 0.25, 2.0, 0.5, -0.5]), min_size=1,
                       max_size=12))
def test_keys_of_two_types(values):
    assert_behaves_as_numpy(key_of_python_and_numpy_numbers, np.array(values))


@pytest.mark.parametrize("fn", [order_of_five, order_of_four_reversed])
@seed(8)
@settings(max_examples=20, deadline=None)
@given(values=st.lists(st.sampled_from([0.0, -0.0, 1.0, 2.0, -3.0, 1.0, np.inf]),
                       min_size=5, max_size=20))
def test_sorted_by_key_is_stable(fn, values):
    assert_behaves_as_numpy(fn, np.array(values))


@pytest.mark.parametrize("fn", [order_of_five, order_of_four_reversed])
def test_sorted_by_nan_keys_gives_pythons_order(fn):
    x = np.array([1.0, np.nan, 0.5, 2.0, np.nan, -1.0, 3.0, 0.0, np.nan, 4.0])
    assert_behaves_as_numpy(fn, x, compiled_code=False)


@pytest.mark.parametrize("fn,args", [
    (frame_level_argmax_row, (np.array([[1.0, 2.0], [3.0, 0.0], [-1.0, 4.0]]),)),
    (frame_level_argmax_row, (np.array([[1.0, 2.0], [2.0, 1.0], [0.0, 3.0]]),)),
    (empty_with_default, (np.array([0.5, 2.0, 2.0]),)),
    (empty_without_default, (np.array([0.5, 2.0]),)),
    (negative_indices, (np.array([0.5, -2.0, 2.0, 1.0]),)),
])
def test_frame_level_and_empty_picks(fn, args):
    assert_behaves_as_numpy(fn, *args)


@pytest.mark.parametrize("fn,shape", [(cheapest_of_four, (50, 4)), (order_of_five, (60,)),
                                      (best_pair_of_three, (40,))])
def test_picks_in_a_long_loop_are_one_loop_op(fn, shape):
    x = np.random.default_rng(1).random(shape)
    ember.reset()
    compiled = ember.compile(fn)
    for _ in range(2):
        got, want = compiled(x.copy()), fn(x.copy())
        assert repr(got) == repr(want)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0 and stats["compiles"] == 1, stats["break_reasons"]
    assert stats["entry_fallbacks"] == 0 and stats["region_recaptures"] == 0


def test_many_items_keep_breaking_correctly():
    def pick(x):
        return min(range(len(x)), key=lambda i: x[i])

    assert_behaves_as_numpy(pick, np.random.default_rng(2).random(100), compiled_code=False)


# Lists of tuples a loop op built, picked or sorted after it by a key that picks columns
# (`variables/built_lists.py: key_columns`).

def best_scored_after(x):
    items = []
    for i in range(len(x)):
        items.append((i, x[i] * 2.0))
    return max(items, key=lambda t: t[1])


def least_of_some_after(x):
    items = []
    for i in range(len(x)):
        if x[i] > 0.3:
            items.append((i, x[i]))
    return min(items, key=lambda t: t[1]), len(items)


def buckets_sorted_descending(x):
    pairs = []
    for i in range(len(x)):
        pairs.append((int(x[i] * 5), i))
    return sorted(pairs, key=lambda p: p[0], reverse=True)


def sorted_in_place_by_two_columns(x):
    rows = []
    for i in range(len(x)):
        rows.append((i, np.round(x[i], 1), i % 3))
    rows.sort(key=lambda r: (r[2], r[1]))
    return rows


def lists_sorted_by_second(x):
    pairs = []
    for i in range(len(x)):
        pairs.append([i, int(x[i] * 4)])
    return sorted(pairs, key=lambda p: p[1])


def key_that_computes(x):
    items = []
    for i in range(len(x)):
        items.append((i, x[i]))
    return max(items, key=lambda t: t[1] * t[0])


BUILT = [best_scored_after, least_of_some_after, buckets_sorted_descending,
         sorted_in_place_by_two_columns, lists_sorted_by_second]


@pytest.mark.parametrize("fn", BUILT)
@seed(9)
@settings(max_examples=12, deadline=None)
@given(values=st.lists(st.sampled_from([0.0, 0.2, 0.35, 0.5, 0.5, 0.9, -0.0]),
                       min_size=1, max_size=40))
def test_built_lists_picked_and_sorted_by_key_columns(fn, values):
    assert_behaves_as_numpy(fn, np.array(values))


@pytest.mark.parametrize("fn", BUILT)
def test_built_list_key_columns_compile_without_breaks(fn):
    x = np.random.default_rng(4).random(50)
    ember.reset()
    compiled = ember.compile(fn)
    for _ in range(2):
        assert repr(compiled(x.copy())) == repr(fn(x.copy()))
    stats = ember.stats()
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]


@pytest.mark.parametrize("fn,x", [
    (best_scored_after, np.array([0.5, np.nan, 2.0, np.nan])),
    (least_of_some_after, np.array([0.1, 0.2, 0.0])),  # nothing appended: ValueError
    (least_of_some_after, np.array([])),
    (buckets_sorted_descending, np.array([])),
    (key_that_computes, np.array([0.5, 2.0, 1.0])),
])
def test_built_list_keys_that_rerun_or_break_stay_pythons(fn, x):
    assert_behaves_as_numpy(fn, x, compiled_code=False)


# Many items, keys looked up in an array (`keyed.looked_up_keys`): the keys of all items at
# once, an arg-reduction or a stable argsort of them.

RANK = np.array([3, 1, 2, 0, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14] * 2)


def ranked_by_negated_score(score):
    return sorted(range(len(score)), key=lambda i: -score[i])


def ranked_descending_with_ties(score):
    return sorted(range(len(score)), key=lambda i: score[i], reverse=True)


def least_of_many(d):
    return min(range(d.shape[0]), key=lambda i: d[i])


def greatest_of_odd_places(d):
    return max(range(1, len(d), 2), key=lambda i: d[i])


def passing_ranked(score):
    idx = []
    for i in range(len(score)):
        if score[i] > 0.2:
            idx.append(i)
    return sorted(idx, key=lambda i: -score[i])[:5], max(idx, key=lambda i: score[i])


def ranked_by_global_table(x):
    return sorted(range(len(x)), key=lambda i: RANK[i])[:3], x.sum()


def ranked_by_a_rows_second(m):
    return sorted(range(m.shape[0]), key=lambda i: m[i][1])


def ranked_by_negated_ints(c):
    return sorted(range(len(c)), key=lambda i: -c[i])


def greatest_row(m):
    return max(range(m.shape[0]), key=lambda i: m[i])


LOOKED_UP = [ranked_by_negated_score, ranked_descending_with_ties, least_of_many,
             greatest_of_odd_places, passing_ranked]


@pytest.mark.parametrize("fn", LOOKED_UP)
@seed(10)
@settings(max_examples=12, deadline=None)
@given(values=st.lists(st.sampled_from([0.0, -0.0, 0.1, 0.5, 0.5, 0.9, -3.0, np.inf]),
                       min_size=70, max_size=90))
def test_many_items_by_looked_up_keys(fn, values):
    assert_behaves_as_numpy(fn, np.array(values))


@pytest.mark.parametrize("fn", LOOKED_UP)
def test_looked_up_keys_compile_without_breaks(fn):
    x = np.round(np.random.default_rng(5).random(80), 1)
    ember.reset()
    compiled = ember.compile(fn)
    for _ in range(2):
        assert repr(compiled(x.copy())) == repr(fn(x.copy()))
    stats = ember.stats()
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]


@pytest.mark.parametrize("fn,x", [
    (ranked_by_negated_score, np.where(np.arange(70) % 9 == 4, np.nan, np.arange(70.0) % 7)),
    (least_of_many, np.where(np.arange(70) % 9 == 0, np.nan, np.arange(70.0) % 7)),
    (passing_ranked, np.zeros(70)),  # nothing passes: max() of an empty list raises
    (ranked_by_global_table, np.arange(20.0)),
    (ranked_by_global_table, np.arange(40.0)),  # past the table: IndexError
    (ranked_by_a_rows_second, np.round(np.random.default_rng(6).random((20, 3)), 1)),
    (ranked_by_negated_ints, np.random.default_rng(7).integers(0, 5, 30)),
    (greatest_row, np.random.default_rng(8).random((70, 2))),  # arrays compared: ValueError
])
def test_other_keys_and_reruns_stay_pythons(fn, x):
    assert_behaves_as_numpy(fn, x, compiled_code=False)


def nearest_to_zero_in_loop(x):
    out = []
    for i in range(len(x) - 2):
        out.append(min((x[i], x[i + 1], x[i + 2]), key=abs) + min([3, -1, 2], key=abs))
    return out


@seed(11)
@settings(max_examples=15, deadline=None)
@given(values=st.lists(st.sampled_from([0.0, -0.0, 0.5, -0.5, 1.0, -2.0, np.nan]),
                       min_size=3, max_size=30))
def test_builtin_key_functions(values):
    assert_behaves_as_numpy(nearest_to_zero_in_loop, np.array(values))


def nearer_to_zero_of_two(x):
    out = []
    for i in range(len(x) - 1):
        out.append(max(x[i], x[i + 1], key=abs) * min(x[i], -x[i + 1], key=lambda v: v * v))
    return out


@seed(12)
@settings(max_examples=15, deadline=None)
@given(values=st.lists(st.sampled_from([0.0, -0.0, 0.5, -0.5, 1.0, -2.0, np.nan]),
                       min_size=2, max_size=30))
def test_key_over_several_arguments(values):
    assert_behaves_as_numpy(nearer_to_zero_of_two, np.array(values))
