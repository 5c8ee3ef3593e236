"""`np.lib.stride_tricks.sliding_window_view` compiled as NumPy runs it: windows along every
axis, chosen axes, an axis named twice, NumPy's errors; the windows stay a read-only view of
their base (a write into either after taking them gives NumPy's outcome); gradients through
them (convolutions, moving averages) equal central differences, with the eager backend's and
inside a compiled step."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view as windows
from probe_harness import assert_behaves_as_numpy
from test_autodiff_rules import numeric_grad

RNG = np.random.default_rng(31)
X1, X2, X3 = RNG.standard_normal(10), RNG.standard_normal((6, 7)), RNG.standard_normal((2, 6, 5))


def _written_after(x):
    y = x * 1.0
    w = windows(y, 3)
    y[0] = 100.0
    return w.sum(axis=1)


def _written_into(x):
    w = windows(x * 1.0, 3)
    w[0, 0] = 1.0
    return w


PROGRAMS = {
    "moving mean": (lambda x: windows(x, 3).mean(axis=-1), X1),
    "2-d windows summed": (lambda x: windows(x, (2, 3)).sum(axis=(-1, -2)), X2),
    "rows only": (lambda x: windows(x, 3, axis=0), X2),
    "last two axes of three, max-pooled": (
        lambda x: windows(x, (3, 2), axis=(1, 2)).max(axis=(-2, -1)), X3),
    "an axis named twice": (lambda x: windows(x, (2, 2), axis=(0, 0)), X1),
    "axes in reverse order": (lambda x: windows(x, (2, 3), axis=(1, 0)), X2),
    "windows of a computed array, matmul": (lambda x: windows(x * 2, 4, axis=-1) @ np.ones(4),
                                            X2),
    "window larger than the array": (lambda x: windows(x, 11), X1),
    "axis out of range": (lambda x: windows(x, 3, axis=2), X2),
    "window sizes for too many axes": (lambda x: windows(x, (2, 2)), X1),
    "the base written after": (_written_after, X1),
    "written into": (_written_into, X1),
    "returned": (lambda x: windows(x + 1, 2), X1),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_windows_behave_as_numpy(name):
    fn, x = PROGRAMS[name]
    assert_behaves_as_numpy(fn, x)


def test_returned_windows_are_a_read_only_view():
    def fn(x):
        y = x + 1
        return y, windows(y, 2)

    y, w = ember.compile(fn)(X1)
    assert not w.flags.writeable and np.shares_memory(w, y)
    np.testing.assert_array_equal(w, windows(X1 + 1, 2))


def conv2d(kernel, image):
    return np.sum(np.tanh(np.einsum("ijkl,kl->ij", windows(image, kernel.shape), kernel)) ** 2)


def moving_average_fit(x, y):
    return np.sum((windows(x, 4).mean(axis=-1) - y) ** 2)


def batched_conv1d(k, xs):
    return np.sum(np.maximum(windows(xs, len(k), axis=1) @ k, 0) ** 2)


def windows_across_a_break(kernel, image):
    w = windows(image * 2.0, kernel.shape)
    if float(np.sum(image)) > 1e9:
        return 0.0
    return np.sum(np.tanh(np.einsum("ijkl,kl->ij", w, kernel)) ** 2) + np.sum(w.T[0] ** 2)


GRADIENTS = {
    "conv2d": (conv2d, (RNG.standard_normal((2, 3)), RNG.standard_normal((5, 6)))),
    "moving average": (moving_average_fit, (RNG.standard_normal(12), RNG.standard_normal(9))),
    "batched conv1d": (batched_conv1d, (RNG.standard_normal(3), RNG.standard_normal((4, 10)))),
    "across a graph break": (windows_across_a_break, (RNG.standard_normal((2, 3)),
                                                      RNG.standard_normal((5, 6)))),
}


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradients_through_windows(name):
    fn, args = GRADIENTS[name]
    want = tuple(numeric_grad(fn, args, i) for i in range(len(args)))
    runs = (ember.grad(fn, argnums=(0, 1)), ember.grad(fn, argnums=(0, 1), backend="eager"),
            ember.compile(lambda *a: ember.grad(fn, argnums=(0, 1))(*a)))
    for run in runs:
        got = run(*args)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)
