"""More routines ported to NumPy from C, Fortran and MATLAB: Numerical-Recipes step control,
root finding and FFT, Fortran-order arrays with column loops outermost, output arrays passed
in and filled, `while True:` loops with `break` for `goto`, MATLAB-style column code and
Rosetta-Code tasks."""

import math

import numpy as np


# ---------------------------------------------------------------- Numerical Recipes

MU = 2.0


def _vdp_derivs(x, y, dydx):
    dydx[0] = y[1]
    dydx[1] = MU * (1.0 - y[0] * y[0]) * y[1] - y[0]


def rkck(y, dydx, n, x, h, yout, yerr):
    """One Cash-Karp Runge-Kutta step with its embedded error estimate."""
    b21, b31, b32 = 0.2, 3.0 / 40.0, 9.0 / 40.0
    b41, b42, b43 = 0.3, -0.9, 1.2
    b51, b52, b53, b54 = -11.0 / 54.0, 2.5, -70.0 / 27.0, 35.0 / 27.0
    b61, b62, b63 = 1631.0 / 55296.0, 175.0 / 512.0, 575.0 / 13824.0
    b64, b65 = 44275.0 / 110592.0, 253.0 / 4096.0
    c1, c3, c4, c6 = 37.0 / 378.0, 250.0 / 621.0, 125.0 / 594.0, 512.0 / 1771.0
    dc1, dc3 = c1 - 2825.0 / 27648.0, c3 - 18575.0 / 48384.0
    dc4, dc5, dc6 = c4 - 13525.0 / 55296.0, -277.0 / 14336.0, c6 - 0.25
    ak2 = np.zeros(n)
    ak3 = np.zeros(n)
    ak4 = np.zeros(n)
    ak5 = np.zeros(n)
    ak6 = np.zeros(n)
    ytemp = np.zeros(n)
    for i in range(n):
        ytemp[i] = y[i] + b21 * h * dydx[i]
    _vdp_derivs(x + 0.2 * h, ytemp, ak2)
    for i in range(n):
        ytemp[i] = y[i] + h * (b31 * dydx[i] + b32 * ak2[i])
    _vdp_derivs(x + 0.3 * h, ytemp, ak3)
    for i in range(n):
        ytemp[i] = y[i] + h * (b41 * dydx[i] + b42 * ak2[i] + b43 * ak3[i])
    _vdp_derivs(x + 0.6 * h, ytemp, ak4)
    for i in range(n):
        ytemp[i] = y[i] + h * (b51 * dydx[i] + b52 * ak2[i] + b53 * ak3[i] + b54 * ak4[i])
    _vdp_derivs(x + h, ytemp, ak5)
    for i in range(n):
        ytemp[i] = y[i] + h * (b61 * dydx[i] + b62 * ak2[i] + b63 * ak3[i] + b64 * ak4[i]
                               + b65 * ak5[i])
    _vdp_derivs(x + 0.875 * h, ytemp, ak6)
    for i in range(n):
        yout[i] = y[i] + h * (c1 * dydx[i] + c3 * ak3[i] + c4 * ak4[i] + c6 * ak6[i])
    for i in range(n):
        yerr[i] = h * (dc1 * dydx[i] + dc3 * ak3[i] + dc4 * ak4[i] + dc5 * ak5[i]
                       + dc6 * ak6[i])


def rkqs(y, dydx, n, x, htry, eps, yscal):
    """Fifth-order step with monitoring of the local error; y advanced in place."""
    yerr = np.zeros(n)
    ytemp = np.zeros(n)
    h = htry
    while True:
        rkck(y, dydx, n, x, h, ytemp, yerr)
        errmax = 0.0
        for i in range(n):
            errmax = max(errmax, abs(yerr[i] / yscal[i]))
        errmax /= eps
        if errmax <= 1.0:
            break
        htemp = 0.9 * h * errmax ** -0.25
        h = max(htemp, 0.1 * h) if h >= 0.0 else min(htemp, 0.1 * h)
        if x + h == x:
            raise ValueError("stepsize underflow in rkqs")
    if errmax > 1.89e-4:
        hnext = 0.9 * h * errmax ** -0.2
    else:
        hnext = 5.0 * h
    hdid = h
    x += h
    for i in range(n):
        y[i] = ytemp[i]
    return x, hdid, hnext


