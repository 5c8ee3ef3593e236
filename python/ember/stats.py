"""Counters for `ember.stats()`: frames, cache hits and misses, compiles, recompiles with
reasons, graph breaks and compile time per stage. `reset()` clears them."""

from __future__ import annotations

import threading
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Stats:
    """Python-side counters; the frame hook's own counters are merged in by `snapshot`."""

    captures: int = 0
    compiles: int = 0
    recompiles: list[tuple[str, str]] = field(default_factory=list)  # (function, reason)
    breaks: Counter = field(default_factory=Counter)  # reason -> count
    failed_frames: int = 0
    stage_seconds: Counter = field(default_factory=Counter)  # stage -> seconds
    recompile_limit_hits: int = 0
    entry_fallbacks: int = 0  # a compiled graph raised and the frame re-ran as Python
    backend_fallbacks: Counter = field(default_factory=Counter)  # reason -> graphs run eagerly
    fp_reruns: int = 0  # native runs that raised a flag: re-ran with NumPy (or the frame as Python)
    region_recaptures: int = 0  # loop graphs native code refused, captured again without loops
    # Runs of a frame's bytecode by capture, those thrown away included (a loop refused as
    # a loop op, or unrolled past its budget, starts the frame again), and the ops they built.
    capture_attempts: int = 0
    traced_ops: int = 0
    # Entries kept in the cache directory (`capture/stored.py`): restored without capture,
    # written, and found but not used (damaged, stale, or guards that fail in this process);
    # restored with the Cranelift backend's IR text and output orders read from the file.
    stored_hits: int = 0
    stored_prepared: int = 0
    stored_writes: int = 0
    stored_rejected: int = 0


_lock = threading.Lock()
_stats = Stats()


def clear() -> None:
    global _stats
    with _lock:
        _stats = Stats()


def count(name: str, n: int = 1) -> None:
    with _lock:
        setattr(_stats, name, getattr(_stats, name) + n)


# Set on the thread when a graph's floating-point rerun has its entry run the frame as
# Python (`errors.RunFrameAsPython`): that fallback is counted in `fp_reruns` already.
_fp_fallback = threading.local()


def expect_fp_fallback() -> None:
    _fp_fallback.pending = True


def count_entry_fallback() -> None:
    """A frame's entry runs it as Python: an `entry_fallbacks`, unless a floating-point
    rerun asked for it."""
    if getattr(_fp_fallback, "pending", False):
        _fp_fallback.pending = False
        return
    count("entry_fallbacks")


def record_break(reason: str, *, failed_frame: bool = True) -> None:
    """A graph break; `failed_frame`: the whole frame runs as plain Python because of it."""
    with _lock:
        _stats.breaks[reason] += 1
        _stats.failed_frames += failed_frame


def record_backend_fallback(reason: str) -> None:
    """A backend could not compile a graph and runs it with the eager backend instead."""
    with _lock:
        _stats.backend_fallbacks[reason] += 1


def record_recompile(function: str, reason: str) -> None:
    with _lock:
        _stats.recompiles.append((function, reason))


@contextmanager
def stage(name: str):
    """Time one compile stage (`bytecode`, `capture`, `guards`, `backend`, `codegen`)."""
    start = time.perf_counter()
    try:
        yield
    finally:
        elapsed = time.perf_counter() - start
        with _lock:
            _stats.stage_seconds[name] += elapsed


def snapshot(hook: dict[str, int] | None) -> dict[str, object]:
    """A plain dict of every counter (`ember.stats()`)."""
    with _lock:
        s = _stats
        out: dict[str, object] = {
            "frames_seen": 0,
            "frames_skipped": 0,
            "cache_hits": 0,
            "cache_misses": 0,
            "guard_failures": 0,
            "native_calls": 0,
            "hook_direct_calls": 0,
        }
        out.update(hook or {})
        out.update(
            {
                "captures": s.captures,
                "compiles": s.compiles,
                "recompiles": len(s.recompiles),
                "recompile_reasons": list(s.recompiles),
                "graph_breaks": sum(s.breaks.values()),
                "break_reasons": dict(s.breaks),
                "failed_frames": s.failed_frames,
                "recompile_limit_hits": s.recompile_limit_hits,
                "entry_fallbacks": s.entry_fallbacks,
                "backend_fallbacks": dict(s.backend_fallbacks),
                "fp_reruns": s.fp_reruns,
                "region_recaptures": s.region_recaptures,
                "capture_attempts": s.capture_attempts,
                "traced_ops": s.traced_ops,
                "stored_hits": s.stored_hits,
                "stored_writes": s.stored_writes,
                "stored_rejected": s.stored_rejected,
                "stored_prepared": s.stored_prepared,
                "compile_time": {k: round(v, 6) for k, v in s.stage_seconds.items()},
            }
        )
        return out
