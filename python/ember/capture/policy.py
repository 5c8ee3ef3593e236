"""The per-frame policy: what the frame hook's callback does on a cache miss.

Capture the frame and hand back `(guards, entry)`; on a graph break, run the frame as plain
Python and decide whether the code is worth trying again: a break that depends on these inputs
(a NumPy error, a static assert) leaves it to be tried next call, any other break marks the
code `SKIP` (or `CACHE_ONLY` when it already has entries) so repeated calls cost nothing.
Past `config.recompile_limit` entries a code stops compiling (`CACHE_ONLY`) with one warning.
"""

from __future__ import annotations

import dis
import itertools
import threading
import logging
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from types import CodeType, FunctionType
from typing import Any

from ember import logging as ember_logging
from ember import stats
from ember.capture import bytecode, stored
from ember.capture.breaks import INPUT_DEPENDENT_KINDS
from ember.capture.convert import convert
from ember.capture.guards import (
    changed_dims,
    changed_ints,
    entry_failures,
    find_failure,
    first_failure,
    weaken,
)
from ember.capture.tracer import DynamicDims
from ember.config import config
from ember.errors import GraphBreakError, Unsupported


@dataclass(frozen=True)
class Options:
    """The settings of one `ember.compile` call, active while its function runs."""

    backend: Any = "eager"
    fullgraph: bool = False
    dynamic: bool | None = None
    backend_options: tuple[tuple[str, Any], ...] = ()
    # Breaks these options cannot tolerate: a function of the break and the frame's code
    # returning why (raised as GraphBreakError) or None (differentiated functions refuse NumPy
    # work done in Python).
    refuse_break: Callable[[Unsupported, CodeType], str | None] | None = None
    # Python float arguments enter as weak 0-d graph inputs, never constants: a
    # differentiated function's float leaves, whose arithmetic the tape must follow.
    weak_floats: bool = False


@dataclass
class CodeRecord:
    """What the policy remembers about one code object."""

    guard_trees: list[list] = field(default_factory=list)
    warned: bool = False
    # Automatic dynamic capture: None until a shape change is seen, then whether symbolic
    # capture worked (True: keep capturing so; False: it failed, specialise).
    dynamic: bool | None = None
    # The dims seen to change size, per array source name: symbolic in later captures.
    dynamic_dims: dict[str, frozenset[int]] = field(default_factory=dict)
    # Whether a Python int or float changed: from then on they are run-time values.
    scalars: bool = False
    # Breaks that depend on the inputs (a NumPy error, a raise reached) leave the code to be
    # tried again; a code that keeps failing that way is given up on like any other break.
    input_failures: int = 0


@dataclass
class BreakEvent:
    reason: str
    hint: str
    kind: str
    filename: str | None
    lineno: int | None
    function: str


INPUT_FAILURE_LIMIT = 4

_local = threading.local()
_lock = threading.Lock()
# By code identity (equal code objects, e.g. one source exec'd twice, are distinct codes with
# their own entries), dropped when the code dies; a record holds nothing that can reach its
# code (guard trees are kept `weaken`ed).
_records: dict[int, tuple[weakref.ref, CodeRecord]] = {}


class OptionsSlot:
    """The options of the innermost `ember.compile` wrapper running on this thread (the
    wrapper saves and restores `current` around its call). Held per thread by the native
    module, which sets them itself around an entry it calls from a compiled function's
    vectorcall slot (`dispatch/mod.rs: Scope`)."""

    @property
    def current(self) -> Options | None:
        from ember import _core

        return _core.current_options()

    @current.setter
    def current(self, options: Options | None) -> None:
        from ember import _core

        _core.swap_options(options)


active = OptionsSlot()


_tokens: dict[Options, int] = {}
_next_token = itertools.count(2)  # 0: the hook off, 1: plain `enable(True)`


def token_for(options: Options) -> int:
    """The frame hook's token for these options: entries compiled under one set of options
    (another backend, other backend settings, fullgraph) are never used under another."""
    with _lock:
        try:
            token = _tokens.get(options)
        except TypeError:  # unhashable options (a backend that is not hashable)
            return next(_next_token)
        if token is None:
            token = _tokens[options] = next(_next_token)
        return token