def rkqs_integrate(ystart, x1, x2, eps, h1):
    """odeint-style driver: adaptive steps from x1 to x2, counting good and bad steps."""
    n = ystart.shape[0]
    y = ystart.copy()
    dydx = np.zeros(n)
    yscal = np.zeros(n)
    x = x1
    h = h1
    nok = nbad = 0
    for nstp in range(10000):
        _vdp_derivs(x, y, dydx)
        for i in range(n):
            yscal[i] = abs(y[i]) + abs(dydx[i] * h) + 1.0e-30
        if (x + h - x2) * (x + h - x1) > 0.0:
            h = x2 - x
        x, hdid, hnext = rkqs(y, dydx, n, x, h, eps, yscal)
        if hdid == h:
            nok += 1
        else:
            nbad += 1
        if (x - x2) * (x2 - x1) >= 0.0:
            return y, nok, nbad
        h = hnext
    raise ValueError("Too many steps in routine odeint")


def _kepler(E, ecc, M):
    return E - ecc * math.sin(E) - M


def zbrent(ecc, M, x1, x2, tol):
    """Brent's method for a root of Kepler's equation bracketed by [x1, x2]."""
    EPS = 3.0e-8
    a = x1
    b = c = x2
    d = e = 0.0
    fa = _kepler(a, ecc, M)
    fb = _kepler(b, ecc, M)
    if (fa > 0.0 and fb > 0.0) or (fa < 0.0 and fb < 0.0):
        raise ValueError("Root must be bracketed in zbrent")
    fc = fb
    for it in range(100):
        if (fb > 0.0 and fc > 0.0) or (fb < 0.0 and fc < 0.0):
            c = a
            fc = fa
            e = d = b - a
        if abs(fc) < abs(fb):
            a = b
            b = c
            c = a
            fa = fb
            fb = fc
            fc = fa
        tol1 = 2.0 * EPS * abs(b) + 0.5 * tol
        xm = 0.5 * (c - b)
        if abs(xm) <= tol1 or fb == 0.0:
            return b
        if abs(e) >= tol1 and abs(fa) > abs(fb):
            s = fb / fa
            if a == c:
                p = 2.0 * xm * s
                q = 1.0 - s
            else:
                q = fa / fc
                r = fb / fc
                p = s * (2.0 * xm * q * (q - r) - (b - a) * (r - 1.0))
                q = (q - 1.0) * (r - 1.0) * (s - 1.0)
            if p > 0.0:
                q = -q
            p = abs(p)
            min1 = 3.0 * xm * q - abs(tol1 * q)
            min2 = abs(e * q)
            if 2.0 * p < (min1 if min1 < min2 else min2):
                e = d
                d = p / q
            else:
                d = xm
                e = d
        else:
            d = xm
            e = d
        a = b
        fa = fb
        if abs(d) > tol1:
            b += d
        else:
            b += math.copysign(tol1, xm)
        fb = _kepler(b, ecc, M)
    raise ValueError("Maximum number of iterations exceeded in zbrent")


def zbrent_kepler(means, ecc):
    """Eccentric anomalies for an array of mean anomalies, one zbrent call each."""
    out = np.zeros_like(means)
    for i in range(means.shape[0]):
        out[i] = zbrent(ecc, means[i], 0.0, 2.0 * math.pi, 1.0e-12)
    return out


def four1(data, nn, isign):
    """In-place radix-2 FFT of nn complex numbers interleaved in data[1..2nn] (1-based)."""
    n = nn << 1
    j = 1
    for i in range(1, n, 2):
        if j > i:
            data[j], data[i] = data[i], data[j]
            data[j + 1], data[i + 1] = data[i + 1], data[j + 1]
        m = nn
        while m >= 2 and j > m:
            j -= m
            m >>= 1
        j += m
    mmax = 2
    while n > mmax:
        istep = mmax << 1
        theta = isign * (6.28318530717959 / mmax)
        wtemp = math.sin(0.5 * theta)
        wpr = -2.0 * wtemp * wtemp
        wpi = math.sin(theta)
        wr = 1.0
        wi = 0.0
        for m in range(1, mmax, 2):
            for i in range(m, n + 1, istep):
                j = i + mmax
                tempr = wr * data[j] - wi * data[j + 1]
                tempi = wr * data[j + 1] + wi * data[j]
                data[j] = data[i] - tempr
                data[j + 1] = data[i + 1] - tempi
                data[i] += tempr
                data[i + 1] += tempi
            wtemp = wr
            wr = wtemp * wpr - wi * wpi + wr
            wi = wi * wpr + wtemp * wpi + wi
        mmax = istep


