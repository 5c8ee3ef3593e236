"""Dynamic shapes on the native backend: kernels generated once take any sizes at run time.

A function called with many batch sizes compiles twice at most (static first, then the dims
seen to change symbolic), generates no kernel after that, and equals NumPy for every size:
broadcasting of symbolic dims, equal-dim relations, sizes 0 and 1 (always specialised),
reductions over a dynamic axis, matmul with a dynamic batch, `mark_dynamic`/`mark_static`,
`dynamic=True/False`, and the `recompiles` log."""

from __future__ import annotations

import logging

import ember
import numpy as np
import pytest
from conftest import assert_same
from hypothesis import HealthCheck, given, settings
from test_cranelift_random import assert_matches, make_args, programs

RNG = np.random.default_rng(1234)


def _rows(n: int, cols: int = 3, dtype=np.float64) -> np.ndarray:
    return RNG.standard_normal((n, cols)).astype(dtype)


def mlp(x, w, b):
    h = np.maximum(x @ w + b, 0.0)
    return h - h.mean(axis=-1, keepdims=True)


def test_one_hundred_batch_sizes_compile_twice_and_generate_kernels_once():
    w, b = _rows(3, 5), _rows(1, 5)[0]
    f = ember.compile(mlp)
    sizes = [int(n) for n in RNG.permutation(np.arange(2, 102))]
    for k, n in enumerate(sizes):
        x = _rows(n)
        assert_same(f(x, w, b), mlp(x, w, b), rtol=1e-12)
        if k == 1:
            generated = ember.stats()["kernels_generated"]
    s = ember.stats()
    assert s["compiles"] == 2, s
    assert s["kernels_generated"] == generated  # the other 98 sizes only made plans
    assert s["shape_plans"] >= 98


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_symbolic_broadcasting_against_static_and_unit_dims(dtype):
    def f(x, row, col):
        return (x * row + col) - x.max(axis=0)

    compiled = ember.compile(f, dynamic=True, fullgraph=True)
    for n in (4, 9, 2, 33):
        x = (_rows(n, 6) * 10).astype(dtype)
        row = np.arange(6).astype(dtype)
        col = np.arange(n).reshape(n, 1).astype(dtype)
        assert_same(compiled(x, row, col), f(x, row, col), rtol=1e-6)
    assert ember.stats()["compiles"] == 1


def test_equal_dims_share_a_symbol_and_unequal_ones_give_numpys_error():
    def f(x, y):
        return x * y + x.sum(axis=1, keepdims=True)

    compiled = ember.compile(f, dynamic=True)
    for n, m in [(3, 4), (5, 7), (8, 2)]:
        x, y = _rows(n, m), _rows(n, m)
        assert_same(compiled(x, y), f(x, y), rtol=1e-12)
    assert ember.stats()["compiles"] == 1
    with pytest.raises(ValueError, match="could not be broadcast"):
        compiled(_rows(4, 3), _rows(5, 3))


def test_sizes_zero_and_one_are_specialised_not_symbolic():
    def f(x):
        return np.squeeze(x) * 2.0, x.sum(axis=0)

    compiled = ember.compile(f)
    for n in (3, 4, 1, 0, 7, 1, 0, 12):
        x = _rows(n, 2)
        assert_same(compiled(x), f(x), rtol=1e-12)
    # (3,2) static, then symbolic, then one entry each for sizes 1 and 0.
    assert ember.stats()["compiles"] == 4


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod", "argmax", "argmin",
                                    "any", "all"])
def test_reductions_over_a_dynamic_axis(reduce):
    def f(x):
        return getattr(x, reduce)(axis=0), getattr(x, reduce)(axis=1), getattr(np, reduce)(x)

    compiled = ember.compile(f, dynamic=True, fullgraph=True)
    for k, (n, m) in enumerate([(2, 3), (5, 2), (17, 40), (300, 7), (3, 1000)]):
        x = _rows(n, m) * 0.5
        if reduce in ("any", "all"):
            x = x > -0.5
        assert_same(compiled(x), f(x), rtol=1e-10)
        if k == 0:
            generated = ember.stats()["kernels_generated"]
    s = ember.stats()
    assert s["compiles"] == 1 and s["kernels_generated"] == generated


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matmul_with_a_dynamic_batch(dtype):
    def f(x, w, v):
        return x @ w, np.tanh(x @ w) @ v

    compiled = ember.compile(f, dynamic=True, fullgraph=True)
    w, v = _rows(6, 5, dtype), _rows(5, 2, dtype)
    for n in (2, 3, 64, 7):
        x = _rows(n * 4, 6, dtype).reshape(n, 4, 6)
        assert_same(compiled(x, w, v), f(x, w, v), rtol=1e-5 if dtype == np.float32 else 1e-12)
    assert ember.stats()["compiles"] == 1


