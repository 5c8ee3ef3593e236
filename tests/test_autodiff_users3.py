"""Capture of what the programs of `autodiff_users3_cases` use (their gradients are checked with
every case list in `test_autodiff_users`): namedtuple `_replace`/`_asdict`, assignment through
lists of integers."""

from __future__ import annotations

import numpy as np


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
