"""The Cranelift backend's own behaviour: the native graph returned as the callable, symbolic
graphs specialised per shape, eager fallback with its reason in stats and logs, num_threads,
and bad inputs passed straight to a compiled graph raising clear exceptions."""

from __future__ import annotations

import logging
from typing import Any

import ember
import numpy as np
import pytest
from ember import _core
from ember.backends import cranelift, lookup_backend
from ember.graph import Graph


def affine(shape: tuple[int | str, ...] = (4, 3), dtype: Any = np.float64) -> Graph:
    """y = x * 2 + b with b broadcast along the rows."""
    g = Graph("affine")
    x = g.add_input(dtype, shape)
    b = g.add_input(dtype, shape[1:])
    g.set_outputs([g.op("add", [g.op("mul", [x, g.const(2.0)]), b])])
    return g


def test_cranelift_is_the_default_backend(monkeypatch):
    import inspect

    assert inspect.signature(ember.compile).parameters["backend"].default == "cranelift"
    cranelift.parses_version_2()  # the one-time probe, asked before the spy counts texts
    seen = []
    real = _core.compile_ir

    def spy(text: str, num_threads: int = 0) -> Any:
        seen.append(text)
        return real(text, num_threads)

    monkeypatch.setattr(_core, "compile_ir", spy)
    f = ember.compile(lambda x: x * 3 + 1)
    x = np.arange(5.0)
    np.testing.assert_array_equal(f(x), x * 3 + 1)
    assert len(seen) == 1 and "mul(" in seen[0]


def test_static_graph_is_the_native_callable():
    g = affine()
    compiled = cranelift.compile(g, [np.ones((4, 3)), np.ones(3)])
    assert isinstance(compiled, _core.CompiledGraph)
    x, b = np.arange(12.0).reshape(4, 3), np.array([1.0, -1.0, 0.5])
    (out,) = compiled(x, b)
    np.testing.assert_array_equal(out, x * 2 + b)
    assert out.flags.c_contiguous and out.dtype == np.float64


def test_symbolic_graph_compiles_once_and_takes_any_sizes(monkeypatch):
    g = affine(("s0", "s1"))
    texts = []
    real = _core.compile_ir

    def spy(text: str, num_threads: int = 0, example_shapes: Any = None) -> Any:
        texts.append((text, example_shapes))
        return real(text, num_threads, example_shapes)

    monkeypatch.setattr(_core, "compile_ir", spy)
    compiled = cranelift.compile(g, [np.ones((4, 3)), np.ones(3)])
    assert isinstance(compiled, _core.CompiledGraph)
    assert len(texts) == 1 and "f64[s0,s1]" in texts[0][0]
    assert texts[0][1] == [(4, 3), (3,)]
    generated, _ = _core.codegen_counters()
    for n, m in [(4, 3), (7, 3), (4, 3), (2, 5), (7, 3), (300, 9), (2, 2)]:
        x = np.arange(n * m, dtype=np.float64).reshape(n, m)
        b = np.linspace(0, 1, m)
        (out,) = compiled(x, b)
        np.testing.assert_array_equal(out, x * 2 + b)
    assert len(texts) == 1
    assert _core.codegen_counters()[0] == generated  # no kernel generated after the first


