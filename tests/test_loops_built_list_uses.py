"""Lists a loop op built, used after the loop as whole lists: NumPy functions of them
(`np.mean(lst)`, `np.dot(lst, w)`), `max(lst)`/`min(lst)`, `sorted(lst)` and `lst.sort()`
(numbers and tuples, `reverse=`), `lst[a:b]`, `enumerate(lst)`, and list comprehensions over
them. Each must equal plain Python (values, types, order of equal items, signed zeros, the
ValueError of an empty `max`) and compile without a graph break."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy, assert_compiles_whole


def _positives(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            out.append(x[i] * 2)
    return out


def _every(x):
    out = []
    for i in range(x.shape[0]):
        out.append(float(x[i]) - 0.5)
    return out


def numpy_of_list(x):
    out = _positives(x)
    return np.mean(out), np.median(out), np.sum(out), np.max(out)


def numpy_of_full_list(x, w):
    out = _every(x)
    return np.multiply(out, w), np.percentile(out, 75), np.argmax(out), np.cumsum(out)


def builtin_extrema(x):
    out = _positives(x)
    return max(out), min(out)


def extrema_of_python_ints(x):
    counts = []
    for i in range(x.shape[0]):
        if x[i] > -0.5:
            counts.append(int(x[i] * 10) % 7)
    return max(counts), min(counts), counts


def extrema_of_bools(x):
    flags = [bool(v > 0) for v in x]
    return max(flags), min(flags)


def sorted_numbers(x):
    out = _positives(x)
    s = sorted(out)
    return s, np.array(s[:3])


def sorted_descending(x):
    out = _every(x)
    top = sorted(out, reverse=True)[:4]
    return top


def sort_in_place(x):
    out = _positives(x)
    alias = out
    out.sort()
    return alias, len(out)


def sorted_pairs(x):
    pairs = []
    for i in range(x.shape[0]):
        pairs.append((round(float(x[i])), i))
    pairs.sort()
    return [p[1] for p in pairs[:5]], pairs


def sorted_pairs_reverse(x):
    pairs = []
    for i in range(x.shape[0]):
        if x[i] > -1.0:
            pairs.append((int(x[i] > 0), i))
    return sorted(pairs, reverse=True)


def slices(x):
    out = _positives(x)
    return out[1:4], out[-3:], out[:-2], out[5:2], out[:]


def enumerated(x):
    out = _positives(x)
    s = 0.0
    for k, v in enumerate(out):
        s += k * v
    t = 0.0
    for k, v in enumerate(out, 1):
        t += v / k
    return s, t


def comprehension_over(x):
    out = _positives(x)
    return [v * v for v in out]


def median_by_sorting(x):
    vals = []
    for i in range(len(x)):
        if x[i] == x[i]:
            vals.append(x[i])
    vals.sort()
    n = len(vals)
    lower, upper = vals[(n - 1) // 2], vals[n // 2]
    return 0.5 * (lower + upper), vals[-n]


def median_with_branches(x):
    vals = []
    for i in range(len(x)):
        if x[i] == x[i]:
            vals.append(x[i])
    vals.sort()
    n = len(vals)
    if n % 2 == 1:
        return vals[n // 2]
    return 0.5 * (vals[n // 2 - 1] + vals[n // 2])


def read_in_a_branch(x):
    out = _positives(x)
    if len(out) > 3:
        t = out[3] + out[-1]
    else:
        t = 0.0
    return t, len(out)


def searches(x):
    out = _positives(x)
    ints = [int(v * 3) for v in x]
    return (out.index(max(out)), out[2] in out, (out[1] + 0.25) not in out,
            ints.count(0), ints.count(-1), 5 in ints, ints.index(ints[-1]))


def searches_of_tuples(x):
    cells = []
    for i in range(len(x)):
        cells.append((int(x[i] * 2), i % 3))
    return (cells[4] in cells, (9, 9) in cells, cells.count(cells[0]), cells.index(cells[-1]),
            (0, 0) not in cells)


def reversing(x):
    out = _positives(x)
    back = out[::-1]
    copy = list(out)
    out.reverse()
    return back, out, copy


def zipped(x, w):
    out = _positives(x)
    steps = 0.0
    for a, b in zip(out, out[1:]):
        steps += b - a
    dot = 0.0
    for v, u in zip(out, w):
        dot += v * u
    pairs = [(i, 2 * i) for i in range(len(out))]
    third = 0.0
    for (i, j), v in zip(pairs, out):
        third += i * v - j
    return steps, dot, third


def truths(x):
    flags = [v > 1.0 for v in x]
    ints = [int(v) for v in x if v > -1.0]
    cells = [(int(v), 0) for v in x if v > 5.0]
    return any(flags), all(flags), any(ints), all(ints), any(cells), all(cells)


def indexed_loop(x):
    out = _positives(x)
    s = 0.0
    for i in range(len(out)):
        s += out[i] * i
    diffs = []
    for i in range(1, len(out)):
        diffs.append(out[i] - out[i - 1])
    return s, diffs


def index_by_run_time_ints(x, k):
    vals = [v for v in x if v > 0]
    return vals[k], vals[len(vals) - 1], vals[-len(vals)]


def k_nearest(points, q, k):
    d = []
    for i in range(points.shape[0]):
        dx = points[i, 0] - q[0]
        dy = points[i, 1] - q[1]
        d.append((dx * dx + dy * dy, i))
    d.sort()
    return [i for _, i in d[:k]]


CASES = [
    (numpy_of_list, lambda r: (r.standard_normal(40),)),
    (numpy_of_full_list, lambda r: (r.standard_normal(30), r.standard_normal(30))),
    (builtin_extrema, lambda r: (r.standard_normal(50),)),
    (extrema_of_python_ints, lambda r: (r.standard_normal(50),)),
    (extrema_of_bools, lambda r: (r.standard_normal(20),)),
    (sorted_numbers, lambda r: (r.standard_normal(50),)),
    (sorted_descending, lambda r: (r.standard_normal(25),)),
    (sort_in_place, lambda r: (r.standard_normal(50),)),
    (sorted_pairs, lambda r: (2 * r.standard_normal(30),)),
    (sorted_pairs_reverse, lambda r: (r.standard_normal(30),)),
    (slices, lambda r: (r.standard_normal(40),)),
    (enumerated, lambda r: (r.standard_normal(40),)),
    (comprehension_over, lambda r: (r.standard_normal(40),)),
    (median_by_sorting, lambda r: (r.standard_normal(41),)),
    (median_with_branches, lambda r: (r.standard_normal(40),)),
    (read_in_a_branch, lambda r: (r.standard_normal(40),)),
    (searches, lambda r: (r.standard_normal(40),)),
    (searches_of_tuples, lambda r: (r.standard_normal(40),)),
    (reversing, lambda r: (r.standard_normal(40),)),
    (zipped, lambda r: (r.standard_normal(40), r.standard_normal(7))),
    (truths, lambda r: (r.standard_normal(40),)),
    (indexed_loop, lambda r: (r.standard_normal(40),)),
    (index_by_run_time_ints, lambda r: (r.standard_normal(41), np.int32(-2))),
    (k_nearest, lambda r: (r.standard_normal((60, 2)), np.array([0.1, -0.2]), 5)),
]


@pytest.mark.parametrize(("fn", "make"), CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_uses_of_a_built_list_behave_as_python_and_compile(fn, make):
    args = make(np.random.default_rng(5))
    assert_behaves_as_numpy(fn, *args)
    assert_compiles_whole(fn, args)


def test_spread_and_products_of_a_list_within_rounding():
    import ember

    def std_of(x, w):
        return np.std(_positives(x)), np.var(_positives(x)), np.dot(_every(x), w)

    x, w = np.random.default_rng(3).standard_normal((2, 60))
    np.testing.assert_allclose(ember.compile(std_of)(x, w), std_of(x, w), rtol=1e-13)


def appended_in_a_branch(x):
    out = _positives(x)
    if len(out) > 2:
        out.append(1.0)
    else:
        out.sort()
    return out


def test_a_branch_reading_a_built_list_on_either_path():
    for x in (np.array([1.0, -2.0, 3.0]), np.array([1.0, 2.0, 3.0, 4.0])):
        assert_behaves_as_numpy(median_with_branches, x)
        assert_behaves_as_numpy(read_in_a_branch, x)
        # A path that changes the list breaks the graph at the branch.
        assert_behaves_as_numpy(appended_in_a_branch, x)


def index_of_missing(x):
    out = _positives(x)
    return out.index(0.5), 0.5 in out


def test_searching_a_built_list_as_python():
    # Not found: ValueError, as Python raises it; NaN looked for: only identity finds it.
    assert_behaves_as_numpy(index_of_missing, np.array([1.0, 0.25, 2.0]), compiled_code=False)
    assert_behaves_as_numpy(index_of_missing, np.array([1.0, 0.25, 2.0, -3.0]))

    def nan_search(x):
        out = [v for v in x]
        v = out[1]
        return v in out, out.count(v), out.index(v)

    assert_behaves_as_numpy(nan_search, np.array([1.0, np.nan, 2.0]), compiled_code=False)
    assert_behaves_as_numpy(nan_search, np.array([1.0, 7.0, 7.0]))


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_loops_over_the_places_of_a_built_list_of_any_length(n):
    # No trip leaves `s` a Python float: such a call reruns as Python.
    x = np.concatenate([np.arange(1.0, n + 1.0), -np.ones(3)])
    assert_behaves_as_numpy(indexed_loop, x, compiled_code=n > 1)


def comprehensions_not_loop_ops(x):
    out = _positives(x)
    names = [str(i) for i in range(len(out))]
    kept = {}
    firsts = [kept.setdefault(i, v) for i, v in enumerate(out)]
    texts = [repr(v) for v in out]
    return names, firsts, texts, kept


def comprehension_over_places(x):
    out = _positives(x)
    pairs = [(i, 2 * i) for i in range(len(out))]
    third = 0.0
    for (i, j), v in zip(pairs, out):
        third += i * v - j
    return third, pairs


def test_comprehensions_over_a_built_list_or_its_places():
    # A comprehension whose body is no loop op runs in Python over the real items.
    x = np.random.default_rng(2).standard_normal(12)
    assert_behaves_as_numpy(comprehensions_not_loop_ops, x)
    assert_behaves_as_numpy(comprehension_over_places, x)
    assert_compiles_whole(comprehension_over_places, (x,))


def filtered_comprehensions(x, t):
    above = [v for v in x if v >= t]
    doubled = [2 * x[i] for i in range(len(x)) if x[i] < t]
    return above, doubled


def closure_cells_in_comprehension_loops(grid, t):
    h, w = grid.shape
    cells = [(i, j) for i in range(h) for j in range(w) if grid[i, j] >= t]
    return [grid[i, j] * t for i in range(h) for j in range(w)], cells


@pytest.mark.parametrize("n", [3, 8, 40])
def test_filtered_comprehensions_of_short_and_long_arrays(n):
    # A short one unrolls first, then is captured again as a loop op at its branch on data.
    x = np.random.default_rng(n).integers(0, 8, n)
    assert_behaves_as_numpy(filtered_comprehensions, x, 4)
    assert_compiles_whole(filtered_comprehensions, (x, 4))
    grid = x[: n - n % 2].reshape(2, -1)
    assert_behaves_as_numpy(closure_cells_in_comprehension_loops, grid, 3)
    assert_compiles_whole(closure_cells_in_comprehension_loops, (grid, 3))


def test_run_time_index_outside_a_built_list_raises_as_python():
    x = np.array([1.0, -2.0, 3.0])
    assert_behaves_as_numpy(index_by_run_time_ints, x, 1)
    assert_behaves_as_numpy(index_by_run_time_ints, x, 2, compiled_code=False)  # IndexError
    assert_behaves_as_numpy(index_by_run_time_ints, x, -3, compiled_code=False)


@pytest.mark.parametrize("x", [np.array([-1.0, -2.0]), np.array([])])
def test_max_of_an_empty_built_list_raises_as_python(x):
    assert_behaves_as_numpy(builtin_extrema, x, compiled_code=False)  # ValueError


def test_signed_zeros_and_ties_keep_pythons_order():
    # Python's max/min keep the first of equal items; sorted() keeps equal items in order.
    x = np.array([0.0, -0.0, 1.0, -0.0, 0.0, -1.0, 1.0])

    def picks(x):
        out = []
        for i in range(len(x)):
            out.append(x[i] * 1.0)
        z = [v for v in out if v == 0.0]
        return max(z), min(z), sorted(out), sorted(out, reverse=True), max(out), min(out)

    assert_behaves_as_numpy(picks, x)
    assert_behaves_as_numpy(sorted_numbers, np.array([0.5, -0.0, 0.0, 2.0, 0.5]))


def test_nan_in_a_built_list_gives_pythons_answer():
    # Python's comparisons with NaN make max() and sorted() depend on where NaN is: the
    # frame runs as Python.
    x = np.array([1.0, np.nan, 3.0, 2.0])
    assert_behaves_as_numpy(builtin_extrema, x, compiled_code=False)
    assert_behaves_as_numpy(sorted_numbers, x, compiled_code=False)
    assert_behaves_as_numpy(sorted_descending, np.array([np.nan, 1.0, 0.0]),
                            compiled_code=False)


@seed(73)
@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-3, 3), max_size=25), st.booleans())
def test_sorting_random_lists_as_python(values, reverse):
    def f(x, reverse):
        pairs = []
        for i in range(len(x)):
            if x[i] != 0:
                pairs.append((int(x[i]) % 3, float(x[i]) * 0.5))
        keys = [p[0] for p in pairs]
        return sorted(pairs, reverse=reverse), sorted(keys, reverse=reverse), pairs[1:-1]

    # No item: nothing is left for a graph to compute.
    assert_behaves_as_numpy(f, np.array(values, dtype=np.int64), reverse,
                            compiled_code=bool(values))


def _many_uses(x, python_numbers, filtered):
    out = []
    for i in range(len(x)):
        if not filtered or x[i] != 1.0:
            out.append(float(x[i]) if python_numbers else x[i])
    return [len(out), sorted(out), sorted(out, reverse=True), out[1:-1], out[::-1],
            0.0 in out, out.count(-0.0), any(out), all(out)]


def _extremes(x, python_numbers):
    out = []
    for i in range(len(x)):
        out.append(float(x[i]) if python_numbers else x[i])
    return max(out), min(out), out.index(out[-1]), out[len(out) // 2], sorted(out)[0]


@seed(79)
@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, -2.5, np.inf, np.nan]),
                max_size=12), st.booleans())
def test_random_lists_of_special_numbers_as_python(values, python_numbers):
    # Signed zeros, infinities, NaN and ties: values, types and order as Python's; the
    # list known in length (every trip appends) and not.
    x = np.array(values, dtype=np.float64)
    for filtered in (False, True):
        assert_behaves_as_numpy(_many_uses, x, python_numbers, filtered, compiled_code=False)
    if values:
        assert_behaves_as_numpy(_extremes, x, python_numbers, compiled_code=False)
    if values and not np.isnan(x).any():
        assert_compiles_whole(_many_uses, (x, python_numbers, True))
        assert_compiles_whole(_extremes, (x, python_numbers))


def alias_across_a_reading_loop(x):
    out = _positives(x)
    alias = out
    s = 0.0
    for i in range(len(out)):
        s += out[i]
    out.append(x[0] * 2)
    return alias, s, alias is out


def test_a_loop_reading_a_list_leaves_it_the_object_its_aliases_hold():
    x = np.random.default_rng(4).standard_normal(30)
    assert_behaves_as_numpy(alias_across_a_reading_loop, x)
    assert_compiles_whole(alias_across_a_reading_loop, (x,))
