"""The frame hook end to end: recursion, generators, exceptions with the user's line,
threads, reset, guard failures and recompiles, the recompile limit and its warning."""

from __future__ import annotations

import threading
import traceback
import logging
import warnings

import ember
import numpy as np
import pytest
from conftest import assert_same


def _frames(exc: BaseException) -> list[tuple[str, int]]:
    return [(f.name, f.lineno) for f in traceback.extract_tb(exc.__traceback__)]


def power_rec(x, n):
    if n == 0:
        return x
    return power_rec(x * 2, n - 1)


def test_static_recursion_is_inlined(recorder):
    f = ember.compile(power_rec, backend=recorder)
    x = np.ones(3)
    assert_same(f(x, 4), power_rec(x, 4))
    assert len(recorder.graphs) == 1
    assert recorder.ops().count("mul") == 4
    assert ember.stats()["graph_breaks"] == 0


def deep(x, n):
    return x if n == 0 else deep(x + 1, n - 1)


def test_recursion_past_the_inline_limit_runs_as_python():
    x = np.zeros(2)
    got = ember.compile(deep)(x, ember.config.inline_depth_limit + 5)
    assert_same(got, deep(x, ember.config.inline_depth_limit + 5))
    reasons = ember.stats()["break_reasons"]
    assert any("call depth" in r for r in reasons), reasons


def scaled(x):
    for i in range(3):
        yield x * i


def uses_generator(x):
    return sum(scaled(x))


def test_generators_inside_compiled_functions_are_captured(recorder):
    x = np.arange(4.0)
    f = ember.compile(uses_generator, backend=recorder, fullgraph=True)
    assert_same(f(x), uses_generator(x))
    assert len(recorder.graphs) == 1 and ember.stats()["graph_breaks"] == 0


def first_two(x):
    it = scaled(x)
    return next(it) + next(it), next(iter([x]), None)


def test_partly_consumed_generators(recorder):
    x = np.arange(3.0)
    f = ember.compile(first_two, backend=recorder, fullgraph=True)
    assert_same(f(x), first_two(x))


def counting(x):
    i = 0
    while True:
        yield x * i
        i += 1


def first_of_endless(x):
    return next(counting(x)) + 1


def test_endless_generator_breaks_and_runs_as_python():
    ember.config.instruction_limit = 2000
    try:
        x = np.ones(2)
        assert_same(ember.compile(first_of_endless)(x), first_of_endless(x))
        assert any("unrolling" in r for r in ember.stats()["break_reasons"])
    finally:
        ember.config.instruction_limit = 200_000


def test_compiled_generator_function_still_generates():
    gen = ember.compile(scaled)(np.ones(2))
    assert [v.tolist() for v in gen] == [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]


def mismatch(x, y):
    z = x * 2
    return z + y  # the shapes do not broadcast


def test_numpy_error_at_capture_time_has_the_users_line():
    f = ember.compile(mismatch)
    with pytest.raises(ValueError, match="could not be broadcast") as info:
        f(np.ones(3), np.ones(4))
    assert ("mismatch", mismatch.__code__.co_firstlineno + 2) in _frames(info.value)
    # The graph breaks at the bad `+`: `x * 2` is compiled, NumPy raises in Python.
    with pytest.raises(ValueError, match="could not be broadcast"):
        f(np.ones(3), np.ones(4))
    assert ember.stats()["cache_hits"] == 1
    # The same function still compiles for good inputs afterwards.
    assert_same(f(np.ones(3), np.ones(3)), mismatch(np.ones(3), np.ones(3)))
    assert ember.stats()["compiles"] == 2


def int_power(x, y):
    return x**y


def test_numpy_error_at_run_time_has_the_users_line():
    f = ember.compile(int_power)
    assert_same(f(np.arange(3), np.array([1, 2, 3])), int_power(np.arange(3),
                                                              np.array([1, 2, 3])))
    with pytest.raises(ValueError, match="negative integer powers") as info:
        f(np.arange(3), np.array([1, -1, 2]))
    assert ("int_power", int_power.__code__.co_firstlineno + 1) in _frames(info.value)
    assert info.value.__context__ is None  # not chained to the backend's failure
    assert ember.stats()["entry_fallbacks"] == 1


def raises_on_small(x):
    if x.shape[0] < 2:
        raise ValueError("need two rows")
    return x[0] + x[1]


def test_raise_statement_surfaces_unchanged():
    f = ember.compile(raises_on_small)
    with pytest.raises(ValueError, match="need two rows"):
        f(np.ones((1, 3)))
    assert_same(f(np.ones((2, 3))), raises_on_small(np.ones((2, 3))))


def add_one(x):
    return x * 2 + 1


