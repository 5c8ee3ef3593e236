"""Numerical-methods textbook exercises written the way students and their teachers write
them (first part): Romberg tables and adaptive quadrature, ODE solvers with step control,
root finders, minimisers and interpolation."""

import math

import numpy as np


# ---------------------------------------------------------------- quadrature

def _bump(x, c):
    return np.exp(-c[0] * x * x) * np.cos(c[1] * x)


def romberg_table(c, a, b, levels):
    """Romberg integration of exp(-c0 x^2) cos(c1 x); returns the best value and the table."""
    R = np.zeros((levels, levels))
    h = b - a
    R[0, 0] = 0.5 * h * (_bump(a, c) + _bump(b, c))
    for i in range(1, levels):
        h = h / 2
        x = a + h * np.arange(1, 2 ** i, 2)
        R[i, 0] = 0.5 * R[i - 1, 0] + h * np.sum(_bump(x, c))
        for j in range(1, i + 1):
            R[i, j] = R[i, j - 1] + (R[i, j - 1] - R[i - 1, j - 1]) / (4 ** j - 1)
    return R[levels - 1, levels - 1], R


def adaptive_simpson_stack(coef, a, b, tol, max_intervals):
    """Adaptive Simpson with an explicit stack of intervals; the integrand is scalar."""
    def f(x):
        return math.exp(-x) * math.sin(coef[0] * x) + coef[1] * x * x

    fa, fb, fm = f(a), f(b), f((a + b) / 2)
    whole = (b - a) / 6 * (fa + 4 * fm + fb)
    stack = [(a, b, fa, fm, fb, whole, tol)]
    total = 0.0
    used = 0
    while stack:
        lo, hi, flo, fmid, fhi, S, eps = stack.pop()
        mid = (lo + hi) / 2
        fl = f((lo + mid) / 2)
        fr = f((mid + hi) / 2)
        left = (mid - lo) / 6 * (flo + 4 * fl + fmid)
        right = (hi - mid) / 6 * (fmid + 4 * fr + fhi)
        used += 1
        if abs(left + right - S) <= 15 * eps or used >= max_intervals:
            total += left + right + (left + right - S) / 15
        else:
            stack.append((lo, mid, flo, fl, fmid, left, eps / 2))
            stack.append((mid, hi, fmid, fr, fhi, right, eps / 2))
    return total, used


def gauss_legendre_rule(n, poly):
    """Nodes by Newton on the three-term recurrence, one root at a time; integrates a
    polynomial (coefficients, highest first) over [-1, 1]."""
    x = np.zeros(n)
    w = np.zeros(n)
    for i in range(n):
        z = math.cos(math.pi * (i + 0.75) / (n + 0.5))
        for it in range(100):
            p0, p1 = 1.0, z
            for k in range(2, n + 1):
                p0, p1 = p1, ((2 * k - 1) * z * p1 - (k - 1) * p0) / k
            dp = n * (z * p1 - p0) / (z * z - 1)
            dz = p1 / dp
            z = z - dz
            if abs(dz) < 1e-15:
                break
        x[i] = z
        w[i] = 2 / ((1 - z * z) * dp * dp)
    return x, w, np.sum(w * np.polyval(poly, x))


def gauss_legendre_vectorized(n, a, b, c):
    """All roots at once: Newton until the largest step is small, then the mapped rule."""
    i = np.arange(1, n + 1)
    z = np.cos(np.pi * (i - 0.25) / (n + 0.5))
    delta = 1.0
    while delta > 1e-14:
        p0 = np.ones_like(z)
        p1 = z.copy()
        for k in range(2, n + 1):
            p2 = ((2 * k - 1) * z * p1 - (k - 1) * p0) / k
            p0, p1 = p1, p2
        dp = n * (z * p1 - p0) / (z ** 2 - 1)
        step = p1 / dp
        z -= step
        delta = np.max(np.abs(step))
    w = 2 / ((1 - z ** 2) * dp ** 2)
    t = 0.5 * (b - a) * z + 0.5 * (b + a)
    return 0.5 * (b - a) * np.sum(w * _bump(t, c))


