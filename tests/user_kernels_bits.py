"""Graph algorithms on arrays and integer code written as their users write them: edge lists,
array queues, bit masks kept to 32 bits with `& 0xFFFFFFFF`, automata and alignments."""

import numpy as np


def bellman_ford(src_nodes, dst_nodes, weights, n, source):
    dist = np.full(n, np.inf)
    dist[source] = 0.0
    for it in range(n - 1):
        changed = False
        for e in range(len(weights)):
            u, v = src_nodes[e], dst_nodes[e]
            if dist[u] + weights[e] < dist[v]:
                dist[v] = dist[u] + weights[e]
                changed = True
        if not changed:
            break
    return dist


def prim_mst(W):
    n = W.shape[0]
    in_tree = np.zeros(n, dtype=np.bool_)
    key = np.full(n, np.inf)
    parent = np.full(n, -1, dtype=np.int64)
    key[0] = 0.0
    total = 0.0
    for _ in range(n):
        u = -1
        best = np.inf
        for v in range(n):
            if not in_tree[v] and key[v] < best:
                best = key[v]
                u = v
        in_tree[u] = True
        total += key[u]
        for v in range(n):
            if not in_tree[v] and W[u, v] < key[v]:
                key[v] = W[u, v]
                parent[v] = u
    return total, parent


def kahn_toposort(adj):
    n = adj.shape[0]
    indeg = adj.sum(axis=0).astype(np.int64)
    queue = np.empty(n, dtype=np.int64)
    head, tail = 0, 0
    for v in range(n):
        if indeg[v] == 0:
            queue[tail] = v
            tail += 1
    order = np.full(n, -1, dtype=np.int64)
    k = 0
    while head < tail:
        u = queue[head]
        head += 1
        order[k] = u
        k += 1
        for v in range(n):
            if adj[u, v]:
                indeg[v] -= 1
                if indeg[v] == 0:
                    queue[tail] = v
                    tail += 1
    return order, k == n


def triangle_count(A):
    n = A.shape[0]
    count = 0
    for i in range(n):
        for j in range(i + 1, n):
            if A[i, j]:
                for k in range(j + 1, n):
                    if A[j, k] and A[i, k]:
                        count += 1
    return count


def xorshift32(seed, n):
    out = np.empty(n, dtype=np.uint32)
    x = seed & 0xFFFFFFFF
    for i in range(n):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out[i] = x
    return out


def lcg_uniform(seed, n):
    a, c, m = 1664525, 1013904223, 2**32
    state = seed
    out = np.zeros(n)
    for i in range(n):
        state = (a * state + c) % m
        out[i] = state / m
    return out


def fnv1a(data):
    h = 2166136261
    for byte in data:
        h ^= int(byte)
        h = (h * 16777619) & 0xFFFFFFFF
    return h


def fmix32(h):
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    h ^= h >> 16
    return h


def murmur_keys(keys, seed):
    out = np.empty(len(keys), dtype=np.int64)
    for i in range(len(keys)):
        k = int(keys[i]) & 0xFFFFFFFF
        k = (k * 0xCC9E2D51) & 0xFFFFFFFF
        k = ((k << 15) | (k >> 17)) & 0xFFFFFFFF
        k = (k * 0x1B873593) & 0xFFFFFFFF
        h = seed ^ k
        h = ((h << 13) | (h >> 19)) & 0xFFFFFFFF
        h = (h * 5 + 0xE6546B64) & 0xFFFFFFFF
        out[i] = fmix32(h ^ 4)
    return out


def n_queens(n):
    cols = np.zeros(n + 1, dtype=np.int64)
    d1 = np.zeros(n + 1, dtype=np.int64)
    d2 = np.zeros(n + 1, dtype=np.int64)
    avail = np.zeros(n + 1, dtype=np.int64)
    full = (1 << n) - 1
    row = 0
    avail[0] = full
    count = 0
    while row >= 0:
        if avail[row] == 0:
            row -= 1
            continue
        bit = avail[row] & -avail[row]
        avail[row] ^= bit
        if row == n - 1:
            count += 1
            continue
        cols[row + 1] = cols[row] | bit
        d1[row + 1] = ((d1[row] | bit) << 1) & full
        d2[row + 1] = (d2[row] | bit) >> 1
        avail[row + 1] = full & ~(cols[row + 1] | d1[row + 1] | d2[row + 1])
        row += 1
    return count


def rule110(cells, steps):
    n = len(cells)
    history = np.zeros((steps + 1, n), dtype=np.int64)
    history[0] = cells
    for t in range(steps):
        for i in range(n):
            left = history[t, (i - 1) % n]
            mid = history[t, i]
            right = history[t, (i + 1) % n]
            pattern = (left << 2) | (mid << 1) | right
            history[t + 1, i] = (110 >> pattern) & 1
    return history


def smith_waterman(a, b, match, mismatch, gap):
    n, m = len(a), len(b)
    H = np.zeros((n + 1, m + 1), dtype=np.int64)
    best = 0
    bi, bj = 0, 0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            s = match if a[i - 1] == b[j - 1] else mismatch
            h = max(0, H[i - 1, j - 1] + s, H[i - 1, j] - gap, H[i, j - 1] - gap)
            H[i, j] = h
            if h > best:
                best = h
                bi, bj = i, j
    return best, bi, bj
