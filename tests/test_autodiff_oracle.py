"""Gradients of model code written by others' conventions (layers, losses, numerics over
pytrees) against an independent autodiff library, autograd, on the same NumPy source."""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import ember
import numpy as np
import pytest
from autodiff_oracle_cases import CASES as MORE_CASES


def layernorm_gelu(xp, p, x):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    y = (x - mu) / xp.sqrt(var + 1e-5) * p["g"] + p["b"]
    gelu = 0.5 * y * (1.0 + xp.tanh(0.7978845608028654 * (y + 0.044715 * y ** 3)))
    return (gelu * gelu).sum()


def softmax_cross_entropy(xp, p, x, labels):
    logits = xp.dot(xp.tanh(xp.dot(x, p["w0"]) + p["b0"]), p["w1"]) + p["b1"]
    shifted = logits - xp.max(logits, axis=1, keepdims=True)
    log_probs = shifted - xp.log(xp.sum(xp.exp(shifted), axis=1, keepdims=True))
    return -xp.sum(log_probs * labels) / x.shape[0]


def attention(xp, p, x):
    q, k, v = xp.dot(x, p["q"]), xp.dot(x, p["k"]), xp.dot(x, p["v"])
    scores = xp.dot(q, k.T) / np.sqrt(q.shape[1])
    weights = xp.exp(scores - xp.max(scores, axis=1, keepdims=True))
    weights = weights / xp.sum(weights, axis=1, keepdims=True)
    return xp.sum(xp.dot(weights, v) ** 2)


def huber_and_l2(xp, p, x, target):
    err = xp.dot(x, p["w"]) - target
    small = xp.abs(err) < 1.0
    huber = xp.where(small, 0.5 * err ** 2, xp.abs(err) - 0.5)
    return xp.mean(huber) + 1e-2 * xp.sum(p["w"] ** 2) + xp.std(err)


def logistic_regression(xp, p, x, y):
    z = xp.dot(x, p["w"]) + p["b"]
    return xp.mean(xp.log1p(xp.exp(-xp.abs(z))) + xp.maximum(z, 0.0) - y * z)


def logistic_loss_logaddexp(xp, p, x, y):
    margin = (2.0 * y - 1.0) * (xp.dot(x, p["w"]) + p["b"])
    return xp.mean(xp.logaddexp(0.0, -margin)) + xp.logaddexp(p["w"], p["w"][::-1]).sum()


RNG = np.random.default_rng(7)
CASES = {
    "layernorm_gelu": (layernorm_gelu,
                       {"g": RNG.normal(size=16), "b": RNG.normal(size=16)},
                       (RNG.normal(size=(4, 16)),)),
    "softmax_cross_entropy": (softmax_cross_entropy,
                              {"w0": RNG.normal(size=(8, 6)) / 3, "b0": RNG.normal(size=6),
                               "w1": RNG.normal(size=(6, 5)), "b1": np.zeros(5)},
                              (RNG.normal(size=(10, 8)), np.eye(5)[RNG.integers(0, 5, 10)])),
    "attention": (attention,
                  {"q": RNG.normal(size=(6, 4)), "k": RNG.normal(size=(6, 4)),
                   "v": RNG.normal(size=(6, 4))},
                  (RNG.normal(size=(5, 6)),)),
    "huber_and_l2": (huber_and_l2, {"w": RNG.normal(size=(3, 2))},
                     (RNG.normal(size=(20, 3)) * 2, RNG.normal(size=(20, 2)))),
    "logistic_regression": (logistic_regression, {"w": RNG.normal(size=4), "b": 0.3},
                            (RNG.normal(size=(30, 4)), RNG.integers(0, 2, 30) * 1.0)),
    "logistic_loss_logaddexp": (logistic_loss_logaddexp, {"w": RNG.normal(size=4), "b": 0.3},
                                (RNG.normal(size=(30, 4)) * 3, RNG.integers(0, 2, 30) * 1.0)),
}


ALL_CASES = {**CASES, **MORE_CASES}


def assert_gradients_equal(got, want, params, path="grad"):
    if isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want), path
        for key in want:
            assert_gradients_equal(got[key], want[key], params[key], f"{path}[{key!r}]")
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(params) and len(got) == len(want), path
        for i, (g, w, p) in enumerate(zip(got, want, params, strict=True)):
            assert_gradients_equal(g, w, p, f"{path}[{i}]")
    else:
        if isinstance(params, float):  # a Python float's gradient is a float
            assert isinstance(got, float), path
        else:
            assert got.dtype == params.dtype and got.shape == params.shape, path
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=path)


@pytest.mark.parametrize("name", sorted(ALL_CASES))
def test_gradients_equal_autograd(name):
    fn, params, data = ALL_CASES[name]
    value, got = ember.value_and_grad(lambda p, *d: fn(np, p, *d))(params, *data)
    want_value = fn(anp, params, *data)
    want = autograd.grad(lambda p, *d: fn(anp, p, *d))(params, *data)
    assert value == pytest.approx(want_value, rel=1e-12)
    assert_gradients_equal(got, want, params)