def test_threads_share_one_compiled_function():
    f = ember.compile(add_one)
    results: list[bool] = []
    lock = threading.Lock()

    def work(seed: int) -> None:
        x = np.full(5, float(seed))
        for _ in range(100):
            ok = np.array_equal(f(x), x * 2 + 1)
            with lock:
                results.append(ok)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 400 and all(results)
    s = ember.stats()
    assert s["compiles"] >= 1 and s["cache_hits"] >= 390


def test_reset_drops_entries(recorder):
    f = ember.compile(add_one, backend=recorder)
    x = np.ones(3)
    f(x)
    f(x)
    assert len(recorder.graphs) == 1
    ember.reset()
    assert ember.stats()["cache_hits"] == 0
    f(x)
    assert len(recorder.graphs) == 2
    assert ember.stats()["captures"] == 1


@pytest.mark.parametrize("second", [np.ones(4), np.ones(3, np.float32), np.ones((3, 1))],
                         ids=["shape", "dtype", "rank"])
def test_guard_failure_recompiles(second, recorder):
    f = ember.compile(add_one, backend=recorder)
    first = np.ones(3)
    assert_same(f(first), add_one(first))
    assert_same(f(second), add_one(second))
    assert_same(f(first), add_one(first))  # the first entry is still there
    assert len(recorder.graphs) == 2
    s = ember.stats()
    assert s["recompiles"] == 1
    (function, reason), = s["recompile_reasons"]
    assert function == "add_one" and "L['x']" in reason and "ARRAY_MATCH" in reason


def scale_by(x, k):
    return x * k


def test_python_scalars_are_specialised(recorder):
    f = ember.compile(scale_by, backend=recorder)
    x = np.ones(2)
    assert_same(f(x, 2.0), x * 2.0)
    assert_same(f(x, 3.0), x * 3.0)
    assert_same(f(x, 3), x * 3)  # int, not float: another entry
    assert_same(f(x, 2.0), x * 2.0)
    assert len(recorder.graphs) == 3
    assert "EQUALS_MATCH" in ember.stats()["recompile_reasons"][0][1]


def test_recompile_limit_logs_once_then_runs_as_python(recorder, caplog):
    """The notice is a log record of `ember.recompiles` (printed to stderr when logging is
    not configured), never a Python warning: under `warnings.simplefilter("error")` a
    warning would raise in a program that runs without one under NumPy."""
    ember.config.recompile_limit = 3
    try:
        f = ember.compile(add_one, backend=recorder, dynamic=False)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with caplog.at_level(logging.WARNING, logger="ember.recompiles"):
                for n in range(1, 8):
                    assert_same(f(np.ones(n)), add_one(np.ones(n)))
        messages = [r.getMessage() for r in caplog.records if "recompile_limit" in r.getMessage()]
        assert len(messages) == 1
        assert "add_one" in messages[0] and "ARRAY_MATCH" in messages[0]
        assert len(recorder.graphs) == 3
        assert ember.stats()["recompile_limit_hits"] >= 1
        assert_same(f(np.ones(2)), add_one(np.ones(2)))  # cached entries still serve
        assert len(recorder.graphs) == 3
    finally:
        ember.config.recompile_limit = 8


def prints(x):
    print("side effect")
    return x + 1


def test_a_print_breaks_the_graph_once_and_both_sides_are_cached(capsys):
    f = ember.compile(prints)
    for _ in range(3):
        assert_same(f(np.ones(2)), np.full(2, 2.0))
    assert capsys.readouterr().out == "side effect\n" * 3
    s = ember.stats()
    # The function up to the print, and the resume function after it, each captured once.
    assert s["captures"] == 2 and s["graph_breaks"] == 1 and s["failed_frames"] == 0
    assert s["cache_hits"] == 4


def calls_prints(x):
    y = x * 3
    return prints(y) - 1


def test_callee_of_a_broken_frame_is_captured_on_its_own(capsys, recorder):
    f = ember.compile(calls_prints, backend=recorder)
    assert_same(f(np.ones(2)), calls_prints(np.ones(2)))
    assert capsys.readouterr().out == "side effect\n" * 2
    assert ember.stats()["graph_breaks"] >= 1


def test_nested_compiled_functions_are_inlined(recorder):
    inner = ember.compile(add_one)

    def outer(x):
        return inner(x) * inner(x + 1)

    f = ember.compile(outer, backend=recorder)
    x = np.arange(3.0)
    assert_same(f(x), outer(x))
    assert len(recorder.graphs) == 1


