"""Hypothesis-generated differentiable programs (fixed seed, no deadline) of elementwise ops,
reductions, views, matmul, gathers and sorts: the gradient with respect to every input from
`ember.grad` equals central differences, and the gradient through the eager backend equals
the compiled one."""

from __future__ import annotations

import itertools
import linecache

import ember
import numpy as np
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from test_autodiff_rules import numeric_grad

# Values stay in (-3, 3) or so: each op is smooth (or piecewise linear) on the values it sees.
UNARY = ["np.tanh({})", "np.sin({})", "({}) * ({})", "np.exp(np.tanh({}))", "np.abs({})",
         "np.sqrt(({}) ** 2 + 1.0)", "np.log1p(({}) ** 2)", "-({})", "({}) / 3.0 + 0.5"]
BINARY = ["({}) + ({})", "({}) - ({})", "({}) * ({})", "np.maximum({}, {})",
          "({}) / (({}) ** 2 + 1.0)", "np.where(({}) > 0.1, {}, 0.5)"]
# Shape-changing steps on a [3, 4] value; each gives a [3, 4] value back.
STRUCTURE = ["({}).mean(axis=1, keepdims=True) * ({})",
             "({}) - ({}).max(axis=0, keepdims=True)",
             "np.concatenate([({})[:, :2], ({})[:, 2:] * 2.0], axis=1)",
             "(({}) @ ({}).T) @ np.ones((3, 4)) / 4.0",
             "np.flip({}, axis=1) + ({})[::-1]",
             "({}).T.reshape(3, 4) + ({})",
             # Gathers with repeated and negative indices, and sorts (`rules/indexed.rs`).
             "({})[np.array([2, 0, 0])] * ({})",
             "({})[:, np.array([3, -1, 0, 3])] + ({})",
             "np.take_along_axis({}, np.array([[1, 1, 0, 3]] * 3), axis=1) - ({})",
             "({})[np.array([[0], [2], [2]]), np.array([1, 1, 3, -4])] * 0.5 + ({})",
             "np.sort({}, axis=1) * ({})",
             "np.sort(({}).ravel())[::-1].reshape(3, 4) + ({})"]


@st.composite
def programs(draw):
    n_inputs = draw(st.integers(1, 3))
    names = [f"x{i}" for i in range(n_inputs)]
    lines = []
    for k in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["unary", "binary", "structure"]))
        a = draw(st.sampled_from(names))
        b = draw(st.sampled_from(names))
        if kind == "unary":
            template = draw(st.sampled_from(UNARY))
            expr = template.format(*([a] * template.count("{}")))
        elif kind == "binary":
            template = draw(st.sampled_from(BINARY))
            expr = template.format(a, b)
        else:
            template = draw(st.sampled_from(STRUCTURE))
            expr = template.format(a, b)
        lines.append(f"    t{k} = {expr}")
        names.append(f"t{k}")
    reduction = draw(st.sampled_from(["({}).sum()", "(({}) ** 2).mean()", "np.tanh({}).sum()"]))
    lines.append(f"    return {reduction.format(names[-1])}")
    args = ", ".join(f"x{i}" for i in range(n_inputs))
    source = f"def program({args}):\n" + "\n".join(lines) + "\n"
    # On a grid shifted off zero: no value sits within a difference step of abs's kink.
    grid = st.integers(-200, 200).map(lambda k: k / 100 + 0.0037)
    values = [draw(st.lists(grid, min_size=12, max_size=12)) for _ in range(n_inputs)]
    return source, [np.array(v).reshape(3, 4) for v in values]


_BUILT = itertools.count()


def build(source: str):
    # A file name of its own for each program: ember counts recompiles per code object.
    filename = f"<autodiff-program-{next(_BUILT)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"np": np}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102
    return namespace["program"]


def far_from_kinks(fn, args) -> bool:
    """Central differences are only a reference where no kink (abs, maximum, where, max) lies
    within the step: the result must be smooth at the two step sizes."""
    g1 = [numeric_grad(fn, args, i, h=1e-6) for i in range(len(args))]
    g2 = [numeric_grad(fn, args, i, h=1e-5) for i in range(len(args))]
    return all(np.allclose(a, b, rtol=1e-4, atol=1e-6) for a, b in zip(g1, g2, strict=True))


@seed(20261203)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_programs_match_central_differences(case):
    source, args = case
    fn = build(source)
    if not far_from_kinks(fn, args):
        return
    argnums = tuple(range(len(args)))
    grads = ember.grad(fn, argnums=argnums)(*args)
    eager = ember.grad(fn, argnums=argnums, backend="eager")(*args)
    for i, (g, e) in enumerate(zip(grads, eager, strict=True)):
        want = numeric_grad(fn, args, i)
        assert g.shape == args[i].shape and g.dtype == np.float64, source
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-7, err_msg=source)
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12, err_msg=source)


@seed(20261204)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_programs_fused_into_a_compiled_step_equal_the_tape(case):
    """`value_and_grad` inside `ember.compile` (captured into the caller's graph) gives the
    values and gradients of the Python path (a tape of separately compiled graphs)."""
    source, args = case
    fn = build(source)
    argnums = tuple(range(len(args)))

    def step(*xs):
        value, grads = ember.value_and_grad(fn, argnums=argnums)(*xs)
        return value, tuple(x - 0.1 * g for x, g in zip(xs, grads, strict=True))

    report = ember.explain(step, *args)
    assert (report.graph_count, report.graph_break_count) == (1, 0), source
    value, updated = ember.compile(step)(*args)
    want_value, want = step(*args)
    np.testing.assert_allclose(value, want_value, rtol=1e-12, err_msg=source)
    for got, expected in zip(updated, want, strict=True):
        assert got.shape == expected.shape and got.dtype == expected.dtype, source
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12, err_msg=source)
