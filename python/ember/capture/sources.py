"""Sources: where a value captured from the frame came from.

A source gives the guard path (root accessor + child accessors of the guard tree in
`ember._core`), a readable name for messages (`L['x']`, `G['np'].pi`, `L['self'].w`) and the
Python expression that reloads the value in a generated entry (or, later, residual bytecode).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


class Embedder(Protocol):
    """What a source needs from the code generator: names for the frame's globals dict and
    for objects embedded by identity."""

    def globals_name(self) -> str: ...
    def builtins_name(self) -> str: ...
    def embed(self, obj: Any, hint: str) -> str: ...
    def local_name(self, index: int) -> str: ...
    def function_name(self) -> str: ...


class Source:
    """Base class; concrete sources are frozen dataclasses (hashable, compared by value)."""

    def name(self) -> str:
        raise NotImplementedError

    def accessors(self) -> tuple[tuple, ...]:
        """The guard-tree path: a root accessor then child accessors."""
        raise NotImplementedError

    def reload(self, emb: Embedder) -> str:
        raise NotImplementedError

    def root(self) -> Source:
        return self

    def __str__(self) -> str:
        return self.name()


@dataclass(frozen=True)
class LocalSource(Source):
    """An argument slot of the frame (`localsplus[index]`)."""

    local: str
    index: int

    def name(self) -> str:
        return f"L[{self.local!r}]"

    def accessors(self) -> tuple[tuple, ...]:
        return (("local", self.index),)

    def reload(self, emb: Embedder) -> str:
        return emb.local_name(self.index)


@dataclass(frozen=True)
class GlobalSource(Source):
    """A name in the frame's globals."""

    global_name: str

    def name(self) -> str:
        return f"G[{self.global_name!r}]"

    def accessors(self) -> tuple[tuple, ...]:
        return (("global", self.global_name),)

    def reload(self, emb: Embedder) -> str:
        return f"{emb.globals_name()}[{self.global_name!r}]"


@dataclass(frozen=True)
class BuiltinSource(Source):
    """A name in the frame's builtins."""

    builtin_name: str

    def name(self) -> str:
        return f"B[{self.builtin_name!r}]"

    def accessors(self) -> tuple[tuple, ...]:
        return (("builtin", self.builtin_name),)

    def reload(self, emb: Embedder) -> str:
        return f"{emb.builtins_name()}[{self.builtin_name!r}]"


@dataclass(frozen=True)
class GlobalsDictSource(Source):
    """The frame's globals dict itself (guarded by identity, and for names it must lack)."""

    def name(self) -> str:
        return "G"

    def accessors(self) -> tuple[tuple, ...]:
        return (("globals_dict", None),)

    def reload(self, emb: Embedder) -> str:
        return emb.globals_name()


@dataclass(frozen=True)
class BuiltinsDictSource(Source):
    """The frame's builtins dict itself."""

    def name(self) -> str:
        return "B"

    def accessors(self) -> tuple[tuple, ...]:
        return (("builtins_dict", None),)

    def reload(self, emb: Embedder) -> str:
        return emb.builtins_name()


@dataclass(frozen=True)
class ClosureSource(Source):
    """The contents of cell `index` of the frame function's `__closure__`.

    Entries are shared by every function object of one code, so an entry that reloads a cell
    is handed the frame's function (`Embedder.function_name`). `value` is the contents seen
    at capture, for messages."""

    cell_name: str
    index: int
    value: Any = None

    def name(self) -> str:
        return f"C[{self.cell_name!r}]"

    def accessors(self) -> tuple[tuple, ...]:
        return (("closure", self.index),)

    def reload(self, emb: Embedder) -> str:
        return f"{emb.function_name()}.__closure__[{self.index}].cell_contents"

    def __hash__(self) -> int:
        return hash((ClosureSource, self.cell_name, self.index))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ClosureSource)
            and (other.cell_name, other.index) == (self.cell_name, self.index)
        )


@dataclass(frozen=True)
class AttrSource(Source):
    """`base.attr`."""

    base: Source
    attr: str

    def name(self) -> str:
        return f"{self.base.name()}.{self.attr}"

    def accessors(self) -> tuple[tuple, ...]:
        return (*self.base.accessors(), ("attr", self.attr))

    def reload(self, emb: Embedder) -> str:
        return f"{self.base.reload(emb)}.{self.attr}"

    def root(self) -> Source:
        return self.base.root()


@dataclass(frozen=True)
class ItemSource(Source):
    """`base[key]` for a constant index or key."""

    base: Source
    key: Any

    def name(self) -> str:
        return f"{self.base.name()}[{self.key!r}]"

    def accessors(self) -> tuple[tuple, ...]:
        return (*self.base.accessors(), ("item", self.key))

    def reload(self, emb: Embedder) -> str:
        return f"{self.base.reload(emb)}[{self.key!r}]"

    def root(self) -> Source:
        return self.base.root()


class StableGlobals(Source):
    """The globals of a function of NumPy's own (inlined where ember has no handler for it):
    read as constants, unguarded, as the attributes of `np` are (the NumPy function called
    is what is guarded)."""

    def name(self) -> str:
        return "<NumPy's globals>"

    def accessors(self) -> tuple[tuple, ...]:
        raise AssertionError("NumPy's globals are read as constants, never guarded")


STABLE_GLOBALS = StableGlobals()


def globals_dict(globals_source: Source | None) -> Source:
    """The source of a function's globals dict (None: the frame's own)."""
    return GlobalsDictSource() if globals_source is None else globals_source


def globals_item(globals_source: Source | None, name: str) -> Source:
    """The source of global `name` for a function whose globals dict is `globals_source`
    (None: the frame's own globals)."""
    if globals_source is None:
        return GlobalSource(name)
    return ItemSource(globals_source, name)
