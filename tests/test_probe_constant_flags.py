"""Zeros of both signs picked by order statistics, and NumPy math done on constants while
capturing. NumPy's median, quantiles and nanmedian pick elements with a partition that
leaves a 0.0 and a -0.0 in an order of its own, so where the data hold a -0.0 and a result
is zero NumPy answers; a constant cast that overflows (`np.float32(1e300)`,
`np.full(2, 1e300, dtype=np.float32)`) warns on every call, not once at capture; `np.r_` of
a Python int out of the result's dtype raises NumPy's OverflowError. Each program is compiled
and called twice and must give plain NumPy's `record`."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, called_twice, define

_rng = np.random.default_rng(20261207)
ZEROS = {
    "nan_and_infinities": np.array([1.5, np.nan, -2.5, 0.0, -0.0, np.inf, 3.0, -np.inf]),
    "both_zeros": np.array([-0.0, 0.0, 1.0, -1.0]),
    "only_zeros": np.array([-0.0, 0.0, 0.0, 0.0, -0.0, 0.0, -0.0, -0.0, 0.0]),
    "random_signs": _rng.choice([0.0, -0.0, 1.0, -1.0], 31),
    "random_nans": _rng.choice([0.0, -0.0, np.nan, 2.0], 40),
}
PICKS = ["np.median(a)", "np.nanmedian(a)", "np.percentile(a, 50)",
         "np.quantile(a, 0.5, method='lower')", "np.quantile(a, [0.3, 0.5], method='nearest')",
         "np.percentile(a, [25, 75], method='higher')", "np.median(a.reshape(-1, 1), axis=0)",
         "np.nanmedian(a.reshape(1, -1), axis=1)"]


@pytest.mark.parametrize("data", sorted(ZEROS))
@pytest.mark.parametrize("expr", PICKS)
def test_signed_zeros_picked_as_numpy(expr, data):
    f = define(f"def f(a):\n    return {expr}\n")
    assert_scenario_as_numpy(called_twice(f, (ZEROS[data],)), compiled_code=False,
                             falls_back=True)


@pytest.mark.parametrize("expr", ["np.median(a)", "np.quantile(a, 0.25, method='lower')",
                                  "np.nanmedian(a)"])
def test_positive_zeros_stay_compiled(expr):
    """Data without a -0.0 never reruns: the graph's pick is NumPy's."""
    f = define(f"def f(a):\n    return {expr}\n")
    a = np.array([0.0, 3.0, 0.0, -1.0, 0.0, 2.0, np.nan][: 6 if "nan" not in expr else 7])
    assert_scenario_as_numpy(called_twice(f, (a,)))


CASTS = {
    "float32_scalar": "def f(a):\n    return a + np.float32(1e300)\n",
    "float32_array": "def f(a):\n    return a + np.array(1e300, np.float32)\n",
    "full_float32": "def f(a):\n    return a + np.full(a.shape, 1e300, dtype=np.float32)\n",
    "full_nan_int": "def f(a):\n    return a + np.full(a.shape, np.nan, dtype=np.int32)\n",
    "r_float32": "def f(a):\n    return np.r_[a.astype(np.float32), 1e300]\n",
    "float16_scalar": "def f(a):\n    return a * np.float16(70000.0)\n",
    "fits": "def f(a):\n    return a + np.float32(3e38) + np.full(2, 1.5, dtype=np.float32)\n",
}


@pytest.mark.parametrize("name", sorted(CASTS))
def test_constant_casts_warn_on_every_call(name):
    f = define(CASTS[name])
    assert_scenario_as_numpy(called_twice(f, (np.array([1.0, 2.0]),)), compiled_code=False)


R_ = {
    "uint8_past_the_top": ("np.r_[a, 300]", np.uint8),
    "uint8_negative": ("np.r_[-1, a]", np.uint8),
    "int8_columns": ("np.c_[a, 128]", np.int8),
    "int8_huge": ("np.r_[a, 2**70]", np.int8),
    "uint8_fits": ("np.r_[a, 255, 0, True]", np.uint8),
    "uint8_float": ("np.r_[a, 1.5]", np.uint8),
    "uint8_numpy_int": ("np.r_[a, np.int64(300)]", np.uint8),
}


@pytest.mark.parametrize("name", sorted(R_))
def test_r_of_python_ints_as_numpy(name):
    expr, dtype = R_[name]
    f = define(f"def f(a):\n    return {expr}\n")
    assert_scenario_as_numpy(called_twice(f, (np.array([3, 100], dtype),)), compiled_code=False)


STORES = {
    "item": "def f(b):\n    b[0] = 1e300\n    return b\n",
    "item_in_a_loop": "def f(b):\n    for i in range(3):\n        b[i] = 1e300\n    return b\n",
    "variable_in_a_loop": ("def f(b):\n    x = 1e300\n    for i in range(3):\n        b[i] = x\n"
                           "    return b\n"),
    "slice": "def f(b):\n    b[:] = 1e300\n    return b\n",
    "numpy_float64": "def f(b):\n    b[1] = np.float64(1e300)\n    return b\n",
    "mask": "def f(b):\n    b[b > 0] = 1e300\n    return b\n",
    "computed_in_a_loop": ("def f(b):\n    for i in range(3):\n"
                           "        b[i] = 1e200 * (i + 1) * 1e100\n    return b\n"),
    "nan_into_int": ("def f(b):\n    c = np.zeros(3, np.int32)\n    for i in range(3):\n"
                     "        c[i] = np.nan\n    return c\n"),
    "fits": "def f(b):\n    b[0] = 3e38\n    b[1:] = -1.5\n    return b\n",
}


@pytest.mark.parametrize("name", sorted(STORES))
def test_stores_that_overflow_in_the_cast_warn_on_every_call(name):
    f = define(STORES[name])
    assert_scenario_as_numpy(called_twice(f, (np.ones(3, np.float32),)), compiled_code=False)
