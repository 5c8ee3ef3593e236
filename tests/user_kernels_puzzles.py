"""Puzzles, contest problems and data wrangling written the way their users write them:
grid searches with explicit stacks and queues, Game-of-Life variants, cellular automata from
rule tables, byte and text processing, checksums and hashes, sieves and number theory, bitmask
searches, group-by and join idioms, interval sweeps and union-find."""

import numpy as np


# ---------------------------------------------------------------- grids

def flood_fill_stack(grid, r0, c0, new):
    """Four-way flood fill of the region of grid[r0, c0] with an explicit stack list."""
    g = grid.copy()
    old = g[r0, c0]
    if old == new:
        return g
    h, w = g.shape
    stack = [(r0, c0)]
    while stack:
        r, c = stack.pop()
        if r < 0 or r >= h or c < 0 or c >= w:
            continue
        if g[r, c] != old:
            continue
        g[r, c] = new
        stack.append((r + 1, c))
        stack.append((r - 1, c))
        stack.append((r, c + 1))
        stack.append((r, c - 1))
    return g


def count_islands(grid):
    """Number of 4-connected islands of ones in a uint8 grid, flooded with a stack."""
    h, w = grid.shape
    seen = np.zeros((h, w), dtype=np.bool_)
    islands = 0
    for i in range(h):
        for j in range(w):
            if grid[i, j] == 1 and not seen[i, j]:
                islands += 1
                seen[i, j] = True
                stack = [i * w + j]
                while len(stack) > 0:
                    k = stack.pop()
                    r, c = k // w, k % w
                    if r > 0 and grid[r - 1, c] == 1 and not seen[r - 1, c]:
                        seen[r - 1, c] = True
                        stack.append(k - w)
                    if r < h - 1 and grid[r + 1, c] == 1 and not seen[r + 1, c]:
                        seen[r + 1, c] = True
                        stack.append(k + w)
                    if c > 0 and grid[r, c - 1] == 1 and not seen[r, c - 1]:
                        seen[r, c - 1] = True
                        stack.append(k - 1)
                    if c < w - 1 and grid[r, c + 1] == 1 and not seen[r, c + 1]:
                        seen[r, c + 1] = True
                        stack.append(k + 1)
    return islands


def maze_shortest_path(walls, start, goal):
    """BFS on a bool wall grid with a list used as a queue and a head index; -1 if unreachable."""
    h, w = walls.shape
    dist = np.full((h, w), -1, dtype=np.int32)
    queue = [start]
    dist[start] = 0
    head = 0
    moves = [(1, 0), (-1, 0), (0, 1), (0, -1)]
    while head < len(queue):
        r, c = queue[head]
        head += 1
        if (r, c) == goal:
            return int(dist[r, c])
        for dr, dc in moves:
            nr, nc = r + dr, c + dc
            if 0 <= nr < h and 0 <= nc < w and not walls[nr, nc] and dist[nr, nc] < 0:
                dist[nr, nc] = dist[r, c] + 1
                queue.append((nr, nc))
    return -1