def test_disabled_function_breaks_and_runs_plain(recorder):
    helper = ember.disable(add_one)

    def outer(x):
        return helper(x) + 1

    f = ember.compile(outer, backend=recorder)
    assert_same(f(np.ones(2)), np.full(2, 4.0))
    assert any("ember.disable" in r for r in ember.stats()["break_reasons"])
    # Only the `+ 1` after the call is a graph; the disabled function's `+ 1` is not.
    assert [g.name.startswith("__resume_at") for g in recorder.graphs] == [True]
    assert recorder.ops() == ["const", "add"]


def test_entries_are_not_captured_again():
    f = ember.compile(add_one)
    f(np.ones(2))
    before = ember.stats()["captures"]
    for _ in range(5):
        f(np.ones(2))
    assert ember.stats()["captures"] == before


def raises_inside(x):
    try:
        raise KeyError("always")
    except KeyError:
        return x + 1


def test_a_raise_caught_by_the_function_runs_in_python_from_one_entry():
    f = ember.compile(raises_inside)
    for _ in range(10):
        assert_same(f(np.ones(2)), np.full(2, 2.0))
    s = ember.stats()
    # The raise is a graph break; its handler runs as Python inside the step.
    assert s["captures"] == 1 and s["graph_breaks"] == 1
    assert s["cache_hits"] == 9


def star_signature(x, *rest, scale=2.0, **kw):
    out = x
    for r in rest:
        out = out + r
    return out * scale + kw.get("shift", 0.0), kw


def test_varargs_keyword_only_and_kwargs_slots():
    f = ember.compile(star_signature)
    x = np.arange(2.0)
    for args, kwargs in [((x, x, x), {"scale": 3.0, "shift": 1.0}), ((x,), {}),
                         ((x, x, x), {"scale": 3.0, "shift": 1.0}), ((x, x), {"extra": 1})]:
        assert_same(f(*args, **kwargs), star_signature(*args, **kwargs))
    s = ember.stats()
    assert s["cache_hits"] == 1 and s["captures"] == 3


def breaks_on_lists(x):
    if isinstance(x, list):
        print("a list")
    return x * 2


def test_a_break_for_some_inputs_does_not_stop_other_compiles(capsys, recorder):
    f = ember.compile(breaks_on_lists, backend=recorder, dynamic=False)
    assert_same(f(np.ones(2)), np.full(2, 2.0))
    assert f([1]) == [1, 1]
    assert_same(f(np.ones(3)), np.full(3, 2.0))  # still compiled
    assert len(recorder.graphs) == 2
    for _ in range(5):
        assert f([1]) == [1, 1]  # cached: the entry up to the print, then the resume
    assert capsys.readouterr().out == "a list\n" * 6
    captures = ember.stats()["captures"]
    assert_same(f(np.ones(4)), np.full(4, 2.0))
    assert ember.stats()["captures"] == captures + 1 and len(recorder.graphs) == 3


def test_garbage_collector_callbacks_run_as_plain_python(recorder):
    # A collection inside a compiled function runs gc.callbacks there; they are not part of
    # the function: not captured, no break counted (under fullgraph it would be an error
    # raised inside the collector).
    import gc
    import time

    seen = []

    def on_gc(phase, info):
        seen.append((phase, time.perf_counter()))  # a call capture refuses

    def collects(x):
        gc.collect()  # a graph break: runs as Python with the hook on
        return x

    gc.callbacks.append(on_gc)
    try:
        ember.compile(collects, backend=recorder)(np.ones(2))
    finally:
        gc.callbacks.remove(on_gc)
    assert [phase for phase, _ in seen[-2:]] == ["start", "stop"]
    reasons = ember.stats()["break_reasons"]
    assert all("perf_counter" not in reason for reason in reasons), reasons
    assert gc.callbacks.count(gc.callbacks[0]) == 1


def test_frames_called_by_the_standard_library_run_as_plain_python(recorder):
    # A logging handler is called by the logging module, not by the compiled function.
    import logging

    seen = []

    class Handler(logging.Handler):
        def emit(self, record):
            seen.append(record.getMessage())

    logger = logging.getLogger("ember.tests.stdlib_callers")
    logger.propagate = False
    handler = Handler()
    logger.addHandler(handler)
    try:
        def warns(x):
            y = x * 2
            logger.warning("y has %d items", y.size)
            return y + 1

        f = ember.compile(warns, backend=recorder)
        assert_same(f(np.ones(3)), np.full(3, 3.0))
    finally:
        logger.removeHandler(handler)
    assert seen == ["y has 3 items"]
    # The function and its resume function; never the handler (emit, format...).
    names = [g.name for g in recorder.graphs]
    assert names[0] == "warns" and all(n.startswith("__resume_at_") for n in names[1:]), names
    reasons = ember.stats()["break_reasons"]
    assert len(reasons) == 1 and "getLogger" not in str(reasons) and "emit" not in str(reasons)
