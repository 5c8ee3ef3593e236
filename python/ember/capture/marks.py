"""`ember.mark_dynamic` / `ember.mark_static`: per-array statements about which dims vary.

A NumPy array takes no attributes, so marks live in a table keyed by the array's identity and
held by weak reference (an array that dies takes its marks with it). Capture reads them when
the array becomes a graph input (`Tracer.add_array_input`): a dim marked dynamic is symbolic
from the first capture on (unless its size is 0 or 1, which always specialise), a dim marked
static never becomes symbolic, not even under `dynamic=True` or after a shape change.
`dynamic=False` ignores marks: it always specialises. `ember.reset()` clears the table.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable

import numpy as np

from ember.graph.shapes import normalize_axis

_lock = threading.Lock()
# id(array) -> (weak reference to the array, {dim: True for dynamic, False for static}).
_marks: dict[int, tuple[weakref.ref, dict[int, bool]]] = {}


def _dims(x: np.ndarray, dim: int | Iterable[int] | None, what: str) -> list[int]:
    if type(x) is not np.ndarray:
        raise TypeError(f"{what} takes a numpy.ndarray, got {type(x).__name__}")
    if dim is None:
        return list(range(x.ndim))
    items = [dim] if isinstance(dim, (int, np.integer)) else list(dim)
    return [normalize_axis(d, x.ndim, "dim") for d in items]


def _mark(x: np.ndarray, dims: list[int], dynamic: bool) -> None:
    key = id(x)
    with _lock:
        found = _marks.get(key)
        if found is None or found[0]() is not x:
            ref = weakref.ref(x, lambda _, key=key: _marks.pop(key, None))
            found = _marks[key] = (ref, {})
        found[1].update(dict.fromkeys(dims, dynamic))


def mark_dynamic(x: np.ndarray, dim: int | Iterable[int]) -> None:
    """Compile the functions `x` is passed to with dim `dim` (an int or several) of symbolic
    size from the first call on, instead of waiting for a second size to be seen. A dim whose
    size is 0 or 1 is still specialised (those sizes change broadcasting and emptiness)."""
    _mark(x, _dims(x, dim, "mark_dynamic"), True)


def mark_static(x: np.ndarray, dim: int | Iterable[int] | None = None) -> None:
    """Never make dim `dim` of `x` (all dims when None) symbolic: each new size of it compiles
    its own entry, even under `dynamic=True` or after a shape change."""
    _mark(x, _dims(x, dim, "mark_static"), False)


def marked_dims(x: np.ndarray) -> dict[int, bool]:
    """The marks of `x`: dim -> True (dynamic) or False (static); empty when unmarked."""
    with _lock:
        found = _marks.get(id(x))
        if found is None or found[0]() is not x:
            return {}
        return dict(found[1])


def clear() -> None:
    """Forget every mark (part of `ember.reset`)."""
    with _lock:
        _marks.clear()