def trapezoid_f32(y, h):
    """Composite trapezoid and Simpson 3/8 on float32 samples with Python float sums."""
    n = len(y) - 1
    trap = 0.5 * (float(y[0]) + float(y[n]))
    for i in range(1, n):
        trap += float(y[i])
    trap *= h
    m = n - n % 3
    s38 = float(y[0] + y[m])
    for i in range(1, m):
        s38 += (2.0 if i % 3 == 0 else 3.0) * y[i]
    return trap, 3 * h / 8 * s38


def richardson_derivative(x, h0, levels):
    """d/dx of sin(x) exp(-x/4) by central differences and a Richardson table per point."""
    out = np.empty_like(x)
    for p in range(len(x)):
        D = np.zeros((levels, levels))
        h = h0
        for i in range(levels):
            xp, xm = x[p] + h, x[p] - h
            D[i, 0] = (np.sin(xp) * np.exp(-xp / 4) - np.sin(xm) * np.exp(-xm / 4)) / (2 * h)
            for j in range(1, i + 1):
                D[i, j] = D[i, j - 1] + (D[i, j - 1] - D[i - 1, j - 1]) / (4.0 ** j - 1)
            h /= 2
        out[p] = D[levels - 1, levels - 1]
    return out


# ---------------------------------------------------------------- ODEs with step control

def _vdp(t, y, mu):
    return np.array([y[1], mu * (1 - y[0] ** 2) * y[1] - y[0]])


def rkf45_van_der_pol(y0, mu, t_end, tol, h):
    """Runge-Kutta-Fehlberg 4(5) with accept/reject in a `while t < t_end` loop."""
    t = 0.0
    y = y0.copy()
    accepted = rejected = 0
    while t < t_end:
        if t + h > t_end:
            h = t_end - t
        k1 = h * _vdp(t, y, mu)
        k2 = h * _vdp(t + h / 4, y + k1 / 4, mu)
        k3 = h * _vdp(t + 3 * h / 8, y + 3 * k1 / 32 + 9 * k2 / 32, mu)
        k4 = h * _vdp(t + 12 * h / 13, y + 1932 * k1 / 2197 - 7200 * k2 / 2197 + 7296 * k3 / 2197, mu)
        k5 = h * _vdp(t + h, y + 439 * k1 / 216 - 8 * k2 + 3680 * k3 / 513 - 845 * k4 / 4104, mu)
        k6 = h * _vdp(t + h / 2, y - 8 * k1 / 27 + 2 * k2 - 3544 * k3 / 2565
                      + 1859 * k4 / 4104 - 11 * k5 / 40, mu)
        y4 = y + 25 * k1 / 216 + 1408 * k3 / 2565 + 2197 * k4 / 4104 - k5 / 5
        y5 = y + 16 * k1 / 135 + 6656 * k3 / 12825 + 28561 * k4 / 56430 - 9 * k5 / 50 + 2 * k6 / 55
        err = np.max(np.abs(y5 - y4))
        if err <= tol:
            t += h
            y = y4
            accepted += 1
        else:
            rejected += 1
        s = 0.84 * (tol / max(err, 1e-16)) ** 0.25
        h *= min(max(s, 0.1), 4.0)
    return y, accepted, rejected


_DP_A = np.array([[0, 0, 0, 0, 0, 0],
                  [1 / 5, 0, 0, 0, 0, 0],
                  [3 / 40, 9 / 40, 0, 0, 0, 0],
                  [44 / 45, -56 / 15, 32 / 9, 0, 0, 0],
                  [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0],
                  [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0]])
_DP_C = np.array([0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1])
_DP_B5 = np.array([35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0])
_DP_B4 = np.array([5179 / 57600, 0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40])


def _lorenz(y, p):
    return np.array([p[0] * (y[1] - y[0]), y[0] * (p[1] - y[2]) - y[1], y[0] * y[1] - p[2] * y[2]])