def test_matmul_with_dynamic_inner_and_outer_dims():
    def f(a, b):
        return (a @ b).sum(axis=0)

    compiled = ember.compile(f, dynamic=True, fullgraph=True)
    for m, k, n in [(2, 3, 4), (5, 7, 3), (16, 2, 9), (3, 3, 3)]:
        a, b = _rows(m, k), _rows(k, n)
        assert_same(compiled(a, b), f(a, b), rtol=1e-12)
    assert ember.stats()["compiles"] == 1


def test_reshapes_that_inference_resolves_keep_the_symbol():
    def f(x):
        return (x.reshape(-1, 2, 3) * 2).sum(axis=2), np.expand_dims(x, 1) + x.reshape(-1, 1, 6)

    compiled = ember.compile(f)
    for n in (2, 5, 11, 40):
        x = _rows(n, 6)
        assert_same(compiled(x), f(x), rtol=1e-12)
    assert ember.stats()["compiles"] == 2


def test_mark_dynamic_compiles_once_from_the_first_call():
    def f(x, b):
        return np.exp(x) + b

    compiled = ember.compile(f)
    b = np.ones(3)
    for n in (5, 6, 7, 40):
        x = _rows(n)
        ember.mark_dynamic(x, 0)
        assert_same(compiled(x, b), f(x, b), rtol=1e-12)
    assert ember.stats()["compiles"] == 1


def test_a_marked_dim_read_as_a_python_value_is_captured_static():
    def f(x):
        return x.reshape(x.shape[0] * 3, -1) + 1

    compiled = ember.compile(f)
    x = _rows(4, 6)
    ember.mark_dynamic(x, 0)
    assert_same(compiled(x), f(x))
    s = ember.stats()
    assert s["graph_breaks"] == 0 and s["compiles"] == 1


def test_mark_static_keeps_a_dim_specialised_under_dynamic_true():
    def f(x):
        return x.sum(axis=1)

    compiled = ember.compile(f, dynamic=True)
    for cols in (3, 4, 5):
        x = _rows(6, cols)
        ember.mark_static(x, -1)
        assert_same(compiled(x), f(x), rtol=1e-12)
    assert ember.stats()["compiles"] == 3
    for rows in (7, 8):
        x = _rows(rows, 5)
        ember.mark_static(x, 1)
        assert_same(compiled(x), f(x), rtol=1e-12)
    assert ember.stats()["compiles"] == 3  # dim 0 stays symbolic


def test_marks_are_checked_and_per_array():
    with pytest.raises(TypeError, match="numpy.ndarray"):
        ember.mark_dynamic([1, 2], 0)
    with pytest.raises(np.exceptions.AxisError):
        ember.mark_dynamic(np.ones((2, 3)), 2)
    from ember.capture.marks import marked_dims

    x, y = np.ones((4, 4)), np.ones((4, 4))
    ember.mark_dynamic(x, [0, -1])
    ember.mark_static(x, 1)
    assert marked_dims(x) == {0: True, 1: False} and marked_dims(y) == {}
    ember.reset()
    assert marked_dims(x) == {}


def test_dynamic_false_specialises_every_size_even_when_marked():
    def f(x):
        return x * 2

    compiled = ember.compile(f, dynamic=False)
    for n in (2, 3, 4):
        x = _rows(n)
        ember.mark_dynamic(x, 0)
        assert_same(compiled(x), f(x))
    assert ember.stats()["compiles"] == 3


def test_only_the_dims_that_changed_become_symbolic(recorder):
    def f(x, y):
        return x + y.sum()

    compiled = ember.compile(f, backend=recorder)
    for n in (3, 4, 5):
        x, y = _rows(n, 4), _rows(2, 7)
        assert_same(compiled(x, y), f(x, y), rtol=1e-12)
    assert [g.inputs[0].shape for g in recorder.graphs] == [(3, 4), ("s0", 4)]
    assert [g.inputs[1].shape for g in recorder.graphs] == [(2, 7), (2, 7)]
    x, y = _rows(5, 4), _rows(9, 7)  # y's dim 0 changes now: it joins the symbolic dims
    assert_same(compiled(x, y), f(x, y), rtol=1e-12)
    assert recorder.graphs[-1].inputs[1].shape == ("s1", 7)


