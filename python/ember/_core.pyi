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
    the frame's function first), `(guards, entry, takes_function, direct)`, `SKIP`,
    `CACHE_ONLY`, or `None` (run this frame normally, store nothing).

    `direct`, when not None, says that `entry` only runs one native graph on the frame's
    arguments: `(graph, inputs, outputs, returns_tuple, fallback)` with `graph` a
    `CompiledGraph`, `inputs` a pair `(argument slot, attribute name or None)` per graph
    input (the argument itself, or its attribute as `self.w`), `outputs` pairs
    `(output index, form)` (0: the array, 1: `out[()]`, 2: `out.item()`; also `(0, 3,
    constant)`, `(slot, 4)` an argument, `(0, 5, name)` a global, `(k, 6, a, b)` the value
    `a` or `b` as output `k` is true or not, see `codegen.py: direct_form`), and
    `fallback(func, *args)` what the entry runs when the graph raises. `Dispatch` runs such
    an entry natively on a cache hit (keyword arguments and defaults bound as Python binds
    them), when its guards can be checked without running Python code.
    """

class Dispatch:
    """Native base class of `ember.api.CompiledFunction`: every call of an instance goes
    through its vectorcall slot, which answers a cache hit on a direct entry (see
    `set_callback`) of the bound function natively, for positional calls with no trace or
    profile function set, and hands any other call to the subclass's `__call__`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None: ...
    def _bind(self, func: Callable[..., Any], token: int,
              scope: tuple[Any, Any] | None = None) -> None:
        """Set the function and options token of the fast path; with `scope`, `(opts,
        gc_pause.state)`, entries with Python around their graph are called from it too."""

def current_options() -> Any:
    """This thread's current options (`policy.active.current`), or None."""

def swap_options(opts: Any) -> Any:
    """Make `opts` (or None) this thread's current options, returning the previous ones."""

class Continuation:
    """What a step function returns at a graph break: call `resume_code` (with `closure`, a
    tuple of cells or None) on `values` to go on with the frame."""

    resume_code: CodeType
    closure: tuple[Any, ...] | None
    values: tuple[Any, ...]
    def __init__(self, resume_code: CodeType, closure: tuple[Any, ...] | None,
                 *values: Any) -> None: ...

def trampoline(result: Any, fn_globals: dict[str, Any]) -> Any:
    """Follow continuations until a frame returns a plain result: each resume function is
    made in `fn_globals` (as `FunctionType(code, fn_globals, code.co_name, None, closure)`)
    and called with its values."""

def enable(token: int | bool) -> int:
    """Set this thread's enable token, returning the previous one: 0 (False) turns the hook
    off on this thread, any other value turns it on, and entries are stored under the token in
    force and used only under it (`ember.compile` gives each set of options its own). The
    eval-frame function is installed (chained to the one found) the first time a thread
    enables it."""

def uninstall() -> None:
    """Restore the previous eval-frame function."""

def hook_installed() -> bool:
    """Whether ember's eval-frame function is installed (`enable` installs it)."""

def mark_skip(code: CodeType) -> None:
    """Never hand frames of `code` to the callback (kept across `reset`)."""

def cache_size(code: CodeType) -> int: ...
def clear_cache(code: CodeType) -> None:
    """Drop `code`'s entries and the callback's SKIP/CACHE_ONLY answer for it."""

def reset() -> None:
    """Drop every cache entry of every code seen (the entries' guards and callables) and the
    callback's SKIP/CACHE_ONLY answers, and zero `hook_stats`."""

def hook_stats() -> dict[str, int]:
    """frames_seen, frames_skipped, cache_hits, cache_misses, guard_failures, native_calls
    (cache hits answered by `Dispatch`'s fast path, counted in frames_seen and cache_hits
    too), hook_direct_calls (cache hits of the frame hook on a direct entry, its graph run
    without the entry's Python code)."""

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
#                                         ("globals_dict", None)  ("builtins_dict", None)
#                                                          -- the frame's globals/builtins dicts
# Child accessors read the parent value:  ("attr", name)  ("item", index_or_key)
# A value that cannot be read (missing global, attribute error, index out of range) fails.
# Checks on the node's value:
#   ("TYPE_MATCH", type)          exact type (type(v) is t)
#   ("ID_MATCH", obj)             v is obj (functions, modules, Python classes and their
#                                 instances are held weakly: a dead one matches nothing; the
#                                 same for TYPE_MATCH's type)
#   ("ADDRESS_MATCH", obj)        id(v) == id(obj); obj is not kept alive (globals/builtins
#                                 dicts, which hold the function whose code holds the guard)
#   ("DICT_LACKS", name)          v is a dict and name not in v
#   ("MODULE_ATTR_IS", name, obj) v is a module and v.__dict__[name] is obj
#   (DICT_LACKS and MODULE_ATTR_IS pass at once while the dict's version tag is the one they
#   last passed with)
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
        A run that raised a floating-point flag the caller's `np.errstate` does not ignore
        returns `fp_rerun(*inputs)` instead, when one is set. Errors the graph's loops and
        element accesses raise keep NumPy's and Python's type and message: IndexError (an index
        out of bounds), ValueError (`range()` with step 0, an integer to a negative integer
        power)."""
    def set_output_layouts(self, rule: Callable[[tuple[tuple[int, ...], ...]], list[list[int]]],
                           c_orders: list[list[int]]) -> None: ...
    def set_fp_rerun(self, rerun: Callable[..., tuple[np.ndarray, ...]] | None) -> None:
        """What reruns the graph with NumPy when a run raised a floating-point flag that the
        caller's `np.errstate` does not ignore (None: keep the native results)."""

