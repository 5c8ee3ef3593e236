"""More programs of an adversarial user, on numerics and indexing corners: NumPy scalar math
that warns (`abs(np.int8(-128))`, float32 and float64 overflow, unsigned wrap under NEP 50),
casts that overflow into float16 and integers, float floor division and modulo by zero,
signed zeros through `sqrt`, `sort` and `clip`, NaN through Python's `min`/`max`, fancy-index
updates with repeated indices (`x[[0, 0]] += 1` adds once, `np.add.at` twice), and the
exact messages of the errors NumPy raises for bad indices, shapes and empty reductions.
Each runs unwrapped and compiled on both backends, compared as a `record`."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, called_twice, define

X = np.array([-2.5, -0.0, 0.0, 1.5, 3.0, np.nan, 7.25])
I8 = np.array([-128, -1, 0, 1, 127], dtype=np.int8)

PROGRAMS = {
    "scalar_absolute_and_negative_of_int8_min":
        ("def f(a):\n    s = a[0]\n    return abs(s), -s, np.abs(a), -a\n", I8),
    "scalar_float32_and_float64_overflow":
        ("def f(x):\n    s = np.float32(3e38)\n    t = x[4] * 1e308\n    return s * np.float32(10), t * 10\n",
         X),
    "unsigned_scalar_wrap_with_python_ints":
        ("def f(a):\n    s = a[1]\n    return s + 100, s - 250, a + 100\n",
         np.array([5, 200], dtype=np.uint8)),
    "int64_scalar_plus_one_at_the_top":
        ("def f(a):\n    s = a.max()\n    return s + 1, a + 1, s * 2\n",
         np.array([1, np.iinfo(np.int64).max])),
    "casts_into_float16_and_small_ints_overflow":
        (("def f(x):\n    return x.astype(np.float16), (x * 1e6).astype(np.float16), "
          "x.astype(np.int16)\n"), np.array([1.0, 70000.0, -1e5, 3.5])),
    "float_floor_divide_and_modulo_by_zero":
        ("def f(x, y):\n    return x // y, x % y, np.floor_divide(x, 0.0), np.mod(x, -0.0)\n",
         X, np.array([0.0, 2.0, -0.0, -1.0, 0.0, 1.0, np.inf])),
    "integer_modulo_and_divide_by_zero_through_ufuncs":
        (("def f(a, b):\n    return np.mod(a, b), np.floor_divide(a, b), np.fmod(a, b), "
          "np.divmod(a, 0)\n"), np.array([5, -5, 0, 7]), np.array([0, 3, 0, -2])),
    "signed_zeros_through_sqrt_sort_and_clip":
        (("def f(x):\n    return np.sqrt(np.array([-0.0, 0.0])), np.sort(x), np.clip(x, 1.0, 0.0), "
          "np.clip(x, -0.0, 0.0)\n"), X),
    "nan_through_python_min_and_max":
        ("def f(x):\n    v = list(x)\n    return min(v), max(v), min(x[5], x[0]), max(x[0], x[5])\n", X),
    "argmax_of_all_nan_and_empty":
        (("def f(x):\n    n = np.full(3, np.nan)\n    r = (n.argmax(), np.nanmax(x))\n"
          "    return r, x[:0].argmax()\n"), X),
    "fancy_index_update_with_repeats":
        (("def f(x):\n    x[[0, 0, 1]] += 1\n    np.add.at(x, [2, 2, 2], 1)\n    x[[3, 3]] = [10, 20]\n"
          "    return x\n"), np.zeros(6)),
    "mask_update_through_a_reversed_view":
        ("def f(x):\n    v = x[::-1]\n    v[v > 1] *= -1\n    return x, v\n", X.copy()),
    "index_error_message":
        ("def f(x):\n    y = x * 2\n    return y[x.shape[0] + 2]\n", X),
    "reshape_error_message":
        ("def f(x):\n    return (x + 1).reshape(4, -1)\n", X),
    "matmul_shape_error_message":
        ("def f(x):\n    m = x[:6].reshape(2, 3)\n    return m @ m\n", X),
    "boolean_subtract_raises":
        ("def f(b):\n    return b - b\n", np.array([True, False])),
    "empty_max_raises":
        ("def f(x):\n    y = x[x > 100]\n    return y.max()\n", X),
    "item_and_tolist_types":
        (("def f(a, x):\n    return a.item(0), type(a.item(0)).__name__, x.tolist(), "
          "a.sum().item(), float(x[3]), int(a[1])\n"), np.array([3, 4], dtype=np.int32), X[:4]),
    "int_of_huge_float_raises":
        ("def f(x):\n    return int(x[0] * 1e308 * 10)\n", np.array([1.0])),
    "round_builtin_on_numpy_scalars":
        (("def f(x):\n    return round(x[3]), round(x[4], 1), round(np.float32(2.5)), "
          "round(x[0])\n"), X),
    "uint64_mixed_with_int64":
        ("def f(u, a):\n    return u + a, (u + a).dtype, u + 1, u - u[::-1]\n",
         np.array([1, 2**63], dtype=np.uint64), np.array([-1, 1])),
    "exp_and_log_of_numpy_scalars_warn":
        (("def f(x):\n    s = np.float32(x[4]) * np.float32(40)\n    return np.exp(s), np.log(x[2]), "
          "np.log(x[1])\n"), X),
    "short_circuit_any_all_with_side_effects":
        (("def f(x, log):\n    def check(v):\n        log.append(float(v))\n        return v > 1\n"
          "    return any(check(v) for v in x), all(check(v) for v in x[::-1]), log\n"), X, []),
    "generator_with_side_effects_left_by_break_and_next":
        (("def f(x, log):\n    def seen(v):\n        log.append(float(v))\n        return v * 2\n"
          "    t = x[0] * 0\n    for v in (seen(w) for w in x):\n        if v > 2:\n"
          "            break\n        t = t + v\n"
          "    first = next(seen(w) for w in x[::-1])\n    return t, first, log\n"), X, []),
    "map_with_side_effects_consumed_partly":
        (("def f(x, log):\n    def check(v):\n        log.append(float(v))\n        return v > 1\n"
          "    return any(map(check, x)), list(zip(map(check, x), [1])), log\n"), X[2:], []),
    "warnings_of_short_row_sums_and_dots_in_a_loop":
        (("def f(x, y):\n    t = 0.0\n    for i in range(x.shape[0]):\n"
          "        t = t + np.dot(x[i], y[i]) + x[i].sum() + np.prod(y[i])\n    return t\n"),
         np.array([[np.inf, 1.0, -np.inf], [1.0, 2.0, 3.0]]),
         np.array([[0.0, 1.0, 1.0], [1e308, 1e308, 1.0]])),
    "float32_rows_of_eight_summed_in_a_loop":
        (("def f(m):\n    t = m[0, :1] * 0\n    for i in range(m.shape[0]):\n"
          "        t = t + m[i].sum() + m[i, :7].sum()\n    return t\n"),
         np.array([[1, 0, 0, 0, 1e8, 0, 0, -1e8], [3, 1e8, 0, -1e8, 0, 0, 0, 0]], np.float32)),
    "zip_strict_and_unequal_lengths":
        (("def f(x):\n    t = [a * b for a, b in zip(x, x[2:])]\n"
          "    return t, list(zip(x, x[1:], strict=True))\n"), X),
    "reversed_enumerate_start_and_accumulate":
        (("import itertools\n"
          "def f(x):\n    r = [i * v for i, v in enumerate(reversed(x), start=-2)]\n"
          "    return r, list(itertools.accumulate(x[:4])), sorted(x[:5], key=abs)\n"), X),
    "iter_with_a_sentinel":
        (("def f(x):\n    it = iter(x.tolist())\n    got = list(iter(lambda: next(it), 3.0))\n"
          "    return got, list(it)\n"), X),
    "generator_closed_early_runs_finally":
        (("def f(x, log):\n    def rows():\n        try:\n            for v in x:\n"
          "                yield v * 2\n        finally:\n            log.append('closed')\n"
          "    g = rows()\n    first = next(g)\n    g.close()\n    return first, log\n"), X, []),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_numerics_corners_behave_as_numpy(name):
    source, *args = PROGRAMS[name]
    assert_scenario_as_numpy(called_twice(define(source), tuple(args)), compiled_code=False)


@pytest.mark.parametrize("source", [
    "def f(a):\n    t = a + 1e40\n    return a\n",
    "def f(a):\n    return a < 1e40, np.maximum(a, -1e39)\n",
    "def f(a):\n    return np.where(a > 0, a, 1e40), np.clip(a, -1e40, 0.0)\n",
])
def test_a_python_float_float32_cannot_hold_warns_for_an_empty_or_unread_result(source):
    # NumPy casts the Python float to float32 first: "overflow encountered in cast" however
    # many elements there are, read or not (the operation is left to NumPy).
    for arg in (np.zeros((0, 1), np.float32), np.ones(3, np.float32)):
        assert_scenario_as_numpy(called_twice(define(source), (arg,)), compiled_code=False)