def four1_power(x):
    """Power spectrum of a real signal through four1 on an interleaved 1-based buffer."""
    nn = x.shape[0]
    data = np.zeros(2 * nn + 1)
    data[1::2] = x
    four1(data, nn, 1)
    re = data[1::2]
    im = data[2::2]
    return re * re + im * im


# ---------------------------------------------------------------- Fortran order

def fortran_matvec(a, x):
    """y = A x in the column (saxpy) order of a Fortran DO loop nest on a Fortran array."""
    m, n = a.shape
    y = np.zeros(m)
    for j in range(n):
        xj = x[j]
        for i in range(m):
            y[i] = y[i] + a[i, j] * xj
    return y


def gemm_jki(a, b):
    """C = A B with the j-l-i loop order of the reference DGEMM, C allocated order='F'."""
    a = np.asfortranarray(a)
    b = np.asfortranarray(b)
    m, k = a.shape
    n = b.shape[1]
    c = np.zeros((m, n), order='F')
    for j in range(n):
        for l in range(k):
            temp = b[l, j]
            if temp != 0.0:
                for i in range(m):
                    c[i, j] = c[i, j] + temp * a[i, l]
    return c


def dpofa(a):
    """LINPACK Cholesky R'R on the upper triangle of a Fortran array, in place; info returned
    (0, or the order of the first minor that is not positive definite)."""
    n = a.shape[0]
    for j in range(n):
        s = 0.0
        for k in range(j):
            t = a[k, j] - np.dot(a[:k, k], a[:k, j])
            t = t / a[k, k]
            a[k, j] = t
            s = s + t * t
        s = a[j, j] - s
        if s <= 0.0:
            return j + 1
        a[j, j] = math.sqrt(s)
    return 0


def fortran_heat_steps(u0, steps, r):
    """Explicit 2-D heat steps on Fortran arrays (column index outermost), two buffers."""
    u = np.asfortranarray(u0.copy())
    v = np.zeros(u.shape, order='F')
    nx, ny = u.shape
    for it in range(steps):
        for j in range(1, ny - 1):
            for i in range(1, nx - 1):
                v[i, j] = u[i, j] + r * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]
                                         - 4.0 * u[i, j])
        u[1:-1, 1:-1] = v[1:-1, 1:-1]
    return u


# ---------------------------------------------------------------- output arrays passed in

def vec_add_out(a, b, out):
    n = a.shape[0]
    for i in range(n):
        out[i] = a[i] + b[i]


def laplace_out(u, out):
    """Five-point average into a caller's buffer; the border copied from u."""
    n, m = u.shape
    out[0, :] = u[0, :]
    out[n - 1, :] = u[n - 1, :]
    out[:, 0] = u[:, 0]
    out[:, m - 1] = u[:, m - 1]
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            out[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])


def matvec_out_f32(A, x, y):
    """y := A x in float32 buffers, accumulated in a scalar as in C."""
    m, n = A.shape
    for i in range(m):
        acc = 0.0
        for j in range(n):
            acc += A[i, j] * x[j]
        y[i] = acc


def scale_rows_out(a, s, out):
    np.multiply(a, s[:, None], out=out)
    np.add(out, 1.0, out=out)


# ---------------------------------------------------------------- goto as while True / break

def newton_flags(x0s, tol, maxit):
    """Newton on x**3 - 2x - 5 from each start, with a failure flag set before a `goto`-like
    exit."""
    n = x0s.shape[0]
    roots = np.zeros(n)
    flags = np.zeros(n, dtype=np.int32)
    iters = np.zeros(n, dtype=np.int32)
    for k in range(n):
        x = x0s[k]
        it = 0
        while True:
            fx = x * x * x - 2.0 * x - 5.0
            if abs(fx) < tol:
                break
            dfx = 3.0 * x * x - 2.0
            if dfx == 0.0:
                flags[k] = 2
                break
            x = x - fx / dfx
            it = it + 1
            if it >= maxit:
                flags[k] = 1
                break
        roots[k] = x
        iters[k] = it
    return roots, flags, iters


