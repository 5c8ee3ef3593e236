"""User-style Python idioms around NumPy code (keyword and default arguments, shape-dependent
branches, tuple/dict results, closures, small loops, dtype= arguments, integer and float32
inputs, NumPy scalars, printing) compiled with each backend and compared with plain NumPy."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import ember
import numpy as np
import pytest
from test_user_numerics import BACKENDS, run_like_numpy

RNG = np.random.default_rng(2)


def describe(x):
    n, d = x.shape
    return {"rows": n, "cols": d, "total": x.sum(), "mean_row": x.mean(axis=1)}


def maybe_flatten(x):
    if x.ndim > 1:
        x = x.ravel()
    return x * 2


def pad_or_trim(x, length=6):
    if x.shape[0] >= length:
        return x[:length]
    return np.concatenate([x, np.zeros(length - x.shape[0], dtype=x.dtype)])


def scale_by(factor):
    def inner(x):
        return x * factor
    return inner


DOUBLE = scale_by(2.0)


def use_closure(x):
    return DOUBLE(x) + 1


def with_lambda(x):
    sq = lambda v: v * v
    return sq(x) - sq(x - 1)


def partial_power(x):
    p = functools.partial(np.power, 3.0)
    return p(x)


def leaky(x, slope=0.01):
    return np.where(x > 0, x, slope * x)


LEAKY_02 = functools.partial(leaky, slope=0.2)


def global_partial(x):
    return LEAKY_02(x) + functools.partial(leaky, slope=0.5)(x, slope=0.3)


def apply_activation(x, act):
    return act(x) * 2


def enumerate_weights(xs):
    total = 0.0
    for i, x in enumerate(xs):
        total = total + (i + 1) * x
    return total


def sum_of_list(arrays):
    return sum(arrays) / len(arrays)


def star_args(*arrays, scale=1.0):
    out = arrays[0]
    for a in arrays[1:]:
        out = out + a
    return out * scale


def kwargs_config(x, **opts):
    eps = opts.get("eps", 1e-8)
    return x / (np.abs(x).max() + eps)


def int_mean(x):
    return x.mean(), x.sum(dtype=np.int32), np.mean(x, dtype=np.float32)


def float32_accumulate(x):
    return np.sum(x, dtype=np.float64), x.astype(np.float64).std()


def numpy_scalar_math(x):
    s = np.float32(2.5)
    return x * s + np.float64(1.0)


def shape_arith(x):
    n = x.shape[0]
    half = n // 2
    return x[:half].sum() - x[half:].sum(), n * 1.5


def stack_features(x):
    feats = [x, x**2, np.sin(x)]
    return np.stack(feats, axis=1)


def cumulative(x):
    return np.cumsum(x), x.cumprod()


def sort_and_rank(x):
    return np.sort(x), np.argsort(x)


def where_count(x):
    return np.count_nonzero(x > 0), np.where(x > 0, x, 0.0)


def outer_einsum(a, b):
    return np.einsum("i,j->ij", a, b)


def solve_system(a, b):
    return np.linalg.solve(a, b)


def print_shapes(x):
    print("input", x.shape, x.dtype)
    y = x.T @ x
    print("gram", y.shape)
    return y


def fstring_debug(x):
    m = x.max()
    label = f"max={float(m):.3f}"
    return m, label


@dataclass
class Params:
    w: np.ndarray
    b: float = 0.0


PARAMS = Params(np.array([0.5, -1.0, 2.0]), 0.25)


def dataclass_linear(x):
    return x @ PARAMS.w + PARAMS.b


def isinstance_dispatch(x):
    if isinstance(x, (list, tuple)):
        x = np.asarray(x)
    return x - x.mean()


def math_constants(r):
    return math.pi * r**2, 2 * np.pi * r, math.e ** (-r)


def integer_ops(a, b):
    return a // b, a % b, a * b, -a, a / b


def bool_mask_ops(x):
    m = (x > -0.5) & (x < 0.5)
    return m, ~m, m.any(), m.all(), m.sum()


def reverse_and_roll(x):
    return x[::-1], np.roll(x, 2)


def clamp_loop(x, bounds=((-1.0, 1.0), (-0.5, 0.5))):
    for lo, hi in bounds:
        x = np.minimum(np.maximum(x, lo), hi)
    return x


def linspace_grid(n: int):
    xs = np.linspace(0.0, 1.0, n)
    gx, gy = xs[:, None], xs[None, :]
    return np.exp(-(gx**2 + gy**2))


def tuple_unpack_swap(a, b):
    a, b = b, a
    return a - b, (a * b).sum(keepdims=True)


def nan_handling(x):
    return np.nanmean(x), np.isnan(x).sum()


def float_argument_branch(x, threshold=0.0):
    if threshold > 0:
        return x * threshold
    return -x


X = RNG.standard_normal((4, 3))
CASES = {
    "describe": (describe, (X,), {}),
    "maybe_flatten_2d": (maybe_flatten, (X,), {}),
    "maybe_flatten_1d": (maybe_flatten, (X[0],), {}),
    "pad": (pad_or_trim, (np.arange(4, dtype=np.float32),), {}),
    "trim": (pad_or_trim, (np.arange(9),), {}),
    "closure": (use_closure, (X,), {}),
    "lambda": (with_lambda, (X,), {}),
    "partial": (partial_power, (X,), {}),
    "global_partial": (global_partial, (X,), {}),
    "enumerate": (enumerate_weights, ([X[0], X[1], X[2]],), {}),
    "sum_of_list": (sum_of_list, ([X[0], X[1]],), {}),
    "star_args": (star_args, (X, X, X), {"scale": 0.5}),
    "kwargs_config": (kwargs_config, (X,), {"eps": 1e-3}),
    "kwargs_config_default": (kwargs_config, (X,), {}),
    "int_mean": (int_mean, (np.arange(10, dtype=np.int16),), {}),
    "float32_accumulate": (float32_accumulate, (RNG.random(9).astype(np.float32),), {}),
    "numpy_scalar_math": (numpy_scalar_math, (RNG.random(3).astype(np.float32),), {}),
    "shape_arith": (shape_arith, (np.arange(7.0),), {}),
    "stack_features": (stack_features, (np.linspace(0, 1, 5),), {}),
    "cumulative": (cumulative, (np.array([1.0, 2.0, 3.0, 0.5]),), {}),
    "sort_and_rank": (sort_and_rank, (RNG.standard_normal(6),), {}),
    "where_count": (where_count, (RNG.standard_normal(6),), {}),
    "outer_einsum": (outer_einsum, (np.arange(3.0), np.arange(4.0)), {}),
    "solve_system": (solve_system, (np.eye(3) * 2 + 0.1, np.arange(3.0)), {}),
    "print_shapes": (print_shapes, (X,), {}),
    "fstring_debug": (fstring_debug, (X,), {}),
    "dataclass_linear": (dataclass_linear, (X,), {}),
    "isinstance_list": (isinstance_dispatch, ([1.0, 2.0, 4.0],), {}),
    "isinstance_array": (isinstance_dispatch, (X,), {}),
    "math_constants": (math_constants, (np.array([0.5, 1.0]),), {}),
    "math_constants_float": (math_constants, (1.5,), {}),
    "integer_ops": (integer_ops, (np.array([7, -7, 9]), np.array([2, 2, -4])), {}),
    "integer_ops_scalar": (integer_ops, (np.array([7, -7, 9], dtype=np.int8), 3), {}),
    "bool_mask_ops": (bool_mask_ops, (RNG.standard_normal(8),), {}),
    "reverse_and_roll": (reverse_and_roll, (np.arange(6),), {}),
    "clamp_loop": (clamp_loop, (RNG.standard_normal(6) * 2,), {}),
    "linspace_grid": (linspace_grid, (5,), {}),
    "tuple_unpack_swap": (tuple_unpack_swap, (X, X + 1), {}),
    "nan_handling": (nan_handling, (np.array([1.0, np.nan, 3.0]),), {}),
    "threshold_default": (float_argument_branch, (X,), {}),
    "threshold_given": (float_argument_branch, (X,), {"threshold": 0.5}),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(CASES))
def test_idioms_like_numpy(name, backend):
    fn, args, kwargs = CASES[name]
    run_like_numpy(fn, backend, *args, rtol=1e-5, atol=1e-6, **kwargs)


@pytest.mark.parametrize("name", ["partial", "global_partial"])
def test_partials_are_inlined(name):
    fn, args, kwargs = CASES[name]
    report = ember.explain(fn, *args, **kwargs)
    assert (report.graph_count, report.graph_break_count) == (1, 0)
    report = ember.explain(apply_activation, X, functools.partial(leaky, 0.1))
    assert (report.graph_count, report.graph_break_count) == (1, 0)


def test_partial_argument_guards_its_keywords():
    compiled = ember.compile(apply_activation, backend="eager")
    x = np.array([-1.0, 2.0])
    for act in (functools.partial(leaky, slope=0.1), functools.partial(leaky, slope=0.7),
                functools.partial(leaky, 0.1), functools.partial(np.multiply, 3.0)):
        np.testing.assert_allclose(compiled(x, act), apply_activation(x, act))
