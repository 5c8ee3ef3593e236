"""Constant-index elements read in a loop body (`w[p, q]` of an unrolled inner loop) become
one `load` each: same values as NumPy, negative indices counted from the end, and an
out-of-range index raises NumPy's IndexError."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import RecordingBackend
from ember.backends import runs_loop_ops

BACKENDS = [b for b in ("eager", "cranelift") if runs_loop_ops(b)]


def weighted(x, w):
    out = np.zeros(x.shape[0] - 2)
    for i in range(x.shape[0] - 2):
        acc = 0.0
        for p in range(3):
            acc += x[i + p] * w[p, -1 - p]
        out[i] = acc + w[-1, 0]
    return out


def out_of_range(x, w):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i] * w[3, 0]
    return total


@pytest.mark.parametrize("backend", BACKENDS)
def test_constant_elements_match_numpy(backend: str) -> None:
    rng = np.random.default_rng(7)
    x, w = rng.random(40), rng.random((3, 3))
    got = ember.compile(weighted, backend=backend)(x, w)
    np.testing.assert_allclose(got, weighted(x, w), rtol=1e-12)


def test_constant_elements_are_loads() -> None:
    recorder = RecordingBackend()
    rng = np.random.default_rng(7)
    ember.compile(weighted, backend=recorder)(rng.random(40), rng.random((3, 3)))
    body = recorder.graphs[0].to_ir()
    assert "squeeze(" not in body
    assert body.count("= load(") == 3 + 3 + 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_constant_element_out_of_range_raises_like_numpy(backend: str) -> None:
    x, w = np.ones(4), np.ones((3, 3))
    with pytest.raises(IndexError) as want:
        out_of_range(x, w)
    with pytest.raises(IndexError) as got:
        ember.compile(out_of_range, backend=backend)(x, w)
    assert str(got.value) == str(want.value)
