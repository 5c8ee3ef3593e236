"""Lists built in loops, written as their users write them: results collected with
`append` (under a condition, or one per trip), comprehensions and generator expressions,
then turned into arrays, summed or counted."""

import numpy as np


def find_peaks(x, threshold):
    peaks = []
    for i in range(1, len(x) - 1):
        if x[i] > threshold and x[i] > x[i - 1] and x[i] >= x[i + 1]:
            peaks.append(i)
    return np.array(peaks, dtype=np.int64), len(peaks)


def row_norms(X):
    norms = []
    for row in X:
        norms.append(np.sqrt(np.sum(row * row)))
    return np.array(norms)


def window_means(x, w):
    return np.array([x[i:i + w].mean() for i in range(len(x) - w + 1)])


def trimmed_mean(x, k):
    mu = x.mean()
    sd = x.std()
    kept = [v for v in x if abs(v - mu) < k * sd]
    return sum(kept) / len(kept), len(kept)


def dense_layer_rows(X, W, b):
    rows = []
    for i in range(X.shape[0]):
        rows.append(np.tanh(X[i] @ W + b))
    return np.stack(rows)


def energy_above(x, level):
    return sum(v * v for v in x if v > level)


def k_nearest_sorted(points, q, k):
    dists = []
    for i in range(len(points)):
        d = (points[i, 0] - q[0]) ** 2 + (points[i, 1] - q[1]) ** 2
        dists.append((d, i))
    dists.sort()
    return [i for _, i in dists[:k]]


def median_of_valid(x):
    vals = [v for v in x if not np.isnan(v)]
    vals.sort()
    n = len(vals)
    if n % 2 == 1:
        return vals[n // 2]
    return (vals[n // 2 - 1] + vals[n // 2]) / 2


def peak_gaps(x, threshold):
    peaks = []
    for i in range(1, len(x) - 1):
        if x[i] > threshold and x[i] > x[i - 1] and x[i] >= x[i + 1]:
            peaks.append(i)
    gaps = [b - a for a, b in zip(peaks, peaks[1:])]
    return max(gaps) if gaps else 0, min(peaks), peaks.index(max(peaks))


def bfs_cells_as_lists(grid):
    from collections import deque

    h, w = grid.shape
    dist = np.full((h, w), -1)
    dist[0, 0] = 0
    q = deque([[0, 0]])
    while q:
        r, c = q.popleft()
        for dr, dc in [[1, 0], [-1, 0], [0, 1], [0, -1]]:
            nr, nc = r + dr, c + dc
            if 0 <= nr < h and 0 <= nc < w and grid[nr, nc] == 0 and dist[nr, nc] == -1:
                dist[nr, nc] = dist[r, c] + 1
                q.append([nr, nc])
    return dist


def small_filtered_sums(X, t):
    out = []
    for row in X:
        kept = [v for v in row if v > t]
        out.append(sum(kept) if kept else 0.0)
    return np.array(out)
