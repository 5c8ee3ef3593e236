"""Guards that see every change a user can make after the first call: a method shadowed on
the instance, a global shadowing a builtin, one code run with other globals, a patched
attribute of `math`, NumPy or a user module. Each program runs compiled and as plain Python,
before and after the change, and must give the same results; each also shows it was compiled
(so a regression to plain Python cannot pass)."""

from __future__ import annotations

import math
import sys
import types
from unittest import mock

import ember
import numpy as np
import pytest
from conftest import assert_same


def compiled_once(fn, *args, backend="cranelift"):
    """`ember.compile(fn)` and its first result, checked to come from a compiled graph, then
    called once more (a cache hit)."""
    fast = ember.compile(fn, backend=backend)
    before = ember.stats()
    out = fast(*args)
    fast(*args)  # a cache hit: the guards pass once, and remember the dicts' versions
    after = ember.stats()
    assert after["compiles"] > before["compiles"], "the first call compiled nothing"
    assert after["cache_hits"] > before["cache_hits"], "the second call was no cache hit"
    return fast, out


def recompile_reasons() -> list[str]:
    return [reason for _, reason in ember.stats()["recompile_reasons"]]


# ---- methods shadowed on the instance ---------------------------------------------------------

class Scaler:
    def __init__(self):
        self.w = np.full(3, 2.0)

    def scale(self, x):
        return x * self.w

    def run(self, x):
        return self.scale(x) + 1


def test_mock_patch_object_on_a_method_is_seen():
    m, x = Scaler(), np.arange(3.0)
    fast, out = compiled_once(Scaler.run, m, x)
    assert_same(out, m.run(x))
    with mock.patch.object(m, "scale", lambda v: v * 10):
        assert_same(fast(m, x), m.run(x))
    assert any("DICT_LACKS 'scale'" in r for r in recompile_reasons())
    assert_same(fast(m, x), m.run(x))  # the patch is undone: the first entry serves again


def test_method_replaced_on_the_class_and_a_subclass_is_seen():
    class Base:
        def f(self, x):
            return x + 1

        def g(self, x):
            return self.f(x) * 2

    class Child(Base):
        pass

    c, x = Child(), np.ones(2)
    fast, out = compiled_once(Base.g, c, x)
    assert_same(out, c.g(x))
    Child.f = lambda self, x: x - 5
    assert_same(fast(c, x), c.g(x))
    del Child.f
    Base.f = lambda self, x: x * 7
    assert_same(fast(c, x), c.g(x))


def test_instance_attribute_shadowing_a_staticmethod_is_seen():
    class Holder:
        @staticmethod
        def op(x):
            return x * 3

        def run(self, x):
            return self.op(x)

    h, x = Holder(), np.ones(2)
    fast, out = compiled_once(Holder.run, h, x)
    assert_same(out, h.run(x))
    h.op = np.negative
    assert_same(fast(h, x), h.run(x))


# ---- globals that shadow builtins ---------------------------------------------------------------

SOURCE = """
import numpy as np

def norm_len(x):
    return x / len(x) + abs(-2.0)

def total(x):
    acc = x * 0
    for i in range(3):
        acc = acc + x * i
    return acc
"""


def _module_namespace(name="user_mod"):
    namespace = {"__name__": name}
    exec(compile(SOURCE, f"<{name}>", "exec"), namespace)  # noqa: S102 - a user's module
    return namespace


@pytest.mark.parametrize("name, shadow", [("len", lambda v: 100), ("abs", lambda v: -v)])
def test_a_global_defined_later_shadows_a_builtin(name, shadow):
    ns = _module_namespace()
    fn, x = ns["norm_len"], np.arange(4.0)
    fast, out = compiled_once(fn, x)
    assert_same(out, fn(x))
    ns[name] = shadow
    assert_same(fast(x), fn(x))
    del ns[name]
    assert_same(fast(x), fn(x))


