"""Item assignment into arrays a function creates itself (`d = np.empty_like(x); d[1:-1] =
...`), the way finite differences, stencils and recurrences are written: captured as a
functional update, with NumPy's results, errors and aliasing."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_user_numerics import BACKENDS, run_like_numpy


def fill_edges(x):
    d = np.zeros_like(x)
    d[1:-1] = x[2:] - x[:-2]
    d[0] = x[1] - x[0]
    d[-1] = 7
    return d


def stencil_2d(u):
    out = u.copy()
    out[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    out[..., 0] = 0.0
    return out


def recurrence(x):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = 0.5 * x[i] + 0.5 * out[i - 1]
    return out


def int_target(x):
    out = np.zeros(4, dtype=np.int32)
    out[1] = 2.7
    out[2:] = x
    return out


def whole_assignment(x):
    d = np.empty_like(x)
    d[:] = x
    d += 1
    return d


def view_then_assign(x):
    d = x * 1.0
    row = d[0]
    d[0, 0] = 100.0
    return row


def strided_assign(x):
    d = x.copy()
    d[::2] = -1.0
    return d


def empty_region(x):
    d = x + 0
    d[3:1] = 5.0
    return d


def nan_into_int(x):
    d = np.zeros(3, dtype=np.int64)
    d[0] = x
    return d


def bad_broadcast(x):
    d = np.zeros((4, 3))
    d[1:3] = x
    return d


CASES = {
    "fill_edges": (fill_edges, (np.linspace(0.0, 2.0, 7) ** 2,)),
    "fill_edges_f32": (fill_edges, (np.arange(6, dtype=np.float32),)),
    "stencil_2d": (stencil_2d, (np.random.default_rng(5).random((5, 6)),)),
    "recurrence": (recurrence, (np.array([1.0, 3.0, -2.0, 0.5]),)),
    "int_target": (int_target, (np.array([9.9, -3.5]),)),
    "whole_assignment": (whole_assignment, (np.arange(4.0),)),
    "view_then_assign": (view_then_assign, (np.ones((2, 3)),)),
    "strided_assign": (strided_assign, (np.arange(5.0),)),
    "empty_region": (empty_region, (np.arange(5.0),)),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(CASES))
def test_setitem_like_numpy(name, backend):
    fn, args = CASES[name]
    run_like_numpy(fn, backend, *args)


@pytest.mark.parametrize(
    "name", ["fill_edges", "stencil_2d", "recurrence", "int_target", "whole_assignment",
             "strided_assign"])
def test_setitem_on_local_arrays_is_captured(name):
    fn, args = CASES[name]
    report = ember.explain(fn, *args)
    assert report.graph_count == 1
    assert report.graph_break_count == 0


def test_setitem_while_a_slice_is_held_is_captured():
    """`row = d[0]` follows `d` (`capture/variables/views.py`): `d[0, 0] = ...` needs no
    break, and the returned row shows it (`test_setitem_like_numpy` compares it)."""
    fn, args = CASES["view_then_assign"]
    report = ember.explain(fn, *args)
    assert report.graph_count == 1
    assert report.graph_break_count == 0


def _axis_item(draw, size: int) -> object:
    """An integer or a slice (with any step, negative ones included) of an axis of `size`."""
    if draw(st.booleans()):
        return draw(st.integers(-size, size - 1))
    bound = st.none() | st.integers(-size - 2, size + 2)
    step = draw(st.none() | st.integers(-3, 3).filter(lambda k: k != 0))
    return slice(draw(bound), draw(bound), step)


@st.composite
def strided_assignments(draw):
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=1, max_size=3)))
    index = tuple(_axis_item(draw, size) for size in shape)
    target = np.empty(shape)[index]
    full = draw(st.booleans())
    return shape, index, full, target.shape


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(case=strided_assignments())
def test_strided_setitem_like_numpy(case):
    """`a[index] = v` with slices of any step, into a local array and into an argument (which
    the caller then sees changed), is captured without a break and matches NumPy."""
    shape, index, full, target_shape = case

    def assign(a, v):
        d = np.zeros(a.shape)
        d[index] = v
        a[index] = 2 * v
        return d + a

    rng = np.random.default_rng(0)
    v = rng.random(target_shape) if full else 3.5
    want_a, got_a = rng.random(shape), None
    got_a = want_a.copy()
    want = assign(want_a, v)
    ember.reset()
    got = ember.compile(assign)(got_a, v)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_a, want_a)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0 and stats["compiles"] == 1, stats["break_reasons"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_setitem_raises_numpy_errors(backend):
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        ember.compile(nan_into_int, backend=backend)(np.nan)
    with pytest.raises(ValueError, match="could not broadcast"):
        ember.compile(bad_broadcast, backend=backend)(np.ones(4))


def augmented_slices(x):
    d = x * 1.0
    d[1:] += x[:-1]
    d[0] *= 2
    d[..., -1] -= 1
    return d


def augmented_argument(w, g):
    w[1:] -= 0.5 * g[1:]
    return w


def augmented_view_alias(x):
    d = x * 1.0
    tail = d[1:]
    d[1:] += 1.0
    return tail


def augmented_int_by_float(x):
    d = x + 0
    d[1:] += 0.5
    return d


AUGMENTED = {
    "augmented_slices": (augmented_slices, (np.arange(5.0),)),
    "augmented_slices_2d": (augmented_slices, (np.arange(12.0).reshape(3, 4),)),
    "augmented_argument": (augmented_argument, (np.ones(4), np.arange(4.0))),
    "augmented_view_alias": (augmented_view_alias, (np.arange(4.0),)),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(AUGMENTED))
def test_augmented_subscript_like_numpy(name, backend):
    fn, args = AUGMENTED[name]
    run_like_numpy(fn, backend, *args)


@pytest.mark.parametrize("name", ["augmented_slices", "augmented_argument"])
def test_augmented_subscript_is_captured(name):
    fn, args = AUGMENTED[name]
    report = ember.explain(fn, *args)
    assert (report.graph_count, report.graph_break_count) == (1, 0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_augmented_subscript_casting_error_like_numpy(backend):
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output"):
        ember.compile(augmented_int_by_float, backend=backend)(np.arange(4))
