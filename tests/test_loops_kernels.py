"""Loop-style kernels as NumPy users write them, compiled: each gives plain NumPy's result
(values, dtype, shape, scalar types), captured as loop ops rather than unrolled."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import RecordingBackend, assert_same
from ember.backends import runs_loop_ops
from loops_kernels import kernel_inputs

KERNELS = kernel_inputs(24)
# The backends that run loop ops; Cranelift joins once the native core compiles IR version 2.
BACKENDS = [b for b in ("eager", "cranelift") if runs_loop_ops(b)]


def fresh(args: tuple) -> list:
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_kernel_matches_numpy(name: str, backend: str) -> None:
    fn, args = KERNELS[name]
    want = fn(*fresh(args))
    compiled = ember.compile(fn, backend=backend)
    for _ in range(2):  # the first call compiles, the second runs the cached entry
        inputs = fresh(args)
        assert_same(compiled(*inputs), want, rtol=1e-9)
        for got_input, original in zip(inputs, args, strict=True):
            if isinstance(original, np.ndarray):
                np.testing.assert_array_equal(got_input, original)  # no input is mutated


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_kernel_is_one_graph_of_loop_ops(name: str) -> None:
    fn, args = KERNELS[name]
    recorder = RecordingBackend()
    ember.compile(fn, backend=recorder)(*fresh(args))
    assert len(recorder.graphs) == 1
    (graph,) = recorder.graphs
    assert "loop" in recorder.ops()
    assert len(graph.nodes) < 60  # nothing unrolled: the ops do not grow with the sizes


@pytest.mark.parametrize("name", ["recurrence", "forward_substitution", "cholesky", "crc32",
                                  "edit_distance", "floyd_warshall"])
def test_op_count_is_independent_of_the_trip_count(name: str) -> None:
    counts = []
    for scale in (12, 20):
        fn, args = kernel_inputs(scale)[name]
        recorder = RecordingBackend()
        ember.reset()
        ember.compile(fn, backend=recorder)(*fresh(args))
        counts.append(recorder.op_counts)
    assert counts[0] == counts[1]


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_kernel_with_the_native_backend_matches_numpy(name: str) -> None:
    """Whether or not the native core runs loop ops yet: loop ops natively, or the frame as
    plain Python (the cost rule), never a wrong result."""
    fn, args = KERNELS[name]
    assert_same(ember.compile(fn, backend="cranelift")(*fresh(args)), fn(*fresh(args)),
                rtol=1e-9)
