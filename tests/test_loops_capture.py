"""Python loops in capture: one loop op per loop, the unrolling cost rule, and NumPy's
semantics for what loop bodies do (element reads and writes, Python ints, branches, inputs
mutated, views, errors)."""

from __future__ import annotations

import ember
import ember.backends
import numpy as np
import pytest
from conftest import RecordingBackend, assert_same
from hypothesis import given, settings
from hypothesis import strategies as st


def run_both(fn, *args, backend="eager"):
    """`fn` compiled and plain on copies of `args`: results and the inputs afterwards."""
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = fn(*copies)
    inputs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got = ember.compile(fn, backend=backend)(*inputs)
    assert_same(got, want)
    for g, w in zip(inputs, copies, strict=True):
        if isinstance(w, np.ndarray):
            np.testing.assert_array_equal(g, w)
    return got


def loop_ops(recorder: RecordingBackend) -> int:
    return sum(1 for graph in recorder.graphs for node in graph.nodes if node.op == "loop")


def recurrence(x):
    y = np.empty_like(x)
    y[0] = x[0]
    for i in range(1, x.shape[0]):
        y[i] = 0.9 * y[i - 1] + x[i]
    return y


def test_recurrence_is_one_loop_op_whatever_its_length(recorder) -> None:
    for n in (100, 2000):
        recorder.graphs.clear()
        ember.reset()
        x = np.random.default_rng(n).random(n)
        assert_same(ember.compile(recurrence, backend=recorder)(x), recurrence(x))
        assert recorder.op_counts == [13] and loop_ops(recorder) == 1


@settings(max_examples=25, deadline=None, derandomize=True)
@given(n=st.integers(1, 60), dtype=st.sampled_from([np.float32, np.float64, np.int64]))
def test_recurrence_matches_numpy_for_any_length_and_dtype(n: int, dtype) -> None:
    ember.reset()
    x = (np.random.default_rng(n).random(n) * 10).astype(dtype)
    run_both(recurrence, x)


def accumulate_into_list(x):
    parts = []
    for i in range(x.shape[0]):
        parts.append({"i": i, "v": x[i] * 2.0})  # a dict: no item a loop op's buffer holds
    return parts[-1]["v"]


def test_a_long_loop_that_cannot_be_one_op_runs_the_frame_as_python(recorder) -> None:
    x = np.arange(2000.0)
    assert_same(ember.compile(accumulate_into_list, backend=recorder)(x),
                accumulate_into_list(x))
    assert recorder.graphs == []
    assert any("2000 trips" in r for r in ember.stats()["break_reasons"])


def test_a_short_loop_that_cannot_be_one_op_still_unrolls(recorder) -> None:
    x = np.arange(12.0)
    assert_same(ember.compile(accumulate_into_list, backend=recorder)(x),
                accumulate_into_list(x))
    assert len(recorder.graphs) == 1


def test_without_loop_ops_a_long_recurrence_runs_as_python(recorder, monkeypatch) -> None:
    """The floor while a backend cannot run loop ops: no graph of thousands of ops."""
    monkeypatch.setattr(ember.backends, "runs_loop_ops", lambda backend: False)
    x = np.random.default_rng(1).random(2000)
    assert_same(ember.compile(recurrence, backend=recorder)(x), recurrence(x))
    assert recorder.graphs == []


def test_fullgraph_raises_when_a_long_loop_cannot_be_captured() -> None:
    with pytest.raises(ember.GraphBreakError, match="2000 trips"):
        ember.compile(accumulate_into_list, backend="eager", fullgraph=True)(np.ones(2000))


def short_loops(x):
    for k in range(3):
        x = x * 2 + k
    return x


def test_short_constant_loops_unroll(recorder) -> None:
    assert_same(ember.compile(short_loops, backend=recorder)(np.ones(4)), short_loops(np.ones(4)))
    assert loop_ops(recorder) == 0


def cumulative_in_place(x):
    for i in range(1, x.shape[0]):
        x[i] += x[i - 1]


def test_an_argument_updated_in_a_loop_is_written_back() -> None:
    x = np.arange(40.0)
    want = x.copy()
    cumulative_in_place(want)
    got = x.copy()
    assert ember.compile(cumulative_in_place, backend="eager")(got) is None
    np.testing.assert_array_equal(got, want)


def view_sees_the_loop(x):
    y = np.zeros(30)
    tail = y[5:]
    for i in range(30):
        y[i] = x[i] * 2
    return tail.sum(), y


def test_a_view_held_across_the_loop_sees_its_writes() -> None:
    run_both(view_sees_the_loop, np.arange(30.0))


def shifted_copy(x):
    y = np.zeros_like(x)
    for i in range(x.shape[0]):
        y[i + 1] = x[i]
    return y


