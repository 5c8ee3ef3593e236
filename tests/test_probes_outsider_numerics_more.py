"""More numerics an outsider probes: NumPy integer scalars accumulated in loops (wrapping with
their overflow warnings), means and sums of huge int64 values, `sum(dtype=int8)`, integer
division by zero element by element, NaN through strided argmax, sort, unique, `initial=` and
`where=` reductions, Python's `min`/`max` and `int()`, float32 cumulative sums and variances
with cancellation, casts of NaN to bool and int, integer powers of arrays, `abs` of int64's
minimum, `%` and `//` by infinities, overflow in float32 `exp` and `hypot`, `log1p` and
`arccos` out of domain, uint8 arithmetic, int8 matmul, ufunc `reduce`/`accumulate`, and the
builtin `divmod` of NumPy scalars (its warnings name "scalar divmod"). Each is compared with
plain NumPy as a `record` on both backends."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, called_twice, define

I8 = np.array([100, 27, 1, -128, 5], np.int8)
F = np.array([1.0, np.nan, -0.0, 0.0, 3.5, -np.inf, 2.0])
F32 = np.array([1e8, 1.0, -1e8, 3.0, 1e-3, 7.0, -2.5, 1e7, 0.5], np.float32)
I64 = np.array([2**62, 2**62, 3, -7], np.int64)
U8 = np.array([200, 100, 3, 0], np.uint8)
PROGRAMS = {
 "int8_scalar_loop": ("def f(a):\n    s = a[0]\n    for v in a[1:]:\n        s = s + v\n    return s\n", I8),
 "int8_scalar_loop_mul": ("def f(a):\n    s = a[0]\n    for v in a:\n        s = s * v\n    return s\n", I8),
 "mean_int64_huge": ("def f(a):\n    return a.mean(), a.sum(), np.mean(a[:2])\n", I64),
 "sum_dtype_int8": ("def f(a):\n    return np.sum(a, dtype=np.int8), a.cumsum(dtype=np.int8)\n", I8),
 "int_floor_div_zero_loop": ("def f(a):\n    out = a * 0\n    for i in range(len(a)):\n        out[i] = a[i] // (a[i] - a[i])\n    return out\n", I8),
 "argmax_nan_strided": ("def f(x):\n    return x[::2].argmax(), x[::-1].argmin(), x[1:].max()\n", F),
 "sort_nan_negzero": ("def f(x):\n    return np.sort(x), np.unique(x)\n", F),
 "max_initial_where": ("def f(x):\n    return np.max(x, initial=10.0), np.min(x, where=x > 0, initial=5.0), x.sum(where=~np.isnan(x))\n", F),
 "py_min_nan_first": ("def f(x):\n    return min(x[1], x[0]), max(x[1], x[0]), min(x[0], x[1])\n", F),
 "int_of_nan": ("def f(x):\n    return int(x[1])\n", F),
 "round_builtin": ("def f(x):\n    return round(x[4] * 0.7643, 2), round(x[0] * 2.675, 2)\n", F),
 "cumsum_reversed_f32": ("def f(x):\n    return x[::-1].cumsum(), x.sum(), x[::2].sum(), x.mean()\n", F32),
 "var_f32": ("def f(x):\n    return x.var(), x.std(), np.var(x[::-1])\n", F32),
 "astype_bool_nan": ("def f(x):\n    return x.astype(bool), x.astype(np.int64)\n", F),
 "power_int_arrays": ("def f(a):\n    return np.power(a, a[::-1])\n", np.array([2, 3, -1, 0])),
 "abs_int64_min": ("def f(a):\n    return np.abs(a), abs(a[0])\n", np.array([-2**63, 5], np.int64)),
 "mod_inf": ("def f(x):\n    return x % np.inf, -x % np.inf, np.floor_divide(x, np.inf), x % -np.inf\n", F),
 "exp_f32_overflow": ("def f(x):\n    return np.exp(x * 100), np.hypot(x * 1e30, x * 1e30)\n", F32),
 "log1p_arccos": ("def f(x):\n    return np.log1p(-x), np.arccos(x), np.arcsin(x * 2)\n", F),
 "uint8_mixed": ("def f(u):\n    return u * 2 // 3, u + u, (u - 1) % 7, u // np.uint8(0)\n", U8),
 "cumsum_bool": ("def f(x):\n    b = x > 0\n    return np.cumsum(b), b.sum(), b.mean(), b.prod()\n", F),
 "matmul_int8": ("def f(a):\n    m = a[:4].reshape(2, 2)\n    return m @ m, np.dot(a, a)\n", I8),
 "float32_scalar_accum": ("def f(x):\n    s = np.float32(0)\n    for v in x:\n        s += v\n    return s, type(s).__name__\n", F32),
 "python_float_accum": ("def f(x):\n    s = 0.0\n    for v in x:\n        s += float(v)\n    return s\n", F32),
 "int_accum_python": ("def f(a):\n    s = 0\n    for v in a:\n        s += int(v) * 2**60\n    return s\n", I8),
 "uint8_scalar_loop": ("def f(u):\n    s = u[3]\n    for v in u:\n        s = s - v\n    return s\n", U8),
 "nan_to_num_isclose": ("def f(x):\n    return np.nan_to_num(x), np.isclose(x, 0.0), np.allclose(x, x)\n", F),
 "minimum_reduce_nan": ("def f(x):\n    return np.minimum.reduce(x), np.maximum.accumulate(x), np.fmax.reduce(x)\n", F),
 "float_index_compare": ("def f(x):\n    return (x == x[::-1]).sum(), np.count_nonzero(x), np.nonzero(x > 0)\n", F),
 "int8_neg_floor_mod": ("def f(a):\n    return a // -1, a % -128, np.fmod(a, -1), divmod(a[3], np.int8(-1))\n", I8),
 "divmod_scalars_zero": ("def f(a, x):\n    return divmod(a[0], a[3] - a[3]), divmod(x[0], 0.0), divmod(x[1], x[2]), divmod(a[3], 0)\n", I8, F),
 "divmod_f32_overflow": ("def f(x):\n    return divmod(x[0] * np.float32(1e30), np.float32(1e-30)), divmod(x[1], 2)\n", F32),
 "divmod_python_numbers": ("def f(x):\n    n = int(x[0])\n    return divmod(n, 7), divmod(float(x[4]), -2.0)\n", F32),
}

# NumPy or Python raises (`int(nan)`, negative integer powers), or Python ints beyond int64
# (the frame runs as Python, exactly): compared all the same.
BREAKS = {"int_of_nan", "power_int_arrays", "int_accum_python"}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_more_outsider_numerics_as_numpy(name):
    source, *args = PROGRAMS[name]
    assert_scenario_as_numpy(called_twice(define(source), tuple(args)),
                             compiled_code=name not in BREAKS, falls_back=name in BREAKS)