def dormand_prince_lorenz(y0, p, t_end, rtol, atol, max_steps):
    """Dormand-Prince 5(4) with a Butcher tableau in arrays, RMS error norm and FSAL."""
    t, h = 0.0, 0.01
    y = y0.astype(np.float64)
    K = np.zeros((7, len(y)))
    K[0] = _lorenz(y, p)
    steps = 0
    ts = [t]
    while t < t_end and steps < max_steps:
        h = min(h, t_end - t)
        for s in range(1, 7):
            yi = y + h * (_DP_A[s - 1, :s] @ K[:s]) if s < 6 else y + h * (_DP_A[5] @ K[:6])
            K[s] = _lorenz(yi, p)
        y_new = y + h * (_DP_B5 @ K)
        err = h * ((_DP_B5 - _DP_B4) @ K)
        sc = atol + rtol * np.maximum(np.abs(y), np.abs(y_new))
        e = np.sqrt(np.mean((err / sc) ** 2))
        if e <= 1.0:
            t += h
            y = y_new
            K[0] = K[6]
            ts.append(t)
        h = h * min(5.0, max(0.2, 0.9 * e ** -0.2)) if e > 0 else h * 5.0
        steps += 1
    return y, np.array(ts), steps


def heun_euler_adaptive(y0, k, t_end, tol):
    """Heun/Euler embedded pair for decay with forcing, vector state, float results list."""
    t, h = 0.0, 0.1
    y = y0.copy()
    hs = []
    while t < t_end - 1e-12:
        h = min(h, t_end - t)
        f0 = -k * y + np.sin(t)
        ye = y + h * f0
        f1 = -k * ye + np.sin(t + h)
        yh = y + h / 2 * (f0 + f1)
        err = np.linalg.norm(yh - ye) / np.sqrt(len(y))
        if err < tol:
            t += h
            y = yh
            hs.append(h)
        h *= 0.9 * math.sqrt(tol / (err + 1e-300))
    return y, len(hs), min(hs), max(hs)


# ---------------------------------------------------------------- root finding

def _cubic_f(x, c):
    return ((c[0] * x + c[1]) * x + c[2]) * x + c[3]


def bisection_vectorized(lo, hi, c, iters):
    """Many brackets bisected at once with np.where."""
    a, b = lo.copy(), hi.copy()
    fa = _cubic_f(a, c)
    for _ in range(iters):
        m = 0.5 * (a + b)
        fm = _cubic_f(m, c)
        same = np.sign(fm) == np.sign(fa)
        a = np.where(same, m, a)
        fa = np.where(same, fm, fa)
        b = np.where(same, b, m)
    return 0.5 * (a + b)


def secant_many(targets, tol, max_iter):
    """Solve x^3 + x = t for each t by the secant method; iteration counts too."""
    roots = np.empty_like(targets)
    counts = np.zeros(len(targets), dtype=np.int64)
    for i, t in enumerate(targets):
        x0, x1 = 0.0, 1.0
        f0 = x0 ** 3 + x0 - t
        f1 = x1 ** 3 + x1 - t
        it = 0
        while abs(f1) > tol and it < max_iter:
            x0, x1 = x1, x1 - f1 * (x1 - x0) / (f1 - f0)
            f0, f1 = f1, x1 ** 3 + x1 - t
            it += 1
        roots[i] = x1
        counts[i] = it
    return roots, counts


def _horner(coef, x):
    s = 0.0
    for c in coef:
        s = s * x + c
    return s


