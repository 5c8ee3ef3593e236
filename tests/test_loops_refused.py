"""A loop graph the native core refuses is never run op by op by the eager backend (hundreds
of times slower than Python): the Cranelift backend raises `RegionsRejected`, and capture
takes the frame again without loop ops, so the frame runs natively unrolled or as Python."""

from __future__ import annotations

import copy

import ember
import numpy as np
import pytest
from conftest import RecordingBackend, assert_same
from ember.backends import cranelift, runs_loop_ops
from ember.errors import RegionsRejected
from ember.graph import Graph
from kernel_cases import CASES
from loops_kernels import kernel_inputs

pytestmark = pytest.mark.skipif(not runs_loop_ops("cranelift"),
                                reason="the native core does not compile loop ops")


@pytest.fixture
def refusing_loops(monkeypatch):
    """The native core made to refuse every graph that holds a loop op."""
    real = cranelift.try_native

    def try_native(graph: Graph, text: str, num_threads: int, *rest):
        if "= loop(" in text:
            return "IRError: loop refused for this test"
        return real(graph, text, num_threads, *rest)

    monkeypatch.setattr(cranelift, "try_native", try_native)


def _stats():
    return ember.stats()


def test_backend_raises_for_a_refused_loop_graph(refusing_loops) -> None:
    fn, args = kernel_inputs(24)["prefix_sum"]
    recorder = RecordingBackend()
    ember.compile(fn, backend=recorder)(*copy.deepcopy(args))
    graph = recorder.graphs[0]
    assert "loop" in recorder.ops(0)
    with pytest.raises(RegionsRejected, match="loop refused for this test"):
        cranelift.compile(graph, list(args))
    assert _stats()["backend_fallbacks"] == {}


@pytest.mark.parametrize("name", ["prefix_sum", "recurrence", "histogram", "crc32",
                                  "dot_by_loop"])
def test_refused_loop_graph_runs_without_loop_ops(name: str, refusing_loops) -> None:
    fn, args = kernel_inputs(24)[name]
    want = fn(*copy.deepcopy(args))
    compiled = ember.compile(fn, backend="cranelift")
    for _ in range(2):
        inputs = copy.deepcopy(args)
        assert_same(compiled(*inputs), want, rtol=1e-9)
        for got_input, original in zip(inputs, args, strict=True):
            if isinstance(original, np.ndarray):
                np.testing.assert_array_equal(got_input, original)
    stats = _stats()
    assert stats["backend_fallbacks"] == {}
    assert stats["region_recaptures"] >= 1


def test_loop_kernels_never_run_eagerly() -> None:
    """Every loop kernel of the corpus compiles natively or is captured again without loop
    ops: none is handed to the eager backend."""
    items = [(n, f, m(np.random.default_rng(0), 1)) for n, f, m in CASES]
    items += [(n, f, a) for n, (f, a) in kernel_inputs(24).items()]
    for name, fn, inputs in items:
        ember.compile(fn, backend="cranelift")(*copy.deepcopy(inputs))
        assert _stats()["backend_fallbacks"] == {}, name