def fixed_point_goto(c, tol):
    """x = cos(c x) iterated to a fixed point; an early return when it diverges."""
    x = np.zeros_like(c)
    for i in range(c.shape[0]):
        xo = 0.5
        k = 0
        while True:
            xn = math.cos(c[i] * xo)
            k += 1
            if abs(xn - xo) < tol:
                break
            if k > 500:
                return x, i
            xo = xn
        x[i] = xn
    return x, -1


def bisect_goto(lo, hi, tol):
    """Bisection of tanh(x) - 0.3 x on intervals, C style: a label loop with a flag."""
    n = lo.shape[0]
    out = np.empty(n)
    for i in range(n):
        a = lo[i]
        b = hi[i]
        fa = math.tanh(a) - 0.3 * a
        done = False
        while True:
            mid = 0.5 * (a + b)
            fm = math.tanh(mid) - 0.3 * mid
            if fm == 0.0 or 0.5 * (b - a) < tol:
                done = True
            if done:
                break
            if (fa < 0.0) == (fm < 0.0):
                a = mid
                fa = fm
            else:
                b = mid
        out[i] = mid
    return out


# ---------------------------------------------------------------- MATLAB style

def mgs_matlab(A):
    """Modified Gram-Schmidt as in MATLAB: v = A(:,k), R(i,k) = Q(:,i)'*v."""
    m, n = A.shape
    Q = np.zeros((m, n))
    R = np.zeros((n, n))
    for k in range(n):
        v = A[:, k]
        for i in range(k):
            R[i, k] = np.dot(Q[:, i], v)
            v = v - R[i, k] * Q[:, i]
        R[k, k] = np.linalg.norm(v)
        Q[:, k] = v / R[k, k]
    return Q, R


def matlab_surface(c, n):
    """linspace/meshgrid surface, find() of the points above a level, end via x[-1]."""
    x = np.linspace(-1.0, 1.0, n)
    y = np.linspace(-1.0, 1.0, n)
    X, Y = np.meshgrid(x, y)
    Z = c[0] * np.exp(-(X ** 2 + Y ** 2) / (2 * c[1] ** 2)) + c[2] * X * Y
    idx = np.nonzero(Z.flatten() > 0.5 * np.max(Z))[0]
    return Z, idx, x[-1] - x[0], len(idx)


def matlab_newton_system(x0, tol, maxit):
    """Newton for a 2x2 system with column vectors, np.linalg.solve every step, .flatten()."""
    x = np.zeros((2, 1))
    x[:, 0] = x0
    it = 0
    for it in range(1, maxit + 1):
        F = np.zeros((2, 1))
        F[0] = x[0] ** 2 + x[1] ** 2 - 4.0
        F[1] = x[0] * x[1] - 1.0
        J = np.array([[2.0 * x[0, 0], 2.0 * x[1, 0]], [x[1, 0], x[0, 0]]])
        dx = np.linalg.solve(J, -F)
        x = x + dx
        if np.linalg.norm(dx) < tol:
            break
    return x.flatten(), it


def matlab_jacobi(A, b, tol, maxit):
    """Jacobi iteration in matrix form: x = D\\(b - R*x) with column vectors."""
    n = len(b)
    x = np.zeros((n, 1))
    b = b.reshape(n, 1)
    D = np.diag(np.diag(A))
    R = A - D
    Dinv = np.linalg.inv(D)
    k = 0
    for k in range(1, maxit + 1):
        xnew = np.dot(Dinv, b - np.dot(R, x))
        if np.linalg.norm(xnew - x, np.inf) < tol:
            x = xnew
            break
        x = xnew
    return x.flatten(), k


def matlab_cumtrapz_find(t, v):
    """cumtrapz by hand, then find(s >= s(end)/2, 1)."""
    n = len(t)
    s = np.zeros(n)
    for k in range(1, n):
        s[k] = s[k - 1] + 0.5 * (t[k] - t[k - 1]) * (v[k] + v[k - 1])
    idx = np.nonzero(s >= 0.5 * s[-1])[0]
    first = idx[0]
    return s, first, t[first]