def brent_root(coef, a, b, tol):
    """Brent's method (inverse quadratic interpolation, secant, bisection)."""
    fa, fb = _horner(coef, a), _horner(coef, b)
    if fa * fb > 0:
        return math.nan, 0
    if abs(fa) < abs(fb):
        a, b, fa, fb = b, a, fb, fa
    c, fc = a, fa
    mflag = True
    d = 0.0
    it = 0
    while fb != 0 and abs(b - a) > tol and it < 100:
        if fa != fc and fb != fc:
            s = (a * fb * fc / ((fa - fb) * (fa - fc)) + b * fa * fc / ((fb - fa) * (fb - fc))
                 + c * fa * fb / ((fc - fa) * (fc - fb)))
        else:
            s = b - fb * (b - a) / (fb - fa)
        cond = ((s - (3 * a + b) / 4) * (s - b) >= 0
                or (mflag and abs(s - b) >= abs(b - c) / 2)
                or (not mflag and abs(s - b) >= abs(c - d) / 2)
                or (mflag and abs(b - c) < tol)
                or (not mflag and abs(c - d) < tol))
        if cond:
            s = (a + b) / 2
            mflag = True
        else:
            mflag = False
        fs = _horner(coef, s)
        d, c, fc = c, b, fb
        if fa * fs < 0:
            b, fb = s, fs
        else:
            a, fa = s, fs
        if abs(fa) < abs(fb):
            a, b, fa, fb = b, a, fb, fa
        it += 1
    return b, it


def newton_system(x0, p, tol=1e-12, max_iter=50):
    """Newton on three equations with a hand-written Jacobian."""
    x = x0.copy()
    for it in range(max_iter):
        F = np.array([x[0] ** 2 + x[1] ** 2 + x[2] ** 2 - p[0],
                      x[0] * x[1] - p[1] * x[2],
                      np.exp(x[0]) - x[1] - p[2]])
        J = np.array([[2 * x[0], 2 * x[1], 2 * x[2]],
                      [x[1], x[0], -p[1]],
                      [np.exp(x[0]), -1.0, 0.0]])
        dx = np.linalg.solve(J, -F)
        x += dx
        if np.linalg.norm(dx) < tol:
            return x, it + 1
    return x, max_iter


def regula_falsi_illinois(lo, hi, shifts, tol):
    """Illinois false position for cos(x) = s x, one bracket per shift."""
    out = np.zeros(len(shifts))
    for k in range(len(shifts)):
        s = shifts[k]
        a, b = lo, hi
        fa, fb = math.cos(a) - s * a, math.cos(b) - s * b
        side = 0
        for _ in range(200):
            c = (a * fb - b * fa) / (fb - fa)
            fc = math.cos(c) - s * c
            if abs(fc) < tol:
                break
            if fc * fb > 0:
                b, fb = c, fc
                if side == -1:
                    fa /= 2
                side = -1
            else:
                a, fa = c, fc
                if side == 1:
                    fb /= 2
                side = 1
        out[k] = c
    return out


def steffensen_fixed_point(c, x0, tol):
    """Fixed points of x = cos(c x) by Steffensen's acceleration, element by element."""
    x = x0.astype(np.float64)
    iters = np.zeros(x.shape, dtype=np.int32)
    for i in range(x.size):
        p = x[i]
        for k in range(100):
            p1 = math.cos(c[i] * p)
            p2 = math.cos(c[i] * p1)
            denom = p2 - 2 * p1 + p
            if denom == 0:
                break
            pn = p - (p1 - p) ** 2 / denom
            iters[i] += 1
            if abs(pn - p) < tol:
                p = pn
                break
            p = pn
        x[i] = p
    return x, iters


# ---------------------------------------------------------------- minimisation

def golden_section_batch(centers, width, tol):
    """Golden-section search for many 1-d problems at once."""
    invphi = (math.sqrt(5) - 1) / 2
    a = centers - width
    b = centers + width
    c = b - invphi * (b - a)
    d = a + invphi * (b - a)

    def f(x):
        return (x - centers) ** 2 + 0.3 * np.sin(5 * x)
    while np.max(b - a) > tol:
        left = f(c) < f(d)
        b = np.where(left, d, b)
        a = np.where(left, a, c)
        c = b - invphi * (b - a)
        d = a + invphi * (b - a)
    return (a + b) / 2


def _himmelblau(x):
    return (x[0] ** 2 + x[1] - 11) ** 2 + (x[0] + x[1] ** 2 - 7) ** 2


