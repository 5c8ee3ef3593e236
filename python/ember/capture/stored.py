"""Stored entries: a captured entry kept in the cache directory, so that a fresh process
runs it without interpreting the frame's bytecode.

Only an entry with a direct form (one native graph on the frame's arguments, nothing else:
`codegen.py: direct_form`) is kept, and only a code's first entry. The file holds its guard
tree, its graph (pickled), the entry's generated source with the names of its namespace, and
its direct form's plain data. A fresh process that misses on such a code finds the file by
key, rebuilds the tree against its own function (the frame's globals and builtins dicts,
modules and functions by name), checks every guard against this call as capture would have
recorded them, compiles the graph (machine code comes from the compile cache) and returns
the entry; anything that does not check is captured as before, and the file rewritten.

- **Key**: a SHA-256 of the code's content (bytecode, names, constants, nested codes, file,
  lines), the call's argument types (arrays: dtype and shape; scalars: their value), the
  compile options, `ember.config`'s settings, and the process: Python, NumPy, ember's own
  files (size and modification time), the machine. Machine code is not stored here: the
  compile cache keys it by the CPU features it uses.
- **Not kept** (captured in every process): entries with Python around the graph (graph
  breaks, containers rebuilt, side effects), resume functions, callable backends, options
  that refuse breaks, and guard trees naming an object that cannot be found again by name:
  a class outside Python and NumPy, a function with a closure or a default other than a
  plain constant, a module or function not reached through its
  module. A function is found by module and qualified name and must have the same code and
  defaults; a function's code (`G['f'].__code__`) by that function.
  The compiled function itself may be a closure (a lambda or nested function, as Dask
  ships them): its cells are read from the live function by their guards, checked before
  the entry is used like every other guard.
- **Files**: `<cache_dir>/entries/<key>.entry` = magic, SHA-256 of the payload, payload;
  written to a temporary file renamed over the name, so readers see whole files only. A
  file that does not check, or does not unpickle into what it must be, is ignored
  (`stored_rejected`) and rewritten by the capture that follows. Entry files count against
  `config.cache_max_bytes` with the compile cache's machine code: the least recently used
  files of both kinds go first (a restore refreshes its file's age).
- A process never restores an entry it stored itself: after `ember.reset()` it captures again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import os
import pickle
import platform
import sys
import tempfile
from types import BuiltinFunctionType, CodeType, FunctionType, ModuleType
from typing import Any

import numpy as np

from ember import stats
from ember.capture.codegen import _Rerun, make_entry, make_fallback
from ember.capture.convert import Capture, disable_hook
from ember.capture.guards import find_failure
from ember.capture.resume import resume_origin
from ember.config import config

_MAGIC = b"EMBERSE1"
_FORMAT = "ember stored entry 1"
# Where pickled classes may come from: anything else in a file is not ours.
_TRUSTED_MODULES = frozenset({"builtins", "copyreg", "collections", "numpy", "ember"})
# Classes a guard may name by reference: their definitions are fixed by the versions keyed.
_NAMED_TYPES = frozenset({"builtins", "numpy"})
_PLAIN = (type(None), bool, int, float, complex, str, bytes)

_stored_here: set[str] = set()


class _Unstorable(Exception):
    """The entry names something another process could not find again."""


class _Stale(Exception):
    """A stored entry that does not fit this process."""


# ---- the key ---------------------------------------------------------------------------------

def _feed_code(code: CodeType, h: Any) -> None:
    for part in (code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount,
                 code.co_flags, code.co_names, code.co_varnames, code.co_freevars,
                 code.co_cellvars, code.co_qualname, code.co_filename, code.co_firstlineno):
        h.update(repr(part).encode())
    for part in (code.co_code, code.co_exceptiontable, code.co_linetable):
        h.update(part)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            _feed_code(const, h)
        elif isinstance(const, frozenset):  # its repr's order follows string hashing
            h.update(repr(sorted(map(repr, const))).encode())
        else:
            h.update(f"{type(const).__name__}:{const!r}".encode())


def _argument_signature(value: Any) -> str:
    kind = type(value)
    if kind is np.ndarray:
        return f"ndarray {value.dtype.str} {value.shape}"
    if kind in _PLAIN:
        return f"{kind.__name__} {value!r}"
    return f"{kind.__module__}.{kind.__qualname__}"


_process_key: list[str] = []


def _source_files(folder: str) -> list[str]:
    """`name size mtime` of each module and extension under `folder`."""
    found = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir() and entry.name != "__pycache__":
                found += _source_files(entry.path)
            elif entry.name.endswith((".py", ".so")):
                st = entry.stat()
                found.append(f"{entry.path} {st.st_size} {st.st_mtime_ns}")
    return found


def _process_fingerprint() -> str:
    """Python, NumPy, the machine and ember's own files (size and modification time):
    a changed ember captures differently."""
    if not _process_key:
        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        _process_key.append("\n".join([_FORMAT, sys.version, np.__version__,
                                       platform.machine(), *sorted(_source_files(package))]))
    return _process_key[0]


def entry_key(func: FunctionType, args: tuple, options: Any) -> str | None:
    """The file key of `func`'s first entry for this call under `options` (None: entries
    under these options are never stored)."""
    if not config.stored_entries or not isinstance(options.backend, str) \
            or options.refuse_break is not None \
            or resume_origin(func.__code__) is not None:
        return None
    h = hashlib.sha256(_process_fingerprint().encode())
    _feed_code(func.__code__, h)
    # Sets in their sorted order: their repr's order follows string hashing.
    settings = [(f.name, sorted(value) if isinstance(value, frozenset) else value)
                for f in dataclasses.fields(config)
                for value in [getattr(config, f.name)]]
    h.update(repr((options.backend, options.fullgraph, options.dynamic,
                   options.backend_options, options.weak_floats, settings)).encode())
    for value in args:
        h.update(_argument_signature(value).encode() + b"\0")
    return h.hexdigest()


# ---- objects found again by name ----------------------------------------------------------

def _function_digest(fn: FunctionType) -> str:
    if fn.__closure__ is not None:
        raise _Unstorable(f"{fn.__qualname__} has a closure")
    defaults = (fn.__defaults__ or (), tuple(sorted((fn.__kwdefaults__ or {}).items())))
    if not _plain(defaults):
        raise _Unstorable(f"{fn.__qualname__} has defaults that are not plain constants")
    h = hashlib.sha256(repr(defaults).encode())
    _feed_code(fn.__code__, h)
    return h.hexdigest()


def _code_digest(code: CodeType) -> str:
    h = hashlib.sha256()
    _feed_code(code, h)
    return h.hexdigest()


def _plain(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(map(_plain, value))
    return type(value) in _PLAIN


def _by_name(module: str, qualname: str) -> Any:
    found: Any = sys.modules.get(module)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return found


class _GuardPickler(pickle.Pickler):
    """A guard tree, with the frame's dicts, modules and functions as references."""

    def __init__(self, file: io.BytesIO, func: FunctionType) -> None:
        super().__init__(file, protocol=5)
        self.func = func
        # A function's code (`G['f'].__code__: ID_MATCH`), by the function named before it:
        # a node's checks come before its children's.
        self.codes: dict[int, tuple[str, str]] = {}

    def persistent_id(self, obj: Any) -> Any:
        if obj is self.func.__globals__:
            return ("globals",)
        if obj is self.func.__builtins__:
            return ("builtins",)
        if isinstance(obj, ModuleType):
            if sys.modules.get(obj.__name__) is not obj:
                raise _Unstorable(f"module {obj.__name__} is not in sys.modules")
            return ("module", obj.__name__)
        if isinstance(obj, FunctionType):
            if _by_name(obj.__module__, obj.__qualname__) is not obj:
                raise _Unstorable(f"{obj.__qualname__} is not found by its name")
            self.codes[id(obj.__code__)] = (obj.__module__, obj.__qualname__)
            return ("function", obj.__module__, obj.__qualname__, _function_digest(obj))
        if isinstance(obj, CodeType):
            if id(obj) not in self.codes:
                raise _Unstorable(f"the code of {obj.co_qualname} is not a named function's")
            return ("code", *self.codes[id(obj)], _code_digest(obj))
        return None

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, type):
            if obj.__module__.partition(".")[0] not in _NAMED_TYPES:
                raise _Unstorable(f"class {obj.__qualname__}")
            return NotImplemented
        if isinstance(obj, (np.dtype, np.generic, np.ufunc, BuiltinFunctionType, slice)) \
                or type(obj).__module__.partition(".")[0] == "numpy" and callable(obj):
            return NotImplemented
        raise _Unstorable(f"a guard on a {type(obj).__name__}")


