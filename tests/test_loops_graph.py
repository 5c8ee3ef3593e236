"""IR version 2 in Python: regions, multi-result loop/if, load/store; the printed text (as
docs/IR.md's contract gives it) and the eager backend's NumPy semantics."""

from __future__ import annotations

import numpy as np
import pytest
from ember.backends import eager
from ember.graph import Graph

CONTRACT_EXAMPLE = """\
ember-ir 2
func @rec(%0: f64[2000]) -> (f64[2000]) {
  %1 = copy(%0) : f64[2000]
  %2 = const() value=1 : i64[] weak
  %3 = const() value=2000 : i64[] weak
  %4 = const() value=1 : i64[] weak
  %5 = loop(%2, %3, %4, %1, %0) body=@rec_loop0 carried=1 : f64[2000]
  return %5
}
func @rec_loop0(%0: i64[] weak, %1: f64[2000], %2: f64[2000]) -> (bool[], f64[2000]) {
  %3 = const() value=1 : i64[] weak
  %4 = sub(%0, %3) : i64[] weak
  %5 = load(%1, %4) : f64[]
  %6 = const() value=0.9 : f64[] weak
  %7 = mul(%6, %5) : f64[]
  %8 = load(%2, %0) : f64[]
  %9 = add(%7, %8) : f64[]
  %10 = store(%1, %9, %0) : f64[2000]
  %11 = const() value=true : bool[]
  return %11, %10
}
"""


def recurrence_graph() -> Graph:
    g = Graph("rec")
    x = g.add_input(np.float64, (2000,))
    y = g.op("copy", [x])
    lo, hi, step = g.const(1), g.const(2000), g.const(1)
    body = g.region("loop")
    i = body.add_input(np.int64, (), weak=True)
    carried = body.add_input(np.float64, (2000,))
    xs = body.add_input(np.float64, (2000,))
    prev = body.op("load", [carried, body.op("sub", [i, body.const(1)])])
    new = body.op("add", [body.op("mul", [body.const(0.9), prev]), body.op("load", [xs, i])])
    stored = body.op("store", [carried, new, i])
    body.set_outputs([body.const(True, weak=False), stored])
    (result,) = g.loop(lo, hi, step, [y], [x], body)
    g.set_outputs([result])
    return g


def test_loop_text_is_the_contracts() -> None:
    assert recurrence_graph().to_ir() == CONTRACT_EXAMPLE


def test_version_1_text_is_unchanged_without_regions() -> None:
    g = Graph("f")
    x = g.add_input(np.float32, (3,))
    g.set_outputs([g.op("add", [x, g.const(1.5)])])
    assert g.to_ir().startswith("ember-ir 1\nfunc @f(")


def test_load_and_store_alone_make_version_2() -> None:
    g = Graph("f")
    x = g.add_input(np.float64, (3,))
    g.set_outputs([g.op("store", [x, g.op("load", [x, g.const(0)]), g.const(2)])])
    assert g.to_ir() == (
        "ember-ir 2\n"
        "func @f(%0: f64[3]) -> (f64[3]) {\n"
        "  %1 = const() value=0 : i64[] weak\n"
        "  %2 = load(%0, %1) : f64[]\n"
        "  %3 = const() value=2 : i64[] weak\n"
        "  %4 = store(%0, %2, %3) : f64[3]\n"
        "  return %4\n"
        "}\n"
    )


