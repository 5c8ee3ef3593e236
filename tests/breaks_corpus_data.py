"""Data munging and the rest of Python: containers in and out, argument forms, closures,
comprehensions, builtins on Python values, NumPy scalars. All array operations and static
Python: one graph, no break, unless a program says why."""

from __future__ import annotations

import dataclasses
import math
from collections import namedtuple

import numpy as np
from breaks_harness import Program

Stats = namedtuple("Stats", "mean std")


@dataclasses.dataclass
class Batch:
    x: np.ndarray
    y: np.ndarray
    weight: float = 1.0


def normal(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def dict_of_features(data):
    out = {}
    for name, col in data.items():
        out[name + "_z"] = (col - col.mean()) / col.std()
    return out


def nested_containers(batch):
    (x, y), meta = batch
    return {"sum": x + y, "parts": [x * meta["scale"], y], "n": len(meta)}


def namedtuple_stats(x):
    s = Stats(x.mean(), x.std())
    return Stats(s.mean * 2, s.std + 1)


def dataclass_loss(batch: Batch):
    err = batch.x - batch.y
    return (err * err).mean() * batch.weight


def star_args_sum(*arrays, scale=1.0):
    total = arrays[0]
    for a in arrays[1:]:
        total = total + a
    return total * scale


def kwargs_options(x, **opts):
    y = x * opts.get("gain", 1.0)
    if opts.get("center", False):
        y = y - y.mean()
    return y


def keyword_only(x, *, eps=1e-6, axis=-1):
    return x / (np.abs(x).sum(axis=axis, keepdims=True) + eps)


def defaults_and_positional_only(x, k=2, /, shift=0.5):
    return x**k + shift


def closure_scale(x):
    factor = x.shape[-1] ** -0.5

    def scaled(v):
        return v * factor

    return scaled(x) + scaled(x.T).T


def lambdas_map(x):
    fns = [lambda v: v + 1, lambda v: v * 2, np.tanh]
    return [f(x) for f in fns]


def sorted_by_key(xs):
    names = sorted(xs, key=lambda k: -len(k))
    return [xs[n] * i for i, n in enumerate(names)]


def zip_enumerate(xs, ws):
    acc = 0.0
    for i, (x, w) in enumerate(zip(xs, ws)):
        acc = acc + x * w * (i + 1)
    return acc


def generator_expression_sum(xs):
    return sum(x * x for x in xs), max(len(x) for x in xs)


def builtins_on_python_values(x, sizes):
    n = len(sizes)
    total = sum(sizes) + max(sizes) - min(sizes) + abs(-n)
    return x * total, isinstance(sizes, list), round(math.pi, 2)


def math_on_constants(x):
    c = math.sqrt(2.0) * math.cos(math.pi / 3) + math.log(10) / math.e
    return x * c + math.floor(2.7)


def numpy_scalars(x):
    m = x.max()
    scale = np.float32(2.0)
    return m * scale, (x - m).astype(np.float32) * scale


def zero_d_arrays(x):
    s = np.sum(x, keepdims=False)
    z = np.asarray(s) * 2
    return z, s + 1


def isinstance_dispatch(value):
    if isinstance(value, np.ndarray):
        return value * 2
    if isinstance(value, (list, tuple)):
        return [v * 2 for v in value]
    return value


def string_keys_and_fstrings(x, name):
    key = f"{name}_scaled"
    return {key: x * 2, "label": name.upper()}


def shape_driven(x):
    if x.ndim == 1:
        x = x[None, :]
    rows, cols = x.shape
    return x.reshape(rows * cols) if cols > 2 else x.sum(axis=1)


def dict_comprehension(xs):
    return {k: v.mean() for k, v in xs.items() if k != "skip"}


def unpacking_forms(xs):
    first, *middle, last = xs
    return first + last, len(middle)


def chained_comparisons(x, lo, hi):
    if lo < 0 < hi and x.ndim >= 1:
        return np.clip(x, lo, hi)
    return x


def recursion_on_static_values(x, depth):
    if depth == 0:
        return x
    return recursion_on_static_values(x * 0.5, depth - 1) + x


def tuple_swap_and_min(a, b):
    if a.size > b.size:
        a, b = b, a
    return a.sum() - b.sum(), min(a.size, b.size)


def item_of_dict_get(table, key):
    w = table.get(key, table["default"])
    return w @ w.T


@dataclasses.dataclass(frozen=True, slots=True)
class Budget:
    lines: int
    chars: int


def frozen_dataclass_built_inside(x, n):
    # Its __init__ (and __hash__, which reads the fields) runs while half-built: capture must
    # not hash it. Building it is a call ember does not inline: the __init__ runs on its own.
    b = Budget(n, n * 2)
    return x * (b.lines + b.chars)


def pure_python_fallback(text):
    words = text.split()
    return {w: len(w) for w in sorted(set(words))}


CASES = [
    Program(dict_of_features, lambda: ({"a": np.arange(4.0), "b": normal(4)},), graphs=1,
            breaks=0),
    Program(nested_containers, lambda: (((np.ones(2), np.arange(2.0)), {"scale": 3.0}),),
            graphs=1, breaks=0),
    Program(namedtuple_stats, lambda: (np.arange(5.0),), graphs=1, breaks=0),
    Program(dataclass_loss, lambda: (Batch(np.arange(3.0), np.ones(3), 0.5),), graphs=1,
            breaks=0),
    Program(star_args_sum, lambda: (np.ones(2), np.arange(2.0), np.full(2, 3.0)), graphs=1,
            breaks=0),
    Program(kwargs_options, lambda: (np.arange(3.0),), graphs=1, breaks=0),
    Program(keyword_only, lambda: (normal(2, 3),), graphs=1, breaks=0),
    Program(defaults_and_positional_only, lambda: (np.arange(3.0), 3), graphs=1, breaks=0),
    Program(closure_scale, lambda: (normal(3, 3),), graphs=1, breaks=0),
    Program(lambdas_map, lambda: (np.arange(3.0),), graphs=1, breaks=0),
    Program(sorted_by_key, lambda: ({"aa": np.ones(2), "b": np.arange(2.0)},), graphs=1,
            breaks=0),
    Program(zip_enumerate, lambda: ([np.ones(2), np.arange(2.0)], [0.5, 2.0]), graphs=1,
            breaks=0),
    Program(generator_expression_sum, lambda: ([np.ones(3), np.arange(3.0)],), graphs=1,
            breaks=0),
    Program(builtins_on_python_values, lambda: (np.ones(2), [3, 1, 4]), graphs=1, breaks=0),
    Program(math_on_constants, lambda: (np.arange(3.0),), graphs=1, breaks=0),
    Program(numpy_scalars, lambda: (np.arange(4.0),), graphs=1, breaks=0),
    Program(zero_d_arrays, lambda: (np.arange(4.0),), graphs=1, breaks=0),
    Program(isinstance_dispatch, lambda: ([np.ones(2), np.arange(2.0)],), graphs=1, breaks=0),
    Program(string_keys_and_fstrings, lambda: (np.ones(2), "w"), graphs=1, breaks=0),
    # Only views of the input: rebuilt as NumPy views of it, no graph to compile.
    Program(shape_driven, lambda: (np.arange(6.0),), graphs=0, breaks=0),
    Program(dict_comprehension, lambda: ({"a": np.ones(2), "skip": np.ones(3),
                                          "b": np.arange(4.0)},), graphs=1, breaks=0),
    Program(unpacking_forms, lambda: ([np.ones(2), np.zeros(2), np.ones(2), np.arange(2.0)],),
            graphs=1, breaks=0),
    Program(chained_comparisons, lambda: (np.arange(-3.0, 3.0), -1.0, 1.0), graphs=1,
            breaks=0),
    Program(recursion_on_static_values, lambda: (np.ones(2), 3), graphs=1, breaks=0),
    Program(tuple_swap_and_min, lambda: (np.ones(4), np.arange(2.0)), graphs=1, breaks=0),
    Program(item_of_dict_get, lambda: ({"default": normal(2, 3), "w": normal(2, 2)}, "z"),
            graphs=1, breaks=0),
    Program(frozen_dataclass_built_inside, lambda: (np.ones(2), 3), graphs=1, breaks=3),
    # No arrays: nothing to compile; set() and iterating the set run in Python.
    Program(pure_python_fallback, lambda: ("b a c a",), graphs=0, breaks=2),
]
