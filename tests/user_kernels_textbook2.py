"""Numerical-methods textbook exercises written the way students and their teachers write
them (second part): FFTs on split real/imaginary arrays, special functions by series and
continued fractions, quasi-random sequences, Monte Carlo with a Generator, eigenvalue
iterations, orthogonal factorisations and shooting for boundary-value problems."""

import math

import numpy as np
from user_kernels_textbook import _tridiag_solve

# ---------------------------------------------------------------- FFT

def fft_inplace_split(re, im):
    """Iterative radix-2 FFT on separate real/imaginary arrays, in place (bit reversal by
    an integer digit loop, twiddles by math.cos/sin)."""
    n = len(re)
    bits = n.bit_length() - 1
    for i in range(n):
        j, k = 0, i
        for _ in range(bits):
            j = (j << 1) | (k & 1)
            k >>= 1
        if j > i:
            re[i], re[j] = re[j], re[i]
            im[i], im[j] = im[j], im[i]
    size = 2
    while size <= n:
        half = size // 2
        ang = -2 * math.pi / size
        for start in range(0, n, size):
            for m in range(half):
                wr, wi = math.cos(ang * m), math.sin(ang * m)
                a, b = start + m, start + m + half
                tr = wr * re[b] - wi * im[b]
                ti = wr * im[b] + wi * re[b]
                re[b] = re[a] - tr
                im[b] = im[a] - ti
                re[a] += tr
                im[a] += ti
        size *= 2


def fft_stages_vectorized(x):
    """Radix-2 FFT of a real signal with each stage's butterflies as array slices."""
    n = len(x)
    levels = int(math.log2(n))
    idx = np.arange(n)
    rev = np.zeros(n, dtype=np.int64)
    for b in range(levels):
        rev |= ((idx >> b) & 1) << (levels - 1 - b)
    re = x[rev].astype(np.float64)
    im = np.zeros(n)
    half = 1
    while half < n:
        w_re = np.cos(-np.pi * np.arange(half) / half)
        w_im = np.sin(-np.pi * np.arange(half) / half)
        re = re.reshape(-1, 2 * half)
        im = im.reshape(-1, 2 * half)
        er, ei = re[:, :half].copy(), im[:, :half].copy()
        orr, oi = re[:, half:], im[:, half:]
        tr = w_re * orr - w_im * oi
        ti = w_re * oi + w_im * orr
        re = np.concatenate([er + tr, er - tr], axis=1).ravel()
        im = np.concatenate([ei + ti, ei - ti], axis=1).ravel()
        half *= 2
    return re, im


