"""`CodeMap`: what capture remembers per code object, keyed by the code's identity and
dropped when the code dies.

Not a `weakref.WeakKeyDictionary`: code objects compare *equal* when their bytecode, names
and constants are (one source `exec`'d twice, whatever the file name), and such codes are
distinct functions with their own globals, entries and resume functions.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from types import CodeType
from typing import Generic, TypeVar

V = TypeVar("V")


class CodeMap(Generic[V]):
    """A mapping from code objects (by identity, held weakly) to values."""

    def __init__(self) -> None:
        self._items: dict[int, tuple[weakref.ref, V]] = {}

    def get(self, code: CodeType, default: V | None = None) -> V | None:
        found = self._items.get(id(code))
        if found is None or found[0]() is not code:
            return default
        return found[1]

    def __setitem__(self, code: CodeType, value: V) -> None:
        key, items = id(code), self._items
        # The callback runs as the code dies, before its id can be reused; it takes no lock,
        # as it may run at any allocation.
        items[key] = (weakref.ref(code, lambda _, key=key: items.pop(key, None)), value)

    def setdefault(self, code: CodeType, value: V) -> V:
        found = self.get(code)
        if found is None:
            self[code] = found = value
        return found

    def pop(self, code: CodeType, default: V | None = None) -> V | None:
        found = self.get(code)
        if found is None:
            return default
        del self._items[id(code)]
        return found

    def clear(self) -> None:
        self._items.clear()

    def __len__(self) -> int:
        return len(self._items)

    def values(self) -> Iterator[V]:
        return iter([value for _, value in self._items.values()])
