"""Continuations, and the other runtime objects of graph breaks.

Continuations are what a step function hands back instead of calling the resume function.

A step stub returns ``Continuation(resume_code, closure, values)``. The entry of the frame
that started the chain (the user's function, never a resume function) runs the trampoline:
it builds the resume function and calls it (the frame hook intercepts it and runs its own
compiled entry), and repeats while what comes back is another continuation. Entries of
resume functions return their step's continuation as it is, to that trampoline. So a loop
that breaks on every iteration runs in constant Python stack depth.

A resume function the hook leaves alone (not compiled, or run as plain Python) simply returns
the frame's result, which ends the chain.
"""

from __future__ import annotations

from typing import Any

from ember import _core

# `Continuation(resume_code, closure, *values)`: call `resume_code` (with `closure`, a tuple
# of cells or None) on `values` to go on with the frame; step stubs build one directly (a
# constant of every step). `trampoline(result, fn_globals)` follows continuations until a
# frame returns a plain result, making each resume function in `fn_globals` per trip (a cache
# of them would keep their globals, and so the user's functions, alive). Both native
# (`rust/py/src/continuation.rs`): a break runs no Python frame of ember's own for them.
Continuation = _core.Continuation
make_continuation = Continuation
trampoline = _core.trampoline


class ResumableIterator:
    """An iterator capture built (a loop's, a `zip`'s), handed on at a graph break: its items
    and position are plain attributes, so the resume function's capture reads them without
    consuming anything, and writes the position back when it consumed items."""

    __slots__ = ("index", "items")

    def __init__(self, items: tuple[Any, ...], index: int = 0) -> None:
        self.items = items
        self.index = index

    def __iter__(self) -> ResumableIterator:
        return self

    def __next__(self) -> Any:
        i = self.index
        if i >= len(self.items):
            raise StopIteration
        self.index = i + 1
        return self.items[i]

    def __length_hint__(self) -> int:
        return len(self.items) - self.index
