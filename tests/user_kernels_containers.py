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


def longest_run_record(values):
    """The (start, length, value) record of the longest run of equal values, the first of
    equal lengths, and the runs ordered by value, then length."""
    runs = []
    start = 0
    for i in range(1, len(values)):
        if values[i] != values[i - 1]:
            runs.append((start, i - start, values[i - 1]))
            start = i
    runs.append((start, len(values) - start, values[-1]))
    longest = max(runs, key=lambda r: r[1])
    ordered = sorted(runs, key=lambda r: (r[2], r[1]))
    return longest, ordered[:5]


def top_scoring_events(times, scores, threshold):
    """Events whose score passes a threshold, as (time, score) pairs, best first (equal
    scores in time order), and the earliest-scoring of them."""
    events = []
    for t, s in zip(times, scores):
        if s > threshold:
            events.append((t, s))
    events.sort(key=lambda e: e[1], reverse=True)
    first = min(events, key=lambda e: e[0])
    return events[:10], first


def cheapest_edges_first(weights):
    """Edges [u, v, w] of the upper triangle with a positive weight, ordered by weight (as
    Kruskal's algorithm takes them), and the heaviest."""
    n = weights.shape[0]
    edges = []
    for u in range(n):
        for v in range(u + 1, n):
            if weights[u, v] > 0:
                edges.append([u, v, weights[u, v]])
    heaviest = max(edges, key=lambda e: e[2])
    return sorted(edges, key=lambda e: e[2]), heaviest


def greedy_knapsack_by_ratio(values, weights, capacity):
    """Fractional knapsack: take items in order of value per weight, best first."""
    ratio = values / weights
    order = sorted(range(len(values)), key=lambda i: -ratio[i])
    room = capacity
    total = 0.0
    taken = np.zeros(len(values))
    for i in order:
        if room <= 0:
            break
        part = min(1.0, room / weights[i])
        taken[i] = part
        total += part * values[i]
        room -= part * weights[i]
    return total, taken


def farthest_point_seed(points):
    """The point farthest from the centroid (the first of equals), then the point farthest
    from it: the two seeds of a farthest-point split."""
    centroid = points.mean(axis=0)
    d0 = ((points - centroid) ** 2).sum(axis=1)
    a = max(range(len(points)), key=lambda i: d0[i])
    d1 = ((points - points[a]) ** 2).sum(axis=1)
    b = max(range(len(points)), key=lambda i: d1[i])
    return a, b, d1[b]
