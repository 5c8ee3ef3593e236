"""Arrays a loop body reads from outside the frame's locals: a table among the module's
globals (`CASE_TABLE[c]`, `COEFFS[k]`), an object's attribute (`self.w`).

A region sees only its parameters, and each parameter stands for a tracker the frame's
locals hold. Such an array is a graph input wrapped by its source (`VariableBuilder.cache`),
so it enters each loop body as a pseudo-local `.input#<source>`, like a local: the body's
reads of the source find its stand-in (`bind`), a branch path's its path's stand-in, and an
update in place is carried back into the frame's tracker as for locals.

An array the frame reads first inside a body cannot become an input there: capture starts
again (`InputInLoop`, caught by `convert.capture_frame`) with it read when the frame starts,
so that every loop sees it from its first trip. The value and guard are the same as when the
body read it; reading it earlier only moves its guard to the entry.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator

from ember.capture.sources import AttrSource, LocalSource, Source
from ember.capture.variables.array import ArrayVariable

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter
    from ember.capture.variables.base import VariableTracker

INPUT = ".input#"


class InputInLoop(Exception):
    """An array (or NumPy scalar) first read from `source` inside a loop body or one of its
    branch paths: capture starts again with it read when the frame starts."""

    def __init__(self, source: Source, value: Any) -> None:
        super().__init__(f"{source.name()} first read inside a loop body")
        self.source = source
        self.value = value


def preload(tracer: Any, preloads: dict[Source, Any]) -> None:
    """Wrap, at the frame's start, what an earlier capture found first read inside a loop."""
    tracer.preloads = preloads
    for source, value in preloads.items():
        tracer.wrap(value, source)


def refuse_first_read(tracer: Any, source: Source, value: Any) -> None:
    """Called before a new graph input is made: inside a region, start the capture again
    with it preloaded (once: a second refusal is a branch at the frame's level, whose paths
    do not take pseudo-locals, and breaks the graph as before)."""
    if tracer.graph.parent is not None and source not in tracer.preloads:
        raise InputInLoop(source, value)


@contextmanager
def inputs_as_locals(tx: Interpreter, rebinding: bool = True) -> Iterator[None]:
    """The graph inputs of this graph read from sources other than the frame's argument
    slots, as pseudo-locals while a loop body is traced (those already pseudo-locals of an
    enclosing loop stay as they are). `rebinding`: whether the body may rebind them (the
    paths of a branch at the frame's level may not: a path that returns keeps no locals)."""
    cache = tx.tracer.builder.cache
    added: dict[str, tuple[Source, VariableTracker]] = {}
    for source, vt in list(cache.items()):
        if ((isinstance(vt, ArrayVariable) and not isinstance(source, LocalSource)
                and vt.value.graph is tx.graph) or _preloaded_number(tx, source, vt)):
            name = INPUT + source.name()
            if name not in tx.locals:
                tx.locals[name] = vt
                added[name] = (source, vt)
                tx.tracer.input_locals[name] = source
    fixed = set(added) - tx.tracer.fixed_inputs if not rebinding else set()
    tx.tracer.fixed_inputs |= fixed
    try:
        yield
    finally:
        tx.tracer.fixed_inputs -= fixed
        for name, (source, vt) in added.items():
            final = tx.locals.pop(name, None)
            cache[source] = vt
            if final is not None and final is not vt and source in tx.tracer.attribute_rebinds:
                _store_after_loop(tx, source, final)
        rebind(tx)  # an enclosing body's or path's: what the loop op or `if` left it


def _preloaded_number(tx: Interpreter, source: Source, vt: VariableTracker) -> bool:
    """A run-time Python number read from an attribute or a global (`p.alpha`) that a body
    read first: a pseudo-local as an array is."""
    from ember.capture.variables.scalar import PythonScalarVariable

    return (isinstance(vt, PythonScalarVariable) and vt.op is None and vt.source == source
            and source in tx.tracer.preloads)


def store_attribute(tx: Interpreter, obj: Any, name: str, value: VariableTracker) -> bool:
    """`obj.name = value` in a loop body (or an inlined method it calls) where `obj.name` is
    an array the body holds as a pseudo-local: its source now reads `value`, which
    `sync` copies into the pseudo-local at the end of the trip or path, so that the loop op
    carries it (`self.x = self.F @ self.x`). False where it is not such an attribute."""
    tracer = tx.tracer
    if obj.source is None or name in obj.stored or not _computed_here(value, tracer.graph):
        return False
    source = AttrSource(obj.source, name)
    current = tracer.builder.cache.get(source)
    local = INPUT + source.name()
    if (tracer.input_locals.get(local) != source or local in tracer.fixed_inputs
            or not _computed_here(current, tracer.graph)):
        return False
    tracer.builder.cache[source] = value
    tracer.attribute_rebinds.add(source)
    return True


def _computed_here(vt: VariableTracker | None, graph: Any) -> bool:
    """An array of this region's values: an array value, or a short array computed element
    by element (`loops/vectors.py`; one gathered from an array is a view of it)."""
    from ember.capture.loops.vectors import VectorVariable

    if isinstance(vt, VectorVariable):
        return vt.base is None and vt.elements[0].graph is graph
    return isinstance(vt, ArrayVariable) and vt.value.graph is graph


def sync(tx: Interpreter) -> None:
    """The pseudo-locals take what their sources read now: an attribute a body rebound."""
    cache = tx.tracer.builder.cache
    for name in list(tx.locals):
        if name.startswith(INPUT):
            held = cache.get(tx.tracer.input_locals[name])
            if held is not None:
                tx.locals[name] = held


def rebind(tx: Interpreter) -> None:
    """After two paths merge, the sources read the merged pseudo-locals."""
    cache = tx.tracer.builder.cache
    for name, vt in tx.locals.items():
        if name.startswith(INPUT):
            cache[tx.tracer.input_locals[name]] = vt


def _store_after_loop(tx: Interpreter, source: AttrSource, final: VariableTracker) -> None:
    """The loop op's result for an attribute its body rebound: assigned to the object, as
    the last trip did (the entry sets it after the graph)."""
    owner = tx.tracer.builder.cache.get(source.base)
    owner.stored.pop(source.attr, None)
    owner.stored[source.attr] = final
    tx.tracer.mark_attribute_store(owner)


def bind(tx: Interpreter) -> dict[Source, VariableTracker]:
    """Point each pseudo-local's source at what the local holds now (a body's or a path's
    stand-in); returns what to `restore`."""
    cache = tx.tracer.builder.cache
    saved = {}
    for name, vt in tx.locals.items():
        if name.startswith(INPUT):
            source = tx.tracer.input_locals[name]
            saved[source] = cache[source]
            cache[source] = vt
    return saved


def restore(tx: Interpreter, saved: dict[Source, VariableTracker]) -> None:
    tx.tracer.builder.cache.update(saved)
