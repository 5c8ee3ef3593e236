"""`np.argmin` / `np.argmax` of a short 1-d array in a loop body
(`capture/loops/small_extrema.py`): compares on its elements, with NumPy's index (the first
extremum, the first NaN), dtype and value, in one native loop op with no arg-reduction."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import RecordingBackend
from hypothesis import given, seed, settings
from hypothesis import strategies as st


def first_free_server(arrivals, services, c):
    free_at = np.zeros(c)
    start = np.empty_like(arrivals)
    server = np.empty(len(arrivals), dtype=np.int32)
    for i in range(len(arrivals)):
        k = np.argmin(free_at)
        start[i] = max(arrivals[i], free_at[k])
        free_at[k] = start[i] + services[i]
        server[i] = k
    return start, server, free_at


def row_winners(scores):
    wins = np.zeros(scores.shape[1], dtype=np.int64)
    best = np.empty(scores.shape[0], dtype=np.int64)
    for i in range(scores.shape[0]):
        j = scores[i].argmax()
        best[i] = j
        wins[j] += 1
    return best, wins


def _cheapest(costs):
    return np.argmin(costs, axis=0)


def alignment_moves(a, b):
    n, m = len(a), len(b)
    D = np.zeros((n + 1, m + 1))
    D[0, :] = np.arange(m + 1)
    D[:, 0] = np.arange(n + 1)
    moves = np.zeros((n + 1, m + 1), dtype=np.int8)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            options = np.array([D[i - 1, j - 1] + (a[i - 1] != b[j - 1]),
                                D[i - 1, j] + 1.0, D[i, j - 1] + 1.0])
            k = _cheapest(options)
            D[i, j] = options[k]
            moves[i, j] = k
    return D[n, m], moves


def argmin_argmax_rows(x):
    lo = np.empty(x.shape[0], dtype=np.int64)
    hi = np.empty(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        lo[i] = np.argmin(x[i])
        hi[i] = np.argmax(x[i])
    return lo, hi


def _ops(graph):
    for node in graph.nodes:
        yield node.op
        for key in ("body", "then", "else"):
            if key in node.attrs:
                yield from _ops(node.attrs[key])


def _compiled(fn, *args):
    ember.reset()
    recorder = RecordingBackend("cranelift")
    got = ember.compile(fn, backend=recorder)(*args)
    stats = ember.stats()
    assert stats["compiles"] == 1 and stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["region_recaptures"] == 0 and not stats["backend_fallbacks"], stats
    ops = list(_ops(recorder.graphs[0]))
    assert "loop" in ops and not {"argmin", "argmax"} & set(ops)  # in registers
    return got


def _same(got, want):
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        assert type(g) is type(w) and g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


CASES = [
    (first_free_server, lambda r: (np.cumsum(r.exponential(1.0, 60)), r.exponential(2.5, 60), 3)),
    (row_winners, lambda r: (r.integers(0, 5, (40, 4)).astype(np.int16),)),
    (alignment_moves, lambda r: (r.integers(0, 3, 9), r.integers(0, 3, 7))),
    (argmin_argmax_rows, lambda r: (r.random((30, 6)).astype(np.float32),)),
]


@pytest.mark.parametrize("fn,make", CASES, ids=[c[0].__name__ for c in CASES])
def test_short_arg_extrema_match_numpy_in_registers(fn, make):
    for s in (0, 1):
        args = make(np.random.default_rng(s))
        _same(_compiled(fn, *_copies(args)), fn(*_copies(args)))


@pytest.mark.parametrize("fn,make", CASES, ids=[c[0].__name__ for c in CASES])
def test_short_arg_extrema_match_numpy_eagerly(fn, make):
    ember.reset()
    args = make(np.random.default_rng(2))
    _same(ember.compile(fn, backend="eager")(*_copies(args)), fn(*_copies(args)))


@seed(12)
@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([0.0, -0.0, 1.5, -2.0, np.nan, np.inf, -np.inf, 1.5]),
                min_size=15 * 5, max_size=15 * 5))
def test_ties_nans_and_infinities_pick_numpys_index(values):
    x = np.array(values).reshape(15, 5)
    _same(_compiled(argmin_argmax_rows, x), argmin_argmax_rows(x))


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_a_long_row_stays_an_arg_reduction(backend):
    x = np.random.default_rng(3).random((10, 40))
    ember.reset()
    _same(ember.compile(argmin_argmax_rows, backend=backend)(x), argmin_argmax_rows(x))


def greedy_pick(scores, k):
    s = scores.copy()
    picked = np.zeros(k, dtype=np.int64)
    for i in range(k):
        j = s.argmax()
        picked[i] = j
        s[j] = -np.inf
    return picked


def merge_two_least(w):
    alive = w > 0
    parent = np.full(w.shape[0], -1)
    while alive.sum() > 1:
        m = np.where(alive, w, np.inf)
        a = np.argmin(m)
        m[a] = np.inf
        b = np.argmin(m)
        parent[b] = a
        w[a] += w[b]
        alive[b] = False
    return parent, w


def middle_of_sorted(x, rounds):
    out = np.zeros(rounds)
    for r in range(rounds):
        x = x * 0.9 + 1.0
        out[r] = np.sort(x)[x.shape[0] // 2]
    return out


@pytest.mark.parametrize("fn,make", [
    (greedy_pick, lambda r: (r.random(200), 30)),
    (merge_two_least, lambda r: (r.integers(0, 4, 120).astype(np.float64),)),
    (middle_of_sorted, lambda r: (r.random(64), 20)),
], ids=["greedy_pick", "merge_two_least", "middle_of_sorted"])
@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_a_long_value_in_a_loop_body_loads_none_of_its_elements(fn, make, backend):
    """Past the short length the value stays whole for its arg-reduction or sort: no element
    loaded for a comparison network that is not built."""
    for s in (0, 1):
        args = make(np.random.default_rng(s))
        ember.reset()
        recorder = RecordingBackend(backend)
        _same(ember.compile(fn, backend=recorder)(*_copies(args)), fn(*_copies(args)))
        assert ember.stats()["graph_breaks"] == 0
        assert sum(op == "load" for g in recorder.graphs for op in _ops(g)) < 8
