"""The Cranelift backend: a graph's IR text compiled to native kernels by the Rust core.

`compile(graph, example_inputs)` hands `graph.to_ir()` to `ember._core.compile_ir` and returns
the native `CompiledGraph` itself, so a call costs one native call and no Python frame: the
native side checks the inputs, allocates the outputs and runs the kernels with the GIL released.

The code generator compiles static shapes. A graph with symbolic dims (`f32[s0,3]`, from
dynamic capture) is specialised at call time: the symbols are bound from the input shapes,
substituted into the IR text and that text compiled, with a few specialisations kept per graph
(a compile takes milliseconds; a steady shape costs one dict lookup per call).

A graph the native compiler rejects (an op or dtype it lacks), or one native kernels cannot
run as NumPy does (`eager_reason`: integer powers that must raise on negative exponents), runs
with the eager backend instead -- unless it holds loop or if ops: those raise `RegionsRejected`
and capture takes the frame again without them (see `eager_or_recapture`). The reason is
counted in `ember.stats()["backend_fallbacks"]`
and logged on the `backend` channel (`EMBER_LOGS=backend`). The program never fails because
of it.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ember import _core
from ember import logging as ember_logging
from ember.backends import blas, eager
from ember.config import config
from ember.errors import RegionsRejected
from ember.graph import Graph
from ember.graph.regions import REGION_OPS
from ember.stats import count, record_backend_fallback

Compiled = Callable[..., tuple[np.ndarray, ...]]

blas.register()

# Specialisations kept per symbolic graph: enough for a few alternating batch sizes, few enough
# that a stream of ever-new shapes does not hoard JIT memory.
SPECIALISATION_LIMIT = 8

# A bracketed dim or attribute list of the IR text (`[s0,3]`, `shape=[s0,4]`, `axis=[1]`).
_BRACKETS = re.compile(r"\[([^\[\]]*)\]")


def compile(graph: Graph, example_inputs: Sequence[Any], *,
            num_threads: int | None = None) -> Compiled:
    """The backend entry point: `compile(graph, example_inputs)(*arrays) -> tuple of arrays`.

    `num_threads`: threads for large kernels (0: one per core, 1: the calling thread only);
    None takes `ember.config.num_threads` (`EMBER_NUM_THREADS`)."""
    threads = config.num_threads if num_threads is None else int(num_threads)
    if threads < 0:
        raise ValueError(f"num_threads must be 0 (one per core) or more, got {threads}")
    text = graph.to_ir()
    reason = eager_reason(graph)
    if reason is not None:
        return eager_or_recapture(graph, text, example_inputs, reason)
    symbolic = symbolic_inputs(graph)
    if symbolic:
        specialising = SpecialisingGraph(graph, text, symbolic, threads, example_inputs)
        if not specialising.rejected:
            return specialising.dispatcher()
        return eager_or_recapture(graph, text, example_inputs, specialising.reason)
    native = try_native(graph, text, threads)
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


def try_native(graph: Graph, text: str, num_threads: int) -> Compiled | str:
    """The native compiled graph, or why the core rejects it.

    A run whose kernels raised a floating-point flag that the caller's `np.errstate` does not
    ignore is run again op by op with NumPy (`fp_rerun`), so warnings, `FloatingPointError`
    and errstate handlers are NumPy's own."""
    try:
        native = _core.compile_ir(text, num_threads)
        native.set_fp_rerun(numpy_rerun(graph))
        return native
    except Exception as exc:  # noqa: BLE001 -- any rejection means: do not run it natively
        return f"{type(exc).__name__}: {exc}"
    except BaseException as exc:
        # A panic in the code generator arrives as PyO3's PanicException, which derives from
        # BaseException: a bug in ember, but still no reason to fail the user's program.
        if type(exc).__name__ != "PanicException":
            raise
        return f"{type(exc).__name__}: {exc}"


def numpy_rerun(graph: Graph) -> Compiled:
    """The graph run op by op with NumPy, every output a new array as the native graph's are
    (an eager view of an input must not let the caller write through to it)."""

    def rerun(*args: Any) -> tuple[np.ndarray, ...]:
        count("fp_reruns")
        return tuple(np.array(out, copy=True) for out in eager.run(graph, *args))

    return rerun


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


def symbolic_inputs(graph: Graph) -> tuple[int, ...]:
    """Positions of the inputs whose shape holds a symbol."""
    return tuple(i for i, v in enumerate(graph.inputs)
                 if any(isinstance(d, str) for d in v.shape))


