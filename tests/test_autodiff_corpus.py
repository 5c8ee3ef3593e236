"""The programs of `autodiff_corpus_cases`: each gradient by `ember.value_and_grad` equals
autograd's for the same code (or central differences in float64), the eager backend's and
the one inside an `ember.compile`d step; float32 arguments get float32 gradients close to the
float64 ones. Side effects (running statistics stored into a dict), `has_aux`, `vjp` of a dict
and refusals of calls without a gradient rule are checked on their own."""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import ember
import numpy as np
import pytest
from autodiff_corpus_cases import (CASES, RNG, Dense, _normal, batchnorm_with_running_stats,
                                   conv_as_strided, namedtuple_layers_in_a_dict)
from test_autodiff_rules import numeric_grad
from test_autodiff_stranger import (_on_autograd, assert_compiled_step_as_standalone,
                                    assert_trees_equal)
from test_autodiff_stranger import reference as autograd_reference


def _leaves(tree):
    """The leaves of a pytree of dicts, lists, tuples and namedtuples, and how to rebuild it."""
    if isinstance(tree, dict):
        parts = [_leaves(v) for v in tree.values()]
        keys = list(tree)
        return ([x for p, _ in parts for x in p],
                lambda xs: dict(zip(keys, _rebuild(parts, xs), strict=True)))
    if isinstance(tree, (list, tuple)):
        parts = [_leaves(v) for v in tree]
        kind = type(tree)
        if hasattr(tree, "_fields"):
            return [x for p, _ in parts for x in p], lambda xs: kind(*_rebuild(parts, xs))
        return [x for p, _ in parts for x in p], lambda xs: kind(_rebuild(parts, xs))
    return [tree], lambda xs: xs[0]


def _rebuild(parts, xs):
    out, at = [], 0
    for leaves, build in parts:
        out.append(build(xs[at:at + len(leaves)]))
        at += len(leaves)
    return out


def reference(case):
    """autograd's gradient of the case, or central differences over every leaf of each
    differentiated argument (namedtuples included)."""
    fn, args, argnums, how = case
    if how == "autograd":
        return autograd_reference(case)
    grads = []
    for i in ((argnums,) if isinstance(argnums, int) else argnums):
        leaves, build = _leaves(args[i])
        sizes = [np.size(x) for x in leaves]
        flat = np.concatenate([np.ravel(np.asarray(x, dtype=np.float64)) for x in leaves])

        def split(v, leaves=leaves, sizes=sizes, build=build):
            parts = np.split(v, np.cumsum(sizes)[:-1])
            return build([p.reshape(np.shape(x)) if isinstance(x, np.ndarray) else float(p[0])
                          for p, x in zip(parts, leaves, strict=True)])

        def on_flat(v, i=i, split=split):
            return fn(*args[:i], split(v), *args[i + 1:])

        grads.append(split(numeric_grad(on_flat, (flat,), 0)))
    return grads[0] if isinstance(argnums, int) else tuple(grads)


