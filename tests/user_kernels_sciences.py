"""Geometry, checksums, small machine learning, physics and numerical methods written as
their users write them: helper functions, early exits, row swaps, tuples of results."""

import math

import numpy as np


def point_in_polygon(px, py, poly):
    n = poly.shape[0]
    inside = np.zeros(len(px), dtype=np.bool_)
    for k in range(len(px)):
        x, y = px[k], py[k]
        c = False
        j = n - 1
        for i in range(n):
            xi, yi = poly[i, 0], poly[i, 1]
            xj, yj = poly[j, 0], poly[j, 1]
            if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
                c = not c
            j = i
        inside[k] = c
    return inside


def shoelace_area(x, y):
    n = len(x)
    area = 0.0
    for i in range(n):
        j = (i + 1) % n
        area += x[i] * y[j] - x[j] * y[i]
    return abs(area) / 2.0


def cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def convex_hull(points):
    order = np.lexsort((points[:, 1], points[:, 0]))
    pts = points[order]
    n = len(pts)
    hull = np.empty((2 * n, 2))
    k = 0
    for i in range(n):
        while k >= 2 and cross(hull[k - 2], hull[k - 1], pts[i]) <= 0:
            k -= 1
        hull[k] = pts[i]
        k += 1
    lower = k + 1
    for i in range(n - 2, -1, -1):
        while k >= lower and cross(hull[k - 2], hull[k - 1], pts[i]) <= 0:
            k -= 1
        hull[k] = pts[i]
        k += 1
    return hull[:k - 1]


def nearest_neighbour(X, Y):
    n = X.shape[0]
    idx = np.empty(n, dtype=np.int64)
    dist = np.empty(n)
    for i in range(n):
        best = np.inf
        bj = -1
        for j in range(Y.shape[0]):
            d = 0.0
            for k in range(X.shape[1]):
                t = X[i, k] - Y[j, k]
                d += t * t
            if d < best:
                best = d
                bj = j
        idx[i] = bj
        dist[i] = np.sqrt(best)
    return idx, dist


def run_length_encode(data):
    n = len(data)
    values = np.empty(n, dtype=data.dtype)
    counts = np.empty(n, dtype=np.int64)
    k = 0
    i = 0
    while i < n:
        j = i
        while j < n and data[j] == data[i]:
            j += 1
        values[k] = data[i]
        counts[k] = j - i
        k += 1
        i = j
    return values[:k], counts[:k]


def adler32(data):
    a, b = 1, 0
    for byte in data.astype(np.int64):
        a = (a + byte) % 65521
        b = (b + a) % 65521
    return (b << 16) | a


def fletcher16(data):
    s1 = 0
    s2 = 0
    for i in range(len(data)):
        s1 = (s1 + int(data[i])) % 255
        s2 = (s2 + s1) % 255
    return (s2 << 8) | s1


def popcount_total(words):
    table = np.zeros(256, dtype=np.int64)
    for i in range(256):
        table[i] = (i & 1) + table[i >> 1]
    total = 0
    for w in words:
        w = int(w)
        while w:
            total += table[w & 0xFF]
            w >>= 8
    return total


def knn_predict(X_train, y_train, X_test, k, n_classes):
    preds = np.empty(X_test.shape[0], dtype=np.int64)
    for i in range(X_test.shape[0]):
        d = np.sum((X_train - X_test[i]) ** 2, axis=1)
        nearest = np.argsort(d)[:k]
        votes = np.zeros(n_classes)
        for j in nearest:
            votes[y_train[j]] += 1
        preds[i] = np.argmax(votes)
    return preds


def perceptron(X, y, epochs, lr):
    n, m = X.shape
    w = np.zeros(m)
    b = 0.0
    for _ in range(epochs):
        errors = 0
        for i in range(n):
            if y[i] * (X[i] @ w + b) <= 0:
                w += lr * y[i] * X[i]
                b += lr * y[i]
                errors += 1
        if errors == 0:
            break
    return w, b


def sgd_regression(X, y, lr, epochs):
    n, m = X.shape
    w = np.zeros(m)
    losses = []
    for _ in range(epochs):
        total = 0.0
        for i in range(n):
            err = X[i].dot(w) - y[i]
            w -= lr * err * X[i]
            total += err * err
        losses.append(total / n)
    return w, np.array(losses)


def gmm_e_step(x, means, variances, weights):
    n, k = len(x), len(means)
    resp = np.empty((n, k))
    for i in range(n):
        for j in range(k):
            diff = x[i] - means[j]
            resp[i, j] = weights[j] * np.exp(-0.5 * diff * diff / variances[j]) / np.sqrt(
                2 * np.pi * variances[j])
        resp[i] /= resp[i].sum()
    return resp, resp.sum(axis=0) / n


def gaussian_naive_bayes(X, y, X_test, n_classes):
    m = X.shape[1]
    means = np.zeros((n_classes, m))
    variances = np.zeros((n_classes, m))
    priors = np.zeros(n_classes)
    for c in range(n_classes):
        Xc = X[y == c]
        means[c] = Xc.mean(axis=0)
        variances[c] = Xc.var(axis=0) + 1e-9
        priors[c] = Xc.shape[0] / X.shape[0]
    scores = np.empty((X_test.shape[0], n_classes))
    for c in range(n_classes):
        ll = -0.5 * np.sum(np.log(2 * np.pi * variances[c]) + (X_test - means[c]) ** 2 / variances[c],
                           axis=1)
        scores[:, c] = np.log(priors[c]) + ll
    return np.argmax(scores, axis=1)


