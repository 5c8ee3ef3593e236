"""Training steps under `ember.compile`: `value_and_grad(loss)(p, ...)` and the update written
after it are captured into one graph (forward, backward and update fused), for dict, list,
tuple and namedtuple params, plain SGD, momentum and Adam. Results equal the unfused path
(the same step run in Python, gradients from the tape) and NumPy by hand."""

from __future__ import annotations

from collections import namedtuple

import ember
import numpy as np
import pytest
from ember.backends import eager

LR = 0.1


class CountingBackend:
    """Compiles with the eager backend and counts graphs compiled and graph runs."""

    def __init__(self) -> None:
        self.graphs = []
        self.runs = 0

    def __call__(self, graph, example_inputs):
        self.graphs.append(graph)
        run = eager.compile(graph, example_inputs)

        def counted(*args):
            self.runs += 1
            return run(*args)

        return counted


def mlp_loss(p, x, y):
    h = np.tanh(x @ p["w0"] + p["b0"])
    logits = h @ p["w1"] + p["b1"]
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -(log_probs * y).sum() / x.shape[0]


def mlp_grads_by_hand(p, x, y):
    h = np.tanh(x @ p["w0"] + p["b0"])
    logits = h @ p["w1"] + p["b1"]
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    s = e.sum(axis=1, keepdims=True)
    loss = -((shifted - np.log(s)) * y).sum() / x.shape[0]
    d_logits = (e / s - y) / x.shape[0]
    d_pre = (d_logits @ p["w1"].T) * (1 - h * h)
    return loss, {"w0": x.T @ d_pre, "b0": d_pre.sum(axis=0), "w1": h.T @ d_logits,
                  "b1": d_logits.sum(axis=0)}


def mlp_data(dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    p = {"w0": rng.normal(size=(12, 8)) / 3, "b0": rng.normal(size=8) / 10,
         "w1": rng.normal(size=(8, 4)) / 3, "b1": np.zeros(4)}
    p = {k: v.astype(dtype) for k, v in p.items()}
    x = rng.normal(size=(6, 12)).astype(dtype)
    y = np.eye(4, dtype=dtype)[rng.integers(0, 4, 6)]
    return p, x, y


def sgd_step(p, x, y):
    loss, g = ember.value_and_grad(mlp_loss)(p, x, y)
    return loss, {k: p[k] - LR * g[k] for k in p}


def run_steps(step, state, x, y, steps=3):
    losses = []
    for _ in range(steps):
        loss, state = step(state, x, y)
        losses.append(float(loss))
    return losses, state


def assert_trees_close(got, want, rtol=1e-10, atol=1e-12):
    if isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want)
        for k in want:
            assert_trees_close(got[k], want[k], rtol, atol)
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want)
        for a, b in zip(got, want, strict=True):
            assert_trees_close(a, b, rtol, atol)
    else:
        got, want = np.asarray(got), np.asarray(want)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def test_sgd_step_is_one_graph_run_per_step_and_equals_numpy_by_hand():
    backend = CountingBackend()
    compiled = ember.compile(sgd_step, backend=backend)
    p, x, y = mlp_data()
    state = p
    for step in range(4):
        runs = backend.runs
        loss, new = compiled(state, x, y)
        assert backend.runs - runs == 1  # forward, backward and update: one graph
        loss_ref, g = mlp_grads_by_hand(state, x, y)
        assert abs(float(loss) - loss_ref) <= 1e-12 * abs(loss_ref)
        assert_trees_close(new, {k: state[k] - LR * g[k] for k in state})
        state = new
    assert len(backend.graphs) == 1  # compiled once, no recompiles across steps
    ops = [n.op for n in backend.graphs[0].nodes]
    assert ops.count("matmul") == 5  # 2 forward, 3 backward (no gradient for x)


def test_fused_step_equals_the_unfused_step():
    p, x, y = mlp_data()
    fused = run_steps(ember.compile(sgd_step), p, x, y)
    unfused = run_steps(sgd_step, p, x, y)  # Python: a tape and separate graphs
    np.testing.assert_allclose(fused[0], unfused[0], rtol=1e-12)
    assert_trees_close(fused[1], unfused[1])


