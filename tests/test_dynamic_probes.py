"""Functions as people write them (`dynamic_probes.py`), each called with 100 sizes: every
call equals NumPy (values, dtype, shape, layout), the function is captured at most twice
(once static, once symbolic after the size changed) and no call falls back to plain Python.
Those that still capture per size are strict xfails naming why. Then slices by run-time ints
at the frame's level (`x[:n]`, `x[n:]`, `x[a:b]`, `x[:, :n]`, `x[-k:]`), which the entry
takes as views of the argument: bounds past the end, negative, empty and one-row results,
views returned (sharing the argument's memory, as NumPy's do), an argument updated while
its view is held, and random bounds against NumPy."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same
from dynamic_probes import PROBES, SPECIALISED
from hypothesis import given
from hypothesis import strategies as st

SIZES = range(2, 102)


def _sweep(fn, make, backend="cranelift", sizes=SIZES):
    compiled = ember.compile(fn, backend=backend)
    for n in sizes:
        args = make(n, np.random.default_rng(n))
        want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        assert_same(compiled(*args), want, rtol=1e-10, path=f"{fn.__name__} at {n}")
    return ember.stats()


@pytest.mark.parametrize("fn, make", PROBES, ids=[f.__name__ for f, _ in PROBES])
def test_a_hundred_sizes_capture_at_most_twice(fn, make):
    stats = _sweep(fn, make)
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    assert stats["entry_fallbacks"] == 0 and stats["failed_frames"] == 0
    assert stats["graph_breaks"] == 0, stats["break_reasons"]


@pytest.mark.parametrize("fn, make", [
    pytest.param(fn, make, id=fn.__name__, marks=pytest.mark.xfail(strict=True, reason=reason))
    for fn, make, reason in SPECIALISED])
def test_what_still_captures_per_size(fn, make):
    stats = _sweep(fn, make, sizes=range(2, 14))  # right, past the recompile limit too
    assert stats["captures"] <= 2 and stats["graph_breaks"] == 0


def test_the_known_cases_are_right_on_the_eager_backend():
    for fn, make in PROBES:
        if fn.__code__.co_argcount == 2 and fn.__name__ in _INT_BOUND:
            ember.reset()
            stats = _sweep(fn, make, backend="eager", sizes=range(2, 30))
            assert stats["captures"] <= 2 and stats["entry_fallbacks"] == 0, fn.__name__


_INT_BOUND = {"head", "tail", "window", "leading_columns", "last_k", "head_and_rest",
              "head_returned", "heads_added"}


def head(x, n):
    return x[:n] * 2.0


def span(x, a, b):
    return x[a:b].sum(axis=0)


def columns(x, n):
    return x[:, :n] - x[:, :n].mean(axis=1, keepdims=True)


def stepped(x, a, s):
    return x[a::s] + 1.0


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
@pytest.mark.parametrize("fn, cases", [
    (head, [(3,), (50,), (70,), (2,), (1,), (0,), (-1,), (-55,), (-80,), (10,)]),
    (span, [(1, 5), (10, 40), (-30, -2), (5, 2), (0, 100), (4, 5), (-3, 60), (2, 9)]),
    (columns, [(3,), (7,), (20,), (1,), (0,), (-2,), (5,)]),
    (stepped, [(0, 2), (1, 3), (5, 7), (-1, -2), (0, 1), (2, 2)]),
], ids=["head", "span", "columns", "stepped"])
def test_run_time_bounds_equal_numpy_past_the_ends(fn, cases, backend):
    """Bounds in range, past the end, negative, crossing: Python's own clamping, since the
    entry takes the view; a view of 0 or 1 rows runs the frame as plain Python."""
    x = np.random.default_rng(0).standard_normal((60, 9))
    compiled = ember.compile(fn, backend=backend)
    for args in cases:
        assert_same(compiled(x, *args), fn(x, *args), rtol=1e-12, path=f"{args}")
    assert ember.stats()["captures"] <= 3  # static, symbolic, and a step that changed sign


def test_a_returned_view_shares_the_arguments_memory():
    compiled = ember.compile(lambda x, n: x[n:])
    x = np.arange(20.0)
    for n in (3, 5, 8):
        got = compiled(x, n)
        assert np.shares_memory(got, x) and got.base is not None
        np.testing.assert_array_equal(got, x[n:])
    assert ember.stats()["captures"] == 2


def _update_after_view(x, n):
    v = x[:n]
    x[0] = 100.0
    return v.sum()


def _view_updated(x, n):
    v = x[:n]
    v[0] = 7.0
    return x.sum()


@pytest.mark.parametrize("fn", [_update_after_view, _view_updated])
def test_updates_through_a_view_or_its_argument_are_seen(fn):
    compiled = ember.compile(fn)
    for n in (3, 4, 5, 9):
        x, want_x = np.arange(12.0), np.arange(12.0)
        want = fn(want_x, n)
        assert_same(compiled(x, n), want)
        np.testing.assert_array_equal(x, want_x)


def test_a_size_changed_after_capture_below_what_the_graph_takes_runs_as_python():
    def tails(x, n):
        return x[n:][1:] * 2.0  # the view must keep 3 rows for `[1:]` to leave 2

    compiled = ember.compile(tails)
    x = np.arange(30.0)
    for n in (1, 2, 27, 28, 29, 30, 5):
        assert_same(compiled(x, n), tails(x, n))


def test_the_int_guard_still_holds_for_other_types():
    compiled = ember.compile(lambda x, n: x[:n] * 2)
    x = np.arange(10.0)
    for n in (2, 3, 4, np.int64(5), 6, True):
        assert_same(compiled(x, n), x[:n] * 2)
    with pytest.raises(TypeError):
        compiled(x, 2.5)


@given(rows=st.integers(0, 40), a=st.integers(-50, 50) | st.none(),
       b=st.integers(-50, 50) | st.none(), step=st.sampled_from([None, 1, 2, 3, -1, -2]))
def test_random_bounds_equal_numpy(rows, a, b, step):
    x = np.arange(rows * 3, dtype=np.float64).reshape(rows, 3)
    got = _random_compiled(x, a, b, step)
    assert_same(got, _random(x, a, b, step))


def _random(x, a, b, step):
    return x[a:b:step] * 2.0 + x[a:b:step].sum(axis=0)


_random_compiled = ember.compile(_random)


def _slices_by_arguments(x, n, m):
    return x[:n, 1:].sum(axis=0) + x[m:, :4].sum(axis=0)


def test_slices_by_int_arguments_take_the_native_fast_path():
    """A view by constants and int arguments is read natively (`dispatch.rs: Read::Index`);
    one of 0 or 1 rows makes the graph refuse it and the call runs as Python."""
    compiled = ember.compile(_slices_by_arguments)
    x = np.random.default_rng(3).standard_normal((40, 5))
    compiled(x, 4, 30)
    compiled(x, 6, 31)
    for n, m in [(7, 20), (30, 2), (2, 38), (40, -5), (100, -40)]:
        before = ember.stats()["native_calls"]
        assert_same(compiled(x, n, m), _slices_by_arguments(x, n, m), rtol=1e-12)
        assert ember.stats()["native_calls"] == before + 1
    for n, m in [(1, 20), (7, 39), (0, 0), (-39, 5)]:
        assert_same(compiled(x, n, m), _slices_by_arguments(x, n, m), rtol=1e-12)
    assert ember.stats()["captures"] == 2


def _step(w, x, n):
    g = ember.grad(lambda w: ((w[:n] * x[:n]).sum() + (w * w).sum()) ** 2)(w)
    return w - 0.01 * g


def _step_numpy(w, x, n):
    inner = (w[:n] * x[:n]).sum() + (w * w).sum()
    g = 2 * w * 2 * inner
    g[:n] += 2 * inner * x[:n]
    return w - 0.01 * g


def test_a_gradient_through_a_run_time_slice_of_its_argument_is_right():
    """The slice of a differentiated argument is not an input of its own there (its gradient
    would not reach the argument): the gradient call breaks and runs ember.grad's own path."""
    compiled = ember.compile(_step)
    rng = np.random.default_rng(5)
    w, x = rng.standard_normal(12), rng.standard_normal(12)
    for n in (3, 4, 5, 9, 12):
        assert_same(compiled(w, x, n), _step_numpy(w, x, n), rtol=1e-10)


def _broken_inside_index(x, n):
    return x[1:n, print("row") or 0] * 2.0


def test_a_break_between_a_run_time_slice_and_its_subscript_keeps_the_frame(capsys):
    """The slice is live on the stack at the break: the entry rebuilds it as a slice."""
    compiled = ember.compile(_broken_inside_index)
    x = np.arange(24.0).reshape(12, 2)
    for n in (5, 6, 7):
        assert_same(compiled(x, n), x[1:n, 0] * 2.0)
    assert capsys.readouterr().out == "row\n" * 3
    assert ember.stats()["failed_frames"] == 0
