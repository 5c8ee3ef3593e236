"""Time series, statistics and optimisation written as their users write them: dynamic
programming tables, windows sorted by hand, line searches in `while` loops, helpers."""

import numpy as np


def dtw_distance(a, b):
    n, m = len(a), len(b)
    D = np.full((n + 1, m + 1), np.inf)
    D[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = abs(a[i - 1] - b[j - 1])
            D[i, j] = cost + min(D[i - 1, j], D[i, j - 1], D[i - 1, j - 1])
    return D[n, m]


def holt_winters(y, alpha, beta, gamma, m, horizon):
    n = len(y)
    level = np.mean(y[:m])
    trend = (np.mean(y[m:2 * m]) - np.mean(y[:m])) / m
    season = y[:m] - level
    fitted = np.zeros(n)
    for t in range(n):
        s = season[t % m]
        fitted[t] = level + trend + s
        last_level = level
        level = alpha * (y[t] - s) + (1 - alpha) * (level + trend)
        trend = beta * (level - last_level) + (1 - beta) * trend
        season[t % m] = gamma * (y[t] - level) + (1 - gamma) * s
    forecast = np.empty(horizon)
    for h in range(horizon):
        forecast[h] = level + (h + 1) * trend + season[(n + h) % m]
    return fitted, forecast


def ar_filter(x, coeffs):
    p = len(coeffs)
    y = np.zeros_like(x)
    for t in range(len(x)):
        acc = x[t]
        for k in range(p):
            if t - k - 1 >= 0:
                acc += coeffs[k] * y[t - k - 1]
        y[t] = acc
    return y


def hampel_filter(x, k, n_sigmas):
    y = x.copy()
    outliers = 0
    for i in range(k, len(x) - k):
        window = x[i - k:i + k + 1]
        med = np.median(window)
        mad = 1.4826 * np.median(np.abs(window - med))
        if np.abs(x[i] - med) > n_sigmas * mad:
            y[i] = med
            outliers += 1
    return y, outliers


def rolling_median_sort(x, w):
    n = len(x)
    out = np.empty(n - w + 1)
    for i in range(n - w + 1):
        window = np.sort(x[i:i + w])
        if w % 2 == 1:
            out[i] = window[w // 2]
        else:
            out[i] = 0.5 * (window[w // 2 - 1] + window[w // 2])
    return out


def kde_gaussian(data, grid, bandwidth):
    n = len(data)
    dens = np.zeros(len(grid))
    norm = 1.0 / (n * bandwidth * np.sqrt(2 * np.pi))
    for i in range(len(grid)):
        u = (grid[i] - data) / bandwidth
        dens[i] = norm * np.sum(np.exp(-0.5 * u * u))
    return dens


def mann_whitney_u(a, b):
    n1, n2 = len(a), len(b)
    both = np.concatenate((a, b))
    order = np.argsort(both)
    ranks = np.empty(n1 + n2)
    ranks[order] = np.arange(1, n1 + n2 + 1)
    r1 = ranks[:n1].sum()
    u1 = r1 - n1 * (n1 + 1) / 2.0
    u2 = n1 * n2 - u1
    mu = n1 * n2 / 2.0
    sigma = np.sqrt(n1 * n2 * (n1 + n2 + 1) / 12.0)
    z = (min(u1, u2) - mu) / sigma
    return u1, u2, z


def pearson_matrix(X):
    n, p = X.shape
    R = np.empty((p, p))
    for i in range(p):
        xi = X[:, i] - X[:, i].mean()
        for j in range(i, p):
            xj = X[:, j] - X[:, j].mean()
            r = np.sum(xi * xj) / np.sqrt(np.sum(xi * xi) * np.sum(xj * xj))
            R[i, j] = r
            R[j, i] = r
    return R


def permutation_test(x, y, perms):
    n = len(x)
    pooled = np.concatenate((x, y))
    observed = x.mean() - y.mean()
    count = 0
    diffs = np.empty(perms.shape[0])
    for p in range(perms.shape[0]):
        shuffled = pooled[perms[p]]
        d = shuffled[:n].mean() - shuffled[n:].mean()
        diffs[p] = d
        if abs(d) >= abs(observed):
            count += 1
    return observed, (count + 1) / (perms.shape[0] + 1), diffs


def quadratic(A, b, x):
    return 0.5 * x @ A @ x - b @ x


def gd_backtracking(A, b, x0, iters):
    x = x0.copy()
    for it in range(iters):
        g = A @ x - b
        t = 1.0
        fx = quadratic(A, b, x)
        while quadratic(A, b, x - t * g) > fx - 0.5 * t * (g @ g):
            t *= 0.5
        x = x - t * g
    return x


def rosenbrock(p):
    return (1.0 - p[0]) ** 2 + 100.0 * (p[1] - p[0] ** 2) ** 2


def nelder_mead(x0, step, iters):
    simplex = np.empty((3, 2))
    simplex[0] = x0
    simplex[1] = x0 + np.array([step, 0.0])
    simplex[2] = x0 + np.array([0.0, step])
    fs = np.array([rosenbrock(simplex[i]) for i in range(3)])
    for it in range(iters):
        order = np.argsort(fs)
        simplex = simplex[order]
        fs = fs[order]
        centroid = simplex[:2].mean(axis=0)
        xr = centroid + (centroid - simplex[2])
        fr = rosenbrock(xr)
        if fr < fs[0]:
            xe = centroid + 2.0 * (centroid - simplex[2])
            fe = rosenbrock(xe)
            if fe < fr:
                simplex[2], fs[2] = xe, fe
            else:
                simplex[2], fs[2] = xr, fr
        elif fr < fs[1]:
            simplex[2], fs[2] = xr, fr
        else:
            xc = centroid + 0.5 * (simplex[2] - centroid)
            fc = rosenbrock(xc)
            if fc < fs[2]:
                simplex[2], fs[2] = xc, fc
            else:
                for i in range(1, 3):
                    simplex[i] = simplex[0] + 0.5 * (simplex[i] - simplex[0])
                    fs[i] = rosenbrock(simplex[i])
    best = np.argmin(fs)
    return simplex[best], fs[best]


def lbfgs_direction(g, S, Y):
    m = S.shape[0]
    q = g.copy()
    alpha = np.zeros(m)
    rho = np.zeros(m)
    for i in range(m - 1, -1, -1):
        rho[i] = 1.0 / np.dot(Y[i], S[i])
        alpha[i] = rho[i] * np.dot(S[i], q)
        q -= alpha[i] * Y[i]
    gamma = np.dot(S[m - 1], Y[m - 1]) / np.dot(Y[m - 1], Y[m - 1])
    r = gamma * q
    for i in range(m):
        beta = rho[i] * np.dot(Y[i], r)
        r += S[i] * (alpha[i] - beta)
    return -r


def soft_threshold(z, t):
    if z > t:
        return z - t
    if z < -t:
        return z + t
    return 0.0


def lasso_cd(X, y, lam, iters):
    n, p = X.shape
    w = np.zeros(p)
    col_sq = (X ** 2).sum(axis=0)
    r = y - X @ w
    for it in range(iters):
        for j in range(p):
            r += X[:, j] * w[j]
            rho = X[:, j] @ r
            w[j] = soft_threshold(rho, lam * n) / col_sq[j]
            r -= X[:, j] * w[j]
    return w
