"""Loop-style kernels that keep Python dicts, sets and lists in their loops: visited sets of
graph searches, counting dicts, union-find parents in a dict, a two-sum table, order-keeping
dedup, an LRU queue, a nested search that keeps a tuple, and `math.dist` of rows."""

import collections
import math
from collections import defaultdict, deque

import numpy as np


def bfs_levels_visited_set(adj, start):
    """Breadth-first levels over an adjacency matrix: a visited set, a frontier list swapped
    for the next level's list, the level of every node (-1 where unreached)."""
    n = adj.shape[0]
    level = np.full(n, -1, dtype=np.int64)
    seen = {start}
    frontier = [start]
    depth = 0
    while frontier:
        nxt = []
        for u in frontier:
            level[u] = depth
            for v in range(n):
                if adj[u, v] and v not in seen:
                    seen.add(v)
                    nxt.append(v)
        frontier = nxt
        depth += 1
    return level, len(seen)


def dfs_order_stack(adj, start):
    """Depth-first visiting order with an explicit stack (`stack.pop()`) and a visited set."""
    n = adj.shape[0]
    visited = set()
    order = []
    stack = [start]
    while stack:
        u = stack.pop()
        if u in visited:
            continue
        visited.add(u)
        order.append(u)
        for v in range(n - 1, -1, -1):
            if adj[u, v] and v not in visited:
                stack.append(v)
    return np.array(order), len(visited)


def bin_counts_get(values, width):
    """Counts per bin of width `width` in a dict (`counts.get(k, 0) + 1`), keys as Python
    ints, in the order the bins were first met."""
    counts = {}
    for i in range(len(values)):
        k = int(values[i] // width)
        counts[k] = counts.get(k, 0) + 1
    return counts


def label_counts_membership(labels):
    """Counts of integer labels with a membership test before `+= 1`, then the items in
    insertion order as two arrays."""
    counts = {}
    for i in range(labels.shape[0]):
        k = int(labels[i])
        if k in counts:
            counts[k] += 1
        else:
            counts[k] = 1
    keys = np.array(list(counts.keys()))
    vals = np.array([v for _, v in counts.items()])
    return keys, vals


def defaultdict_sums(keys, weights):
    """Sums of weights per key in a `defaultdict(float)`; the largest sum and its key."""
    sums = defaultdict(float)
    for i in range(len(keys)):
        sums[int(keys[i])] += weights[i]
    best_key, best = None, -math.inf
    for k, v in sums.items():
        if v > best:
            best_key, best = k, v
    return best_key, best, len(sums)


def recode_with_table(codes, table):
    """Look each code up in a dict built before the loop (a recoding table), missing codes to
    -1."""
    out = np.empty(len(codes), dtype=np.int64)
    for i in range(len(codes)):
        out[i] = table.get(int(codes[i]), -1)
    return out


def union_find_dict(edges, n):
    """Connected components with parents in a dict (path halving), the number of components
    and each node's root."""
    parent = {i: i for i in range(n)}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for e in range(edges.shape[0]):
        a, b = find(int(edges[e, 0])), find(int(edges[e, 1]))
        if a != b:
            parent[a] = b
    roots = np.array([find(i) for i in range(n)])
    return len(set(roots.tolist())), roots


def two_sum_dict(nums, target):
    """The first pair (i, j), i < j, with nums[i] + nums[j] == target, by a dict of the
    values seen so far; None if there is none."""
    where = {}
    for j in range(len(nums)):
        need = target - int(nums[j])
        if need in where:
            return where[need], j
        where[int(nums[j])] = j
    return None


def dedup_keep_order(values):
    """Distinct values in the order they first appear, with a seen set."""
    seen = set()
    out = []
    for i in range(len(values)):
        v = int(values[i])
        if v not in seen:
            seen.add(v)
            out.append(v)
    return np.array(out, dtype=np.int64)


def lru_misses(requests, capacity):
    """Misses of an LRU cache of `capacity` pages: a deque in use order and a set of the
    cached pages; a hit moves the page to the back."""
    cache = deque()
    cached = set()
    misses = 0
    for i in range(len(requests)):
        p = int(requests[i])
        if p in cached:
            cache.remove(p)
            cache.append(p)
            continue
        misses += 1
        if len(cache) == capacity:
            old = cache.popleft()
            cached.discard(old)
        cache.append(p)
        cached.add(p)
    return misses, list(cache)


def fifo_queue_pop0(adj, start):
    """Breadth-first order with a plain list as the queue (`queue.pop(0)`) and a visited
    set, the sum of the visiting order weighted by position."""
    n = adj.shape[0]
    queue = [start]
    seen = {start}
    total = 0
    pos = 0
    while queue:
        u = queue.pop(0)
        total += pos * u
        pos += 1
        for v in range(n):
            if adj[u, v] and v not in seen:
                seen.add(v)
                queue.append(v)
    return total, pos


def find_first_pair_tuple(grid, target):
    """The first (row, col) holding a value above `target`, in row order, kept as a tuple
    (`found = None`, then `found = (i, j)`), the outer loop left once it is set."""
    found = None
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            if grid[i, j] > target:
                found = (i, j)
                break
        if found is not None:
            break
    if found is None:
        return -1, -1
    return found


def kept_row_means_f32(rows, threshold):
    """Per float32 row, the sum of its elements above `threshold` (a Python float 0.0 where
    none is kept): `sum(kept) if kept else 0.0`."""
    out = np.empty(rows.shape[0], dtype=np.float64)
    for r in range(rows.shape[0]):
        kept = []
        for c in range(rows.shape[1]):
            if rows[r, c] > threshold:
                kept.append(rows[r, c])
        out[r] = sum(kept) if kept else 0.0
    return out


def path_length_dist(points):
    """Length of the polyline through the rows of `points` with `math.dist`."""
    total = 0.0
    for i in range(1, points.shape[0]):
        total += math.dist(points[i - 1], points[i])
    return total


def counter_most_common(tokens):
    """`collections.Counter` of integer tokens filled in a loop, the three most common."""
    c = collections.Counter()
    for i in range(len(tokens)):
        c[int(tokens[i])] += 1
    return c.most_common(3)
