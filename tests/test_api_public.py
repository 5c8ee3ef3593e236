"""The public API: compile's forms and options, backends, explain, stats, config, logs."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

import ember
import numpy as np
import pytest
from conftest import assert_same
from ember.backends import eager, list_backends, lookup_backend, register_backend

ROOT = Path(__file__).resolve().parent.parent


def affine(x, a=2.0):
    """Scale and shift."""
    return x * a + 1


def test_decorator_and_call_forms():
    x = np.arange(3.0)

    @ember.compile
    def plain(x):
        return x + 1

    @ember.compile(backend="eager", fullgraph=True)
    def configured(x):
        return x - 1

    wrapped = ember.compile(affine)
    assert_same(plain(x), x + 1)
    assert_same(configured(x), x - 1)
    assert_same(wrapped(x, a=3.0), affine(x, a=3.0))
    assert wrapped.__name__ == "affine" and wrapped.__doc__ == "Scale and shift."
    assert wrapped.__wrapped__ is affine
    assert ember.compile(wrapped).__wrapped__ is affine  # compiling twice wraps the original


def test_bad_arguments_fail_at_decoration():
    with pytest.raises(ValueError, match="unknown backend 'nope'"):
        ember.compile(affine, backend="nope")
    with pytest.raises(TypeError, match="callable"):
        ember.compile(42)
    with pytest.raises(ValueError, match="backend 'eager' does not take options"):
        ember.compile(affine, backend="eager", options={"fast": True})
    with pytest.raises(TypeError, match="takes a dict"):
        ember.compile(affine, options=[("fast", True)])


def test_options_reach_the_backend():
    seen = []

    def backend(graph, example_inputs, *, num_threads=0):
        seen.append(num_threads)
        return eager.compile(graph, example_inputs)

    f = ember.compile(affine, backend=backend, options={"num_threads": 3})
    assert_same(f(np.ones(2)), affine(np.ones(2)))
    assert seen == [3]


def test_callable_backend_receives_graph_and_example_inputs():
    seen = []

    def backend(graph, example_inputs):
        seen.append((graph.to_ir(), [a.shape for a in example_inputs]))
        return eager.compile(graph, example_inputs)

    x = np.ones((2, 3), np.float32)
    assert_same(ember.compile(affine, backend=backend)(x), affine(x))
    ((ir, shapes),) = seen
    assert ir.startswith("ember-ir 1\nfunc @affine(%0: f32[2,3])") and shapes == [(2, 3)]


def test_backend_registry():
    assert {"eager", "cranelift"} <= set(list_backends())
    assert lookup_backend("eager") is eager.compile

    @register_backend("test_counting")
    def counting(graph, example_inputs):
        counting.calls += 1
        return eager.compile(graph, example_inputs)

    counting.calls = 0
    assert lookup_backend("test_counting") is counting
    ember.compile(affine, backend="test_counting")(np.ones(2))
    assert counting.calls == 1


def test_fullgraph_names_reason_and_users_line():
    def chatty(x):
        y = x + 1
        print("y is", y)
        return y

    f = ember.compile(chatty, fullgraph=True)
    with pytest.raises(ember.GraphBreakError) as info:
        f(np.ones(2))
    message = str(info.value)
    line = chatty.__code__.co_firstlineno + 2
    assert f"{__file__}:{line}" in message and "print()" in message


def test_explain_reports_graphs_guards_and_breaks():
    def two_phase(x, w):
        h = np.tanh(x @ w)
        return h.sum(axis=0)

    x, w = np.ones((4, 3)), np.ones((3, 2))
    report = ember.explain(two_phase, x, w)
    assert report.graph_count == 1 and report.graph_break_count == 0
    assert report.op_count == 3
    assert "L['x']: ARRAY_MATCH float64 (4, 3)" in report.guards
    assert "matmul" in report.graphs[0] and report.graphs[0].startswith("ember-ir 1")
    text = str(report)
    assert "graphs: 1, graph breaks: 0, ops: 3" in text and "tanh" in text

    def breaks(x):
        y = x * 2
        if y.sum() > 0:
            return np.cumsum(y)  # a scan on a path: the branch breaks
        return -y

    report = ember.explain(breaks, x)
    assert report.graph_break_count == 1
    (reason,) = report.break_reasons
    assert "branch on the value of an array" in reason.reason
    assert reason.file == __file__ and reason.line == breaks.__code__.co_firstlineno + 2
    assert "np.where" in reason.hint
    assert f"{__file__}:{reason.line}" in str(report)


def test_explain_recaptures_an_already_compiled_function():
    f = ember.compile(affine)
    f(np.ones(2))
    report = ember.explain(f, np.ones(2))
    assert report.graph_count == 1 and report.op_count == 4


def test_stats_counts_hits_misses_compiles_and_stage_times():
    f = ember.compile(affine)
    for _ in range(3):
        f(np.ones(2))
    f(np.ones(3))
    s = ember.stats()
    assert s["cache_misses"] == 2 and s["cache_hits"] == 2
    assert s["captures"] == 2 and s["compiles"] == 2 and s["recompiles"] == 1
    assert s["frames_seen"] >= 4
    assert set(s["compile_time"]) >= {"capture", "backend", "codegen"}
    assert all(t >= 0 for t in s["compile_time"].values())
    ember.reset()
    s = ember.stats()
    assert s["captures"] == 0 and s["cache_hits"] == 0 and s["frames_seen"] == 0


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    full_env = {**os.environ, **env}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=full_env, cwd=ROOT, timeout=120, check=False)


def test_config_reads_environment_once():
    out = _run("import ember; c = ember.config; "
               "print(c.recompile_limit, c.num_threads, c.suppress_errors, c.cache_dir)",
               EMBER_RECOMPILE_LIMIT="3", EMBER_NUM_THREADS="2", EMBER_SUPPRESS_ERRORS="1",
               EMBER_CACHE_DIR="/tmp/ember-test-cache")
    assert out.stdout.split() == ["3", "2", "True", "/tmp/ember-test-cache"], out.stderr
    bad = _run("import ember", EMBER_NUM_THREADS="many")
    assert "EMBER_NUM_THREADS='many' is not an integer" in bad.stderr


def test_default_config():
    c = ember.config
    assert c.recompile_limit == 8 and c.suppress_errors is False


def test_ember_logs_channels():
    code = ("import numpy as np, ember\n"
            "def f(x):\n    return x * 2 + 1\n"
            "g = ember.compile(f)\ng(np.ones(2))\ng(np.ones(3))\n")
    out = _run(code, EMBER_LOGS="graph,guards,recompiles,code")
    err = out.stderr
    assert "[ember.graph]" in err and "ember-ir 1" in err
    assert "[ember.guards]" in err and "L['x']: ARRAY_MATCH float64 (2,)" in err
    assert "[ember.recompiles] f: L['x'] failed ARRAY_MATCH" in err
    assert "[ember.code] def __ember_entry(__ember_func, x):" in err
    quiet = _run(code)
    assert "[ember." not in quiet.stderr


def test_breaks_channel_names_file_and_line():
    code = ("import numpy as np, ember\n"
            "def f(x):\n    print('hi')\n    return x\n"
            "ember.compile(f)(np.ones(2))\n")
    out = _run(code, EMBER_LOGS="breaks")
    assert "[ember.breaks] <string>:3: print() has a side effect" in out.stderr


def test_set_logs_rejects_unknown_channels():
    from ember.logging import set_logs

    with pytest.raises(ValueError, match="unknown ember log channel"):
        set_logs("everything")


def test_import_on_another_python_is_a_clear_error():
    out = _run("import sys; sys.version_info = (3, 12, 1, 'final', 0); import ember")
    assert "ImportError: ember supports CPython 3.11 only" in out.stderr
    assert "this is Python 3.12" in out.stderr


def test_disable_keeps_the_function_plain():
    disabled = ember.disable(affine)
    assert disabled.__wrapped__ is affine and disabled.__name__ == "affine"
    assert_same(disabled(np.ones(2)), affine(np.ones(2)))
    assert ember.stats()["captures"] == 0


def test_compiled_methods_and_partials():
    class Scaler:
        def __init__(self, k):
            self.k = k

        @ember.compile
        def apply(self, x):
            return x * self.k

    x = np.arange(3.0)
    assert_same(Scaler(2.0).apply(x), x * 2.0)
    assert_same(Scaler(3.0).apply(x), x * 3.0)
    part = ember.compile(functools.partial(affine, a=5.0))
    assert_same(part(x), affine(x, a=5.0))


def _failing_backend(graph, example_inputs):
    raise RuntimeError("backend exploded")


def test_internal_errors_raise_unless_suppressed():
    f = ember.compile(affine, backend=_failing_backend)
    with pytest.raises(RuntimeError, match="backend exploded"):
        f(np.ones(2))
    ember.reset()
    ember.config.suppress_errors = True
    try:
        for _ in range(3):
            assert_same(f(np.ones(2)), affine(np.ones(2)))
        s = ember.stats()
        assert s["captures"] == 1
        assert list(s["break_reasons"]) == ["internal error: RuntimeError: backend exploded"]
    finally:
        ember.config.suppress_errors = False


def staged(x):
    y = x * 2
    print("y ready")
    z = np.partition(y, 0)
    if z[-1] > 1:
        z = np.cumsum(z)  # a scan on a path: the branch breaks
    return z * 3


def test_explain_lists_every_break_with_reason_line_and_hint(capsys):
    report = ember.explain(staged, np.arange(3.0))
    first = staged.__code__.co_firstlineno
    assert [b.line for b in report.break_reasons] == [first + 2, first + 3, first + 4]
    functions = [b.function for b in report.break_reasons]
    assert functions[0] == "staged"  # then the resume functions after each break
    assert all(f.startswith("__resume_at_") and f.endswith("_staged") for f in functions[1:])
    reasons = [b.reason for b in report.break_reasons]
    assert "print()" in reasons[0] and "partition" in reasons[1]
    assert "branch on the value of an array" in reasons[2]
    assert all(b.hint and b.file == __file__ for b in report.break_reasons)
    # The graph before the print, the one after the sort, and the branch taken.
    assert report.graph_count == 3 and report.graph_break_count == 3
    text = str(report)
    assert "graph breaks: 3" in text and f"{__file__}:{first + 3}" in text
    assert capsys.readouterr().out == "y ready\n"


def test_explain_after_compiled_calls_reports_the_resume_functions_too(capsys):
    f = ember.compile(staged)
    f(np.arange(3.0))
    report = ember.explain(staged, np.arange(3.0))
    assert report.graph_count == 3 and report.graph_break_count == 3


def test_each_compile_options_get_their_own_entries():
    # One function compiled twice, with different backends: each call uses its own options'
    # entries, never the other's (the frame hook's cache holds both).
    seen = []

    def recording(graph, example_inputs):
        seen.append(graph)
        return eager.compile(graph, example_inputs)

    plain = ember.compile(affine, backend="eager")
    recorded = ember.compile(affine, backend=recording)
    x = np.ones(2)
    for _ in range(2):
        assert_same(plain(x), affine(x))
        assert_same(recorded(x), affine(x))
    s = ember.stats()
    assert len(seen) == 1 and s["captures"] == 2 and s["cache_hits"] == 2
    assert s["recompile_reasons"][0][1] == "other compile options"
