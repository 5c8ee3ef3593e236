"""Sources: readable names, guard paths and reload expressions agree for every kind."""

from __future__ import annotations

import numpy as np
from ember.capture.sources import (
    AttrSource,
    BuiltinSource,
    ClosureSource,
    GlobalSource,
    ItemSource,
    LocalSource,
    globals_item,
)


class Emb:
    def __init__(self):
        self.embedded = {}

    def globals_name(self):
        return "G"

    def builtins_name(self):
        return "B"

    def local_name(self, index):
        return f"a{index}"

    def embed(self, obj, hint):
        name = f"c{len(self.embedded)}"
        self.embedded[name] = obj
        return name

    def function_name(self):
        return "F"


def test_names_paths_and_reloads():
    emb = Emb()
    self_w = ItemSource(AttrSource(LocalSource("self", 0), "layers"), 2)
    assert self_w.name() == "L['self'].layers[2]"
    assert self_w.accessors() == (("local", 0), ("attr", "layers"), ("item", 2))
    assert self_w.reload(emb) == "a0.layers[2]"
    assert self_w.root() == LocalSource("self", 0)

    pi = AttrSource(GlobalSource("np"), "pi")
    assert (pi.name(), pi.reload(emb)) == ("G['np'].pi", "G['np'].pi")
    assert BuiltinSource("len").accessors() == (("builtin", "len"),)
    assert BuiltinSource("len").reload(emb) == "B['len']"

    contents = np.ones(2)
    cell = ClosureSource("w", 1, contents)
    assert cell.name() == "C['w']" and cell.accessors() == (("closure", 1),)
    # Reloaded through the frame's function: entries serve every closure of a code.
    assert cell.reload(emb) == "F.__closure__[1].cell_contents" and not emb.embedded


def test_sources_are_values_usable_as_keys():
    a = AttrSource(LocalSource("m", 0), "w")
    b = AttrSource(LocalSource("m", 0), "w")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    # A closure source is identified by its cell, not by the contents it recorded.
    assert ClosureSource("k", 0, np.ones(1)) == ClosureSource("k", 0, None)
    assert ItemSource(GlobalSource("d"), 1) != ItemSource(GlobalSource("d"), "1")


def test_globals_of_another_module_read_through_the_function():
    fn = GlobalSource("helper")
    assert globals_item(None, "K") == GlobalSource("K")
    other = globals_item(AttrSource(fn, "__globals__"), "K")
    assert other.name() == "G['helper'].__globals__['K']"
    assert other.accessors() == (("global", "helper"), ("attr", "__globals__"), ("item", "K"))
