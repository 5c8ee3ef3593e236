"""`while` loops in loop bodies whose first test is a Python value and later tests loop
values (`n = 0` then `while n < maxiter and |z| <= 2:`): the first trip runs as code, the
rest is an `if` on the bottom test holding a loop op, on both backends against NumPy."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import RecordingBackend
from test_loops_windows import loop_ops, run_both


def escape_counts(xs, ys, maxiter):
    counts = np.zeros((ys.shape[0], xs.shape[0]), dtype=np.int64)
    for i in range(ys.shape[0]):
        for j in range(xs.shape[0]):
            zr, zi = 0.0, 0.0
            n = 0
            while n < maxiter and zr * zr + zi * zi <= 4.0:
                zr, zi = zr * zr - zi * zi + xs[j], 2.0 * zr * zi + ys[i]
                n += 1
            counts[i, j] = n
    return counts


def halvings(x):
    out = np.zeros(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        v = x[i] * 1.0
        k = 0
        while not v < 1.0:
            v = v / 2.0
            k += 1
        out[i] = k
    return out


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_while_after_a_constant_first_test_matches_numpy(backend) -> None:
    for n in (9, 12):
        ember.reset()
        run_both(escape_counts, np.linspace(-2, 0.5, n), np.linspace(-1, 1, n - 2), 25,
                 backend=backend)
        ember.reset()
        x = np.random.default_rng(n).random(n) * 10.0 ** np.arange(n) % 1e6
        run_both(halvings, x, backend=backend)


def test_while_after_a_constant_first_test_is_a_loop_op() -> None:
    for fn, args in ((escape_counts, (np.linspace(-2, 0.5, 12), np.linspace(-1, 1, 10), 25)),
                     (halvings, (np.random.default_rng(0).random(12) * 100,))):
        recorder = RecordingBackend()
        ember.reset()
        ember.compile(fn, backend=recorder)(*args)
        assert ember.stats()["graph_breaks"] == 0 and loop_ops(recorder) >= 1
        assert len(recorder.graphs) == 1