def bfs_flat_queue(walls, start):
    """BFS distances from a flat start index, the queue a preallocated int array."""
    h, w = walls.shape
    n = h * w
    flat = walls.ravel()
    dist = np.full(n, -1, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    head, tail = 0, 0
    queue[tail] = start
    tail += 1
    dist[start] = 0
    while head < tail:
        k = queue[head]
        head += 1
        r = k // w
        c = k - r * w
        for nk, ok in ((k - w, r > 0), (k + w, r < h - 1), (k - 1, c > 0), (k + 1, c < w - 1)):
            if ok and not flat[nk] and dist[nk] == -1:
                dist[nk] = dist[k] + 1
                queue[tail] = nk
                tail += 1
    return dist.reshape(h, w)


def life_roll_steps(board, steps):
    """Conway's Life on a torus, neighbours summed from eight np.roll calls on a uint8 board."""
    b = board.copy()
    for _ in range(steps):
        n = np.zeros(b.shape, dtype=np.uint8)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                if dy or dx:
                    n += np.roll(np.roll(b, dy, axis=0), dx, axis=1)
        b = ((n == 3) | ((b == 1) & (n == 2))).astype(np.uint8)
    return b


def life_modulo_loops(board, steps):
    """Life on a torus with explicit index arithmetic `(i + di) % h` in nested loops."""
    h, w = board.shape
    cur = board.astype(np.int8)
    nxt = np.zeros_like(cur)
    for _ in range(steps):
        for i in range(h):
            for j in range(w):
                s = 0
                for di in range(-1, 2):
                    for dj in range(-1, 2):
                        if di != 0 or dj != 0:
                            s += cur[(i + di) % h, (j + dj) % w]
                if cur[i, j] == 1:
                    nxt[i, j] = 1 if s == 2 or s == 3 else 0
                else:
                    nxt[i, j] = 1 if s == 3 else 0
        cur, nxt = nxt, cur
    return cur


def seeds_life_bool(board, steps):
    """The `Seeds` rule (B2/S) on a bool board with padded slicing, no wrap-around."""
    b = board.copy()
    for _ in range(steps):
        p = np.pad(b, 1).astype(np.int16)
        n = (p[:-2, :-2] + p[:-2, 1:-1] + p[:-2, 2:] + p[1:-1, :-2] + p[1:-1, 2:]
             + p[2:, :-2] + p[2:, 1:-1] + p[2:, 2:])
        b = (~b) & (n == 2)
    return b


def elementary_ca_table(cells, rule, steps):
    """An elementary CA: the rule's eight bits as a lookup table, neighbourhoods by np.roll."""
    table = np.array([(rule >> k) & 1 for k in range(8)], dtype=np.uint8)
    history = np.zeros((steps + 1, cells.size), dtype=np.uint8)
    history[0] = cells
    row = cells
    for t in range(steps):
        idx = (np.roll(row, 1) << 2) | (row << 1) | np.roll(row, -1)
        row = table[idx]
        history[t + 1] = row
    return history


def majority_vote_ca(cells, steps):
    """Radius-2 majority rule on a ring, index arithmetic in a Python loop per cell."""
    n = cells.shape[0]
    a = cells.copy()
    for _ in range(steps):
        b = np.empty_like(a)
        for i in range(n):
            total = 0
            for k in range(-2, 3):
                total += a[(i + k) % n]
            b[i] = 1 if total >= 3 else 0
        a = b
    return a


# ---------------------------------------------------------------- bytes and text

def rle_bytes_lists(data):
    """Run-length encoding of a byte array into two Python lists (values, counts)."""
    values = []
    counts = []
    if len(data) == 0:
        return values, counts
    cur = data[0]
    run = 1
    for b in data[1:]:
        if b == cur and run < 255:
            run += 1
        else:
            values.append(int(cur))
            counts.append(run)
            cur = b
            run = 1
    values.append(int(cur))
    counts.append(run)
    return values, counts


def count_words_spaces(text):
    """Words in an ASCII byte array: starts of runs of non-space bytes."""
    is_space = (text == 32) | (text == 10) | (text == 9)
    starts = ~is_space & np.concatenate(([True], is_space[:-1]))
    return int(starts.sum())


def count_words_loop(text):
    """Words and lines counted byte by byte in a state machine (`wc`)."""
    words = 0
    lines = 0
    in_word = False
    for ch in text:
        if ch == 10:
            lines += 1
        if ch == 32 or ch == 10 or ch == 9:
            in_word = False
        elif not in_word:
            in_word = True
            words += 1
    return words, lines


def caesar_shift(text, k):
    """Caesar cipher on the letters of an ASCII byte array, other bytes unchanged."""
    out = text.copy()
    upper = (text >= 65) & (text <= 90)
    lower = (text >= 97) & (text <= 122)
    out[upper] = (text[upper] - 65 + k) % 26 + 65
    out[lower] = (text[lower] - 97 + k) % 26 + 97
    return out


def vigenere_encrypt(text, key):
    """Vigenere over lowercase letters with a uint8 key, advancing the key only on letters."""
    out = np.empty_like(text)
    j = 0
    m = len(key)
    for i in range(len(text)):
        c = text[i]
        if 97 <= c <= 122:
            out[i] = (c - 97 + key[j % m] - 97) % 26 + 97
            j += 1
        else:
            out[i] = c
    return out


def adler32_mod(data):
    """Adler-32 with `% 65521` after every byte, on Python ints."""
    a, b = 1, 0
    for x in data:
        a = (a + int(x)) % 65521
        b = (b + a) % 65521
    return (b << 16) | a


def fletcher32_words(data):
    """Fletcher-32 over little-endian 16-bit words of a byte array, blocks of 359 words."""
    words = data[0::2].astype(np.uint32) | (data[1::2].astype(np.uint32) << 8)
    s1 = np.uint32(0xFFFF)
    s2 = np.uint32(0xFFFF)
    for start in range(0, len(words), 359):
        for w in words[start:start + 359]:
            s1 = s1 + w
            s2 = s2 + s1
        s1 = (s1 & 0xFFFF) + (s1 >> 16)
        s2 = (s2 & 0xFFFF) + (s2 >> 16)
    s1 = (s1 & 0xFFFF) + (s1 >> 16)
    s2 = (s2 & 0xFFFF) + (s2 >> 16)
    return (s2 << 16) | s1


def pack_6bit_groups(data):
    """Base64-like packing: every three bytes become four 6-bit codes, by shifts and masks."""
    n = len(data) // 3 * 3
    b = data[:n].astype(np.uint32).reshape(-1, 3)
    v = (b[:, 0] << 16) | (b[:, 1] << 8) | b[:, 2]
    out = np.empty((v.size, 4), dtype=np.uint8)
    for k in range(4):
        out[:, k] = (v >> (18 - 6 * k)) & 0x3F
    return out.ravel()


def unpack_6bit_loop(codes):
    """The inverse of 6-bit packing, one group of four codes at a time in a while loop."""
    out = np.zeros(len(codes) // 4 * 3, dtype=np.uint8)
    i = 0
    o = 0
    while i + 4 <= len(codes):
        v = (int(codes[i]) << 18) | (int(codes[i + 1]) << 12) | (int(codes[i + 2]) << 6) \
            | int(codes[i + 3])
        out[o] = (v >> 16) & 0xFF
        out[o + 1] = (v >> 8) & 0xFF
        out[o + 2] = v & 0xFF
        i += 4
        o += 3
    return out


# ---------------------------------------------------------------- hashing

def fnv1a_rows(keys):
    """FNV-1a of each row of a uint8 matrix, vectorized over rows on uint32."""
    h = np.full(keys.shape[0], 2166136261, dtype=np.uint32)
    prime = np.uint32(16777619)
    for j in range(keys.shape[1]):
        h ^= keys[:, j].astype(np.uint32)
        h *= prime
    return h


def fnv1a_64_masked(data):
    """64-bit FNV-1a of a byte array on Python ints, masked after every multiply."""
    h = 0xCBF29CE484222325
    for b in data:
        h ^= int(b)
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def xorshift64_stream(seed, n):
    """n outputs of xorshift64 on a uint64 scalar, written into an array."""
    out = np.empty(n, dtype=np.uint64)
    x = np.uint64(seed)
    for i in range(n):
        x ^= x << np.uint64(13)
        x ^= x >> np.uint64(7)
        x ^= x << np.uint64(17)
        out[i] = x
    return out


def hash_bucket_counts(keys, nbuckets):
    """Multiplicative hashing of uint32 keys into buckets, then the bucket occupancy."""
    h = (keys.astype(np.uint64) * np.uint64(2654435761)) & np.uint64(0xFFFFFFFF)
    buckets = (h >> np.uint64(16)) % np.uint64(nbuckets)
    return np.bincount(buckets.astype(np.int64), minlength=nbuckets)


# ---------------------------------------------------------------- number theory

def sieve_primes_upto(n):
    """Sieve of Eratosthenes on a bool array; returns the primes."""
    is_p = np.ones(n + 1, dtype=np.bool_)
    is_p[:2] = False
    i = 2
    while i * i <= n:
        if is_p[i]:
            is_p[i * i::i] = False
        i += 1
    return np.nonzero(is_p)[0]


def totient_sieve(n):
    """Euler's totient of 0..n by the sieve `phi[j] -= phi[j] // p`."""
    phi = np.arange(n + 1, dtype=np.int64)
    for p in range(2, n + 1):
        if phi[p] == p:
            for j in range(p, n + 1, p):
                phi[j] -= phi[j] // p
    return phi


def modpow_loop(bases, e, m):
    """Square-and-multiply of each base to the power e modulo m, vectorized over bases."""
    result = np.ones_like(bases)
    b = bases % m
    while e > 0:
        if e & 1:
            result = (result * b) % m
        b = (b * b) % m
        e >>= 1
    return result


def gcd_table(n):
    """gcd(i, j) for 1 <= i, j <= n by Euclid's algorithm in nested loops."""
    g = np.zeros((n, n), dtype=np.int32)
    for i in range(1, n + 1):
        for j in range(1, n + 1):
            a, b = i, j
            while b:
                a, b = b, a % b
            g[i - 1, j - 1] = a
    return g


def divisor_sums(n):
    """sigma(k) for k < n by adding each d to its multiples with slices."""
    s = np.zeros(n, dtype=np.int64)
    for d in range(1, n):
        s[d::d] += d
    return s


# ---------------------------------------------------------------- bitmask searches

def subset_sums_dp(values):
    """Sum of every subset by the lowest set bit: sums[mask] = sums[mask ^ low] + v[bit]."""
    n = len(values)
    sums = np.zeros(1 << n, dtype=values.dtype)
    for mask in range(1, 1 << n):
        low = mask & -mask
        bit = low.bit_length() - 1
        sums[mask] = sums[mask ^ low] + values[bit]
    return sums


def tsp_bitmask_dp(dist):
    """Held-Karp over bitmasks of visited cities; returns the shortest tour length."""
    n = dist.shape[0]
    full = 1 << n
    dp = np.full((full, n), np.inf)
    dp[1, 0] = 0.0
    for mask in range(1, full):
        if not mask & 1:
            continue
        for last in range(n):
            if not (mask >> last) & 1:
                continue
            cur = dp[mask, last]
            if cur == np.inf:
                continue
            for nxt in range(n):
                if (mask >> nxt) & 1:
                    continue
                nm = mask | (1 << nxt)
                cand = cur + dist[last, nxt]
                if cand < dp[nm, nxt]:
                    dp[nm, nxt] = cand
    best = np.inf
    for last in range(1, n):
        best = min(best, dp[full - 1, last] + dist[last, 0])
    return best


def _queens(n, row, cols, d1, d2):
    if row == n:
        return 1
    count = 0
    free = ~(cols | d1 | d2) & ((1 << n) - 1)
    while free:
        bit = free & -free
        free ^= bit
        count += _queens(n, row + 1, cols | bit, ((d1 | bit) << 1) & ((1 << n) - 1), (d2 | bit) >> 1)
    return count


def n_queens_bits(n, weights):
    """Number of n-queens solutions by bitmask recursion, scaled by an array of weights."""
    return _queens(n, 0, 0, 0, 0) * weights


def max_weight_independent_set(adj, w):
    """Best total weight of an independent set over all subsets of a small graph (bitmasks)."""
    n = len(w)
    nbr = np.zeros(n, dtype=np.int64)
    for i in range(n):
        for j in range(n):
            if adj[i, j]:
                nbr[i] |= 1 << j
    best = 0.0
    best_mask = 0
    for mask in range(1 << n):
        ok = True
        total = 0.0
        for i in range(n):
            if (mask >> i) & 1:
                if nbr[i] & mask:
                    ok = False
                    break
                total += w[i]
        if ok and total > best:
            best = total
            best_mask = mask
    return best, best_mask


# ---------------------------------------------------------------- group-by and joins

def groupby_unique_bincount(keys, values):
    """Per-key sums and means: np.unique(return_inverse=True) then np.bincount with weights."""
    uniq, inv = np.unique(keys, return_inverse=True)
    sums = np.bincount(inv, weights=values)
    counts = np.bincount(inv)
    return uniq, sums, sums / counts


def groupby_argsort_diff(keys, values):
    """Per-key maxima: a stable argsort, boundaries where np.diff is nonzero, a loop per group."""
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    v = values[order]
    bounds = np.concatenate(([0], np.nonzero(np.diff(k))[0] + 1, [len(k)]))
    out_keys = k[bounds[:-1]]
    out_max = np.empty(len(bounds) - 1)
    for g in range(len(bounds) - 1):
        out_max[g] = v[bounds[g]:bounds[g + 1]].max()
    return out_keys, out_max


def groupby_reduceat_sorted(sorted_keys, values):
    """Sums of runs of equal keys of an already sorted key array by np.add.reduceat."""
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    return sorted_keys[starts], np.add.reduceat(values, starts)


def merge_join_two_pointers(left_keys, left_vals, right_keys, right_vals):
    """Inner join of two sorted unique key arrays with two pointers into a list of tuples."""
    i, j = 0, 0
    rows = []
    while i < len(left_keys) and j < len(right_keys):
        a, b = left_keys[i], right_keys[j]
        if a == b:
            rows.append((int(a), float(left_vals[i]), float(right_vals[j])))
            i += 1
            j += 1
        elif a < b:
            i += 1
        else:
            j += 1
    return rows


def merge_join_count(left, right):
    """Matches of an inner join of two sorted keys arrays with duplicates (count only)."""
    i = 0
    j = 0
    n, m = left.shape[0], right.shape[0]
    matches = 0
    while i < n and j < m:
        if left[i] < right[j]:
            i += 1
        elif left[i] > right[j]:
            j += 1
        else:
            key = left[i]
            ci = 0
            while i < n and left[i] == key:
                ci += 1
                i += 1
            cj = 0
            while j < m and right[j] == key:
                cj += 1
                j += 1
            matches += ci * cj
    return matches


def pivot_store_month(store, month, sales, n_stores):
    """A pivot table of sales by store and month with np.add.at on a 2-d index."""
    table = np.zeros((n_stores, 12))
    np.add.at(table, (store, month), sales)
    return table, table.sum(axis=1), table.sum(axis=0)


def rolling_window_stats(x, k):
    """Rolling mean, max and min over windows from sliding_window_view."""
    w = np.lib.stride_tricks.sliding_window_view(x, k)
    return w.mean(axis=1), w.max(axis=1), w.min(axis=1)


def rolling_median_view(x, k):
    """Rolling median and spread (max - min) over sliding windows."""
    w = np.lib.stride_tricks.sliding_window_view(x, k)
    med = np.median(w, axis=-1)
    spread = np.ptp(w, axis=-1)
    return med, spread


# ---------------------------------------------------------------- intervals

def merge_intervals(starts, ends):
    """Merge overlapping intervals after sorting by start; lists of tuples out."""
    order = np.argsort(starts)
    merged = []
    cur_s, cur_e = starts[order[0]], ends[order[0]]
    for k in order[1:]:
        s, e = starts[k], ends[k]
        if s <= cur_e:
            cur_e = max(cur_e, e)
        else:
            merged.append((cur_s, cur_e))
            cur_s, cur_e = s, e
    merged.append((cur_s, cur_e))
    return merged


def merged_length(starts, ends):
    """Total covered length of a union of intervals (sorted, merged in a loop)."""
    order = np.argsort(starts)
    s = starts[order]
    e = ends[order]
    total = 0.0
    cs, ce = s[0], e[0]
    for i in range(1, len(s)):
        if s[i] > ce:
            total += ce - cs
            cs, ce = s[i], e[i]
        elif e[i] > ce:
            ce = e[i]
    total += ce - cs
    return total


def sweep_max_overlap(starts, ends):
    """Most intervals open at once by a sweep over +1/-1 events sorted by time."""
    times = np.concatenate((starts, ends))
    deltas = np.concatenate((np.ones(len(starts), dtype=np.int64),
                             -np.ones(len(ends), dtype=np.int64)))
    order = np.lexsort((deltas, times))
    running = np.cumsum(deltas[order])
    return int(running.max()), times[order][np.argmax(running)]


def meeting_rooms_loop(starts, ends):
    """Rooms needed: two sorted arrays walked with two pointers in a while loop."""
    s = np.sort(starts)
    e = np.sort(ends)
    i = j = 0
    rooms = best = 0
    while i < len(s):
        if s[i] < e[j]:
            rooms += 1
            best = max(best, rooms)
            i += 1
        else:
            rooms -= 1
            j += 1
    return best


# ---------------------------------------------------------------- union-find

def _root(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def union_find_components(n, edges):
    """Components of a graph from an (m, 2) edge array: union by size, path halving."""
    parent = np.arange(n)
    size = np.ones(n, dtype=np.int64)
    for a, b in edges:
        ra = _root(parent, a)
        rb = _root(parent, b)
        if ra == rb:
            continue
        if size[ra] < size[rb]:
            ra, rb = rb, ra
        parent[rb] = ra
        size[ra] += size[rb]
    roots = np.array([_root(parent, i) for i in range(n)])
    return len(np.unique(roots)), roots


def kruskal_mst_weight(n, u, v, w):
    """Kruskal's minimum spanning tree: edges by weight, union-find with full path compression."""
    parent = np.arange(n)
    order = np.argsort(w, kind="stable")
    total = 0.0
    used = 0
    for e in order:
        a = u[e]
        while parent[a] != a:
            a = parent[a]
        b = v[e]
        while parent[b] != b:
            b = parent[b]
        x = u[e]
        while parent[x] != a:
            nx = parent[x]
            parent[x] = a
            x = nx
        if a != b:
            parent[b] = a
            total += w[e]
            used += 1
            if used == n - 1:
                break
    return total, used


def percolates(open_sites):
    """Does a bool grid percolate top to bottom? Union-find over sites with two virtual nodes."""
    h, w = open_sites.shape
    parent = np.arange(h * w + 2)
    top, bottom = h * w, h * w + 1

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a, b):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb

    for i in range(h):
        for j in range(w):
            if not open_sites[i, j]:
                continue
            k = i * w + j
            if i == 0:
                union(k, top)
            if i == h - 1:
                union(k, bottom)
            if i > 0 and open_sites[i - 1, j]:
                union(k, k - w)
            if j > 0 and open_sites[i, j - 1]:
                union(k, k - 1)
    return find(top) == find(bottom)
