"""Running a program compiled and as plain Python, and comparing everything a user sees.

A `Program` is a function, a maker of fresh arguments, and the counts expected of its first
compiled call: graphs compiled and graph breaks. `observe` runs a callable on fresh arguments
and records its result or exception, its printed output, and the arguments afterwards (so
in-place updates and list/dict/attribute mutations are compared too), plus whatever state
the program says it touches (`state`: globals, objects).
"""

from __future__ import annotations

import contextlib
import copy
import io
import types
from collections.abc import Callable
from dataclasses import dataclass, field, is_dataclass
from typing import Any

import ember
import numpy as np
from conftest import RecordingBackend, aliasing


@dataclass
class Program:
    fn: Callable[..., Any]
    make_args: Callable[[], tuple]
    graphs: int  # graphs compiled by the first call
    breaks: int  # graph breaks seen by the first call
    # Captures on a second call with the same kinds of inputs (0: everything cached).
    recaptures: int = 0
    state: Callable[[], Any] | None = None  # extra state to compare (globals, objects)
    reset: Callable[[], None] | None = None  # puts that state back before each run
    rtol: float = 1e-9
    # Frames that run as plain Python by design (a long loop of cheap trips that breaks).
    python_frames: int = 0

    @property
    def name(self) -> str:
        return self.fn.__name__


@dataclass
class Seen:
    value: Any = None
    error: BaseException | None = None
    output: str = ""
    args: Any = None
    state: Any = None
    aliasing: list = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def run_once(fn: Callable[..., Any], make_args: Callable[[], tuple]) -> tuple:
    """`fn` on fresh arguments: (value, exception, printed output, the arguments after)."""
    args = make_args()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            value, error = fn(*args), None
        except Exception as exc:  # noqa: BLE001 - raising is an outcome to compare
            value, error = None, exc
    return value, error, out.getvalue(), args


def observe(program: Program, fn: Callable[..., Any]) -> Seen:
    if program.reset is not None:
        program.reset()
    args = program.make_args()
    seen = Seen()
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            seen.value = fn(*args)
        except Exception as error:  # noqa: BLE001 - raising is an outcome to compare
            seen.error = error
    seen.output = out.getvalue() + err.getvalue()
    seen.aliasing = aliasing(seen.value, args)
    seen.args = snapshot(args)
    seen.state = snapshot(program.state()) if program.state is not None else None
    return seen


def snapshot(value: Any) -> Any:
    """A deep copy for comparison; objects compare by their attributes."""
    if isinstance(value, (list, tuple)):
        return type(value)(snapshot(v) for v in value) if type(value) in (list, tuple) else (
            type(value), [snapshot(v) for v in value])
    if isinstance(value, dict):
        return {k: snapshot(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return value.copy()
    if is_dataclass(value) or hasattr(value, "__dict__") and not isinstance(
            value, (types.FunctionType, type, types.ModuleType)):
        return (type(value), snapshot(dict(vars(value))))
    return copy.copy(value)


def same(a: Any, b: Any, rtol: float, path: str = "") -> list[str]:
    """Differences between two observed values (empty: the same)."""
    if isinstance(b, np.ndarray):
        if not isinstance(a, np.ndarray):
            return [f"{path}: {type(a).__name__}, want ndarray"]
        if a.dtype != b.dtype or a.shape != b.shape:
            return [f"{path}: {a.dtype}{a.shape}, want {b.dtype}{b.shape}"]
        if not np.allclose(a, b, rtol=rtol, atol=1e-12, equal_nan=True):
            return [f"{path}: values {a!r}, want {b!r}"]
        return []
    if isinstance(b, np.generic):
        if type(a) is not type(b):
            return [f"{path}: {type(a).__name__}, want {type(b).__name__}"]
        return same(np.asarray(a), np.asarray(b), rtol, path)
    if isinstance(b, BaseException):
        if type(a) is not type(b) or str(a) != str(b):
            return [f"{path}: raised {a!r}, want {b!r}"]
        return []
    if type(a) is not type(b):
        return [f"{path}: {type(a).__name__} {a!r}, want {type(b).__name__} {b!r}"]
    if isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return [f"{path}: length {len(a)}, want {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in same(x, y, rtol, f"{path}[{i}]")]
    if isinstance(b, dict):
        if list(a) != list(b):
            return [f"{path}: keys {list(a)}, want {list(b)}"]
        return [d for k in b for d in same(a[k], b[k], rtol, f"{path}[{k!r}]")]
    if isinstance(b, float) and isinstance(a, float):
        return [] if np.isclose(a, b, rtol=rtol, atol=1e-12, equal_nan=True) else [
            f"{path}: {a!r}, want {b!r}"]
    return [] if a == b else [f"{path}: {a!r}, want {b!r}"]


def differences(got: Seen, want: Seen, rtol: float) -> list[str]:
    diffs = []
    if want.error is not None or got.error is not None:
        diffs += same(got.error, want.error, rtol, "exception")
    else:
        diffs += same(got.value, want.value, rtol, "result")
    if got.output != want.output:
        diffs.append(f"printed {got.output!r}, want {want.output!r}")
    if got.error is None and want.error is None and got.aliasing != want.aliasing:
        diffs.append(f"aliasing {got.aliasing}, want {want.aliasing}")
    diffs += same(got.args, want.args, rtol, "arguments after the call")
    diffs += same(got.state, want.state, rtol, "state after the call")
    return diffs


def check_program(program: Program, backend: Any = None) -> RecordingBackend:
    """The program compiled (recorded, then run by `backend`, eager by default) behaves as
    plain Python on two calls, with the graph and break counts it declares."""
    want = observe(program, program.fn)
    recorder = RecordingBackend(backend)
    compiled = ember.compile(program.fn, backend=recorder)
    ember.reset()
    first = observe(program, compiled)
    diffs = differences(first, want, program.rtol)
    stats = ember.stats()
    counts = (len(recorder.graphs), stats["graph_breaks"])
    if counts != (program.graphs, program.breaks):
        diffs.append(f"graphs, breaks = {counts}, declared ({program.graphs}, "
                     f"{program.breaks}); breaks: {stats['break_reasons']}")
    if stats["failed_frames"] != program.python_frames:
        diffs.append(f"{stats['failed_frames']} frame(s) ran as plain Python, declared "
                     f"{program.python_frames}: {stats['break_reasons']}")
    captures = stats["captures"]
    second = observe(program, compiled)
    diffs += [f"second call: {d}" for d in differences(second, want, program.rtol)]
    again = ember.stats()["captures"] - captures
    if again != program.recaptures:
        diffs.append(f"second call captured {again} frame(s), declared {program.recaptures}")
    assert not diffs, f"{program.name}:\n  " + "\n  ".join(diffs)
    return recorder