def test_float32_step_stays_float32():
    p, x, y = mlp_data(np.float32)
    loss, new = ember.compile(sgd_step)(p, x, y)
    loss_ref, g = mlp_grads_by_hand(p, x, y)
    assert np.asarray(loss).dtype == np.float32
    assert abs(float(loss) - loss_ref) <= 1e-5 * abs(loss_ref)
    assert_trees_close(new, {k: p[k] - np.float32(LR) * g[k] for k in p}, rtol=1e-5,
                       atol=1e-6)


def linear_loss(params, x, y):
    w, b = params
    return np.mean((x @ w + b - y) ** 2)


def momentum_step(params, velocity, x, y, lr, beta):
    loss, grads = ember.value_and_grad(linear_loss)(params, x, y)
    velocity = [beta * v + g for v, g in zip(velocity, grads, strict=True)]
    params = [p - lr * v for p, v in zip(params, velocity, strict=True)]
    return loss, params, velocity


def test_momentum_over_list_params_is_one_graph():
    backend = CountingBackend()
    compiled = ember.compile(momentum_step, backend=backend)
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(10, 3)), rng.normal(size=(10, 2))
    params = [rng.normal(size=(3, 2)), np.zeros(2)]
    velocity = [np.zeros((3, 2)), np.zeros(2)]
    ref_params, ref_velocity = params, velocity
    for _ in range(3):
        runs = backend.runs
        loss, params, velocity = compiled(params, velocity, x, y, 0.05, 0.9)
        assert backend.runs - runs == 1
        w, b = ref_params
        r = x @ w + b - y
        g = [2 * x.T @ r / r.size, 2 * r.sum(axis=0) / r.size]
        ref_velocity = [0.9 * v + gi for v, gi in zip(ref_velocity, g, strict=True)]
        ref_params = [p - 0.05 * v for p, v in zip(ref_params, ref_velocity, strict=True)]
        np.testing.assert_allclose(loss, np.mean(r ** 2), rtol=1e-12)
        assert_trees_close(params, ref_params)
        assert_trees_close(velocity, ref_velocity)
    assert len(backend.graphs) == 1


Adam = namedtuple("Adam", "m v t")


def adam_step(params, state, x, y):
    loss, g = ember.value_and_grad(mlp_loss)(params, x, y)
    t = state.t + 1
    m = {k: 0.9 * state.m[k] + 0.1 * g[k] for k in params}
    v = {k: 0.999 * state.v[k] + 0.001 * g[k] * g[k] for k in params}
    new = {}
    for k in params:
        m_hat = m[k] / (1 - 0.9 ** t)
        v_hat = v[k] / (1 - 0.999 ** t)
        new[k] = params[k] - 0.01 * m_hat / (np.sqrt(v_hat) + 1e-8)
    return loss, new, Adam(m, v, t)


def test_adam_over_dict_params_equals_the_unfused_step_and_numpy():
    p, x, y = mlp_data(seed=4)
    zeros = {k: np.zeros_like(v) for k, v in p.items()}
    backend = CountingBackend()
    compiled = ember.compile(adam_step, backend=backend)
    state_c = state_u = Adam(zeros, zeros, 0)
    pc = pu = p
    for _ in range(3):
        runs = backend.runs
        loss_c, pc, state_c = compiled(pc, state_c, x, y)
        assert backend.runs - runs == 1
        loss_u, pu, state_u = adam_step(pu, state_u, x, y)
        assert abs(float(loss_c) - float(loss_u)) <= 1e-12 * abs(float(loss_u))
        assert_trees_close(pc, pu)
        assert_trees_close(state_c.m, state_u.m)
        assert state_c.t == state_u.t
    # Adam by hand from the hand-written gradients.
    m = v = {k: np.zeros_like(a) for k, a in p.items()}
    ref = p
    for t in range(1, 4):
        _, g = mlp_grads_by_hand(ref, x, y)
        m = {k: 0.9 * m[k] + 0.1 * g[k] for k in ref}
        v = {k: 0.999 * v[k] + 0.001 * g[k] ** 2 for k in ref}
        ref = {k: ref[k] - 0.01 * (m[k] / (1 - 0.9 ** t)) / (np.sqrt(v[k] / (1 - 0.999 ** t))
                                                             + 1e-8) for k in ref}
    assert_trees_close(pc, ref, rtol=1e-9)


