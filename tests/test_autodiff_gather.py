"""Gradients through integer-array indexing (`gather`: `x[idx]`, `np.take`,
`np.take_along_axis`) and `np.sort` (`autodiff/rules/indexed.rs`: a gather's cotangent is
scattered back with repeated positions adding up, a sort's goes back through its argsort)
equal autograd's and central differences in float64: cross-entropy with integer labels,
embeddings with mean pooling, repeated and negative indices, index arrays apart, top-k by
sorting, maxima by argmax; inside a compiled training step (one graph); grad of grad; the
eager backend; NumPy's IndexError for an index out of bounds."""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import ember
import numpy as np
import pytest
from test_autodiff_rules import numeric_grad


def log_softmax(xp, z):
    z = z - xp.max(z, axis=1, keepdims=True)
    return z - xp.log(xp.sum(xp.exp(z), axis=1, keepdims=True))


# autograd has no gradient of np.take, np.take_along_axis or a sort along an axis of a 2-d
# array: its side of each case writes the same selection as indexing, or sorts row by row.
def take(xp, w, idx, axis):
    if xp is np:
        return np.take(w, idx, axis=axis)
    return w[(slice(None),) * axis + (idx,)]


def take_along_axis(xp, w, idx, axis):
    if xp is np:
        return np.take_along_axis(w, idx, axis)
    return w[np.arange(w.shape[0])[:, None], idx]


def sort_rows(xp, w):
    if xp is np:
        return np.sort(w, axis=1)
    return xp.stack([xp.sort(row) for row in w])


def cross_entropy(xp, w, x, y):
    logp = log_softmax(xp, xp.dot(x, w))
    return -xp.mean(logp[np.arange(x.shape[0]), y])


def embedding_mean_pool(xp, e, tokens, v):
    pooled = xp.mean(e[tokens], axis=1)  # (batch, dim)
    return xp.sum(xp.tanh(xp.dot(pooled, v)))


def take_rows(xp, w, idx, v):
    return xp.sum(take(xp, w, idx, 0) ** 2 * v)


def take_columns(xp, w, idx, v):
    return xp.sum(xp.sin(take(xp, w, idx, 1)) * v)


def repeated_negative(xp, w, idx, v):
    return xp.sum(w[idx] * w[idx[::-1]] + v[0])


def along_axis(xp, w, y, v):
    picked = take_along_axis(xp, log_softmax(xp, w), y[:, None], 1)
    return -xp.sum(picked) + xp.sum(v * 0.0)


def indices_apart(xp, w, i, j):
    return xp.sum(xp.exp(w[i, :, j] / 4.0))


def sliced_then_indexed(xp, w, idx, v):
    return xp.sum(xp.tanh(w[1:, idx][:, ::-1]) * v)


def top_k_by_sorting(xp, w, k, v):
    return xp.sum(sort_rows(xp, w)[:, -k:] ** 2) + xp.sum(xp.sort(w.ravel()) * v)


def max_by_argmax(xp, w, v, _):
    best = xp.argmax(w, axis=1)
    return xp.sum(w[np.arange(w.shape[0]), best] * v) + w[xp.argmax(w[0])][1]


def _rng(name):
    return np.random.default_rng(sum(map(ord, name)))