class SpecialisingGraph:
    """A graph with symbolic dims, compiled once per concrete shape of its symbolic inputs;
    `dispatcher()` is what calls go through."""

    __slots__ = ("_cache", "_inputs", "graph", "num_threads", "reason", "rejected", "symbolic",
                 "text")

    def __init__(self, graph: Graph, text: str, symbolic: tuple[int, ...], num_threads: int,
                 example_inputs: Sequence[Any]) -> None:
        self.graph = graph
        self.text = text
        self.symbolic = symbolic
        self.num_threads = num_threads
        self._inputs = graph.inputs
        self._cache: dict[tuple[tuple[int, ...], ...], Compiled] = {}
        # Compile for the example now: the first call does not pay for a compile, and a graph
        # the core rejects for these shapes (an op it lacks) is reported once and run eagerly
        # as a whole rather than tried again for every new shape.
        self.rejected = False
        self.reason = ""
        if len(example_inputs) == len(graph.inputs):
            try:
                sizes = self.bind(tuple(np.shape(example_inputs[i]) for i in symbolic))
            except ValueError:  # examples that do not fit the types: the first call tells
                return
            native = try_native(graph, specialise_text(text, sizes), num_threads)
            if isinstance(native, str):
                self.rejected = True
                self.reason = native
            else:
                self._cache[tuple(np.shape(example_inputs[i]) for i in symbolic)] = native

    def dispatcher(self) -> Compiled:
        """The callable the backend returns: a plain function, generated for this graph's
        symbolic positions, that takes their shapes as the cache key and calls the native graph
        (a method call and a loop over positions would cost as much as the native call)."""
        key = "".join(f"args[{i}].shape, " for i in self.symbolic)
        source = (
            "def dispatch(*args):\n"
            "    try:\n"
            f"        key = ({key})\n"
            "    except (AttributeError, IndexError):\n"
            "        raise bad_inputs(args) from None\n"
            "    compiled = get(key)\n"
            "    if compiled is None:\n"
            "        compiled = specialise(args, key)\n"
            "    return compiled(*args)\n"
        )
        namespace = {"get": self._cache.get, "specialise": self._specialise,
                     "bad_inputs": self._bad_inputs}
        # The `<ember` filename keeps the frame hook away from the dispatcher's frames.
        code = builtins.compile(source, f"<ember cranelift @{self.graph.name}>", "exec")
        exec(code, namespace)  # noqa: S102
        dispatch = namespace["dispatch"]
        dispatch.specialising = self
        return dispatch

    def _bad_inputs(self, args: tuple[Any, ...]) -> TypeError:
        if len(args) != len(self._inputs):
            return TypeError(f"the compiled graph takes {len(self._inputs)} input(s), "
                             f"got {len(args)}")
        for i in self.symbolic:
            if not isinstance(args[i], np.ndarray):
                return TypeError(f"input {i}: expected a numpy.ndarray of type "
                                 f"{self._inputs[i].type_str}, got {type(args[i]).__name__}")
        return TypeError("the compiled graph takes numpy.ndarray inputs")

    def _specialise(self, args: Sequence[Any], key: tuple[tuple[int, ...], ...]) -> Compiled:
        sizes = self.bind(key)
        text = specialise_text(self.text, sizes)
        compiled = compile_native(self.graph, text, self.num_threads)
        if compiled is None:
            compiled = eager.compile(self.graph, args)
        if len(self._cache) >= SPECIALISATION_LIMIT:
            del self._cache[next(iter(self._cache))]  # the oldest specialisation goes first
        self._cache[key] = compiled
        return compiled

    def bind(self, key: tuple[tuple[int, ...], ...]) -> dict[str, int]:
        """The size of each symbol given the shapes of the symbolic inputs; a shape that does
        not fit the graph's types raises ValueError naming the input."""
        sizes: dict[str, int] = {}
        for i, shape in zip(self.symbolic, key, strict=True):
            value = self._inputs[i]
            if len(shape) != value.ndim:
                raise ValueError(f"input {i}: expected shape {value.type_str}, got "
                                 f"{list(shape)}")
            for axis, (dim, size) in enumerate(zip(value.shape, shape, strict=True)):
                if isinstance(dim, str):
                    bound = sizes.setdefault(dim, size)
                    if bound != size:
                        raise ValueError(f"input {i}: dimension {axis} is {size}, but {dim} = "
                                         f"{bound} from an earlier input")
                elif dim != size:
                    raise ValueError(f"input {i}: expected shape {value.type_str}, got "
                                     f"{list(shape)}")
        return sizes


def specialise_text(text: str, sizes: dict[str, int]) -> str:
    """The IR text with every symbolic dim replaced by its size: symbols only occur inside
    bracketed lists (types and the `shape=` of reshape and broadcast_to)."""

    def substitute(match: re.Match[str]) -> str:
        items = match.group(1).split(",")
        return "[" + ",".join(str(sizes.get(item, item)) for item in items) + "]"

    return _BRACKETS.sub(substitute, text)
