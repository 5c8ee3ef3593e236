"""Loop-style kernels that use Python containers and builtins beside arrays: picks with
`min`/`max`/`sorted` and a `key=` function over a few candidates."""

import numpy as np


def greedy_descent_walk(height, steps):
    """Walk downhill on a grid: each step moves to the lowest of the four neighbours
    (clamped at the border), ties to the first in (up, down, left, right) order."""
    h, w = height.shape
    r, c = h // 2, w // 2
    path = np.empty((steps, 2), dtype=np.int64)
    for t in range(steps):
        moves = ((max(r - 1, 0), c), (min(r + 1, h - 1), c),
                 (r, max(c - 1, 0)), (r, min(c + 1, w - 1)))
        r, c = min(moves, key=lambda p: height[p[0], p[1]])
        path[t, 0] = r
        path[t, 1] = c
    return path


def nearest_of_three_centers(points, centers):
    """Label each point with the nearest of three centres (squared distance), ties to the
    lower label, and count the labels."""
    labels = np.empty(points.shape[0], dtype=np.int64)
    counts = np.zeros(3, dtype=np.int64)
    for i in range(points.shape[0]):
        best = min(range(3), key=lambda k: ((points[i] - centers[k]) ** 2).sum())
        labels[i] = best
        counts[best] += 1
    return labels, counts


def rank_four_bids(bids):
    """Per auction (a row of four bids rounded to cents), the bidders in order of their
    bids, highest first, equal bids in bidder order."""
    ranks = np.empty(bids.shape, dtype=np.int64)
    for a in range(bids.shape[0]):
        order = sorted(range(4), key=lambda j: -np.round(bids[a, j], 1))
        for place, j in enumerate(order):
            ranks[a, place] = j
    return ranks


def best_window_start(signal, width):
    """The start of the highest-energy window among a few candidate starts, and its
    place as a fraction of the signal."""
    starts = list(range(0, len(signal) - width + 1, width // 2))
    best = max(starts, key=lambda s: float(np.dot(signal[s:s + width], signal[s:s + width])))
    return best, best / len(signal)


def weakest_link_pairs(strength):
    """For each node of a chain, the neighbour (index, strength) pair it holds least
    strongly, by a key on the pair's second item; the total of those strengths."""
    n = len(strength)
    total = 0.0
    picks = []
    for i in range(1, n - 1):
        left, right = (i - 1, strength[i - 1]), (i + 1, strength[i + 1])
        j, s = min((left, right), key=lambda pair: pair[1])
        picks.append(j)
        total += s
    return total, picks
