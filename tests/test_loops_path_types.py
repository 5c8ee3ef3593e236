"""Loop values whose type differs between the paths of a branch: `x = a[i]` on one path and
`x = 0.0` on the other give a NumPy scalar or a Python number as the data decide, which NumPy
keeps apart (NEP 50: `x + np.float32(1)` is float32 for the Python float and float64 for the
NumPy one; the frame's result prints differently). The merged value is computed as the NumPy
scalar with a flag that says where the Python number's path was taken (`mixed_picks`): uses
that cannot tell the two apart (stores, comparisons, a nested loop that only stores it) keep
one compiled loop; any other use reruns the frame as Python where the flag is set."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy


def relu_last(a):
    for i in range(len(a)):
        if a[i] > 0:
            x = a[i]
        else:
            x = 0.0
        y = x * 2
    return y


def relu_plus_float32(a):
    s = np.float32(0)
    for i in range(len(a)):
        x = a[i] if a[i] > 0 else 0.0
        s = x + np.float32(1)
    return s


def int_or_python_int(a):
    last = 0
    for i in range(len(a)):
        k = a[i] if a[i] > 3 else 0
        last = k * 3
    return last


def printed_each_trip(a):
    for i in range(len(a)):
        x = a[i] if a[i] > 0 else 0.0
        print(x)
    return 0


def relu_stored(a):
    out = np.zeros(len(a))
    for i in range(len(a)):
        if a[i] > 0:
            x = a[i]
        else:
            x = 0.0
        out[i] = x
        if x > 0.5:
            out[i] += -x
    return out


def relu_into_numpy_math(a, w):
    total = np.zeros(1)
    for i in range(len(a)):
        x = a[i] if a[i] > 0 else 0.0
        total[0] += w[i] * x  # a float64 operand decides the type either way
    return total


def clamp_through_a_nested_loop(a, m):
    out = np.zeros((len(a), m))
    for i in range(len(a)):
        v = max(a[i], 0.0)
        for j in range(m):
            out[i, j] = v * a[j % len(a)] + j
    return out


def pick_compared_in_a_nested_loop(a, m):
    out = np.zeros(len(a))
    for i in range(len(a)):
        v = max(a[i], 0.0)
        count = 0
        for j in range(m):
            if a[j] < v:
                count += 1
        out[i] = count
    return out


def pick_told_in_a_nested_loop(a, m):
    out = []
    for i in range(len(a)):
        v = max(a[i], 0.0)
        for j in range(m):
            s = v + np.float32(j)  # float32 for the Python float, float64 for NumPy's
        out.append(s)
    return out


TELLING = [relu_last, relu_plus_float32, int_or_python_int]


@pytest.mark.parametrize("fn", TELLING, ids=lambda f: f.__name__)
@pytest.mark.parametrize("a", [np.linspace(-1, 1, 12), -np.ones(12), np.ones(12),
                               np.arange(-5, 7, dtype=np.int64)], ids=["mixed", "negative",
                                                                       "positive", "int64"])
def test_a_use_that_tells_gives_pythons_type(fn, a):
    assert_behaves_as_numpy(fn, a, compiled_code=False)


@pytest.mark.parametrize("a", [np.linspace(-1, 1, 6), np.ones(4)])
def test_printed_values_look_as_in_python(a):
    assert_behaves_as_numpy(printed_each_trip, a, compiled_code=False)


@pytest.mark.parametrize("a", [np.linspace(-1, 1, 12), -np.ones(12)])
def test_uses_that_cannot_tell_stay_compiled(a):
    assert_behaves_as_numpy(relu_stored, a)
    assert_behaves_as_numpy(relu_into_numpy_math, a, np.linspace(0, 1, len(a)))


@pytest.mark.parametrize("a", [np.linspace(-2, 2, 9), -np.ones(5), np.arange(6.0)])
def test_picks_followed_into_nested_loops_stay_compiled(a):
    assert_behaves_as_numpy(clamp_through_a_nested_loop, a, 7)
    assert_behaves_as_numpy(pick_compared_in_a_nested_loop, a, len(a))


@pytest.mark.parametrize("a", [np.linspace(-2, 2, 9), -np.ones(5)])
def test_a_nested_use_that_tells_reruns(a):
    assert_behaves_as_numpy(pick_told_in_a_nested_loop, a, 3, compiled_code=False)


@seed(20261206)
@settings(max_examples=30, deadline=None)
@given(values=st.lists(st.sampled_from([-2.5, -1.0, 0.0, 0.5, 3.0]), min_size=1,
                       max_size=9),
       dtype=st.sampled_from([np.float64, np.float32, np.int64, np.int32]),
       fn=st.sampled_from([*TELLING, relu_stored]))
def test_random_data_and_dtypes(values, dtype, fn):
    assert_behaves_as_numpy(fn, np.array(values).astype(dtype), compiled_code=False)


def best_local_alignment(a, b, gap):
    n, m = len(a), len(b)
    H = np.zeros((n + 1, m + 1), dtype=np.int64)
    best = 0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            s = 2 if a[i - 1] == b[j - 1] else -1
            h = max(0, H[i - 1, j - 1] + s, H[i - 1, j] - gap, H[i, j - 1] - gap)
            H[i, j] = h
            if h > best:
                best = h
    return best, H


def nearest_shade(points, centers, light):
    out = np.zeros(len(points))
    for p in range(len(points)):
        best = np.inf
        shade = 0.0
        for s in range(len(centers)):
            d = points[p] - centers[s]
            if d < 0:
                continue
            if d < best:
                best = d
                shade = max(light * (1.0 - d), 0.0)
        out[p] = shade
    return out


def nearest_shade_returned(points, centers, light):
    shade = 0.0
    for s in range(len(centers)):
        d = points[0] - centers[s]
        if d >= 0:
            shade = max(light * (1.0 - d), 0.0)
    return shade


def cube_roots(targets, tol):
    out = np.empty(len(targets))
    for k in range(len(targets)):
        a, b = 0.0, max(1.0, targets[k])
        it = 0
        while b - a > tol and it < 200:
            m = (a + b) / 2
            if m ** 3 < targets[k]:
                a = m
            else:
                b = m
            it += 1
        out[k] = (a + b) / 2
    return out


def clamped_scaled_sum(x, w):
    out = np.zeros(len(x))
    for i in range(len(x)):
        v = min(max(x[i], 0.0), 1.0)
        out[i] = (v * 3.0 - 1.0) / 2 + w[i]
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_alignment_scores_carried_through_nested_loops_stay_compiled(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, 4, 12), rng.integers(0, 4, 10)
    assert_behaves_as_numpy(best_local_alignment, a, b, 1)


def test_alignment_with_no_match_is_the_python_int():
    # `best` stays the int 0 (nothing beats it): the frame's result is Python's.
    assert_behaves_as_numpy(best_local_alignment, np.zeros(5, np.int64),
                            np.ones(4, np.int64), 3, compiled_code=False)


@pytest.mark.parametrize("points", [np.linspace(0, 3, 10), np.linspace(-2, -1, 5)])
@pytest.mark.parametrize("light", [0.8, -0.5])
def test_picks_on_paths_carried_out_of_an_inner_loop_and_stored_stay_compiled(points, light):
    centers = np.array([0.5, 1.0, 2.5, -1.0])
    assert_behaves_as_numpy(nearest_shade, points, centers, np.float64(light))


@pytest.mark.parametrize("points", [np.array([3.0]), np.array([0.6]), np.array([-5.0])])
def test_picks_on_paths_returned_give_pythons_type(points):
    centers = np.array([0.5, 1.0, 2.5, -1.0])
    for light in (0.8, -0.5):
        assert_behaves_as_numpy(nearest_shade_returned, points, centers, np.float64(light),
                                compiled_code=False)


@pytest.mark.parametrize("targets", [np.linspace(0.2, 20, 9), np.full(4, 0.5)])
def test_a_pick_that_starts_a_while_loop_stays_compiled(targets):
    assert_behaves_as_numpy(cube_roots, targets, np.float64(1e-9))


def test_arithmetic_with_python_numbers_on_a_pick_stays_compiled():
    x = np.linspace(-1, 2, 13)
    assert_behaves_as_numpy(clamped_scaled_sum, x, np.linspace(0, 1, 13))


def picks_appended(x):
    out = []
    for i in range(len(x)):
        v = x[i] if x[i] > 0 else 0.0
        out.append(v)
        out.append(max(x[i], 0.5) - 0.25)
    return out


@pytest.mark.parametrize("x", [np.linspace(-1, 1, 5), np.ones(3), -np.ones(3)])
def test_a_list_holds_the_object_appended(x):
    assert_behaves_as_numpy(picks_appended, x, compiled_code=False)


def _impurity(counts, total):
    if total == 0:
        return 0.0
    p = counts / total
    return 1.0 - np.sum(p * p)


def split_scores(y, n_classes):
    n = len(y)
    left = np.zeros(n_classes)
    right = np.bincount(y, minlength=n_classes).astype(np.float64)
    scores = np.zeros(n)
    best = np.inf
    for i in range(n):
        left[y[i]] += 1
        right[y[i]] -= 1
        score = ((i + 1) * _impurity(left, i + 1) + (n - i - 1) * _impurity(right, n - i - 1)) / n
        scores[i] = score
        if score < best:
            best = score
    return scores, best


def helper_result_told(x):
    out = []
    for i in range(len(x)):
        out.append(_impurity(x[:2], int(x[i])))
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_a_helper_returning_a_python_float_or_a_numpy_one_stays_compiled(seed):
    y = np.random.default_rng(seed).integers(0, 3, 12)
    assert_behaves_as_numpy(split_scores, y, 3)


def test_a_helper_result_that_tells_gives_pythons_type():
    assert_behaves_as_numpy(helper_result_told, np.array([0.0, 2.0, 0.0, 3.0]),
                            compiled_code=False)


# Random programs of the class: a local bound on the paths of a branch to a NumPy scalar, a
# Python float or a pick of the two, then used in ways that can tell them apart or not.
_INITS = ["0.0", "0", "a[0]", "np.float64(1.5)", "1.0"]
_BOUND = ["a[i]", "0.0", "max(a[i], 0.0)", "min(a[i], 1.0)", "a[i] * 2.0", "-1.0", "x",
          "abs(a[i])", "max(x, a[i])"]
_TESTS = ["a[i] > 0", "a[i] > 0.5", "i % 2 == 0", "a[i] < x"]
_USES = ["out[i] = x", "out[i] = x * 2.0 + 1.0", "out[i] = (x - 0.5) / 2",
         "c = c + (1 if x > 0.2 else 0)", "out[i] = x + np.float32(1)", "lst.append(x)",
         "out[i] = -x", "out[i] = x * a[i]",
         "t = x\n        for j in range(3):\n            t = t + a[j]\n        out[i] = t",
         "t = x\n        for j in range(3):\n            t = t + 0.5\n        lst.append(t)"]
_RESULTS = ["out", "x", "c", "lst", "(out, x)", "x * 2.0", "x + np.float32(0)"]


def _program(init, test, then, orelse, uses, result):
    source = f"""
