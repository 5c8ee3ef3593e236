"""The identity checks of `ember._core`'s guard trees: ADDRESS_MATCH, DICT_LACKS,
MODULE_ATTR_IS, the globals/builtins root accessors, and ID_MATCH/TYPE_MATCH holding
functions, classes and modules weakly (a guard tree must never keep user code alive)."""

import gc
import sys
import types
import weakref

import numpy as np
from ember import _core as core

CONSTANT = 1.0


def reads_globals(x):
    return x * CONSTANT


def tree_on_globals(*checks):
    return [(("globals_dict", None), list(checks), [])]


def test_globals_and_builtins_dicts_by_address_without_keeping_them():
    globals_dict = reads_globals.__globals__
    refs = sys.getrefcount(globals_dict)
    tree = tree_on_globals(("ADDRESS_MATCH", globals_dict))
    assert core.check_guards(tree, reads_globals, (1,))
    other = types.FunctionType(reads_globals.__code__, {"CONSTANT": 1.0}, "reads_globals")
    assert not core.check_guards(tree, other, (1,))
    builtins_tree = [(("builtins_dict", None), [("ADDRESS_MATCH", reads_globals.__builtins__)],
                      [])]
    assert core.check_guards(builtins_tree, reads_globals, (1,))
    assert core.check_guards(builtins_tree, other, (1,))  # same builtins module dict
    del tree, builtins_tree
    assert sys.getrefcount(globals_dict) == refs


def test_dict_lacks():
    namespace = {"CONSTANT": 1.0}
    fn = types.FunctionType(reads_globals.__code__, namespace, "f")
    tree = tree_on_globals(("DICT_LACKS", "len"))
    assert core.check_guards(tree, fn, (1,))
    namespace["len"] = len
    assert not core.check_guards(tree, fn, (1,))
    del namespace["len"]
    assert core.check_guards(tree, fn, (1,))
    on_local = [(("local", 0), [("DICT_LACKS", "a")], [])]
    assert core.check_guards(on_local, fn, ({"b": 1},))
    assert not core.check_guards(on_local, fn, ({"a": 1},))
    assert not core.check_guards(on_local, fn, ([],))  # not a dict


def test_module_attr_is():
    module = types.ModuleType("ember_guard_probe")
    module.f = np.sqrt
    module.pi = 3.14
    tree = [(("local", 0), [("MODULE_ATTR_IS", "f", np.sqrt), ("MODULE_ATTR_IS", "pi",
                                                                 module.pi)], [])]
    assert core.check_guards(tree, reads_globals, (module,))
    module.pi = 3.0
    assert not core.check_guards(tree, reads_globals, (module,))
    module.pi = tree[0][1][1][2]
    del module.f
    assert not core.check_guards(tree, reads_globals, (module,))
    assert not core.check_guards(tree, reads_globals, (object(),))  # not a module


def probe(a, b):
    return "plain"


def _run_probe_through_the_hook():
    """Stores a guard tree on `probe`'s code through the frame hook, as entries are stored,
    and returns weak references to the function and class it names."""
    namespace: dict = {}
    exec("def helper(x):\n    return x\nclass Thing:\n    pass\n", namespace)  # noqa: S102
    helper, thing = namespace["helper"], namespace["Thing"]
    guards = [(("local", 0), [("ID_MATCH", helper)], []),
              (("local", 1), [("TYPE_MATCH", thing)], [])]
    assert core.check_guards(guards, probe, (helper, thing()))
    calls = []

    def entry(*args):
        calls.append(len(args))
        return "entry"

    def converter(func, args):
        first = func is probe and core.cache_size(probe.__code__) == 0
        return (guards, entry) if first else None

    previous = core.set_callback(converter)
    before = core.enable(True)
    try:
        assert probe(helper, thing()) == "entry"
        assert probe(helper, thing()) == "entry"  # a cache hit: the guards passed
        assert probe(helper, object()) == "plain"  # TYPE_MATCH fails; converter declines
    finally:
        core.enable(before)
        core.set_callback(previous)
    assert len(calls) == 2 and core.cache_size(probe.__code__) == 1
    return weakref.ref(helper), weakref.ref(thing)


def test_identity_checks_hold_user_code_weakly():
    dead_helper, dead_thing = _run_probe_through_the_hook()
    gc.collect()
    assert dead_helper() is None and dead_thing() is None  # the stored entry kept neither
    core.clear_cache(probe.__code__)
