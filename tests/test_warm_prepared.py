"""Warm starts that skip the backend's Python work: a stored entry's record keeps the IR text
and the output orders the Cranelift backend worked out (`cranelift.prepare`), and a restore
compiles from them (`stored_prepared`). The restored entry gives NumPy's values, dtypes,
shapes and memory orders (for C and Fortran inputs alike), runs on the native fast path, and
a record whose prepared part is damaged is never run wrongly."""

from __future__ import annotations

import pickle

import ember
import numpy as np
import pytest
from ember.backends import cranelift
from ember.capture import stored
from hypothesis import given, settings
from hypothesis import strategies as st


def _rows(x, g, b):
    mu = x.mean(axis=-1, keepdims=True)
    return (x - mu) * g + b, x.T * 2.0, (x * g).sum()


def _flat(x, s):
    return x * s + 1.0


@pytest.fixture
def restorable(tmp_path, monkeypatch):
    """A cache directory of this test's own, where a process may restore what it stored."""
    monkeypatch.setattr(ember.config, "cache_dir", str(tmp_path))
    ember.reset()
    stored._stored_here.clear()
    yield tmp_path
    ember.reset()
    stored._stored_here.clear()


def _fresh() -> None:
    ember.reset()
    stored._stored_here.clear()  # as a fresh process


def _same(got, want) -> None:
    for g, w in zip(got if isinstance(got, tuple) else [got],
                    want if isinstance(want, tuple) else [want], strict=True):
        assert type(g) is type(w) and np.shape(g) == np.shape(w)
        assert np.asarray(g).dtype == np.asarray(w).dtype
        if isinstance(w, np.ndarray):
            assert g.flags.c_contiguous == w.flags.c_contiguous
            assert g.flags.f_contiguous == w.flags.f_contiguous
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-12)


def _args(dtype, order):
    x = np.asarray(np.linspace(-2.0, 3.0, 24).reshape(4, 6), dtype=dtype, order=order)
    return x, np.cos(np.arange(6.0)).astype(dtype), np.sin(np.arange(6.0)).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_restore_uses_the_prepared_text_and_orders(restorable, dtype):
    compiled = ember.compile(_rows, backend="cranelift")
    compiled(*_args(dtype, "C"))
    assert ember.stats()["stored_writes"] == 1
    _fresh()
    for _ in range(2):
        _same(compiled(*_args(dtype, "C")), _rows(*_args(dtype, "C")))
    s = ember.stats()
    assert s["stored_hits"] == 1 and s["stored_prepared"] == 1 and s["captures"] == 0, s
    assert s["native_calls"] >= 1, s


def test_restored_graph_orders_outputs_of_fortran_inputs(restorable):
    """The prepared orders are those of C-contiguous inputs; other layouts still take the
    rule, after a warm start as after a capture."""
    compiled = ember.compile(_rows, backend="cranelift")
    compiled(*_args("float64", "C"))
    _fresh()
    compiled(*_args("float64", "C"))
    assert ember.stats()["stored_prepared"] == 1
    x, g, b = _args("float64", "F")
    _same(compiled(x, g, b), _rows(x, g, b))


def test_prepared_matches_what_compile_works_out():
    x, g, b = _args("float64", "C")
    captured = {}

    def backend(graph, examples):
        captured["graph"] = graph
        return cranelift.compile(graph, examples)

    ember.compile(_rows, backend=backend)(x, g, b)
    graph = captured["graph"]
    text, orders = cranelift.prepare(graph)
    fresh = cranelift.compile(graph, (x, g, b))
    ready = cranelift.compile(graph, (x, g, b), prepared=(text, orders))
    assert orders is not None and len(orders) == len(graph.outputs)
    for got, want in zip(ready(x, g, b), fresh(x, g, b), strict=True):
        assert got.dtype == want.dtype and got.strides == want.strides
        np.testing.assert_array_equal(got, want)


def _tamper(root, change) -> None:
    [path] = (root / "entries").glob("*.entry")
    record = pickle.loads(stored._read(str(path)))
    change(record)
    stored._write(str(path), pickle.dumps(record, protocol=5))


@pytest.mark.parametrize("change", [
    lambda r: r.update(prepared=(r["prepared"][0], [[0]])),  # one order for three outputs
    lambda r: r.update(prepared=(r["prepared"][0].replace("func @", "func @@", 1),
                                 r["prepared"][1])),  # text the core cannot parse
])
def test_damaged_prepared_part_captures_again(restorable, change):
    compiled = ember.compile(_rows, backend="cranelift")
    compiled(*_args("float64", "C"))
    _tamper(restorable, change)
    _fresh()
    _same(compiled(*_args("float64", "C")), _rows(*_args("float64", "C")))
    s = ember.stats()
    assert s["stored_hits"] == 0 and s["stored_rejected"] == 1 and s["captures"] == 1, s


def test_a_record_without_prepared_part_still_restores(restorable):
    """Records written before the prepared part existed compile the graph as before."""
    compiled = ember.compile(_rows, backend="cranelift")
    compiled(*_args("float64", "C"))
    _tamper(restorable, lambda r: r.pop("prepared"))
    _fresh()
    _same(compiled(*_args("float64", "C")), _rows(*_args("float64", "C")))
    s = ember.stats()
    assert s["stored_hits"] == 1 and s["stored_prepared"] == 0 and s["captures"] == 0, s


@settings(max_examples=15, deadline=None, derandomize=True)
@given(n=st.integers(1, 9), s=st.floats(-4, 4, allow_nan=False), f32=st.booleans())
def test_restored_flat_entries_match_numpy(tmp_path_factory, n, s, f32):
    root = tmp_path_factory.mktemp("warm")
    previous = ember.config.cache_dir
    ember.config.cache_dir = str(root)
    try:
        _fresh()
        dtype = np.float32 if f32 else np.float64
        x = np.linspace(-1.0, 1.0, n).astype(dtype)
        compiled = ember.compile(_flat, backend="cranelift")
        compiled(x, s)
        _fresh()
        _same(compiled(x, s), _flat(x, s))
        got = ember.stats()
        assert got["stored_prepared"] == 1 and got["captures"] == 0, got
    finally:
        ember.config.cache_dir = previous
        _fresh()
