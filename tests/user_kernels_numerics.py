"""Dense linear algebra and scalar numerics written as their users write them: eliminations
on augmented matrices, Krylov bases built column by column, Sturm counts for bisection,
compensated sums, one-dimensional searches, and special functions by series and recurrences."""

import math

import numpy as np


def gauss_jordan_inverse(A):
    n = A.shape[0]
    M = np.hstack([A.astype(np.float64), np.eye(n)])
    for col in range(n):
        p = col + np.argmax(np.abs(M[col:, col]))
        if p != col:
            M[[col, p]] = M[[p, col]]
        M[col] /= M[col, col]
        for r in range(n):
            if r != col:
                M[r] -= M[r, col] * M[col]
    return M[:, n:]


def hessenberg(A):
    H = A.copy()
    n = H.shape[0]
    for k in range(n - 2):
        x = H[k + 1:, k].copy()
        alpha = -np.sign(x[0]) * np.linalg.norm(x) if x[0] != 0 else -np.linalg.norm(x)
        v = x
        v[0] -= alpha
        vnorm = np.linalg.norm(v)
        if vnorm == 0:
            continue
        v /= vnorm
        H[k + 1:, k:] -= 2.0 * np.outer(v, v @ H[k + 1:, k:])
        H[:, k + 1:] -= 2.0 * np.outer(H[:, k + 1:] @ v, v)
    return H


def lanczos(A, v0, m):
    n = A.shape[0]
    V = np.zeros((n, m))
    alpha = np.zeros(m)
    beta = np.zeros(m)
    v = v0 / np.linalg.norm(v0)
    v_prev = np.zeros(n)
    b = 0.0
    for j in range(m):
        V[:, j] = v
        w = A @ v - b * v_prev
        alpha[j] = w @ v
        w = w - alpha[j] * v
        w -= V[:, :j + 1] @ (V[:, :j + 1].T @ w)
        b = np.linalg.norm(w)
        beta[j] = b
        if b < 1e-12:
            break
        v_prev = v
        v = w / b
    T = np.diag(alpha) + np.diag(beta[:-1], 1) + np.diag(beta[:-1], -1)
    return T, V


def inverse_iteration(A, mu, iters):
    n = A.shape[0]
    M = A - mu * np.eye(n)
    x = np.ones(n) / np.sqrt(n)
    lam = mu
    for _ in range(iters):
        y = np.linalg.solve(M, x)
        x = y / np.linalg.norm(y)
        lam = x @ A @ x
    return lam, x


def pentadiagonal_solve(e, c, d, a, f, b):
    """Rows i: e[i] x[i-2] + c[i] x[i-1] + d[i] x[i] + a[i] x[i+1] + f[i] x[i+2] = b[i]."""
    n = len(d)
    d, a, f, b = d.copy(), a.copy(), f.copy(), b.copy()
    for i in range(1, n):
        m = c[i] / d[i - 1]
        d[i] -= m * a[i - 1]
        a[i] -= m * f[i - 1]
        b[i] -= m * b[i - 1]
        if i + 1 < n:
            m2 = e[i + 1] / d[i - 1]
            c[i + 1] -= m2 * a[i - 1]
            d[i + 1] -= m2 * f[i - 1]
            b[i + 1] -= m2 * b[i - 1]
    x = np.zeros(n)
    x[n - 1] = b[n - 1] / d[n - 1]
    x[n - 2] = (b[n - 2] - a[n - 2] * x[n - 1]) / d[n - 2]
    for i in range(n - 3, -1, -1):
        x[i] = (b[i] - a[i] * x[i + 1] - f[i] * x[i + 2]) / d[i]
    return x


def gmres_small(A, b, m):
    n = len(b)
    r0 = b.copy()
    beta = np.linalg.norm(r0)
    Q = np.zeros((n, m + 1))
    H = np.zeros((m + 1, m))
    Q[:, 0] = r0 / beta
    k = m
    for j in range(m):
        w = A @ Q[:, j]
        for i in range(j + 1):
            H[i, j] = Q[:, i] @ w
            w = w - H[i, j] * Q[:, i]
        H[j + 1, j] = np.linalg.norm(w)
        if H[j + 1, j] < 1e-12:
            k = j + 1
            break
        Q[:, j + 1] = w / H[j + 1, j]
    e1 = np.zeros(k + 1)
    e1[0] = beta
    y = np.linalg.lstsq(H[:k + 1, :k], e1, rcond=None)[0]
    x = Q[:, :k] @ y
    return x, np.linalg.norm(b - A @ x)