def test_range_shadowed_in_a_real_module(tmp_path, monkeypatch):
    (tmp_path / "ember_shadow_mod.py").write_text(SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import ember_shadow_mod as mod

    x = np.ones(3)
    fast, out = compiled_once(mod.total, x)
    assert_same(out, mod.total(x))
    monkeypatch.setattr(mod, "range", lambda n: [5], raising=False)
    assert_same(fast(x), mod.total(x))
    sys.modules.pop("ember_shadow_mod", None)


def test_builtin_shadowed_in_the_module_of_an_inlined_helper(tmp_path, monkeypatch):
    (tmp_path / "ember_inlined_helpers.py").write_text(
        "import numpy as np\n"
        "def count_scale(v):\n    return v * len(v) + np.sqrt(v)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import ember_inlined_helpers as helpers

    def f(x):
        return helpers.count_scale(x) + 1

    x = np.arange(3.0)
    fast, out = compiled_once(f, x)
    assert_same(out, f(x))
    monkeypatch.setattr(helpers, "len", lambda v: 10, raising=False)
    assert_same(fast(x), f(x))
    monkeypatch.setattr(helpers.np, "sqrt", np.negative)  # numpy itself, seen from there
    assert_same(fast(x), f(x))
    sys.modules.pop("ember_inlined_helpers", None)


# ---- one code object, several globals dicts -----------------------------------------------------

SHARED = compile(
    "def step(x):\n"
    "    global LAST\n"
    "    LAST = x * SCALE\n"
    "    return LAST + len(x)\n",
    "<shared>", "exec",
)


def test_one_code_exec_in_two_namespaces():
    first, second = {"SCALE": 2.0}, {"SCALE": 3.0}
    exec(SHARED, first)  # noqa: S102 - the same code object in two namespaces
    exec(SHARED, second)  # noqa: S102
    assert first["step"].__code__ is second["step"].__code__
    x = np.arange(3.0)
    _, out = compiled_once(first["step"], x)
    assert_same(out, x * 2.0 + 3)
    fast_second = ember.compile(second["step"])
    assert_same(fast_second(x), x * 3.0 + 3)
    assert_same(first["LAST"], x * 2.0)
    assert_same(second["LAST"], x * 3.0)
    second["SCALE"] = 2.0  # equal values: still its own dict that is written
    y = np.ones(3)
    fast_second(y)
    assert_same(second["LAST"], y * 2.0)
    assert_same(first["LAST"], x * 2.0)


def test_function_type_with_other_globals_and_builtins():
    def use(x):
        return x * K + len(x)  # noqa: F821 - K is in the globals each function is given

    own = {"K": 2.0}
    f1 = types.FunctionType(use.__code__, own, "use")
    c1, out = compiled_once(f1, np.ones(2))
    assert_same(out, np.full(2, 4.0))
    custom_builtins = {"len": lambda v: 10}
    other = {"K": 2.0, "__builtins__": custom_builtins}
    f2 = types.FunctionType(use.__code__, other, "use")
    assert_same(ember.compile(f2)(np.ones(2)), f2(np.ones(2)))
    assert_same(c1(np.ones(2)), np.full(2, 4.0))


def test_exec_of_the_same_source_twice_keeps_each_namespace():
    source = "def f(x):\n    return x + OFFSET\n"
    a, b = {"OFFSET": 1.0}, {"OFFSET": 1.0}
    exec(source, a)  # noqa: S102
    exec(source, b)  # noqa: S102
    fa, out = compiled_once(a["f"], np.zeros(2))
    fb = ember.compile(b["f"])
    assert_same(out, np.ones(2))
    b["OFFSET"] = 5.0
    assert_same(fb(np.zeros(2)), np.full(2, 5.0))
    assert_same(fa(np.zeros(2)), np.ones(2))


def test_equal_code_objects_are_distinct_functions():
    """One source exec'd in many namespaces makes code objects that compare equal: each is
    its own function, compiled once, and none counts toward another's recompile limit."""
    from ember import _core

    functions = []
    for i in range(12):
        namespace = {"OFFSET": float(i)}
        exec(compile("def f(x):\n    return x + OFFSET\n", f"<copy {i}>", "exec"),  # noqa: S102
             namespace)
        functions.append(namespace["f"])
    assert functions[0].__code__ == functions[1].__code__
    for i, fn in enumerate(functions):
        assert_same(ember.compile(fn)(np.zeros(2)), np.full(2, float(i)))
        assert _core.cache_size(fn.__code__) == 1
    stats = ember.stats()
    assert stats["recompiles"] == 0 and stats["recompile_limit_hits"] == 0


# ---- attributes of modules -----------------------------------------------------------------------

def uses_math_and_numpy(x):
    return np.sqrt(x) * math.pi + np.float64(1.5)


def test_math_pi_patched_after_compiling(monkeypatch):
    x = np.arange(4.0)
    fast, out = compiled_once(uses_math_and_numpy, x)
    assert_same(out, uses_math_and_numpy(x))
    monkeypatch.setattr(math, "pi", 3.0)
    assert_same(fast(x), uses_math_and_numpy(x))
    assert any("MODULE_ATTR_IS pi" in r for r in recompile_reasons())


def test_numpy_function_and_type_patched_after_compiling(monkeypatch):
    x = np.arange(4.0)
    fast, out = compiled_once(uses_math_and_numpy, x)
    assert_same(out, uses_math_and_numpy(x))
    monkeypatch.setattr(np, "sqrt", np.exp)
    assert_same(fast(x), uses_math_and_numpy(x))
    monkeypatch.setattr(np, "float64", np.float32)
    assert_same(fast(x), uses_math_and_numpy(x))
    monkeypatch.undo()
    assert_same(fast(x), uses_math_and_numpy(x))


def test_user_module_function_patched_after_compiling(tmp_path, monkeypatch):
    (tmp_path / "ember_user_helpers.py").write_text(
        "def activate(v):\n    return v * 2\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import ember_user_helpers as helpers

    def model(x):
        return helpers.activate(x) + 1

    x = np.ones(3)
    fast, out = compiled_once(model, x)
    assert_same(out, model(x))
    monkeypatch.setattr(helpers, "activate", lambda v: v - 10)
    assert_same(fast(x), model(x))
    sys.modules.pop("ember_user_helpers", None)


def test_hits_stay_hits_when_nothing_changes():
    m, x = Scaler(), np.ones(3)
    fast, _ = compiled_once(Scaler.run, m, x)
    ns = _module_namespace()
    fast_norm, _ = compiled_once(ns["norm_len"], x)
    fast_math, _ = compiled_once(uses_math_and_numpy, x)
    ns["unrelated"] = 1  # the globals dict changes, not a name the entry depends on
    hits = ember.stats()["cache_hits"]
    for _ in range(5):
        fast(m, x), fast_norm(x), fast_math(x)
    stats = ember.stats()
    assert stats["cache_hits"] - hits == 15
    assert stats["recompiles"] == 0


# ---- attributes of classes defined in Python ---------------------------------------------------

class Settings:
    lr = 0.1
    width = np.float32(2.0)

    @staticmethod
    def act(x):
        return np.tanh(x)


settings_module = types.ModuleType("settings_module")
settings_module.Settings = Settings


def _class_attributes(x):
    return Settings.act(x) * Settings.lr + Settings.width


def _class_through_module(x):
    return x * settings_module.Settings.lr


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
@pytest.mark.parametrize("fn", [_class_attributes, _class_through_module])
def test_class_attributes_set_again_are_seen(fn, backend):
    x = np.linspace(-1.0, 1.0, 8)
    saved = dict(vars(Settings))
    try:
        fast, out = compiled_once(fn, x, backend=backend)
        assert_same(out, fn(x))
        Settings.lr = 0.5
        assert_same(fast(x), fn(x))
        Settings.width = np.float32(-3.0)
        Settings.act = staticmethod(np.sin)
        assert_same(fast(x), fn(x))
        assert any("lr" in r or "width" in r or "act" in r for r in recompile_reasons())
    finally:
        for name in ("lr", "width", "act"):
            setattr(Settings, name, saved[name])


class AnswersEverything:
    """A proxy whose `__getattr__` answers every name, ember's own markers included."""

    def __getattr__(self, name):
        return 7.0


proxy = AnswersEverything()


def _reads_proxy(x):
    return x * proxy.scale


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
def test_an_object_answering_every_attribute_is_an_ordinary_object(backend):
    x = np.arange(4.0)
    fast, out = compiled_once(_reads_proxy, x, backend=backend)
    assert_same(out, _reads_proxy(x))
    AnswersEverything.__getattr__ = lambda self, name: 9.0
    try:
        assert_same(fast(x), _reads_proxy(x))
    finally:
        AnswersEverything.__getattr__ = lambda self, name: 7.0
