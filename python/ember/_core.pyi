"""The native module: frame hook, guard evaluation and compiled graphs (rust/py)."""

from collections.abc import Callable
from types import CodeType, FunctionType
from typing import Any

import numpy as np

# ---- frame hook -------------------------------------------------------------------------------

# What the converter may return besides an entry.
SKIP: str  # "skip": never look at this code again (run its frames normally)
CACHE_ONLY: str  # "cache_only": use existing entries; on a miss run the frame normally, no callback

def set_callback(
    callback: Callable[[FunctionType, tuple[Any, ...]], Any] | None,
) -> Callable[[FunctionType, tuple[Any, ...]], Any] | None:
    """Install the converter called on a cache miss as `callback(func, args)`; returns the
    previous one.

    `func` is the frame's function object (code, globals, builtins, closure, defaults);
    `args` is a tuple of the frame's argument slots `localsplus[0:n]` in `co_varnames` order:
    positional parameters, keyword-only parameters, then the `*args` tuple and the `**kwargs`
    dict when the code has them. The callback runs with the hook disabled on this thread.
    It returns `(guards, entry)` (stored on the code, then `entry(*args)` runs and its result is
    the frame's result), `(guards, entry, True)` (the same, called as `entry(func, *args)` with
    the frame's function first), `SKIP`, `CACHE_ONLY`, or `None` (run this frame normally,
    store nothing).
    """

def enable(token: int | bool) -> int:
    """Set this thread's enable token, returning the previous one: 0 (False) turns the hook
    off on this thread, any other value turns it on, and entries are stored under the token in
    force and used only under it (`ember.compile` gives each set of options its own). The
    eval-frame function is installed (chained to the one found) the first time a thread
    enables it."""

def uninstall() -> None:
    """Restore the previous eval-frame function."""

def mark_skip(code: CodeType) -> None:
    """Never hand frames of `code` to the callback (kept across `reset`)."""

def cache_size(code: CodeType) -> int: ...
def clear_cache(code: CodeType) -> None:
    """Drop `code`'s entries and the callback's SKIP/CACHE_ONLY answer for it."""

def reset() -> None:
    """Drop every cache entry of every code seen (the entries' guards and callables) and the
    callback's SKIP/CACHE_ONLY answers, and zero `hook_stats`."""

def hook_stats() -> dict[str, int]:
    """frames_seen, frames_skipped, cache_hits, cache_misses, guard_failures."""

def set_skip_files(prefixes: list[str]) -> None:
    """Filename prefixes skipped in addition to the defaults (standard library except
    site-packages, numpy's and ember's package directories, `<ember...>` and `<frozen ...>`
    files); replaces the prefixes given by the previous call."""

def skip_files() -> dict[str, list[str]]:
    """The skipped prefixes by kind: stdlib, site_packages (exempt), packages, extra."""

# ---- guards -----------------------------------------------------------------------------------
# A guard tree is a list of nodes; a node is `(accessor, checks, children)`.
# Root accessors read the frame:          ("local", i)  ("global", name)  ("builtin", name)
#                                         ("closure", i)   -- cell contents of func.__closure__[i]
# Child accessors read the parent value:  ("attr", name)  ("item", index_or_key)
# A value that cannot be read (missing global, attribute error, index out of range) fails.
# Checks on the node's value:
#   ("TYPE_MATCH", type)          exact type (type(v) is t)
#   ("ID_MATCH", obj)             v is obj
#   ("EQUALS_MATCH", value)       exact type and equal (None, bool, int, float, str, tuples of those;
#                                 element types exact too; floats by bit pattern: nan matches nan,
#                                 -0.0 does not match 0.0)
#   ("LEN_MATCH", n)              len(v) == n (tuple, list, dict)
#   ("DICT_KEYS_MATCH", keys)     tuple(v.keys()) == keys
#   ("ARRAY_MATCH", dtype, shape, strides)
#         type(v) is np.ndarray, v.dtype == dtype, v.ndim == len(shape), shape[i] == v.shape[i]
#         where shape[i] is not None, strides[i] == v.strides[i] where strides is not None and
#         strides[i] is not None.

def check_guards(guards: list[Any], func: FunctionType, args: tuple[Any, ...]) -> bool:
    """Evaluate a guard tree against `func`'s globals/builtins/closure and `args` as the
    frame's locals, exactly as the hook does (for tests and `explain`)."""

# ---- compiled graphs --------------------------------------------------------------------------

class IRError(ValueError):
    """Malformed or ill-typed ember IR: the message names line:column, or op and value."""

def parse_ir(text: str) -> str:
    """Parse, verify and print back (the round trip, for tests)."""

def pipeline_stages(text: str) -> list[tuple[str, str]]:
    """The IR after each pass of the pipeline, as (pass name, text)."""

class CompiledGraph:
    ir: str  # the optimised IR
    def __call__(self, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
        """Run with the GIL released on arrays of the parameter types (any strides; a Python
        scalar of the matching kind where a parameter is weak); returns new C-contiguous arrays.
        Wrong count or type/dtype: TypeError; wrong shape or unaligned data: ValueError.
        Errors the graph's loops and element accesses raise keep NumPy's and Python's type and
        message: IndexError (an index out of bounds), ValueError (`range()` with step 0, an
        integer to a negative integer power)."""

def compile_ir(text: str, num_threads: int = 0) -> CompiledGraph:
    """Parse, verify, optimise and compile IR of version 1 or 2 (loops, branches, element
    access). IRError for bad IR, NotImplementedError for an op or shape the native back end
    does not handle (e.g. symbolic dims, array operations inside a branch)."""
