"""Guards as an outsider probes them: each scenario compiles a function, calls it, changes
something it read (a custom descriptor's state, an instance's `__class__`, a property deleted
from the class, `__getattr__` fallbacks, a base class attribute seen through a subclass,
`__bases__`, `functools.partial`'s keywords dict, a closure cell rebound through
`cell_contents`, `__kwdefaults__` mutated in place, a global rebound by the compiled function
itself, a module reloaded from its file, `np` rebound, a dtype and a shape held in globals, a
callable object's class `__call__`, an object's `__bool__`, `__index__` and `__len__`, a
staticmethod swapped for a classmethod, an instance `__dict__` replaced, a `__slots__`
attribute deleted) and calls it again. Every call is compared with the unwrapped function as
a `record` on both backends, and graphs must have been compiled."""

from __future__ import annotations

import functools
import importlib
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, define, record

X = np.linspace(-1.0, 2.0, 6)


def custom_descriptor_state(wrap):
    class Scaled:
        def __init__(self):
            self.factor = 2.0

        def __get__(self, obj, owner=None):
            return self.factor * (obj.base if obj is not None else 1.0)

    desc = Scaled()

    class Model:
        scale = desc

        def __init__(self):
            self.base = 1.5

    m = Model()
    f = wrap(define("def f(m, x):\n    return x * m.scale\n"))
    seen = [record(f, (m, X))]
    desc.factor = -3.0
    seen.append(record(f, (m, X)))
    m.base = np.float32(0.5)
    seen.append(record(f, (m, X)))
    return seen


def instance_class_reassigned(wrap):
    class A:
        def k(self):
            return 2.0

    class B:
        def k(self):
            return np.arange(6)

    obj = A()
    f = wrap(define("def f(o, x):\n    return x + o.k()\n"))
    seen = [record(f, (obj, X))]
    obj.__class__ = B
    seen.append(record(f, (obj, X)))
    obj.__class__ = A
    seen.append(record(f, (obj, X)))
    return seen


def property_deleted_reveals_instance_dict(wrap):
    class P:
        @property
        def w(self):
            return 3.0

    p = P()
    p.__dict__["w"] = 10.0
    f = wrap(define("def f(p, x):\n    return x * p.w\n"))
    seen = [record(f, (p, X))]
    del P.w
    seen.append(record(f, (p, X)))
    P.w = property(lambda self: np.float32(0.25))
    seen.append(record(f, (p, X)))
    return seen


def getattr_fallback_then_real_attribute(wrap):
    class G:
        def __getattr__(self, name):
            return 7.0

    g = G()
    f = wrap(define("def f(g, x):\n    return x - g.offset\n"))
    seen = [record(f, (g, X))]
    g.offset = 1
    seen.append(record(f, (g, X)))
    del g.offset
    G.__getattr__ = lambda self, name: np.arange(6.0)
    seen.append(record(f, (g, X)))
    return seen


def base_class_attribute_through_subclass(wrap):
    class Base:
        k = 2.0

    class Sub(Base):
        pass

    s = Sub()
    f = wrap(define("def f(s, x):\n    return x * s.k\n"))
    seen = [record(f, (s, X))]
    Base.k = 5
    seen.append(record(f, (s, X)))
    Sub.k = np.float32(3)
    seen.append(record(f, (s, X)))
    del Sub.k
    seen.append(record(f, (s, X)))
    return seen


def bases_reassigned(wrap):
    class One:
        k = 1.0

    class Two:
        k = -4.0

    class Sub(One):
        pass

    s = Sub()
    f = wrap(define("def f(s, x):\n    return x + s.k\n"))
    seen = [record(f, (s, X))]
    Sub.__bases__ = (Two,)
    seen.append(record(f, (s, X)))
    return seen


def partial_keywords_mutated(wrap):
    def scale(x, *, k):
        return x * k

    p = functools.partial(scale, k=2.0)
    f = wrap(define("def f(x):\n    return P(x) + 1\n", P=p))
    seen = [record(f, (X,))]
    p.keywords["k"] = np.arange(6)
    seen.append(record(f, (X,)))
    return seen


