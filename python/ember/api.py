"""The public API: `compile`, `disable`, `reset`, `explain`, `stats`."""

from __future__ import annotations

import collections
import functools
import inspect
import marshal
import sys
import types
from collections.abc import Callable
from typing import Any

from ember import _core as _core_module
from ember import gc_pause
from ember import stats as _stats
from ember.autodiff import tape as autodiff_tape
from ember.autodiff.inline import compiled_gradient, is_gradient_function
from ember.backends import lookup_backend
from ember.capture import marks, policy
from ember.capture.resume import resume_origin, trampoline
from ember.explain import ExplainReport
from ember.markers import ember_attribute

_hook_baseline: dict[str, int] = {}
_codegen_baseline: list[int] = [0, 0]


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
    a frame that cannot be captured as plain Python. `dynamic`: None (automatic) specialises
    on the first shapes, then makes the dims seen to change size symbolic (one recompile, then
    any size of those dims runs the same code); True makes every dim of 2 or more symbolic
    from the start; False specialises on every shape. `ember.mark_dynamic(x, dim)` and
    `ember.mark_static(x, dim)` decide single dims. `options`: backend settings
    (`num_threads`).
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
    original = compiled_gradient(ember_attribute(fn, "__ember_original__", fn))
    _install()
    code = getattr(original, "__code__", None)
    if code is not None and resume_origin(code) is not None:
        # A resume function compiled on its own (not called by a trampoline): its entries
        # hand back continuations, which this call follows.
        original = _following_continuations(original)
    return CompiledFunction(original, opts, (backend, fullgraph, dynamic, options))


class CompiledFunction(_core_module.Dispatch):
    """What `ember.compile` returns: calls the function with the frame hook enabled under this
    compile's options. It binds as a method, and pickles (see `__reduce__`).

    Its native base (`_core.Dispatch`) receives every call first: a cache hit on an entry that
    is one native graph runs there without Python bytecode; any other call runs `__call__`."""

    __slots__ = (
        "__dict__",
        "__ember_original__",
        "__weakref__",
        "_arguments",
        "_enable",
        "_opts",
        "_token",
    )

    def __init__(self, original: Callable, opts: policy.Options,
                 arguments: tuple[Any, ...]) -> None:
        self.__ember_original__ = original
        self._opts = opts
        self._token = policy.token_for(opts)
        self._enable = _core().enable
        self._swap = _core().swap_options
        self._arguments = arguments
        functools.update_wrapper(self, original)
        self._bind(original, self._token, (opts, gc_pause.state))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        swap = self._swap
        outer = swap(self._opts)
        enable = self._enable
        previous = enable(self._token)
        if not gc_pause.state.installed:  # taken out by `ember.reset`
            gc_pause.install()
        try:
            return self.__ember_original__(*args, **kwargs)
        finally:
            enable(previous)
            swap(outer)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else types.MethodType(self, obj)

    def __repr__(self) -> str:
        return f"<ember compiled function {self.__qualname__}>"

    def __reduce__(self) -> Any:
        """By reference where the function is reachable by its module and name (decorated at
        module level), as pickle does for functions; otherwise by value: the function itself
        (which cloudpickle pickles by value for closures, lambdas and `__main__`) and the
        compile arguments, compiled again on the other side on first call."""
        module = sys.modules.get(getattr(self, "__module__", None) or "")
        qualname = getattr(self, "__qualname__", "")
        found: Any = module
        for part in qualname.split("."):
            found = getattr(found, part, None)
        if found is self and not (module.__name__ == "__main__" and _by_value_pickler()):
            return qualname
        backend, fullgraph, dynamic, options = self._arguments
        return (_rebuild, (self.__ember_original__, backend, fullgraph, dynamic, options))


def _rebuild(fn: Callable, backend: Any, fullgraph: bool, dynamic: bool | None,
             options: dict[str, Any] | None) -> CompiledFunction:
    return compile(_shared_code(fn), backend=backend, fullgraph=fullgraph, dynamic=dynamic,
                   options=options)


# Functions that arrived by value, by (module, name, marshalled code): the most recent few,
# held strongly, since a Dask worker unpickles a task's function anew for every task and drops
# it after.
_arrived: collections.OrderedDict[tuple[str, str, bytes], types.FunctionType] = (
    collections.OrderedDict())
_ARRIVED_LIMIT = 64


