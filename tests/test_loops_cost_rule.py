"""The unrolling cost rule for short loops of whole-array elementwise trips
(docs/ARCHITECTURE.md section 12): unrolled, their trips fuse into one kernel."""

from __future__ import annotations

import ember
import numpy as np
from conftest import assert_same
from test_loops_windows import loop_ops, run_both


def horner(coeffs, x):
    result = np.zeros_like(x)
    for c in coeffs:
        result = result * x + c
    return result


def test_short_elementwise_loop_unrolls_into_one_kernel_long_one_is_a_loop_op(recorder) -> None:
    x = np.random.default_rng(4).random(50)
    for n, unrolled in ((12, True), (200, False)):
        recorder.graphs.clear()
        ember.reset()
        coeffs = np.random.default_rng(n).random(n)
        assert_same(ember.compile(horner, backend=recorder)(coeffs, x), horner(coeffs, x))
        assert (loop_ops(recorder) == 0) == unrolled
        for backend in ("eager", "cranelift"):
            ember.reset()
            run_both(horner, coeffs, x, backend=backend)