class _Unpickler(pickle.Unpickler):
    """Classes from trusted modules only; the guard tree's references resolved against
    `func` (None: a file part without references)."""

    def __init__(self, data: bytes, func: FunctionType | None = None) -> None:
        super().__init__(io.BytesIO(data))
        self.func = func

    def find_class(self, module: str, name: str) -> Any:
        if module.partition(".")[0] not in _TRUSTED_MODULES:
            raise _Stale(f"class {module}.{name}")
        return super().find_class(module, name)

    def persistent_load(self, pid: Any) -> Any:
        if self.func is None:
            raise _Stale("a reference outside a guard tree")
        kind = pid[0]
        if kind == "globals":
            return self.func.__globals__
        if kind == "builtins":
            return self.func.__builtins__
        if kind == "module" and pid[1] in sys.modules:
            return sys.modules[pid[1]]
        if kind == "function":
            fn = _by_name(pid[1], pid[2])
            if isinstance(fn, FunctionType) and _function_digest(fn) == pid[3]:
                return fn
        if kind == "code":
            fn = _by_name(pid[1], pid[2])
            if isinstance(fn, FunctionType) and _code_digest(fn.__code__) == pid[3]:
                return fn.__code__
        raise _Stale(f"{pid[:3]} is not what it was")


# ---- files -------------------------------------------------------------------------------

