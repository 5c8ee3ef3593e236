"""Instances of plain user classes created inside a compiled function: `__init__` inlined,
attributes tracked, the object rebuilt (same `__dict__`, same identity) where it escapes;
classes whose instances are not plain dicts of attributes stay Python calls."""

from __future__ import annotations

import dataclasses

import ember
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


class Running:
    scale = 2.0

    def __init__(self, x, start=0.0):
        self.total = np.full_like(x, start)
        self.count = 0

    def add(self, x):
        self.total = self.total + x * self.scale
        self.count += 1
        return self

    @property
    def mean(self):
        return self.total / max(self.count, 1)

    @staticmethod
    def clip(v):
        return np.clip(v, -1.0, 1.0)

    @classmethod
    def of(cls, x):
        return cls(x, start=1.0).add(x)


class Empty:
    pass


class Slotted:
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v


class Guarded:
    def __init__(self, v):
        self.v = v

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value * 2)


@dataclasses.dataclass
class Pair:
    a: np.ndarray
    b: float = 0.5


class Node:
    def __init__(self, v):
        self.v = v
        self.me = self


def scratch_object(x):
    r = Running(x)
    for _ in range(3):
        r.add(x)
    return Running.clip(r.mean)


def returned_object(x):
    r = Running.of(x)
    r.extra = x.sum()
    return r


def same_object_twice(x):
    r = Running(x)
    r.add(x)
    return r, [r, r.total]


def object_across_break(x):
    r = Running(x).add(x)
    print("", end="")  # a graph break while the object is live
    r.add(x)
    return r.mean, r


def object_in_loop(xs):
    acc = Empty()
    acc.s = np.zeros(xs.shape[1])
    for row in xs:
        acc.s = acc.s + np.sin(row)
    return acc.s


def object_per_trip(xs):
    out = np.empty(xs.shape[0])
    for i in range(xs.shape[0]):
        p = Pair(xs[i], b=2.0)
        out[i] = (p.a * p.b).sum()
    return out


def dataclass_returned(x):
    return Pair(x * 2)


def self_reference(x):
    n = Node(x + 1)
    return n.me.v, n


def stored_into_argument(x, sink):
    sink.append(Running(x).add(x))
    return x.sum()


def missing_attribute(x):
    r = Running(x)
    return r.nothing


def refused_classes(x):
    return Slotted(x + 1).v, Guarded(x).v, Empty()


def init_takes_no_arguments(x):
    return Empty(x)


def _same_object(got, want):
    assert type(got) is type(want)
    assert list(vars(got)) == list(vars(want))
    for k, w in vars(want).items():
        g = vars(got)[k]
        if isinstance(w, np.ndarray):
            np.testing.assert_allclose(g, w)
        elif w is want:
            assert g is got
        else:
            assert g == w


def _run(fn, *args):
    return fn(*args), ember.compile(fn)(*args)


@pytest.mark.parametrize("rows", [5, 300])
@pytest.mark.parametrize("fn", [scratch_object, object_in_loop, object_per_trip])
def test_values(fn, rows):
    x = np.random.default_rng(0).standard_normal((rows, 4))
    want, got = _run(fn, x if fn is not scratch_object else x[0])
    np.testing.assert_allclose(got, want)


def test_scratch_object_compiles_without_breaks():
    ember.reset()
    x = np.random.default_rng(1).standard_normal(6)
    ember.compile(scratch_object)(x)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0 and stats["compiles"] == 1, stats["break_reasons"]


def test_returned_object_is_rebuilt():
    x = np.arange(4.0)
    want, got = _run(returned_object, x)
    _same_object(got, want)


def test_identity_kept():
    x = np.arange(3.0)
    (r, items), (r0, items0) = ember.compile(same_object_twice)(x), same_object_twice(x)
    assert items[0] is r
    _same_object(r, r0)
    np.testing.assert_allclose(items[1], items0[1])


def test_object_across_break():
    x = np.arange(3.0) - 1
    (m0, r0), (m, r) = _run(object_across_break, x)
    np.testing.assert_allclose(m, m0)
    _same_object(r, r0)


def test_dataclass_and_self_reference():
    x = np.arange(3.0)
    want, got = _run(dataclass_returned, x)
    _same_object(got, want)
    (v0, n0), (v, n) = _run(self_reference, x)
    np.testing.assert_allclose(v, v0)
    _same_object(n, n0)


def test_stored_into_argument():
    x = np.arange(3.0)
    sink0, sink = [], []
    assert stored_into_argument(x, sink0) == ember.compile(stored_into_argument)(x, sink)
    _same_object(sink[0], sink0[0])


def test_errors_like_python():
    x = np.arange(3.0)
    for fn in (missing_attribute, init_takes_no_arguments):
        with pytest.raises(Exception) as want:
            fn(x)
        with pytest.raises(type(want.value)):
            ember.compile(fn)(x)


def test_classes_that_are_not_plain_stay_python():
    x = np.arange(3.0)
    (s0, g0, e0), (s, g, e) = _run(refused_classes, x)
    np.testing.assert_allclose(s, s0)
    np.testing.assert_allclose(g, g0)
    assert type(e) is Empty and vars(e) == {}


@settings(derandomize=True, deadline=None, max_examples=25)
@given(st.integers(1, 6), st.integers(0, 4), st.floats(-3, 3))
def test_running_object_random(n, steps, start):
    x = np.linspace(-1.0, 2.0, n) * start

    def f(x):
        r = Running(x, start=start)
        for _ in range(steps):
            r.add(x)
        return r.mean, r.count, r

    (m0, c0, r0), (m, c, r) = f(x), ember.compile(f)(x)
    np.testing.assert_allclose(m, m0)
    assert c == c0 and type(c) is type(c0)
    _same_object(r, r0)


def branch_on_data(x):
    o = Empty()
    o.v = x
    if x.sum() > 0:
        o.v = x * 2
    else:
        o.v = x * 3
    return o.v + 1


def running_best(xs):
    o = Empty()
    o.best = -1.0
    for i in range(xs.shape[0]):
        if xs[i] > o.best:
            o.best = xs[i]
    return o.best


def conditional_adds(xs):
    r = Running(xs[0])
    for i in range(40):
        if xs[i] > 0:
            r.add(xs[i])
    return r.mean, r.count


@pytest.mark.parametrize("fn", [branch_on_data, running_best, conditional_adds])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_branches_on_data(fn, seed):
    x = np.random.default_rng(seed).standard_normal(50)
    want, got = fn(x.copy()), ember.compile(fn)(x.copy())
    if isinstance(want, tuple):
        np.testing.assert_allclose(got[0], want[0])
        assert got[1] == want[1]
    else:
        np.testing.assert_allclose(got, want)