def test_an_index_out_of_range_raises_numpys_index_error() -> None:
    with pytest.raises(IndexError, match="index 20 is out of bounds for axis 0 with size 20"):
        ember.compile(shifted_copy, backend="eager")(np.ones(20))


def python_ints(n):
    acc = 0
    for i in range(-n, 3 * n):
        acc = (acc * 31 + i // 3 - i % 7 + (i >> 2) ^ (i & 5)) % 1000003
    return acc


def test_python_int_arithmetic_keeps_pythons_semantics() -> None:
    run_both(python_ints, 17)


def last_index(x):
    for i in range(x.shape[0]):
        x[i] = i
    return i


def test_the_loop_variable_keeps_its_last_value() -> None:
    run_both(last_index, np.zeros(25))


def sum_elements(x):
    s = 0
    for v in x:
        s += v
    return s


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.float64])
def test_a_loop_over_an_array_reads_its_elements(dtype, recorder) -> None:
    x = np.arange(30).astype(dtype)
    assert_same(ember.compile(sum_elements, backend=recorder)(x), sum_elements(x))
    assert loop_ops(recorder) == 1


def negative_steps(x):
    out = np.zeros_like(x)
    j = 0
    for i in range(x.shape[0] - 1, -1, -2):
        out[j] = x[i]
        j += 1
    return out, j


def test_negative_steps() -> None:
    run_both(negative_steps, np.arange(41.0))


def clipped_sum(x, limit):
    s = 0.0
    count = 0
    for i in range(x.shape[0]):
        if x[i] > limit:
            s += limit
        else:
            s += x[i]
            count += 1
    return s, count


def test_a_branch_on_loop_values_is_an_if_op(recorder) -> None:
    x = np.random.default_rng(3).random(50)
    assert_same(ember.compile(clipped_sum, backend=recorder)(x, 0.5), clipped_sum(x, 0.5))
    assert "if" in [n.op for g in recorder.graphs for f in _funcs(g) for n in f.nodes]


def _funcs(graph):
    from ember.graph.regions import region_funcs

    return [graph, *region_funcs(graph)]


def triangle(n_rows):
    T = np.zeros((n_rows, n_rows), dtype=np.int64)
    for i in range(n_rows):
        for j in range(i + 1):
            T[i, j] = 1 if j == 0 or j == i else T[i - 1, j - 1] + T[i - 1, j]
    return T


def test_nested_loops_with_bounds_from_the_outer_index(recorder) -> None:
    assert_same(ember.compile(triangle, backend=recorder)(20), triangle(20))
    assert len(recorder.graphs) == 1 and loop_ops(recorder) == 1


