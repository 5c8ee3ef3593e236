"""The programs of `autodiff_users_cases`, `autodiff_users2_cases`, `autodiff_users3_cases`
and `autodiff_users4_cases`, in one parametrised set: each gradient by `ember.value_and_grad`
equals autograd's for the same code (or central differences in float64), the eager backend's
and the one inside an `ember.compile`d step. float32 parameters get float32 gradients close to
the float64 program's. Also grad of grad, `has_aux` with a dict and `argnums` tuples on their
own, order statistics on other sizes and searches."""

from __future__ import annotations

import autodiff_users2_cases
import autodiff_users3_cases
import autodiff_users4_cases
import autodiff_users_cases
import autograd
import autograd.numpy as anp
import ember
import numpy as np
import pytest
from autodiff_users_cases import CASES, RNG, _normal, logsumexp
from test_autodiff_corpus import _leaves
from test_autodiff_corpus import reference as corpus_reference
from test_autodiff_rules import numeric_grad
from test_autodiff_stranger import (
    _on_autograd,
    assert_compiled_step_as_standalone,
    assert_trees_equal,
)

# Every case list, its cases named `list: case` (names repeat across lists).
ALL_CASES = {f"{module.__name__.removeprefix('autodiff_').removesuffix('_cases')}: {name}": case
             for module in (autodiff_users_cases, autodiff_users2_cases, autodiff_users3_cases,
                            autodiff_users4_cases)
             for name, case in module.CASES.items()}


def _double(tree):
    leaves, build = _leaves(tree)
    return build([x.astype(np.float64) if isinstance(x, np.ndarray) and x.dtype == np.float32
                  else x for x in leaves])


def _single(tree):
    leaves, build = _leaves(tree)
    return build([x.astype(np.float32) if isinstance(x, np.ndarray) else x for x in leaves])


def reference(case):
    fn, args, argnums, how = case
    if how == "float32":
        return _single(corpus_reference((fn, _double(args), argnums, "autograd")))
    return corpus_reference(case)


def _tolerance(how):
    return {"autograd": dict(rtol=1e-7, atol=1e-9), "differences": dict(rtol=1e-5, atol=1e-6),
            "float32": dict(rtol=2e-4, atol=2e-5)}[how]


@pytest.mark.parametrize("name", sorted(ALL_CASES))
def test_gradients_equal_the_references(name):
    fn, args, argnums, how = ALL_CASES[name]
    value, got = ember.value_and_grad(fn, argnums=argnums)(*args)
    np.testing.assert_allclose(value, fn(*args), rtol=1e-5 if how == "float32" else 1e-10)
    assert np.asarray(value).dtype == np.asarray(fn(*args)).dtype
    assert_trees_equal(got, reference(ALL_CASES[name]), **_tolerance(how))


@pytest.mark.parametrize("name", sorted(ALL_CASES))
def test_the_eager_backend_gives_the_same_gradients(name):
    fn, args, argnums, how = ALL_CASES[name]
    got = ember.grad(fn, argnums=argnums)(*args)
    eager = ember.grad(fn, argnums=argnums, backend="eager")(*args)
    tolerance = dict(rtol=1e-5, atol=1e-6) if how == "float32" else dict(rtol=1e-10,
                                                                         atol=1e-12)
    assert_trees_equal(eager, got, **tolerance)


@pytest.mark.parametrize("name", sorted(ALL_CASES))
def test_gradients_inside_a_compiled_step(name):
    fn, args, argnums, how = ALL_CASES[name]
    if how == "float32":
        @ember.compile
        def step(*a):
            return ember.value_and_grad(fn, argnums=argnums)(*a)

        value, got = step(*args)
        assert_trees_equal(got, reference(ALL_CASES[name]), **_tolerance(how))
        return
    assert_compiled_step_as_standalone(fn, args, argnums)


def test_grad_of_grad_of_an_energy_is_its_hessian_diagonal():
    def energy(q):
        return np.sum(np.cos(q) + 0.25 * q ** 4) + np.sum(q[:-1] * q[1:])

    q = _normal(5)
    hess_diag = ember.grad(lambda q: np.sum(ember.grad(energy)(q) * np.eye(5)[2]))(q)
    want = autograd.grad(lambda q: anp.sum(autograd.grad(_on_autograd(energy))(q)
                                           * np.eye(5)[2]))(q)
    assert_trees_equal(hess_diag, want, rtol=1e-10, atol=1e-12)


def test_grad_of_grad_of_a_scalar_function_of_a_float():
    def f(t):
        return np.sin(t) * np.exp(0.5 * t) + t ** 3

    second = ember.grad(ember.grad(f))(0.7)
    want = autograd.grad(autograd.grad(_on_autograd(f)))(0.7)
    np.testing.assert_allclose(second, want, rtol=1e-10)


