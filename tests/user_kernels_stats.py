"""Statistics written as their users write them: rank correlations by pair loops and by
ranks, an empirical CDF, a chi-square test of a contingency table, the Theil-Sen slope from
a list of pairwise slopes, a weighted median by cumulative weights and a one-pass
covariance updated sample by sample."""

import numpy as np


def kendall_tau(x, y):
    n = len(x)
    concordant = 0
    discordant = 0
    for i in range(n - 1):
        dx = np.sign(x[i + 1:] - x[i])
        dy = np.sign(y[i + 1:] - y[i])
        prod = dx * dy
        concordant += int(np.sum(prod > 0))
        discordant += int(np.sum(prod < 0))
    return (concordant - discordant) / (n * (n - 1) / 2)


def _rank(a):
    order = np.argsort(a)
    r = np.empty(len(a))
    r[order] = np.arange(1, len(a) + 1)
    return r


def spearman(x, y):
    rx = _rank(x)
    ry = _rank(y)
    d = rx - ry
    n = len(x)
    return 1 - 6 * np.sum(d * d) / (n * (n * n - 1))


def ecdf(sample, points):
    s = np.sort(sample)
    n = len(s)
    out = np.empty(len(points))
    for i, p in enumerate(points):
        lo, hi = 0, n
        while lo < hi:
            mid = (lo + hi) // 2
            if s[mid] <= p:
                lo = mid + 1
            else:
                hi = mid
        out[i] = lo / n
    return out


def chi_square(table):
    row = table.sum(axis=1)
    col = table.sum(axis=0)
    total = table.sum()
    expected = np.outer(row, col) / total
    stat = ((table - expected) ** 2 / expected).sum()
    dof = (table.shape[0] - 1) * (table.shape[1] - 1)
    return {"statistic": stat, "dof": dof, "expected": expected}


def theil_sen(x, y):
    n = len(x)
    slopes = []
    for i in range(n):
        for j in range(i + 1, n):
            if x[j] != x[i]:
                slopes.append((y[j] - y[i]) / (x[j] - x[i]))
    slope = np.median(np.array(slopes))
    intercept = np.median(y - slope * x)
    return slope, intercept


def weighted_median(values, weights):
    order = np.argsort(values)
    v = values[order]
    w = weights[order]
    cum = np.cumsum(w)
    half = 0.5 * cum[-1]
    for i in range(len(v)):
        if cum[i] >= half:
            return v[i]
    return v[-1]


def online_covariance(X):
    n, d = X.shape
    mean = np.zeros(d)
    C = np.zeros((d, d))
    for k in range(n):
        x = X[k]
        delta = x - mean
        mean += delta / (k + 1)
        C += np.outer(delta, x - mean)
    return mean, C / (n - 1)
