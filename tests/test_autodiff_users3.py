"""The programs of `autodiff_users3_cases`: each gradient by `ember.value_and_grad` equals
autograd's for the same code (or central differences in float64), the eager backend's and
the one inside an `ember.compile`d step."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from autodiff_users3_cases import CASES
from test_autodiff_stranger import assert_compiled_step_as_standalone, assert_trees_equal
from test_autodiff_users import _tolerance, reference


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_equal_the_references(name):
    fn, args, argnums, how = CASES[name]
    value, got = ember.value_and_grad(fn, argnums=argnums)(*args)
    np.testing.assert_allclose(value, fn(*args), rtol=1e-5 if how == "float32" else 1e-10)
    assert np.asarray(value).dtype == np.asarray(fn(*args)).dtype
    assert_trees_equal(got, reference(CASES[name]), **_tolerance(how))


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_eager_backend_gives_the_same_gradients(name):
    fn, args, argnums, how = CASES[name]
    got = ember.grad(fn, argnums=argnums)(*args)
    eager = ember.grad(fn, argnums=argnums, backend="eager")(*args)
    tolerance = dict(rtol=1e-5, atol=1e-6) if how == "float32" else dict(rtol=1e-10,
                                                                         atol=1e-12)
    assert_trees_equal(eager, got, **tolerance)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_inside_a_compiled_step(name):
    fn, args, argnums, how = CASES[name]
    if how == "float32":
        @ember.compile
        def step(*a):
            return ember.value_and_grad(fn, argnums=argnums)(*a)

        value, got = step(*args)
        assert_trees_equal(got, reference(CASES[name]), **_tolerance(how))
        return
    assert_compiled_step_as_standalone(fn, args, argnums)


def test_namedtuple_replace_and_asdict_are_captured():
    """`state._replace(h=...)` and `state._asdict()` inside a compiled function: NumPy's
    values in one graph, the namedtuple's class kept; an unknown field raises as in Python."""
    from autodiff_users3_cases import LSTMState
    from probe_harness import assert_behaves_as_numpy

    def step(state, x):
        state = state._replace(c=state.c * x, h=np.tanh(state.h + x))
        return state, state._asdict()["c"].sum()

    assert_behaves_as_numpy(step, LSTMState(np.arange(3.0), np.ones(3)), np.full(3, 0.5))

    def unknown(state):
        return state._replace(z=state.h)

    assert_behaves_as_numpy(unknown, LSTMState(np.arange(3.0), np.ones(3)),
                            compiled_code=False)


def test_assignment_through_lists_of_integers():
    """`y[[2, 5]] = ...` (repeated and negative indices, mixed with slices) on a copy: NumPy's
    values in compiled code, NumPy's IndexError out of bounds."""
    from probe_harness import assert_behaves_as_numpy

    def update(x):
        y = x.copy()
        y[[2, 5]] = np.sin(y[[2, 5]])
        y[np.array([0, -1])] += 1.0
        y[[1, 1, 3]] = np.array([5.0, 6.0, 7.0])
        z = np.zeros((3, 4))
        z[[0, 2], 1:3] = x[:4].reshape(2, 2)
        z[1, [3, 0]] = 7.0
        return y, z

    assert_behaves_as_numpy(update, np.arange(7.0))

    def out_of_bounds(x):
        y = x.copy()
        y[[9]] = 1.0
        return y

    assert_behaves_as_numpy(out_of_bounds, np.arange(7.0), compiled_code=False)
