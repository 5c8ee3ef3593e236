"""Gradients through integer-array item assignment (`x[idx] = v`, `x[idx] += v`,
`x[i, j] = v`, `x[:, idx] = v`) and `np.add.at` in differentiated functions: forward values equal NumPy's
(a repeated index keeps its last write, or adds up in `np.add.at`), gradients equal central differences in float64 and
autograd's for the same update written functionally (autograd has no item assignment), with
`ember.grad` and inside a compiled step (one graph), at random index arrays with repeats and
negative indices (hypothesis, fixed seed)."""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import ember
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from test_autodiff_rules import numeric_grad


def assign_rows(w, v, idx):
    y = np.tanh(w)
    y[idx] = v * 2.0
    return np.sum(y * y * np.arange(1.0, y.size + 1).reshape(y.shape))


def add_into_rows(w, v, idx):
    y = w * 1.5
    y[idx] += np.sin(v)
    return np.sum(np.cos(y) * np.arange(1.0, y.size + 1).reshape(y.shape))


def assign_columns(w, v, idx):
    y = w.copy()
    y[:, idx] = v
    return np.sum(np.exp(y * 0.3) * np.arange(1.0, y.size + 1).reshape(y.shape))


def assign_pairs(w, v, idx):
    y = w ** 2
    y[idx, idx[::-1]] = v[: len(idx), 0]
    return np.sum(np.sin(y) * np.arange(1.0, y.size + 1).reshape(y.shape))


def add_at_rows(w, v, idx):
    y = np.sqrt(w * w + 1.0)
    np.add.at(y, idx, v * v)
    return np.sum(np.log(y) * np.arange(1.0, y.size + 1).reshape(y.shape))


# The same updates for autograd, written without item assignment: a repeated index keeps the
# value of its last occurrence, as NumPy's assignment does.
def _last_occurrences(targets):
    last = {}
    for position, target in enumerate(targets):
        last[target] = position
    return last


def _assign_rows_functional(w, v, idx):
    y = anp.tanh(w)
    rows = idx % w.shape[0]
    last = _last_occurrences(rows.tolist())
    new_rows = [v[last[r]] * 2.0 if r in last else y[r] for r in range(w.shape[0])]
    y = anp.stack([anp.broadcast_to(row, (w.shape[1],)) for row in new_rows])
    return anp.sum(y * y * np.arange(1.0, y.size + 1).reshape(y.shape))


def _add_into_rows_functional(w, v, idx):
    y = w * 1.5
    rows = idx % w.shape[0]
    last = _last_occurrences(rows.tolist())
    new_rows = [y[r] + anp.sin(v[last[r]]) if r in last else y[r] for r in range(w.shape[0])]
    y = anp.stack([anp.broadcast_to(row, (w.shape[1],)) for row in new_rows])
    return anp.sum(anp.cos(y) * np.arange(1.0, y.size + 1).reshape(y.shape))


def _add_at_rows_functional(w, v, idx):
    y = anp.sqrt(w * w + 1.0)
    rows = (idx % w.shape[0]).tolist()
    y = anp.stack([y[r] + sum((v[p] * v[p] for p, t in enumerate(rows) if t == r),
                              anp.zeros(w.shape[1])) for r in range(w.shape[0])])
    return anp.sum(anp.log(y) * np.arange(1.0, y.size + 1).reshape(y.shape))


CASES = {
    "np.add.at": (add_at_rows, _add_at_rows_functional, (4, 2), lambda n: (n, 2)),
    "rows": (assign_rows, _assign_rows_functional, (4, 3), lambda n: (n, 3)),
    "rows, +=": (add_into_rows, _add_into_rows_functional, (5, 2), lambda n: (n, 2)),
    "columns": (assign_columns, None, (3, 5), lambda n: (3, n)),
    "pairs": (assign_pairs, None, (4, 4), lambda n: (3, 1)),
}


def _arguments(name, seed, idx=None):
    _, _, w_shape, v_shape = CASES[name]
    rng = np.random.default_rng(seed)
    if idx is None:
        idx = np.array([1, -1, 1])  # a repeat, a negative index
    return rng.standard_normal(w_shape), rng.standard_normal(v_shape(len(idx))), idx