def sturm_count(d, e, x):
    count = 0
    q = d[0] - x
    if q < 0:
        count += 1
    for i in range(1, len(d)):
        if q == 0:
            q = 1e-300
        q = d[i] - x - e[i - 1] * e[i - 1] / q
        if q < 0:
            count += 1
    return count


def tridiag_eig_bisection(d, e, tol):
    n = len(d)
    r = np.abs(e).max() * 2 + np.abs(d).max()
    eig = np.empty(n)
    for k in range(n):
        lo, hi = -r, r
        while hi - lo > tol:
            mid = 0.5 * (lo + hi)
            if sturm_count(d, e, mid) > k:
                hi = mid
            else:
                lo = mid
        eig[k] = 0.5 * (lo + hi)
    return eig


def kahan_sum(x):
    s = 0.0
    c = 0.0
    for v in x:
        y = v - c
        t = s + y
        c = (t - s) - y
        s = t
    return s


def golden_section_min(a, b, coeffs, tol):
    gr = (math.sqrt(5) - 1) / 2
    c = b - gr * (b - a)
    d = a + gr * (b - a)
    it = 0
    while abs(b - a) > tol:
        fc = np.polyval(coeffs, c)
        fd = np.polyval(coeffs, d)
        if fc < fd:
            b = d
        else:
            a = c
        c = b - gr * (b - a)
        d = a + gr * (b - a)
        it += 1
    return (a + b) / 2, it


def adaptive_simpson(freqs, a, b, tol, max_stack=200):
    stack = np.zeros((max_stack, 3))
    total = 0.0
    stack[0] = a, b, tol
    top = 1
    f = lambda t: np.sum(np.sin(freqs * t))
    while top > 0:
        top -= 1
        lo, hi, eps = stack[top]
        mid = 0.5 * (lo + hi)
        whole = (hi - lo) / 6 * (f(lo) + 4 * f(mid) + f(hi))
        lm, rm = 0.5 * (lo + mid), 0.5 * (mid + hi)
        left = (mid - lo) / 6 * (f(lo) + 4 * f(lm) + f(mid))
        right = (hi - mid) / 6 * (f(mid) + 4 * f(rm) + f(hi))
        if abs(left + right - whole) <= 15 * eps or top + 2 > max_stack:
            total += left + right + (left + right - whole) / 15
        else:
            stack[top] = lo, mid, eps / 2
            stack[top + 1] = mid, hi, eps / 2
            top += 2
    return total


def chebyshev_coeffs(fvals_at, n):
    k = np.arange(n)
    x = np.cos(np.pi * (k + 0.5) / n)
    fx = fvals_at(x)
    c = np.zeros(n)
    for j in range(n):
        c[j] = 2.0 / n * np.sum(fx * np.cos(np.pi * j * (k + 0.5) / n))
    c[0] /= 2
    return c


def chebyshev_fit_exp_sin(n):
    return chebyshev_coeffs(lambda x: np.exp(x) * np.sin(3 * x), n)


LANCZOS_G = 7
LANCZOS_C = np.array([0.99999999999980993, 676.5203681218851, -1259.1392167224028,
                      771.32342877765313, -176.61502916214059, 12.507343278686905,
                      -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7])


def lanczos_gamma(xs):
    out = np.empty_like(xs)
    for i in range(len(xs)):
        x = xs[i]
        if x < 0.5:
            out[i] = np.pi / (np.sin(np.pi * x) * gamma_pos(1 - x))
        else:
            out[i] = gamma_pos(x)
    return out


def gamma_pos(x):
    x -= 1
    a = LANCZOS_C[0]
    t = x + LANCZOS_G + 0.5
    for k in range(1, LANCZOS_G + 2):
        a += LANCZOS_C[k] / (x + k)
    return np.sqrt(2 * np.pi) * t ** (x + 0.5) * np.exp(-t) * a


def erf_series(xs, terms):
    out = np.zeros_like(xs)
    for i in range(len(xs)):
        x = xs[i]
        s = 0.0
        term = x
        for n in range(terms):
            s += term / (2 * n + 1)
            term *= -x * x / (n + 1)
        out[i] = 2.0 / np.sqrt(np.pi) * s
    return out


def legendre_table(x, nmax):
    P = np.empty((nmax + 1, len(x)))
    P[0] = 1.0
    if nmax == 0:
        return P
    P[1] = x
    for n in range(1, nmax):
        P[n + 1] = ((2 * n + 1) * x * P[n] - n * P[n - 1]) / (n + 1)
    return P
