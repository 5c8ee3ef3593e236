"""The public API: `compile`, `disable`, `reset`, `explain`, `stats`."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from ember import gc_pause
from ember import stats as _stats
from ember.backends import lookup_backend
from ember.capture import policy
from ember.capture.resume import resume_origin, trampoline
from ember.explain import ExplainReport

_hook_baseline: dict[str, int] = {}


def _core():
    from ember import _core as core

    return core


def _install() -> None:
    """Register ember's converter with the frame hook (again: something else may have set
    another callback since), and pause the hook while the garbage collector runs."""
    _core().set_callback(policy.on_cache_miss)
    gc_pause.install()


def compile(fn: Callable | None = None, *, backend: Any = "cranelift", fullgraph: bool = False,
            dynamic: bool | None = None, options: dict[str, Any] | None = None) -> Any:
    """Compile `fn` with ember: its frames (and the frames of the functions it calls that
    cannot be inlined) are captured into graphs run by `backend` when first called.

    `backend`: a registered name (`"eager"`, `"cranelift"`) or `backend(graph,
    example_inputs) -> callable`. `fullgraph=True` raises `GraphBreakError` instead of running
    a frame that cannot be captured as plain Python. `dynamic`: None or False specialise on
    every input shape. `options`: backend settings (`num_threads`).
    Usable as `@ember.compile`, `@ember.compile(backend=...)` or `ember.compile(fn)`.
    """
    if fn is None:
        return functools.partial(compile, backend=backend, fullgraph=fullgraph,
                                 dynamic=dynamic, options=options)
    if not callable(fn):
        raise TypeError(f"ember.compile expects a callable, got {type(fn).__name__}")
    backend_fn = lookup_backend(backend)  # an unknown name fails here, not at the first call
    if options is not None and not isinstance(options, dict):
        raise TypeError("ember.compile(options=...) takes a dict")
    if options:
        _check_options(backend, backend_fn, options)
    opts = policy.Options(backend=backend, fullgraph=fullgraph, dynamic=dynamic,
                          backend_options=tuple(sorted((options or {}).items())))
    original = getattr(fn, "__ember_original__", fn)
    core = _core()
    _install()

    slot, enable, pause = policy.active, core.enable, gc_pause.state
    token = policy.token_for(opts)
    code = getattr(original, "__code__", None)
    if code is not None and resume_origin(code) is not None:
        # A resume function compiled on its own (not called by a trampoline): its entries
        # hand back continuations, which this call follows.
        original = _following_continuations(original)

    @functools.wraps(original)
    def compiled(*args: Any, **kwargs: Any) -> Any:
        outer = slot.current
        slot.current = opts
        previous = enable(token)
        if not pause.installed:  # taken out by `ember.reset`
            gc_pause.install()
        try:
            return original(*args, **kwargs)
        finally:
            enable(previous)
            slot.current = outer

    compiled.__ember_original__ = original  # type: ignore[attr-defined]
    return compiled


def _following_continuations(fn: Callable) -> Callable:
    @functools.wraps(fn)
    def follow(*args: Any, **kwargs: Any) -> Any:
        return trampoline(fn(*args, **kwargs), fn.__globals__)

    follow.__ember_original__ = fn  # type: ignore[attr-defined]
    return follow


def _check_options(name: Any, backend_fn: Callable, options: dict[str, Any]) -> None:
    """Options are keyword arguments of the backend: check that it takes them."""
    try:
        inspect.signature(backend_fn).bind(None, None, **options)
    except TypeError as exc:
        raise ValueError(f"backend {name!r} does not take options {sorted(options)}: {exc}"
                         ) from None
    except ValueError:  # no signature (a builtin): let the first call tell
        pass


def disable(fn: Callable) -> Callable:
    """Never compile `fn`: it runs as plain Python, and so does everything it calls; a
    compiled function calling it breaks its graph there."""
    core = _core()

    @functools.wraps(fn)
    def disabled(*args: Any, **kwargs: Any) -> Any:
        previous = core.enable(False)
        try:
            return fn(*args, **kwargs)
        finally:
            core.enable(previous)

    disabled.__ember_disabled__ = True  # type: ignore[attr-defined]
    return disabled


def reset() -> None:
    """Drop every compiled entry, verdict and counter, as if the process had just started:
    the eval-frame function and the garbage-collector callback are taken out again (a
    compiled function puts them back when it is next called)."""
    core = _core()
    core.reset()
    try:
        core.uninstall()
    except RuntimeError:
        pass  # another eval-frame function was installed over ember's: it stays chained
    gc_pause.uninstall()
    core.set_callback(policy.on_cache_miss)
    policy.clear()
    _stats.clear()
    _hook_baseline.clear()
    _hook_baseline.update(core.hook_stats())


def stats() -> dict[str, Any]:
    """Counters since the last `reset()`: frames seen/skipped, cache hits/misses, guard
    failures (from the frame hook), captures, compiles, recompiles with reasons, graph breaks
    with reasons, compile time per stage in seconds."""
    hook = {k: v - _hook_baseline.get(k, 0) for k, v in _core().hook_stats().items()}
    return _stats.snapshot(hook)


def explain(fn: Callable, *args: Any, **kwargs: Any) -> ExplainReport:
    """Compile `fn`, call it once with these arguments, and report what was captured: graphs
    (IR), op and guard counts, graph breaks with reasons, file:line and hints."""
    from ember.capture.resume import resume_codes_of

    original = getattr(fn, "__ember_original__", fn)
    backend = "eager"
    code = getattr(original, "__code__", None)
    if code is not None:
        # The function and its resume functions are captured afresh, to be reported.
        for each in (code, *resume_codes_of(code)):
            _core().clear_cache(each)
            policy.forget(each)
    report = ExplainReport()
    listeners = policy.listeners()
    listeners.append(report.observe)
    try:
        compile(original, backend=backend)(*args, **kwargs)
    finally:
        listeners.remove(report.observe)
    return report
