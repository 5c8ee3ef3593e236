"""Queues in loop ops: `collections.deque` (`append`, `popleft`, `pop`, `while q:`,
`while len(q) > 0:`), lists popped from the front (`q.pop(0)`) or read at a head index
(`v = q[head]; head += 1`), and `for` loops over 1-d slices with run-time bounds (`for u in
idx[ptr[v]:ptr[v + 1]]`, `enumerate(...)` of one), as graph searches over CSR arrays and
grids are written. The list or deque is carried as a buffer, a count and a head
(`capture/loops/appends.py`); each must compile whole and equal plain Python, including the
deque or list left behind and Python's IndexError on an empty one."""

from __future__ import annotations

import collections
from collections import deque

import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from probe_harness import assert_behaves_as_numpy, assert_compiles_whole


def bfs_grid_deque(grid, sr, sc):
    h, w = grid.shape
    dist = np.full((h, w), -1, dtype=np.int64)
    dist[sr, sc] = 0
    q = deque()
    q.append((sr, sc))
    while q:
        r, c = q.popleft()
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nr, nc = r + dr, c + dc
            if 0 <= nr < h and 0 <= nc < w and grid[nr, nc] == 0 and dist[nr, nc] < 0:
                dist[nr, nc] = dist[r, c] + 1
                q.append((nr, nc))
    return dist


def bfs_csr_collections(ptr, idx, s):
    n = len(ptr) - 1
    dist = np.full(n, -1)
    dist[s] = 0
    q = collections.deque([s])
    while len(q) > 0:
        v = q.popleft()
        for u in idx[ptr[v]:ptr[v + 1]]:
            if dist[u] == -1:
                dist[u] = dist[v] + 1
                q.append(u)
    return dist


def bfs_list_pop0(ptr, idx, s):
    n = len(ptr) - 1
    seen = np.zeros(n, dtype=np.bool_)
    order = []
    q = [s]
    seen[s] = True
    while q:
        v = q.pop(0)
        order.append(v)
        for k in range(ptr[v], ptr[v + 1]):
            u = idx[k]
            if not seen[u]:
                seen[u] = True
                q.append(u)
    return np.array(order)


def bfs_head_index(ptr, idx, s):
    n = len(ptr) - 1
    dist = np.full(n, -1)
    dist[s] = 0
    q = [s]
    head = 0
    while head < len(q):
        v = q[head]
        head += 1
        for k in range(ptr[v], ptr[v + 1]):
            u = idx[k]
            if dist[u] < 0:
                dist[u] = dist[v] + 1
                q.append(u)
    return dist, len(q)


def components_deque(ptr, idx):
    n = len(ptr) - 1
    label = np.full(n, -1, dtype=np.int32)
    current = 0
    for s in range(n):
        if label[s] >= 0:
            continue
        label[s] = current
        q = deque([s])
        while q:
            v = q.popleft()
            for u in idx[ptr[v]:ptr[v + 1]]:
                if label[u] < 0:
                    label[u] = current
                    q.append(u)
        current += 1
    return label, current


def topo_order_deque(ptr, idx):
    n = len(ptr) - 1
    indeg = np.zeros(n, dtype=np.int64)
    for u in idx:
        indeg[u] += 1
    q = deque([v for v in range(n) if indeg[v] == 0])
    order = []
    while q:
        v = q.popleft()
        order.append(v)
        for u in idx[ptr[v]:ptr[v + 1]]:
            indeg[u] -= 1
            if indeg[u] == 0:
                q.append(u)
    return order


def multi_source_distance(grid):
    h, w = grid.shape
    dist = np.full((h, w), np.inf)
    q = deque()
    for i in range(h):
        for j in range(w):
            if grid[i, j] == 1:
                dist[i, j] = 0.0
                q.append((i, j))
    while q:
        i, j = q.popleft()
        for di, dj in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            a, b = i + di, j + dj
            if 0 <= a < h and 0 <= b < w and dist[a, b] == np.inf:
                dist[a, b] = dist[i, j] + 1
                q.append((a, b))
    return dist


