"""`ember.grad`, `value_and_grad` and `vjp`: pytrees, argnums, has_aux, grad of grad, graph
breaks, use inside `ember.compile`, errors, and what `ember.explain` and EMBER_LOGS=aot show.
Gradients are checked against central differences (test_autodiff_rules.numeric_grad)."""

from __future__ import annotations

import logging
from collections import namedtuple

import ember
import numpy as np
import pytest
from ember import logging as ember_logging
from test_autodiff_rules import numeric_grad

Params = namedtuple("Params", ["w", "b"])
RNG = np.random.default_rng(1)
X = RNG.normal(size=(6, 3))
W = RNG.normal(size=(3, 2))
B = RNG.normal(size=2)


def mlp_loss(p, x):
    h = np.tanh(x @ p["w"] + p["b"])
    return (h * h).mean()


def test_dict_pytree_gradients_match_central_differences():
    p = {"w": W, "b": B}
    value, g = ember.value_and_grad(mlp_loss)(p, X)
    assert value == pytest.approx(mlp_loss(p, X), rel=1e-12)
    assert set(g) == {"w", "b"}
    np.testing.assert_allclose(
        g["w"], numeric_grad(lambda w: mlp_loss({"w": w, "b": B}, X), [W], 0), rtol=1e-6)
    np.testing.assert_allclose(
        g["b"], numeric_grad(lambda b: mlp_loss({"w": W, "b": b}, X), [B], 0), rtol=1e-6)


def test_namedtuple_list_and_float_leaves():
    def loss(p, extra):
        scale, offsets = extra
        return (np.sin(X @ p.w + p.b) * scale).sum() + (offsets[0] * offsets[1]).sum()

    offsets = [np.arange(3.0), np.ones(3) * 0.5]
    g_p, g_extra = ember.grad(loss, argnums=(0, 1))(Params(W, B), (2.5, offsets))
    assert isinstance(g_p, Params) and isinstance(g_extra, tuple)
    assert isinstance(g_extra[0], float) and isinstance(g_extra[1], list)
    assert g_extra[0] == pytest.approx(np.sin(X @ W + B).sum(), rel=1e-12)
    np.testing.assert_allclose(g_extra[1][0], offsets[1])
    np.testing.assert_allclose(g_extra[1][1], offsets[0])
    np.testing.assert_allclose(g_p.b, 2.5 * np.cos(X @ W + B).sum(axis=0), rtol=1e-12)


def test_has_aux_returns_the_auxiliary_value_untouched():
    def loss(w):
        pred = X @ w
        return (pred ** 2).sum(), {"pred": pred}

    (value, aux), g = ember.value_and_grad(loss, has_aux=True)(W)
    np.testing.assert_allclose(aux["pred"], X @ W)
    assert value == pytest.approx(((X @ W) ** 2).sum())
    g2, aux2 = ember.grad(loss, has_aux=True)(W)
    np.testing.assert_allclose(g, 2 * X.T @ (X @ W), rtol=1e-12)
    np.testing.assert_allclose(g2, g)
    np.testing.assert_allclose(aux2["pred"], aux["pred"])


def test_argnums_select_and_order_gradients():
    def f(a, b, c):
        return (a * b + c ** 2).sum()

    a, b, c = np.arange(3.0), np.ones(3) * 2, np.full(3, 0.5)
    gc, ga = ember.grad(f, argnums=(2, 0))(a, b, c)
    np.testing.assert_allclose(ga, b)
    np.testing.assert_allclose(gc, 2 * c)
    np.testing.assert_allclose(ember.grad(f, argnums=-2)(a, b, c), a)


def test_grad_of_grad():
    x = np.array([0.3, 0.5, 0.9])

    def f(v):
        return (np.sin(v) * v ** 2).sum()

    def g_sum(v):
        return ember.grad(f)(v).sum()

    # d/dx (cos x * x^2 + 2x sin x) = -sin x * x^2 + 4x cos x + 2 sin x
    want = -np.sin(x) * x ** 2 + 4 * x * np.cos(x) + 2 * np.sin(x)
    np.testing.assert_allclose(ember.grad(g_sum)(x), want, rtol=1e-10)
    third = ember.grad(lambda v: ember.grad(g_sum)(v).sum())(x)
    np.testing.assert_allclose(third, numeric_grad(
        lambda v: (-np.sin(v) * v ** 2 + 4 * v * np.cos(v) + 2 * np.sin(v)).sum(), [x], 0),
        rtol=1e-6)


