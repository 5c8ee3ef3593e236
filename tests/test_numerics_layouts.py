"""Reductions and integer corner cases equal NumPy's whatever the memory layout: float32 sums
within float32 rounding of NumPy's, products that overflow in float32 give inf, integer
division, modulo, reciprocal, abs and shifts at their extremes, on both backends."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same

BACKENDS = ["cranelift", "eager"]


def _layouts(a: np.ndarray) -> dict[str, np.ndarray]:
    """`a`'s values in several layouts (same logical array)."""
    return {
        "contiguous": a.copy(),
        "fortran": np.asfortranarray(a),
        "transposed": a.T.copy().T,
        "strided": np.repeat(a, 2, axis=-1)[..., ::2],
        "reversed": a[::-1, ::-1].copy()[::-1, ::-1],
    }


REDUCTIONS = {
    "sum": lambda x, axis: x.sum(axis=axis),
    "mean": lambda x, axis: x.mean(axis=axis),
    "prod": lambda x, axis: x.prod(axis=axis),
    "max": lambda x, axis: x.max(axis=axis),
    "min": lambda x, axis: x.min(axis=axis),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("axis", [0, 1, -1, None])
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_float32_reductions_match_numpy_in_every_layout(name, axis, backend):
    fn = REDUCTIONS[name]

    def f(x):
        return fn(x, axis)

    rng = np.random.default_rng(1)
    values = rng.uniform(0.5, 1.5, (37, 300)).astype(np.float32)
    if name == "prod":
        values = rng.uniform(0.97, 1.03, (37, 300)).astype(np.float32)
    compiled = ember.compile(f, backend=backend)
    for layout, x in _layouts(values).items():
        want = f(x)
        got = compiled(x)
        # float32 rounding of a sum of n terms: NumPy's own error bound, relative to the sum.
        assert_same(got, want, rtol=2e-5, atol=0, path=layout)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("axis", [0, 1, None])
def test_float32_products_overflow_to_inf(axis, backend):
    def f(x):
        return np.prod(x, axis=axis)

    x = np.array([[1e30, 1e30, 1e-30, 1e-30], [3e38, 2.0, 0.5, 1.0], [1e20, 1e20, 1.0, 1e-30]],
                 np.float32)
    compiled = ember.compile(f, backend=backend)
    with np.errstate(all="ignore"):
        for layout, arr in _layouts(x).items():
            assert_same(compiled(arr), f(arr), rtol=1e-6, path=layout)


@pytest.mark.parametrize("backend", BACKENDS)
def test_float32_sum_overflows_as_numpy(backend):
    def f(x):
        return x.sum(axis=-1), x.sum(axis=0)

    x = np.full((3, 64), 3e37, np.float32)
    with np.errstate(all="ignore"):
        for layout, arr in _layouts(x).items():
            assert_same(ember.compile(f, backend=backend)(arr), f(arr), path=layout)


INTEGER_PROGRAMS = {
    "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "reciprocal": lambda a, b: np.reciprocal(a),
    "abs": lambda a, b: np.abs(a),
    "neg": lambda a, b: -a,
    "left_shift": lambda a, b: np.left_shift(a, b),
    "right_shift": lambda a, b: np.right_shift(a, b),
    "sign": lambda a, b: np.sign(a),
    "power": lambda a, b: np.power(a, np.abs(b) % 70),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("name", sorted(INTEGER_PROGRAMS))
def test_integer_corner_cases(name, dtype, backend):
    fn = INTEGER_PROGRAMS[name]

    def f(a, b):
        return fn(a, b)

    info = np.iinfo(dtype)
    bits = info.bits
    a = np.array([[info.min, info.max, -1, 0, 1, 7, -7, info.min + 1],
                  [5, -5, 3, info.min, 2, 0, -1, info.max]], dtype=dtype)
    b = np.array([[-1, -1, 0, 0, bits, bits + 1, bits - 1, 2],
                  [0, 3, -3, -1, 100, -1, 1, -1]], dtype=dtype)
    compiled = ember.compile(f, backend=backend)
    with np.errstate(all="ignore"):
        for (la, x), (_, y) in zip(_layouts(a).items(), _layouts(b).items(), strict=True):
            assert_same(compiled(x, y), f(x, y), rtol=0, path=la)