def zero_trips_inside(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        s = x[i]
        for j in range(i):
            s = s - x[j]
        out[i] = s
    return out


def test_inner_loops_of_zero_trips() -> None:
    run_both(zero_trips_inside, np.arange(20.0))


def type_changes(x):
    s = 0
    for i in range(x.shape[0]):
        s += x[i]
    return s


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_a_carried_python_number_becoming_a_numpy_scalar(dtype) -> None:
    run_both(type_changes, np.arange(20).astype(dtype))


def sweeps(u):
    for _ in range(50):
        u = u.copy()
        u[1:-1] = 0.5 * (u[:-2] + u[2:])
    return u


def test_static_shape_array_ops_in_a_body(recorder) -> None:
    u = np.random.default_rng(4).random(32)
    assert_same(ember.compile(sweeps, backend=recorder)(u), sweeps(u))
    assert loop_ops(recorder) == 1 and recorder.op_counts[0] < 10


def stores_casting(x):
    out = np.zeros(x.shape[0], dtype=np.int32)
    for i in range(x.shape[0]):
        out[i] = x[i] * 3.7
    return out


def test_element_stores_cast_as_numpy() -> None:
    run_both(stores_casting, np.arange(-20.0, 20.0))


def first_above(x, t):
    idx = -1
    for i in range(x.shape[0]):
        if x[i] > t:
            idx = i
            break
    return idx


@pytest.mark.parametrize("threshold", [1.5, 99.0, -99.0])
def test_break_stops_the_loop_op(threshold, recorder) -> None:
    x = np.random.default_rng(5).standard_normal(50)
    assert_same(ember.compile(first_above, backend=recorder)(x, threshold),
                first_above(x, threshold))
    assert loop_ops(recorder) == 1


def skip_negative(x):
    s = 0.0
    n = 0
    for i in range(x.shape[0]):
        if x[i] < 0:
            continue
        s += x[i]
        n += 1
    return s, n


def test_continue_skips_the_rest_of_the_trip(recorder) -> None:
    x = np.random.default_rng(6).standard_normal(40)
    assert_same(ember.compile(skip_negative, backend=recorder)(x), skip_negative(x))
    assert loop_ops(recorder) == 1


def running_sum_until(x, limit):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
        if s > limit:
            break
        x[i] = s
    return s


def test_break_after_an_in_place_update_of_an_argument() -> None:
    x = np.random.default_rng(7).random(40)
    run_both(running_sum_until, x, 4.0)


def fibonacci(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def test_swapped_python_ints(recorder) -> None:
    assert ember.compile(fibonacci, backend=recorder)(60) == fibonacci(60)
    assert loop_ops(recorder) == 1


def insertion_sort(a):
    a = a.copy()
    for i in range(1, a.shape[0]):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


def collatz_steps(x):
    out = np.zeros(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        n = int(x[i])
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        out[i] = steps
    return out


@pytest.mark.parametrize(("fn", "make"), [
    (insertion_sort, lambda rng: rng.random(30)),
    (insertion_sort, lambda rng: np.arange(30.0)),  # no trip of the while loop
    (collatz_steps, lambda rng: rng.integers(1, 100, 20)),
])
def test_while_loops_on_loop_values_are_loop_ops(fn, make, recorder) -> None:
    x = make(np.random.default_rng(8))
    assert_same(ember.compile(fn, backend=recorder)(x), fn(x))
    assert len(recorder.graphs) == 1
    text = recorder.graphs[0].to_ir()
    assert text.count("= loop(") == 2 and "= if(" in text


def forward_by_dot(L, b):
    n = b.shape[0]
    x = np.zeros_like(b)
    for i in range(n):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def row_sums(A):
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        out[i] = A[i, :i + 1].sum() + np.sum(A[i, i:]) + A[i, -3:].sum()
    return out


def cholesky_by_dot(A):
    n = A.shape[0]
    L = np.zeros_like(A)
    for j in range(n):
        s = A[j, j] - np.dot(L[j, :j], L[j, :j])
        L[j, j] = np.sqrt(s)
        for i in range(j + 1, n):
            L[i, j] = (A[i, j] - L[i, :j] @ L[j, :j]) / L[j, j]
    return L


def int_prefix_sums(x):
    out = np.zeros(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        out[i] = x[:i].sum()
    return out


@pytest.mark.parametrize(("fn", "make"), [
    (forward_by_dot, lambda rng: (np.tril(rng.random((30, 30))) + 30 * np.eye(30),
                                  rng.random(30))),
    (row_sums, lambda rng: (rng.random((25, 25)),)),
    (cholesky_by_dot, lambda rng: (np.cov(rng.random((30, 60))) + 30 * np.eye(30),)),
    (int_prefix_sums, lambda rng: (rng.integers(-5, 5, 40).astype(np.int32),)),
])
def test_reductions_over_slices_with_loop_bounds_are_inner_loops(fn, make, recorder) -> None:
    args = make(np.random.default_rng(9))
    assert_same(ember.compile(fn, backend=recorder)(*args), fn(*args), rtol=1e-9)
    assert len(recorder.graphs) == 1 and loop_ops(recorder) == 1


def mismatched_dot(L, x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0] - 1):
        out[i] = L[i, :i] @ x[:i + 1]
    return out


def test_a_product_of_slices_of_different_lengths_raises_as_numpy() -> None:
    with pytest.raises(ValueError, match="mismatch in its core dimension"):
        ember.compile(mismatched_dot, backend="eager")(np.ones((20, 20)), np.ones(20))


def closure_scale(x):
    w = x * 2.0

    def scaled(i):
        return w[i] * 3.0

    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = scaled(i)
    return out


class Holder:
    def __init__(self, w):
        self.w = w


def attribute_reads(h, x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = h.w[i] + x[i]
    return out


def test_graph_values_reached_other_than_as_locals() -> None:
    x = np.arange(30.0)
    run_both(closure_scale, x)
    run_both(attribute_reads, Holder(np.ones(30)), x)


def crc_bytes(data):
    crc = 0xFFFFFFFF
    for i in range(data.shape[0]):
        crc ^= int(data[i])
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def test_a_break_in_every_cheap_trip_runs_the_frame_as_python(recorder, monkeypatch) -> None:
    """Without loop ops, `int(data[i])` of a uint64 (which a Python int held as int64 may not
    hold) breaks on each of 200 trips of a few ops: one graph call per trip would cost more
    than NumPy, so the frame runs as plain Python."""
    monkeypatch.setattr(ember.backends, "runs_loop_ops", lambda backend: False)
    data = np.random.default_rng(10).integers(0, 256, 200).astype(np.uint64)
    assert ember.compile(crc_bytes, backend=recorder)(data) == crc_bytes(data)
    assert recorder.graphs == []
    assert any("inside a loop of 200 trips" in r for r in ember.stats()["break_reasons"])