def branchy(a):
    out = np.zeros(len(a))
    lst = []
    c = 0
    x = {init}
    for i in range(len(a)):
        if {test}:
            x = {then}
        else:
            x = {orelse}
        {uses[0]}
        {uses[1]}
    return {result}
"""
    namespace = {"np": np}
    exec(compile(source, "<branchy>", "exec"), namespace)
    return namespace["branchy"]


_ARRAYS = (np.linspace(-1, 1, 12), -np.ones(12), np.full(12, 2.0), np.arange(12) % 3 - 1.0)


# Programs a generator of this kind found wrong (an earlier ember returned the NumPy scalar,
# or float64 where float32 was due, or a list of NumPy scalars only).
@pytest.mark.parametrize("init, test, then, orelse, uses, result", [
    ("0", "a[i] > 0", "0.0", "a[i] * 2.0", [7, 9], "lst"),
    ("a[0]", "a[i] > 0.5", "a[i] * 2.0", "max(a[i], 0.0)", [2, 3], "x * 2.0"),
    ("0", "i % 2 == 0", "0.0", "abs(a[i])", [3, 9], "lst"),
    ("np.float64(1.5)", "i % 2 == 0", "a[i]", "min(a[i], 1.0)", [7, 0], "x + np.float32(0)"),
    ("0.0", "a[i] < x", "abs(a[i])", "0.0", [2, 0], "x"),
    ("np.float64(1.5)", "a[i] > 0.5", "-1.0", "min(a[i], 1.0)", [6, 4], "(out, x)"),
    ("0.0", "a[i] < x", "a[i] * 2.0", "max(a[i], 0.0)", [5, 1], "lst"),
    ("0.0", "a[i] > 0.5", "-1.0", "a[i]", [8, 5], "lst"),
    ("0", "a[i] > 0", "0.0", "abs(a[i])", [2, 4], "x * 2.0"),
])
def test_programs_found_wrong(init, test, then, orelse, uses, result):
    fn = _program(init, test, then, orelse, [_USES[k] for k in uses], result)
    for a in _ARRAYS:
        assert_behaves_as_numpy(fn, a, compiled_code=False)


@seed(20261208)
@settings(max_examples=40, deadline=None)
@given(init=st.sampled_from(_INITS), test=st.sampled_from(_TESTS),
       then=st.sampled_from(_BOUND), orelse=st.sampled_from(_BOUND),
       uses=st.lists(st.sampled_from(_USES), min_size=2, max_size=2, unique=True),
       result=st.sampled_from(_RESULTS))
def test_random_programs_of_values_whose_type_the_path_decides(init, test, then, orelse,
                                                               uses, result):
    fn = _program(init, test, then, orelse, uses, result)
    for a in _ARRAYS:
        assert_behaves_as_numpy(fn, a, compiled_code=False)


def divided_unless_converted(x, d):
    s = 1.0
    out = np.zeros(len(x))
    for i in range(len(x)):
        if x[i] > 5:
            s = x[i]
        out[i] = s / d  # a Python float raises for a zero divisor, a NumPy float gives inf
    return out


def divided_unless_converted_with_a_pick(x, d):
    s = 1.0
    out = np.zeros(len(x))
    for i in range(len(x)):
        if x[i] > 5:
            s = max(x[i], 6.0)
        out[i] = s / d
    return out


@pytest.mark.parametrize("fn", [divided_unless_converted, divided_unless_converted_with_a_pick])
@pytest.mark.parametrize("x", [np.linspace(0, 4, 9), np.linspace(0, 9, 9)])
@pytest.mark.parametrize("d", [0.0, 2.0])
def test_a_local_some_trips_convert_keeps_pythons_arithmetic(fn, x, d):
    assert_behaves_as_numpy(fn, x, d, compiled_code=False)


def doubled_unless_converted(x):
    s = 1.0
    t = 0.0
    for i in range(len(x)):
        if x[i] > 5:
            s = x[i]
        t = s * 2.0  # a Python float while `s` is one
    return t


def index_unless_converted(x, left):
    out = np.zeros(len(x))
    for i in range(len(x)):
        node = 0
        while left[node] != -1 and x[i] > node:
            node = left[node]
        out[i] = x[node]
    return out


@pytest.mark.parametrize("x", [np.linspace(0, 4, 9), np.linspace(0, 9, 9)])
def test_a_value_made_of_a_local_some_trips_convert_keeps_its_type(x):
    assert_behaves_as_numpy(doubled_unless_converted, x, compiled_code=False)


@pytest.mark.parametrize("x", [np.linspace(0, 4, 9), np.zeros(9) - 1.0])
def test_a_local_some_trips_convert_used_only_as_an_index_stays_compiled(x):
    assert_behaves_as_numpy(index_unless_converted, x, np.array([2, 3, 5, 4, -1, -1, 1, 0, 8]))


def smoother_float32_picks(x):
    att, rel = np.float32(0.9), np.float32(0.99)
    env = np.float32(0.0)
    out = np.empty_like(x)
    for i in range(len(x)):
        level = abs(x[i])
        coeff = att if level > env else rel
        env = coeff * env + (1 - coeff) * level
        out[i] = env
    return out, env


def compressor_gains(x, threshold_db=-20.0):
    att, rel = np.float32(0.9), np.float32(0.995)
    env = np.float32(0.0)
    gains = np.ones_like(x)
    for i, s in enumerate(x):
        coeff = att if abs(s) > env else rel
        env = coeff * env + (1 - coeff) * abs(s)
        level_db = 20.0 * np.log10(env + 1e-9)
        if level_db > threshold_db:
            gains[i] = 10.0 ** ((threshold_db - level_db) * 0.75 / 20.0)
    return x * gains


def count_with_numpy_bool(x):
    yes = np.True_
    n = 0
    for i in range(len(x)):
        flag = yes if x[i] > 0.5 else False
        if flag:
            n += 1
    return n


def picks_of_two_dtypes(x):
    lo, hi = np.float32(0.5), np.float64(2.0)
    last = 0.0
    acc = np.zeros(len(x))
    for i in range(len(x)):
        last = lo if x[i] > 0 else hi
        acc[i] = last * x[i]
    return acc, last


@pytest.mark.parametrize("fn", [smoother_float32_picks, count_with_numpy_bool])
def test_numpy_scalars_made_in_the_frame_picked_on_paths_stay_compiled(fn):
    """`coeff = att if level > env else rel` of NumPy scalars the frame made: strong
    constants the paths merge, so the loop stays one loop op."""
    x = np.random.default_rng(5).standard_normal(200).astype(np.float32)
    ember.reset()
    assert_behaves_as_numpy(fn, x)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]


def test_float32_picks_through_log10_and_power_stay_compiled():
    # As above, through float32 `np.log10` and `**` of NumPy scalars: compiled code takes
    # libm's correctly rounded log10f and powf, where NumPy's SIMD loops (NumPy 2.4 on
    # AVX-512) may be an ulp away (log10f(0.08019316) is -1.0958626, NumPy gives
    # -1.0958627). Values within float32 rounding, NumPy's dtype and shape, one loop op.
    x = np.random.default_rng(5).standard_normal(200).astype(np.float32)
    want = compressor_gains(x.copy())
    ember.reset()
    compiled = ember.compile(compressor_gains)
    for _ in range(2):
        got = compiled(x.copy())
        assert type(got) is np.ndarray and got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats


def test_numpy_scalars_of_two_dtypes_picked_on_paths_keep_numpys_types():
    x = np.random.default_rng(6).standard_normal(200)
    # float32 on one path, float64 on the other: not one value, the frame runs as Python.
    assert_behaves_as_numpy(picks_of_two_dtypes, x, compiled_code=False)
    assert_behaves_as_numpy(picks_of_two_dtypes, -np.abs(x), compiled_code=False)
