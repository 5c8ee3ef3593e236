"""What a program does under plain NumPy and compiled, as one comparable record: its result
(repr, so dtype, shape, scalar type and values down to the last digit), the exception it
raised, the warnings it gave (category and message) and its arguments afterwards."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable
from typing import Any

import ember
import numpy as np


def outcome(fn: Callable[..., Any], args: tuple[Any, ...],
            context: Callable[[], Any] = contextlib.nullcontext) -> tuple:
    inputs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with context():
                result = repr(fn(*inputs))
        except Exception as exc:  # noqa: BLE001 -- the compiled program must raise the same
            result = f"raised {type(exc).__name__}: {exc}"
    messages = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
    return result, messages, [repr(a) for a in inputs]


def assert_behaves_as_numpy(fn: Callable[..., Any], *args: Any,
                            context: Callable[[], Any] = contextlib.nullcontext,
                            calls: int = 2, compiled_code: bool = True) -> None:
    """`fn` compiled gives NumPy's outcome on every one of `calls` calls, and, where it
    takes arrays, NumPy did not raise and `compiled_code`, ran compiled code (a graph, no
    entry fallback). `compiled_code=False` is for programs that break the graph by design
    (a `warnings` filter set inside, an empty mean that NumPy warns about)."""
    want = outcome(fn, args, context)
    ember.reset()
    compiled = ember.compile(fn)
    for call in range(calls):
        got = outcome(compiled, args, context)
        assert got == want, f"call {call}:\n  compiled {got}\n  NumPy    {want}"
    stats = ember.stats()
    takes_arrays = any(isinstance(a, np.ndarray) and a.ndim for a in args)
    if compiled_code and takes_arrays and not want[0].startswith("raised "):
        assert stats["compiles"] >= 1, stats
        assert stats["entry_fallbacks"] == 0, stats
