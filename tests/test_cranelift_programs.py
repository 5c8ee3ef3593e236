"""Whole programs through `ember.compile` with the default (Cranelift) backend: the program
corpus and hypothesis-generated programs of `test_programs_*`, static and dynamic, against
plain NumPy, with every graph compiled natively (no eager fallback)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same, assert_same_aliasing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_programs_corpus import CASES
from test_programs_random import helper, programs


def assert_native() -> None:
    s = ember.stats()
    assert s["backend_fallbacks"] == {}, s["backend_fallbacks"]
    assert s["entry_fallbacks"] == 0, "a compiled graph raised and the frame re-ran as Python"


# Cases where the Python graph and the Rust core disagree on a type, so that the core rejects
# the graph (it then runs eagerly, with NumPy's results): strict, so a fix shows up here.
# (program, dynamic) -> why the native backend disagrees with NumPy (an xfail).
DISAGREEMENTS: dict[tuple[str, bool | None], str] = {}


def corpus_params():
    for dynamic in (None, True):
        for name, fn, make_args in CASES:
            reason = DISAGREEMENTS.get((name, dynamic))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            yield pytest.param(name, fn, make_args, dynamic, marks=marks,
                               id=f"{name}-{'dynamic' if dynamic else 'static'}")


@pytest.mark.parametrize("name,fn,make_args,dynamic", corpus_params())
def test_corpus_compiled_natively_matches_numpy(name, fn, make_args, dynamic):
    args = make_args()
    want = fn(*args)
    compiled = ember.compile(fn, fullgraph=True, dynamic=dynamic)
    got = compiled(*args)
    f32 = "float32" in repr(args) or name in ("gelu", "mlp", "linear_call")
    rtol = 2e-5 if f32 else 1e-7
    assert_same(got, want, rtol=rtol, atol=1e-6 if f32 else 1e-12)
    assert_same_aliasing(got, args, want, args)
    assert_same(compiled(*args), want, rtol=rtol, atol=1e-6 if f32 else 1e-12)
    s = ember.stats()
    assert s["graph_breaks"] == 0 and s["captures"] == 1 and s["cache_hits"] >= 1, s
    assert_native()


def _run_program(source: str, n_args: int, rows: int, dtype: type, seed: int,
                 layout: str) -> None:
    namespace = {"np": np, "helper": helper}
    exec(compile(source, "<random program>", "exec"), namespace)  # noqa: S102 - generated test code
    program = namespace["program"]
    rng = np.random.default_rng(seed)
    args = []
    for _ in range(n_args):
        if layout == "transposed":
            args.append(rng.standard_normal((3, rows)).astype(dtype).T)
        elif layout == "sliced":
            args.append(rng.standard_normal((2 * rows, 5)).astype(dtype)[::2, 1:4])
        else:
            args.append(rng.standard_normal((rows, 3)).astype(dtype))
    want = program(*args)
    ember.reset()
    got = ember.compile(program, fullgraph=True)(*args)
    f32 = dtype is np.float32
    assert_same(got, want, rtol=1e-5 if f32 else 1e-12, atol=1e-5 if f32 else 1e-12)
    assert_same_aliasing(got, args, want, args)
    assert ember.stats()["graph_breaks"] == 0, source
    assert_native()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.sampled_from(["contiguous", "transposed", "sliced"]))
def test_random_programs_compiled_natively_match_numpy(case, layout):
    _run_program(*case, layout)


def test_dynamic_shapes_specialise_without_recapture():
    def f(x, y):
        return np.tanh(x) * y + x.sum(axis=0)

    compiled = ember.compile(f, dynamic=True, fullgraph=True)
    for n in (3, 5, 3, 9, 5, 2):
        x = np.linspace(-1, 1, n * 4).reshape(n, 4)
        y = np.arange(4.0)
        assert_same(compiled(x, y), f(x, y), rtol=1e-12)
    s = ember.stats()
    assert s["captures"] == 1, s
    assert_native()


def test_layouts_reach_the_compiled_graph():
    def f(a, b):
        return a * 2 + b.T, (a - b.T).max(axis=1)

    base = np.arange(48.0).reshape(6, 8)
    compiled = ember.compile(f, fullgraph=True)
    for a, b in [(base, base.T.copy()), (base[:, ::-1], base.T), (base[::-1], base.T[:, ::-1]),
                 (np.asfortranarray(base), np.ascontiguousarray(base.T))]:
        assert_same(compiled(a, b), f(a, b), rtol=0)
    assert_native()


def test_num_threads_from_config_gives_the_same_results():
    x = np.random.default_rng(5).standard_normal((512, 1024))

    def f(x):
        return np.exp(-x * x).sum(axis=1), np.sqrt(np.abs(x)) + 1

    want = f(x)
    for threads in (1, 2):
        ember.reset()
        ember.config.num_threads = threads
        try:
            got = ember.compile(f, fullgraph=True)(x)
        finally:
            ember.config.num_threads = 0
        assert_same(got, want, rtol=1e-12, atol=1e-9)
        assert_native()
