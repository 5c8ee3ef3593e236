"""The frame hook is off while the cyclic garbage collector runs.

Callbacks in `gc.callbacks` and finalizers of collected cycles run whenever an allocation
happens to trigger a collection, wherever that is: inside a compiled function they would be
handed to the converter as if the function had called them (and, under `fullgraph=True`,
fail inside the collector). They are not part of the function, so they run as plain Python.

`_on_collect` sits first in `gc.callbacks`, so it runs before every other callback at
"start". At "stop" it appends `_restore` to the list the collector is iterating (by index,
over the live list), so the hook comes back on only after the last callback has run.
"""

from __future__ import annotations

import gc
import threading
from typing import Any


class _Paused(threading.local):
    # This thread's enable token from before the collection (None: not paused).
    previous: int | None = None


_paused = _Paused()
# `_core.enable`, bound by `install`: at interpreter shutdown a collection may run after
# modules are torn down, when importing ember again would fail.
_enable: Any = None


def _on_collect(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        if _paused.previous is None:
            _paused.previous = _enable(False)
    elif _paused.previous is not None and _restore not in gc.callbacks:
        gc.callbacks.append(_restore)


def _restore(phase: str, info: dict[str, Any]) -> None:
    if phase != "stop":
        return
    gc.callbacks.remove(_restore)
    previous, _paused.previous = _paused.previous, None
    if previous is not None:
        _enable(previous)


class _State:
    # Whether `_on_collect` was put in `gc.callbacks` (and not removed by `uninstall` since):
    # compiled functions check it on each call, as `ember.reset` takes it out.
    installed = False


state = _State()


def install() -> None:
    """Put the pause first in `gc.callbacks` (again, if something was inserted before it)."""
    global _enable
    from ember import _core

    _enable = _core.enable
    state.installed = True
    callbacks = gc.callbacks
    if callbacks and callbacks[0] is _on_collect:
        return
    while _on_collect in callbacks:
        callbacks.remove(_on_collect)
    callbacks.insert(0, _on_collect)


def uninstall() -> None:
    """Take the pause out of `gc.callbacks` (part of `ember.reset`)."""
    state.installed = False
    while _on_collect in gc.callbacks:
        gc.callbacks.remove(_on_collect)