def _shared_code(fn: Any) -> Any:
    """`fn`, or an equal function on the code object and globals of one that arrived earlier.

    Compiled entries live on the code object; a function sent by value arrives with a new code
    object and a new globals dict each time, which would compile it again per arrival. Its
    globals are a namespace of its own (the sender's `__main__`, rebuilt): the earlier one is
    updated with the values that came with this one, and the guards check those as usual."""
    if not isinstance(fn, types.FunctionType):
        return fn
    module = sys.modules.get(fn.__module__ or "")
    if module is not None and fn.__globals__ is module.__dict__:
        return fn  # an importable module's function: its code is already shared
    try:
        key = (fn.__module__ or "", fn.__qualname__, marshal.dumps(fn.__code__))
    except ValueError:
        return fn
    earlier = _arrived.get(key)
    if earlier is None:
        _arrived[key] = fn
        while len(_arrived) > _ARRIVED_LIMIT:
            _arrived.popitem(last=False)
        return fn
    _arrived.move_to_end(key)
    namespace = earlier.__globals__
    namespace.update(fn.__globals__)
    shared = types.FunctionType(earlier.__code__, namespace, fn.__name__, fn.__defaults__,
                                fn.__closure__)
    shared.__kwdefaults__ = fn.__kwdefaults__
    shared.__qualname__ = fn.__qualname__
    shared.__dict__.update(fn.__dict__)
    return shared


def _by_value_pickler() -> bool:
    """Whether a pickler that sends `__main__` functions by value (cloudpickle, as Dask and
    `concurrent.futures` wrappers use) is the one asking: the other process's `__main__` is
    not this script, so the function must travel, not its name."""
    frame = sys._getframe(2)
    for _ in range(8):
        if frame is None:
            return False
        if frame.f_globals.get("__name__", "").partition(".")[0] == "cloudpickle":
            return True
        frame = frame.f_back
    return False


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
    _arrived.clear()
    _stats.clear()
    autodiff_tape.clear()
    _hook_baseline.clear()
    _hook_baseline.update(core.hook_stats())
    _codegen_baseline[:] = core.codegen_counters()
    marks.clear()
    _hook_baseline.update(core.disk_cache_stats())


def stats() -> dict[str, Any]:
    """Counters since the last `reset()`: frames seen/skipped, cache hits/misses, guard
    failures (from the frame hook), native calls (cache hits answered by the native fast
    path, counted as hits too), hook direct calls (hits of the frame hook that ran a graph
    without its entry's Python code: a resume function's, a call through `__call__`),
    captures, compiles, recompiles with reasons, graph breaks
    with reasons, compile time per stage in seconds, and the persistent compile cache's
    counters per compiled function (`disk_hits`, `disk_misses`, `disk_writes`,
    `disk_rejected`, `disk_evictions`)."""
    native = {**_core().hook_stats(), **_core().disk_cache_stats()}
    hook = {k: v - _hook_baseline.get(k, 0) for k, v in native.items()}
    out = _stats.snapshot(hook)
    # Native code generation, process-wide: kernels Cranelift generated, and plans made for
    # new sizes of graphs with symbolic dims (which generate no kernels).
    generated, plans = _core().codegen_counters()
    out["kernels_generated"] = generated - _codegen_baseline[0]
    out["shape_plans"] = plans - _codegen_baseline[1]
    return out


def _entry_failures(fn: Any, args: tuple, kwargs: dict[str, Any]) -> list[str]:
    """Why the entries `fn` had were not used for these arguments, newest first."""
    from ember.capture.guards import entry_failures

    code = getattr(fn, "__code__", None)
    trees = policy.remembered_trees(code) if code is not None else []
    if not trees:
        return []
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except TypeError:
        return []
    bound.apply_defaults()
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount
                             + bool(code.co_flags & inspect.CO_VARARGS)
                             + bool(code.co_flags & inspect.CO_VARKEYWORDS)]
    return entry_failures(trees, fn, tuple(bound.arguments[name] for name in names))


def explain(fn: Callable, *args: Any, **kwargs: Any) -> ExplainReport:
    """Compile `fn`, call it once with these arguments, and report what was captured: graphs
    (IR), op and guard counts, graph breaks with reasons, file:line and hints."""
    from ember.autodiff import tape
    from ember.capture.resume import resume_codes_of

    original = ember_attribute(fn, "__ember_original__", fn)
    report = ExplainReport()
    report.guard_failures = _entry_failures(original, args, kwargs)
    # The function and its resume functions are captured afresh, to be reported; so is the
    # function a gradient wrapper differentiates (`ember.explain(ember.grad(f), x)`).
    for each_fn in {original, inspect.unwrap(original)}:
        code = getattr(ember_attribute(each_fn, "__ember_original__", each_fn), "__code__", None)
        if code is not None:
            for each in (code, *resume_codes_of(code)):
                _core().clear_cache(each)
                policy.forget(each)
    listeners = policy.listeners()
    listeners.append(report.observe)
    tape.split_listeners.append(report.aot.append)
    try:
        # A gradient function runs as it is: its report is the differentiated graphs.
        # Under the default backend, as the program runs: the eager backend would run loop
        # ops op by op, each trip of an element loop a Python call per node (minutes for a
        # stencil whose captured graphs take milliseconds to compile).
        run = original if is_gradient_function(original) else compile(original)
        run(*args, **kwargs)
    finally:
        listeners.remove(report.observe)
        tape.split_listeners.remove(report.aot.append)
    return report