def sph_density(pos, h, mass):
    n = pos.shape[0]
    rho = np.zeros(n)
    norm = 315.0 / (64.0 * np.pi * h ** 9)
    h2 = h * h
    for i in range(n):
        for j in range(n):
            dx = pos[i, 0] - pos[j, 0]
            dy = pos[i, 1] - pos[j, 1]
            dz = pos[i, 2] - pos[j, 2]
            r2 = dx * dx + dy * dy + dz * dz
            if r2 < h2:
                rho[i] += mass * norm * (h2 - r2) ** 3
    return rho


def ising_metropolis(spins, rand, beta):
    s = spins.copy()
    L = s.shape[0]
    sweeps = rand.shape[0]
    accepted = 0
    for t in range(sweeps):
        for i in range(L):
            for j in range(L):
                nb = s[(i + 1) % L, j] + s[(i - 1) % L, j] + s[i, (j + 1) % L] + s[i, (j - 1) % L]
                dE = 2 * s[i, j] * nb
                if dE <= 0 or rand[t, i, j] < np.exp(-beta * dE):
                    s[i, j] = -s[i, j]
                    accepted += 1
    return s, accepted, s.mean()


def chain_forces(x, k):
    f = np.zeros_like(x)
    f[1:-1] = k * (x[2:] - 2 * x[1:-1] + x[:-2])
    return f


def velocity_verlet(x, v, k, dt, steps):
    x = x.copy()
    v = v.copy()
    a = chain_forces(x, k)
    energies = np.empty(steps)
    for s in range(steps):
        x += v * dt + 0.5 * a * dt * dt
        a_new = chain_forces(x, k)
        v += 0.5 * (a + a_new) * dt
        a = a_new
        energies[s] = 0.5 * np.sum(v * v) + 0.5 * k * np.sum(np.diff(x) ** 2)
    return x, v, energies


def thomas_solve(a, b, c, d):
    n = len(d)
    cp = np.empty(n)
    dp = np.empty(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.empty(n)
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def implicit_heat(u0, r, steps):
    n = len(u0)
    a = np.full(n, -r)
    b = np.full(n, 1 + 2 * r)
    c = np.full(n, -r)
    a[0] = 0.0
    c[-1] = 0.0
    u = u0.copy()
    for _ in range(steps):
        u = thomas_solve(a, b, c, u)
    return u


def f_romberg(x):
    return math.exp(-x * x) * math.cos(3 * x)


def trapezoid(a, b, n):
    h = (b - a) / n
    s = 0.5 * (f_romberg(a) + f_romberg(b))
    for i in range(1, n):
        s += f_romberg(a + i * h)
    return s * h


def romberg(a, b, levels):
    R = np.zeros((levels, levels))
    for i in range(levels):
        R[i, 0] = trapezoid(a, b, 2 ** i)
        for j in range(1, i + 1):
            R[i, j] = R[i, j - 1] + (R[i, j - 1] - R[i - 1, j - 1]) / (4 ** j - 1)
    return R[levels - 1, levels - 1]


def lu_pivot(A):
    A = A.copy()
    n = A.shape[0]
    perm = np.arange(n)
    for k in range(n - 1):
        p = k + np.argmax(np.abs(A[k:, k]))
        if p != k:
            tmp = A[k].copy()
            A[k] = A[p]
            A[p] = tmp
            perm[k], perm[p] = perm[p], perm[k]
        for i in range(k + 1, n):
            A[i, k] /= A[k, k]
            for j in range(k + 1, n):
                A[i, j] -= A[i, k] * A[k, j]
    return A, perm


def givens_qr(A):
    m, n = A.shape
    R = A.copy()
    Q = np.eye(m)
    for j in range(n):
        for i in range(m - 1, j, -1):
            a, b = R[i - 1, j], R[i, j]
            if b == 0.0:
                continue
            r = np.hypot(a, b)
            c, s = a / r, -b / r
            G = np.array([[c, -s], [s, c]])
            R[i - 1:i + 1, :] = G @ R[i - 1:i + 1, :]
            Q[:, i - 1:i + 1] = Q[:, i - 1:i + 1] @ G.T
    return Q, R


def jacobi_eigenvalues(A, sweeps):
    A = A.copy()
    n = A.shape[0]
    for _ in range(sweeps):
        off = 0.0
        for p in range(n):
            for q in range(p + 1, n):
                off += A[p, q] ** 2
        if off < 1e-20:
            break
        for p in range(n - 1):
            for q in range(p + 1, n):
                if abs(A[p, q]) < 1e-15:
                    continue
                theta = (A[q, q] - A[p, p]) / (2 * A[p, q])
                t = np.sign(theta) / (abs(theta) + np.sqrt(theta * theta + 1))
                if theta == 0:
                    t = 1.0
                c = 1 / np.sqrt(t * t + 1)
                s = t * c
                for k in range(n):
                    akp, akq = A[k, p], A[k, q]
                    A[k, p] = c * akp - s * akq
                    A[k, q] = s * akp + c * akq
                for k in range(n):
                    apk, aqk = A[p, k], A[q, k]
                    A[p, k] = c * apk - s * aqk
                    A[q, k] = s * apk + c * aqk
    return np.sort(np.diag(A))


def horner_2d(coeffs, x, y):
    m, n = coeffs.shape
    out = np.empty_like(x)
    for k in range(len(x)):
        acc = 0.0
        for i in range(m - 1, -1, -1):
            row = 0.0
            for j in range(n - 1, -1, -1):
                row = row * y[k] + coeffs[i, j]
            acc = acc * x[k] + row
        out[k] = acc
    return out