def test_grad_of_a_grad_function_and_wrappers_made_once():
    def f(v):
        return (v ** 4).sum()

    assert ember.grad(f) is ember.grad(f)
    assert ember.grad(f) is not ember.grad(f, argnums=(0,))
    second = ember.grad(lambda v: ember.grad(f)(v).sum())
    x = np.array([0.5, 2.0])
    np.testing.assert_allclose(second(x), 12 * x ** 2)
    h = ember.grad(ember.grad(lambda v: v ** 4))
    assert h is not ember.grad(h)
    assert h(0.5) == pytest.approx(12 * 0.25) and isinstance(h(0.5), float)


def test_graph_breaks_chain_the_graphs_and_python_values_are_constants(recorder):
    def f(v):
        s = v.sum()
        if s > 1.0:  # a branch on a value: a graph break
            print("large")
            v = v * 3
        k = float(s)  # leaves the arrays: a constant
        return (v ** 2).sum() * k

    x = np.array([0.3, 0.5, 0.9])
    g = ember.grad(f)(x)
    np.testing.assert_allclose(g, 2 * 9 * x * x.sum())
    report = ember.explain(ember.grad(f), x)
    assert report.graph_break_count >= 1 and len(report.aot) >= 2


def test_scalars_crossing_a_graph_break_keep_their_gradient():
    def f(v):
        s = (v * v).sum()
        print("between graphs")
        return s * v.sum() + np.exp(v).max()

    x = np.array([0.3, -0.5, 0.9])
    want = 2 * x * x.sum() + (x * x).sum() + np.exp(x) * (x == x.max())
    np.testing.assert_allclose(ember.grad(f)(x), want, rtol=1e-12)


def test_integer_and_bool_values_inside_a_graph_carry_no_gradient():
    def f(v):
        onehot = v.argmax() == np.arange(v.shape[0])
        return (v * v * onehot).sum() + np.where(v > 0, v, 0.0).sum()

    x = np.array([0.3, -0.5, 0.9])
    np.testing.assert_allclose(ember.grad(f)(x), [1.0, 0.0, 2.8])


def test_vjp_with_pytree_outputs():
    def f(a, b):
        return {"prod": a * b, "sum": (a + b).sum()}

    a, b = np.arange(1.0, 4.0), np.full(3, 2.0)
    out, vjp_fn = ember.vjp(f, a, b)
    np.testing.assert_allclose(out["prod"], a * b)
    ga, gb = vjp_fn({"prod": np.ones(3), "sum": 2.0})
    np.testing.assert_allclose(ga, b + 2)
    np.testing.assert_allclose(gb, a + 2)
    ga2, _ = vjp_fn({"prod": np.arange(3.0), "sum": 0.0})
    np.testing.assert_allclose(ga2, b * np.arange(3.0))


