"""PDE solvers, interpolation and numerical methods written as their users write them:
`u.copy()` per step, slices for stencils, red-black sweeps, helper functions, tuples back."""

import math

import numpy as np


def burgers_1d(u, nu, dt, dx, nt):
    u = u.copy()
    for n in range(nt):
        un = u.copy()
        u[1:-1] = (un[1:-1] - un[1:-1] * dt / dx * (un[1:-1] - un[:-2])
                   + nu * dt / dx**2 * (un[2:] - 2 * un[1:-1] + un[:-2]))
        u[0] = un[0] - un[0] * dt / dx * (un[0] - un[-2]) + nu * dt / dx**2 * (un[1] - 2 * un[0] + un[-2])
        u[-1] = u[0]
    return u


def upwind_advection(u0, c, dt, dx, nt):
    u = u0.copy()
    n = len(u)
    unew = np.empty_like(u)
    for step in range(nt):
        for i in range(n):
            if c > 0:
                unew[i] = u[i] - c * dt / dx * (u[i] - u[i - 1])
            else:
                unew[i] = u[i] - c * dt / dx * (u[(i + 1) % n] - u[i])
        u, unew = unew, u
    return u


def lax_wendroff(u0, c, nt):
    u = u0.copy()
    for _ in range(nt):
        up = np.roll(u, -1)
        um = np.roll(u, 1)
        u = u - 0.5 * c * (up - um) + 0.5 * c**2 * (up - 2 * u + um)
    return u


def shallow_water_1d(h, hu, g, dt, dx, nt):
    h = h.copy()
    hu = hu.copy()
    for _ in range(nt):
        u = hu / h
        fh = hu
        fhu = hu * u + 0.5 * g * h * h
        hn = h.copy()
        hun = hu.copy()
        hn[1:-1] = 0.5 * (h[2:] + h[:-2]) - dt / (2 * dx) * (fh[2:] - fh[:-2])
        hun[1:-1] = 0.5 * (hu[2:] + hu[:-2]) - dt / (2 * dx) * (fhu[2:] - fhu[:-2])
        hn[0], hn[-1] = hn[1], hn[-2]
        hun[0], hun[-1] = -hun[1], -hun[-2]
        h, hu = hn, hun
    return h, hu


def poisson_redblack(f, h, omega, iters):
    n, m = f.shape
    u = np.zeros((n, m))
    for it in range(iters):
        for color in range(2):
            for i in range(1, n - 1):
                for j in range(1, m - 1):
                    if (i + j) % 2 == color:
                        r = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]
                                    - h * h * f[i, j]) - u[i, j]
                        u[i, j] += omega * r
    return u


def restrict_full_weighting(fine):
    nc = (fine.shape[0] - 1) // 2 + 1
    coarse = np.zeros((nc, nc))
    for i in range(1, nc - 1):
        for j in range(1, nc - 1):
            fi, fj = 2 * i, 2 * j
            coarse[i, j] = (4 * fine[fi, fj]
                            + 2 * (fine[fi - 1, fj] + fine[fi + 1, fj] + fine[fi, fj - 1] + fine[fi, fj + 1])
                            + fine[fi - 1, fj - 1] + fine[fi - 1, fj + 1]
                            + fine[fi + 1, fj - 1] + fine[fi + 1, fj + 1]) / 16.0
    return coarse


def prolong_bilinear(coarse):
    nc = coarse.shape[0]
    nf = 2 * (nc - 1) + 1
    fine = np.zeros((nf, nf))
    fine[::2, ::2] = coarse
    fine[1::2, ::2] = 0.5 * (coarse[:-1, :] + coarse[1:, :])
    fine[::2, 1::2] = 0.5 * (coarse[:, :-1] + coarse[:, 1:])
    fine[1::2, 1::2] = 0.25 * (coarse[:-1, :-1] + coarse[1:, :-1] + coarse[:-1, 1:] + coarse[1:, 1:])
    return fine


def two_grid_correction(u, f, h):
    r = np.zeros_like(u)
    r[1:-1, 1:-1] = f[1:-1, 1:-1] - (4 * u[1:-1, 1:-1] - u[:-2, 1:-1] - u[2:, 1:-1]
                                     - u[1:-1, :-2] - u[1:-1, 2:]) / (h * h)
    rc = restrict_full_weighting(r)
    ec = rc * (2 * h) ** 2 / 4.0
    return u + prolong_bilinear(ec)


def spline_coefficients(x, y):
    n = len(x) - 1
    h = np.diff(x)
    alpha = np.zeros(n + 1)
    for i in range(1, n):
        alpha[i] = 3 / h[i] * (y[i + 1] - y[i]) - 3 / h[i - 1] * (y[i] - y[i - 1])
    l = np.ones(n + 1)
    mu = np.zeros(n + 1)
    z = np.zeros(n + 1)
    for i in range(1, n):
        l[i] = 2 * (x[i + 1] - x[i - 1]) - h[i - 1] * mu[i - 1]
        mu[i] = h[i] / l[i]
        z[i] = (alpha[i] - h[i - 1] * z[i - 1]) / l[i]
    b = np.zeros(n)
    c = np.zeros(n + 1)
    d = np.zeros(n)
    for j in range(n - 1, -1, -1):
        c[j] = z[j] - mu[j] * c[j + 1]
        b[j] = (y[j + 1] - y[j]) / h[j] - h[j] * (c[j + 1] + 2 * c[j]) / 3
        d[j] = (c[j + 1] - c[j]) / (3 * h[j])
    return b, c[:-1], d