def partial_array_argument_mutated(wrap):
    w = np.ones(6)
    p = functools.partial(np.multiply, w)
    f = wrap(define("def f(x):\n    return P(x).sum()\n", P=p))
    seen = [record(f, (X,))]
    w[:] = 3.0
    seen.append(record(f, (X,)))
    return seen


def cell_contents_rebound(wrap):
    make = define("def make(k):\n    def f(x):\n        return x * k\n    return f\n", name="make")
    plain = make(2.0)
    f = wrap(plain)
    seen = [record(f, (X,))]
    for value in (np.float32(3), 4, np.arange(6)):
        plain.__closure__[0].cell_contents = value
        seen.append(record(f, (X,)))
    return seen


def kwdefaults_mutated_in_place(wrap):
    plain = define("def f(x, *, k=2.0):\n    return x * k\n")
    f = wrap(plain)
    seen = [record(f, (X,))]
    plain.__kwdefaults__["k"] = np.int8(3)
    seen.append(record(f, (X,)))
    return seen


def global_rebound_by_the_function(wrap):
    plain = define("def f(x):\n    global TOTAL\n    TOTAL = TOTAL + x.sum()\n"
                   "    return x * TOTAL\n", TOTAL=0)
    f = wrap(plain)
    seen = []
    for _ in range(3):
        seen.append(record(f, (X,)))
        seen.append(repr(plain.__globals__["TOTAL"]))
    return seen


def global_array_rebound_by_the_function(wrap):
    plain = define("def f(x):\n    global BUF\n    BUF = np.concatenate([BUF, x[:2]])\n"
                   "    return BUF.sum()\n", BUF=np.zeros(1))
    f = wrap(plain)
    seen = []
    for _ in range(3):
        seen.append(record(f, (X,)))
        seen.append(repr(plain.__globals__["BUF"]))
    return seen


def module_reloaded(wrap):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "outsider_probe_settings.py"
        path.write_text("SCALE = 2.0\ndef shift(x):\n    return x + 1\n")
        sys.path.insert(0, folder)
        try:
            mod = importlib.import_module("outsider_probe_settings")
            f = wrap(define("def f(x):\n    return M.shift(x) * M.SCALE\n", M=mod))
            seen = [record(f, (X,))]
            path.write_text(textwrap.dedent("""\
                import numpy as np
                SCALE = np.float32(0.5)
                def shift(x):
                    return x - 10
                """))
            importlib.invalidate_caches()
            importlib.reload(mod)
            seen.append(record(f, (X,)))
        finally:
            sys.path.remove(folder)
            sys.modules.pop("outsider_probe_settings", None)
    return seen


def np_rebound_in_globals(wrap):
    plain = define("def f(x):\n    return np.sqrt(x * x)\n")
    f = wrap(plain)
    seen = [record(f, (X,))]

    class FakeNumpy:
        @staticmethod
        def sqrt(v):
            return v + 100

    plain.__globals__["np"] = FakeNumpy
    seen.append(record(f, (X,)))
    plain.__globals__["np"] = np
    seen.append(record(f, (X,)))
    return seen


def dtype_and_shape_in_globals(wrap):
    plain = define("def f(x):\n    return np.zeros(N, DT) + x[:N].astype(DT)\n", N=3, DT=np.float64)
    f = wrap(plain)
    seen = [record(f, (X,))]
    plain.__globals__["DT"] = np.int16
    seen.append(record(f, (X,)))
    plain.__globals__["N"] = 5
    seen.append(record(f, (X,)))
    return seen


def callable_object_class_call_replaced(wrap):
    class Op:
        def __call__(self, x):
            return x * 2

    op = Op()
    f = wrap(define("def f(x):\n    return OP(x) - 1\n", OP=op))
    seen = [record(f, (X,))]
    Op.__call__ = lambda self, x: x ** 2
    seen.append(record(f, (X,)))
    return seen