def current_options() -> Options:
    return active.current or Options()


def listeners() -> list[Callable[[str, Any], None]]:
    """Per-thread observers of captures and breaks (used by `explain`)."""
    found = getattr(_local, "listeners", None)
    if found is None:
        found = _local.listeners = []
    return found


def _notify(kind: str, event: Any) -> None:
    for listener in listeners():
        listener(kind, event)


def clear() -> None:
    """Forget every code record and decoded code object (part of `ember.reset`)."""
    with _lock:
        _records.clear()
    bytecode.clear_cache()


def remembered_trees(code: CodeType) -> list[list]:
    """The guard trees of `code`'s entries, oldest first (none when it has no record)."""
    with _lock:
        found = _records.get(id(code))
    return list(found[1].guard_trees) if found is not None and found[0]() is code else []


def forget(code: CodeType) -> None:
    """Forget one code's record (its entries were cleared)."""
    with _lock:
        found = _records.get(id(code))
        if found is not None and found[0]() is code:
            del _records[id(code)]


def record_for(code: CodeType) -> CodeRecord:
    with _lock:
        key = id(code)
        found = _records.get(key)
        if found is not None and found[0]() is code:
            return found[1]
        record = CodeRecord()
        # The callback runs as the code dies, before its id can be reused; it takes no lock
        # (it may run inside this very function, at any allocation).
        _records[key] = (weakref.ref(code, lambda _, key=key: _records.pop(key, None)), record)
        return record


# The recompile limit's notice, given once per code (`ember.logging`'s `recompiles` channel).
_LIMIT_LOG = logging.getLogger("ember.recompiles")


