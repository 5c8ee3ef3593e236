"""Classic routines as their users write them: recursion on small depths (a radix-2 FFT on
real and imaginary parts, Karatsuba products, quickselect), graphs on edge lists and
adjacency matrices (Bellman-Ford with a negative-cycle check, PageRank with dangling nodes,
Prim), images (two-pass labelling, a chamfer distance transform, box filters from an integral
image, a bilateral filter), sequences and bytes (Needleman-Wunsch with traceback, k-mer
counts, hex and base64 on uint8), clustering (DBSCAN), series (Yule-Walker AR forecasts, a
binomial tree), meshes and robots (Taubin smoothing, forward kinematics) and a queue fed with
given random draws."""

import math

import numpy as np


def fft_recursive(re, im):
    n = len(re)
    if n == 1:
        return re.copy(), im.copy()
    if n % 2:
        raise ValueError("length must be a power of two")
    er, ei = fft_recursive(re[0::2], im[0::2])
    orr, oi = fft_recursive(re[1::2], im[1::2])
    k = np.arange(n // 2)
    c = np.cos(-2 * math.pi * k / n)
    s = np.sin(-2 * math.pi * k / n)
    tr = c * orr - s * oi
    ti = c * oi + s * orr
    return np.concatenate([er + tr, er - tr]), np.concatenate([ei + ti, ei - ti])


def power_spectrum_fft(x):
    re, im = fft_recursive(x, np.zeros_like(x))
    return re ** 2 + im ** 2


def karatsuba(a, b):
    n = len(a)
    if n <= 8:
        return np.convolve(a, b)
    half = n // 2
    a0, a1 = a[:half], a[half:]
    b0, b1 = b[:half], b[half:]
    z0 = karatsuba(a0, b0)
    z2 = karatsuba(a1, b1)
    z1 = karatsuba(a0 + a1, b0 + b1) - z0 - z2
    out = np.zeros(2 * n - 1)
    out[:len(z0)] += z0
    out[half:half + len(z1)] += z1
    out[2 * half:2 * half + len(z2)] += z2
    return out


def quickselect(a, k):
    pivot = a[len(a) // 2]
    lows = a[a < pivot]
    highs = a[a > pivot]
    n_pivots = len(a) - len(lows) - len(highs)
    if k < len(lows):
        return quickselect(lows, k)
    if k < len(lows) + n_pivots:
        return pivot
    return quickselect(highs, k - len(lows) - n_pivots)


def median_by_quickselect(x):
    n = len(x)
    if n % 2:
        return quickselect(x, n // 2)
    return 0.5 * (quickselect(x, n // 2 - 1) + quickselect(x, n // 2))


def bellman_ford_checked(src, dst, w, n_nodes, source=0):
    dist = np.full(n_nodes, np.inf)
    dist[source] = 0.0
    for _ in range(n_nodes - 1):
        changed = False
        for u, v, cost in zip(src, dst, w):
            if dist[u] + cost < dist[v]:
                dist[v] = dist[u] + cost
                changed = True
        if not changed:
            break
    for u, v, cost in zip(src, dst, w):
        if dist[u] + cost < dist[v]:
            raise ValueError("graph contains a negative cycle")
    return dist


def pagerank_dangling(adj, damping=0.85, tol=1e-10, max_iter=100):
    n = adj.shape[0]
    out_deg = adj.sum(axis=1)
    dangling = out_deg == 0
    P = adj / np.where(dangling, 1, out_deg)[:, None]
    r = np.full(n, 1.0 / n)
    log = {"iterations": 0, "residual": 0.0}
    for it in range(max_iter):
        leak = r[dangling].sum()
        r_new = damping * (r @ P + leak / n) + (1 - damping) / n
        err = np.abs(r_new - r).sum()
        r = r_new
        log["iterations"] = it + 1
        log["residual"] = err
        if err < tol:
            break
    return r, log


def prim_total_weight(W):
    n = W.shape[0]
    in_tree = np.zeros(n, dtype=bool)
    key = np.full(n, np.inf)
    parent = np.full(n, -1)
    key[0] = 0.0
    total = 0.0
    for _ in range(n):
        u = np.argmin(np.where(in_tree, np.inf, key))
        in_tree[u] = True
        total += key[u]
        better = (~in_tree) & (W[u] > 0) & (W[u] < key)
        key[better] = W[u][better]
        parent[better] = u
    return parent, total


def label_components(mask):
    h, w = mask.shape
    labels = np.zeros((h, w), dtype=np.int32)
    parent = np.arange(h * w // 2 + 2, dtype=np.int32)

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    next_label = 1
    for i in range(h):
        for j in range(w):
            if not mask[i, j]:
                continue
            up = labels[i - 1, j] if i > 0 else 0
            left = labels[i, j - 1] if j > 0 else 0
            if up == 0 and left == 0:
                labels[i, j] = next_label
                next_label += 1
            elif up and left:
                a, b = find(up), find(left)
                labels[i, j] = min(a, b)
                parent[max(a, b)] = min(a, b)
            else:
                labels[i, j] = max(up, left)
    for i in range(h):
        for j in range(w):
            if labels[i, j]:
                labels[i, j] = find(labels[i, j])
    return labels


def chamfer_distance(mask):
    h, w = mask.shape
    big = 10 ** 6
    d = np.where(mask, 0, big).astype(np.int64)
    for i in range(h):
        for j in range(w):
            if i > 0:
                d[i, j] = min(d[i, j], d[i - 1, j] + 3)
                if j > 0:
                    d[i, j] = min(d[i, j], d[i - 1, j - 1] + 4)
                if j < w - 1:
                    d[i, j] = min(d[i, j], d[i - 1, j + 1] + 4)
            if j > 0:
                d[i, j] = min(d[i, j], d[i, j - 1] + 3)
    for i in reversed(range(h)):
        for j in reversed(range(w)):
            if i < h - 1:
                d[i, j] = min(d[i, j], d[i + 1, j] + 3)
                if j < w - 1:
                    d[i, j] = min(d[i, j], d[i + 1, j + 1] + 4)
                if j > 0:
                    d[i, j] = min(d[i, j], d[i + 1, j - 1] + 4)
            if j < w - 1:
                d[i, j] = min(d[i, j], d[i, j + 1] + 3)
    return d / 3.0


def box_filter_integral(img, radius):
    h, w = img.shape
    ii = np.zeros((h + 1, w + 1))
    ii[1:, 1:] = img.cumsum(axis=0).cumsum(axis=1)
    out = np.empty_like(img)
    for i in range(h):
        r0, r1 = max(i - radius, 0), min(i + radius + 1, h)
        for j in range(w):
            c0, c1 = max(j - radius, 0), min(j + radius + 1, w)
            s = ii[r1, c1] - ii[r0, c1] - ii[r1, c0] + ii[r0, c0]
            out[i, j] = s / ((r1 - r0) * (c1 - c0))
    return out


def bilateral_gray(img, radius=2, sigma_s=1.5, sigma_r=0.1):
    h, w = img.shape
    padded = np.pad(img, radius, mode="reflect")
    num = np.zeros_like(img)
    den = np.zeros_like(img)
    for di in range(-radius, radius + 1):
        for dj in range(-radius, radius + 1):
            g_s = math.exp(-(di * di + dj * dj) / (2 * sigma_s ** 2))
            shifted = padded[radius + di:radius + di + h, radius + dj:radius + dj + w]
            wgt = g_s * np.exp(-((shifted - img) ** 2) / (2 * sigma_r ** 2))
            num += wgt * shifted
            den += wgt
    return num / den


def needleman_wunsch_align(a, b, match=1, mismatch=-1, gap=-2):
    n, m = len(a), len(b)
    F = np.zeros((n + 1, m + 1), dtype=np.int64)
    F[:, 0] = gap * np.arange(n + 1)
    F[0, :] = gap * np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            s = match if a[i - 1] == b[j - 1] else mismatch
            F[i, j] = max(F[i - 1, j - 1] + s, F[i - 1, j] + gap, F[i, j - 1] + gap)
    # traceback into one column of moves: 0 diagonal, 1 up (gap in b), 2 left (gap in a)
    moves = np.full(n + m, -1, dtype=np.int8)
    i, j, k = n, m, 0
    while i > 0 or j > 0:
        if i > 0 and j > 0 and F[i, j] == F[i - 1, j - 1] + (match if a[i - 1] == b[j - 1] else mismatch):
            moves[k] = 0
            i -= 1
            j -= 1
        elif i > 0 and F[i, j] == F[i - 1, j] + gap:
            moves[k] = 1
            i -= 1
        else:
            moves[k] = 2
            j -= 1
        k += 1
    return F[n, m], moves[:k][::-1]


def kmer_counts(seq, k=4):
    if seq.dtype != np.uint8:
        raise ValueError("sequence must be uint8 codes 0..3")
    n = len(seq) - k + 1
    codes = np.zeros(n, dtype=np.int64)
    for offset in range(k):
        codes = codes * 4 + seq[offset:offset + n]
    return np.bincount(codes, minlength=4 ** k)


HEX_DIGITS = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)


def hex_encode(data):
    out = np.empty(2 * len(data), dtype=np.uint8)
    out[0::2] = HEX_DIGITS[data >> 4]
    out[1::2] = HEX_DIGITS[data & 0x0F]
    return out


B64_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
B64_DECODE = np.full(256, 255, dtype=np.uint8)
B64_DECODE[np.frombuffer(B64_ALPHABET, dtype=np.uint8)] = np.arange(64, dtype=np.uint8)


def base64_decode(text):
    if len(text) % 4:
        raise ValueError("base64 text length must be a multiple of 4")
    vals = B64_DECODE[text].astype(np.uint32)
    if np.any(vals == 255):
        raise ValueError("invalid base64 character")
    quads = vals.reshape(-1, 4)
    word = (quads[:, 0] << 18) | (quads[:, 1] << 12) | (quads[:, 2] << 6) | quads[:, 3]
    out = np.empty((len(quads), 3), dtype=np.uint8)
    out[:, 0] = (word >> 16) & 0xFF
    out[:, 1] = (word >> 8) & 0xFF
    out[:, 2] = word & 0xFF
    return out.ravel()


def dbscan_labels(X, eps, min_pts):
    n = len(X)
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    neighbours = d2 <= eps * eps
    core = neighbours.sum(axis=1) >= min_pts
    labels = np.full(n, -1)
    cluster = 0
    for i in range(n):
        if labels[i] != -1 or not core[i]:
            continue
        labels[i] = cluster
        frontier = neighbours[i].copy()
        while frontier.any():
            new = frontier & (labels == -1)
            labels[new] = cluster
            frontier = np.any(neighbours[new & core], axis=0) & (labels == -1)
        cluster += 1
    return labels, cluster


def ar_yule_walker_forecast(x, p, horizon):
    x = x - x.mean()
    n = len(x)
    r = np.array([x[:n - k] @ x[k:] / n for k in range(p + 1)])
    R = np.empty((p, p))
    for i in range(p):
        for j in range(p):
            R[i, j] = r[abs(i - j)]
    phi = np.linalg.solve(R, r[1:])
    sigma2 = r[0] - phi @ r[1:]
    hist = list(x[-p:])
    preds = np.empty(horizon)
    for h in range(horizon):
        nxt = sum(phi[k] * hist[-1 - k] for k in range(p))
        preds[h] = nxt
        hist.append(nxt)
    return phi, sigma2, preds


def crr_american_put(S0, K, r, sigma, T, steps):
    dt = T / steps
    u = math.exp(sigma * math.sqrt(dt))
    d = 1 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    j = np.arange(steps + 1)
    prices = S0 * u ** (steps - j) * d ** j
    values = np.maximum(K - prices, 0.0)
    for i in range(steps - 1, -1, -1):
        prices = prices[:i + 1] / u
        values = disc * (p * values[:i + 1] + (1 - p) * values[1:i + 2])
        values = np.maximum(values, K - prices)
    return values[0]


def taubin_smooth(verts, faces, n_iter=5, lam=0.5, mu=-0.53):
    n = len(verts)
    i = np.concatenate([faces[:, 0], faces[:, 1], faces[:, 2], faces[:, 1], faces[:, 2], faces[:, 0]])
    j = np.concatenate([faces[:, 1], faces[:, 2], faces[:, 0], faces[:, 0], faces[:, 1], faces[:, 2]])
    deg = np.bincount(i, minlength=n).astype(np.float64)
    v = verts.copy()
    for _ in range(n_iter):
        for factor in (lam, mu):
            acc = np.zeros_like(v)
            np.add.at(acc, i, v[j])
            lap = acc / np.maximum(deg, 1)[:, None] - v
            v = v + factor * lap
    return v


def planar_arm_fk(thetas, lengths):
    n_cfg, n_joints = thetas.shape
    assert n_joints == len(lengths)
    x = np.zeros(n_cfg)
    y = np.zeros(n_cfg)
    angle = np.zeros(n_cfg)
    joints = np.empty((n_cfg, n_joints, 2))
    for k, (theta, length) in enumerate(zip(thetas.T, lengths)):
        angle = angle + theta
        x = x + length * np.cos(angle)
        y = y + length * np.sin(angle)
        joints[:, k, 0] = x
        joints[:, k, 1] = y
    reach = np.hypot(x, y)
    return joints, reach.max(), float(sum(lengths))


def mm1_queue(interarrival, service):
    n = len(interarrival)
    wait = np.zeros(n)
    busy_until = 0.0
    t = 0.0
    served_immediately = 0
    for k in range(n):
        t += interarrival[k]
        if t >= busy_until:
            served_immediately += 1
            wait[k] = 0.0
            busy_until = t + service[k]
        else:
            wait[k] = busy_until - t
            busy_until += service[k]
    return {"mean_wait": wait.mean(), "max_wait": wait.max(),
            "p_no_wait": served_immediately / n, "utilisation": service.sum() / busy_until}
