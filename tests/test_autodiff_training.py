"""The digits MLP of examples/train_mlp.py: one compiled SGD step equals the step written by
hand in NumPy, and training reaches at least 95 % test accuracy."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

_SPEC = importlib.util.spec_from_file_location(
    "train_mlp", Path(__file__).parent.parent / "examples" / "train_mlp.py")
train_mlp = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(train_mlp)


def numpy_step(params, x, y_onehot, lr):
    """Forward and backward of the same MLP by hand."""
    pre = x @ params["w0"] + params["b0"]
    h = np.tanh(pre)
    logits = h @ params["w1"] + params["b1"]
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    probs = e / e.sum(axis=1, keepdims=True)
    n = x.shape[0]
    loss = -(np.log(probs) * y_onehot).sum() / n
    d_logits = (probs - y_onehot) / n
    d_h = d_logits @ params["w1"].T
    d_pre = d_h * (1 - h * h)
    grads = {"w1": h.T @ d_logits, "b1": d_logits.sum(axis=0),
             "w0": x.T @ d_pre, "b0": d_pre.sum(axis=0)}
    return loss, {k: params[k] - lr * grads[k] for k in params}


def test_compiled_step_equals_the_hand_written_numpy_step():
    rng = np.random.default_rng(3)
    params = train_mlp.init_params(rng, (64, 32, 10), np.float64)
    x = rng.uniform(size=(16, 64))
    y = np.eye(10)[rng.integers(0, 10, size=16)]
    for _ in range(3):
        loss, new = train_mlp.sgd_step(params, x, y, 0.5)
        loss_ref, ref = numpy_step(params, x, y, 0.5)
        assert abs(loss - loss_ref) <= 1e-12 * abs(loss_ref)
        for k in ref:
            assert new[k].dtype == np.float64
            np.testing.assert_allclose(new[k], ref[k], rtol=1e-10, atol=1e-13)
        params = new


def test_digits_mlp_reaches_95_percent():
    accuracy, losses = train_mlp.train(epochs=12)
    assert losses[-1] < losses[0] / 4
    assert accuracy >= 0.95, accuracy


def test_the_example_step_is_one_graph_without_breaks():
    import ember

    rng = np.random.default_rng(4)
    params = train_mlp.init_params(rng, (64, 32, 10))
    x = rng.uniform(size=(16, 64)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, size=16)]
    report = ember.explain(train_mlp.sgd_step, params, x, y, 0.5)
    assert (report.graph_count, report.graph_break_count) == (1, 0)
    assert sum(line.count("= matmul(") for line in report.graphs[0].splitlines()) == 5
