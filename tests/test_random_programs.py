"""Random expression programs over 1-3 random arrays: the eager run of their graph equals NumPy.

A program is a tree of operations (operators, ufuncs, where, reductions, reshapes, indexing,
casts) whose leaves are the arguments or Python scalars. The same tree is evaluated with NumPy
and traced through numpy_api; `check` compares results, or exceptions where NumPy raises.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_ops_harness import check

DTYPES = [np.bool_, np.int32, np.int64, np.float32, np.float64, np.uint8]
BINARY = ["+", "-", "*", "/", "//", "%", "**", "&", "|", "<", "==", ">=", "maximum", "minimum",
          "arctan2", "hypot", "logical_and"]
UNARY = ["-", "abs", "~", "sqrt", "exp", "sin", "tanh", "square", "floor", "isnan", "sign",
         "logical_not", "log1p"]
REDUCTIONS = ["sum", "mean", "max", "min", "prod", "any", "all", "argmax", "var", "std"]


@st.composite
def arrays(draw: st.DrawFn) -> list[np.ndarray]:
    base = draw(st.lists(st.integers(1, 4), min_size=0, max_size=3))
    n = draw(st.integers(1, 3))
    out = []
    for i in range(n):
        keep = draw(st.integers(0, len(base)))
        shape = [d if draw(st.booleans()) else 1 for d in base[len(base) - keep:]]
        dtype = np.dtype(draw(st.sampled_from(DTYPES)))
        rng = np.random.default_rng(draw(st.integers(0, 2**16)) + i)
        if dtype.kind == "f":
            values = rng.choice(np.array([-2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, np.nan]), shape)
        else:
            values = rng.integers(0 if dtype.kind in "bu" else -3, 2 if dtype.kind == "b" else 5,
                                  shape)
        out.append(np.asarray(values).astype(dtype))
    return out


def programs(n_args: int) -> st.SearchStrategy[Any]:
    leaf = st.one_of(
        st.tuples(st.just("arg"), st.integers(0, n_args - 1)),
        st.tuples(st.just("const"), st.sampled_from([2, -1, 0.5, True, 3.0])),
    )

    def extend(child: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(
            st.tuples(st.just("binary"), st.sampled_from(BINARY), child, child),
            st.tuples(st.just("unary"), st.sampled_from(UNARY), child),
            st.tuples(st.just("where"), child, child, child),
            st.tuples(st.just("reduce"), st.sampled_from(REDUCTIONS), st.integers(-1, 3),
                      st.booleans(), child),
            st.tuples(st.just("shape"), st.sampled_from(["T", "ravel", "expand", "flip",
                                                         "first", "reshape", "swap"]), child),
            st.tuples(st.just("astype"), st.sampled_from(DTYPES), child),
            st.tuples(st.just("pair"), st.sampled_from(["matmul", "concat", "stack", "clip"]),
                      child, child),
            st.tuples(st.just("slice"), st.integers(-3, 3), st.integers(-3, 3),
                      st.sampled_from([1, 2, -1, -2]), child),
        )

    return st.recursive(leaf, extend, max_leaves=8)


def evaluate(node: Any, xp: Any, args: tuple[Any, ...]) -> Any:
    kind = node[0]
    if kind == "arg":
        return args[node[1]]
    if kind == "const":
        return node[1]
    if kind == "binary":
        a, b = evaluate(node[2], xp, args), evaluate(node[3], xp, args)
        op = node[1]
        if op.isidentifier():
            return getattr(xp, op)(a, b)
        return eval(f"a {op} b")
    if kind == "unary":
        x = evaluate(node[2], xp, args)
        op = node[1]
        if op == "-":
            return -x
        if op == "~":
            return ~x
        if op == "abs":
            return abs(x)
        return getattr(xp, op)(x)
    if kind == "where":
        c, a, b = (evaluate(n, xp, args) for n in node[1:])
        return xp.where(c, a, b)
    if kind == "reduce":
        _, name, k, keepdims, child = node
        x = evaluate(child, xp, args)
        ndim = xp.ndim(x) if xp is np else getattr(x, "ndim", 0)
        axis = None if k < 0 or ndim == 0 else k % ndim
        if name == "argmax":
            return xp.argmax(x, axis=axis, keepdims=keepdims)
        return getattr(xp, name)(x, axis=axis, keepdims=keepdims)
    if kind == "shape":
        x = evaluate(node[2], xp, args)
        how = node[1]
        if how == "T":
            return xp.transpose(x)
        if how == "ravel":
            return xp.ravel(x)
        if how == "expand":
            return xp.expand_dims(x, 0)
        if how == "flip":
            return xp.flip(x)
        if how == "reshape":
            return xp.reshape(x, (-1, 1))
        if how == "swap":
            return xp.moveaxis(x, 0, -1)
        return x[0]
    if kind == "pair":
        a, b = evaluate(node[2], xp, args), evaluate(node[3], xp, args)
        if node[1] == "matmul":
            return a @ b
        if node[1] == "concat":
            return xp.concatenate([a, b], axis=-1)
        if node[1] == "stack":
            return xp.stack([a, b])
        return xp.clip(a, b, 2)
    if kind == "slice":
        _, start, stop, step, child = node
        return evaluate(child, xp, args)[start:stop:step]
    assert kind == "astype"
    return getattr(xp, np.dtype(node[1]).type.__name__)(evaluate(node[2], xp, args))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_programs_match_numpy(data: st.DataObject) -> None:
    args = data.draw(arrays())
    program = data.draw(programs(len(args)))
    check(lambda xp, *a: evaluate(program, xp, a), *args, allow_unsupported=True)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_programs_with_symbolic_dims_match_numpy(data: st.DataObject) -> None:
    args = data.draw(arrays())
    program = data.draw(programs(len(args)))
    check(lambda xp, *a: evaluate(program, xp, a), *args, allow_unsupported=True, dynamic=True)
