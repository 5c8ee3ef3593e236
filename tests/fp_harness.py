"""Running a function plainly and compiled under the same `np.errstate`, recording the
RuntimeWarnings, FloatingPointErrors and errstate handler calls each gives."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Any

import ember
import numpy as np
from conftest import assert_same


def observe(fn: Callable[..., Any], args: tuple[Any, ...], **errstate: Any) -> tuple[Any, list]:
    """`(result or the exception raised, [(category, message, file, line), ...])` of
    `fn(*args)` under `np.errstate(**errstate)`, with every warning recorded (none filtered as
    repeated). NumPy's warnings name the line of the user's code that called the ufunc; a
    compiled function's must name the same line."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with np.errstate(**errstate):
            try:
                result = fn(*args)
            except FloatingPointError as exc:
                result = exc
    return result, [(w.category, str(w.message), *_site(w.filename, w.lineno)) for w in caught]


def _site(filename: str, lineno: int) -> tuple[str, int]:
    """Where a warning points. NumPy's functions written in Python (`np.sum`, `x.mean()`)
    warn from their own lines, which depend on the spelling the user chose: any line of NumPy
    counts as the same place."""
    if filename.startswith(_NUMPY_DIR):
        return "<numpy>", 0
    return filename, lineno


_NUMPY_DIR = os.path.dirname(np.__file__)


def assert_same_fp_behaviour(fn: Callable[..., Any], args: tuple[Any, ...], backend: str,
                             **errstate: Any) -> None:
    """The compiled `fn` gives NumPy's result, warnings and errors under `errstate`."""
    copies = tuple(np.copy(a) if isinstance(a, np.ndarray) else a for a in args)
    expected, expected_warnings = observe(fn, copies, **errstate)
    got, got_warnings = observe(ember.compile(fn, backend=backend), args, **errstate)
    assert sorted(got_warnings, key=str) == sorted(expected_warnings, key=str), (got_warnings, expected_warnings)
    if isinstance(expected, FloatingPointError):
        assert isinstance(got, FloatingPointError), got
        assert str(got) == str(expected)
        return
    assert not isinstance(got, Exception), got
    f32 = any(getattr(v, "dtype", None) == np.float32
              for v in (expected if isinstance(expected, tuple) else (expected,)))
    assert_same(got, expected, rtol=2e-6 if f32 else 1e-12, atol=0)
