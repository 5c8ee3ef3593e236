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
