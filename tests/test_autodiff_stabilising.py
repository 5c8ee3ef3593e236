"""A `max`/`min` subtracted only to keep `exp` finite passes no cotangent: the joint graph has
no tie mask for it, and the gradients still equal autograd's (which sends the cotangent through
the extremum, where it cancels to rounding), ties and `-inf` entries included. A maximum the
results do depend on keeps its rule."""

from __future__ import annotations

import autograd
import ember
import numpy as np
import pytest
from test_autodiff_stranger import _on_autograd, assert_trees_equal


def log_softmax_nll(z, labels):
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -logp[np.arange(z.shape[0]), labels].mean()


def softmax_mse(z, target):
    e = np.exp(z - np.max(z, axis=-1, keepdims=True))
    return np.sum((e / e.sum(axis=-1, keepdims=True) - target) ** 2)


def logsumexp_of_all(z, _):
    m = z.max()
    return m + np.log(np.sum(np.exp(z - m)))


def softmin_weighted(z, target):
    s = z.min(axis=0, keepdims=True) - z
    return np.sum(np.exp(s) / np.exp(s).sum(axis=0, keepdims=True) * target)


def centred_squares(z, _):
    centred = z - z.max(axis=1, keepdims=True)
    return np.sum(centred ** 2)


def shifted_values_returned(z, _):
    z = z - z.max(axis=1, keepdims=True)
    return np.sum(np.exp(z))


STABILISING = [log_softmax_nll, softmax_mse, logsumexp_of_all, softmin_weighted]
KEEPING = [centred_squares, shifted_values_returned]


def _second(fn, z):
    return np.arange(z.shape[0]) % z.shape[1] if fn is log_softmax_nll else np.ones(z.shape)


def _joint_text(fn, z):
    report = ember.explain(ember.grad(fn), z, _second(fn, z))
    assert len(report.aot) == 1 and report.graph_break_count == 0
    return report.aot[0].joint


def _data(kind):
    rng = np.random.default_rng(21)
    z = rng.standard_normal((6, 4)) * 3
    if kind == "ties":
        z[:, 1] = z[:, 2] = z.max(axis=1) + 1.0
    elif kind == "minus infinity":
        z[::2, 3] = -np.inf
    return z


@pytest.mark.parametrize("fn", STABILISING + KEEPING, ids=lambda f: f.__name__)
def test_the_tie_mask_is_left_out_only_for_stabilising_extrema(fn):
    joint = _joint_text(fn, _data("plain"))
    assert ("eq(" in joint) == (fn in KEEPING), joint


# `-inf` entries only where the loss stays finite (not under a square or a softmin).
CASES = [(fn, kind) for fn in STABILISING + KEEPING for kind in ("plain", "ties", "minus infinity")
         if kind != "minus infinity" or fn in (log_softmax_nll, softmax_mse, logsumexp_of_all,
                                               shifted_values_returned)]


@pytest.mark.parametrize("fn,kind", CASES, ids=lambda v: getattr(v, "__name__", v))
def test_gradients_equal_autograds(fn, kind):
    z = _data(kind)
    other = _second(fn, z)
    want = autograd.grad(_on_autograd(fn))(z, other)
    assert_trees_equal(ember.grad(fn)(z, other), want, rtol=1e-10, atol=1e-12)

    @ember.compile
    def step(z, other):
        return ember.value_and_grad(fn)(z, other)

    value, got = step(z, other)
    np.testing.assert_allclose(value, fn(z, other), rtol=1e-12)
    assert_trees_equal(got, want, rtol=1e-10, atol=1e-12)
