"""Lifetime probed as a new user would: compiled functions, their code and their results die
when the program drops them; `ember.reset()` forgets every compiled entry."""

from __future__ import annotations

import gc
import weakref

import ember
import numpy as np


def test_an_exec_function_and_its_code_die_with_it():
    namespace = {"np": np}
    exec("def f(a):\n    return a * 2 + 1\n", namespace)  # noqa: S102 -- a notebook cell
    fn = namespace.pop("f")
    compiled = ember.compile(fn)
    np.testing.assert_array_equal(compiled(np.ones(3)), np.full(3, 3.0))
    dead_fn, dead_code = weakref.ref(fn), weakref.ref(fn.__code__)
    del fn, compiled, namespace
    gc.collect()
    assert dead_fn() is None
    assert dead_code() is None


def test_a_dropped_result_dies_at_once_without_recycling():
    budget = ember.config.recycle_bytes
    ember.config.recycle_bytes = 0
    try:
        compiled = ember.compile(lambda x: x * 2)
        result = compiled(np.ones(10))
        ref = weakref.ref(result)
        del result
        assert ref() is None
    finally:
        ember.config.recycle_bytes = budget  # a setting: reset() leaves it as it is
        ember.reset()


def test_a_dropped_result_with_a_weak_reference_dies_by_the_next_call():
    compiled = ember.compile(lambda x: x * 2)
    result = compiled(np.ones(10))
    ref = weakref.ref(result)
    del result
    again = compiled(np.ones(10))  # not reused (a weak reference is alive), so let go
    assert ref() is None
    np.testing.assert_array_equal(again, np.full(10, 2.0))


def test_reset_forgets_compiled_entries():
    calls = []

    def f(a):
        calls.append(1)  # a side effect: plain Python runs it on every call
        return a + 1

    compiled = ember.compile(f)
    compiled(np.ones(2))
    ember.reset()
    np.testing.assert_array_equal(compiled(np.ones(2)), np.full(2, 2.0))
    assert ember.stats()["captures"] >= 1