def test_has_aux_with_a_dict_and_an_argnums_tuple():
    def loss(params, x, y):
        logits = x @ params["w"] + params["b"]
        log_probs = logits - logsumexp(logits)[:, None]
        nll = -np.mean(np.sum(log_probs * y, axis=1))
        accuracy = np.mean(np.argmax(logits, axis=1) == np.argmax(y, axis=1))
        return nll, {"accuracy": accuracy, "logits": logits}

    params = {"w": _normal(3, 4), "b": _normal(4)}
    x, y = _normal(7, 3), np.eye(4)[RNG.integers(0, 4, size=7)]
    (value, aux), (g_params, g_x) = ember.value_and_grad(loss, argnums=(0, 1),
                                                         has_aux=True)(params, x, y)
    want_value, want_aux = loss(params, x, y)
    np.testing.assert_allclose(value, want_value, rtol=1e-12)
    assert set(aux) == {"accuracy", "logits"}
    np.testing.assert_allclose(aux["accuracy"], want_aux["accuracy"])
    np.testing.assert_allclose(aux["logits"], want_aux["logits"], rtol=1e-12)
    on_autograd = _on_autograd(loss)
    want = autograd.grad(lambda p, x: on_autograd(p, x, y)[0], (0, 1))(params, x)
    assert_trees_equal((g_params, g_x), want, rtol=1e-10, atol=1e-12)

    @ember.compile
    def step(params, x, y):
        return ember.value_and_grad(loss, argnums=(0, 1), has_aux=True)(params, x, y)

    (c_value, c_aux), c_grads = step(params, x, y)
    np.testing.assert_allclose(c_value, want_value, rtol=1e-12)
    np.testing.assert_allclose(c_aux["logits"], want_aux["logits"], rtol=1e-12)
    assert_trees_equal(c_grads, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["median absolute deviation", "partition top k",
                                  "running maximum", "max pooling windows"])
def test_order_statistics_on_other_sizes(name):
    """The order-statistic programs again on fresh data of another length or shape (odd and
    even lengths for the median)."""
    fn, args, argnums, _ = CASES[name]
    for shape_scale in (1, 2):
        new_args = tuple(RNG.standard_normal(tuple(s * shape_scale if i == 0 else s
                                                   for i, s in enumerate(np.shape(a))))
                         if isinstance(a, np.ndarray) else a for a in args)
        if name == "max pooling windows":
            new_args = (RNG.standard_normal((4 * shape_scale, 4 * shape_scale)),) * 2
        got = ember.grad(fn, argnums=argnums)(*new_args)
        nums = (argnums,) if isinstance(argnums, int) else argnums
        want = tuple(numeric_grad(fn, new_args, i) for i in nums)
        assert_trees_equal(got if isinstance(argnums, tuple) else (got,), want, rtol=1e-5,
                           atol=1e-6)


GENERATOR_BREAKS = {
    "sum of a generator": lambda x: np.sum(sum(x * float(np.sum(x[:k + 1])) for k in range(3))),
    "a loop over a generator": lambda x: np.sum([np.sum(t) for t in
                                                 (x * np.sum(x[:k + 1]).item()
                                                  for k in range(3))]),
}


@pytest.mark.parametrize("name", sorted(GENERATOR_BREAKS))
def test_a_generator_left_to_python_is_refused_not_a_zero_gradient(name):
    """A generator expression whose body breaks is made and run in Python: its terms would
    carry no gradient, so the differentiated function refuses it."""
    with pytest.raises(ember.GraphBreakError, match=r"the generator .*\(\) breaks the graph"):
        ember.grad(GENERATOR_BREAKS[name])(np.array([0.5, -1.0, 2.0]))


def test_series_by_a_list_comprehension_equals_differences():
    """The matrix exponential's truncated series, its factorials read as Python floats: a
    list keeps each term in the graph."""
    def expm_trace(a):
        terms = [np.linalg.matrix_power(a, k) / float(np.prod(np.arange(1, k + 1)))
                 for k in range(6)]
        return np.trace(sum(terms))

    a = 0.3 * _normal(3, 3)
    assert_trees_equal(ember.grad(expm_trace)(a), numeric_grad(expm_trace, (a,), 0),
                       rtol=1e-5, atol=1e-6)


_XP = np.sort(RNG.uniform(0, 1, 7))
_FP = _normal(7)
_QUERIES = np.array([-0.2, 0.05, 0.31, 0.5, 0.77, 0.99, 1.3])
SEARCHES = {
    "interp, gradient of x": (lambda x: np.sum(np.interp(x, _XP, _FP) ** 2),
                              RNG.uniform(-0.1, 1.1, (3, 4))),
    "interp, gradient of xp": (lambda p: np.sum(np.interp(_QUERIES, p, _FP) ** 2), _XP),
    "interp, left and right": (lambda f: np.sum(np.interp(_QUERIES, _XP, f, left=0.5,
                                                          right=-1.0) ** 3), _FP),
    "interp of a float": (lambda f: np.interp(0.42, _XP, f) ** 2, _FP),
    "a lookup table": (lambda t: np.sum(np.interp(np.linspace(0, 1, 20), np.linspace(0, 1, 5),
                                                  t) ** 2), _normal(5)),
    "searchsorted as an index": (lambda f: np.sum(f[np.searchsorted(_XP, 0.9 * _QUERIES[1:-1]
                                                                    * _XP[-1])] ** 2), _FP),
    "digitize as an index": (lambda f: np.sum(f[np.digitize(_QUERIES, _XP) - 1] * _QUERIES),
                             _FP),
}


@pytest.mark.parametrize("name", sorted(SEARCHES))
def test_searches_in_a_differentiated_function_equal_differences(name):
    """np.interp, np.searchsorted and np.digitize in a graph without loop ops: positions by
    counting, values by gathers."""
    fn, x = SEARCHES[name]
    value, got = ember.value_and_grad(fn)(x)
    np.testing.assert_allclose(value, fn(x), rtol=1e-12)
    want = numeric_grad(fn, (x,), 0)
    assert_trees_equal(got, want, rtol=1e-5, atol=1e-6)
    assert_trees_equal(ember.grad(fn, backend="eager")(x), want, rtol=1e-5, atol=1e-6)
    assert_compiled_step_as_standalone(fn, (x,), 0)