def test_training_step_inside_compile_updates_parameters_correctly():
    def loss_fn(p, xb, yb):
        return ((xb @ p["w"] + p["b"] - yb) ** 2).mean()

    def step(p, xb, yb, lr):
        loss, g = ember.value_and_grad(loss_fn)(p, xb, yb)
        return loss, {k: p[k] - lr * g[k] for k in p}

    rng = np.random.default_rng(0)
    xb = rng.normal(size=(32, 3))
    yb = xb @ np.array([[1.0], [2.0], [-1.0]]) + 0.5
    p0 = {"w": rng.normal(size=(3, 1)), "b": np.zeros(1)}
    compiled = ember.compile(step)
    p_ember, p_ref = p0, p0
    for _ in range(5):
        loss_e, p_ember = compiled(p_ember, xb, yb, 0.1)
        err = xb @ p_ref["w"] + p_ref["b"] - yb
        loss_r = (err ** 2).mean()
        p_ref = {"w": p_ref["w"] - 0.1 * 2 * xb.T @ err / 32,
                 "b": p_ref["b"] - 0.1 * 2 * err.sum(axis=0) / 32}
        assert loss_e == pytest.approx(loss_r, rel=1e-10)
    for k in p_ref:
        np.testing.assert_allclose(p_ember[k], p_ref[k], rtol=1e-10)
    assert ember.stats()["recompiles"] == 0, ember.stats()["recompile_reasons"]


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
def test_float_leaves_on_their_own_are_weak_as_in_numpy(backend):
    """`value_and_grad` called on its own passes a Python float leaf to the function as a
    Python float, so a float32 loss stays float32 (a 0-d float64 array would promote it);
    the gradient follows the leaf across a graph break, and a float taken from an array
    (`float(s)`) of equal value stays a constant."""
    def loss(p, x, s):
        y = (x * p["lr"]).sum() * s
        if float(y) > 1e9:  # a graph break
            print("large")
        return y + p["lr"] * float(x.sum())

    x = RNG.normal(size=5).astype(np.float32)
    p = {"lr": 0.25}
    value, g = ember.value_and_grad(loss, backend=backend)(p, x, 0.25)
    want = loss(p, x, 0.25)
    assert type(value) is type(want) is np.float32
    assert value == pytest.approx(want, rel=1e-6)
    assert type(g["lr"]) is float
    assert g["lr"] == pytest.approx(float(x.sum()) * 0.25 + float(x.sum()), rel=1e-5)
    assert ember.grad(ember.grad(lambda v: v ** 3))(0.5) == pytest.approx(3.0)


FLOAT_LEAF_USES = {
    "branch": lambda s, x: (x * s).sum() if s > 0 else (x / s).sum(),
    "full": lambda s, x: (np.full(4, s, dtype=np.float32) * x).sum(),
    "power": lambda s, x: (x ** s).sum(),
    "float": lambda s, x: (x * float(s)).sum(),
    "max": lambda s, x: (x * max(s, 0.1)).sum(),
    "python_arithmetic": lambda s, x: (x * (s * 2 + 1)).sum(),
    "ufunc": lambda s, x: (x * np.exp(s)).sum(),  # a NumPy scalar: float64, as in NumPy
    "int": lambda s, x: x[: int(s) + 1].sum() * s,
}


@pytest.mark.parametrize("name", list(FLOAT_LEAF_USES))
def test_what_a_function_does_with_a_float_leaf(name):
    f = FLOAT_LEAF_USES[name]
    x = np.linspace(0.5, 2.0, 4).astype(np.float32)
    for s in (0.75, 1.5):
        value, g = ember.value_and_grad(f)(s, x)
        want = f(s, x)
        assert type(value) is type(want) and value == pytest.approx(want, rel=1e-6)
        wide = x.astype(np.float64)
        numeric = (float(f(s + 1e-4, wide)) - float(f(s - 1e-4, wide))) / 2e-4
        assert type(g) is float and g == pytest.approx(numeric, rel=1e-3, abs=1e-3)


def test_float_leaves_inside_compile_stay_floats_and_one_graph():
    """A Python float among the differentiated leaves of a gradient inside `ember.compile`
    (a bias, a temperature) is a weak graph value there: the float32 loss stays float32 as in
    NumPy, its gradient is a Python float, and the step is one graph even as its value
    changes from call to call."""
    def loss(p, x):
        return ((x @ p["w"] + p["b"]) ** 2).mean() * p["t"] + p["b"] ** 2

    def step(p, x):
        value, g = ember.value_and_grad(loss)(p, x)
        return value, {k: p[k] - 0.1 * g[k] for k in p}

    x = RNG.normal(size=(6, 3)).astype(np.float32)
    p = {"w": RNG.normal(size=3).astype(np.float32), "b": 0.5, "t": 2.0}
    compiled = ember.compile(step)
    for call in range(4):
        value, new = compiled(p, x)
        assert type(value) is type(loss(p, x)) is np.float32
        assert value == pytest.approx(loss(p, x), rel=1e-5)
        assert type(new["b"]) is float and type(new["t"]) is float
        assert new["w"].dtype == np.float32
        for k in ("b", "t"):
            def of(v, k=k):
                return loss({**p, k: float(v[0])}, x.astype(np.float64))
            want = numeric_grad(of, [np.array([p[k]])], 0)[0]
            assert (p[k] - new[k]) / 0.1 == pytest.approx(want, rel=1e-3)
        p = {**new, "b": new["b"] + call}
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]


