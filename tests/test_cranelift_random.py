"""Hypothesis-generated programs over mixed dtypes and shapes, compiled with the default
backend (static and dynamic shapes) against plain NumPy.

Each step applies one op (arithmetic, comparisons, where, casts, float functions, reductions
along an axis, transposes, slices, matmul) to earlier values; a step is kept only where NumPy
accepts it on arrays of those shapes and dtypes and the result has a dtype the code generator
handles, so every program compiles natively and means something."""

from __future__ import annotations

import warnings

import ember
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_cranelift_harness import NATIVE_DTYPES

DTYPES = {"np.float32": np.float32, "np.float64": np.float64, "np.int32": np.int32,
          "np.int64": np.int64, "np.bool_": np.bool_}  # as the programs spell them
BINARY = ["({a} + {b})", "({a} * {b})", "np.maximum({a}, {b})", "np.minimum({a}, {b})",
          "({a} < {b})", "({a} == {b})", "np.where({a} > {b}, {a}, {b})", "({a} - {b})",
          "({a} / (1.5 + {b} * {b}))", "({a} & {b})", "np.fmax({a}, {b})"]
UNARY = ["np.tanh({a})", "np.abs({a})", "np.sqrt(np.abs({a}) + 1)", "np.exp(np.tanh({a}))",
         "({a} * 2)", "(0.5 - {a})", "np.floor({a})", "np.sin({a})", "np.log1p(np.abs({a}))",
         "np.logical_not({a})", "np.square({a})", "np.sign({a})", "{a}.astype({dtype})"]
SHAPE = ["{a}.T", "{a}[::-1]", "{a}[1:]", "{a}[..., ::2]", "{a}.reshape(-1)",
         "np.expand_dims({a}, 0)", "{a}.sum(axis={axis})", "{a}.max(axis={axis}, keepdims=True)",
         "{a}.mean(axis={axis})", "{a}.min()", "np.argmax({a}, axis={axis})",
         "({a} @ {b})", "({a} @ {b}.T)", "np.concatenate([{a}, {b}], axis={axis})"]


def _evaluate(expr: str, env: dict[str, np.ndarray]) -> np.ndarray | None:
    """The expression's value on the given arrays, or None where NumPy refuses it."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = eval(expr, {"np": np}, dict(env))
    except Exception:  # noqa: BLE001 -- a step NumPy rejects is simply not taken
        return None
    value = np.asarray(value)
    return value if value.dtype in NATIVE_DTYPES else None


@st.composite
def programs(draw):
    rows, cols = draw(st.sampled_from([1, 2, 3, 5])), draw(st.sampled_from([1, 4, 17]))
    shapes = [(rows, cols), (cols,), (rows, 1), ()]
    n_args = draw(st.integers(1, 3))
    env: dict[str, np.ndarray] = {}
    dtypes = []
    for i in range(n_args):
        dtype = draw(st.sampled_from(list(DTYPES)[:4] if i == 0 else list(DTYPES)))
        shape = shapes[0] if i == 0 else draw(st.sampled_from(shapes))
        env[f"a{i}"] = np.ones(shape, DTYPES[dtype])
        dtypes.append((dtype, shape))
    lines = []
    for _ in range(draw(st.integers(1, 10))):
        table = draw(st.sampled_from([BINARY, UNARY, SHAPE]))
        template = draw(st.sampled_from(table))
        a = draw(st.sampled_from(sorted(env)))
        if table is SHAPE and env[a].ndim == 0:
            continue  # capture refuses axis=0 on 0-d arrays, which NumPy accepts
        expr = template.format(a=a, b=draw(st.sampled_from(sorted(env))),
                               axis=draw(st.sampled_from([0, -1])),
                               dtype=draw(st.sampled_from(list(DTYPES))))
        value = _evaluate(expr, env)
        if value is None:
            continue
        name = f"v{len(lines)}"
        env[name] = value
        lines.append(f"    {name} = {expr}")
    computed = [f"v{i}" for i in range(len(lines))] or ["a0 * 2"]
    results = [computed[-1], *draw(st.lists(st.sampled_from(computed), max_size=2))]
    source = (f"def program({', '.join(f'a{i}' for i in range(n_args))}):\n"
              + "".join(line + "\n" for line in lines)
              + f"    return ({', '.join(results)},)\n")
    return source, dtypes, draw(st.integers(0, 2**16)), draw(st.booleans())


def make_args(dtypes, seed):
    rng = np.random.default_rng(seed)
    args = []
    for dtype, shape in dtypes:
        values = rng.standard_normal(shape) * 3
        args.append(np.asarray(values > 0 if dtype == "np.bool_" else values,
                               dtype=DTYPES[dtype]))
    return args


def assert_matches(got, want, source, single):
    assert type(got) is type(want) and len(got) == len(want), source
    for g, w in zip(got, want, strict=True):
        assert type(g) is type(w), (source, type(g), type(w))
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (source, g.dtype, w.dtype, g.shape)
        if w.dtype.kind != "f":
            np.testing.assert_array_equal(g, w, err_msg=source)
            continue
        # Chains of approximate functions and reordered sums: relative to the magnitudes, at
        # float32 precision wherever a float32 value took part.
        tol = 1e-4 if single else 1e-10
        scale = float(np.nanmax(np.abs(np.where(np.isfinite(w), w, 0)), initial=1.0))
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol * scale, equal_nan=True,
                                   err_msg=source)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_mixed_programs_compiled_natively(case):
    source, dtypes, seed, dynamic = case
    namespace = {"np": np}
    exec(compile(source, "<random program>", "exec"), namespace)  # noqa: S102 - generated test code
    program = namespace["program"]
    args = make_args(dtypes, seed)
    single = "float32" in source or any(dtype == "np.float32" for dtype, _ in dtypes)
    with np.errstate(all="ignore"):
        want = program(*args)
        ember.reset()
        compiled = ember.compile(program, fullgraph=True, dynamic=dynamic)
        got = compiled(*args)
        assert_matches(got, want, source, single)
        if dynamic and args[0].shape[0] > 1:  # more rows through the same compiled code
            rows = args[0].shape[0]
            more = [np.concatenate([a, a]) if a.ndim == 2 and a.shape[0] == rows else a
                    for a in args]
            try:
                want_more = program(*more)
            except ValueError:  # the program only broadcasts with the first row count
                want_more = None
            if want_more is not None:
                assert_matches(compiled(*more), want_more, source, single)
    s = ember.stats()
    assert s["graph_breaks"] == 0, source
    assert s["backend_fallbacks"] == {}, (source, s["backend_fallbacks"])
    assert s["entry_fallbacks"] == 0, source