def on_cache_miss(func: FunctionType, args: tuple[Any, ...]) -> Any:
    """The frame hook's callback (`_core.set_callback`)."""
    from ember import _core

    options = current_options()
    code = func.__code__
    record = record_for(code)
    name = code.co_qualname
    # Options that refuse breaks (differentiated functions) cannot run a frame as plain
    # Python either: they keep compiling past the limit.
    if len(record.guard_trees) >= config.recompile_limit and options.refuse_break is None:
        stats.count("recompile_limit_hits")
        if not record.warned:
            record.warned = True
            reason = first_failure(record.guard_trees[-1], func, args) or "guards failed"
            # A log record, not a Python warning: under `warnings.simplefilter("error")` (or
            # `python -W error`) a warning would raise in a program NumPy runs without one.
            _LIMIT_LOG.warning(
                "ember: %s (%s:%d) was compiled %d times (ember.config.recompile_limit); it "
                "now runs as plain Python for new inputs. Last recompile: %s", name,
                code.co_filename, code.co_firstlineno, config.recompile_limit, reason,
                extra={"channel": "recompiles"})
        return _core.CACHE_ONLY
    if record.guard_trees:
        failure = find_failure(record.guard_trees[-1], func, args)
        # Guards that pass: the entries were compiled under other options (another backend).
        reason = str(failure) if failure is not None else "other compile options"
        older = entry_failures(record.guard_trees[:-1], func, args)
        if older:
            shown = "; ".join(f"entry {k + 2}: {r}" for k, r in enumerate(older[:3]))
            more = f"; and {len(older) - 3} more" if len(older) > 3 else ""
            reason += f" (older entries, newest first: {shown}{more})"
        stats.record_recompile(name, reason)
        ember_logging.log("recompiles", f"{name}: {reason}")
        _notify("recompile", (name, reason))
        if options.dynamic is None and failure is not None:
            if failure.is_scalar_change():
                record.scalars = True
            # The first failing guard is one of them: sizes and ints that changed beside it
            # (a problem size and its step count) are marked on the same call.
            if failure.is_shape_change() or failure.is_scalar_change():
                if record.dynamic is not False:
                    _mark_changed_dims(record, record.guard_trees[-1], func, args, name)
                _mark_changed_ints(record, record.guard_trees[-1], func, args)
    dynamic: bool | DynamicDims | None = options.dynamic
    scalars: bool | None = options.dynamic
    if dynamic is None:
        dynamic = dict(record.dynamic_dims) if record.dynamic else None
        scalars = True if record.scalars else None  # None: by where the code resumes
    first = not record.guard_trees
    if first and not listeners():
        restored = stored.restore(func, args, options)
        if restored is not None:
            guards, entry = restored
            record.guard_trees.append(weaken(guards))
            return guards, entry, True, entry.__ember_direct__
    stats.count("captures")
    try:
        capture = convert(func, args, backend=options.backend, dynamic=dynamic,
                          options=dict(options.backend_options),
                          allow_breaks=not options.fullgraph, scalars=scalars)
    except Unsupported as exc:
        return _on_break(exc, func, record, options)
    except Exception as exc:
        if not config.suppress_errors or options.refuse_break is not None:
            raise
        # A bug in capture or a backend failure: the code runs as plain Python from now on.
        stats.record_break(f"internal error: {type(exc).__name__}: {exc}")
        ember_logging.log("breaks", f"{name}: internal error ({type(exc).__name__}: {exc}); "
                                    "runs as plain Python (suppress_errors)")
        return _core.CACHE_ONLY if record.guard_trees else _core.SKIP
    if options.dynamic is None and record.dynamic:
        record.dynamic = capture.dynamic  # a failed symbolic attempt is not repeated
    if (options.refuse_break is not None and capture.refusal is not None
            and capture.refusal.kind in INPUT_DEPENDENT_KINDS):
        _check_refused(options, capture.refusal, code)
        if getattr(capture.refusal, "expected_to_raise", False):
            # A differentiated function expected to raise from the user's line: the frame
            # runs as plain Python, captured again on each call, so that each call checks it
            # did raise (`autodiff/api.py: _forward`); an entry kept would go on unchecked.
            _report_break(capture.refusal, code, resumed=True)
            return None
    record.guard_trees.append(weaken(capture.guards))
    if first:
        stored.store(func, args, options, capture)
    if capture.refusal is not None:
        _report_break(capture.refusal, code, resumed=True)
        _check_refused(options, capture.refusal, code)
    _notify("capture", capture)
    # Entries take the frame's function first: they read its globals and closure from it. An
    # entry that only runs one native graph also comes in the form the fast path runs.
    return capture.guards, capture.entry, True, getattr(capture.entry, "__ember_direct__", None)


def _mark_changed_dims(record: CodeRecord, tree: list, func: FunctionType, args: tuple,
                       name: str) -> None:
    """Automatic dynamic shapes, as torch.compile does it: the dims whose size differs from
    the last entry's become symbolic in the next capture (and stay so); the others stay
    static."""
    changed = changed_dims(tree, func, args)
    for source, dims in changed.items():
        record.dynamic_dims[source] = record.dynamic_dims.get(source, frozenset()) | dims
    if changed:
        record.dynamic = True
        listed = ", ".join(f"{source} dim {sorted(dims)}" for source, dims in changed.items())
        ember_logging.log("recompiles", f"{name}: size changed at {listed}: captured again "
                                        "with these dims symbolic")


def _mark_changed_ints(record: CodeRecord, tree: list, func: FunctionType,
                       args: tuple) -> None:
    """Int arguments seen to change may become sizes of their own in later captures
    (`Tracer.int_symbol`): they are listed with the changed dims, with no dim."""
    changed = changed_ints(tree, func, args)
    for source in changed:
        record.dynamic_dims.setdefault(source, frozenset())
    if changed and record.dynamic is not False:
        record.dynamic = True


