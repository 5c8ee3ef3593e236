"""Graph bindings of `ember._core`: IR round trip, errors, pipeline stages, compiled graphs
checked against NumPy."""

import importlib
import importlib.machinery
import pathlib
import threading
import time

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _load_core():
    """`ember._core`, loaded directly if the `ember` package itself cannot be imported."""
    try:
        return importlib.import_module("ember._core")
    except ImportError:
        path = next((ROOT / "python" / "ember").glob("_core.*.so"))
        loader = importlib.machinery.ExtensionFileLoader("ember._core", str(path))
        spec = importlib.util.spec_from_loader("ember._core", loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        return module


core = _load_core()

LAYERNORM = (ROOT / "docs" / "IR.md").read_text().split("```")[1].strip() + "\n"

ADD = """ember-ir 1
func @f(%0: f64[4,3], %1: f64[3]) -> (f64[4,3]) {
  %2 = add(%0, %1) : f64[4,3]
  return %2
}
"""


def test_parse_ir_round_trips_the_documented_example():
    assert LAYERNORM.startswith("ember-ir 1\nfunc @layernorm")
    assert core.parse_ir(LAYERNORM) == LAYERNORM
    assert core.parse_ir(ADD) == ADD


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("sub(%0, %3)", "sub(%0, %99)"), r"^4:16: %99 is used before it is defined"),
        (("ember-ir 1", "ember-ir 7"), r"^1:\d+: .*version"),
        (("%4 = sub(%0, %3) : f32[8,1024]", "%4 = sub(%0, %3) : f64[8,1024]"), r"%4 = sub: .*f64"),
        (("%9 = sqrt(%8)", "%9 = nosuchop(%8)"), r"^\d+:\d+: .*nosuchop"),
    ],
)
def test_ir_errors_name_where(edit, message):
    broken = LAYERNORM.replace(*edit)
    assert broken != LAYERNORM
    with pytest.raises(core.IRError, match=message):
        core.parse_ir(broken)


def test_ir_error_is_a_value_error():
    assert issubclass(core.IRError, ValueError)
    with pytest.raises(ValueError):
        core.parse_ir("not ir at all")


REDUNDANT = """ember-ir 1
func @f(%0: f64[3]) -> (f64[3]) {
  %1 = neg(%0) : f64[3]
  %2 = neg(%1) : f64[3]
  %3 = exp(%0) : f64[3]
  %4 = add(%2, %2) : f64[3]
  %5 = add(%2, %2) : f64[3]
  %6 = mul(%4, %5) : f64[3]
  return %6
}
"""


def test_pipeline_stages_show_each_pass():
    stages = core.pipeline_stages(REDUNDANT)
    names = [name for name, _ in stages]
    assert len(names) == len(set(names)) >= 2
    assert all(isinstance(name, str) and name for name in names)
    for _, text in stages:
        assert core.parse_ir(text) == text  # every stage is valid, printable IR
    final = stages[-1][1]
    assert "exp(" not in final and "neg(" not in final  # dead and cancelling ops are gone
    assert final.count("add(") == 1  # the duplicate add is shared


def test_pipeline_stages_reject_bad_ir():
    with pytest.raises(core.IRError):
        core.pipeline_stages(REDUNDANT.replace("%6 = mul(%4, %5)", "%6 = mul(%4, %9)"))


def layernorm_numpy(x, g, b):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * g + b


def test_compiled_layernorm_matches_numpy():
    graph = core.compile_ir(LAYERNORM)
    assert core.parse_ir(graph.ir) == graph.ir
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 1024)).astype(np.float32)
    g = rng.standard_normal(1024).astype(np.float32)
    b = rng.standard_normal(1024).astype(np.float32)
    (out,) = graph(x, g, b)
    want = layernorm_numpy(x, g, b)
    assert type(out) is np.ndarray and out.dtype == want.dtype and out.shape == want.shape
    np.testing.assert_allclose(out, want, rtol=2e-5, atol=2e-5)
    assert "f32[8,1024]" in repr(graph)


MIXED = """ember-ir 1
func @f(%0: f64[4,3], %1: f64[3], %2: i32[4,3]) -> (f64[4,3], bool[4,3], i64[3]) {
  %3 = add(%0, %1) : f64[4,3]
  %4 = exp(%3) : f64[4,3]
  %5 = gt(%0, %3) : bool[4,3]
  %6 = sum(%2) axis=[0] keepdims=false : i64[3]
  return %4, %5, %6
}
"""


def mixed_numpy(x, y, n):
    return np.exp(x + y), x > x + y, n.sum(axis=0)


def check_mixed(graph, x, y, n):
    got = graph(x, y, n)
    want = mixed_numpy(x, y, n)
    assert isinstance(got, tuple) and len(got) == 3
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.flags.c_contiguous
        np.testing.assert_allclose(g, w, rtol=1e-13)


def test_several_outputs_and_dtypes():
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((4, 3)), rng.standard_normal(3)
    n = rng.integers(-100, 100, (4, 3), dtype=np.int32)
    check_mixed(core.compile_ir(MIXED), x, y, n)


def test_inputs_of_any_strides():
    graph = core.compile_ir(MIXED)
    rng = np.random.default_rng(2)
    big = rng.standard_normal((8, 12))
    ints = rng.integers(-9, 9, (6, 8), dtype=np.int32)
    cases = [
        (big[::2, ::4], big[0, ::-4], ints[:4, :3]),  # steps and a negative stride
        (big[:3, :4].T, np.broadcast_to(big[1, 1], (3,)), ints[:3, :4].T),  # transposed, 0-stride
        (np.asfortranarray(big[:4, :3]), big[2, 3:6], np.ascontiguousarray(ints[:4, :3])),
    ]
    for x, y, n in cases:
        assert x.shape == (4, 3) and y.shape == (3,) and n.shape == (4, 3)
        check_mixed(graph, x, y, n)


