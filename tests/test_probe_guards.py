"""Guards probed as a new user would: every change a compiled function could miss, each
compared with the plain function after the change."""

from __future__ import annotations

import math
import types
from unittest import mock

import ember
import numpy as np
import pytest
from probe_harness import assert_behaves_as_numpy

X = np.arange(6.0)
SCALE = 2.0


def _same(compiled, plain, *args):
    np.testing.assert_array_equal(compiled(*args), plain(*args))


def test_a_global_that_later_shadows_a_builtin():
    def f(a):
        return a * len(a)

    compiled = ember.compile(f)
    _same(compiled, f, X)
    globals()["len"] = lambda a: 100
    try:
        _same(compiled, f, X)
    finally:
        del globals()["len"]
    _same(compiled, f, X)


def test_mock_patch_object_on_an_instance_method():
    class Model:
        def scale(self):
            return 2.0

        def apply(self, a):
            return a * self.scale()

    model = Model()
    compiled = ember.compile(Model.apply)
    _same(compiled, Model.apply, model, X)
    with mock.patch.object(model, "scale", return_value=5.0):
        _same(compiled, Model.apply, model, X)
    _same(compiled, Model.apply, model, X)


def test_class_attribute_and_instance_attribute_changes():
    class Config:
        k = 2.0

    def f(a, c):
        return a * c.k

    cfg = Config()
    compiled = ember.compile(f)
    _same(compiled, f, X, cfg)
    Config.k = 3.0
    _same(compiled, f, X, cfg)
    cfg.k = 4.0  # an instance attribute now shadows the class's
    _same(compiled, f, X, cfg)


def test_mutated_default_argument_and_closure_cell():
    def f(a, d=[1.0]):  # noqa: B006 -- the mutable default is the point
        return a * d[0]

    compiled = ember.compile(f)
    _same(compiled, f, X)
    f.__defaults__[0][0] = 7.0
    _same(compiled, f, X)

    s = 2.0

    def g(a):
        return a * s

    compiled_g = ember.compile(g)
    _same(compiled_g, g, X)
    s = 9.0
    _same(compiled_g, g, X)


def test_global_statement_updates_the_module_as_python_does():
    global SCALE

    def f(a):
        global SCALE
        SCALE = SCALE + 1.0
        return a * SCALE

    SCALE = 2.0
    want = [f(X) for _ in range(3)]
    want_scale = SCALE
    SCALE = 2.0
    compiled = ember.compile(f)
    got = [compiled(X) for _ in range(3)]
    assert SCALE == want_scale
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_patched_module_attributes():
    def f(a):
        return a * math.pi

    def g(a):
        return np.add(a, 1.0)

    cf, cg = ember.compile(f), ember.compile(g)
    _same(cf, f, X)
    _same(cg, g, X)
    with mock.patch.object(math, "pi", 3.0):
        _same(cf, f, X)
    with mock.patch.object(np, "add", np.subtract):
        _same(cg, g, X)
    _same(cg, g, X)


def test_the_same_code_with_other_globals():
    namespace = {"np": np, "K": 2.0}
    exec("def h(a):\n    return a * K\n", namespace)  # noqa: S102 -- code run under two globals
    first = namespace["h"]
    compiled = ember.compile(first)
    _same(compiled, first, X)
    other = types.FunctionType(first.__code__, {"np": np, "K": 5.0})
    _same(ember.compile(other), other, X)
    _same(compiled, first, X)


@pytest.mark.parametrize("arg", [
    np.ones((3, 4)), np.ones((3, 4), np.float32), np.ones((3, 4), np.int32),
    np.ones((3, 4, 2)), np.ones((4, 3)).T, np.ones((6, 8))[::2, ::2], np.ones((3, 4), bool),
    np.ones((0, 4)), np.array(2.5),
])
def test_dtype_ndim_and_layout_changes_between_calls(arg):
    def f(a):
        return a.sum(axis=0) * 2

    compiled = ember.compile(f)
    compiled(np.ones((3, 4)))  # compiled for float64 C-contiguous first
    got, want = compiled(arg), f(arg)
    assert type(got) is type(want)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


class Sub(np.ndarray):
    pass


@pytest.mark.parametrize("arg", [
    np.arange(3.0).view(Sub), np.ma.masked_array([1.0, 2.0], mask=[0, 1]), np.matrix([[1.0, 2.0]]),
])
def test_array_subclasses_keep_their_type(arg):
    def f(a):
        return a + 1

    got, want = ember.compile(f)(arg), f(arg)
    assert type(got) is type(want)
    assert repr(got) == repr(want)


@pytest.mark.parametrize(("a", "b"), [
    (np.array(2.0), 3), (np.float32(2), 3.0), (np.ones(3, np.float32), np.float64(2)),
    (np.ones(3, np.float32), 2.0), (True, np.ones(3, np.int8)), (np.ones(3, np.int8), 300),
    (np.ones(3, np.uint8), -1), (np.array(2.0), np.array(3.0)), (2, 3), (True, False),
    (np.int64(3), 2.5), (np.ones(2, bool), True), (np.ones(2, np.int16), np.int64(1)),
])
def test_python_scalars_numpy_scalars_bools_and_0d_arrays(a, b):
    def f(a, b):
        return a * b, a + b

    assert_behaves_as_numpy(f, a, b)


@pytest.mark.parametrize("arg", [np.ones(3, np.float32), np.array([True, False]),
                                 np.arange(-3, 3), np.arange(3, dtype=np.int8)])
def test_0d_results_are_numpy_scalars_of_the_right_type(arg):
    def f(a):
        return a[0] * 2, (a > 0).sum(), a.sum() + True, a[1:2].max()

    assert_behaves_as_numpy(f, arg)
