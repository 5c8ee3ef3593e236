"""Differential checks of whole compiled functions against NumPy, for the ops lowered to loop
nests (gathers, scatters, sorting, counting): results, mutated arguments and exceptions must
be NumPy's, on the eager and the Cranelift backends, and the function must compile to one
graph without a break (so the check cannot pass by running NumPy)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
import warnings

import ember
import numpy as np
from conftest import RecordingBackend, assert_same

BACKENDS = ("eager", "cranelift")


def fresh(args: tuple[Any, ...]) -> list[Any]:
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def run_numpy(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[Any, list[Any], Any]:
    inputs = fresh(args)
    try:
        return fn(*inputs), inputs, None
    except Exception as exc:  # noqa: BLE001 (the compiled function must raise the same)
        return None, inputs, exc


def floating_point_warnings(fn: Callable[..., Any], *args: Any) -> tuple[Any, set[str]]:
    """`fn(*args)` and the texts of the RuntimeWarnings it gave, every one recorded."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(*args)
    return result, {str(w.message) for w in caught if w.category is RuntimeWarning}


def check(fn: Callable[..., Any], *args: Any, backend: str = "cranelift",
          rtol: float = 1e-6, ops: tuple[str, ...] = ("loop",)) -> RecordingBackend:
    """Compile `fn` and call it twice: results and arguments afterwards equal NumPy's, and
    the first call captured one graph holding `ops`. Where NumPy raises, the compiled
    function raises the same type and message. The compiled calls give NumPy's
    floating-point warnings, and re-run with NumPy only where NumPy warns: NaN and infinite
    data that NumPy handles quietly must stay native."""
    (want, want_inputs, error), warned = floating_point_warnings(run_numpy, fn, args)
    recorder = RecordingBackend(backend)
    compiled = ember.compile(fn, backend=recorder)
    for _ in range(2):
        inputs = fresh(args)
        if error is not None:
            try:
                compiled(*inputs)
            except type(error) as exc:
                assert str(exc) == str(error)
            else:
                raise AssertionError(f"no {type(error).__name__}: {error}")
            continue
        reruns = ember.stats()["fp_reruns"]
        got, got_warned = floating_point_warnings(compiled, *inputs)
        assert_same(got, want, rtol=rtol)
        assert got_warned == warned, (got_warned, warned)
        if backend == "cranelift" and not warned:
            assert ember.stats()["fp_reruns"] == reruns, "a rerun with NumPy where it warns of nothing"
        for got, expected in zip(inputs, want_inputs, strict=True):
            if isinstance(expected, np.ndarray):
                np.testing.assert_array_equal(got, expected)
    if error is None:
        stats = ember.stats()
        assert stats["graph_breaks"] == 0, stats["break_reasons"]
        assert len(recorder.graphs) == 1
        assert stats["entry_fallbacks"] == 0
        assert not stats["backend_fallbacks"], stats["backend_fallbacks"]  # native, not eager
        for op in ops:
            assert op in recorder.ops(0), recorder.ops(0)
    return recorder