def _check(name, w, v, idx):
    fn, functional, _, _ = CASES[name]
    value, (gw, gv) = ember.value_and_grad(fn, argnums=(0, 1))(w, v, idx)
    np.testing.assert_allclose(value, fn(w.copy(), v, idx), rtol=1e-12)
    for got, i in ((gw, 0), (gv, 1)):
        want = numeric_grad(lambda *a: fn(*a), [w, v, idx], i)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    if functional is not None:
        want = autograd.grad(functional, argnum=(0, 1))(w, v, idx)
        np.testing.assert_allclose(gw, want[0], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(gv, want[1], rtol=1e-10, atol=1e-12)
    return value, gw, gv


@pytest.mark.parametrize("name", sorted(CASES))
def test_item_assignment_gradients_equal_the_references(name):
    _check(name, *_arguments(name, 3))


@pytest.mark.parametrize("name", sorted(CASES))
def test_item_assignment_in_a_compiled_step_is_one_graph(name):
    fn = CASES[name][0]
    w, v, idx = _arguments(name, 4)

    def step(w, v, idx):
        return ember.value_and_grad(fn, argnums=(0, 1))(w, v, idx)

    report = ember.explain(step, w, v, idx)
    assert (report.graph_count, report.graph_break_count) == (1, 0)
    value, (gw, gv) = ember.compile(step)(w, v, idx)
    want_value, (want_w, want_v) = step(w, v, idx)
    np.testing.assert_allclose(value, want_value, rtol=1e-12)
    np.testing.assert_allclose(gw, want_w, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gv, want_v, rtol=1e-10, atol=1e-12)


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(st.sampled_from(sorted(CASES)), st.lists(st.integers(-3, 2), min_size=1, max_size=3),
       st.integers(0, 2**16))
def test_random_index_arrays_with_repeats(name, index, seed):
    _check(name, *_arguments(name, seed, np.array(index)))


def test_float32_values_and_gradients_stay_float32():
    w, v, idx = (a.astype(np.float32) if a.dtype.kind == "f" else a
                 for a in _arguments("rows", 7))
    value, (gw, gv) = ember.value_and_grad(assign_rows, argnums=(0, 1))(w, v, idx)
    assert gw.dtype == np.float32 and gv.dtype == np.float32
    _, (w64, v64) = ember.value_and_grad(assign_rows, argnums=(0, 1))(
        w.astype(np.float64), v.astype(np.float64), idx)
    np.testing.assert_allclose(gw, w64, rtol=2e-4, atol=1e-4)
    np.testing.assert_allclose(gv, v64, rtol=2e-4, atol=1e-4)


def test_non_finite_values_overwritten_or_not_written_stay_out():
    """An overwritten value or element is dropped by `where`, never multiplied by zero, so an
    inf there leaves no NaN behind."""
    def fn(w, v):
        y = w * 1.0
        y[np.array([0, 0])] = v
        return np.sum(y ** 2)

    w = np.array([np.inf, 2.0, 3.0])
    v = np.array([np.inf, 4.0])
    value, (gw, gv) = ember.value_and_grad(fn, argnums=(0, 1))(w, v)
    assert value == fn(w.copy(), v)
    np.testing.assert_array_equal(gw, [0.0, 4.0, 6.0])
    np.testing.assert_array_equal(gv, [0.0, 8.0])


@pytest.mark.parametrize("compiled", [False, True])
def test_an_index_out_of_bounds_raises_numpys_index_error(compiled):
    def gradient(w, idx):
        def fn(w):
            y = w * 2.0
            y[idx] = 0.0
            return np.sum(y ** 2)
        return ember.grad(fn)(w)

    run = ember.compile(gradient) if compiled else gradient
    np.testing.assert_allclose(run(np.arange(4.0), np.array([1, -1])), [0.0, 0.0, 16.0, 0.0])
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        run(np.arange(4.0), np.array([0, 4]))


def test_assignment_with_slices_beside_the_indices_is_refused_not_wrong():
    def fn(w):
        y = w * 1.0
        y[1:, np.array([0, 0])] = 1.0
        return y.sum()

    with pytest.raises(ember.GraphBreakError, match="item assignment through index arrays"):
        ember.grad(fn)(np.ones((4, 3)))
