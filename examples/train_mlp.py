"""Train a small MLP on scikit-learn's bundled digits (8x8 images, no download) with
`ember.value_and_grad` inside an `ember.compile`d SGD step, written as NumPy users write one.
The step compiles to one graph: forward pass, backward pass and the update, fused.

    python examples/train_mlp.py
"""

from __future__ import annotations

from itertools import pairwise

import ember
import numpy as np


def init_params(rng: np.random.Generator, sizes: tuple[int, ...], dtype=np.float32) -> dict:
    params = {}
    for i, (n_in, n_out) in enumerate(pairwise(sizes)):
        params[f"w{i}"] = (rng.normal(size=(n_in, n_out)) / np.sqrt(n_in)).astype(dtype)
        params[f"b{i}"] = np.zeros(n_out, dtype)
    return params


def predict(params: dict, x: np.ndarray) -> np.ndarray:
    h = np.tanh(x @ params["w0"] + params["b0"])
    return h @ params["w1"] + params["b1"]


def loss_fn(params: dict, x: np.ndarray, y_onehot: np.ndarray) -> np.ndarray:
    """Softmax cross-entropy, averaged over the batch."""
    logits = predict(params, x)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -(log_probs * y_onehot).sum() / x.shape[0]


@ember.compile
def sgd_step(params: dict, x: np.ndarray, y_onehot: np.ndarray, lr: float):
    loss, grads = ember.value_and_grad(loss_fn)(params, x, y_onehot)
    return loss, {k: params[k] - lr * grads[k] for k in params}


def load_digits(dtype=np.float32):
    from sklearn.datasets import load_digits as sklearn_digits

    digits = sklearn_digits()
    x = (digits.data / 16.0).astype(dtype)
    y = digits.target
    rng = np.random.default_rng(0)
    order = rng.permutation(len(y))
    x, y = x[order], y[order]
    split = int(0.8 * len(y))
    return (x[:split], y[:split]), (x[split:], y[split:])


def train(epochs: int = 30, batch: int = 32, lr: float = 0.2, hidden: int = 64,
          seed: int = 0) -> tuple[float, list[float]]:
    """Train; returns the test accuracy and the mean loss of each epoch."""
    (x_train, y_train), (x_test, y_test) = load_digits()
    eye = np.eye(10, dtype=x_train.dtype)
    rng = np.random.default_rng(seed)
    params = init_params(rng, (x_train.shape[1], hidden, 10), x_train.dtype)
    losses = []
    n_batches = len(y_train) // batch
    for _ in range(epochs):
        order = rng.permutation(len(y_train))
        total = 0.0
        for b in range(n_batches):
            idx = order[b * batch:(b + 1) * batch]
            loss, params = sgd_step(params, x_train[idx], eye[y_train[idx]], lr)
            total += float(loss)
        losses.append(total / n_batches)
    accuracy = float((predict(params, x_test).argmax(axis=1) == y_test).mean())
    return accuracy, losses


if __name__ == "__main__":
    accuracy, losses = train()
    print(f"loss per epoch: {' '.join(f'{v:.3f}' for v in losses)}")
    print(f"test accuracy: {accuracy:.3f}")
