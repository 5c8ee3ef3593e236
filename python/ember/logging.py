"""EMBER_LOGS: what ember logs, by channel, like TORCH_LOGS.

Channels: `graph` (IR of each captured graph), `guards` (guard tree of each entry),
`recompiles` (why a code object was compiled again), `breaks` (graph-break reasons with the
user's file:line), `code` (the generated entry source), `backend` (graphs a backend could not
compile, with the reason), `aot` (joint graphs of `ember.grad` and friends: the cut, both
graphs, residual bytes), `clif` (each Cranelift function a graph compiles to: its IR after
Cranelift's optimisations and its machine code; the graph is compiled once more to list
them). Set `EMBER_LOGS=graph,guards` or call
`ember.logging.set_logs("graph", "breaks")`. Messages go to the standard `logging` logger
`ember.<channel>`; a stderr handler is attached the first time a channel is enabled.
"""

from __future__ import annotations

import logging as _logging

from ember.config import config

CHANNELS = ("graph", "guards", "recompiles", "breaks", "code", "backend", "aot", "clif")

_root = _logging.getLogger("ember")


def _ensure_handler() -> None:
    if not _root.handlers:
        handler = _logging.StreamHandler()
        handler.setFormatter(_logging.Formatter("[ember.%(channel)s] %(message)s"))
        _root.addHandler(handler)
        _root.propagate = False


def set_logs(*channels: str) -> None:
    """Enable exactly these channels (`set_logs()` turns logging off)."""
    unknown = [c for c in channels if c not in CHANNELS and c != "all"]
    if unknown:
        raise ValueError(f"unknown ember log channel(s) {unknown}; choose from {list(CHANNELS)}")
    config.logs = frozenset(CHANNELS if "all" in channels else channels)


def enabled(channel: str) -> bool:
    return channel in config.logs or "all" in config.logs


def log(channel: str, message: str) -> None:
    """Log `message` on `channel` when it is enabled (cheap when it is not)."""
    if not enabled(channel):
        return
    _ensure_handler()
    logger = _root.getChild(channel)
    logger.setLevel(_logging.INFO)
    logger.info(message, extra={"channel": channel})
