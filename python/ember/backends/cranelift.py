"""The Cranelift backend: a graph's IR text compiled to native kernels by the Rust core.

`compile(graph, example_inputs)` hands `graph.to_ir()` to `ember._core.compile_ir` and returns
the native `CompiledGraph` itself, so a call costs one native call and no Python frame: the
native side checks the inputs, allocates the outputs and runs the kernels with the GIL released.

A graph with symbolic dims (`f32[s0,3]`, from dynamic capture) is native too: its kernels take
their sizes at run time, so they are generated once (for the example inputs, here) and every
call binds the symbols from its input shapes; a new binding costs a plan (microseconds), never
code generation. Inputs that give one symbol two sizes raise ValueError.

A graph the native compiler rejects (an op or dtype it lacks), or one native kernels cannot
run as NumPy does (`eager_reason`: integer powers that must raise on negative exponents), runs
with the eager backend instead -- unless it holds loop or if ops: those raise `RegionsRejected`
and capture takes the frame again without them (see `eager_or_recapture`). The reason is
counted in `ember.stats()["backend_fallbacks"]`
and logged on the `backend` channel (`EMBER_LOGS=backend`). The program never fails because
of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ember import _core
from ember import logging as ember_logging
from ember.backends import blas, eager, fp_warnings, numpy_loops
from ember.backends.scalar_overflow import with_checks
from ember.config import config
from ember.errors import RegionsRejected, RunFrameAsPython
from ember.graph import Graph, layouts
from ember.graph.regions import REGION_OPS, region_funcs
from ember.stats import count, expect_fp_fallback, record_backend_fallback

Compiled = Callable[..., tuple[np.ndarray, ...]]

blas.register()
numpy_loops.register()
numpy_loops.register_sorts()


Prepared = tuple[str, list[list[int]] | None]


def compile(graph: Graph, example_inputs: Sequence[Any], *,
            num_threads: int | None = None, prepared: Prepared | None = None) -> Compiled:
    """The backend entry point: `compile(graph, example_inputs)(*arrays) -> tuple of arrays`.

    `num_threads`: threads for large kernels (0: one per core, 1: the calling thread only);
    None takes `ember.config.num_threads` (`EMBER_NUM_THREADS`). `prepared`: what
    `prepare(graph)` gave for this same graph in an earlier process (a stored entry's record,
    `capture/stored.py`), so that a warm start neither prints the graph nor works out its
    output layouts again."""
    threads = config.num_threads if num_threads is None else int(num_threads)
    if threads < 0:
        raise ValueError(f"num_threads must be 0 (one per core) or more, got {threads}")
    text, c_orders = prepare(graph) if prepared is None else prepared
    reason = eager_reason(graph)
    if reason is not None:
        return eager_or_recapture(graph, text, example_inputs, reason)
    native = try_native(graph, text, threads, example_shapes(graph, example_inputs), c_orders)
    if not isinstance(native, str):
        return native
    return eager_or_recapture(graph, text, example_inputs, native)


def eager_or_recapture(graph: Graph, text: str, example_inputs: Sequence[Any],
                       reason: str) -> Compiled:
    """The eager run of a graph native code cannot run, or -- where it holds loop or if ops,
    which the eager backend runs op by op, hundreds of times slower than Python --
    `RegionsRejected`, so that capture takes the frame again without region ops. `reason`
    is recorded here when the rejection was not already recorded."""
    if any(node.op in REGION_OPS for node in graph.nodes):
        count("region_recaptures")
        if ember_logging.enabled("backend"):
            ember_logging.log("backend", f"graph @{graph.name} is captured again without "
                                         f"loop ops: {reason}\n{text}")
        raise RegionsRejected(f"graph @{graph.name}: {reason}")
    record_fallback(graph, text, reason)
    return eager.compile(graph, example_inputs)


_VERSION_2_PROBE = """ember-ir 2
func @probe(%0: f64[2]) -> (f64[2]) {
  %1 = const() value=0 : i64[] weak
  %2 = const() value=2 : i64[] weak
  %3 = const() value=1 : i64[] weak
  %4 = loop(%1, %2, %3, %0) body=@probe_loop0 carried=1 : f64[2]
  return %4
}
func @probe_loop0(%0: i64[] weak, %1: f64[2]) -> (bool[], f64[2]) {
  %2 = load(%1, %0) : f64[]
  %3 = store(%1, %2, %0) : f64[2]
  %4 = const() value=true : bool[]
  return %4, %3
}
"""
_parses_version_2: list[bool] = []


def parses_version_2() -> bool:
    """Whether the native core compiles IR version 2 (loops): asked once, with a probe."""
    if not _parses_version_2:
        try:
            _core.compile_ir(_VERSION_2_PROBE, 1)
        except Exception:  # noqa: BLE001 -- any rejection means: no loop ops
            _parses_version_2.append(False)
        else:
            _parses_version_2.append(True)
    return _parses_version_2[0]


def compile_native(graph: Graph, text: str, num_threads: int) -> Compiled | None:
    """The native compiled graph, or None (recorded and logged) where the core rejects it."""
    native = try_native(graph, text, num_threads)
    if isinstance(native, str):
        record_fallback(graph, text, native)
        return None
    return native


def example_shapes(graph: Graph, example_inputs: Sequence[Any]) -> list[tuple[int, ...]] | None:
    """The example inputs' shapes, for a graph with symbolic dims to plan (and generate its
    kernels) at compile time; None when the graph is static or the examples do not fit."""
    if not any(isinstance(d, str) for v in graph.inputs for d in v.shape):
        return None
    if len(example_inputs) != len(graph.inputs):
        return None
    shapes = [tuple(np.shape(x)) for x in example_inputs]
    if any(len(s) != v.ndim for s, v in zip(shapes, graph.inputs, strict=True)):
        return None
    return shapes


def prepare(graph: Graph) -> Prepared:
    """What compiling `graph` works out in Python before the native core takes it: its IR
    text (with the scalar overflow checks) and its outputs' orders for C-contiguous inputs
    (None where every output is 0-d or 1-d)."""
    return with_checks(graph).to_ir(), c_orders_of(graph)


def try_native(graph: Graph, text: str, num_threads: int,
               shapes: list[tuple[int, ...]] | None = None,
               c_orders: list[list[int]] | None = None) -> Compiled | str:
    """The native compiled graph, or why the core rejects it (`shapes`: the example inputs'
    shapes, planned now when the graph has symbolic dims; `c_orders`: `c_orders_of(graph)`,
    worked out beforehand, or None to work it out here).

    A run whose kernels raised a floating-point flag that the caller's `np.errstate` does not
    ignore is run again op by op with NumPy (`fp_rerun`), so warnings, `FloatingPointError`
    and errstate handlers are NumPy's own."""
    try:
        if shapes is None:
            native = _core.compile_ir(text, num_threads)
        else:
            native = _core.compile_ir(text, num_threads, shapes)
        native.set_fp_rerun(numpy_rerun(graph))
        blocks = fp_warnings.block_modes(graph)
        if blocks is not None:
            native.set_block_errstate(*blocks)
        set_layouts(native, graph, c_orders)
        log_listings(graph, text)
        return native
    except Exception as exc:  # noqa: BLE001 -- any rejection means: do not run it natively
        return f"{type(exc).__name__}: {exc}"
    except BaseException as exc:
        # A panic in the code generator arrives as PyO3's PanicException, which derives from
        # BaseException: a bug in ember, but still no reason to fail the user's program.
        if type(exc).__name__ != "PanicException":
            raise
        return f"{type(exc).__name__}: {exc}"


