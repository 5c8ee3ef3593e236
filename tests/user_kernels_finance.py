"""Finance, statistics and graph algorithms on adjacency matrices, written as their users
write them: `math` functions in loops, running state, queues and stacks kept in arrays."""

import math

import numpy as np


def norm_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def black_scholes(S, K, T, r, sigma):
    n = len(S)
    call = np.empty(n)
    put = np.empty(n)
    for i in range(n):
        sq = sigma[i] * math.sqrt(T[i])
        d1 = (math.log(S[i] / K[i]) + (r + 0.5 * sigma[i] ** 2) * T[i]) / sq
        d2 = d1 - sq
        disc = K[i] * math.exp(-r * T[i])
        call[i] = S[i] * norm_cdf(d1) - disc * norm_cdf(d2)
        put[i] = disc * norm_cdf(-d2) - S[i] * norm_cdf(-d1)
    return call, put


def binomial_option(S, K, T, r, sigma, steps):
    dt = T / steps
    u = np.exp(sigma * np.sqrt(dt))
    d = 1 / u
    p = (np.exp(r * dt) - d) / (u - d)
    disc = np.exp(-r * dt)
    prices = S * u ** np.arange(steps, -1, -1) * d ** np.arange(0, steps + 1)
    values = np.maximum(prices - K, 0.0)
    for i in range(steps):
        values = disc * (p * values[:-1] + (1 - p) * values[1:])
    return values[0]


def american_put(S, K, T, r, sigma, steps):
    dt = T / steps
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    v = np.empty(steps + 1)
    for j in range(steps + 1):
        v[j] = max(K - S * u ** (steps - j) * d ** j, 0.0)
    for i in range(steps - 1, -1, -1):
        for j in range(i + 1):
            hold = disc * (p * v[j] + (1 - p) * v[j + 1])
            exercise = K - S * u ** (i - j) * d ** j
            v[j] = max(hold, exercise)
    return v[0]


def ewma(x, alpha):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, len(x)):
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out


def max_drawdown(prices):
    peak = prices[0]
    mdd = 0.0
    start = end = 0
    peak_i = 0
    for i in range(1, len(prices)):
        if prices[i] > peak:
            peak = prices[i]
            peak_i = i
        dd = (peak - prices[i]) / peak
        if dd > mdd:
            mdd = dd
            start, end = peak_i, i
    return mdd, start, end


def rolling_volatility(prices, window):
    returns = np.diff(np.log(prices))
    n = len(returns)
    vol = np.full(n, np.nan)
    for i in range(window - 1, n):
        vol[i] = np.std(returns[i - window + 1:i + 1]) * np.sqrt(252)
    return vol


def monte_carlo_paths(S0, mu, sigma, dt, Z):
    n_paths, n_steps = Z.shape
    paths = np.empty((n_paths, n_steps + 1))
    paths[:, 0] = S0
    drift = (mu - 0.5 * sigma ** 2) * dt
    vol = sigma * np.sqrt(dt)
    for t in range(n_steps):
        paths[:, t + 1] = paths[:, t] * np.exp(drift + vol * Z[:, t])
    payoff = np.maximum(paths[:, -1] - S0, 0.0)
    return paths, payoff.mean()


def welford(x):
    mean = 0.0
    m2 = 0.0
    n = 0
    for v in x:
        n += 1
        delta = v - mean
        mean += delta / n
        m2 += delta * (v - mean)
    return mean, m2 / (n - 1)


def ranks(x):
    order = np.argsort(x)
    r = np.empty(len(x))
    for i in range(len(x)):
        r[order[i]] = i + 1
    return r


def quantiles(x, qs):
    s = np.sort(x)
    n = len(s)
    out = np.empty(len(qs))
    for i in range(len(qs)):
        pos = qs[i] * (n - 1)
        lo = int(np.floor(pos))
        hi = min(lo + 1, n - 1)
        out[i] = s[lo] + (pos - lo) * (s[hi] - s[lo])
    return out


def bootstrap_means(x, idx):
    B = idx.shape[0]
    means = np.empty(B)
    for b in range(B):
        means[b] = x[idx[b]].mean()
    lo, hi = np.percentile(means, [2.5, 97.5])
    return means.std(), lo, hi


def histogram2d_loop(x, y, nx, ny):
    H = np.zeros((nx, ny), dtype=np.int64)
    xmin, xmax = x.min(), x.max()
    ymin, ymax = y.min(), y.max()
    for k in range(len(x)):
        i = int((x[k] - xmin) / (xmax - xmin) * nx)
        j = int((y[k] - ymin) / (ymax - ymin) * ny)
        if i == nx:
            i -= 1
        if j == ny:
            j -= 1
        H[i, j] += 1
    return H


def bfs_distances(adj, source):
    n = adj.shape[0]
    dist = np.full(n, -1, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    head, tail = 0, 0
    queue[tail] = source
    tail += 1
    dist[source] = 0
    while head < tail:
        u = queue[head]
        head += 1
        for v in range(n):
            if adj[u, v] and dist[v] < 0:
                dist[v] = dist[u] + 1
                queue[tail] = v
                tail += 1
    return dist


def dijkstra_dense(W, source):
    n = W.shape[0]
    dist = np.full(n, np.inf)
    done = np.zeros(n, dtype=np.bool_)
    dist[source] = 0.0
    for _ in range(n):
        u = -1
        best = np.inf
        for i in range(n):
            if not done[i] and dist[i] < best:
                best = dist[i]
                u = i
        if u < 0:
            break
        done[u] = True
        for v in range(n):
            w = W[u, v]
            if w > 0 and dist[u] + w < dist[v]:
                dist[v] = dist[u] + w
    return dist


def pagerank(adj, d, iters):
    n = adj.shape[0]
    out_deg = adj.sum(axis=1)
    out_deg[out_deg == 0] = 1
    M = (adj / out_deg[:, None]).T
    rank = np.ones(n) / n
    for _ in range(iters):
        new = (1 - d) / n + d * (M @ rank)
        if np.abs(new - rank).sum() < 1e-12:
            return new
        rank = new
    return rank


def find(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def connected_components(adj):
    n = adj.shape[0]
    parent = np.arange(n)
    for i in range(n):
        for j in range(i + 1, n):
            if adj[i, j]:
                ri = find(parent, i)
                rj = find(parent, j)
                if ri != rj:
                    parent[rj] = ri
    labels = np.empty(n, dtype=np.int64)
    for i in range(n):
        labels[i] = find(parent, i)
    return labels, len(np.unique(labels))


def transitive_closure(adj):
    n = adj.shape[0]
    reach = adj.astype(np.bool_)
    for i in range(n):
        reach[i, i] = True
    for k in range(n):
        for i in range(n):
            if reach[i, k]:
                reach[i] = reach[i] | reach[k]
    return reach


def widest_path(cap):
    n = cap.shape[0]
    W = cap.copy()
    for k in range(n):
        for i in range(n):
            for j in range(n):
                through = min(W[i, k], W[k, j])
                if through > W[i, j]:
                    W[i, j] = through
    return W