Params = namedtuple("Params", "w b")


def test_grad_has_aux_argnums_tuple_and_namedtuple_params():
    def loss(params, scale, x):
        pred = x @ params.w + params.b
        return (scale * pred ** 2).sum(), pred

    def step(params, scale, x):
        (value, pred), (g, g_scale) = ember.value_and_grad(loss, argnums=(0, 1),
                                                           has_aux=True)(params, scale, x)
        g2, pred2 = ember.grad(loss, has_aux=True)(params, scale, x)
        return value, pred, Params(params.w - g.w, params.b - g.b), g_scale, g2, pred2

    backend = CountingBackend()
    rng = np.random.default_rng(2)
    params = Params(rng.normal(size=(3, 2)), rng.normal(size=2))
    scale, x = np.array(0.5), rng.normal(size=(4, 3))
    got = ember.compile(step, backend=backend)(params, scale, x)
    assert backend.runs == 1
    want = step(params, scale, x)
    assert isinstance(got[2], Params) and isinstance(got[4], Params)
    for a, b in zip(got, want, strict=True):
        assert_trees_close(a, b)
    pred = x @ params.w + params.b
    np.testing.assert_allclose(got[3], (pred ** 2).sum(), rtol=1e-12)
    np.testing.assert_allclose(got[4].w, x.T @ (2 * scale * pred), rtol=1e-12)


def test_gradient_of_a_leaf_the_loss_ignores_is_zero():
    def loss(p):
        return (p["used"] ** 2).sum()

    def step(p):
        return ember.grad(loss)(p)

    p = {"used": np.arange(3.0), "unused": np.ones((2, 2))}
    got = ember.compile(step)(p)
    assert_trees_close(got, {"used": 2 * np.arange(3.0), "unused": np.zeros((2, 2))})


def test_a_wrapper_made_outside_the_step_is_fused_too():
    vg = ember.value_and_grad(mlp_loss)

    def step(p, x, y):
        loss, g = vg(p, x, y)
        return loss, {k: p[k] - LR * g[k] for k in p}

    backend = CountingBackend()
    p, x, y = mlp_data()
    got = ember.compile(step, backend=backend)(p, x, y)
    assert backend.runs == 1
    assert_trees_close(got[1], sgd_step(p, x, y)[1])


def test_a_loss_with_a_graph_break_falls_back_to_the_tape():
    def loss(w, x):
        h = np.tanh(x @ w)
        if float(h.sum()) > 0:  # a branch on a value: a graph break inside the loss
            return (h ** 2).sum()
        return h.sum()

    def step(w, x):
        value, g = ember.value_and_grad(loss)(w, x)
        return value, w - 0.1 * g

    rng = np.random.default_rng(5)
    w, x = rng.normal(size=(3, 2)), rng.normal(size=(4, 3))
    got = ember.compile(step)(w, x)
    want = step(w, x)
    assert_trees_close(got, want)


def test_a_cumprod_with_a_zero_differentiates_alike_inside_compile():
    def loss(w):
        return (np.cumprod(w) * np.arange(1.0, 5.0)).sum()

    def step(w):
        return ember.grad(loss)(w)

    w = np.array([2.0, 0.0, 3.0, 0.5])
    got = ember.compile(step)(w)
    np.testing.assert_allclose(got, step(w), rtol=1e-12)
    # d/dw[1] is w[0] * (2 + 3 w[2] + 4 w[2] w[3]); after the zero, nothing.
    np.testing.assert_allclose(got, [1.0, 2.0 * (2 + 9 + 6), 0.0, 0.0], rtol=1e-12)


def test_grad_of_grad_inside_compile():
    def f(x):
        return (np.sin(x) * x).sum()

    def second(x):
        return ember.grad(lambda z: ember.grad(f)(z).sum())(x)

    x = np.linspace(-1.0, 1.0, 5)
    got = ember.compile(second)(x)
    np.testing.assert_allclose(got, 2 * np.cos(x) - x * np.sin(x), rtol=1e-12)


