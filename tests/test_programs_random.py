"""Hypothesis-generated NumPy programs: compiled with the eager backend vs run plainly.

A program is a straight-line sequence of assignments over its array arguments (elementwise
operators and ufuncs, keepdims reductions, Python scalars, helper calls), optionally inside a
static `for` loop or behind a shape-dependent `if`, returning a tuple of values. Every program
must capture as one graph and give NumPy's results exactly (same dtype, shape, scalar-ness)."""

from __future__ import annotations

import ember
import numpy as np
from conftest import assert_same, assert_same_aliasing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

UNARY = ["np.tanh({})", "np.sin({})", "np.abs({})", "np.sqrt(np.abs({}))", "-{}",
         "np.exp(np.tanh({}))", "np.maximum({}, 0)", "np.square({})", "helper({})"]
BINARY = ["({} + {})", "({} - {})", "({} * {})", "np.minimum({}, {})", "np.where({} > {}, 1.0, -1.0)"]
REDUCE = ["{}.sum(axis={}, keepdims=True)", "{}.mean(axis={}, keepdims=True)",
          "{}.max(axis={}, keepdims=True)", "np.min({}, axis={}, keepdims=True)"]
SCALARS = ["2", "0.5", "-1.25", "3", "True"]


def helper(v):
    return v * 0.5 + 1


@st.composite
def programs(draw):
    n_args = draw(st.integers(1, 3))
    names = [f"a{i}" for i in range(n_args)]
    lines = []
    for k in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["unary", "binary", "scalar", "reduce"]))
        pick = st.sampled_from(names)
        if kind == "unary":
            expr = draw(st.sampled_from(UNARY)).format(draw(pick))
        elif kind == "binary":
            expr = draw(st.sampled_from(BINARY)).format(draw(pick), draw(pick))
        elif kind == "scalar":
            scalar = draw(st.sampled_from(SCALARS))
            expr = f"({draw(pick)} * {scalar})" if draw(st.booleans()) else \
                f"({scalar} + {draw(pick)})"
        else:
            expr = draw(st.sampled_from(REDUCE)).format(draw(pick), draw(st.integers(0, 1)))
        lines.append(f"v{k} = {expr}")
        names.append(f"v{k}")
    body = [f"    {line}" for line in lines]
    wrap = draw(st.sampled_from(["none", "loop", "branch"]))
    if wrap == "loop":
        body = ["    for i in range(2):"] + ["    " + b for b in body] + \
            ["        a0 = a0 + v0 * i"]
    elif wrap == "branch":
        body = ["    if a0.shape[0] > 2:"] + ["    " + b for b in body] + \
            ["    else:", "        v0 = a0 * 2"] + [f"        v{k} = a0" for k in
                                                    range(1, len(lines))]
    results = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3))
    scalar_result = draw(st.booleans())
    ret = ", ".join(results) + (f", {results[0]}.sum()" if scalar_result else "")
    source = f"def program({', '.join(f'a{i}' for i in range(n_args))}):\n" + \
        "\n".join(body) + f"\n    return ({ret},)\n"
    rows = draw(st.integers(1, 4))
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    seed = draw(st.integers(0, 2**16))
    return source, n_args, rows, dtype, seed


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_programs_match_numpy(case):
    source, n_args, rows, dtype, seed = case
    namespace = {"np": np, "helper": helper}
    exec(compile(source, "<random program>", "exec"), namespace)  # noqa: S102 - generated test code
    program = namespace["program"]
    rng = np.random.default_rng(seed)
    args = [rng.standard_normal((rows, 3)).astype(dtype) for _ in range(n_args)]
    want = program(*args)
    ember.reset()
    got = ember.compile(program, fullgraph=True)(*args)
    assert_same(got, want, rtol=1e-5 if dtype is np.float32 else 1e-12, atol=1e-6)
    assert_same_aliasing(got, args, want, args)
    assert ember.stats()["graph_breaks"] == 0, source