def _path(key: str) -> str | None:
    return None if config.cache_dir is None else os.path.join(config.cache_dir, "entries",
                                                               f"{key}.entry")


def _write(path: str, payload: bytes) -> None:
    from ember import _core

    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    data = _MAGIC + hashlib.sha256(payload).digest() + payload
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    _core.disk_cache_account(len(data))


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError:
        return None
    head = len(_MAGIC) + 32
    if data[:len(_MAGIC)] != _MAGIC or hashlib.sha256(data[head:]).digest() != \
            data[len(_MAGIC):head]:
        raise _Stale("damaged file")
    try:
        os.utime(path)  # used now: the last to go when the directory passes its bound
    except OSError:
        pass
    return data[head:]


# ---- storing and restoring ---------------------------------------------------------------

def _namespace(compiled: Any, fallback: Any) -> dict[str, Any]:
    """Everything a direct entry's namespace may hold, as this process makes it."""
    from ember import _core

    return {"__ember_asarray": np.asarray, "__ember_rerun": _Rerun,
            "__ember_graph": compiled, "__ember_fallback": fallback,
            "__ember_unsafe": _core.writeback_may_differ, "__ember_copyto": np.copyto}


def store(func: FunctionType, args: tuple, options: Any, capture: Capture) -> None:
    """Keep `capture` (a code's first entry) in the cache directory where it can be."""
    direct = getattr(capture.entry, "__ember_direct__", None)
    if direct is None or direct[0] is None or capture.refusal is not None:
        return  # (an entry of constants alone is captured again: it costs no compile)
    key = entry_key(func, args, options)
    path = None if key is None else _path(key)
    if path is None:
        return
    namespace = capture.entry.__globals__
    names = sorted(n for n in namespace if n != "__builtins__")
    expected = _namespace(direct[0], direct[4])
    if any(n not in expected or expected[n] is not namespace[n] for n in names):
        return
    try:
        guards = io.BytesIO()
        _GuardPickler(guards, func).dump(capture.guards)
        record = {"key": key, "guards": guards.getvalue(),
                  "graph": pickle.dumps(capture.graph, protocol=5),
                  "source": capture.entry_source, "names": names,
                  "direct": (direct[1], direct[2], direct[3], direct[5], direct[6]),
                  "examples": capture.example_shapes,
                  "prepared": _prepared(capture.graph, options)}
        payload = pickle.dumps(record, protocol=5)
        _write(path, payload)
    except Exception:  # noqa: BLE001 -- whatever cannot be written stays unstored
        return
    _stored_here.add(key)
    stats.count("stored_writes")


def _prepared(graph: Any, options: Any) -> Any:
    """What the Cranelift backend works out in Python before compiling `graph` (its IR text,
    its outputs' orders), kept so that a warm start skips it; None for other backends."""
    if options.backend != "cranelift":
        return None
    from ember.backends import cranelift

    return cranelift.prepare(graph)


def restore(func: FunctionType, args: tuple, options: Any) -> tuple[list, FunctionType] | None:
    """The stored first entry of `func` for this call, `(guards, entry)`, when there is one
    whose guards pass; None otherwise (the frame is captured)."""
    key = entry_key(func, args, options)
    path = None if key is None or key in _stored_here else _path(key)
    if path is None:
        return None
    try:
        payload = _read(path)
        if payload is None:
            return None
        record = _Unpickler(payload).load()
        if record["key"] != key:
            raise _Stale("another key's file")
        guards = _Unpickler(record["guards"], func).load()
        if find_failure(guards, func, args) is not None:
            raise _Stale("a guard fails")
        entry = _rebuild(func, options, record)
    except Exception:  # noqa: BLE001 -- whatever is wrong with the file, capture instead
        stats.count("stored_rejected")
        return None
    stats.count("stored_hits")
    return guards, entry


def _rebuild(func: FunctionType, options: Any, record: dict) -> FunctionType:
    """The entry of a stored record: its graph compiled, its source run in a namespace of
    this process."""
    from ember import _core
    from ember.backends import lookup_backend

    graph = _Unpickler(record["graph"]).load()
    examples = [np.broadcast_to(np.zeros((), v.dtype), shape)
                for v, shape in zip(graph.inputs, record["examples"], strict=True)]
    backend_options = dict(options.backend_options)
    prepared = record.get("prepared")
    if prepared is not None:
        backend_options["prepared"] = prepared
        stats.count("stored_prepared")
    with stats.stage("backend"):
        compiled = lookup_backend(options.backend)(graph, examples, **backend_options)
    if not isinstance(compiled, _core.CompiledGraph):
        raise _Stale("the graph no longer compiles natively")
    stats.count("compiles")
    fallback = make_fallback(func, disable_hook)
    every = _namespace(compiled, fallback)
    entry = make_entry(record["source"], {n: every[n] for n in record["names"]},
                       func.__code__.co_name)
    slots, outputs, returns_tuple, writebacks, reruns = record["direct"]
    entry.__ember_direct__ = (compiled, slots, outputs, returns_tuple, fallback, writebacks,
                              reruns)
    return entry
