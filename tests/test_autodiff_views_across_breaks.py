"""Views held across a graph break in a differentiated function (a transposed slice, a
flattening reshape, the rows of a list, unpacked rows, split halves, views inside a dict,
views of views over two breaks): the gradient follows them into
the graph after the break, by `ember.grad`, the eager backend and inside a compiled step,
equal to central differences."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from test_autodiff_rules import numeric_grad

RNG = np.random.default_rng(8)


def _breaks(x):
    return float(np.sum(x)) > 1e9  # read as a Python float: a graph break


def transposed_slice(img):
    w = img[1:, ::2].T
    if _breaks(img):
        return 0.0
    return np.sum(np.tanh(w) ** 2)


def flattened_computed(img):
    w = (img ** 2).reshape(-1)
    if _breaks(img):
        return 0.0
    return np.sum(np.sin(w) * np.arange(w.size))


def rows_in_a_list(img):
    rows = [img[i] for i in range(img.shape[0])]
    if _breaks(img):
        return 0.0
    return sum(np.sum(r ** 3) for r in rows)


def views_in_a_dict(a, b):
    views = {"at": a.T, "b_rev": b[::-1], "diag": np.diagonal(a[:, :3])}
    if _breaks(a):
        return 0.0
    return np.sum(np.tanh(views["at"] @ views["b_rev"])) + np.sum(views["diag"] ** 2)


def broadcast_row(a, b):
    row = np.broadcast_to(b, a.shape)
    if _breaks(a):
        return 0.0
    return np.sum(a * row * row)


def split_halves(w):
    a, b = np.split(w, 2, axis=1)
    if _breaks(w):
        return 0.0
    return np.sum(np.tanh(a) * b)


def unpacked_rows(w):
    r0, r1, r2 = w
    if _breaks(w):
        return 0.0
    return np.sum(r0 * r1 + r2 ** 2)


def views_of_views_over_two_breaks(w):
    t = w.T
    if _breaks(w):
        return 0.0
    u = t[::-1]
    if _breaks(t):
        return 1.0
    return np.sum(u * np.arange(u.size).reshape(u.shape) * t)


CASES = {
    "split halves": (split_halves, (RNG.standard_normal((3, 4)),)),
    "unpacked rows": (unpacked_rows, (RNG.standard_normal((3, 4)),)),
    "views of views over two breaks": (views_of_views_over_two_breaks,
                                       (RNG.standard_normal((3, 4)),)),
    "transposed slice": (transposed_slice, (RNG.standard_normal((5, 6)),)),
    "flattened computed array": (flattened_computed, (RNG.standard_normal((5, 6)),)),
    "rows in a list": (rows_in_a_list, (RNG.standard_normal((4, 3)),)),
    "views in a dict": (views_in_a_dict, (RNG.standard_normal((3, 4)),
                                          RNG.standard_normal((3, 2)))),
    "broadcast row": (broadcast_row, (RNG.standard_normal((4, 3)), RNG.standard_normal(3))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_through_views_across_a_break(name):
    fn, args = CASES[name]
    nums = tuple(range(len(args)))
    want = tuple(numeric_grad(fn, args, i) for i in nums)
    runs = (ember.grad(fn, argnums=nums), ember.grad(fn, argnums=nums, backend="eager"),
            ember.compile(lambda *a: ember.grad(fn, argnums=nums)(*a)))
    for run in runs:
        for g, w in zip(run(*args), want, strict=True):
            assert g.shape == w.shape and g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)
