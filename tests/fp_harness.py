"""Running a function plainly and compiled under the same `np.errstate`, recording the
RuntimeWarnings, FloatingPointErrors and errstate handler calls each gives."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import ember
import numpy as np
from conftest import assert_same


def observe(fn: Callable[..., Any], args: tuple[Any, ...], **errstate: Any) -> tuple[Any, list]:
    """`(result or the exception raised, [(category, message), ...])` of `fn(*args)` under
    `np.errstate(**errstate)`, with every warning recorded (none filtered as repeated)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with np.errstate(**errstate):
            try:
                result = fn(*args)
            except FloatingPointError as exc:
                result = exc
    return result, [(w.category, str(w.message)) for w in caught]


def assert_same_fp_behaviour(fn: Callable[..., Any], args: tuple[Any, ...], backend: str,
                             **errstate: Any) -> None:
    """The compiled `fn` gives NumPy's result, warnings and errors under `errstate`."""
    copies = tuple(np.copy(a) if isinstance(a, np.ndarray) else a for a in args)
    expected, expected_warnings = observe(fn, copies, **errstate)
    got, got_warnings = observe(ember.compile(fn, backend=backend), args, **errstate)
    assert sorted(got_warnings, key=str) == sorted(expected_warnings, key=str)
    if isinstance(expected, FloatingPointError):
        assert isinstance(got, FloatingPointError), got
        assert str(got) == str(expected)
        return
    assert not isinstance(got, Exception), got
    f32 = any(getattr(v, "dtype", None) == np.float32
              for v in (expected if isinstance(expected, tuple) else (expected,)))
    assert_same(got, expected, rtol=2e-6 if f32 else 1e-12, atol=0)