def test_changing_batch_sizes_recompile_and_stay_one_graph():
    def loss(w, x, y):
        return np.mean((np.tanh(x @ w) - y) ** 2) + 0.01 * np.sum(w ** 2)

    def step(w, x, y):
        value, g = ember.value_and_grad(loss)(w, x, y)
        return value, w - 0.1 * g

    backend = CountingBackend()
    compiled = ember.compile(step, backend=backend)
    rng = np.random.default_rng(6)
    w, x, y = rng.normal(size=(3, 2)), rng.normal(size=(9, 3)), rng.normal(size=(9, 2))
    for n in (9, 7, 9, 3):
        runs = backend.runs
        got = compiled(w, x[:n], y[:n])
        assert backend.runs - runs == 1
        r = np.tanh(x[:n] @ w) - y[:n]
        g = 2 * x[:n].T @ (r * (1 - np.tanh(x[:n] @ w) ** 2)) / r.size + 0.02 * w
        np.testing.assert_allclose(got[0], np.mean(r ** 2) + 0.01 * np.sum(w ** 2), rtol=1e-12)
        np.testing.assert_allclose(got[1], w - 0.1 * g, rtol=1e-12)


def test_an_rnn_loss_with_a_loop_is_unrolled_into_the_step():
    def loss(p, xs):
        h = np.zeros((xs.shape[0], 4))
        for t in range(xs.shape[1]):
            h = np.tanh(xs[:, t] @ p["wx"] + h @ p["wh"])
        return (h ** 2).sum()

    def step(p, xs):
        value, g = ember.value_and_grad(loss)(p, xs)
        return value, {k: p[k] - 0.1 * g[k] for k in p}

    backend = CountingBackend()
    rng = np.random.default_rng(7)
    p = {"wx": rng.normal(size=(3, 4)) / 2, "wh": rng.normal(size=(4, 4)) / 2}
    xs = rng.normal(size=(2, 6, 3))
    got = ember.compile(step, backend=backend)(p, xs)
    assert backend.runs == 1
    assert not any(n.op == "loop" for n in backend.graphs[0].nodes)
    assert_trees_close(got, step(p, xs))


def test_none_subtrees_and_nested_containers_keep_their_structure():
    def loss(p, x):
        (w, extra), b = p["layers"][0], p["bias"]
        return ((x @ w + b) ** 2).sum() + (0.0 if extra is None else extra.sum())

    def step(p, x):
        return ember.grad(loss)(p, x)

    rng = np.random.default_rng(8)
    p = {"layers": [(rng.normal(size=(3, 2)), None)], "bias": rng.normal(size=2)}
    x = rng.normal(size=(4, 3))
    backend = CountingBackend()
    got = ember.compile(step, backend=backend)(p, x)
    assert backend.runs == 1
    want = step(p, x)
    assert got["layers"][0][1] is None and isinstance(got["layers"][0], tuple)
    assert_trees_close(got["layers"][0][0], want["layers"][0][0])
    assert_trees_close(got["bias"], want["bias"])


def test_compiling_a_gradient_function_makes_one_graph():
    backend = CountingBackend()
    compiled = ember.compile(ember.value_and_grad(mlp_loss), backend=backend)
    other = ember.compile(ember.grad(mlp_loss, argnums=(0, 1)), backend=backend)
    p, x, y = mlp_data()
    for _ in range(2):
        runs = backend.runs
        value, g = compiled(p, x, y)
        assert backend.runs - runs == 1  # forward and backward, one graph
        want_value, want = ember.value_and_grad(mlp_loss)(p, x, y)
        np.testing.assert_allclose(value, want_value, rtol=1e-12)
        assert_trees_close(g, want)
    g_p, g_x = other(p, x, y)
    assert_trees_close(g_p, ember.grad(mlp_loss)(p, x, y))
    assert g_x.shape == x.shape
    assert len(backend.graphs) == 2
    # explain still reports the differentiated graphs of the Python path.
    assert ember.explain(ember.value_and_grad(mlp_loss), p, x, y).aot
