"""Graph algorithms written as their users write them: union-find with path compression,
strongly connected components with explicit stacks instead of recursion, max flow by
breadth-first augmenting paths on a capacity matrix, A* on a grid with an open set kept in
arrays, longest paths in topological order and k-core peeling."""

import numpy as np


def _find(parent, i):
    root = i
    while parent[root] != root:
        root = parent[root]
    while parent[i] != root:
        nxt = parent[i]
        parent[i] = root
        i = nxt
    return root


def union_find(n, edges):
    parent = np.arange(n)
    rank = np.zeros(n, dtype=np.int32)
    for a, b in edges:
        ra = _find(parent, a)
        rb = _find(parent, b)
        if ra == rb:
            continue
        if rank[ra] < rank[rb]:
            parent[ra] = rb
        elif rank[ra] > rank[rb]:
            parent[rb] = ra
        else:
            parent[rb] = ra
            rank[ra] += 1
    labels = np.empty(n, dtype=np.int64)
    for i in range(n):
        labels[i] = _find(parent, i)
    return labels


def tarjan_scc(adj):
    n = adj.shape[0]
    index = np.full(n, -1)
    low = np.zeros(n, dtype=np.int64)
    on_stack = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int64)
    sp = 0
    comp = np.full(n, -1)
    n_comp = 0
    counter = 0
    call_v = np.empty(n, dtype=np.int64)
    call_w = np.empty(n, dtype=np.int64)
    for root in range(n):
        if index[root] != -1:
            continue
        depth = 0
        call_v[0] = root
        call_w[0] = 0
        index[root] = counter
        low[root] = counter
        counter += 1
        stack[sp] = root
        sp += 1
        on_stack[root] = True
        while depth >= 0:
            v = call_v[depth]
            w = call_w[depth]
            if w < n:
                call_w[depth] = w + 1
                if adj[v, w]:
                    if index[w] == -1:
                        index[w] = counter
                        low[w] = counter
                        counter += 1
                        stack[sp] = w
                        sp += 1
                        on_stack[w] = True
                        depth += 1
                        call_v[depth] = w
                        call_w[depth] = 0
                    elif on_stack[w]:
                        low[v] = min(low[v], index[w])
            else:
                if low[v] == index[v]:
                    while True:
                        sp -= 1
                        u = stack[sp]
                        on_stack[u] = False
                        comp[u] = n_comp
                        if u == v:
                            break
                    n_comp += 1
                depth -= 1
                if depth >= 0:
                    parent = call_v[depth]
                    low[parent] = min(low[parent], low[v])
    return comp, n_comp


def kosaraju_scc(adj):
    n = adj.shape[0]
    visited = np.zeros(n, dtype=bool)
    order = []
    stack = np.empty(n, dtype=np.int64)
    nxt = np.zeros(n, dtype=np.int64)
    for s in range(n):
        if visited[s]:
            continue
        visited[s] = True
        top = 0
        stack[0] = s
        while top >= 0:
            v = stack[top]
            advanced = False
            while nxt[v] < n:
                w = nxt[v]
                nxt[v] += 1
                if adj[v, w] and not visited[w]:
                    visited[w] = True
                    top += 1
                    stack[top] = w
                    advanced = True
                    break
            if not advanced:
                order.append(v)
                top -= 1
    comp = np.full(n, -1)
    c = 0
    for s in reversed(order):
        if comp[s] != -1:
            continue
        comp[s] = c
        top = 0
        stack[0] = s
        while top >= 0:
            v = stack[top]
            top -= 1
            for w in range(n):
                if adj[w, v] and comp[w] == -1:
                    comp[w] = c
                    top += 1
                    stack[top] = w
        c += 1
    return comp


def edmonds_karp(capacity, source, sink):
    n = capacity.shape[0]
    residual = capacity.astype(np.float64)
    flow = 0.0
    parent = np.empty(n, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    while True:
        parent[:] = -1
        parent[source] = source
        head, tail = 0, 1
        queue[0] = source
        while head < tail and parent[sink] == -1:
            u = queue[head]
            head += 1
            for v in range(n):
                if parent[v] == -1 and residual[u, v] > 1e-12:
                    parent[v] = u
                    queue[tail] = v
                    tail += 1
        if parent[sink] == -1:
            break
        bottleneck = np.inf
        v = sink
        while v != source:
            u = parent[v]
            bottleneck = min(bottleneck, residual[u, v])
            v = u
        v = sink
        while v != source:
            u = parent[v]
            residual[u, v] -= bottleneck
            residual[v, u] += bottleneck
            v = u
        flow += bottleneck
    return flow


def astar_grid(grid, start_r, start_c, goal_r, goal_c):
    h, w = grid.shape
    g = np.full((h, w), np.inf)
    f = np.full((h, w), np.inf)
    open_ = np.zeros((h, w), dtype=bool)
    closed = np.zeros((h, w), dtype=bool)
    g[start_r, start_c] = 0.0
    f[start_r, start_c] = abs(start_r - goal_r) + abs(start_c - goal_c)
    open_[start_r, start_c] = True
    moves = ((-1, 0), (1, 0), (0, -1), (0, 1))
    expanded = 0
    while open_.any():
        cand = np.where(open_, f, np.inf)
        k = np.argmin(cand)
        r, c = k // w, k % w
        if r == goal_r and c == goal_c:
            return g[r, c], expanded
        open_[r, c] = False
        closed[r, c] = True
        expanded += 1
        for dr, dc in moves:
            nr, nc = r + dr, c + dc
            if nr < 0 or nr >= h or nc < 0 or nc >= w:
                continue
            if grid[nr, nc] or closed[nr, nc]:
                continue
            tentative = g[r, c] + 1.0
            if tentative < g[nr, nc]:
                g[nr, nc] = tentative
                f[nr, nc] = tentative + abs(nr - goal_r) + abs(nc - goal_c)
                open_[nr, nc] = True
    return -1.0, expanded


def dag_longest_path(weights):
    n = weights.shape[0]
    indeg = (weights > 0).sum(axis=0)
    order = np.empty(n, dtype=np.int64)
    queue = [i for i in range(n) if indeg[i] == 0]
    k = 0
    while queue:
        u = queue.pop()
        order[k] = u
        k += 1
        for v in range(n):
            if weights[u, v] > 0:
                indeg[v] -= 1
                if indeg[v] == 0:
                    queue.append(v)
    dist = np.zeros(n)
    pred = np.full(n, -1)
    for u in order:
        for v in range(n):
            if weights[u, v] > 0 and dist[u] + weights[u, v] > dist[v]:
                dist[v] = dist[u] + weights[u, v]
                pred[v] = u
    return dist, pred


def k_core(adj, k):
    degree = adj.sum(axis=1).astype(np.int64)
    alive = np.ones(adj.shape[0], dtype=bool)
    changed = True
    rounds = 0
    while changed:
        changed = False
        for v in range(adj.shape[0]):
            if alive[v] and degree[v] < k:
                alive[v] = False
                degree -= adj[v].astype(np.int64)
                changed = True
        rounds += 1
    return alive, rounds
