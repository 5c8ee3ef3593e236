"""A comprehension whose frame ember meets on its own (its caller runs as plain Python: a
loop too long to unroll) receives the caller's live iterator (`zip`, a generator) as `.0`,
which capture cannot read without consuming the user's items. Every trip would break at its
`FOR_ITER` and recompile the rest of the body for the items it specialises on, so the frame
runs as plain Python: NumPy's results, no graph per item, no recompiles."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from probe_harness import assert_behaves_as_numpy


def flows(lines, reactance, theta):
    B = np.zeros((theta.shape[0], theta.shape[0]))
    for (i, j), x in zip(lines, reactance):
        B[i, j] -= 1.0 / x
        B[j, i] -= 1.0 / x
        B[i, i] += 1.0 / x
        B[j, j] += 1.0 / x
    out = np.array([(theta[i] - theta[j]) / x for (i, j), x in zip(lines, reactance)])
    return B, out


def generator_sums(rows, w):
    total = 0.0
    for k in range(len(rows)):
        total += rows[k].sum() * w[k % 3]
        total -= rows[k].max()
        total += rows[k].min() * 0.5
        total *= 0.9
    sizes = {int(r.shape[0]) for r in (row[1:] for row in rows)}
    return total, sorted(sizes), [float(np.dot(r, r)) for r in (row * 2 for row in rows)]


@pytest.mark.parametrize("n", [30, 45])
def test_comprehension_over_a_live_iterator_runs_as_python(n):
    rng = np.random.default_rng(n)
    lines = [(int(a), int(b)) for a, b in rng.integers(0, 12, (n, 2)) if a != b]
    reactance = rng.random(len(lines)) + 0.1
    theta = rng.standard_normal(12)
    assert_behaves_as_numpy(flows, lines, reactance, theta, compiled_code=False)
    ember.reset()
    compiled = ember.compile(flows)
    compiled(lines, reactance, theta)
    compiled(lines, reactance, theta)
    assert ember.stats()["recompiles"] == 0


def test_generator_expressions_over_live_iterators():
    rng = np.random.default_rng(3)
    rows = [rng.standard_normal(int(k)) for k in rng.integers(2, 6, 40)]
    assert_behaves_as_numpy(generator_sums, rows, rng.random(3), compiled_code=False)
    ember.reset()
    compiled = ember.compile(generator_sums)
    compiled(rows, rng.random(3))
    assert ember.stats()["recompiles"] == 0
