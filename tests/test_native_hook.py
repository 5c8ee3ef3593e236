"""The PEP 523 frame hook of `ember._core`: interception, caching, skipping, threads."""

import asyncio
import importlib
import importlib.machinery
import json
import pathlib
import subprocess
import sys
import sysconfig
import threading
import traceback

import pytest


def _load_core():
    """`ember._core`, loaded directly if the `ember` package itself cannot be imported."""
    try:
        return importlib.import_module("ember._core")
    except ImportError:
        root = pathlib.Path(__file__).resolve().parents[1] / "python" / "ember"
        path = next(root.glob("_core.*.so"))
        loader = importlib.machinery.ExtensionFileLoader("ember._core", str(path))
        spec = importlib.util.spec_from_loader("ember._core", loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        return module


core = _load_core()


def ember_entry(body: str, **names):
    """A function `entry(*args)` compiled from `<ember-test>`: the hook never captures it."""
    namespace = dict(names)
    source = f"def entry(*args):\n    {body}\n"
    exec(compile(source, "<ember-test>", "exec"), namespace)  # noqa: S102 - test-made source
    return namespace["entry"]


TAG = ember_entry("return ('entry', args)")


class Converter:
    """A recording frame converter that only answers for the codes it is given."""

    def __init__(self, *functions, verdict=None):
        self.codes = {f.__code__ for f in functions}
        self.calls = []
        self.verdict = verdict or (lambda func, args: ([], TAG))

    def __call__(self, func, args):
        if func.__code__ not in self.codes:
            return None
        self.calls.append((func, args))
        return self.verdict(func, args)


@pytest.fixture
def hook():
    """Yields a function that installs a converter and enables the hook on this thread."""
    core.reset()
    previous = core.set_callback(None)
    extra_skips = core.skip_files()["extra"]

    def install(converter):
        core.set_callback(converter)
        return converter

    yield install
    core.enable(False)
    core.set_callback(previous)
    core.set_skip_files(extra_skips)
    core.reset()


def run_enabled(fn, *args, **kwargs):
    previous = core.enable(True)
    try:
        return fn(*args, **kwargs)
    finally:
        core.enable(previous)


def test_struct_layout_matches_cpython_headers(tmp_path):
    layout = core._layout()
    fields = "\n".join(
        f'  printf("{name} %zu\\n", offsetof({name.split(".")[0]}, {name.split(".")[1]}));'
        for name in layout
    )
    source = tmp_path / "layout.c"
    source.write_text(
        "#define Py_BUILD_CORE 1\n#include <Python.h>\n#include <internal/pycore_frame.h>\n"
        "#include <stddef.h>\n#include <stdio.h>\n"
        f"int main(void) {{\n{fields}\n  return 0;\n}}\n"
    )
    binary = tmp_path / "layout"
    include = sysconfig.get_paths()["include"]
    subprocess.run(["cc", f"-I{include}", str(source), "-o", str(binary)], check=True)
    printed = subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout
    expected = {
        name: int(offset) for name, offset in (line.split() for line in printed.splitlines())
    }
    assert layout == expected
    assert layout["_PyInterpreterFrame.localsplus"] == 72


def test_arguments_in_varnames_order(hook):
    def f(a, b=2, *rest, c, d=4, **extra):
        return "plain"

    conv = hook(Converter(f))
    assert run_enabled(f, 1, c=3) == ("entry", (1, 2, 3, 4, (), {}))
    core.clear_cache(f.__code__)
    assert run_enabled(f, 1, 5, 6, 7, c=8, d=9, z=10) == ("entry", (1, 5, 8, 9, (6, 7), {"z": 10}))
    func, args = conv.calls[1]
    assert func is f
    assert args == (1, 5, 8, 9, (6, 7), {"z": 10})


def test_closure_function_is_passed(hook):
    scale = 3

    def f(x):
        return x * scale

    conv = hook(
        Converter(
            f, verdict=lambda func, args: ([], ember_entry("return f(*args)", f=lambda x: -x))
        )
    )
    assert run_enabled(f, 2) == -2
    func, args = conv.calls[0]
    assert func is f and args == (2,)
    assert func.__closure__[0].cell_contents == 3


def test_entry_is_cached_and_hit(hook):
    def f(x):
        return x

    conv = hook(Converter(f))
    before = core.hook_stats()
    for i in range(5):
        assert run_enabled(f, i) == ("entry", (i,))
    assert len(conv.calls) == 1
    assert core.cache_size(f.__code__) == 1
    stats = core.hook_stats()
    assert stats["cache_hits"] - before["cache_hits"] == 4
    assert stats["cache_misses"] - before["cache_misses"] == 1


def test_guard_failure_calls_converter_again(hook):
    def f(x):
        return x

    def verdict(func, args):
        return ([(("local", 0), [("TYPE_MATCH", type(args[0]))], [])], TAG)

    conv = hook(Converter(f, verdict=verdict))
    assert run_enabled(f, 1) == ("entry", (1,))
    assert run_enabled(f, 2) == ("entry", (2,))
    assert run_enabled(f, 1.5) == ("entry", (1.5,))
    assert run_enabled(f, "s") == ("entry", ("s",))
    assert [args for _, args in conv.calls] == [(1,), (1.5,), ("s",)]
    assert core.cache_size(f.__code__) == 3
    assert core.hook_stats()["guard_failures"] >= 3


def test_skip_runs_normally_and_never_asks_again(hook):
    def f(x):
        return x + 1

    conv = hook(Converter(f, verdict=lambda func, args: core.SKIP))
    assert core.SKIP == "skip" and core.CACHE_ONLY == "cache_only"
    assert [run_enabled(f, i) for i in range(3)] == [1, 2, 3]
    assert len(conv.calls) == 1


def test_cache_only_uses_entries_without_asking(hook):
    def f(x):
        return x + 1

    answers = iter([([(("local", 0), [("EQUALS_MATCH", 1)], [])], TAG), core.CACHE_ONLY])
    conv = hook(Converter(f, verdict=lambda func, args: next(answers)))
    assert run_enabled(f, 1) == ("entry", (1,))
    assert run_enabled(f, 2) == 3  # miss: the converter says CACHE_ONLY, the frame runs
    assert run_enabled(f, 1) == ("entry", (1,))  # the old entry still hits
    assert run_enabled(f, 5) == 6  # miss: runs normally, no converter call
    assert len(conv.calls) == 2


def test_none_runs_the_frame_and_stores_nothing(hook):
    def f(x):
        return x * 2

    conv = hook(Converter(f, verdict=lambda func, args: None))
    assert run_enabled(f, 4) == 8
    assert run_enabled(f, 4) == 8
    assert len(conv.calls) == 2
    assert core.cache_size(f.__code__) == 0


def test_generators_and_coroutines_are_never_converted(hook):
    def gen(n):
        yield from range(n)

    async def coro(x):
        return x

    async def agen(n):
        for i in range(n):
            yield i

    async def collect(n):
        return [i async for i in agen(n)]

    def outer(n):
        return sum(i for i in range(n))

    seen = []
    hook(lambda func, args: seen.append(func.__code__.co_name))
    assert run_enabled(lambda: list(gen(3))) == [0, 1, 2]
    assert run_enabled(lambda: asyncio.run(coro(7))) == 7
    assert run_enabled(lambda: asyncio.run(collect(3))) == [0, 1, 2]
    assert run_enabled(outer, 4) == 6
    assert not {"gen", "coro", "agen", "collect", "<genexpr>"} & set(seen)
    assert "outer" in seen


def call_from_user_code(fn, *args):
    """Frames called by ember's generated code itself run untouched (like the standard
    library's callbacks); a call made from user code is intercepted."""
    return fn(*args)


def test_recursion_through_entries(hook):
    def fact(n):
        return "plain"

    entry = ember_entry("n, = args\n    return 1 if n <= 1 else n * call(fact, n - 1)",
                        fact=fact, call=call_from_user_code)
    conv = hook(Converter(fact, verdict=lambda func, args: ([], entry)))
    assert run_enabled(fact, 10) == 3628800
    assert len(conv.calls) == 1
    assert core.hook_stats()["cache_hits"] == 9


def test_runaway_entry_recursion_raises_recursion_error(hook):
    def f(x):
        return x

    entry = ember_entry("return call(f, *args)", f=f, call=call_from_user_code)
    hook(Converter(f, verdict=lambda func, args: ([], entry)))
    with pytest.raises(RecursionError):
        run_enabled(f, 1)


def test_frames_called_by_generated_code_run_untouched(hook):
    def f(x):
        return "plain"

    entry = ember_entry("return ('entry', f(*args))", f=f)
    hook(Converter(f, verdict=lambda func, args: ([], entry)))
    assert run_enabled(f, 1) == ("entry", "plain")


def user_helper_that_fails(x):
    raise ValueError(f"bad value {x}")


def test_exception_from_entry_propagates_with_traceback(hook):
    def f(x):
        return x

    entry = ember_entry("return fail(*args)", fail=user_helper_that_fails)
    hook(Converter(f, verdict=lambda func, args: ([], entry)))
    with pytest.raises(ValueError, match="bad value 3") as info:
        run_enabled(f, 3)
    names = [frame.name for frame in traceback.extract_tb(info.value.__traceback__)]
    assert names[-1] == "user_helper_that_fails"
    assert "run_enabled" in names


def test_exception_from_converter_propagates(hook):
    def f(x):
        return x

    def verdict(func, args):
        raise KeyError("converter failed")

    hook(Converter(f, verdict=verdict))
    with pytest.raises(KeyError, match="converter failed"):
        run_enabled(f, 1)
    assert core.cache_size(f.__code__) == 0


def test_bad_verdicts_raise(hook):
    def f(x):
        return x

    hook(Converter(f, verdict=lambda func, args: "sometimes"))
    with pytest.raises(TypeError, match="sometimes"):
        run_enabled(f, 1)
    hook(Converter(f, verdict=lambda func, args: 42))
    with pytest.raises(TypeError, match="guards, entry"):
        run_enabled(f, 1)
    hook(Converter(f, verdict=lambda func, args: ([(("attr", "x"), [], [])], TAG)))
    with pytest.raises(ValueError, match="cannot start a root node"):
        run_enabled(f, 1)
    assert core.cache_size(f.__code__) == 0


def test_converter_runs_with_hook_disabled(hook):
    def f(x):
        return x

    inner_results = []

    def verdict(func, args):
        inner_results.append(f(100))  # must run plainly, not re-enter the converter
        return ([], TAG)

    conv = hook(Converter(f, verdict=verdict))
    assert run_enabled(f, 1) == ("entry", (1,))
    assert inner_results == [100]
    assert len(conv.calls) == 1


def test_enable_flag_is_thread_local(hook):
    def f(x):
        return x

    hook(Converter(f))
    results = {}
    started, release = threading.Event(), threading.Event()

    def other():
        started.set()
        release.wait()
        results["other"] = f(1)

    thread = threading.Thread(target=other)
    thread.start()
    started.wait()
    previous = core.enable(True)
    try:
        release.set()
        thread.join()
        results["main"] = f(1)
    finally:
        core.enable(previous)
    assert results == {"other": 1, "main": ("entry", (1,))}
    assert core.enable(False) == 0


def test_threads_share_the_cache(hook):
    def f(x):
        return x

    def verdict(func, args):
        return ([(("local", 0), [("TYPE_MATCH", int)], [])], TAG)

    conv = hook(Converter(f, verdict=verdict))
    errors, outputs = [], []

    def worker(k):
        try:
            outputs.append([run_enabled(f, k * 1000 + i) for i in range(300)])
        except BaseException as exc:  # noqa: BLE001 - reported to the main thread
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(v for out in outputs for _, (v,) in out) == sorted(
        k * 1000 + i for k in range(6) for i in range(300)
    )
    assert 1 <= len(conv.calls) <= 6
    assert core.cache_size(f.__code__) == len(conv.calls)


def test_uninstall_restores_plain_evaluation(hook):
    def f(x):
        return x + 1

    hook(Converter(f))
    previous = core.enable(True)
    try:
        assert f(1) == ("entry", (1,))
        core.uninstall()
        assert f(1) == 2  # the flag is still set, but the hook is gone
        core.uninstall()  # a second call does nothing
    finally:
        core.enable(previous)
    assert run_enabled(f, 1) == ("entry", (1,))  # enabling again reinstalls


def test_reset_and_clear_cache(hook):
    def f(x):
        return x

    def g(x):
        return x

    conv = hook(Converter(f, g))
    run_enabled(f, 1)
    run_enabled(g, 1)
    assert core.cache_size(f.__code__) == core.cache_size(g.__code__) == 1
    core.clear_cache(f.__code__)
    assert core.cache_size(f.__code__) == 0 and core.cache_size(g.__code__) == 1
    core.reset()
    assert core.cache_size(g.__code__) == 0
    assert core.hook_stats() == dict.fromkeys(
        ["frames_seen", "frames_skipped", "cache_hits", "cache_misses", "guard_failures",
         "native_calls", "hook_direct_calls"], 0
    )
    run_enabled(g, 1)
    assert len(conv.calls) == 3


def test_mark_skip_survives_reset(hook):
    def f(x):
        return x + 1

    conv = hook(Converter(f))
    core.mark_skip(f.__code__)
    core.reset()
    assert run_enabled(f, 1) == 2
    assert conv.calls == []


def test_skip_listed_files_are_not_converted(hook, tmp_path):
    seen = []
    hook(lambda func, args: seen.append(func.__code__.co_filename))
    run_enabled(json.dumps, {"a": [1, 2]})
    stdlib = sysconfig.get_paths()["stdlib"]
    assert not [name for name in seen if name.startswith(stdlib)]
    files = core.skip_files()
    assert any(p.rstrip("/").endswith("numpy") for p in files["packages"])
    assert str(pathlib.Path(core.__file__).parent) + "/" in files["packages"]
    assert all(len(set(prefixes)) == len(prefixes) for prefixes in files.values())

    module = tmp_path / "skipped_module.py"
    module.write_text("def h(x):\n    return x + 1\n")
    sys.path.insert(0, str(tmp_path))
    try:
        h = importlib.import_module("skipped_module").h
        extra = core.skip_files()["extra"]
        core.set_skip_files([*extra, str(tmp_path)])
        assert run_enabled(h, 1) == 2
        assert not [name for name in seen if name.startswith(str(tmp_path))]
        core.set_skip_files(extra)
        run_enabled(h, 1)
        assert str(module) in seen
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("skipped_module", None)


def test_generated_ember_code_is_never_converted(hook):
    seen = []
    hook(lambda func, args: seen.append(func.__code__.co_filename))
    assert run_enabled(TAG, 1) == ("entry", (1,))
    assert seen == []


def test_module_and_class_bodies_are_never_converted(hook):
    seen = []
    hook(lambda func, args: seen.append(func.__code__.co_name))

    def define():
        class Body:
            y = 2

        namespace = {}
        exec(compile("x = 1\n", "<test-module>", "exec"), namespace)  # noqa: S102 - test source
        return Body.y + namespace["x"]

    assert run_enabled(define) == 3
    assert seen == ["define"]


def test_set_callback_returns_the_previous_one(hook):
    first = Converter()
    assert core.set_callback(first) is None  # the fixture removed any earlier callback
    assert core.set_callback(None) is first


class Reentrant:
    """An object whose attribute runs Python code that re-enters the hook and clears caches."""

    def __init__(self, target):
        self.target = target
        self.reads = 0

    @property
    def value(self):
        self.reads += 1
        core.clear_cache(self.target.__code__)  # mutates the cache being looked up
        return inner_function(self.reads)


def inner_function(n):
    return n * 0 + 7


def test_guards_and_entries_may_reenter_and_mutate_the_cache(hook):
    def f(obj):
        return "plain"

    def verdict(func, args):
        return ([(("local", 0), [], [(("attr", "value"), [("EQUALS_MATCH", 7)], [])])], TAG)

    conv = hook(Converter(f, inner_function, verdict=verdict))
    obj = Reentrant(f)
    assert run_enabled(f, obj) == ("entry", (obj,))
    # The guard reads obj.value, which clears f's cache in the middle of the lookup and calls
    # a Python function: that runs plainly (guards run with the hook disabled), and the entry
    # whose guards passed still runs although it has left the cache.
    assert run_enabled(f, obj) == ("entry", (obj,))
    assert obj.reads == 1
    assert [func.__name__ for func, _ in conv.calls] == ["f"]
    assert core.cache_size(f.__code__) == 0

    resetting = ember_entry("reset()\n    return 'done'", reset=core.reset)
    hook(Converter(f, verdict=lambda func, args: ([], resetting)))
    assert run_enabled(f, obj) == "done"  # the entry empties every cache while it runs
    assert core.cache_size(f.__code__) == 0


def test_captured_argument_is_passed_as_its_value(hook):
    def f(x, y):
        def inner():
            return x + y  # x and y become cells, made inside the frame after it starts

        return inner()

    conv = hook(Converter(f))
    assert run_enabled(f, 1, 2) == ("entry", (1, 2))
    assert conv.calls[0][1] == (1, 2)


class Model:
    def __init__(self, w):
        self.w = w

    def forward(self, x, /, *, scale=2):
        return self.w * x * scale


def test_methods_and_positional_only_parameters(hook):
    model = Model(3)
    conv = hook(Converter(Model.forward))
    assert run_enabled(model.forward, 5) == ("entry", (model, 5, 2))
    func, args = conv.calls[0]
    assert func is Model.forward and args[0] is model


def test_function_code_run_by_exec_is_not_converted(hook):
    def body():
        return 1

    seen = []
    hook(lambda func, args: seen.append(func.__code__.co_name))
    run_enabled(exec, body.__code__, {})
    assert seen == []
