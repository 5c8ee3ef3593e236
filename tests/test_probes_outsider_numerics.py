"""Numerics as an outsider probes them: float16 arithmetic and reductions, complex values
(division by zero, square roots of negatives, NaN ordering), int8 and uint8 wraparound,
unsigned subtraction, Python ints a dtype cannot hold, `np.mean` of integers and booleans,
`//`, `%`, `divmod` and `np.fmod` by negative numbers and zero, NaN through max/min/sort/argmax,
shifts past the width, integer powers, rounding halves and accumulation dtypes. Each program
runs unwrapped and compiled on both backends and is compared as a `record` (result repr with
dtypes, warnings with counts, exceptions with messages, arguments afterwards, aliasing); unless
it is listed in `BREAKS`, it must run as compiled graphs with no fallback at entry."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, called_twice, define

H = np.array([0.1, 65504.0, -2.5, 1e-5, 3.0, -0.0], np.float16)
C = np.array([1 + 2j, -3j, 0j, complex(np.nan, 1), -1 + 0j, 2.5 - 0.5j])
I8 = np.array([-128, -100, -1, 0, 1, 100, 127], np.int8)
U8 = np.array([0, 1, 2, 128, 200, 255], np.uint8)
N = np.array([3.0, np.nan, -1.0, np.inf, np.nan, -np.inf, 0.0])
Q = np.array([7, -7, 0, 5, -5, 9, -9, 2**31 - 1])
D = np.array([2, -2, 0, -3, 3, 0, -1, 7])
F = np.array([7.5, -7.5, 0.0, -0.0, np.inf, -np.inf, 5.0, 1e300])
G = np.array([2.0, -2.0, 0.0, -0.0, 3.0, np.inf, -np.inf, -1e-300])

PROGRAMS = {
    "float16_add_multiply_overflow":
        ("def f(h):\n    return h + h, h * np.float16(2), (h * 2).dtype, h - 1\n", H),
    "float16_sum_mean_and_cumsum":
        ("def f(h):\n    return h.sum(), h.mean(), np.cumsum(h), h[:3].prod()\n", H),
    "float16_with_float32_and_python_floats":
        ("def f(h, x):\n    return h + x, h * 0.1, (h + x).dtype, h / 3\n",
         H, np.linspace(0, 1, 6, dtype=np.float32)),
    "float16_exp_sqrt_log":
        ("def f(h):\n    return np.exp(h), np.sqrt(h), np.log(np.abs(h))\n", H),
    "complex_divide_by_zero_and_abs":
        ("def f(c):\n    return c / c[2], abs(c), np.abs(c).dtype, c * 1j\n", C),
    "complex_sqrt_of_negatives":
        ("def f(c, x):\n    return np.sqrt(c), np.sqrt(x.astype(complex)), np.sqrt(x)\n",
         C, np.array([-4.0, -0.0, 0.0, 9.0, -1e-300, np.nan])),
    "complex_sort_and_max_with_nan":
        ("def f(c):\n    return np.sort(c), c.max(), c.argmax(), c.argmin()\n", C),
    "complex_sum_conj_real_imag":
        ("def f(c):\n    return c.sum(), c.conj(), c.real * 2, c.imag.sum(), np.angle(c)\n", C),
    "int8_wraparound_add_multiply_negate":
        ("def f(a):\n    return a + a, a * 3, -a, a - 1, a * a\n", I8),
    "int8_sum_and_cumsum_upcast":
        ("def f(a):\n    return a.sum(), a.sum().dtype, np.cumsum(a), a.sum(dtype=np.int8)\n", I8),
    "int8_with_python_ints_out_of_range":
        ("def f(a):\n    return a + 200\n", I8),
    "int8_abs_and_absolute_of_min":
        ("def f(a):\n    return np.abs(a), np.absolute(a[:1]), abs(a).dtype\n", I8),
    "uint8_subtraction_wraps":
        ("def f(u):\n    return u - u[::-1], u - 1, 1 - u, u[0] - u[1]\n", U8),
    "uint8_minus_a_negative_python_int":
        ("def f(u):\n    return u - (-1)\n", U8),
    "uint8_mean_prod_and_sum":
        ("def f(u):\n    return u.mean(), u.prod(), u.sum(), u.prod().dtype, u.max() - u.min()\n", U8),
    "uint64_with_negative_python_int":
        ("def f(u):\n    return u + (-1)\n", np.array([1, 2], np.uint64)),
    "mean_of_ints_and_bools":
        ("def f(a, b):\n    return np.mean(a), a.mean(dtype=np.float32), b.mean(), np.mean(a > 0)\n",
         Q, np.array([True, False, True])),
    "mean_of_int8_rows_and_columns":
        ("def f(a):\n    m = a[:6].reshape(2, 3)\n    return m.mean(axis=0), m.mean(axis=1), m.mean()\n",
         I8),
    "integer_floor_divide_by_negatives_and_zero":
        ("def f(a, b):\n    return a // b, a % b, a // -3, a % -3\n", Q, D),
    "integer_divmod_and_fmod":
        ("def f(a, b):\n    return divmod(a, b), np.fmod(a, b), np.remainder(a, -4)\n", Q, D),
    "int64_min_floor_divide_minus_one":
        ("def f(a):\n    return a // -1, a % -1\n", np.array([-2**63, 5], np.int64)),
    "int8_min_floor_divide_minus_one":
        ("def f(a):\n    return a // np.int8(-1), np.abs(a)\n", I8),
    "float_floor_divide_and_mod_by_negatives":
        ("def f(x, y):\n    return x // y, x % y, np.fmod(x, y), divmod(x, -2.0)\n", F, G),
    "nan_ordering_in_max_min":
        ("def f(x):\n    return x.max(), x.min(), np.nanmax(x), np.nanmin(x), np.fmax(x, 0.0)\n", N),
    "nan_ordering_in_sort_and_argsort":
        ("def f(x):\n    return np.sort(x), np.argsort(x, kind='stable'), np.sort(x)[::-1]\n", N),
    "nan_in_argmax_and_argmin":
        ("def f(x):\n    return x.argmax(), x.argmin(), np.nanargmax(x), x[2:].argmin()\n", N),
    "nan_in_maximum_and_minimum":
        ("def f(x):\n    return np.maximum(x, x[::-1]), np.minimum(x, 1.0), np.fmin(x, x[::-1])\n",
         N),
    "nan_comparisons_and_clip":
        ("def f(x):\n    return x > 0, x == x, x != x, np.clip(x, -1.0, 2.0)\n", N),
    "shifts_past_the_width":
        ("def f(a):\n    return a << 9, a >> 9, np.left_shift(a, 7), a >> 1\n", I8),
    "integer_power_negative_exponent_raises":
        ("def f(a):\n    return a ** -1\n", Q),
    "integer_power_wraps":
        ("def f(a):\n    return a ** 3, a ** 0, np.power(a, 2)\n", I8),
    "rounding_halves_to_even":
        ("def f(x):\n    return np.round(x), np.round(x, 1), np.rint(x), np.around(x * 10, -1)\n",
         np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.25, 0.35, 1e300])),
    "float32_plus_python_floats_stays_float32":
        ("def f(x):\n    y = x + 0.1\n    return y, y.dtype, x * 1e30, (x + 1e-8) - x\n",
         np.array([1.0, 3e38, -3e38, 1e-45], np.float32)),
    "bool_arithmetic":
        ("def f(b):\n    return b + b, b * 3, b + 1.5, b.sum(), np.logical_xor(b, True), ~b\n",
         np.array([True, False, True, True])),
    "std_and_var_with_ddof":
        ("def f(x):\n    return x.std(), x.var(ddof=1), x[:1].std(ddof=1)\n",
         np.array([1.0, 2.0, 4.0, 8.0])),
    "signed_zero_results":
        ("def f(x):\n    return np.arctan2(x, -0.0), np.sign(x), x * -0.0, np.copysign(1.0, x)\n",
         np.array([-0.0, 0.0, np.nan, -1.0])),
    "prod_of_ints_overflow_wraps":
        ("def f(a):\n    return a.prod(), np.prod(a[:3]), a.cumprod()\n",
         np.array([2**40, 2**40, 3, -1], np.int64)),
    "unsigned_comparisons_with_negative_python_ints":
        ("def f(u):\n    return u > -1, u == -1, u < 300, np.maximum(u, 0)\n", U8),
}

# Programs whose graph is broken on purpose or which raise (a graph that raises leaves its
# frame to Python): compared all the same, but not required to run as compiled graphs.
BREAKS = {
    **{name: "complex and float16 arrays are not supported: the graph breaks"
       for name in PROGRAMS if name.startswith(("complex_", "float16_"))},
    "int8_with_python_ints_out_of_range": "NumPy raises OverflowError",
    "uint8_minus_a_negative_python_int": "NumPy raises OverflowError",
    "uint64_with_negative_python_int": "NumPy raises OverflowError",
    "integer_power_negative_exponent_raises": "NumPy raises ValueError",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_outsider_numerics_behave_as_numpy(name):
    source, *args = PROGRAMS[name]
    assert_scenario_as_numpy(called_twice(define(source), tuple(args)),
                             compiled_code=name not in BREAKS, falls_back=name in BREAKS)
