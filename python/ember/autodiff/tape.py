"""Recording graph runs on a tape, and running the tape backward.

While a differentiated function runs, each graph that capture hands to the autodiff backend is
a `Taped` graph. A run whose inputs the innermost active tape tracks (the differentiated
arguments, or outputs of earlier recorded runs) runs the forward half of the graph's
partitioned joint graph, which also returns residuals, and leaves a `Record` on the tape.
Arrays are linked from run to run by identity (the tape keeps them alive, so identities stay
unique); 0-d results reach the next graph as new NumPy scalars, so they are also matched by
value, the latest first. Anything else that reaches a graph (a `float(x)` taken in Python, a
global array) is a constant.

Backward, each record's backward graph receives its residuals and the cotangents of its
outputs and returns the cotangents of its tracked inputs. Backward graphs and the additions
that accumulate cotangents are `Taped` graphs themselves: when an outer tape is active (grad
of grad) they are recorded on it like any other run.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Self

import numpy as np

from ember import _core
from ember import logging as ember_logging
from ember.autodiff.report import AotReport
from ember.backends import lookup_backend
from ember.graph import Graph
from ember.graph.parse import from_ir

Origin = tuple[int, int]  # (record index, output index), or (-1, leaf index)

_local = threading.local()


def active_tapes() -> list[Tape]:
    tapes = getattr(_local, "tapes", None)
    if tapes is None:
        tapes = _local.tapes = []
    return tapes


@dataclass
class Record:
    split: Split
    inputs: list[Origin | None]  # the origin of each differentiated input
    residuals: list[Any]


@dataclass
class Tape:
    records: list[Record] = field(default_factory=list)
    origins: dict[int, Origin] = field(default_factory=dict)
    alive: list[Any] = field(default_factory=list)
    scalars: list[tuple[float, np.dtype | str, Origin]] = field(default_factory=list)
    # Arrays this tape made read-only while the function runs forward (see `protect`).
    protected: list[np.ndarray] = field(default_factory=list)
    # The first graph that could not be differentiated. Compiled entries rerun a frame as
    # plain Python when their graph raises (for NumPy's own error), which would lose the
    # gradient silently: the function's caller raises this instead.
    failure: Exception | None = None
    # Errors capture expected Python to raise from the user's line (NumPy's, by a rule's
    # reading), the frame then run as plain Python: one that does not come is a rule's
    # mistake, after which Python computed unseen; the function's caller raises then.
    expected_errors: list[tuple[str, Exception]] = field(default_factory=list)

    def __enter__(self) -> Self:
        active_tapes().append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        active_tapes().remove(self)

    def watch(self, obj: Any, origin: Origin, weak: bool = False) -> None:
        """Track `obj`; a 0-d array also by its value, under its dtype, or "weak" where it
        reaches Python as a Python float (a weak graph output, converted by `.item()`). A
        Python float (a float leaf) is followed by identity alone: an equal float elsewhere
        is a constant."""
        self.origins[id(obj)] = origin
        self.alive.append(obj)
        self.protect(obj)
        if np.ndim(obj) == 0 and type(obj) is not float:
            kind = "weak" if weak else np.asarray(obj).dtype
            self.scalars.append((float(obj), kind, origin))

    def protect(self, obj: Any) -> None:
        """Make a tracked or saved array read-only until `release`: an in-place update of it
        while the function runs would change a value the backward pass reads (NumPy then
        raises, as it does for any read-only array)."""
        if isinstance(obj, np.ndarray) and obj.flags.writeable:
            obj.flags.writeable = False
            self.protected.append(obj)

    def release(self) -> None:
        for array in self.protected:
            array.flags.writeable = True
        self.protected.clear()

    def lookup(self, obj: Any) -> Origin | None:
        origin = self.origins.get(id(obj))
        if origin is not None or not self.scalars:
            return origin
        if type(obj) is float:
            value, kind = obj, "weak"
        elif isinstance(obj, (np.ndarray, np.generic)) and obj.ndim == 0 and obj.dtype.kind == "f":
            value, kind = float(obj), obj.dtype
        else:
            return None
        for known, known_kind, origin in reversed(self.scalars):
            same = known == value or (math.isnan(known) and math.isnan(value))
            if same and type(known_kind) is type(kind) and known_kind == kind:
                return origin
        return None

    def tracks_any(self, args: Sequence[Any]) -> bool:
        return any(self.lookup(a) is not None for a in args)


def _python_scalar(value: Any) -> Any:
    """A weak residual as the Python bool, int or float the graph takes; a Python number
    stays the object it is (a float leaf is followed by identity)."""
    if type(value) in (bool, int, float):
        return value
    return np.asarray(value).item()


@dataclass
class Split:
    """One graph differentiated with respect to some inputs: the forward half (outputs, then
    extra residuals), the backward half and where each residual comes from."""

    wrt: tuple[int, ...]
    forward: Taped
    backward: Taped
    residuals: list[tuple[str, int]]
    residual_weak: list[bool]
    num_outputs: int
    differentiated: list[int]  # outputs that take a cotangent
    zeros: list[tuple[tuple[int, ...], np.dtype]]  # their shapes and dtypes
    report: dict[str, Any]


# Listeners receiving each new split's report (ember.explain collects them).
split_listeners: list[Callable[[AotReport], None]] = []


class Taped:
    """A graph that runs plainly when no tape tracks its inputs and differentiably otherwise."""

    def __init__(self, graph: Graph, backend: str) -> None:
        self.graph = graph
        self.backend = backend
        self._plain: Callable[..., tuple[Any, ...]] | None = None
        self._splits: dict[tuple[int, ...], Split] = {}

    def __call__(self, *args: Any) -> tuple[Any, ...]:
        # Called from compiled code with the frame hook on: the bookkeeping below (dataclass
        # constructors, graph building on a first run) must not be captured itself.
        previous = _core.enable(False)
        try:
            return self.run(args, active_tapes())
        finally:
            _core.enable(previous)

    def run(self, args: Sequence[Any], tapes: Sequence[Tape]) -> tuple[Any, ...]:
        tapes = [t for t in tapes if t.tracks_any(args)]
        if not tapes:
            if self._plain is None:
                self._plain = lookup_backend(self.backend)(self.graph, args)
            return self._plain(*args)
        tape, outer = tapes[-1], tapes[:-1]
        origins = [tape.lookup(a) for a in args]
        wrt = tuple(i for i, (v, o) in enumerate(zip(self.graph.inputs, origins, strict=True))
                    if o is not None and v.dtype.kind == "f")
        if not wrt:
            return self.run(args, outer)
        split = self._splits.get(wrt)
        if split is None:
            try:
                split = self._splits[wrt] = self._split(wrt)
            except Exception as exc:
                tape.failure = tape.failure or exc
                raise
        outs = split.forward.run(args, outer)
        residuals = [args[i] if kind == "input" else outs[i] for kind, i in split.residuals]
        residuals = [_python_scalar(r) if weak else r
                     for r, weak in zip(residuals, split.residual_weak, strict=True)]
        for r in residuals:
            tape.protect(r)
        index = len(tape.records)
        tape.records.append(Record(split, [origins[i] for i in wrt], residuals))
        for j in split.differentiated:
            tape.watch(outs[j], (index, j), weak=self.graph.outputs[j].weak)
        return tuple(outs[:split.num_outputs])

    def _split(self, wrt: tuple[int, ...]) -> Split:
        outputs = self.graph.outputs
        flags = [v.dtype.kind == "f" for v in outputs]
        fwd, bwd, report = _core.joint_partition(self.graph.to_ir(), list(wrt), flags)
        report["function"] = self.graph.name
        # The joint graph starts with the forward graph's parameters and statements.
        report["primals"] = len(self.graph.inputs)
        report["forward_nodes"] = len(self.graph.nodes)
        for listener in split_listeners:
            listener(AotReport.from_core(report, fwd, bwd))
        ember_logging.log("aot", f"@{self.graph.name} differentiated with respect to inputs "
                                 f"{list(wrt)}\n{report['text']}")
        backward = from_ir(bwd)
        differentiated = [j for j, f in enumerate(flags) if f]
        return Split(
            wrt=wrt,
            forward=Taped(from_ir(fwd), self.backend),
            backward=Taped(backward, self.backend),
            residuals=[tuple(r) for r in report["residuals"]],
            residual_weak=[v.weak for v in backward.inputs[:len(report["residuals"])]],
            num_outputs=len(outputs),
            differentiated=differentiated,
            zeros=[(tuple(outputs[j].shape), outputs[j].dtype) for j in differentiated],
            report=report,
        )


_adders: dict[tuple[tuple[int, ...], np.dtype, str], Taped] = {}


def _add(a: Any, b: Any, backend: str) -> Any:
    """`a + b` of two cotangents of one value, as a graph an outer tape can record."""
    a = a if isinstance(a, np.ndarray) else np.asarray(a)
    b = b if isinstance(b, np.ndarray) else np.asarray(b)
    key = (a.shape, a.dtype, backend)
    adder = _adders.get(key)
    if adder is None:
        graph = Graph("accumulate")
        x = graph.add_input(key[1], key[0])
        y = graph.add_input(key[1], key[0])
        graph.set_outputs([graph.op("add", [x, y])])
        adder = _adders[key] = Taped(graph, backend)
    return adder(a, b)[0]


def backward(tape: Tape, seeds: Sequence[tuple[Origin, Any]], backend: str) -> dict[Origin, Any]:
    """Run the tape backward from these cotangents; the cotangents reaching the leaves."""
    cots: dict[Origin, Any] = {}

    def accumulate(origin: Origin, cot: Any) -> None:
        previous = cots.get(origin)
        cots[origin] = cot if previous is None else _add(previous, cot, backend)

    for origin, seed in seeds:
        accumulate(origin, seed)
    for index in range(len(tape.records) - 1, -1, -1):
        record = tape.records[index]
        split = record.split
        incoming = [cots.pop((index, j), None) for j in split.differentiated]
        if all(c is None for c in incoming):
            continue
        incoming = [np.zeros(shape, dtype) if c is None else c
                    for c, (shape, dtype) in zip(incoming, split.zeros, strict=True)]
        grads = split.backward(*record.residuals, *incoming)
        for origin, grad in zip(record.inputs, grads, strict=True):
            if origin is not None:
                accumulate(origin, grad)
    return {origin: cot for origin, cot in cots.items() if origin[0] == -1}


def clear() -> None:
    """Forget the accumulation graphs (for `ember.reset`)."""
    _adders.clear()
