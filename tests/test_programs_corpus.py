"""Differential tests: realistic NumPy functions compiled with the eager backend give what
plain NumPy gives (values, dtype, shape, scalar-ness, containers), captured as one graph."""

from __future__ import annotations

import itertools
import math

import ember
import numpy as np
import pytest
from conftest import assert_same, assert_same_aliasing

rng = np.random.default_rng(0)


def layernorm(x, g, b, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def softmax(x, axis=-1):
    z = x - x.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


class Linear:
    def __init__(self, n_in, n_out, dtype=np.float32):
        self.w = rng.standard_normal((n_in, n_out)).astype(dtype)
        self.b = rng.standard_normal(n_out).astype(dtype)

    def __call__(self, x):
        return x @ self.w + self.b


class MLP:
    def __init__(self, sizes):
        self.layers = [Linear(a, b) for a, b in itertools.pairwise(sizes)]
        self.scale = 0.5

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = gelu(layer(x))
        return self.layers[-1](x) * self.scale


def mlp_forward(model, x):
    return model.forward(x)


def _ncdf(x):
    return 0.5 * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x**3)))


def black_scholes(s, k, t, r, sigma):
    sqrt_t = np.sqrt(t)
    d1 = (np.log(s / k) + (r + 0.5 * sigma * sigma) * t) / (sigma * sqrt_t)
    d2 = d1 - sigma * sqrt_t
    call = s * _ncdf(d1) - k * np.exp(-r * t) * _ncdf(d2)
    put = call - s + k * np.exp(-r * t)
    return call, put


def shape_branch(x):
    if x.ndim == 1:
        x = x[None, :]
    if x.shape[0] > 2:
        return x.sum(axis=0)
    return x.mean()


def optional_bias(x, bias=None):
    y = x * 2
    if bias is not None:
        y = y + bias
    return y


def loop_range(x, n):
    acc = np.zeros_like(x)
    for i in range(n):
        acc = acc + x * i
    return acc


def loop_list(xs):
    total = 0
    for x in xs:
        total = total + x.sum(axis=0)
    return total


def loop_inplace(x):
    acc = np.zeros(x.shape, dtype=x.dtype)
    for i in range(3):
        acc += x * (i + 1)
    return acc


def returns_containers(x, y):
    s = x + y
    return {"sum": s, "diff": x - y, "parts": [s.max(), (x * y).min()], "n": x.shape[0]}


def returns_tuple_scalars(x):
    return x.sum(), x.size, float(x.shape[0]), x.dtype


def make_scaler(k):
    def scale(x):
        return x * k

    return scale


scale_by_3 = make_scaler(3.0)


def closure_user(x):
    offset = x.mean()

    def centre(v):
        return v - offset

    return centre(x) * 2


def comprehension(x):
    parts = [x[i] * i for i in range(x.shape[0])]
    return sum(parts)


def dict_comprehension(x):
    stats = {name: getattr(x, name)(axis=0) for name in ("sum", "max", "min")}
    return stats["sum"] - stats["min"], stats


def kwargs_varargs(*arrays, scale=1.0, **extra):
    out = arrays[0]
    for a in arrays[1:]:
        out = out + a
    return out * scale + extra.get("shift", 0)


def slicing(x):
    return x[1:, ::2] + x[:-1, 1::2], x[..., 0], x[None, 0, :]


def reductions(x):
    return (x.sum(axis=(0, 1)), x.max(), np.argmax(x, axis=1), x.mean(axis=0, keepdims=True),
            np.any(x > 0.5), x.var(axis=-1), x.std())


def mixed_dtypes(a, b):
    return a + b, a * 2, b / 3, (a > 1) & (b < 0.5), a // 2, a.astype(np.float32) ** 2


def where_clip(x):
    return np.where(x > 0, x, 0.1 * x), np.clip(x, -0.5, 0.5), np.maximum(x, 0)


def matmul_chain(a, b, c):
    return (a @ b) @ c.T, np.dot(a, b).sum(axis=1)


def helper_add(a, b):
    return a + b


def helper_chain(x, y):
    return helper_add(helper_add(x, y), helper_add(y, x)) * 0.5


def tuple_unpack(x):
    n, m = x.shape
    first, *rest = [x[i] for i in range(n)]
    return first + sum(rest), n * m


