"""Whole short arrays updated in place in a branch of a loop body (`v -= w`, `v *= 2`), and
`astype` of rows at a loop index, against NumPy: element loops that keep the loop native
(`capture/loops/window_exprs.py`), with NumPy's results, dtypes, casting errors and
argument updates."""

from __future__ import annotations

import copy

import ember
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


def peel(adj, k):
    degree = adj.sum(axis=1).astype(np.int64)
    alive = np.ones(adj.shape[0], dtype=bool)
    for v in range(adj.shape[0]):
        if alive[v] and degree[v] < k:
            alive[v] = False
            degree -= adj[v].astype(np.int64)
    return alive, degree


def sub_whole(x, y, z):
    y = y.copy()
    for i in range(len(x)):
        if x[i] > 0.5:
            y -= z
        else:
            y *= 1.01
    return y


def add_row_broadcast(x, acc, rows):
    for i in range(len(x)):
        if x[i] > 0.3:
            acc += rows[i % rows.shape[0]]
    return acc


def scale_by_element(x, y):
    out = np.zeros_like(y)
    for i in range(len(x)):
        if x[i] < 0.5:
            out += x[i] * y
    return out


def self_update(x, y):
    y = y.copy()
    for i in range(len(x)):
        if x[i] > 0.5:
            y += y[::-1]
    return y


def cast_rows(x, rows, dtype):
    out = np.zeros(rows.shape[1], dtype=np.float64)
    for i in range(len(x)):
        if x[i] > 0.2:
            out += rows[i].astype(dtype)
    return out


CASES = [
    (peel, lambda r: ((np.triu(r.random((30, 30)) < 0.1, 1) | np.triu(r.random((30, 30)) < 0.1, 1).T
                       ).astype(np.int64), 2)),
    (peel, lambda r: ((r.random((20, 20)) < 0.3).astype(np.uint8), 3)),
    (sub_whole, lambda r: (r.random(50), r.random(40), r.random(40))),
    (sub_whole, lambda r: (r.random(50), r.random((6, 7)).astype(np.float32), r.random(7))),
    (add_row_broadcast, lambda r: (r.random(40), np.zeros((5, 6)), r.random((3, 6)))),
    (add_row_broadcast, lambda r: (r.random(40), np.zeros(6, np.int32),
                                   r.integers(-5, 5, (3, 6)).astype(np.int16))),
    (scale_by_element, lambda r: (r.random(30), r.random((4, 9)).astype(np.float32))),
    (self_update, lambda r: (r.random(20), r.random(12))),
    (cast_rows, lambda r: (r.random(30), 10 * r.standard_normal((30, 17)), np.int32)),
    (cast_rows, lambda r: (r.random(30), 300 * r.random((30, 17)), np.uint8)),
    (cast_rows, lambda r: (r.random(30), r.integers(0, 3, (30, 17)), np.bool_)),
    (cast_rows, lambda r: (r.random(30), r.random((30, 17)), np.float32)),
]


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
@pytest.mark.parametrize("fn,make", CASES, ids=[f"{c[0].__name__}{i}" for i, c in enumerate(CASES)])
def test_branch_updates_match_numpy(fn, make, backend):
    ember.reset()
    compiled = ember.compile(fn, backend=backend)
    for seed in range(2):
        inputs = make(np.random.default_rng(seed))
        want_in, got_in = copy.deepcopy(inputs), copy.deepcopy(inputs)
        with np.errstate(invalid="ignore", over="ignore"):
            want, got = fn(*want_in), compiled(*got_in)
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-6 if w.dtype == np.float32 else 1e-12)
        for g, w in zip(got_in, want_in):
            if isinstance(w, np.ndarray):
                np.testing.assert_array_equal(g, w)
    stats = ember.stats()
    assert stats["compiles"] >= 1 and stats["graph_breaks"] == 0, stats["break_reasons"]


def _array_ops_in_regions(ir: str) -> list[str]:
    """The lines of the IR's regions (every func after the entry) whose op makes an array
    other than by `store`, `loop` or `if` (which a native statement runs)."""
    found = []
    for func in ir.split("func @")[2:]:
        for line in func.splitlines()[1:]:
            if " = " not in line or ":" not in line:
                continue
            op = line.split(" = ", 1)[1].split("(", 1)[0]
            types = line.rsplit(":", 1)[1]
            if "[" in types and "[]" not in types.replace(" ", "").split(",")[0] and (
                    op not in ("store", "loop", "if")):
                found.append(line.strip())
    return found


@pytest.mark.parametrize("fn,make", CASES[:3], ids=["peel", "peel_u8", "sub_whole"])
def test_branch_updates_leave_no_array_op_in_the_loop(fn, make):
    """The updates are loads and stores: no region runs as a graph of its own, so the loop
    stays one native statement."""
    inputs = make(np.random.default_rng(0))
    report = ember.explain(fn, *inputs)
    assert report.graph_count == 1
    assert _array_ops_in_regions(report.graphs[0]) == []


def test_an_int_target_minus_floats_raises_numpys_error():
    def f(x, y, z):
        for i in range(len(x)):
            if x[i] > 0.5:
                y -= z
        return y

    args = (np.ones(4), np.ones(3, np.int64), np.ones(3))
    with pytest.raises(TypeError) as want:
        f(*copy.deepcopy(args))
    with pytest.raises(type(want.value)):
        ember.compile(f)(*copy.deepcopy(args))


@settings(max_examples=30)
@given(st.sampled_from([np.float64, np.float32, np.int64, np.int32, np.uint8]),
       st.sampled_from([np.float64, np.int64, np.int16, np.bool_]),
       st.sampled_from(["+=", "-=", "*="]), st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_random_branch_updates_match_numpy(target, operand, op, n, seed):
    """`v op= w` in a branch, for target and operand dtypes NumPy may or may not cast."""
    src = ("def f(x, v, w):\n"
           "    for i in range(len(x)):\n"
           "        if x[i] > 0.5:\n"
           f"            v {op} w\n"
           "    return v\n")
    namespace: dict = {}
    exec(compile(src, f"<branch_update {op}>", "exec"), namespace)
    f = namespace["f"]
    rng = np.random.default_rng(seed)
    args = (rng.random(12), rng.integers(0, 3, n).astype(target),
            rng.integers(0, 3, n).astype(operand))
    try:
        with np.errstate(all="ignore"):
            want = f(*copy.deepcopy(args))
    except TypeError as error:
        with pytest.raises(type(error)):
            ember.compile(f)(*copy.deepcopy(args))
        return
    ember.reset()
    with np.errstate(all="ignore"):
        got = ember.compile(f)(*copy.deepcopy(args))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