def zero_one_bfs(cost):
    h, w = cost.shape
    dist = np.full((h, w), 10**9, dtype=np.int64)
    dist[0, 0] = 0
    dq = deque([(0, 0)])
    while dq:
        i, j = dq.popleft()
        for di, dj in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            a, b = i + di, j + dj
            if 0 <= a < h and 0 <= b < w:
                nd = dist[i, j] + cost[a, b]
                if nd < dist[a, b]:
                    dist[a, b] = nd
                    if cost[a, b] == 0:
                        dq.appendleft((a, b))
                    else:
                        dq.append((a, b))
    return dist


def both_ends(x):
    q = deque()
    for v in x:
        if v > 0:
            q.append(v)
        else:
            q.appendleft(v)
        if len(q) > 6:
            q.pop()
    return q


def flood_fill_extend(grid, r0, c0):
    h, w = grid.shape
    seen = np.zeros_like(grid, dtype=bool)
    stack = [(r0, c0)]
    size = 0
    while stack:
        r, c = stack.pop()
        if r < 0 or r >= h or c < 0 or c >= w or seen[r, c] or grid[r, c] == 0:
            continue
        seen[r, c] = True
        size += 1
        stack.extend([(r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)])
    return size, seen


def sliding_max_deque(x, k):
    out = np.empty(len(x) - k + 1)
    q = deque()
    for i in range(len(x)):
        while q and x[q[-1]] <= x[i]:
            q.pop()
        q.append(i)
        if q[0] <= i - k:
            q.popleft()
        if i >= k - 1:
            out[i - k + 1] = x[q[0]]
    return out


def queue_left_behind(ptr, idx, s, budget):
    """Stops part-way: the deque left holds the frontier, returned to the caller."""
    seen = np.zeros(len(ptr) - 1, dtype=np.bool_)
    seen[s] = True
    q = deque([s])
    steps = 0
    while q and steps < budget:
        v = q.popleft()
        steps += 1
        for u in idx[ptr[v]:ptr[v + 1]]:
            if not seen[u]:
                seen[u] = True
                q.append(u)
    return q, steps


def weighted_degrees(ptr, idx, w):
    out = np.zeros(len(ptr) - 1)
    for v in range(len(ptr) - 1):
        for k, u in enumerate(idx[ptr[v]:ptr[v + 1]], 1):
            out[v] += w[u] / k
    return out


def neighbour_max(ptr, idx, x):
    best = np.full(len(ptr) - 1, -np.inf)
    for v in range(len(ptr) - 1):
        for u in idx[ptr[v]:ptr[v + 1]]:
            if x[u] > best[v]:
                best[v] = x[u]
    return best


def _csr(rng, n, most=4):
    deg = rng.integers(0, most + 1, n)
    ptr = np.concatenate([[0], np.cumsum(deg)])
    return ptr, rng.integers(0, n, ptr[-1])


def _dag(rng, n):
    ptr, idx = _csr(rng, n)
    src = np.repeat(np.arange(n), np.diff(ptr))
    return ptr, np.where(idx > src, idx, np.minimum(src + 1, n - 1))


def _grid(rng):
    grid = (rng.random((13, 17)) < 0.3).astype(np.int8)
    grid[0, 0] = 0
    return grid