def _single(tree):
    """Every float64 array of a pytree as float32 (integer arrays and Python floats kept)."""
    leaves, build = _leaves(tree)
    return build([x.astype(np.float32) if isinstance(x, np.ndarray) and x.dtype == np.float64
                  else x for x in leaves])


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_equal_the_references(name):
    fn, args, argnums, how = CASES[name]
    value, got = ember.value_and_grad(fn, argnums=argnums)(*args)
    np.testing.assert_allclose(value, fn(*args), rtol=1e-10)
    tolerance = dict(rtol=1e-7, atol=1e-9) if how == "autograd" else dict(rtol=1e-5, atol=1e-6)
    assert_trees_equal(got, reference(CASES[name]), **tolerance)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_eager_backend_gives_the_same_gradients(name):
    fn, args, argnums, _ = CASES[name]
    got = ember.grad(fn, argnums=argnums)(*args)
    eager = ember.grad(fn, argnums=argnums, backend="eager")(*args)
    assert_trees_equal(eager, got, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_inside_a_compiled_step(name):
    fn, args, argnums, _ = CASES[name]
    assert_compiled_step_as_standalone(fn, args, argnums)


FLOAT32 = sorted(CASES)


@pytest.mark.parametrize("name", FLOAT32)
def test_float32_arguments_get_float32_gradients(name):
    fn, args, argnums, _ = CASES[name]
    got = ember.grad(fn, argnums=argnums)(*_single(args))
    want = ember.grad(fn, argnums=argnums)(*args)
    assert_trees_equal(got, _single(want), rtol=2e-3, atol=2e-4)


def test_running_statistics_stored_into_a_dict():
    """The forward pass stores running means into a dict it was given: the gradient run
    leaves them as NumPy would, and the stored values are arrays, not tracked values."""
    params = {"gamma": 1 + 0.1 * _normal(3), "beta": _normal(3), "w": _normal(3, 2)}
    x = _normal(6, 3)
    start = {"mean": np.zeros(3), "var": np.ones(3)}
    plain = dict(start)
    want_value = batchnorm_with_running_stats(params, plain, x)
    for run in (ember.value_and_grad(batchnorm_with_running_stats),
                ember.compile(lambda p, s, x: ember.value_and_grad(
                    batchnorm_with_running_stats)(p, s, x))):
        state = dict(start)
        value, got = run(params, state, x)
        np.testing.assert_allclose(value, want_value, rtol=1e-12)
        for key in ("mean", "var"):
            assert type(state[key]) is np.ndarray
            np.testing.assert_allclose(state[key], plain[key], rtol=1e-12, atol=1e-15)
        want = autograd.grad(lambda p: _on_autograd(batchnorm_with_running_stats)(
            p, {"mean": np.zeros(3), "var": np.ones(3)}, x))(params)
        assert_trees_equal(got, want, rtol=1e-9, atol=1e-12)


def test_has_aux_with_a_tuple_of_argnums_over_namedtuples():
    model = {"hidden": [Dense(_normal(3, 4), _normal(4))], "head": Dense(_normal(4, 1),
                                                                         _normal(1)),
             "scale": 2.0}
    x, y = _normal(5, 3), _normal(5, 1)

    def loss(model, x, y):
        value = namedtuple_layers_in_a_dict(model, x, y)
        return value, {"value": value, "twice": [2 * value]}

    (value, aux), (g_model, g_x) = ember.value_and_grad(loss, argnums=(0, 1),
                                                        has_aux=True)(model, x, y)
    want_value = namedtuple_layers_in_a_dict(model, x, y)
    np.testing.assert_allclose(value, want_value, rtol=1e-12)
    np.testing.assert_allclose(aux["twice"][0], 2 * want_value, rtol=1e-12)
    assert isinstance(g_model["hidden"][0], Dense) and isinstance(g_model["head"], Dense)
    want = reference((namedtuple_layers_in_a_dict, (model, x, y), (0, 1), "differences"))
    assert_trees_equal((g_model, g_x), want, rtol=1e-5, atol=1e-6)


def test_vjp_of_a_dict_of_outputs():
    def heads(w, x):
        h = np.tanh(x @ w)
        return {"mean": h.mean(axis=0), "spread": [np.log(np.sum(np.exp(h), axis=1))]}

    w, x = _normal(3, 4), _normal(5, 3)
    ct = {"mean": _normal(4), "spread": [_normal(5)]}
    out, pullback = ember.vjp(heads, w, x)
    np.testing.assert_allclose(out["spread"][0], heads(w, x)["spread"][0], rtol=1e-12)
    gw, gx = pullback(ct)
    on_autograd = _on_autograd(heads)

    def contracted(w, x):
        o = on_autograd(w, x)
        return anp.sum(o["mean"] * ct["mean"]) + anp.sum(o["spread"][0] * ct["spread"][0])

    want = autograd.grad(contracted, (0, 1))(w, x)
    assert_trees_equal((gw, gx), want, rtol=1e-10, atol=1e-12)


REFUSED = {
    "np.linalg.qr": (lambda a: np.sum(np.linalg.qr(a)[1] ** 2), "qr"),
    # A computed array's strides depend on NumPy's memory layout, which capture does not
    # follow (an argument's are guarded: tests/test_as_strided.py).
    "as_strided windows": (lambda a: conv_as_strided(a[:2, :2], a * 2), "ndarray.strides"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
@pytest.mark.parametrize("compiled", [False, True])
def test_a_call_without_a_gradient_is_refused_by_name(name, compiled):
    """Refused with an error naming the call, never a gradient that leaves it out."""
    fn, named = REFUSED[name]

    def gradient(a):
        return ember.grad(fn)(a)

    with pytest.raises(ember.GraphBreakError, match=named):
        (ember.compile(gradient) if compiled else gradient)(RNG.standard_normal((4, 4)))


def _mlp_loss(p, x, y):
    h = np.maximum(x @ p["w1"] + p["b1"], 0)
    logits = h @ p["w2"] + p["b2"]
    logits = logits - logits.max(axis=1, keepdims=True)
    log_p = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return -log_p[np.arange(len(y)), y].mean()


def _adam_step(p, m, v, t, x, y, lr=0.01):
    loss, g = ember.value_and_grad(_mlp_loss)(p, x, y)
    for k in p:
        m[k] = 0.9 * m[k] + 0.1 * g[k]
        v[k] = 0.999 * v[k] + 0.001 * g[k] ** 2
        p[k] -= lr * (m[k] / (1 - 0.9 ** t)) / (np.sqrt(v[k] / (1 - 0.999 ** t)) + 1e-8)
    return loss


def _handwritten_adam_step(p, m, v, t, x, y, lr=0.01):
    h_pre = x @ p["w1"] + p["b1"]
    h = np.maximum(h_pre, 0)
    logits = h @ p["w2"] + p["b2"]
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    s = e / e.sum(axis=1, keepdims=True)
    loss = -np.log(s[np.arange(len(y)), y]).mean()
    d = s.copy()
    d[np.arange(len(y)), y] -= 1
    d /= len(y)
    dh = d @ p["w2"].T * (h_pre > 0)
    g = {"w1": x.T @ dh, "b1": dh.sum(0), "w2": h.T @ d, "b2": d.sum(0)}
    for k in p:
        m[k] = 0.9 * m[k] + 0.1 * g[k]
        v[k] = 0.999 * v[k] + 0.001 * g[k] ** 2
        p[k] -= lr * (m[k] / (1 - 0.9 ** t)) / (np.sqrt(v[k] / (1 - 0.999 ** t)) + 1e-8)
    return loss


def test_a_float32_adam_training_loop():
    """Minibatch Adam on a float32 MLP, its state in dicts updated in place: the compiled
    step trains as the uncompiled one does, and as hand-written backpropagation."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((64, 5)).astype(np.float32)
    y = (x @ rng.standard_normal(5) > 0).astype(np.int64)

    def train(step):
        p = {"w1": (rng.standard_normal((5, 16)) * 0.3).astype(np.float32),
             "b1": np.zeros(16, np.float32),
             "w2": (rng.standard_normal((16, 2)) * 0.3).astype(np.float32),
             "b2": np.zeros(2, np.float32)}
        m = {k: np.zeros_like(a) for k, a in p.items()}
        v = {k: np.zeros_like(a) for k, a in p.items()}
        losses = [float(step(p, m, v, t, x[i:i + 16], y[i:i + 16]))
                  for t in range(1, 21) for i in range(0, 64, 16)]
        return p, losses

    rng = np.random.default_rng(6)
    eager_p, eager_losses = train(_adam_step)
    rng = np.random.default_rng(6)
    compiled_p, compiled_losses = train(ember.compile(_adam_step))
    rng = np.random.default_rng(6)
    plain_p, plain_losses = train(_handwritten_adam_step)
    assert eager_losses[-1] < 0.2 * eager_losses[0]
    for k in plain_p:
        assert compiled_p[k].dtype == np.float32
        np.testing.assert_allclose(compiled_p[k], eager_p[k], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(eager_p[k], plain_p[k], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(compiled_losses, plain_losses, rtol=1e-4, atol=1e-5)