def nelder_mead_tol(x0, step, tol, max_iter):
    """Nelder-Mead on a (3, 2) simplex array until the spread of values is small."""
    n = len(x0)
    simplex = np.empty((n + 1, n))
    simplex[0] = x0
    for i in range(n):
        simplex[i + 1] = x0
        simplex[i + 1, i] += step
    fvals = np.array([_himmelblau(v) for v in simplex])
    it = 0
    while np.std(fvals) > tol and it < max_iter:
        order = np.argsort(fvals)
        simplex, fvals = simplex[order], fvals[order]
        centroid = simplex[:-1].mean(axis=0)
        xr = centroid + (centroid - simplex[-1])
        fr = _himmelblau(xr)
        if fr < fvals[0]:
            xe = centroid + 2 * (centroid - simplex[-1])
            fe = _himmelblau(xe)
            if fe < fr:
                simplex[-1], fvals[-1] = xe, fe
            else:
                simplex[-1], fvals[-1] = xr, fr
        elif fr < fvals[-2]:
            simplex[-1], fvals[-1] = xr, fr
        else:
            xc = centroid + 0.5 * (simplex[-1] - centroid)
            fc = _himmelblau(xc)
            if fc < fvals[-1]:
                simplex[-1], fvals[-1] = xc, fc
            else:
                for i in range(1, n + 1):
                    simplex[i] = simplex[0] + 0.5 * (simplex[i] - simplex[0])
                    fvals[i] = _himmelblau(simplex[i])
        it += 1
    best = np.argmin(fvals)
    return simplex[best], fvals[best], it


def _obj_grad(x, A, b):
    r = A @ x - b
    f = 0.5 * r @ r + np.sum(np.log(np.cosh(x)))
    g = A.T @ r + np.tanh(x)
    return f, g


def bfgs_backtracking(A, b, x0, tol, max_iter):
    """BFGS with the inverse-Hessian update and an Armijo backtracking line search."""
    n = len(x0)
    x = x0.copy()
    H = np.eye(n)
    f, g = _obj_grad(x, A, b)
    k = 0
    while np.linalg.norm(g) > tol and k < max_iter:
        p = -H @ g
        alpha = 1.0
        while True:
            f_new, g_new = _obj_grad(x + alpha * p, A, b)
            if f_new <= f + 1e-4 * alpha * (g @ p) or alpha < 1e-10:
                break
            alpha *= 0.5
        s = alpha * p
        y = g_new - g
        sy = s @ y
        if sy > 1e-12:
            rho = 1.0 / sy
            I = np.eye(n)
            H = (I - rho * np.outer(s, y)) @ H @ (I - rho * np.outer(y, s)) + rho * np.outer(s, s)
        x = x + s
        f, g = f_new, g_new
        k += 1
    return x, f, k


def steepest_descent_exact(A, b, x, tol):
    """Steepest descent with the exact step for a quadratic; residual norms as a list."""
    r = b - A @ x
    history = []
    while math.sqrt(r @ r) > tol:
        Ar = A @ r
        alpha = (r @ r) / (r @ Ar)
        x = x + alpha * r
        r = r - alpha * Ar
        history.append(math.sqrt(r @ r))
        if len(history) >= 500:
            break
    return x, history


# ---------------------------------------------------------------- interpolation

def _tridiag_solve(sub, diag, sup, rhs):
    n = len(diag)
    c = np.zeros(n)
    d = np.zeros(n)
    c[0] = sup[0] / diag[0]
    d[0] = rhs[0] / diag[0]
    for i in range(1, n):
        m = diag[i] - sub[i] * c[i - 1]
        c[i] = sup[i] / m if i < n - 1 else 0.0
        d[i] = (rhs[i] - sub[i] * d[i - 1]) / m
    x = np.zeros(n)
    x[-1] = d[-1]
    for i in range(n - 2, -1, -1):
        x[i] = d[i] - c[i] * x[i + 1]
    return x