CASES = {
    "cross entropy": (cross_entropy, lambda r: (
        r.standard_normal((5, 4)), r.standard_normal((6, 5)), np.array([0, 3, 3, 1, 2, 0]))),
    "embedding mean pool": (embedding_mean_pool, lambda r: (
        r.standard_normal((7, 3)), np.array([[0, 6, 6, 2], [5, 0, 1, 1]]),
        r.standard_normal(3))),
    "take rows": (take_rows, lambda r: (
        r.standard_normal((4, 3)), np.array([[3, 3], [-1, 0]], np.int32),
        r.standard_normal(3))),
    "take columns": (take_columns, lambda r: (
        r.standard_normal((3, 5)), np.array([4, 4, 0, -2]), r.standard_normal(4))),
    "repeated negative": (repeated_negative, lambda r: (
        r.standard_normal(6), np.array([0, -1, 0, 2, 5, 2, 2]), r.standard_normal(2))),
    "take along axis": (along_axis, lambda r: (
        r.standard_normal((4, 6)), np.array([5, 0, 0, 3]), r.standard_normal(2))),
    "indices apart": (indices_apart, lambda r: (
        r.standard_normal((3, 4, 5)), np.array([[0], [2], [2]]), np.array([4, -1, 4]))),
    "sliced then indexed": (sliced_then_indexed, lambda r: (
        r.standard_normal((4, 6)), np.array([5, 1, 1]), r.standard_normal(3))),
    "top k by sorting": (top_k_by_sorting, lambda r: (
        r.standard_normal((3, 5)), 2, r.standard_normal(15))),
    "max by argmax": (max_by_argmax, lambda r: (
        r.standard_normal((4, 3)), r.standard_normal(4), 0)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_equal_autograd_and_central_differences(name):
    fn, make = CASES[name]
    w, a, b = make(_rng(name))
    loss = lambda w: fn(np, w, a, b)  # noqa: E731
    want = autograd.grad(lambda w: fn(anp, w, a, b))(w)
    value, got = ember.value_and_grad(loss)(w)
    np.testing.assert_allclose(value, loss(w), rtol=1e-12)
    assert got.dtype == np.float64 and got.shape == w.shape
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got, numeric_grad(loss, [w], 0), rtol=1e-6, atol=1e-8)
    eager = ember.grad(loss, backend="eager")(w)
    np.testing.assert_allclose(eager, got, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_compiled_training_step_is_one_graph_with_the_same_gradient(name):
    fn, make = CASES[name]
    w, a, b = make(_rng(name))
    loss = lambda w, a, b: fn(np, w, a, b)  # noqa: E731

    def step(w, a, b):
        value, g = ember.value_and_grad(loss)(w, a, b)
        return value, w - 0.1 * g

    report = ember.explain(step, w, a, b)
    assert (report.graph_count, report.graph_break_count) == (1, 0)
    assert "scatter_add(" in report.graphs[0]
    value, updated = ember.compile(step)(w, a, b)
    want = autograd.grad(lambda w: fn(anp, w, a, b))(w)
    np.testing.assert_allclose(value, loss(w, a, b), rtol=1e-12)
    np.testing.assert_allclose(updated, w - 0.1 * want, rtol=1e-10, atol=1e-12)


def test_repeated_indices_accumulate_as_add_at():
    w = np.array([1.0, 2.0, 3.0, 4.0])
    idx = np.array([2, 2, -2, 0, 2])
    got = ember.grad(lambda w: (w[idx] * np.arange(5.0)).sum())(w)
    want = np.zeros(4)
    np.add.at(want, idx, np.arange(5.0))
    np.testing.assert_array_equal(got, want)


def test_float32_leaves_get_float32_gradients():
    rng = np.random.default_rng(3)
    e = rng.standard_normal((6, 4)).astype(np.float32)
    tokens = np.array([[1, 1, 5], [0, 2, 1]])
    got = ember.grad(lambda e: np.tanh(e[tokens]).mean(axis=1).sum())(e)
    want = autograd.grad(lambda e: anp.sum(anp.mean(anp.tanh(e[tokens]), axis=1)))(
        e.astype(np.float64))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_grad_of_grad_through_gathers_and_sorts():
    rng = np.random.default_rng(4)
    w = rng.standard_normal(5)
    idx = np.array([4, 0, 4, 1])

    def f(xp, w):
        return xp.sum(xp.sin(w[idx]) ** 2 * xp.arange(4.0)) + xp.sum(xp.sort(w) ** 3)

    inner = lambda w: ember.grad(lambda v: f(np, v))(w)  # noqa: E731
    got = ember.grad(lambda w: np.sum(inner(w) ** 2))(w)
    want = autograd.grad(lambda w: anp.sum(autograd.grad(lambda v: f(anp, v))(w) ** 2))(w)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("compiled", [False, True])
def test_an_index_out_of_bounds_raises_numpys_index_error(compiled):
    w = np.arange(4.0)

    def gradient(w, idx):
        return ember.grad(lambda w: (w[idx] ** 2).sum())(w)

    run = ember.compile(gradient) if compiled else gradient
    np.testing.assert_array_equal(run(w, np.array([1, -1])), [0.0, 2.0, 0.0, 6.0])
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        run(w, np.array([0, 4]))


def test_labels_of_a_wrong_dtype_raise_numpys_error():
    w = np.ones((2, 3))
    with pytest.raises(IndexError, match="arrays used as indices must be of integer"):
        ember.grad(lambda w: w[np.arange(2), np.array([0.0, 1.0])].sum())(w)


def add_at_rows(w):
    out = np.zeros((5, 3))
    np.add.at(out, np.array([1, 1, 4, -1]), w * w)
    return (np.sin(out) * np.arange(15.0).reshape(5, 3)).sum()


def add_at_apart(w):
    out = np.ones((3, 2, 4))
    np.add.at(out, (np.array([0, 2, 2]), slice(None), np.array([1, 1, 3])), w[:3, :2] * 2.0)
    return (out ** 2).sum()


@pytest.mark.parametrize("fn", [add_at_rows, add_at_apart])
def test_add_at_differentiates_as_a_scatter_add(fn):
    """`np.add.at` in a differentiated function is `a + scatter_add(v)`: repeated positions
    add up, and its gradient is a gather of the cotangent (autograd has no `add.at`)."""
    w = np.random.default_rng(5).standard_normal((4, 3))
    value, got = ember.value_and_grad(fn)(w)
    np.testing.assert_allclose(value, fn(w), rtol=1e-12)
    np.testing.assert_allclose(got, numeric_grad(fn, [w], 0), rtol=1e-6, atol=1e-8)

    def step(w):
        return ember.value_and_grad(fn)(w)

    report = ember.explain(step, w)
    assert (report.graph_count, report.graph_break_count) == (1, 0)
    assert "scatter_add(" in report.graphs[0]
    compiled_value, compiled = ember.compile(step)(w)
    np.testing.assert_allclose(compiled_value, value, rtol=1e-12)
    np.testing.assert_allclose(compiled, got, rtol=1e-10, atol=1e-12)


def test_add_at_with_slices_beside_the_indices_is_refused_not_wrong():
    def fn(w):
        out = np.zeros((4, 5))
        np.add.at(out, (slice(1, None), np.array([0, 0])), w[:3, :2])
        return out.sum()

    with pytest.raises(ember.GraphBreakError, match="np.add.at with slices"):
        ember.grad(fn)(np.ones((4, 3)))


def order_statistics(w):
    # A robust loss: the median of squared residuals and a low percentile, along each axis.
    r = w * w - 0.3
    return np.median(r) + np.percentile(w, 30.0) + np.median(w, axis=0).sum()


@pytest.mark.parametrize("compiled", [False, True])
def test_median_and_percentile_differentiate_through_sort(compiled):
    w = np.random.default_rng(17).random((5, 3))

    def gradient(v):
        return ember.grad(order_statistics)(v)

    got = (ember.compile(gradient) if compiled else gradient)(w)
    np.testing.assert_allclose(got, numeric_grad(order_statistics, (w,), 0), atol=1e-6)