def test_bad_inputs_raise_clear_errors():
    graph = core.compile_ir(MIXED)
    x, y, n = np.ones((4, 3)), np.ones(3), np.ones((4, 3), dtype=np.int32)
    with pytest.raises(TypeError, match="takes 3 input"):
        graph(x, y)
    with pytest.raises(TypeError, match="input 1: expected a numpy.ndarray"):
        graph(x, [1.0, 2.0, 3.0], n)
    with pytest.raises(TypeError, match="input 2: expected dtype int32, got int64"):
        graph(x, y, n.astype(np.int64))
    with pytest.raises(TypeError, match="input 0: expected dtype float64, got >f8"):
        graph(x.astype(">f8"), y, n)
    with pytest.raises(ValueError, match=r"input 0: expected shape f64\[4,3\], got \[3, 4\]"):
        graph(np.ones((3, 4)), y, n)
    with pytest.raises(ValueError, match="input 1: expected shape"):
        graph(x, np.ones((1, 3)), n)
    unaligned = np.frombuffer(b"\0" + bytes(96), dtype=np.float64, offset=1).reshape(4, 3)
    with pytest.raises(ValueError, match="not aligned"):
        graph(unaligned, y, n)


WEAK = """ember-ir 1
func @f(%0: f32[5], %1: f64[] weak) -> (f32[5]) {
  %2 = mul(%0, %1) : f32[5]
  return %2
}
"""


def test_weak_parameters_take_python_scalars():
    graph = core.compile_ir(WEAK)
    x = np.arange(5, dtype=np.float32)
    for scalar in (2.5, np.array(2.5)):
        (out,) = graph(x, scalar)
        np.testing.assert_array_equal(out, x * 2.5)
        assert out.dtype == np.float32
    with pytest.raises(TypeError, match="input 1"):
        graph(x, 2)  # an int is not the float this graph was specialised for


def test_empty_and_zero_d_arrays():
    text = """ember-ir 1
func @f(%0: f64[0,3], %1: f64[]) -> (f64[0,3], f64[]) {
  %2 = add(%0, %1) : f64[0,3]
  %3 = sqrt(%1) : f64[]
  return %2, %3
}
"""
    empty, zero_d = core.compile_ir(text)(np.ones((0, 3)), np.array(16.0))
    assert empty.shape == (0, 3) and empty.dtype == np.float64
    assert zero_d.shape == () and zero_d == 4.0


def test_threads_call_one_compiled_graph():
    graph = core.compile_ir(LAYERNORM, num_threads=1)
    rng = np.random.default_rng(3)
    g = rng.standard_normal(1024).astype(np.float32)
    b = rng.standard_normal(1024).astype(np.float32)
    errors = []

    def worker(seed):
        try:
            local = np.random.default_rng(seed)
            for _ in range(20):
                x = local.standard_normal((8, 1024)).astype(np.float32)
                (out,) = graph(x, g, b)
                np.testing.assert_allclose(out, layernorm_numpy(x, g, b), rtol=2e-5, atol=2e-5)
        except BaseException as exc:  # noqa: BLE001 - reported to the main thread
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_compile_errors():
    with pytest.raises(core.IRError, match="1:1"):
        core.compile_ir("func")
    with pytest.raises(OverflowError):
        core.compile_ir(ADD, num_threads=-1)


# Large enough that one call outlasts the 10 ms window below (about 30 ms on one core).
HEAVY = """ember-ir 1
func @f(%0: f64[4194304]) -> (f64[4194304]) {
  %1 = sin(%0) : f64[4194304]
  %2 = exp(%1) : f64[4194304]
  %3 = cos(%2) : f64[4194304]
  %4 = tanh(%3) : f64[4194304]
  return %4
}
"""


def test_kernels_run_with_the_gil_released():
    graph = core.compile_ir(HEAVY, num_threads=1)
    x = np.linspace(-3.0, 3.0, 4194304)
    window = []
    started = threading.Event()

    def worker():
        started.set()
        time.sleep(0.01)  # let the main thread start ticking
        window.append(time.perf_counter())
        graph(x)
        window.append(time.perf_counter())

    thread = threading.Thread(target=worker)
    thread.start()
    started.wait()
    ticks = []
    while thread.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.0005)
    thread.join()
    inside = [t for t in ticks if window[0] < t < window[1]]
    # Holding the GIL through the kernels would leave this thread a tick at most.
    assert window[1] - window[0] > 0.01
    assert len(inside) >= 4, (len(inside), window[1] - window[0])


def test_outputs_are_recycled_only_once_dropped():
    graph = core.compile_ir(
        "ember-ir 1\nfunc @f(%0: f64[4]) -> (f64[4]) {\n"
        "  %1 = const() value=2 : i64[] weak\n  %2 = mul(%0, %1) : f64[4]\n  return %2\n}\n"
    )
    x = np.arange(4.0)
    (first,) = graph(x)
    (second,) = graph(x + 1)
    assert first is not second  # the first result is still held: not overwritten
    np.testing.assert_array_equal(first, x * 2)
    np.testing.assert_array_equal(second, (x + 1) * 2)
    address = second.__array_interface__["data"][0]
    del second  # dropped: its memory is written by the next call
    (third,) = graph(x + 2)
    assert third.__array_interface__["data"][0] == address
    np.testing.assert_array_equal(third, (x + 2) * 2)
    view = third[1:]
    del third  # a view still holds it: not reused
    (fourth,) = graph(x + 3)
    np.testing.assert_array_equal(view, ((x + 2) * 2)[1:])
    np.testing.assert_array_equal(fourth, (x + 3) * 2)
    assert not np.shares_memory(fourth, view)
