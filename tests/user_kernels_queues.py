"""Graph searches and queue-driven algorithms as people write them with NumPy arrays and
Python's `collections.deque` and `heapq`: breadth-first searches on grids and on CSR
adjacency arrays, Dijkstra, Prim, A*-free best-first orders, topological sorts, sliding
window extrema, streaming top-k, run-length codes."""

from __future__ import annotations

import heapq
from collections import deque

import numpy as np


def grid_bfs_steps(grid, start_r, start_c):
    rows, cols = grid.shape
    dist = np.full((rows, cols), -1, dtype=np.int64)
    dist[start_r, start_c] = 0
    queue = deque([(start_r, start_c)])
    while queue:
        r, c = queue.popleft()
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            nr, nc = r + dr, c + dc
            if 0 <= nr < rows and 0 <= nc < cols:
                if grid[nr, nc] == 0 and dist[nr, nc] == -1:
                    dist[nr, nc] = dist[r, c] + 1
                    queue.append((nr, nc))
    return dist


def csr_bfs_levels(indptr, indices, source):
    n = indptr.shape[0] - 1
    level = np.full(n, -1)
    level[source] = 0
    frontier = deque()
    frontier.append(source)
    while len(frontier) > 0:
        v = frontier.popleft()
        for u in indices[indptr[v]:indptr[v + 1]]:
            if level[u] < 0:
                level[u] = level[v] + 1
                frontier.append(u)
    return level


def dijkstra_csr(indptr, indices, weights, source):
    n = len(indptr) - 1
    dist = np.full(n, np.inf)
    dist[source] = 0.0
    heap = [(0.0, source)]
    while heap:
        d, v = heapq.heappop(heap)
        if d > dist[v]:
            continue
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            alt = d + weights[e]
            if alt < dist[u]:
                dist[u] = alt
                heapq.heappush(heap, (alt, u))
    return dist


def prim_mst_cost(indptr, indices, weights):
    n = len(indptr) - 1
    in_tree = np.zeros(n, dtype=bool)
    cost = 0.0
    edges = 0
    pq = [(0.0, 0)]
    while pq and edges < n:
        w, v = heapq.heappop(pq)
        if in_tree[v]:
            continue
        in_tree[v] = True
        cost += w
        edges += 1
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if not in_tree[u]:
                heapq.heappush(pq, (weights[e], u))
    return cost, edges


def kahn_topological_order(indptr, indices):
    n = len(indptr) - 1
    indegree = np.zeros(n, dtype=np.int64)
    for u in indices:
        indegree[u] += 1
    ready = deque([v for v in range(n) if indegree[v] == 0])
    order = []
    while ready:
        v = ready.popleft()
        order.append(v)
        for u in indices[indptr[v]:indptr[v + 1]]:
            indegree[u] -= 1
            if indegree[u] == 0:
                ready.append(u)
    return np.array(order, dtype=np.int64)


def sliding_window_max(x, k):
    out = np.empty(len(x) - k + 1)
    window = deque()
    for i in range(len(x)):
        while window and x[window[-1]] <= x[i]:
            window.pop()
        window.append(i)
        if window[0] <= i - k:
            window.popleft()
        if i >= k - 1:
            out[i - k + 1] = x[window[0]]
    return out


def streaming_top_k_mean(x, k):
    heap = []
    means = np.zeros(len(x))
    total = 0.0
    for i in range(len(x)):
        if len(heap) < k:
            heapq.heappush(heap, x[i])
            total += x[i]
        elif x[i] > heap[0]:
            total += x[i] - heapq.heapreplace(heap, x[i])
        means[i] = total / len(heap)
    return means


def count_islands_deque(grid):
    rows, cols = grid.shape
    seen = np.zeros((rows, cols), dtype=np.bool_)
    islands = 0
    for i in range(rows):
        for j in range(cols):
            if grid[i, j] == 1 and not seen[i, j]:
                islands += 1
                seen[i, j] = True
                q = deque([(i, j)])
                while q:
                    r, c = q.popleft()
                    for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                        if 0 <= nr < rows and 0 <= nc < cols and grid[nr, nc] == 1 \
                                and not seen[nr, nc]:
                            seen[nr, nc] = True
                            q.append((nr, nc))
    return islands


def run_length_pairs(values):
    runs = []
    start = 0
    for i in range(1, len(values)):
        if values[i] != values[i - 1]:
            runs.append((values[i - 1], i - start))
            start = i
    runs.append((values[-1], len(values) - start))
    return runs


def merge_sorted_runs(a, b, c):
    heap = []
    for src, arr in enumerate((a, b, c)):
        if len(arr):
            heapq.heappush(heap, (arr[0], src, 0))
    out = np.empty(len(a) + len(b) + len(c))
    k = 0
    arrays = (a, b, c)
    while heap:
        v, src, i = heapq.heappop(heap)
        out[k] = v
        k += 1
        if i + 1 < len(arrays[src]):
            heapq.heappush(heap, (arrays[src][i + 1], src, i + 1))
    return out