def test_integer_arguments_and_non_scalar_outputs_are_refused():
    with pytest.raises(TypeError, match="only float arrays and Python floats"):
        ember.grad(lambda v: v.sum())(np.arange(3))
    with pytest.raises(TypeError, match="float scalar"):
        ember.grad(lambda v: v * 2)(np.ones(3))


def test_numpy_work_run_in_python_is_refused_not_silently_constant():
    with pytest.raises(ember.GraphBreakError, match="argpartition.*cannot run this in Python"):
        ember.grad(lambda v: (v[np.argpartition(v, 1)] * np.arange(3.0)).sum())(
            np.array([0.3, 0.1, 0.2]))


def test_many_shapes_keep_compiling_past_the_recompile_limit():
    def f(v):
        return (np.sin(v) * v).sum()

    for n in range(1, ember.config.recompile_limit + 4):
        x = np.linspace(0.1, 1.0, n)
        np.testing.assert_allclose(ember.grad(f)(x), np.cos(x) * x + np.sin(x), rtol=1e-12)


def test_in_place_updates_of_values_the_gradient_needs_are_refused():
    def scales_input(v):
        v *= 2.0
        return (v * v).sum()

    x = np.ones(3)
    with pytest.raises(ValueError, match="updates in place an array its gradient depends on"):
        ember.grad(scales_input)(x)
    np.testing.assert_array_equal(x, np.ones(3))
    assert x.flags.writeable  # given back as it came

    def copies_first(v):
        w = v * 1.0
        w[0] = 5.0
        return (w * v).sum()

    np.testing.assert_allclose(ember.grad(copies_first)(x), [5.0, 2.0, 2.0])
    g = ember.grad(copies_first)(x)
    g += 1.0  # gradients are ordinary writeable arrays


def test_unreached_leaves_get_zero_gradients_of_their_type():
    g = ember.grad(lambda a, b: a.sum(), argnums=(0, 1))(np.ones(2), np.ones(3, np.float32))
    np.testing.assert_array_equal(g[1], np.zeros(3, np.float32))
    assert g[1].dtype == np.float32


def test_explain_and_aot_logs_show_the_cut():
    x = np.linspace(0.1, 1.0, 64)

    def f(v):
        return np.tanh(np.exp(np.sin(v))).sum()

    report = ember.explain(ember.grad(f), x)
    (aot,) = report.aot
    assert aot.saved == ("%0",)  # only the input: the chain is recomputed backward
    assert aot.residual_bytes == 64 * 8 < aot.save_all_bytes == 3 * 64 * 8
    text = str(report)
    for part in ["joint graph:", "forward graph:", "backward graph:", "residual bytes 512"]:
        assert part in text
    dot = aot.dot()
    assert dot.startswith('digraph "f (joint)"')
    assert 'v0 [shape=ellipse, label="%0: f64[64]", style="filled,bold", fillcolor="orange"' \
        in dot
    assert dot.count('fillcolor="orange"') == 1
    assert "v0 -> v2;" in dot and "= sin\\nf64[64]" in dot
    ember.reset()
    messages: list[str] = []
    collector = logging.Handler()
    collector.emit = lambda record: messages.append(record.getMessage())
    logging.getLogger("ember.aot").addHandler(collector)
    root = logging.getLogger("ember")
    handlers, propagate = root.handlers[:], root.propagate
    ember_logging.set_logs("aot")
    try:
        ember.grad(f)(x)
    finally:
        # Leave logging as found: ember's stderr handler would format other tests' records.
        ember_logging.set_logs()
        logging.getLogger("ember.aot").removeHandler(collector)
        root.handlers[:] = handlers
        root.propagate = propagate
    (message,) = messages
    assert message.startswith("@f differentiated with respect to inputs [0]")
    assert "residual bytes: 512 with the min-cut partitioner, 1536 saving every" in message


def test_explain_draws_captured_graphs_with_extern_kernels():
    report = ember.explain(lambda a, b: np.tanh(a @ b), np.ones((2, 3)), np.ones((3, 4)))
    dot = report.dot(0)
    assert "matmul (extern)" in dot and "shape=box3d" in dot and "v0 -> v2;" in dot