def natural_spline_scan(x, y, xq):
    """Natural cubic spline: second derivatives by a tridiagonal solve, evaluation with a
    walking interval index (queries sorted)."""
    n = len(x)
    h = np.diff(x)
    sub = np.zeros(n)
    diag = np.ones(n)
    sup = np.zeros(n)
    rhs = np.zeros(n)
    for i in range(1, n - 1):
        sub[i] = h[i - 1]
        diag[i] = 2 * (h[i - 1] + h[i])
        sup[i] = h[i]
        rhs[i] = 6 * ((y[i + 1] - y[i]) / h[i] - (y[i] - y[i - 1]) / h[i - 1])
    M = _tridiag_solve(sub, diag, sup, rhs)
    out = np.empty(len(xq))
    k = 0
    for j in range(len(xq)):
        while k < n - 2 and xq[j] > x[k + 1]:
            k += 1
        t1 = x[k + 1] - xq[j]
        t0 = xq[j] - x[k]
        out[j] = (M[k] * t1 ** 3 + M[k + 1] * t0 ** 3) / (6 * h[k]) \
            + (y[k] / h[k] - M[k] * h[k] / 6) * t1 + (y[k + 1] / h[k] - M[k + 1] * h[k] / 6) * t0
    return out


def neville(xs, ys, xq):
    """Neville's tableau for each query, with the last correction as an error estimate."""
    n = len(xs)
    vals = np.empty(len(xq))
    errs = np.empty(len(xq))
    for q in range(len(xq)):
        p = ys.copy()
        for k in range(1, n):
            for i in range(n - k):
                p[i] = ((xq[q] - xs[i + k]) * p[i] + (xs[i] - xq[q]) * p[i + 1]) / (xs[i] - xs[i + k])
            if k == n - 1:
                errs[q] = abs(p[0] - p[1]) if n > 2 else 0.0
        vals[q] = p[0]
    return vals, errs


def newton_divided_differences(xs, ys, xq):
    """Divided-difference coefficients in place, then nested evaluation."""
    coef = ys.astype(np.float64)
    n = len(xs)
    for j in range(1, n):
        coef[j:] = (coef[j:] - coef[j - 1:-1]) / (xs[j:] - xs[:n - j])
    result = np.full(xq.shape, coef[-1])
    for k in range(n - 2, -1, -1):
        result = result * (xq - xs[k]) + coef[k]
    return coef, result


def barycentric_cheb2(fvals, xq):
    """Barycentric Lagrange at Chebyshev points of the second kind; exact hits handled."""
    n = len(fvals) - 1
    xj = np.cos(np.pi * np.arange(n + 1) / n)
    w = (-1.0) ** np.arange(n + 1)
    w[0] *= 0.5
    w[-1] *= 0.5
    diff = xq[:, None] - xj[None, :]
    exact = diff == 0
    diff[exact] = 1.0
    t = w / diff
    vals = (t @ fvals) / t.sum(axis=1)
    hit_rows, hit_cols = np.nonzero(exact)
    vals[hit_rows] = fvals[hit_cols]
    return vals


def chebyshev_clenshaw(n, xq, a, b):
    """Chebyshev coefficients of exp(x) sin(3x) on [a, b] from samples at Chebyshev nodes,
    evaluated by Clenshaw's recurrence point by point."""
    k = np.arange(n)
    nodes = np.cos(np.pi * (k + 0.5) / n)
    fx = np.exp(0.5 * (b - a) * nodes + 0.5 * (b + a)) * np.sin(3 * (0.5 * (b - a) * nodes + 0.5 * (b + a)))
    c = np.zeros(n)
    for j in range(n):
        c[j] = 2.0 / n * np.sum(fx * np.cos(np.pi * j * (k + 0.5) / n))
    out = np.zeros_like(xq)
    for i in range(len(xq)):
        y = (2 * xq[i] - a - b) / (b - a)
        b1 = b2 = 0.0
        for j in range(n - 1, 0, -1):
            b1, b2 = 2 * y * b1 - b2 + c[j], b1
        out[i] = y * b1 - b2 + 0.5 * c[0]
    return c, out
