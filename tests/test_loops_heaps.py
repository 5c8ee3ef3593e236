"""`heapq.heappush`/`heappop` on lists in loop ops (`capture/loops/heaps.py`): priority
queues of numbers and of tuples, as Dijkstra's algorithm, k-smallest selections, event
queues and Prim's algorithm keep them. The heap must hold its items in CPython's order, so
that every pop, ties included, returns what Python's would; each program compiles whole."""

from __future__ import annotations

import heapq
from heapq import heappop, heappush

import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy, assert_compiles_whole


def k_largest(x, k):
    h = []
    for v in x:
        heappush(h, v)
        if len(h) > k:
            heappop(h)
    out = []
    while h:
        out.append(heappop(h))
    return out


def event_order(t, kinds):
    ev = []
    for i in range(len(t)):
        heapq.heappush(ev, (t[i], kinds[i]))
    order = []
    total = 0.0
    while ev:
        when, kind = heapq.heappop(ev)
        total += when * kind
        order.append(kind)
    return order, total


def dijkstra(ptr, idx, w, s):
    n = len(ptr) - 1
    dist = np.full(n, np.inf)
    dist[s] = 0.0
    pq = []
    heappush(pq, (dist[s], idx[0] * 0 + s))
    while pq:
        d, v = heappop(pq)
        if d > dist[v]:
            continue
        for k in range(ptr[v], ptr[v + 1]):
            u = idx[k]
            nd = d + w[k]
            if nd < dist[u]:
                dist[u] = nd
                heappush(pq, (nd, u))
    return dist


def dijkstra_classic(ptr, idx, w, s):
    # The first item holds Python numbers, the rest NumPy scalars: each keeps its type.
    n = len(ptr) - 1
    dist = np.full(n, np.inf)
    dist[s] = 0.0
    pq = [(0.0, s)]
    popped = []
    while pq:
        d, v = heapq.heappop(pq)
        popped.append(d)
        if d > dist[v]:
            continue
        for k in range(ptr[v], ptr[v + 1]):
            u = idx[k]
            nd = d + w[k]
            if nd < dist[u]:
                dist[u] = nd
                heapq.heappush(pq, (nd, u))
    return dist, popped


def prim_weight(ptr, idx, w):
    n = len(ptr) - 1
    seen = np.zeros(n, dtype=np.bool_)
    total = 0.0
    pq = [(w[0] * 0.0, idx[0] * 0)]
    while pq:
        c, v = heapq.heappop(pq)
        if seen[v]:
            continue
        seen[v] = True
        total += c
        for k in range(ptr[v], ptr[v + 1]):
            if not seen[idx[k]]:
                heapq.heappush(pq, (w[k], idx[k]))
    return total, seen


def heap_sort_ints(x):
    h = []
    for v in x:
        heappush(h, v)
    out = []
    for _ in range(len(x)):
        out.append(heappop(h))
    return out


def running_kth_smallest(x, k):
    heap = []
    res = np.empty(len(x))
    for i, v in enumerate(x):
        if len(heap) < k:
            heapq.heappush(heap, -v)
        elif -heap[0] > v:
            heapq.heapreplace(heap, -v)
        res[i] = -heap[0]
    return res


def top_k_pushpop(x, k):
    heap = []
    for v in x[:k]:
        heappush(heap, v)
    dropped = 0.0
    for v in x[k:]:
        dropped += heapq.heappushpop(heap, v)
    return dropped, heap


def _csr(rng, n, most=4):
    deg = rng.integers(0, most + 1, n)
    ptr = np.concatenate([[0], np.cumsum(deg)])
    return ptr, rng.integers(0, n, ptr[-1])


def _weighted(rng, n):
    ptr, idx = _csr(rng, n)
    return ptr, idx, np.round(rng.random(len(idx)), 1)  # rounded: ties


CASES = [
    (k_largest, lambda r: (r.standard_normal(40), 5)),
    (k_largest, lambda r: (r.integers(0, 5, 40), 7)),
    (event_order, lambda r: (np.round(r.random(40), 1), r.integers(0, 3, 40))),
    (dijkstra, lambda r: (*_weighted(r, 60), 0)),
    (prim_weight, lambda r: _weighted(r, 50)),
    (dijkstra_classic, lambda r: (*_weighted(r, 60), 2)),
    (heap_sort_ints, lambda r: (r.integers(-5, 5, 30).astype(np.int32),)),
    (running_kth_smallest, lambda r: (r.standard_normal(50), 4)),
    (top_k_pushpop, lambda r: (np.round(r.standard_normal(40), 1), 6)),
]


@pytest.mark.parametrize(("fn", "make"), CASES,
                         ids=[f"{fn.__name__}-{k}" for k, (fn, _) in enumerate(CASES)])
def test_heaps_behave_as_python_and_compile(fn, make):
    args = make(np.random.default_rng(8))
    assert_behaves_as_numpy(fn, *args)
    assert_compiles_whole(fn, args)


def test_items_of_two_types_pop_with_their_own_types():
    import ember

    ptr, idx, w = _weighted(np.random.default_rng(3), 40)
    want = dijkstra_classic(ptr, idx, w, 0)[1]
    got = ember.compile(dijkstra_classic)(ptr, idx, w, 0)[1]
    assert got == want and [type(v) for v in got] == [type(v) for v in want]
    assert type(got[0]) is float and type(got[-1]) is np.float64


def popping_too_often(x):
    h = []
    for v in x:
        heappush(h, v)
    total = 0.0
    for _ in range(len(x) + 1):
        total += heappop(h)
    return total


def test_popping_an_empty_heap_raises_as_python():
    assert_behaves_as_numpy(popping_too_often, np.arange(5.0), compiled_code=False)


def nan_priorities(x):
    h = []
    for i in range(len(x)):
        heappush(h, (x[i], i))
    return [heappop(h) for _ in range(len(x))]


def test_nan_priorities_run_as_python():
    x = np.array([2.0, np.nan, 1.0, np.nan, 0.5])
    assert_behaves_as_numpy(nan_priorities, x, compiled_code=False)


@seed(63)
@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=40), st.integers(1, 8))
def test_heap_order_random(values, k):
    x = np.array(values, dtype=np.int64)
    assert_behaves_as_numpy(k_largest, x, k)
    assert_behaves_as_numpy(event_order, x.astype(np.float64), x % 3)