def test_recompiles_log_names_the_dims_made_symbolic(caplog):
    logger = logging.getLogger("ember")
    logger.addHandler(caplog.handler)
    ember.logging.set_logs("recompiles")
    try:
        compiled = ember.compile(lambda x: x + 1)
        compiled(np.ones((2, 3)))
        compiled(np.ones((5, 3)))
    finally:
        ember.logging.set_logs()
        logger.removeHandler(caplog.handler)
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "failed ARRAY_MATCH" in text
    assert "size changed at L['x'] dim [0]" in text


def test_guards_describe_symbolic_dims():
    x = np.ones((4, 1))
    ember.mark_dynamic(x, [0, 1])  # dim 1 has size 1: it stays static
    report = ember.explain(lambda x: x * 2, x)
    assert any("ARRAY_MATCH float64 ('>=2', 1)" in line for line in report.guards)


def test_dynamic_graph_runs_many_sizes_on_the_native_backend_directly():
    from ember import _core

    text = """ember-ir 1
func @f(%0: f32[s0,s1], %1: f32[s1]) -> (f32[s0,s1], f32[s0]) {
  %2 = add(%0, %1) : f32[s0,s1]
  %3 = exp(%2) : f32[s0,s1]
  %4 = sum(%3) axis=[1] keepdims=false : f32[s0]
  return %3, %4
}
"""
    graph = _core.compile_ir(text, 1, [(4, 3), (3,)])
    generated = _core.codegen_counters()[0]
    for n, m in [(2, 2), (5, 3), (100, 17), (3, 1000)]:
        x, y = _rows(n, m, np.float32), _rows(1, m, np.float32)[0]
        a, b = graph(x, y)
        np.testing.assert_allclose(a, np.exp(x + y), rtol=1e-6)
        np.testing.assert_allclose(b, np.exp(x + y).sum(axis=1), rtol=1e-5)
    assert _core.codegen_counters()[0] == generated
    with pytest.raises(ValueError, match="s1 = 3 from an earlier input"):
        graph(np.ones((2, 3), np.float32), np.ones(4, np.float32))


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_programs_in_dynamic_mode_generate_kernels_once(case):
    source, dtypes, seed, _ = case
    namespace = {"np": np}
    exec(compile(source, "<random program>", "exec"), namespace)  # noqa: S102 - generated test code
    program = namespace["program"]
    args = make_args(dtypes, seed)
    rows = args[0].shape[0]
    single = "float32" in source or any(dtype == "np.float32" for dtype, _ in dtypes)
    ember.reset()
    compiled = ember.compile(program, fullgraph=True, dynamic=True)
    generated = None
    for copies in (1, 2, 3, 7):
        more = [np.concatenate([a] * copies) if a.ndim == 2 and a.shape[0] == rows else a
                for a in args]
        with np.errstate(all="ignore"):
            try:
                want = program(*more)
            except ValueError:  # the program only broadcasts with the first row count
                continue
            assert_matches(compiled(*more), want, source, single)
        if generated is None:
            generated = ember.stats()["kernels_generated"]
    s = ember.stats()
    assert s["graph_breaks"] == 0 and s["entry_fallbacks"] == 0, source
    if rows > 1 and s["compiles"] == 1:
        assert s["kernels_generated"] == generated, source


def test_threads_calling_one_dynamic_graph_with_many_sizes():
    from concurrent.futures import ThreadPoolExecutor

    from ember import _core

    text = """ember-ir 1
func @f(%0: f64[s0,4]) -> (f64[s0], f64[4]) {
  %1 = sum(%0) axis=[1] keepdims=false : f64[s0]
  %2 = mean(%0) axis=[0] keepdims=false : f64[4]
  return %1, %2
}
"""
    graph = _core.compile_ir(text, 1, [(2, 4)])

    def call(n: int) -> None:
        x = np.arange(n * 4, dtype=np.float64).reshape(n, 4) / (n + 1)
        for _ in range(20):
            rows, cols = graph(x)
            np.testing.assert_allclose(rows, x.sum(axis=1), rtol=1e-12)
            np.testing.assert_allclose(cols, x.mean(axis=0), rtol=1e-12)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(call, [n % 40 + 2 for n in range(64)]))