def _report_break(exc: Unsupported, code: CodeType, *, resumed: bool) -> BreakEvent:
    """Count, log and announce a graph break (`resumed`: the entry steps over it in Python;
    otherwise the whole frame runs as plain Python)."""
    filename, lineno = getattr(exc, "location", None) or (code.co_filename, None)
    event = BreakEvent(exc.reason, exc.hint, exc.kind, filename, lineno, code.co_qualname)
    stats.record_break(exc.reason, failed_frame=not resumed)
    how = "" if resumed else " [the whole frame runs as plain Python]"
    ember_logging.log("breaks", f"{filename}:{lineno}: {exc.reason} ({exc.hint}){how}")
    _notify("break", event)
    return event


def _check_refused(options: Options, exc: Unsupported, code: CodeType) -> None:
    why = options.refuse_break(exc, code) if options.refuse_break is not None else None
    if why is not None:
        filename, lineno = getattr(exc, "location", None) or (code.co_filename, None)
        raise GraphBreakError(f"{filename}:{lineno}: in {code.co_qualname}: {exc.reason}: {why}")


def _on_break(exc: Unsupported, func: FunctionType, record: CodeRecord,
              options: Options) -> Any:
    from ember import _core

    code = func.__code__
    event = _report_break(exc, code, resumed=False)
    _check_refused(options, exc, code)
    filename, lineno = event.filename, event.lineno
    if options.fullgraph:
        raise GraphBreakError(
            f"{filename}:{lineno}: cannot capture {code.co_qualname} as one graph: "
            f"{exc.reason}. {exc.hint}"
        ) from exc
    if getattr(exc, "expected_to_raise", False):
        return None  # checked on every call, as above
    if exc.kind in INPUT_DEPENDENT_KINDS or record.guard_trees:
        # With entries already compiled, any break depends on the inputs (other inputs took
        # another path): try again for a while before settling for the existing entries.
        record.input_failures += 1
        if record.input_failures < INPUT_FAILURE_LIMIT:
            return None
    if record.guard_trees:
        return _core.CACHE_ONLY
    callees = getattr(exc, "plain_callees", ())
    if exc.kind == "loop_break":
        # The frame runs as plain Python because its loop breaks on every trip: the
        # functions that loop calls by name (`root = find(parent, i)`) would each cost a
        # graph call per trip, more than the few ops they compile.
        callees = (*callees, *(c for c in _loop_callees(func) if c not in callees))
    # The function the frame calls that the break lies in runs as plain Python when the frame
    # calls it, and so does all it calls (cost rule 4, docs/ARCHITECTURE.md section 12); so
    # do the frame's comprehensions that call it (`[find(i) for i in range(n)]`), whose
    # calls would else each be captured, specialised on their arguments.
    callees = (*callees, *_comprehensions_calling(code, callees))
    return (_core.SKIP, callees) if callees else _core.SKIP


def _comprehensions_calling(code: CodeType, callees: tuple) -> list[CodeType]:
    """The comprehensions and generator expressions of `code` that name one of `callees`."""
    names = {c.co_name for c in callees}
    return [c for c in code.co_consts if isinstance(c, CodeType) and names and c.co_name in (
        "<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>") and names & {
        *c.co_names, *c.co_freevars}]


def _loop_callees(func: FunctionType) -> list[CodeType]:
    """The codes of the plain Python functions that `func`'s loops call by a global name
    (the instructions between a backward jump and its target), not NumPy's or ember's own,
    and not functions the program compiled itself (`ember.compile`, `ember.disable`)."""
    instructions = list(dis.get_instructions(func.__code__))
    spans = [(inst.argval, inst.offset) for inst in instructions
             if "BACKWARD" in inst.opname and isinstance(inst.argval, int)]
    codes: list[CodeType] = []
    for inst in instructions:
        if inst.opname != "LOAD_GLOBAL" or not any(lo <= inst.offset <= hi for lo, hi in spans):
            continue
        target = func.__globals__.get(inst.argval)
        if not isinstance(target, FunctionType) or any(
                hasattr(target, a) for a in ("__ember_original__", "__ember_disabled__")):
            continue
        module = getattr(target, "__module__", None) or ""
        if module.split(".")[0] in ("numpy", "ember") or target.__code__ in codes:
            continue
        codes.append(target.__code__)
    return codes
