"""Every gradient rule through `ember.grad` on NumPy code, against central differences in
float64: values, shapes and dtypes of the gradients; the eager backend gives the same
gradients op by op."""

from __future__ import annotations

import ember
import numpy as np
import pytest


def numeric_grad(fn, args, argnum, h=1e-6):
    """Central differences of scalar `fn` with respect to argument `argnum`."""
    x = np.array(args[argnum], dtype=np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = h * max(1.0, abs(x[i]))
        shifted = list(args)
        up, down = x.copy(), x.copy()
        up[i] += step
        down[i] -= step
        shifted[argnum] = up
        plus = fn(*shifted)
        shifted[argnum] = down
        minus = fn(*shifted)
        grad[i] = (plus - minus) / (2 * step)
    return grad


def weighted(f):
    """`sum(f(*args) * w)` with fixed weights, so every output element matters differently."""

    def loss(*args):
        out = f(*args)
        w = np.linspace(0.5, 1.5, np.size(out)).reshape(np.shape(out))
        return (out * w).sum()

    return loss


def inputs(shapes, seed=0, low=0.3, high=0.9):
    rng = np.random.default_rng(seed)
    return [rng.uniform(low, high, size=s) for s in shapes]


def check(f, shapes, *, low=0.3, high=0.9, rtol=1e-6, atol=1e-8):
    args = inputs(shapes, low=low, high=high)
    loss = weighted(f)
    argnums = tuple(range(len(args)))
    grads = ember.grad(loss, argnums=argnums)(*args)
    for i, g in enumerate(grads):
        want = numeric_grad(loss, args, i)
        assert g.shape == args[i].shape and g.dtype == np.float64
        np.testing.assert_allclose(g, want, rtol=rtol, atol=atol, err_msg=f"argument {i}")
    eager = ember.grad(loss, argnums=argnums, backend="eager")(*args)
    for g, e in zip(grads, eager, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-14)


UNARY = {
    "negative": np.negative, "positive": np.positive, "abs": np.abs, "square": np.square,
    "reciprocal": np.reciprocal, "sqrt": np.sqrt, "cbrt": np.cbrt, "exp": np.exp,
    "exp2": np.exp2, "expm1": np.expm1, "log": np.log, "log2": np.log2, "log10": np.log10,
    "log1p": np.log1p, "sin": np.sin, "cos": np.cos, "tan": np.tan, "arcsin": np.arcsin,
    "arccos": np.arccos, "arctan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
    "tanh": np.tanh, "arcsinh": np.arcsinh, "arctanh": np.arctanh,
    "arccosh": lambda x: np.arccosh(x + 1.5), "neg_abs": lambda x: abs(-x),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    check(UNARY[name], [(3, 4)])


BINARY = {
    "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y, "pow": lambda x, y: x ** y, "maximum": np.maximum,
    "minimum": np.minimum, "fmax": np.fmax, "fmin": np.fmin, "arctan2": np.arctan2,
    "hypot": np.hypot, "logaddexp": np.logaddexp, "mod": lambda x, y: np.mod(x * 3, y),
    "fmod": lambda x, y: np.fmod(x * 3 - 1.5, y),
    "rsub_const": lambda x, y: 2.0 - x * y, "pow_const": lambda x, y: x ** 3 + y ** 0.5,
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("shapes", [[(3, 4), (3, 4)], [(3, 4), (4,)], [(2, 1, 4), (3, 1)]])
def test_binary_broadcasting(name, shapes):
    check(BINARY[name], shapes)


def test_piecewise_constant_ops_have_zero_gradient():
    x = inputs([(5,)])[0] * 4
    for f in (np.floor, np.ceil, np.sign, np.trunc, np.rint, lambda v: v // 0.7):
        g = ember.grad(lambda v, f=f: (f(v) * v).sum())(x)
        np.testing.assert_allclose(g, f(x))


def test_comparisons_and_where_route_the_cotangent():
    check(lambda x, y: np.where(x > y, x * 2, y * y), [(3, 4), (4,)])
    check(lambda x, y: np.where(x > 0.5, x, 0.0) + (x < y) * y, [(3, 4), (3, 4)])
    check(lambda x: np.clip(x, 0.4, 0.7), [(3, 4)])


REDUCTIONS = {
    "sum_all": lambda x: x.sum(), "sum_axis": lambda x: x.sum(axis=1),
    "sum_keep": lambda x: np.sum(x, axis=0, keepdims=True), "mean": lambda x: x.mean(axis=-1),
    "mean_all": np.mean, "prod": lambda x: x.prod(axis=0), "max": lambda x: x.max(axis=1),
    "min_all": lambda x: x.min(), "max_keep": lambda x: x.max(axis=0, keepdims=True),
    "var": lambda x: x.var(axis=1), "std": lambda x: np.std(x),
    "logsumexp": lambda x: np.log(np.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1)),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions(name):
    check(REDUCTIONS[name], [(3, 4)])


def test_prod_gradient_is_the_product_of_the_others_at_zeros():
    x = np.array([[2.0, 0.0, 5.0], [0.0, 3.0, 0.0], [1.5, 2.0, 4.0]])
    others = np.array([[np.prod(np.delete(row, i)) for i in range(3)] for row in x])
    np.testing.assert_allclose(ember.grad(lambda v: v.prod(axis=1).sum())(x), others)


def test_max_ties_split_the_gradient_equally():
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    np.testing.assert_allclose(ember.grad(lambda v: v.max(axis=1).sum())(x),
                               [[0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]])
    np.testing.assert_allclose(ember.grad(lambda v: np.maximum(v, 2.0).sum())(x),
                               [[0, 1, 1], [0.5, 0.5, 0.5]])


VIEWS = {
    "reshape": lambda x: x.reshape(4, 3) * np.arange(3.0),
    "transpose": lambda x: x.T @ np.ones((3, 2)),
    "expand_dims": lambda x: np.expand_dims(x, 1) * np.ones((3, 2, 4)),
    "squeeze": lambda x: np.squeeze(x[:, :1]),
    "broadcast_to": lambda x: np.broadcast_to(x[0], (5, 4)) * np.arange(5.0)[:, None],
    "flip": lambda x: np.flip(x, axis=1) * np.arange(4.0),
    "slice": lambda x: x[1:, ::2] * 3,
    "slice_negative": lambda x: x[::-1, 3:0:-2],
    "index": lambda x: x[1] * x[2, 1:3].sum(),
    "concatenate": lambda x: np.concatenate([x, x[:, :2] * 2], axis=1),
    "stack": lambda x: np.stack([x, x * x]),
    "copy": lambda x: x.copy() * x,
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_and_structure(name):
    check(VIEWS[name], [(3, 4)])


def test_astype_casts_the_cotangent_back():
    # Central differences cannot see through float32 rounding: the rule is checked exactly.
    x = inputs([(3, 4)])[0]
    g = ember.grad(lambda v: (v.astype(np.float32) ** 2).sum().astype(np.float64))(x)
    assert g.dtype == np.float64
    np.testing.assert_allclose(g, 2 * x.astype(np.float32), rtol=1e-6)
    g32 = ember.grad(lambda v: (v.astype(np.float64) * 3).sum())(x.astype(np.float32))
    assert g32.dtype == np.float32
    np.testing.assert_array_equal(g32, np.full((3, 4), 3, np.float32))


MATMUL = {
    "matrix": ((3, 4), (4, 2)), "vector_left": ((4,), (4, 2)), "vector_right": ((3, 4), (4,)),
    "inner": ((4,), (4,)), "batch": ((2, 3, 4), (4, 5)), "batch_both": ((2, 1, 3, 4), (3, 4, 2)),
}


@pytest.mark.parametrize("name", sorted(MATMUL))
def test_matmul(name):
    check(lambda a, b: a @ b, list(MATMUL[name]))


def test_float32_gradients_are_float32_and_match_float64():
    x64 = inputs([(8, 5)])[0]
    w64 = inputs([(5, 3)], seed=1)[0]

    def loss(x, w):
        return np.tanh(x @ w).sum() + (x * x).mean()

    g32 = ember.grad(loss, argnums=(0, 1))(x64.astype(np.float32), w64.astype(np.float32))
    g64 = ember.grad(loss, argnums=(0, 1))(x64, w64)
    for a, b in zip(g32, g64, strict=True):
        assert a.dtype == np.float32 and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