def log_listings(graph: Graph, text: str) -> None:
    """The Cranelift IR and machine code of `graph`'s functions, on the `clif` channel."""
    if not ember_logging.enabled("clif"):
        return
    try:
        listings = _core.disassemble_ir(text)
    except Exception as exc:  # noqa: BLE001 -- a listing is a debugging aid, never a failure
        listings = [f"(no listing: {type(exc).__name__}: {exc})"]
    for listing in listings:
        ember_logging.log("clif", f"graph @{graph.name}: {listing}")


def c_orders_of(graph: Graph) -> list[list[int]] | None:
    """The outputs' memory orders for C-contiguous inputs, or None where every output is 0-d
    or 1-d (one order each)."""
    if not any(v.ndim > 1 for v in graph.outputs):
        return None
    c_strides = [layouts.c_strides(v.shape, v.dtype.itemsize) for v in graph.inputs]
    return layouts.output_orders(graph, c_strides)


def set_layouts(native: Any, graph: Graph, c_orders: list[list[int]] | None = None) -> None:
    """Outputs in NumPy's memory order for the inputs' layouts (`graph/layouts.py`): the
    answer for C-contiguous inputs now (`c_orders`, or worked out here), others when a call
    meets them."""
    if not any(v.ndim > 1 for v in graph.outputs):
        return  # 0-d and 1-d outputs have one order

    def rule(strides: tuple[tuple[int, ...], ...]) -> list[list[int]]:
        return layouts.output_orders(graph, strides)

    native.set_output_layouts(rule, c_orders_of(graph) if c_orders is None else c_orders)


def numpy_rerun(graph: Graph) -> Compiled:
    """The graph run op by op with NumPy, every output a new array as the native graph's are
    (an eager view of an input must not let the caller write through to it). A graph with
    loops (loop ops, or trips capture unrolled) that a frame's entry calls has the entry run
    the frame as plain Python instead: run op by op, each trip pays the eager backend's
    cost per op (a 20-trip unrolled loop of two ufuncs took 16 times NumPy's time, a
    300-trip loop of scalar divisions 46 times), where the frame as Python costs NumPy's
    own time and gives NumPy's own warnings."""
    as_python = graph.frame_fallback and (graph.unrolled_loop or _has_loop(graph))

    def rerun(*args: Any) -> tuple[np.ndarray, ...]:
        count("fp_reruns")
        if as_python:
            expect_fp_fallback()
            raise RunFrameAsPython(graph.name)
        fresh = tuple(np.array(out, copy=True) for out in eager.run_checked(graph, *args))
        return layouts.arrange(graph, args, fresh)

    return rerun


def _has_loop(graph: Graph) -> bool:
    return any(node.op == "loop" for func in (graph, *region_funcs(graph)) for node in func.nodes)


def eager_reason(graph: Graph) -> str | None:
    """Why a graph the core would compile must run eagerly to behave as NumPy does, or None.

    Integer `pow` raises ValueError in NumPy when an exponent is negative; native kernels
    cannot raise, so a signed exponent known only at run time keeps the graph eager (the
    generated entry then re-runs the frame as Python, and the user sees NumPy's error)."""
    producers = {node.out.id: node for node in graph.nodes}
    for node in graph.nodes:
        if node.op != "pow" or node.out.dtype.kind not in "iu":
            continue
        exponent = node.inputs[1]
        if exponent.dtype.kind in "ub":
            continue
        source = producers.get(exponent.id)
        if source is None or source.op != "const" or source.attrs["value"] < 0:
            return "pow of integers with a signed exponent known only at run time"
    return None


def record_fallback(graph: Graph, text: str, exc: BaseException | str) -> None:
    reason = exc if isinstance(exc, str) else f"{type(exc).__name__}: {exc}"
    record_backend_fallback(reason)
    if ember_logging.enabled("backend"):
        ember_logging.log("backend", f"graph @{graph.name} runs eagerly: {reason}\n{text}")
