"""`float(x)` and `x.item()` of a differentiated value inside a differentiated function: a
constant where it only steers the computation (a branch, a threshold, a mask, as PyTorch's
`.item()`), compared with autograd on the same program; a `TypeError` where the number flows
into the result (autograd raises too: its boxes have no float), never a gradient that
silently leaves its dependence out."""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import ember
import numpy as np
import pytest

RNG = np.random.default_rng(7)
X = RNG.standard_normal(6)
W = RNG.standard_normal((3, 6))


def _value(b):
    return float(getattr(b, "_value", b))


def _steering(np):
    """Programs whose floats only steer: the gradient is autograd's with the float read."""

    def branch(x):
        n = _value(np.sqrt(np.sum(x ** 2)))
        if n > 1.0:
            return np.sum(np.tanh(x) * 2.0)
        return np.sum(x ** 3)

    def threshold_mask(x):
        t = _value(np.mean(x))
        return np.sum(np.where(x > t, x ** 2, 0.0))

    def clip_loop(w):
        total = 0.0
        for row in w:
            s = np.sum(row * X)
            if _value(s) < 0.0:
                s = -s
            total = total + s
        return total

    def converged_loop(x):
        y = x
        for _ in range(5):
            y = 0.5 * (y + 1.0 / (1.0 + y * y))
            if abs(_value(np.max(y))) > 1e6:
                break
        return np.sum(y)

    return {"branch": branch, "threshold_mask": threshold_mask, "clip_loop": clip_loop,
            "converged_loop": converged_loop}


STEERING = _steering(np)
STEERING_AG = _steering(anp)
ARGS = {"branch": X, "threshold_mask": X, "clip_loop": W, "converged_loop": np.abs(X)}


@pytest.mark.parametrize("name", sorted(STEERING))
def test_a_float_that_only_steers_is_a_constant(name):
    want = autograd.grad(STEERING_AG[name])(ARGS[name])
    np.testing.assert_allclose(ember.grad(STEERING[name])(ARGS[name]), want, rtol=1e-10,
                               atol=1e-12)
    compiled = ember.compile(lambda a: ember.grad(STEERING[name])(a))
    np.testing.assert_allclose(compiled(ARGS[name]), want, rtol=1e-10, atol=1e-12)


FLOWING = {
    "float_times": lambda x: np.sum(x * float(np.sum(x))),
    "item_centering": lambda x: np.sum((x - np.mean(x).item()) ** 2),
    "float_of_a_product": lambda w: np.sum(np.tanh(w @ X)) / float(np.linalg.norm(w)),
    "returned_float": lambda x: float(np.sum(x ** 2)),
    "float_in_a_python_sum": lambda x: np.sum(x) + 2.0 * float(np.max(x)),
}
FLOWING_ARGS = {"float_of_a_product": W}


@pytest.mark.parametrize("name", sorted(FLOWING))
@pytest.mark.parametrize("compiled", [False, True])
def test_a_float_flowing_into_the_result_raises(name, compiled):
    fn = FLOWING[name]
    arg = FLOWING_ARGS.get(name, X)
    gradient = ember.grad(fn)
    if compiled:
        gradient = ember.compile(lambda a: ember.grad(fn)(a))
    with pytest.raises(TypeError, match=r"float\(x\) or x\.item\(\)\) flows into"):
        gradient(arg)
    boxed = {"float_times": lambda x: anp.sum(x * float(anp.sum(x)))}
    if name in boxed:  # autograd refuses the same program
        with pytest.raises(TypeError):
            autograd.grad(boxed[name])(arg)


def test_a_float_of_an_argument_not_differentiated_is_a_constant():
    """`float(x.sum())` of an argument outside `argnums` carries no gradient to lose."""
    def loss(w, x):
        y = np.sum(w * x)
        if float(y) > 1e9:
            print("large")
        return y * float(np.sum(x))

    g = ember.grad(loss)(X, X * 2)
    np.testing.assert_allclose(g, X * 2 * float(np.sum(X * 2)), rtol=1e-12)