def matlab_lu_nopivot(A):
    """Outer-product LU with column updates A(k+1:n,k) and rank-1 trailing updates."""
    A = A.copy()
    n = A.shape[0]
    for k in range(n - 1):
        A[k + 1:, k] = A[k + 1:, k] / A[k, k]
        A[k + 1:, k + 1:] = A[k + 1:, k + 1:] - np.outer(A[k + 1:, k], A[k, k + 1:])
    L = np.tril(A, -1) + np.eye(n)
    U = np.triu(A)
    return L, U


def matlab_power_method(A, maxit, tol):
    """Power method on a column vector; lambda from the infinity norm."""
    n = A.shape[0]
    x = np.ones((n, 1))
    lam = 0.0
    for k in range(maxit):
        y = np.dot(A, x)
        lam_new = np.max(np.abs(y))
        x = y / lam_new
        if abs(lam_new - lam) < tol * lam_new:
            lam = lam_new
            break
        lam = lam_new
    return lam, x.flatten()


# ---------------------------------------------------------------- Rosetta Code

def hailstone_longest(limit):
    """Longest Collatz chain starting below limit, with an int32 cache of chain lengths."""
    cache = np.zeros(limit, dtype=np.int32)
    cache[1] = 1
    best = 1
    best_n = 1
    for start in range(2, limit):
        n = start
        steps = 0
        while n >= limit or cache[n] == 0:
            if n % 2 == 0:
                n //= 2
            else:
                n = 3 * n + 1
            steps += 1
        total = steps + cache[n]
        cache[start] = total
        if total > best:
            best = total
            best_n = start
    return best_n, best, cache


def perfect_numbers(limit):
    result = []
    for n in range(2, limit):
        s = 1
        i = 2
        while i * i <= n:
            if n % i == 0:
                s += i
                if i != n // i:
                    s += n // i
            i += 1
        if s == n:
            result.append(n)
    return np.array(result, dtype=np.int64)


def digital_roots(values):
    """Additive persistence and digital root of each value."""
    n = len(values)
    pers = np.zeros(n, dtype=np.int32)
    root = np.zeros(n, dtype=np.int64)
    for k in range(n):
        x = values[k]
        p = 0
        while x >= 10:
            s = 0
            while x > 0:
                s += x % 10
                x //= 10
            x = s
            p += 1
        pers[k] = p
        root[k] = x
    return pers, root


def amicable_pairs(limit):
    """Amicable pairs below limit from a sieve of proper-divisor sums."""
    d = np.ones(limit, dtype=np.int64)
    d[0] = 0
    d[1] = 0
    for i in range(2, limit // 2 + 1):
        d[2 * i::i] += i
    pairs = []
    for a in range(2, limit):
        b = d[a]
        if a < b < limit and d[b] == a:
            pairs.append((a, b))
    return pairs


def luhn_valid(digits):
    """Luhn check of each row of decimal digits (int8)."""
    m, n = digits.shape
    ok = np.zeros(m, dtype=np.bool_)
    for r in range(m):
        s = 0
        double = False
        for c in range(n - 1, -1, -1):
            d = int(digits[r, c])
            if double:
                d *= 2
                if d > 9:
                    d -= 9
            s += d
            double = not double
        ok[r] = s % 10 == 0
    return ok


def hanoi_moves(n):
    """Iterative Towers of Hanoi from the binary counter: moves (int32) and final heights."""
    total = (1 << n) - 1
    moves = np.zeros((total, 2), dtype=np.int32)
    height = np.zeros(3, dtype=np.int32)
    height[0] = n
    for m in range(1, total + 1):
        src = (m & (m - 1)) % 3
        dst = ((m | (m - 1)) + 1) % 3
        moves[m - 1, 0] = src
        moves[m - 1, 1] = dst
        height[src] -= 1
        height[dst] += 1
    return moves, height


def happy_numbers(count):
    """The first `count` happy numbers, cycle found with tortoise and hare."""
    out = np.zeros(count, dtype=np.int64)
    found = 0
    n = 1
    while found < count:
        slow = n
        fast = n
        while True:
            s = 0
            x = slow
            while x:
                s += (x % 10) ** 2
                x //= 10
            slow = s
            for rep in range(2):
                s = 0
                x = fast
                while x:
                    s += (x % 10) ** 2
                    x //= 10
                fast = s
            if slow == fast:
                break
        if slow == 1:
            out[found] = n
            found += 1
        n += 1
    return out