CASES = [
    (bfs_grid_deque, lambda r: (_grid(r), 0, 0)),
    (bfs_csr_collections, lambda r: (*_csr(r, 60), 0)),
    (bfs_list_pop0, lambda r: (*_csr(r, 60), 3)),
    (bfs_head_index, lambda r: (*_csr(r, 60), 5)),
    (components_deque, lambda r: _csr(r, 50, 2)),
    (sliding_max_deque, lambda r: (r.standard_normal(40), 5)),
    (topo_order_deque, lambda r: _dag(r, 50)),
    (zero_one_bfs, lambda r: (r.integers(0, 2, (9, 11)),)),
    (flood_fill_extend, lambda r: ((r.random((10, 12)) < 0.7).astype(np.int64), 0, 0)),
    (both_ends, lambda r: (r.standard_normal(30),)),
    (multi_source_distance, lambda r: ((r.random((12, 15)) < 0.05).astype(np.int64),)),
    (queue_left_behind, lambda r: (*_csr(r, 60), 0, 7)),
    (weighted_degrees, lambda r: (*_csr(r, 40), r.random(40))),
    (neighbour_max, lambda r: (*_csr(r, 40), r.standard_normal(40))),
]


@pytest.mark.parametrize(("fn", "make"), CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_queues_behave_as_python_and_compile(fn, make):
    args = make(np.random.default_rng(11))
    assert_behaves_as_numpy(fn, *args)
    assert_compiles_whole(fn, args)


def test_the_deque_left_behind_is_a_deque_of_the_same_items():
    import ember

    ptr, idx = _csr(np.random.default_rng(2), 80)
    want, _ = queue_left_behind(ptr, idx, 0, 5)
    got, _ = ember.compile(queue_left_behind)(ptr, idx, 0, 5)
    assert type(got) is deque and list(got) == list(want)
    assert [type(v) for v in got] == [type(v) for v in want]


def pop_front_of_empty(x):
    q = [0]
    total = 0.0
    for i in range(len(x)):
        total += x[q.pop(0)]
    return total


def popleft_of_empty(x):
    q = deque()
    q.append(0)
    total = 0.0
    i = 0
    while i < len(x):
        total += x[q.popleft()]
        i += 1
    return total


@pytest.mark.parametrize("fn", [pop_front_of_empty, popleft_of_empty])
def test_popping_an_empty_queue_raises_as_python(fn):
    assert_behaves_as_numpy(fn, np.arange(3.0), compiled_code=False)  # IndexError
    assert_behaves_as_numpy(fn, np.arange(1.0))


def many_on_the_left(n, x):
    q = deque([x[0]])
    for i in range(n):
        q.appendleft(x[i % len(x)])
    return len(q), q[0]


def test_appends_on_the_left_past_the_room_there_run_as_python():
    # The room before the head holds at least 4096 items: past it the frame runs as Python.
    assert_behaves_as_numpy(many_on_the_left, 5000, np.arange(3.0), compiled_code=False)
    assert_behaves_as_numpy(many_on_the_left, 50, np.arange(3.0))


def slice_iteration_sees_writes(x, lo, hi):
    # Iterating a view reads each item when its trip starts: writes ahead of it show.
    for k in range(1):
        for v in x[lo[k]:hi[k]]:
            x[min(int(v) + 1, len(x) - 1)] += 1.0
    return x


def test_iterating_a_slice_reads_the_items_as_the_view_does():
    x = np.zeros(8)
    assert_behaves_as_numpy(slice_iteration_sees_writes, x, np.array([1]), np.array([6]))
    assert_behaves_as_numpy(slice_iteration_sees_writes, x, np.array([-3]), np.array([99]))
    assert_behaves_as_numpy(slice_iteration_sees_writes, x, np.array([5]), np.array([2]))


@seed(61)
@settings(max_examples=25, deadline=None)
@given(st.integers(1, 40), st.integers(0, 4), st.integers(0, 2 ** 16))
def test_random_graphs_bfs_as_python(n, most, draw):
    rng = np.random.default_rng(draw)
    ptr, idx = _csr(rng, n, most)
    for fn in (bfs_csr_collections, bfs_head_index, components_deque):
        args = (ptr, idx, int(rng.integers(0, n))) if fn is not components_deque else (
            ptr, idx)
        assert_behaves_as_numpy(fn, *args)