def object_bool_flips(wrap):
    class Flag:
        on = True

        def __bool__(self):
            return self.on

    flag = Flag()
    f = wrap(define("def f(flag, x):\n    if flag:\n        return x + 1\n    return x - 1\n"))
    seen = [record(f, (flag, X))]
    flag.on = False
    seen.append(record(f, (flag, X)))
    return seen


def object_index_changes(wrap):
    class Pos:
        def __init__(self, i):
            self.i = i

        def __index__(self):
            return self.i

    pos = Pos(1)
    f = wrap(define("def f(p, x):\n    return x[p] * 2, x[:p]\n"))
    seen = [record(f, (pos, X))]
    pos.i = 4
    seen.append(record(f, (pos, X)))
    pos.i = 10
    seen.append(record(f, (pos, X)))
    return seen


def object_len_changes(wrap):
    class Bag:
        def __init__(self):
            self.n = 2

        def __len__(self):
            return self.n

    bag = Bag()
    f = wrap(define("def f(b, x):\n    t = x[0] * 0\n    for i in range(len(b)):\n"
                    "        t = t + x[i]\n    return t\n"))
    seen = [record(f, (bag, X))]
    bag.n = 5
    seen.append(record(f, (bag, X)))
    return seen


def staticmethod_swapped_for_classmethod(wrap):
    class C:
        k = 3.0

        @staticmethod
        def g(x):
            return x + 1

    f = wrap(define("def f(c, x):\n    return c.g(x)\n"))
    seen = [record(f, (C(), X))]
    C.g = classmethod(lambda cls, x: x * cls.k)
    seen.append(record(f, (C(), X)))
    C.k = -1
    seen.append(record(f, (C(), X)))
    return seen


def instance_dict_replaced(wrap):
    class Holder:
        pass

    h = Holder()
    h.w = 2.0
    f = wrap(define("def f(h, x):\n    return x * h.w\n"))
    seen = [record(f, (h, X))]
    h.__dict__ = {"w": np.arange(6)}
    seen.append(record(f, (h, X)))
    return seen


def slots_attribute_deleted(wrap):
    class S:
        __slots__ = ("w",)

    s = S()
    s.w = 2.0
    f = wrap(define("def f(s, x):\n    return x * s.w\n"))
    seen = [record(f, (s, X))]
    del s.w
    seen.append(record(f, (s, X)))
    s.w = np.float32(4)
    seen.append(record(f, (s, X)))
    return seen


def function_attribute_read_inside(wrap):
    plain = define("def f(x):\n    return x * f.scale\n")
    plain.scale = 2.0
    f = wrap(plain)
    seen = [record(f, (X,))]
    plain.scale = np.arange(6)
    seen.append(record(f, (X,)))
    return seen


SCENARIOS = [custom_descriptor_state, instance_class_reassigned,
             property_deleted_reveals_instance_dict, getattr_fallback_then_real_attribute,
             base_class_attribute_through_subclass, bases_reassigned, partial_keywords_mutated,
             partial_array_argument_mutated, cell_contents_rebound, kwdefaults_mutated_in_place,
             global_rebound_by_the_function, global_array_rebound_by_the_function,
             module_reloaded, np_rebound_in_globals, dtype_and_shape_in_globals,
             callable_object_class_call_replaced, object_bool_flips, object_index_changes,
             object_len_changes, staticmethod_swapped_for_classmethod, instance_dict_replaced,
             slots_attribute_deleted, function_attribute_read_inside]
# Scenarios with a call that raises by design (an index out of range, an attribute gone):
# that call's frame runs as Python.
RAISES = {object_index_changes, slots_attribute_deleted}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
def test_changes_an_outsider_makes_between_calls_are_seen(scenario):
    assert_scenario_as_numpy(scenario, falls_back=scenario in RAISES)