def test_symbolic_shape_mismatch_raises_value_error():
    g = Graph("pair")
    x = g.add_input(np.float64, ("s0",))
    y = g.add_input(np.float64, ("s0",))
    g.set_outputs([g.op("add", [x, y])])
    compiled = cranelift.compile(g, [np.ones(3), np.ones(3)])
    with pytest.raises(ValueError, match="s0 = 3"):
        compiled(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="input 0"):
        compiled(np.ones((3, 1)), np.ones(3))
    with pytest.raises(TypeError, match="input 1: expected a numpy.ndarray"):
        compiled(np.ones(3), [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="takes 2 input"):
        compiled(np.ones(3))


def _reject(text: str, num_threads: int = 0, example_shapes: Any = None) -> Any:
    raise _core.IRError("not supported by the cranelift backend: %2 = frobnicate")


def test_rejected_graph_runs_eagerly_with_reason_in_stats_and_log(monkeypatch, caplog):
    monkeypatch.setattr(_core, "compile_ir", _reject)
    ember_logger = logging.getLogger("ember")
    ember_logger.addHandler(caplog.handler)
    ember.logging.set_logs("backend")
    try:
        f = ember.compile(lambda x: np.sin(x) + 1, fullgraph=True)
        x = np.linspace(0, 1, 7)
        np.testing.assert_array_equal(f(x), np.sin(x) + 1)
    finally:
        ember.logging.set_logs()
        ember_logger.removeHandler(caplog.handler)
    reasons = ember.stats()["backend_fallbacks"]
    assert list(reasons) == ["IRError: not supported by the cranelift backend: %2 = frobnicate"]
    assert any("runs eagerly" in r.getMessage() and "frobnicate" in r.getMessage()
               for r in caplog.records)


def test_rejected_symbolic_graph_runs_eagerly_for_every_shape(monkeypatch):
    monkeypatch.setattr(_core, "compile_ir", _reject)
    compiled = cranelift.compile(affine(("s0", 3)), [np.ones((4, 3)), np.ones(3)])
    for n in (4, 6):
        x = np.ones((n, 3))
        (out,) = compiled(x, np.zeros(3))
        np.testing.assert_array_equal(out, x * 2)
    assert sum(ember.stats()["backend_fallbacks"].values()) == 1


def test_num_threads_passes_through(monkeypatch):
    calls = []
    real = _core.compile_ir

    def spy(text: str, num_threads: int = 0, example_shapes: Any = None) -> Any:
        calls.append(num_threads)
        return real(text, num_threads)

    monkeypatch.setattr(_core, "compile_ir", spy)
    example = [np.ones((4, 3)), np.ones(3)]
    cranelift.compile(affine(), example)
    cranelift.compile(affine(), example, num_threads=3)
    monkeypatch.setattr(ember.config, "num_threads", 2)
    cranelift.compile(affine(), example)
    f = ember.compile(lambda x: x + 1, options={"num_threads": 1})
    f(np.ones(2))
    assert calls == [0, 3, 2, 1]
    with pytest.raises(ValueError, match="num_threads"):
        cranelift.compile(affine(), example, num_threads=-1)


@pytest.mark.parametrize("bad,error,match", [
    ((np.ones((4, 3), np.float32), np.ones(3)), TypeError, "input 0.*dtype"),
    ((np.ones((4, 3)), np.ones(3, np.int64)), TypeError, "input 1.*dtype"),
    ((np.ones((3, 4)), np.ones(3)), ValueError, "input 0.*shape"),
    ((np.ones((4, 3, 1)), np.ones(3)), ValueError, "input 0.*shape"),
    ((np.ones((4, 3)),), TypeError, "takes 2 input"),
    ((np.ones((4, 3)), np.ones(3), np.ones(3)), TypeError, "takes 2 input"),
    ((np.ones((4, 3)), [1.0, 2.0, 3.0]), TypeError, "input 1.*ndarray"),
    ((np.ones((4, 3)), None), TypeError, "input 1"),
    ((np.ones((4, 3)), np.float64(1.0)), TypeError, "input 1"),
    ((np.ones((4, 3), ">f8"), np.ones(3)), TypeError, "input 0.*dtype"),
    ((np.ones((4, 3), object), np.ones(3)), TypeError, "input 0.*dtype"),
    ((np.array(1.0), np.ones(3)), ValueError, "input 0.*shape"),
])
def test_bad_inputs_raise_clear_exceptions(bad, error, match):
    compiled = lookup_backend("cranelift")(affine(), [np.ones((4, 3)), np.ones(3)])
    with pytest.raises(error, match=match):
        compiled(*bad)
    (out,) = compiled(np.ones((4, 3)), np.ones(3))  # still usable afterwards
    np.testing.assert_array_equal(out, np.full((4, 3), 3.0))


def test_unaligned_and_readonly_inputs():
    compiled = cranelift.compile(affine((5,)[:1] + (3,)), [np.ones((5, 3)), np.ones(3)])
    raw = np.zeros(5 * 3 * 8 + 1, np.uint8)[1:].view(np.float64).reshape(5, 3)
    assert not raw.flags.aligned
    with pytest.raises(ValueError, match="aligned"):
        compiled(raw, np.ones(3))
    x = np.arange(15.0).reshape(5, 3)
    x.flags.writeable = False
    (out,) = compiled(x, np.ones(3))
    np.testing.assert_array_equal(out, x * 2 + 1)


def test_any_strides_are_read_correctly():
    compiled = cranelift.compile(affine(), [np.ones((4, 3)), np.ones(3)])
    base = np.arange(24.0).reshape(4, 6)
    b = np.array([1.0, -2.0, 0.5])
    for x in (np.broadcast_to(b, (4, 3)), base[::-1, ::-2], base[:, 1:4],
              np.asfortranarray(base[:, :3]), np.asmatrix(base[:, :3])):
        (out,) = compiled(x, b[::-1].copy()[::-1])
        assert type(out) is np.ndarray
        np.testing.assert_array_equal(out, np.asarray(x) * 2 + b)


def test_outputs_are_fresh_arrays():
    compiled = cranelift.compile(affine(), [np.ones((4, 3)), np.ones(3)])
    x, b = np.ones((4, 3)), np.zeros(3)
    (first,) = compiled(x, b)
    (second,) = compiled(x, b)
    first[0, 0] = 99.0
    assert second[0, 0] == 2.0 and not np.shares_memory(first, second)
    assert not np.shares_memory(first, x)


def test_integer_pow_with_run_time_exponent_runs_eagerly_and_raises_like_numpy():
    def power(x, y):
        return x**y

    f = ember.compile(power, fullgraph=True)
    x, y = np.arange(4), np.array([1, 2, 0, 3])
    np.testing.assert_array_equal(f(x, y), x**y)
    reasons = ember.stats()["backend_fallbacks"]
    assert list(reasons) == ["pow of integers with a signed exponent known only at run time"]
    with pytest.raises(ValueError, match="negative integer powers"):
        f(x, np.array([1, -1, 2, 0]))


def test_integer_pow_with_constant_or_unsigned_exponent_compiles_natively():
    f = ember.compile(lambda x: (x**3, x**2.5, x**0), fullgraph=True)
    x = np.arange(5)
    for got, want in zip(f(x), (x**3, x**2.5, x**0), strict=True):
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype
    assert ember.stats()["backend_fallbacks"] == {}
    g = Graph("unsigned")
    base, exponent = g.add_input(np.int64, (3,)), g.add_input(np.uint8, (3,))
    g.set_outputs([g.op("pow", [base, exponent])])
    assert cranelift.eager_reason(g) is None  # an unsigned exponent is never negative


def _prefix_max(x):
    out = np.empty_like(x)
    cur = x[0]
    for i in range(x.shape[0]):
        if x[i] > cur:
            cur = x[i]
        out[i] = cur
    return out


def test_clif_log_shows_each_function_optimised_with_its_machine_code(caplog):
    ember_logger = logging.getLogger("ember")
    ember_logger.addHandler(caplog.handler)
    ember.logging.set_logs("clif")
    try:
        x = np.random.default_rng(0).random(40)
        np.testing.assert_array_equal(ember.compile(_prefix_max)(x), _prefix_max(x))
    finally:
        ember.logging.set_logs()
        ember_logger.removeHandler(caplog.handler)
    natives = [r.getMessage() for r in caplog.records if "native" in r.getMessage()]
    assert natives, [r.getMessage() for r in caplog.records]
    listing = natives[0]
    assert "function u0:0(i64, i64, i64) -> i64" in listing  # Cranelift IR
    assert "fcmp" in listing and "store" in listing  # the loop's compare and stores
    assert "ret" in listing.split("}")[-1]  # the machine code after the IR