def enumerate_zip(xs, ws):
    out = 0.0
    for i, (x, w) in enumerate(zip(xs, ws)):
        out = out + x * w * (i + 1)
    return out


def global_weights(x):
    return x @ GLOBAL_W + GLOBAL_B


GLOBAL_W = rng.standard_normal((4, 3))
GLOBAL_B = rng.standard_normal(3)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def f64(*shape):
    return rng.standard_normal(shape)


MODEL = MLP([4, 8, 8, 2])

CASES = [
    ("layernorm", layernorm, lambda: (f32(4, 16), f32(16), f32(16))),
    ("layernorm_f64", layernorm, lambda: (f64(3, 5), f64(5), f64(5))),
    ("softmax", softmax, lambda: (f32(2, 3, 7),)),
    ("softmax_axis0", softmax, lambda: (f64(5, 3), 0)),
    ("gelu", gelu, lambda: (f32(64),)),
    ("mlp", mlp_forward, lambda: (MODEL, f32(5, 4))),
    ("linear_call", lambda m, x: m(x), lambda: (MODEL.layers[0], f32(2, 4))),
    ("black_scholes", black_scholes,
     lambda: (np.abs(f64(32)) + 50, np.abs(f64(32)) + 50, np.abs(f64(32)) + 0.5, 0.02, 0.3)),
    ("shape_branch_1d", shape_branch, lambda: (f32(6),)),
    ("shape_branch_2d", shape_branch, lambda: (f64(4, 3),)),
    ("optional_bias_none", optional_bias, lambda: (f32(3),)),
    ("optional_bias", optional_bias, lambda: (f32(3), f32(3))),
    ("loop_range", loop_range, lambda: (f64(4), 4)),
    ("loop_list", loop_list, lambda: ([f64(2, 3), f64(2, 3), f64(2, 3)],)),
    ("loop_inplace", loop_inplace, lambda: (f32(5),)),
    ("containers", returns_containers, lambda: (f64(3), f64(3))),
    ("tuple_scalars", returns_tuple_scalars, lambda: (f32(2, 2),)),
    ("closure_scale", scale_by_3, lambda: (f64(4),)),
    ("closure_inner", closure_user, lambda: (f64(4),)),
    ("comprehension", comprehension, lambda: (f64(3, 2),)),
    ("dict_comprehension", dict_comprehension, lambda: (f64(3, 2),)),
    ("varargs", lambda a, b, c: kwargs_varargs(a, b, c, scale=2.0, shift=1),
     lambda: (f64(3), f64(3), f64(3))),
    ("slicing", slicing, lambda: (f64(4, 6),)),
    ("reductions", reductions, lambda: (np.abs(f64(3, 4, 5)),)),
    ("mixed_dtypes", mixed_dtypes,
     lambda: (rng.integers(0, 5, (3, 4)).astype(np.int32), f32(3, 4))),
    ("where_clip", where_clip, lambda: (f64(10),)),
    ("matmul", matmul_chain, lambda: (f64(3, 4), f64(4, 5), f64(2, 5))),
    ("helpers", helper_chain, lambda: (f64(3), f64(3))),
    ("tuple_unpack", tuple_unpack, lambda: (f64(3, 2),)),
    ("enumerate_zip", enumerate_zip, lambda: ((f64(2), f64(2)), [1.0, 2.0])),
    ("global_weights", global_weights, lambda: (f64(2, 4),)),
]


@pytest.mark.parametrize("dynamic", [None, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("name,fn,make_args", CASES, ids=[c[0] for c in CASES])
def test_compiled_matches_numpy(name, fn, make_args, dynamic, recorder):
    args = make_args()
    want = fn(*args)
    compiled = ember.compile(fn, backend=recorder, fullgraph=True, dynamic=dynamic)
    got = compiled(*args)
    assert_same(got, want, rtol=2e-5 if "f32" in repr(args) or name == "gelu" else 1e-7)
    assert_same_aliasing(got, args, want, args)
    # Called again with the same kinds of inputs: a cache hit, no new capture.
    again = compiled(*args)
    assert_same(again, want, rtol=2e-5)
    s = ember.stats()
    assert s["graph_breaks"] == 0
    assert s["captures"] == 1, s
    assert s["cache_hits"] >= 1
    assert len(recorder.graphs) == 1