def natural_cubic_spline(x, y, xs):
    b, c, d = spline_coefficients(x, y)
    out = np.empty(len(xs))
    for k in range(len(xs)):
        j = np.searchsorted(x, xs[k]) - 1
        if j < 0:
            j = 0
        if j > len(x) - 2:
            j = len(x) - 2
        t = xs[k] - x[j]
        out[k] = y[j] + b[j] * t + c[j] * t**2 + d[j] * t**3
    return out


def lagrange_interp(xk, yk, xs):
    n = len(xk)
    out = np.zeros_like(xs)
    for m in range(len(xs)):
        total = 0.0
        for i in range(n):
            term = yk[i]
            for j in range(n):
                if j != i:
                    term *= (xs[m] - xk[j]) / (xk[i] - xk[j])
            total += term
        out[m] = total
    return out


def barycentric_interp(xk, yk, xs):
    n = len(xk)
    w = np.ones(n)
    for j in range(n):
        for k in range(n):
            if k != j:
                w[j] /= xk[j] - xk[k]
    out = np.empty(len(xs))
    for m in range(len(xs)):
        diff = xs[m] - xk
        exact = np.abs(diff) < 1e-14
        if exact.any():
            out[m] = yk[np.argmax(exact)]
            continue
        t = w / diff
        out[m] = np.sum(t * yk) / np.sum(t)
    return out


def expm_taylor(A, terms=12):
    norm = np.max(np.sum(np.abs(A), axis=1))
    s = 0
    if norm > 0.5:
        s = int(math.ceil(math.log2(norm / 0.5)))
    X = A / 2.0**s
    E = np.eye(A.shape[0])
    term = np.eye(A.shape[0])
    for k in range(1, terms + 1):
        term = term @ X / k
        E = E + term
    for _ in range(s):
        E = E @ E
    return E


def lotka_volterra(y):
    return np.array([1.5 * y[0] - y[0] * y[1], -3.0 * y[1] + y[0] * y[1]])


def rk45_adaptive(y0, t_end, tol, h0):
    t = 0.0
    y = y0.copy()
    h = h0
    steps = 0
    rejected = 0
    while t < t_end:
        if t + h > t_end:
            h = t_end - t
        k1 = h * lotka_volterra(y)
        k2 = h * lotka_volterra(y + k1 / 4)
        k3 = h * lotka_volterra(y + 3 * k1 / 32 + 9 * k2 / 32)
        k4 = h * lotka_volterra(y + 1932 * k1 / 2197 - 7200 * k2 / 2197 + 7296 * k3 / 2197)
        k5 = h * lotka_volterra(y + 439 * k1 / 216 - 8 * k2 + 3680 * k3 / 513 - 845 * k4 / 4104)
        k6 = h * lotka_volterra(y - 8 * k1 / 27 + 2 * k2 - 3544 * k3 / 2565 + 1859 * k4 / 4104
                                - 11 * k5 / 40)
        y4 = y + 25 * k1 / 216 + 1408 * k3 / 2565 + 2197 * k4 / 4104 - k5 / 5
        y5 = y + 16 * k1 / 135 + 6656 * k3 / 12825 + 28561 * k4 / 56430 - 9 * k5 / 50 + 2 * k6 / 55
        err = np.max(np.abs(y5 - y4))
        if err <= tol:
            t += h
            y = y4
            steps += 1
        else:
            rejected += 1
        h = 0.9 * h * (tol / max(err, 1e-16)) ** 0.2
    return y, steps, rejected


def newton_2d(x0, y0, iters, tol):
    v = np.array([x0, y0])
    for it in range(iters):
        x, y = v[0], v[1]
        F = np.array([x * x + y * y - 4.0, math.exp(x) + y - 1.0])
        J = np.array([[2 * x, 2 * y], [math.exp(x), 1.0]])
        dv = np.linalg.solve(J, -F)
        v = v + dv
        if np.sqrt(dv @ dv) < tol:
            break
    return v


def legendre_nodes(n):
    x = np.cos(np.pi * (np.arange(1, n + 1) - 0.25) / (n + 0.5))
    for _ in range(50):
        p0 = np.ones(n)
        p1 = x.copy()
        for k in range(2, n + 1):
            p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
        dp = n * (x * p1 - p0) / (x * x - 1)
        x = x - p1 / dp
    w = 2 / ((1 - x * x) * dp * dp)
    return x, w


def gauss_legendre(a, b, n):
    x, w = legendre_nodes(n)
    total = 0.0
    for i in range(len(a)):
        mid = 0.5 * (a[i] + b[i])
        half = 0.5 * (b[i] - a[i])
        total += half * np.sum(w * np.exp(-(mid + half * x) ** 2))
    return total


def clenshaw_curtis(n, lo, hi):
    theta = np.pi * np.arange(n + 1) / n
    x = np.cos(theta)
    w = np.zeros(n + 1)
    for k in range(n + 1):
        s = 0.0
        for j in range(1, n // 2 + 1):
            bj = 1.0 if 2 * j == n else 2.0
            s += bj / (4 * j * j - 1) * np.cos(2 * j * theta[k])
        ck = 1.0 if (k == 0 or k == n) else 2.0
        w[k] = ck / n * (1 - s)
    t = 0.5 * (hi - lo) * x + 0.5 * (hi + lo)
    return 0.5 * (hi - lo) * np.dot(w, np.sin(t) * np.exp(-t / 3))