def set_recycle_budget(bytes: int) -> None:
    """Bytes of output arrays that compiled graphs keep for reuse, all graphs together (least
    recently used evicted first; 0 keeps none). `ember.config.recycle_bytes` sets it."""

def recycle_usage() -> tuple[int, int]:
    """(budget, bytes held now) of the recycled outputs."""

def set_disk_cache(dir: str | None, max_bytes: int, salt: str) -> None:
    """Turns the persistent compile cache on in `dir` (created at the first write), bounded
    by `max_bytes`, every key salted with `salt`; None turns it off. `ember.config.cache_dir`
    and `cache_max_bytes` set it."""

def disk_cache_stats() -> dict[str, int]:
    """Since the process started, per compiled function: `disk_hits`, `disk_misses`,
    `disk_writes`, `disk_rejected` (files ignored: truncated, corrupted, other versions),
    `disk_evictions` (files removed to stay under the bound)."""

def compile_ir(text: str, num_threads: int = 0,
               example_shapes: list[tuple[int, ...]] | None = None) -> CompiledGraph:
    """Parse, verify, optimise and compile IR of version 1 or 2 (loops, branches, element
    access). A graph with symbolic dims (`f32[s0,3]`) generates its kernels once and takes any
    sizes at run time (each new binding of its symbols is planned, without code generation);
    `example_shapes`, one shape per input, plans one binding now. IRError for bad IR,
    NotImplementedError for an op or shape the native back end does not handle (e.g. array
    operations inside a branch), ValueError at a call whose inputs give one symbol two sizes."""

def codegen_counters() -> tuple[int, int]:
    """(kernels generated by Cranelift, plans made for new bindings of symbolic graphs), counted
    over the whole process: what `ember.stats()` reports as `kernels_generated` and
    `shape_plans`."""

def joint_partition(
    text: str, wrt: list[int], differentiate_outputs: list[bool], min_cut: bool = True
) -> tuple[str, str, dict[str, Any]]:
    """Differentiate the graph `text` with respect to inputs `wrt`, seeding a cotangent for
    each output flagged in `differentiate_outputs`, and split the joint graph (min cut, or
    saving every value the backward reads). Returns (forward IR, backward IR, report):
    the forward graph takes the inputs and returns the outputs then extra residuals; the
    backward graph takes the residuals then one cotangent per flagged output and returns one
    gradient per `wrt` input. Report keys: joint (IR), saved (joint value names), residuals
    (("input", i) or ("output", j) per backward residual parameter), residual_bytes,
    save_all_bytes, text (a readable account). IRError names an op without a gradient rule."""

def fusion_groups(text: str) -> tuple[list[str], list[int | None]]:
    """The code generator's schedule of the graph `text` as it stands (no passes): the kind
    of each step (`kernel`, `matmul`, `scan`, `native`, `loop`) and, per statement, the
    index of the step computing it (a fused kernel, or its own extern step), None where no
    step does. NotImplementedError where the native back end cannot schedule the graph."""

def op_table() -> list[tuple[str, str, str]]:
    """The core's ops that mean one NumPy function, as `(class, IR name, NumPy name)`; class is
    `unary`, `binary`, `reduce`, `arg_reduce`, `scan` or `linalg` (NumPy names relative to
    `numpy`: `linalg.solve`)."""

def set_blas(addresses: tuple[int, int, int, int] | None, ilp64: bool = True) -> bool:
    """Float products call this CBLAS (addresses of `sgemm`, `dgemm`, `sgemv`, `dgemv` of a
    library loaded in the process; `ilp64`: 64-bit integers); None: the `gemm` crate. Returns
    whether one was registered before. Wrong addresses crash the process."""

def set_lapack(addresses: tuple[int, int, int, int, int, int] | None,
               ilp64: bool = True) -> None:
    """The np.linalg ops call these LAPACK routines (addresses of `dgesv_`, `dgetrf_`,
    `dpotrf_`, `dsyevd_`, `dgelsd_`, `dgesdd_`); None: native compilation refuses graphs with them. Wrong addresses crash the
    process."""


def set_ufunc_loop(op: str, dtype: str, func: int, data: int) -> bool:
    """Kernels apply unary op `op` (IR name) on `dtype` ("f32", "f64") to long rows through
    NumPy's inner loop at address `func` (with its `data` entry); 0, 0 removes it. False for
    an unknown op or dtype. A wrong address crashes the process."""


def set_sort_loop(dtype: str, positions: bool, stable: bool, func: int) -> bool:
    """Compiled sorts of `dtype` (IR name) run NumPy's sort function at `func` (`positions`:
    its argsort function; `stable`: kind="stable", else the default kind); 0 removes it.
    False for an unknown dtype. A wrong address crashes the process."""


def sort_loop_lines() -> int:
    """Lines compiled sorts have handed to NumPy's sort functions so far."""


def ufunc_loop_calls() -> int:
    """Blocks of elements compiled kernels have handed to NumPy's loops so far."""
