"""Aliasing probed as a new user would: views returned, in-place updates through views of
one base passed twice, `out=`, `np.asarray`, returned arguments; `is` and shared memory
compared with NumPy's, and writes through the results reaching the same arrays."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same, assert_same_aliasing


def _both(fn, make_args):
    want_args = make_args()
    want = fn(*want_args)
    got_args = make_args()
    got = ember.compile(fn)(*got_args)
    assert_same(got, want)
    assert_same_aliasing(got, got_args, want, want_args)
    for g, w in zip(got_args, want_args, strict=True):
        np.testing.assert_array_equal(g, w)
    return got, got_args, want, want_args


def test_a_view_of_a_mutated_argument_writes_through_to_it():
    def f(x):
        x += 1
        return x[::2]

    got, got_args, want, want_args = _both(f, lambda: [np.arange(6.0)])
    got[0], want[0] = 100.0, 100.0
    np.testing.assert_array_equal(got_args[0], want_args[0])


@pytest.mark.parametrize("view", [
    lambda x: x.T, lambda x: x[1:], lambda x: x.reshape(-1), lambda x: x[:, None],
    lambda x: x[::-1], lambda x: np.asarray(x), lambda x: x, lambda x: x[...],
    lambda x: (x, x.T, x[0]), lambda x: np.transpose(x), lambda x: x.ravel(),
])
def test_views_and_arguments_returned(view):
    _both(view, lambda: [np.arange(6.0).reshape(2, 3)])


def test_in_place_on_overlapping_views_of_one_base():
    def f(p, q):
        p += q
        return p

    base_np, base_em = np.arange(8.0), np.arange(8.0)
    f(base_np[:5], base_np[1:6])
    ember.compile(f)(base_em[:5], base_em[1:6])
    np.testing.assert_array_equal(base_em, base_np)


def test_the_same_array_passed_twice():
    def f(a, b):
        a *= 2
        return a + b

    x_np, x_em = np.arange(4.0), np.arange(4.0)
    want = f(x_np, x_np)
    got = ember.compile(f)(x_em, x_em)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(x_em, x_np)


@pytest.mark.parametrize("fn", [
    lambda x, y: np.add(x, 1, out=y),
    lambda x, y: np.multiply(x, x, out=x),
    lambda x, y: (np.negative(x, out=y), y),
    lambda x, y: np.sqrt(x, out=y) is y,
])
def test_out_arguments_are_returned_and_written(fn):
    _both(fn, lambda: [np.arange(1.0, 4.0), np.zeros(3)])


def test_results_do_not_alias_each_other_unless_numpy_does():
    def f(x):
        y = x + 1
        return y, y[0], y.T, y.copy()

    _both(f, lambda: [np.ones((2, 3))])


def _mutate_then_fail(a, b):
    a += b
    return np.sum(a)[::-1]  # IndexError: a NumPy scalar takes no slice


def _mutate_then_raise(a, b):
    a *= 2
    b[0] = 1.0
    raise ValueError("after the update")


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
@pytest.mark.parametrize("fn", [_mutate_then_fail, _mutate_then_raise],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("shared", [True, False])
def test_an_error_after_an_update_in_place_updates_once(fn, shared, backend):
    # Arguments sharing memory send the frame to plain Python; when the user's own code
    # then raises, the frame must not be run a second time (updating the array twice).
    def make():
        a = np.array([1.0, -7.0, 3.0])
        return (a, a) if shared else (a, np.array([1.0, 1.0, 1.0]))

    outcomes = []
    for run in (fn, ember.compile(fn, backend=backend)):
        args = make()
        with pytest.raises(Exception) as caught:
            run(*args)
        outcomes.append((caught.type, str(caught.value), repr(args)))
    assert outcomes[1] == outcomes[0]


def _view_after_setitem(a):
    a[0] = 1
    t1 = a[-1:]  # all of a one-row a: the same graph value as a
    a += a
    return (t1,)


def _view_between_updates(a):
    a += a
    t1 = a[-1:]
    a += a
    return (t1,)


def _view_then_cast(a):
    a[0] = 1
    t1 = a[-1:]
    t1 += a
    return (a.astype(np.bool_), a + a)


def _asarray_then_update(a):
    b = np.asarray(a)
    np.logical_not(a, out=a)
    return b + 0, b


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
@pytest.mark.parametrize("fn", [_view_after_setitem, _view_between_updates, _view_then_cast,
                                _asarray_then_update], ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [np.int32, np.bool_])
def test_an_identity_view_sees_later_updates_in_place(fn, dtype, backend):
    # `a[-1:]` of a one-row array is all of it: capture gives it a's own graph value, so an
    # update in place of a must still show through it (and the result share a's memory).
    def make():
        return [np.array([[1]], dtype)]

    want_args, got_args = make(), make()
    want = fn(*want_args)
    got = ember.compile(fn, backend=backend)(*got_args)
    assert_same(got, want)
    assert_same_aliasing(got, got_args, want, want_args)
    assert repr(got_args) == repr(want_args)


def _reshape_and_its_view(a):
    t0 = a.reshape(-1)  # a copy where a is not C-contiguous
    return t0, t0[::-1]


def _views_of_one_reshape(a):
    t = a.T.reshape(-1)
    u = t[1:]
    return t, u, t.reshape(2, -1), u[::2]


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
@pytest.mark.parametrize("fn", [_reshape_and_its_view, _views_of_one_reshape],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_views_of_a_copying_reshape_share_its_memory(fn, layout, backend):
    # The reshape is rebuilt by the entry (a view of the argument where NumPy's is one, else
    # a copy): every view of it must be taken from that one array, as NumPy's are.
    def make():
        base = np.arange(12.0).reshape(3, 4)
        return [{"C": base, "F": np.asfortranarray(base), "strided": base[:, ::2]}[layout]]

    want_args, got_args = make(), make()
    want = fn(*want_args)
    got = ember.compile(fn, backend=backend)(*got_args)
    assert_same(got, want)
    assert_same_aliasing(got, got_args, want, want_args)