def test_recurrence_runs_as_numpy() -> None:
    x = np.random.default_rng(0).random(2000)
    want = x.copy()
    for i in range(1, 2000):
        want[i] = 0.9 * want[i - 1] + x[i]
    before = x.copy()
    (got,) = eager.run(recurrence_graph(), x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(x, before)  # the input is never written


def counting_loop(lo: int, hi: int, step: int) -> Graph:
    """`s = 0; for i in range(lo, hi, step): s = s * 10 + i`, bounds as inputs."""
    g = Graph("count")
    bounds = [g.add_input(np.int64, (), weak=True) for _ in range(3)]
    body = g.region("loop")
    i = body.add_input(np.int64, (), weak=True)
    s = body.add_input(np.int64, (), weak=True)
    body.set_outputs([body.const(True, weak=False),
                      body.op("add", [body.op("mul", [s, body.const(10)]), i])])
    (result,) = g.loop(*bounds, [g.const(0)], [], body)
    g.set_outputs([result])
    return g


@pytest.mark.parametrize("bounds", [(0, 5, 1), (5, 0, -1), (7, -3, -3), (3, 3, 1), (4, 1, 1),
                                    (-2, 4, 2)])
def test_loop_trips_follow_range(bounds: tuple[int, int, int]) -> None:
    want = 0
    for i in range(*bounds):
        want = want * 10 + i
    (got,) = eager.run(counting_loop(*bounds), *bounds)
    assert got.item() == want


def test_loop_step_zero_raises_as_range() -> None:
    with pytest.raises(ValueError, match="range\\(\\) arg 3 must not be zero"):
        eager.run(counting_loop(0, 1, 0), 0, 1, 0)


def test_loop_stops_after_the_trip_whose_go_is_false() -> None:
    g = Graph("first_big")
    x = g.add_input(np.float64, (6,))
    body = g.region("loop")
    i = body.add_input(np.int64, (), weak=True)
    body.add_input(np.int64, (), weak=True)
    xs = body.add_input(np.float64, (6,))
    small = body.op("lt", [body.op("load", [xs, i]), body.const(0.5)])
    body.set_outputs([small, i])
    (result,) = g.loop(g.const(0), g.const(6), g.const(1), [g.const(-1)], [x], body)
    g.set_outputs([result])
    (got,) = eager.run(g, np.array([0.1, 0.2, 0.7, 0.9, 0.1, 0.3]))
    assert got.item() == 2


def element_graph(op: str, shape: tuple[int, ...], dtype=np.float64, stored=None) -> Graph:
    g = Graph("element")
    x = g.add_input(dtype, shape)
    indices = [g.add_input(np.int64, (), weak=True) for _ in shape]
    if op == "load":
        g.set_outputs([g.op("load", [x, *indices])])
    else:
        g.set_outputs([g.op("store", [x, stored(g), *indices])])
    return g


@pytest.mark.parametrize("index", [(7,), (-6,), (5,)])
def test_load_out_of_range_raises_numpys_index_error(index: tuple[int]) -> None:
    x = np.arange(5.0)
    with pytest.raises(IndexError) as numpy_error:
        x[index]
    with pytest.raises(IndexError) as ember_error:
        eager.run(element_graph("load", (5,)), x, *index)
    assert str(ember_error.value) == str(numpy_error.value)


def test_load_counts_a_negative_index_from_the_end_once() -> None:
    x = np.arange(12.0).reshape(3, 4)
    (got,) = eager.run(element_graph("load", (3, 4)), x, -1, -4)
    assert got[()] == x[-1, -4] and got.dtype == x.dtype


def test_store_out_of_range_raises_for_axis_1() -> None:
    x = np.zeros((3, 4))
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 1 with size 4"):
        eager.run(element_graph("store", (3, 4), stored=lambda g: g.const(1.0)), x, 0, 4)


@pytest.mark.parametrize(("dtype", "value"), [(np.int32, 2.75), (np.uint8, 300), (np.bool_, 0.5),
                                               (np.float32, 1e-46), (np.int64, -7.9)])
def test_store_casts_as_astype(dtype, value) -> None:
    x = np.zeros(3, dtype)
    want = x.copy()
    with np.errstate(all="ignore"):
        want[1] = np.asarray(np.float64(value) if isinstance(value, float)
                             else np.int64(value)).astype(dtype)
    graph = element_graph("store", (3,), dtype,
                          stored=lambda g: g.const(np.float64(value) if isinstance(value, float)
                                                   else np.int64(value)))
    (got,) = eager.run(graph, x, 1)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert not x.any()  # the input is never written


def test_if_runs_only_the_taken_region() -> None:
    g = Graph("pick")
    x = g.add_input(np.float64, (4,))
    k = g.add_input(np.int64, (), weak=True)
    then, orelse = g.region("then"), g.region("else")
    for region, index in ((then, 9), (orelse, 0)):  # index 9 would raise if run
        xs, _ = region.add_input(np.float64, (4,)), region.add_input(np.int64, (), weak=True)
        region.set_outputs([region.op("load", [xs, region.const(index)])])
    cond = g.op("gt", [k, g.const(3)])
    (result,) = g.if_(cond, [x, k], then, orelse)
    g.set_outputs([result])
    (got,) = eager.run(g, np.arange(4.0) + 1, 2)
    assert got[()] == 1.0
    with pytest.raises(IndexError):
        eager.run(g, np.arange(4.0), 5)


def test_region_signatures_are_checked() -> None:
    g = Graph("bad")
    x = g.add_input(np.float64, (3,))
    body = g.region("loop")
    body.add_input(np.int64, (), weak=True)
    carried = body.add_input(np.float32, (3,))
    body.set_outputs([body.const(True, weak=False), carried])
    with pytest.raises(TypeError, match="param f32\\[3\\] is passed f64\\[3\\]"):
        g.loop(g.const(0), g.const(3), g.const(1), [x], [], body)


def test_nested_regions_follow_the_entry_in_order() -> None:
    g = Graph("outer")
    x = g.add_input(np.float64, (3, 3))
    body = g.region("loop")
    i = body.add_input(np.int64, (), weak=True)
    carried = body.add_input(np.float64, (3, 3))
    inner = body.region("loop")
    j = inner.add_input(np.int64, (), weak=True)
    cell = inner.add_input(np.float64, (3, 3))
    row = inner.add_input(np.int64, (), weak=True)
    total = inner.op("add", [row, j])
    inner.set_outputs([inner.const(True, weak=False), inner.op("store", [cell, total, row, j])])
    (updated,) = body.loop(body.const(0), i, body.const(1), [carried], [i], inner)
    body.set_outputs([body.const(True, weak=False), updated])
    (result,) = g.loop(g.const(0), g.const(3), g.const(1), [x], [], body)
    g.set_outputs([result])
    text = g.to_ir()
    assert [line.split("(")[0] for line in text.splitlines() if line.startswith("func")] == [
        "func @outer", "func @outer_loop0", "func @outer_loop1"]
    (got,) = eager.run(g, np.zeros((3, 3)))
    np.testing.assert_array_equal(got, np.array([[0, 0, 0], [1, 0, 0], [2, 3, 0]]))
