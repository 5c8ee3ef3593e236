"""Float `max`/`min` reductions of rows whose extreme is a zero held with both signs (0.0 and
-0.0): which zero NumPy keeps follows its own order of operations (the later one in its scalar
loop, a lane's in its vector loops), so the compiled graph gives the sign NumPy gives, as
`repr` shows it, for every length, layout, dtype and axis, whole or inside a loop; rows whose
zeros share one sign, or whose extreme is not a zero, stay compiled."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, define, record

PROGRAMS = {
    "min_max": "def f(a):\n    return a.min(), a.max()\n",
    "np_amin_amax": "def f(a):\n    return np.amin(a), np.max(a)\n",
    "ufunc_reduce": "def f(a):\n    return np.minimum.reduce(a), np.maximum.reduce(a * 1.0)\n",
    "strided_and_reversed": "def f(a):\n    return a[::2].min(), a[::-1].max(), a[1::3].max()\n",
    "rows": "def f(a):\n    m = a.reshape(4, -1)\n    return m.max(axis=1), m.min(axis=-1), m.min(axis=0)\n",
    "columns_of_the_transpose": ("def f(a):\n    m = a.reshape(4, -1).T\n"
                                 "    return m.max(axis=0), m.min(axis=1)\n"),
    "of_a_product": "def f(a, b):\n    return (a * b).min(), (a * b).max(), (-a).max()\n",
    "in_a_loop": ("def f(a):\n    out = []\n    for k in range(3):\n"
                  "        out.append(a[k:].max() + a[:len(a) - k].min())\n    return out\n"),
    "printed": "def f(a):\n    print(a.max(), a.min())\n    return np.signbit(a.min())\n",
}
LENGTHS = [2, 4, 8, 12, 16, 20, 24, 40, 64, 100, 400, 4000]


def _rows(n, dtype, seed):
    """Zeros of both signs and positive numbers, then the same with negatives among them."""
    rng = np.random.default_rng(seed)
    a = rng.choice(np.array([0.0, -0.0, 1.0, 2.0]), n)
    b = np.where(rng.random(n) < 0.5, -a, a)
    return a.astype(dtype), b.astype(dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_extreme_zero_has_numpys_sign(name, dtype):
    source = PROGRAMS[name]
    two = "(a, b)" in source

    def scenario(wrap):
        f = wrap(define(source))
        seen = []
        for n in LENGTHS:
            for seed in range(2):
                a, b = _rows(n, dtype, 100 * n + seed)
                seen.append(record(f, (a, b) if two else (a,)))
                seen.append(record(f, (b, a) if two else (b,)))
        return seen

    ember.config.recompile_limit, limit = 64, ember.config.recompile_limit
    try:
        assert_scenario_as_numpy(scenario, compiled_code=False)
    finally:
        ember.config.recompile_limit = limit


@pytest.mark.parametrize("zero", [0.0, -0.0])
@pytest.mark.parametrize("n", [3, 16, 1000])
def test_zeros_of_one_sign_stay_compiled(n, zero):
    f = define("def f(a):\n    return a.min(), a.max(), np.maximum(a, zero).min()\n",
               zero=zero)
    a = np.full(n, zero)
    a[1] = 5.0
    ember.reset()
    compiled = ember.compile(f)
    for _ in range(2):
        assert repr(compiled(a.copy())) == repr(f(a.copy()))
    stats = ember.stats()
    assert stats["fp_reruns"] == 0 and stats["graph_breaks"] == 0, stats
