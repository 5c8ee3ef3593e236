"""Running NumPy for ember's own purposes (a dtype rule, a cast of a constant) silently.

`warnings.catch_warnings` would do, but entering and leaving it marks the warning filters
changed, and that empties every module's registry of warnings already shown: a user's
warning shown once under the default filter would show again after each capture. An
"ignore" filter put in front of the list and taken out again leaves the registries alone.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np


@contextmanager
def quiet() -> Iterator[None]:
    """NumPy's floating-point errors and every Python warning silenced inside."""
    with np.errstate(all="ignore"), no_warnings():
        yield


@contextmanager
def no_warnings() -> Iterator[None]:
    """Every Python warning silenced inside (NumPy's errstate left as it is)."""
    entry = ("ignore", None, Warning, None, 0)
    warnings.filters.insert(0, entry)
    try:
        yield
    finally:
        for i, item in enumerate(warnings.filters):
            if item is entry:
                del warnings.filters[i]
                break
