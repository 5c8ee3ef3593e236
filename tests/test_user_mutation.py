"""Argument arrays updated in place (optimizer steps, running statistics, `x[0] = ...`): the
graph computes the new contents and the entry writes them back into the caller's array, so
the caller sees NumPy's mutation; aliased or read-only arguments run as Python."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from test_user_numerics import BACKENDS, run_like_numpy


def sgd_step(w, grad, lr=0.1):
    w -= lr * grad
    return w


def running_stats(x, mean, var, momentum=0.1):
    mean *= 1 - momentum
    mean += momentum * x.mean(axis=0)
    var[:] = (1 - momentum) * var + momentum * x.var(axis=0)
    return (x - mean) / np.sqrt(var + 1e-5)


def set_first(x):
    x[0] = 5.0
    return x.sum()


def update_then_read(a, b):
    a += 1.0
    return a * b


class Momentum:
    def __init__(self, n):
        self.velocity = np.zeros(n)

    def step(self, w, grad, lr=0.01, beta=0.9):
        self.velocity *= beta
        self.velocity += grad
        w -= lr * self.velocity
        return w


def momentum_step(opt, w, grad):
    return opt.step(w, grad)


def view_then_update(x):
    row = x[0]
    x += 1
    return row


def int_update(counts, extra):
    counts += extra
    return counts


RNG = np.random.default_rng(6)
CASES = {
    "sgd_step": (sgd_step, (RNG.standard_normal(5), RNG.standard_normal(5))),
    "sgd_step_f32": (sgd_step, (np.ones(3, np.float32), np.arange(3, dtype=np.float32))),
    "running_stats": (running_stats, (RNG.standard_normal((6, 3)), np.zeros(3), np.ones(3))),
    "set_first": (set_first, (np.arange(4.0),)),
    "update_then_read": (update_then_read, (np.arange(3.0), np.arange(3.0) + 2)),
    "view_then_update": (view_then_update, (np.ones((2, 3)),)),
    "int_update": (int_update, (np.arange(4), np.array([1, 1, 2, 2]))),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(CASES))
def test_mutation_like_numpy(name, backend):
    fn, args = CASES[name]
    run_like_numpy(fn, backend, *args)


@pytest.mark.parametrize("name", ["sgd_step", "running_stats", "set_first", "int_update"])
def test_argument_updates_are_captured(name):
    fn, args = CASES[name]
    report = ember.explain(fn, *args)
    assert (report.graph_count, report.graph_break_count) == (1, 0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_updated_argument_is_returned_as_itself(backend):
    w = np.ones(3)
    out = ember.compile(sgd_step, backend=backend)(w, np.arange(3.0))
    assert out is w
    np.testing.assert_array_equal(w, [1.0, 0.9, 0.8])


@pytest.mark.parametrize("backend", BACKENDS)
def test_attribute_arrays_are_updated(backend):
    opt, want_opt = Momentum(3), Momentum(3)
    w, want_w = np.ones(3), np.ones(3)
    step = ember.compile(momentum_step, backend=backend)
    for _ in range(3):
        step(opt, w, np.arange(3.0))
        momentum_step(want_opt, want_w, np.arange(3.0))
    np.testing.assert_allclose(opt.velocity, want_opt.velocity)
    np.testing.assert_allclose(w, want_w)


@pytest.mark.parametrize("backend", BACKENDS)
def test_aliased_arguments_behave_like_numpy(backend):
    compiled = ember.compile(update_then_read, backend=backend)
    compiled(np.zeros(3), np.ones(3))  # captured with distinct arrays
    a = np.arange(3.0)
    want_a = np.arange(3.0)
    got = compiled(a, a)
    want = update_then_read(want_a, want_a)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(a, want_a)
    base, want_base = np.arange(4.0), np.arange(4.0)
    got = compiled(base[:3], base[1:])
    want = update_then_read(want_base[:3], want_base[1:])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(base, want_base)


@pytest.mark.parametrize("backend", BACKENDS)
def test_read_only_argument_raises_like_numpy(backend):
    compiled = ember.compile(sgd_step, backend=backend)
    compiled(np.ones(2), np.ones(2))
    w = np.ones(2)
    w.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        compiled(w, np.ones(2))


class Counter:
    def __init__(self):
        self.calls = 0
        self.last = None


def count_and_cache(state, x):
    state.calls += 1
    state.last = x * 2
    state.scale = 0.5  # a new attribute
    return state.last * state.scale + state.calls


class Guarded:
    def __init__(self):
        self._value = 0.0

    @property
    def value(self):
        return self._value

    @value.setter
    def value(self, v):
        self._value = v + 1


def set_property(obj, x):
    obj.value = 3.0
    return x * obj.value


class Slotted:
    __slots__ = ("value",)

    def __init__(self):
        self.value = 0.0


def store_list(state, x):
    state.last = [x, x]
    return x


@pytest.mark.parametrize("backend", BACKENDS)
def test_attribute_assignments_are_replayed(backend):
    state, want_state = Counter(), Counter()
    compiled = ember.compile(count_and_cache, backend=backend)
    for n in range(3):
        x = np.arange(3.0) + n
        got, want = compiled(state, x), count_and_cache(want_state, x)
        np.testing.assert_array_equal(got, want)
        assert (state.calls, state.scale) == (want_state.calls, want_state.scale)
        np.testing.assert_array_equal(state.last, want_state.last)
    report = ember.explain(count_and_cache, Counter(), np.ones(2))
    assert (report.graph_count, report.graph_break_count) == (1, 0)


@pytest.mark.parametrize("make, fn", [(Guarded, set_property), (Slotted, set_property),
                                      (Counter, store_list)])
def test_attribute_assignments_capture_cannot_replay_run_as_python(make, fn):
    obj, want_obj = make(), make()
    got = ember.compile(fn, backend="eager")(obj, np.ones(2))
    want = fn(want_obj, np.ones(2))
    np.testing.assert_array_equal(got, want)
    for name in ("value", "last"):
        if hasattr(want_obj, name):
            assert type(getattr(obj, name)) is type(getattr(want_obj, name))
    report = ember.explain(fn, make(), np.ones(2))
    assert report.graph_break_count == 1
