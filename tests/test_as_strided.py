"""`np.lib.stride_tricks.as_strided` of argument arrays and `x.strides` (guarded) in compiled
and differentiated functions (`capture/variables/strided.py`): NumPy's values for windows,
convolutions and broadcasts built from strides, a call with another layout captured again,
writes into the view reaching the argument, and gradients (a scatter-add over overlapping
windows) equal to central differences and to autograd's of the same windows by slicing."""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import ember
import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided, sliding_window_view
from probe_harness import assert_behaves_as_numpy
from test_autodiff_rules import numeric_grad

RNG = np.random.default_rng(77)


def windows_1d(x):
    (s,) = x.strides
    return as_strided(x, shape=(x.shape[0] - 2, 3), strides=(s, s)) * np.arange(3.0)


def conv_2d(kernel, image):
    kh, kw = kernel.shape
    h, w = image.shape
    s0, s1 = image.strides
    cols = as_strided(image, shape=(h - kh + 1, w - kw + 1, kh, kw), strides=(s0, s1, s0, s1))
    return (cols * kernel).sum(axis=(2, 3))


def from_itemsize(x):
    n = x.itemsize
    return as_strided(x, shape=(4, 2), strides=(2 * n, n)).sum(axis=1)


def broadcast_rows(x):
    return as_strided(x, shape=(3, x.size), strides=(0, x.itemsize)) + np.arange(3.0)[:, None]


def every_other_column(x):
    s0, s1 = x.strides
    return as_strided(x, shape=(x.shape[0], x.shape[1] // 2), strides=(s0, 2 * s1)) * 3 + 1


def shape_only(x):
    return as_strided(x, shape=(2, 3)) * 2


@pytest.mark.parametrize("fn, shape", [(windows_1d, (9,)), (from_itemsize, (8,)),
                                       (broadcast_rows, (5,)), (every_other_column, (3, 6)),
                                       (shape_only, (6,))])
def test_views_behave_as_numpy(fn, shape):
    assert_behaves_as_numpy(fn, RNG.standard_normal(shape))
    assert_behaves_as_numpy(fn, RNG.standard_normal(shape).astype(np.float32))


def test_convolution_behaves_as_numpy():
    assert_behaves_as_numpy(conv_2d, RNG.standard_normal((3, 2)), RNG.standard_normal((7, 6)))


def test_another_layout_is_captured_again():
    compiled = ember.compile(every_other_column)
    a = RNG.standard_normal((3, 6))
    np.testing.assert_array_equal(compiled(a), every_other_column(a))
    for other in (np.asfortranarray(a), RNG.standard_normal((6, 3)).T, a[:, ::-1],
                  RNG.standard_normal((3, 12))[:, ::2]):
        np.testing.assert_array_equal(compiled(other), every_other_column(other))


def test_a_write_into_the_view_reaches_the_argument():
    def write(x):
        (s,) = x.strides
        v = as_strided(x, shape=(3, 2), strides=(2 * s, s))
        v[1, 0] = 100.0
        return x.sum(), v.sum()

    assert_behaves_as_numpy(write, RNG.standard_normal(6), compiled_code=False)


def _conv_loss(kernel, image):
    return np.mean(conv_2d(kernel, image) ** 2)


def _conv_loss_by_slices(kernel, image):
    kh, kw = kernel.shape
    h, w = image.shape
    out = sum(kernel[i, j] * image[i:h - kh + 1 + i, j:w - kw + 1 + j]
              for i in range(kh) for j in range(kw))
    return anp.mean(out ** 2)


@pytest.mark.parametrize("argnum", [0, 1])
def test_convolution_gradients(argnum):
    kernel, image = RNG.standard_normal((3, 3)), RNG.standard_normal((6, 7))
    got = ember.grad(_conv_loss, argnum)(kernel, image)
    np.testing.assert_allclose(got, numeric_grad(_conv_loss, (kernel, image), argnum),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got, autograd.grad(_conv_loss_by_slices, argnum)(kernel, image),
                               rtol=1e-10, atol=1e-12)


def _window_loss(x):
    (s,) = x.strides
    w = as_strided(x, shape=(x.size - 3, 4), strides=(s, s))
    return np.sum(np.sin(w) * np.arange(1.0, 5.0)) + np.sum(w.max(axis=1) ** 2)


def _window_loss_sliding(x):
    w = sliding_window_view(x, 4)
    return np.sum(np.sin(w) * np.arange(1.0, 5.0)) + np.sum(w.max(axis=1) ** 2)


def test_overlapping_windows_scatter_their_gradients():
    x = RNG.standard_normal(10)
    got = ember.grad(_window_loss)(x)
    np.testing.assert_allclose(got, numeric_grad(_window_loss, (x,), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got, ember.grad(_window_loss_sliding)(x), rtol=1e-12)
    step = ember.compile(ember.grad(_window_loss))
    np.testing.assert_allclose(step(x), got, rtol=1e-12)


def test_gradient_of_a_transposed_argument():
    x = RNG.standard_normal((6, 3)).T  # not C-contiguous: its elements by a constant index
    got = ember.grad(lambda a: np.sum(every_other_column(a) ** 2))(x)
    np.testing.assert_allclose(got, numeric_grad(lambda a: np.sum(every_other_column(a) ** 2),
                                                 (np.array(x),), 0), rtol=1e-6, atol=1e-8)


def test_views_outside_the_argument_are_refused_in_gradients():
    def outside(x):
        (s,) = x.strides
        return np.sum(as_strided(x, shape=(4, 4), strides=(s, s)))

    def of_an_intermediate(x):
        y = x * 2
        return np.sum(as_strided(y, shape=(2, 2), strides=(8, 8)))

    x = RNG.standard_normal(5)
    with pytest.raises(ember.GraphBreakError, match="outside its argument"):
        ember.grad(outside)(x)
    with pytest.raises(ember.GraphBreakError, match="not an argument"):
        ember.grad(of_an_intermediate)(x)