@pytest.mark.parametrize("name", sorted(ALL_CASES))
def test_gradients_inside_a_compiled_step_equal_autograd(name):
    """The same gradients with `value_and_grad` captured into a compiled function's graph."""
    fn, params, data = ALL_CASES[name]

    def loss(p, *d):
        return fn(np, p, *d)

    @ember.compile
    def step(p, *d):
        return ember.value_and_grad(loss)(p, *d)

    value, got = step(params, *data)
    want = autograd.grad(lambda p, *d: fn(anp, p, *d))(params, *data)
    assert float(value) == pytest.approx(fn(anp, params, *data), rel=1e-12)
    assert_gradients_equal(got, want, params)


UNSUPPORTED = {
    "unique": (lambda w: np.unique(w).sum(), "np.unique"),
    "unique counts": (lambda w: np.unique(w, return_counts=True)[1].sum() * w.sum(),
                      "np.unique"),
}


@pytest.mark.parametrize("compiled", [False, True])
def test_two_masks_of_one_count_differentiate_as_autograd_does(compiled):
    """`w[w > 0] * w[w >= 0]`: two selections lined up by their counts; where the counts
    differ, NumPy's broadcast error."""
    fn = lambda w: (w[w > 0] * w[w >= 0]).sum()  # noqa: E731

    def gradient(w):
        return ember.grad(fn)(w)

    run = ember.compile(gradient) if compiled else gradient
    w = np.array([0.5, -1.0, 2.0, 3.0])
    np.testing.assert_allclose(run(w), autograd.grad(fn)(w), rtol=1e-12)
    with pytest.raises(ValueError, match="could not be broadcast"):
        run(np.array([0.5, -1.0, 2.0, 0.0]))


@pytest.mark.parametrize("compiled", [False, True])
def test_a_sum_over_a_boolean_mask_differentiates_as_numpy_would(compiled):
    """`w[w > 0].sum()` is a masked sum in the graph: its gradient is the mask."""

    def loss(v):
        s = v[v > 0]
        return (s * 3.0 + s**2).sum() + (v[v > 0] * v[v > 0]).sum()  # one mask, built twice

    def gradient(w):
        return ember.grad(loss)(w)

    w = np.array([0.5, -1.0, 2.0, 0.0])
    got = (ember.compile(gradient) if compiled else gradient)(w)
    want = autograd.grad(lambda v: anp.sum(anp.where(v > 0, v * 3.0 + 2 * v * v, 0.0)))(w)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
@pytest.mark.parametrize("compiled", [False, True])
def test_what_cannot_be_differentiated_is_an_error_naming_it(name, compiled):
    """Never a wrong (zero, or constant) gradient: an exception that names the operation,
    the same whether the gradient is taken in Python or inside a compiled step."""
    fn, names = UNSUPPORTED[name]

    def gradient(w):
        return ember.grad(fn)(w)

    w = np.array([0.5, -1.0, 2.0])
    with pytest.raises((ember.GraphBreakError, ValueError)) as error:
        (ember.compile(gradient) if compiled else gradient)(w)
    assert names in str(error.value)


def _caught_numpy_error(w):
    try:
        v = w[int(np.argmax(w)) + 5]
    except IndexError:
        v = w.sum()
    return v * 2


def _caught_raise(w):
    try:
        if w.shape[0] > 2:
            raise ValueError("too long")
        v = w * 3
    except ValueError:
        v = w * w
    return v.sum()


def _helper_raising(w):
    return w[w.shape[0] + 1]


def _caught_in_caller(w):
    try:
        v = _helper_raising(w)
    except IndexError:
        v = w.sum()
    return v * 2


def _helper_in_its_own_frame(w):
    print(end="")  # a graph break: the helper is captured as a frame of its own
    return w[w.shape[0] + 1]


def _caught_from_a_frame_below(w):
    try:
        v = _helper_in_its_own_frame(w)
    except IndexError:
        v = w.sum()
    return v * 2


@pytest.mark.parametrize("fn", [_caught_numpy_error, _caught_raise, _caught_in_caller,
                                _caught_from_a_frame_below])
@pytest.mark.parametrize("compiled", [False, True])
def test_an_error_the_function_catches_is_refused_not_a_zero_gradient(fn, compiled):
    """The error is raised in Python from the user's line, and the handler would run there,
    unrecorded: the gradient would be zero. Such a frame is refused, naming the error."""

    def gradient(w):
        return ember.grad(fn)(w)

    w = np.array([0.5, -1.0, 2.0])
    with pytest.raises(ember.GraphBreakError, match="catch this error") as error:
        (ember.compile(gradient) if compiled else gradient)(w)
    assert ("IndexError" in str(error.value)) == (fn is not _caught_raise)


@pytest.mark.parametrize("fn", [lambda v: v[int(np.argmax(v)) + 5] * 2,
                                lambda v: _helper_in_its_own_frame(v) * 2])
@pytest.mark.parametrize("compiled", [False, True])
def test_an_error_nothing_catches_reaches_the_caller_as_numpys(fn, compiled):
    def gradient(w):
        return ember.grad(fn)(w)

    with pytest.raises(IndexError, match="out of bounds"):
        (ember.compile(gradient) if compiled else gradient)(np.array([0.5, -1.0, 2.0]))
