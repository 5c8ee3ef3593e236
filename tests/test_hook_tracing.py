"""Trace and profile functions (`sys.settrace`, `sys.setprofile`: debuggers, coverage
tracers) that run while a compiled function executes are not the compiled program: the frame
hook leaves their frames, and what they call, to the interpreter."""

from __future__ import annotations

import sys
import warnings

import ember
import numpy as np
from conftest import assert_same
from ember import _core as core


def summarise(values):
    # Array work of the kind a tracer does when it inspects locals.
    return float(np.abs(np.asarray(values, dtype=np.float64)).sum())


class ArrayTracer:
    """Records a summary of each traced frame's array locals, like a debugger's watch list;
    returns itself as the local trace function, like pdb's `trace_dispatch`."""

    def __init__(self):
        self.events = []

    def __call__(self, frame, event, arg):
        arrays = [v for v in frame.f_locals.values() if isinstance(v, np.ndarray)]
        if arrays:
            self.events.append((event, summarise([a.sum() for a in arrays])))
        return self


def opaque(y):
    # Not compiled into the graph: the compiled function breaks around it, so traced Python
    # frames run while the hook is on.
    return y.tolist()


def with_break(x):
    y = x * 2.0
    z = np.asarray(opaque(y))
    return z + y


def run_traced(fn, *args, install=sys.settrace):
    tracer = ArrayTracer()
    install(tracer)
    try:
        return fn(*args), tracer
    finally:
        install(None)


def captured_names(recorder):
    return {g.name for g in recorder.graphs}


def test_settrace_tracer_frames_are_not_captured(recorder):
    x = np.arange(4.0)
    f = ember.compile(with_break, backend=recorder)
    before = core.hook_stats()["frames_skipped"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(12):
            got, tracer = run_traced(f, x)
            assert_same(got, with_break(x))
    assert tracer.events, "the tracer never ran while the compiled function executed"
    assert core.hook_stats()["frames_skipped"] > before
    names = captured_names(recorder)
    assert not names & {"__call__", "summarise"}, names
    assert "with_break" in names
    assert ember.stats()["recompile_limit_hits"] == 0


def test_setprofile_function_frames_are_not_captured(recorder):
    x = np.linspace(-1.0, 1.0, 5)
    f = ember.compile(with_break, backend=recorder)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(12):
            got, tracer = run_traced(f, x, install=sys.setprofile)
            assert_same(got, with_break(x))
    assert tracer.events
    assert not captured_names(recorder) & {"__call__", "summarise"}


def test_pdb_style_line_tracing_gives_numpy_results(recorder):
    # pdb traces line by line through a frame's local trace function; the traced user code
    # itself is still compiled, the debugger's dispatch is not.
    x = np.arange(6.0).reshape(2, 3)
    f = ember.compile(with_break, backend=recorder)
    got, tracer = run_traced(f, x)
    assert_same(got, with_break(x))
    assert any(event == "line" for event, _ in tracer.events)
    assert not captured_names(recorder) & {"__call__", "summarise"}


def test_functions_called_after_tracing_stops_are_captured_again(recorder):
    x = np.ones(3)
    f = ember.compile(with_break, backend=recorder)
    run_traced(f, x)
    assert_same(f(x + 1), with_break(x + 1))
    assert "with_break" in captured_names(recorder)
