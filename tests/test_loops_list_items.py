"""Lists of a few numbers as items of lists, deques and heaps in loop ops (`q.append([r,
c])`, `stack.append([lo, hi])`, `heappush(pq, [d, v])`), as graph searches and interval
stacks are often written. They are stored as tuples are and read back as new lists, and the
loop must equal plain Python: values, types (lists, not tuples; Python numbers or NumPy
scalars), the containers left behind, and a change to such a list while a container holds it,
which must show in the container as in Python."""

from __future__ import annotations

import heapq
from collections import deque

import numpy as np
import pytest
from probe_harness import assert_behaves_as_numpy, assert_compiles_whole


def bfs_list_cells(grid, sr, sc):
    h, w = grid.shape
    dist = np.full((h, w), -1, dtype=np.int64)
    dist[sr, sc] = 0
    q = deque()
    q.append([sr, sc])
    while q:
        r, c = q.popleft()
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nr, nc = r + dr, c + dc
            if 0 <= nr < h and 0 <= nc < w and grid[nr, nc] == 0 and dist[nr, nc] < 0:
                dist[nr, nc] = dist[r, c] + 1
                q.append([nr, nc])
    return dist


def flood_stack_of_lists(grid, r0, c0):
    h, w = grid.shape
    seen = np.zeros((h, w), dtype=np.bool_)
    stack = [[r0, c0]]
    size = 0
    while len(stack) > 0:
        cell = stack.pop()
        r = cell[0]
        c = cell[1]
        if r < 0 or r >= h or c < 0 or c >= w or seen[r, c] or grid[r, c] == 0:
            continue
        seen[r, c] = True
        size += 1
        stack.append([r + 1, c])
        stack.append([r - 1, c])
        stack.append([r, c + 1])
        stack.append([r, c - 1])
    return size, seen


def split_ranges(x):
    stack = [[0, len(x) - 1]]
    total = 0.0
    while stack:
        lo, hi = stack.pop()
        if hi - lo < 4:
            for k in range(lo, hi + 1):
                total += x[k]
            continue
        mid = (lo + hi) // 2
        stack.append([lo, mid])
        stack.append([mid + 1, hi])
    return total


def dijkstra_lists(w):
    n = w.shape[0]
    dist = np.full(n, np.inf)
    dist[0] = 0.0
    pq = [[0.0, 0]]
    while pq:
        d, u = heapq.heappop(pq)
        if d > dist[u]:
            continue
        for v in range(n):
            if w[u, v] > 0:
                nd = d + w[u, v]
                if nd < dist[v]:
                    dist[v] = nd
                    heapq.heappush(pq, [nd, v])
    return dist


def pairs_returned(x):
    out = []
    for i in range(len(x)):
        if x[i] > 0:
            out.append([i, x[i]])
    return out


def pairs_of_python_numbers(x):
    out = []
    for i in range(len(x)):
        out.append([i, float(x[i]) * 2.0])
    out.sort(reverse=True)
    return out[:3], len(out)


CASES = [
    (bfs_list_cells, lambda r: ((r.random((14, 17)) < 0.25).astype(np.int8), 0, 0)),
    (flood_stack_of_lists, lambda r: ((r.random((12, 13)) < 0.6).astype(np.int64), 3, 4)),
    (split_ranges, lambda r: (r.standard_normal(50),)),
    (dijkstra_lists, lambda r: (np.where(r.random((12, 12)) < 0.3, r.random((12, 12)), 0.0),)),
    (pairs_returned, lambda r: (r.standard_normal(20),)),
    (pairs_of_python_numbers, lambda r: (r.standard_normal(20),)),
]


@pytest.mark.parametrize(("fn", "make"), CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_list_items_behave_as_python_and_compile(fn, make):
    args = make(np.random.default_rng(9))
    assert_behaves_as_numpy(fn, *args)
    assert_compiles_whole(fn, args)


def test_items_come_back_as_lists_of_their_numbers():
    import ember

    x = np.array([1.0, -2.0, 3.0])
    got = ember.compile(pairs_returned)(x)
    assert got == pairs_returned(x)
    assert all(type(p) is list for p in got)
    assert [tuple(map(type, p)) for p in got] == [(int, np.float64)] * 2


def changed_after_append(x):
    out = []
    for i in range(len(x)):
        item = [i, i + 1]
        out.append(item)
        item[0] = -i  # the list holds the object: the change shows in it
    return out


def changed_after_pop(x):
    q = [[0, 1], [2, 3]]
    t = 0
    for i in range(len(x)):
        p = q[-1]
        p[0] += i  # the list held in q changes
        t += p[0]
    return t, q


def changed_at_frame_level(x):
    out = []
    for i in range(len(x)):
        out.append([i, int(x[i])])
    first = out[0]
    first.append(7)
    return out


@pytest.mark.parametrize("fn", [changed_after_append, changed_after_pop,
                                changed_at_frame_level])
def test_a_change_to_a_held_list_shows_as_in_python(fn):
    assert_behaves_as_numpy(fn, np.arange(5.0), compiled_code=False)
