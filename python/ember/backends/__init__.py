"""Backends: what turns a captured graph into something callable, like Dynamo's.

A backend is `backend(graph, example_inputs) -> callable`, where the callable takes the graph
inputs as arrays and returns a tuple with one ndarray per graph output. Named backends:
`"eager"` (the graph run op by op with NumPy, the reference) and `"cranelift"` (the Rust core,
once built); any callable with that signature may be passed instead of a name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

from ember.graph import Graph

Backend = Callable[[Graph, Sequence[Any]], Callable[..., tuple[Any, ...]]]

# name -> (module, attribute) of a backend loaded on first use, so that importing ember does
# not import every backend (the Cranelift one needs the native module).
_BUILTIN: dict[str, tuple[str, str]] = {
    "eager": ("ember.backends.eager", "compile"),
    "cranelift": ("ember.backends.cranelift", "compile"),
}
_registered: dict[str, Backend] = {}


def register_backend(name: str, backend: Backend | None = None) -> Any:
    """Register `backend` under `name`; usable as a decorator (`@register_backend("mine")`)."""

    def register(fn: Backend) -> Backend:
        _registered[name] = fn
        return fn

    return register(backend) if backend is not None else register


def list_backends() -> list[str]:
    return sorted(set(_BUILTIN) | set(_registered))


def lookup_backend(backend: str | Backend) -> Backend:
    """The backend callable for a name or a callable."""
    if callable(backend):
        return backend
    if backend in _registered:
        return _registered[backend]
    if backend in _BUILTIN:
        module_name, attr = _BUILTIN[backend]
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ValueError(f"backend {backend!r} is not available: {exc}") from exc
        return getattr(module, attr)
    raise ValueError(f"unknown backend {backend!r}; choose from {list_backends()} or pass a "
                     "callable backend(graph, example_inputs)")


def runs_loop_ops(backend: str | Backend | None) -> bool:
    """Whether a backend runs IR version 2 (loop and if ops): the eager backend and any
    callable do; the Cranelift backend when the native core parses version-2 text (a loop
    it would run eagerly is slower than the frame as plain Python)."""
    if getattr(backend, "runs_loop_ops", True) is False:
        return False
    if backend is None or callable(backend) or backend == "eager":
        return True
    if backend == "cranelift":
        from ember.backends.cranelift import parses_version_2

        return parses_version_2()
    return backend in _registered