def fft_complex_iterative(x):
    """The same algorithm on a complex128 array."""
    n = len(x)
    a = x.astype(np.complex128)
    j = 0
    for i in range(1, n):
        bit = n >> 1
        while j & bit:
            j ^= bit
            bit >>= 1
        j ^= bit
        if i < j:
            a[i], a[j] = a[j], a[i]
    length = 2
    while length <= n:
        w = np.exp(-2j * np.pi * np.arange(length // 2) / length)
        for s in range(0, n, length):
            u = a[s:s + length // 2].copy()
            v = a[s + length // 2:s + length] * w
            a[s:s + length // 2] = u + v
            a[s + length // 2:s + length] = u - v
        length <<= 1
    return a


def power_spectrum_split(x):
    re, im = fft_stages_vectorized(x)
    return (re ** 2 + im ** 2)[:len(x) // 2 + 1] / len(x)


# ---------------------------------------------------------------- special functions

def erf_series_cf(x):
    """erf by the Taylor series for |x| < 2.5 and erfc by a Lentz continued fraction."""
    out = np.empty_like(x)
    for i in range(len(x)):
        z = abs(x[i])
        if z < 2.5:
            term = z
            s = z
            n = 0
            while abs(term) > 1e-17 * abs(s):
                n += 1
                term *= -z * z / n
                s += term / (2 * n + 1)
            val = 2 / math.sqrt(math.pi) * s
        else:
            tiny = 1e-300
            f = z if z != 0 else tiny
            C, D = f, 0.0
            for k in range(1, 200):
                a = k / 2
                D = z + a * D
                D = tiny if D == 0 else D
                C = z + a / C
                C = tiny if C == 0 else C
                D = 1 / D
                delta = C * D
                f *= delta
                if abs(delta - 1) < 1e-16:
                    break
            val = 1 - math.exp(-z * z) / math.sqrt(math.pi) / f
        out[i] = val if x[i] >= 0 else -val
    return out


def bessel_j01_series(x):
    """J0 and J1 by their power series, terms until they stop mattering."""
    j0 = np.zeros_like(x)
    j1 = np.zeros_like(x)
    for i, xi in enumerate(x):
        q = -(xi * xi) / 4
        t0, s0 = 1.0, 1.0
        t1, s1 = xi / 2, xi / 2
        k = 1
        while abs(t0) > 1e-16 * max(abs(s0), 1e-300) or abs(t1) > 1e-16 * max(abs(s1), 1e-300):
            t0 *= q / (k * k)
            t1 *= q / (k * (k + 1))
            s0 += t0
            s1 += t1
            k += 1
            if k > 300:
                break
        j0[i], j1[i] = s0, s1
    return j0, j1


def bessel_miller(x, nmax):
    """J_0..J_nmax at one x by Miller's backward recurrence, normalised by
    J0 + 2 (J2 + J4 + ...) = 1."""
    start = 2 * ((nmax + int(math.sqrt(40 * nmax))) // 2) + 20
    J = np.zeros(start + 2)
    J[start] = 1e-30
    for n in range(start, 0, -1):
        J[n - 1] = 2 * n / x * J[n] - J[n + 1]
        if abs(J[n - 1]) > 1e250:
            J[n - 1:] *= 1e-250
    norm = J[0] + 2 * np.sum(J[2::2])
    return J[:nmax + 1] / norm


_LANCZOS = np.array([0.99999999999980993, 676.5203681218851, -1259.1392167224028,
                     771.32342877765313, -176.61502916214059, 12.507343278686905,
                     -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7])


def lgamma_lanczos(x):
    """log|Gamma(x)| by the Lanczos g=7 approximation with the reflection formula."""
    refl = x < 0.5
    z = np.where(refl, 1 - x, x) - 1
    a = np.full_like(z, _LANCZOS[0])
    for k in range(1, 9):
        a += _LANCZOS[k] / (z + k)
    t = z + 7.5
    lg = 0.5 * np.log(2 * np.pi) + (z + 0.5) * np.log(t) - t + np.log(a)
    return np.where(refl, np.log(np.pi / np.abs(np.sin(np.pi * x))) - lg, lg)


def gammainc_lower(a, x):
    """Regularised P(a, x): series when x < a + 1, otherwise a continued fraction (NR)."""
    out = np.zeros(len(x))
    for i in range(len(x)):
        ai, xi = a[i], x[i]
        if xi <= 0:
            continue
        gln = math.lgamma(ai)
        if xi < ai + 1:
            ap, s = ai, 1.0 / ai
            d = s
            for _ in range(500):
                ap += 1
                d *= xi / ap
                s += d
                if abs(d) < abs(s) * 3e-16:
                    break
            out[i] = s * math.exp(-xi + ai * math.log(xi) - gln)
        else:
            b = xi + 1 - ai
            c = 1 / 1e-300
            d = 1 / b
            h = d
            for n in range(1, 500):
                an = -n * (n - ai)
                b += 2
                d = an * d + b
                if abs(d) < 1e-300:
                    d = 1e-300
                c = b + an / c
                if abs(c) < 1e-300:
                    c = 1e-300
                d = 1 / d
                de = d * c
                h *= de
                if abs(de - 1) < 3e-16:
                    break
            out[i] = 1 - math.exp(-xi + ai * math.log(xi) - gln) * h
    return out


# ---------------------------------------------------------------- quasi-random and Monte Carlo

def halton(n, bases):
    """Halton points: the radical inverse in each base by an integer digit loop."""
    pts = np.zeros((n, len(bases)))
    for d in range(len(bases)):
        b = int(bases[d])
        for i in range(n):
            k = i + 1
            f = 1.0
            r = 0.0
            while k > 0:
                f /= b
                r += f * (k % b)
                k //= b
            pts[i, d] = r
    return pts


def van_der_corput_vec(n, base):
    """Radical inverse of 0..n-1 in one base, all digits of all indices at once."""
    k = np.arange(n, dtype=np.int64)
    result = np.zeros(n)
    scale = 1.0 / base
    while np.any(k > 0):
        result += (k % base) * scale
        k //= base
        scale /= base
    return result


def mc_gaussian_integral(rng, n, dim):
    """Monte Carlo for the integral of exp(-|x|^2) over the unit cube, with its error."""
    x = rng.random((n, dim))
    f = np.exp(-np.sum(x * x, axis=1))
    mean = f.mean()
    return mean, f.std(ddof=1) / math.sqrt(n)


def mc_hit_or_miss_batches(rng, batches, per_batch):
    """pi by hit-or-miss in batches, a Python int counter and a list of running estimates."""
    inside = 0
    estimates = []
    for k in range(batches):
        pts = rng.uniform(-1.0, 1.0, size=(per_batch, 2))
        inside += int(np.count_nonzero((pts ** 2).sum(axis=1) <= 1.0))
        estimates.append(4.0 * inside / ((k + 1) * per_batch))
    return estimates[-1], np.array(estimates)


def mc_antithetic(rng, n, mu, sigma):
    """E[exp(mu + sigma Z)] with antithetic variates."""
    z = rng.standard_normal(n)
    pair = 0.5 * (np.exp(mu + sigma * z) + np.exp(mu - sigma * z))
    return pair.mean(), pair.var() / n


# ---------------------------------------------------------------- eigenvalues and factorisations

def rayleigh_quotient_iteration(A, x0, max_iter):
    """Rayleigh quotient iteration with a solve per step; stops when the residual is tiny."""
    n = A.shape[0]
    x = x0 / np.linalg.norm(x0)
    mu = x @ A @ x
    for it in range(max_iter):
        try:
            y = np.linalg.solve(A - mu * np.eye(n), x)
        except np.linalg.LinAlgError:
            break
        x = y / np.linalg.norm(y)
        mu = x @ A @ x
        if np.linalg.norm(A @ x - mu * x) < 1e-12:
            break
    return mu, x


def power_deflation_tol(A, k, tol, max_iter):
    """The k largest eigenvalues of a symmetric matrix by power iteration with Rayleigh
    quotients and Hotelling deflation."""
    B = A.copy()
    n = B.shape[0]
    vals = np.zeros(k)
    vecs = np.zeros((n, k))
    for j in range(k):
        v = np.ones(n) / math.sqrt(n)
        lam_old = 0.0
        it = 0
        while it < max_iter:
            w = B @ v
            v = w / np.linalg.norm(w)
            lam = v @ B @ v
            if abs(lam - lam_old) < tol * abs(lam):
                break
            lam_old = lam
            it += 1
        vals[j] = lam
        vecs[:, j] = v
        B -= lam * np.outer(v, v)
    return vals, vecs


def inverse_iteration_shift(A, shift, iters):
    """Inverse iteration near a shift with an LU-free solve every step."""
    n = A.shape[0]
    M = A - shift * np.eye(n)
    v = np.ones(n)
    for _ in range(iters):
        v = np.linalg.solve(M, v)
        v /= np.max(np.abs(v))
    v /= np.linalg.norm(v)
    return v @ A @ v, v


def householder_qr_explicit(A):
    """Householder QR with Q accumulated from explicit reflectors I - 2 v v^T."""
    m, n = A.shape
    R = A.astype(np.float64)
    Q = np.eye(m)
    for k in range(min(m - 1, n)):
        x = R[k:, k]
        alpha = -math.copysign(np.linalg.norm(x), x[0])
        v = x.copy()
        v[0] -= alpha
        nv = np.linalg.norm(v)
        if nv == 0:
            continue
        v /= nv
        H = np.eye(m)
        H[k:, k:] -= 2.0 * np.outer(v, v)
        R = H @ R
        Q = Q @ H
    return Q, R


def givens_least_squares(A, b):
    """Least squares by Givens rotations applied row pair by row pair, then back substitution."""
    R = A.copy()
    y = b.copy()
    m, n = R.shape
    for j in range(n):
        for i in range(m - 1, j, -1):
            a, c_ = R[i - 1, j], R[i, j]
            if c_ == 0.0:
                continue
            r = math.hypot(a, c_)
            c, s = a / r, c_ / r
            top = c * R[i - 1, j:] + s * R[i, j:]
            bottom = -s * R[i - 1, j:] + c * R[i, j:]
            R[i - 1, j:], R[i, j:] = top, bottom
            y[i - 1], y[i] = c * y[i - 1] + s * y[i], -s * y[i - 1] + c * y[i]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - R[i, i + 1:n] @ x[i + 1:]) / R[i, i]
    return x, abs(y[n:]).sum()


def sor_residual_history(A, b, omega, tol, max_iter):
    """Successive over-relaxation, in place, recording residual norms per sweep."""
    n = len(b)
    x = np.zeros(n)
    res = []
    for sweep in range(max_iter):
        for i in range(n):
            sigma = A[i, :i] @ x[:i] + A[i, i + 1:] @ x[i + 1:]
            x[i] = (1 - omega) * x[i] + omega * (b[i] - sigma) / A[i, i]
        r = np.linalg.norm(b - A @ x)
        res.append(r)
        if r < tol:
            break
    return x, np.array(res)


# ---------------------------------------------------------------- boundary-value problems

def _rk4_final(s, q, length, steps):
    """Integrate y'' = -q(x) y + 1 from y(0)=0, y'(0)=s with RK4; returns y(L) and the path."""
    h = length / steps
    y = np.array([0.0, s])
    path = np.empty(steps + 1)
    path[0] = 0.0
    for i in range(steps):
        x = i * h
        def f(xx, yy):
            return np.array([yy[1], -(1 + q * xx * xx) * yy[0] + 1.0])
        k1 = f(x, y)
        k2 = f(x + h / 2, y + h / 2 * k1)
        k3 = f(x + h / 2, y + h / 2 * k2)
        k4 = f(x + h, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        path[i + 1] = y[0]
    return y[0], path


def shooting_secant(q, length, target, steps):
    """Linear BVP by shooting: the secant method on the initial slope."""
    s0, s1 = 0.0, 1.0
    e0 = _rk4_final(s0, q, length, steps)[0] - target
    for it in range(30):
        e1, path = _rk4_final(s1, q, length, steps)
        e1 -= target
        if abs(e1) < 1e-10:
            break
        s0, s1, e0 = s1, s1 - e1 * (s1 - s0) / (e1 - e0), e1
    return s1, path


def shooting_bisection(beta, steps):
    """y'' = 1.5 y^2, y(0) = 4, y(1) = beta: bisection on y'(0) with an Euler-Cromer march."""
    h = 1.0 / steps

    def end_value(slope):
        y, v = 4.0, slope
        for _ in range(steps):
            v += h * 1.5 * y * y
            y += h * v
        return y

    lo, hi = -40.0, -5.0
    flo = end_value(lo) - beta[0]
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        fm = end_value(mid) - beta[0]
        if fm * flo > 0:
            lo, flo = mid, fm
        else:
            hi = mid
    ys = np.empty(steps + 1)
    y, v = 4.0, 0.5 * (lo + hi)
    ys[0] = y
    for i in range(steps):
        v += h * 1.5 * y * y
        y += h * v
        ys[i + 1] = y
    return 0.5 * (lo + hi), ys


def finite_difference_bvp(n, p, r):
    """-u'' + p u = r(x) on (0, 1), u(0) = u(1) = 0, central differences, Thomas solve,
    float32 right-hand side mixed with a float64 grid."""
    h = 1.0 / (n + 1)
    x = np.linspace(h, 1 - h, n)
    sub = np.full(n, -1.0)
    diag = 2.0 + p * h * h * np.ones(n)
    sup = np.full(n, -1.0)
    rhs = h * h * r * np.sin(np.pi * x)
    return x, _tridiag_solve(sub, diag, sup, rhs)
