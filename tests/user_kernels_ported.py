"""Routines ported to NumPy from C, Fortran and MATLAB by people who think in those languages:
reference-BLAS level-1 loops with increments and unrolled main loops, LINPACK/EISPACK-style
factorizations with pivot vectors, Numerical-Recipes routines on 1-based arrays, Fortran-order
arrays, output arrays passed in and filled, `while True:` loops with `break` for `goto`,
MATLAB-style column code and Rosetta-Code tasks."""

import math

import numpy as np


# ---------------------------------------------------------------- reference BLAS, level 1

def daxpy(n, da, dx, incx, dy, incy):
    """dy := dy + da*dx, in place; unit strides take the loop unrolled by 4."""
    if n <= 0:
        return
    if da == 0.0:
        return
    if incx == 1 and incy == 1:
        m = n % 4
        if m != 0:
            for i in range(m):
                dy[i] = dy[i] + da * dx[i]
        if n < 4:
            return
        for i in range(m, n, 4):
            dy[i] = dy[i] + da * dx[i]
            dy[i + 1] = dy[i + 1] + da * dx[i + 1]
            dy[i + 2] = dy[i + 2] + da * dx[i + 2]
            dy[i + 3] = dy[i + 3] + da * dx[i + 3]
    else:
        ix = 0
        iy = 0
        if incx < 0:
            ix = (-n + 1) * incx
        if incy < 0:
            iy = (-n + 1) * incy
        for i in range(n):
            dy[iy] = dy[iy] + da * dx[ix]
            ix = ix + incx
            iy = iy + incy


def ddot(n, dx, incx, dy, incy):
    """Dot product with increments; unit strides unrolled by 5 after a clean-up loop."""
    dtemp = 0.0
    if n <= 0:
        return dtemp
    if incx == 1 and incy == 1:
        m = n % 5
        if m != 0:
            for i in range(m):
                dtemp = dtemp + dx[i] * dy[i]
            if n < 5:
                return dtemp
        for i in range(m, n, 5):
            dtemp = (dtemp + dx[i] * dy[i] + dx[i + 1] * dy[i + 1] + dx[i + 2] * dy[i + 2]
                     + dx[i + 3] * dy[i + 3] + dx[i + 4] * dy[i + 4])
        return dtemp
    ix = 0
    iy = 0
    if incx < 0:
        ix = (-n + 1) * incx
    if incy < 0:
        iy = (-n + 1) * incy
    for i in range(n):
        dtemp = dtemp + dx[ix] * dy[iy]
        ix = ix + incx
        iy = iy + incy
    return dtemp


def dscal(n, da, dx, incx):
    """dx := da*dx in place, unrolled by 5."""
    if n <= 0 or incx <= 0:
        return
    if incx == 1:
        m = n % 5
        if m != 0:
            for i in range(m):
                dx[i] = da * dx[i]
            if n < 5:
                return
        for i in range(m, n, 5):
            dx[i] = da * dx[i]
            dx[i + 1] = da * dx[i + 1]
            dx[i + 2] = da * dx[i + 2]
            dx[i + 3] = da * dx[i + 3]
            dx[i + 4] = da * dx[i + 4]
    else:
        nincx = n * incx
        for i in range(0, nincx, incx):
            dx[i] = da * dx[i]


def idamax(n, dx, incx):
    """1-based index of the first element of largest magnitude (0 for no elements)."""
    if n < 1 or incx <= 0:
        return 0
    if n == 1:
        return 1
    imax = 1
    if incx == 1:
        dmax = abs(dx[0])
        for i in range(1, n):
            if abs(dx[i]) > dmax:
                imax = i + 1
                dmax = abs(dx[i])
    else:
        ix = 0
        dmax = abs(dx[0])
        ix = ix + incx
        for i in range(1, n):
            if abs(dx[ix]) > dmax:
                imax = i + 1
                dmax = abs(dx[ix])
            ix = ix + incx
    return imax


def dnrm2(n, x, incx):
    """Euclidean norm with the scale/ssq update that avoids overflow."""
    if n < 1 or incx < 1:
        return 0.0
    if n == 1:
        return abs(x[0])
    scale = 0.0
    ssq = 1.0
    for ix in range(0, 1 + (n - 1) * incx, incx):
        if x[ix] != 0.0:
            absxi = abs(x[ix])
            if scale < absxi:
                ssq = 1.0 + ssq * (scale / absxi) ** 2
                scale = absxi
            else:
                ssq = ssq + (absxi / scale) ** 2
    return scale * math.sqrt(ssq)


def drot(n, dx, incx, dy, incy, c, s):
    """Applies the plane rotation (c, s) to the vector pair, in place."""
    if n <= 0:
        return
    if incx == 1 and incy == 1:
        for i in range(n):
            dtemp = c * dx[i] + s * dy[i]
            dy[i] = c * dy[i] - s * dx[i]
            dx[i] = dtemp
        return
    ix = 0
    iy = 0
    if incx < 0:
        ix = (-n + 1) * incx
    if incy < 0:
        iy = (-n + 1) * incy
    for i in range(n):
        dtemp = c * dx[ix] + s * dy[iy]
        dy[iy] = c * dy[iy] - s * dx[ix]
        dx[ix] = dtemp
        ix = ix + incx
        iy = iy + incy


def dasum(n, dx, incx):
    """Sum of magnitudes, unrolled by 6."""
    dtemp = 0.0
    if n <= 0 or incx <= 0:
        return dtemp
    if incx == 1:
        m = n % 6
        if m != 0:
            for i in range(m):
                dtemp = dtemp + abs(dx[i])
            if n < 6:
                return dtemp
        for i in range(m, n, 6):
            dtemp = (dtemp + abs(dx[i]) + abs(dx[i + 1]) + abs(dx[i + 2]) + abs(dx[i + 3])
                     + abs(dx[i + 4]) + abs(dx[i + 5]))
        return dtemp
    for i in range(0, n * incx, incx):
        dtemp = dtemp + abs(dx[i])
    return dtemp


def sdot_f32(n, sx, sy):
    """Single-precision dot product accumulated in single precision (REAL stemp)."""
    stemp = np.float32(0.0)
    m = n % 5
    for i in range(m):
        stemp = stemp + sx[i] * sy[i]
    for i in range(m, n, 5):
        stemp = (stemp + sx[i] * sy[i] + sx[i + 1] * sy[i + 1] + sx[i + 2] * sy[i + 2]
                 + sx[i + 3] * sy[i + 3] + sx[i + 4] * sy[i + 4])
    return stemp


def daxpyi(nz, a, x, indx, y):
    """Sparse BLAS: y(indx(i)) += a*x(i) for a compressed x with int32 indices, in place."""
    if nz <= 0 or a == 0.0:
        return
    for i in range(nz):
        y[indx[i]] = y[indx[i]] + a * x[i]


def ddoti(nz, x, indx, y):
    """Sparse BLAS dot product of a compressed vector with a full one."""
    s = 0.0
    for i in range(nz):
        s = s + x[i] * y[indx[i]]
    return s


# ---------------------------------------------------------------- LINPACK / EISPACK

def dgefa(a, n, ipvt):
    """LINPACK LU factorization by columns with partial pivoting; ipvt filled, info returned
    (0, or 1 + the index of a zero pivot)."""
    info = 0
    for k in range(n - 1):
        kp1 = k + 1
        l = k
        dmax = abs(a[k, k])
        for i in range(kp1, n):
            if abs(a[i, k]) > dmax:
                dmax = abs(a[i, k])
                l = i
        ipvt[k] = l
        if a[l, k] == 0.0:
            info = k + 1
            continue
        if l != k:
            t = a[l, k]
            a[l, k] = a[k, k]
            a[k, k] = t
        t = -1.0 / a[k, k]
        a[kp1:n, k] = t * a[kp1:n, k]
        for j in range(kp1, n):
            t = a[l, j]
            if l != k:
                a[l, j] = a[k, j]
                a[k, j] = t
            a[kp1:n, j] = a[kp1:n, j] + t * a[kp1:n, k]
    ipvt[n - 1] = n - 1
    if a[n - 1, n - 1] == 0.0:
        info = n
    return info


def dgesl(a, n, ipvt, b):
    """Solves a x = b with the factors of dgefa; b overwritten by x."""
    for k in range(n - 1):
        l = ipvt[k]
        t = b[l]
        if l != k:
            b[l] = b[k]
            b[k] = t
        b[k + 1:n] = b[k + 1:n] + t * a[k + 1:n, k]
    for kb in range(n):
        k = n - 1 - kb
        b[k] = b[k] / a[k, k]
        t = -b[k]
        b[0:k] = b[0:k] + t * a[0:k, k]


def linpack_solve(a, b):
    """dgefa + dgesl on a Fortran-ordered copy, with an int32 pivot vector."""
    n = a.shape[0]
    lu = np.array(a, order='F')
    ipvt = np.zeros(n, dtype=np.int32)
    info = dgefa(lu, n, ipvt)
    if info != 0:
        return None, info
    x = b.copy()
    dgesl(lu, n, ipvt, x)
    return x, info


def _pythag(a, b):
    absa = abs(a)
    absb = abs(b)
    if absa > absb:
        return absa * math.sqrt(1.0 + (absb / absa) ** 2)
    if absb == 0.0:
        return 0.0
    return absb * math.sqrt(1.0 + (absa / absb) ** 2)


def tqli_eigen(diag, offdiag):
    """QL with implicit shifts on a symmetric tridiagonal matrix: eigenvalues and vectors."""
    n = diag.shape[0]
    d = diag.copy()
    e = np.zeros(n)
    e[1:] = offdiag
    z = np.eye(n)
    for i in range(1, n):
        e[i - 1] = e[i]
    e[n - 1] = 0.0
    for l in range(n):
        it = 0
        while True:
            m = l
            while m < n - 1:
                dd = abs(d[m]) + abs(d[m + 1])
                if abs(e[m]) + dd == dd:
                    break
                m += 1
            if m == l:
                break
            if it == 30:
                raise ValueError("Too many iterations in tqli")
            it += 1
            g = (d[l + 1] - d[l]) / (2.0 * e[l])
            r = _pythag(g, 1.0)
            g = d[m] - d[l] + e[l] / (g + (abs(r) if g >= 0.0 else -abs(r)))
            s = c = 1.0
            p = 0.0
            i = m - 1
            while i >= l:
                f = s * e[i]
                b = c * e[i]
                r = _pythag(f, g)
                e[i + 1] = r
                if r == 0.0:
                    d[i + 1] -= p
                    e[m] = 0.0
                    break
                s = f / r
                c = g / r
                g = d[i + 1] - p
                r = (d[i] - g) * s + 2.0 * c * b
                p = s * r
                d[i + 1] = g + p
                g = c * r - b
                for k in range(n):
                    f = z[k, i + 1]
                    z[k, i + 1] = s * z[k, i] + c * f
                    z[k, i] = c * z[k, i] - s * f
                i -= 1
            if r == 0.0 and i >= l:
                continue
            d[l] -= p
            e[l] = g
            e[m] = 0.0
    return d, z


RADIX = 2.0


def balanc(a):
    """Balances a nonsymmetric matrix in place by powers of the radix (EISPACK balanc)."""
    n = a.shape[0]
    sqrdx = RADIX * RADIX
    last = 0
    while last == 0:
        last = 1
        for i in range(n):
            r = c = 0.0
            for j in range(n):
                if j != i:
                    c += abs(a[j, i])
                    r += abs(a[i, j])
            if c != 0.0 and r != 0.0:
                g = r / RADIX
                f = 1.0
                s = c + r
                while c < g:
                    f *= RADIX
                    c *= sqrdx
                g = r * RADIX
                while c > g:
                    f /= RADIX
                    c /= sqrdx
                if (c + r) / f < 0.95 * s:
                    last = 0
                    g = 1.0 / f
                    for j in range(n):
                        a[i, j] *= g
                    for j in range(n):
                        a[j, i] *= f


# ---------------------------------------------------------------- Numerical Recipes, 1-based

def tridag(a, b, c, r, n):
    """Tridiagonal solve on 1-based vectors (element 0 unused)."""
    u = np.zeros(n + 1)
    gam = np.zeros(n + 1)
    if b[1] == 0.0:
        raise ValueError("Error 1 in tridag")
    bet = b[1]
    u[1] = r[1] / bet
    for j in range(2, n + 1):
        gam[j] = c[j - 1] / bet
        bet = b[j] - a[j] * gam[j]
        if bet == 0.0:
            raise ValueError("Error 2 in tridag")
        u[j] = (r[j] - a[j] * u[j - 1]) / bet
    for j in range(n - 1, 0, -1):
        u[j] -= gam[j + 1] * u[j + 1]
    return u


TINY = 1.0e-20


def ludcmp(a, n, indx):
    """Crout LU with implicit partial pivoting on a 1-based (n+1)x(n+1) matrix, in place."""
    vv = np.zeros(n + 1)
    d = 1.0
    for i in range(1, n + 1):
        big = 0.0
        for j in range(1, n + 1):
            temp = abs(a[i, j])
            if temp > big:
                big = temp
        if big == 0.0:
            raise ValueError("Singular matrix in routine ludcmp")
        vv[i] = 1.0 / big
    for j in range(1, n + 1):
        for i in range(1, j):
            sum = a[i, j]
            for k in range(1, i):
                sum -= a[i, k] * a[k, j]
            a[i, j] = sum
        big = 0.0
        imax = j
        for i in range(j, n + 1):
            sum = a[i, j]
            for k in range(1, j):
                sum -= a[i, k] * a[k, j]
            a[i, j] = sum
            dum = vv[i] * abs(sum)
            if dum >= big:
                big = dum
                imax = i
        if j != imax:
            for k in range(1, n + 1):
                dum = a[imax, k]
                a[imax, k] = a[j, k]
                a[j, k] = dum
            d = -d
            vv[imax] = vv[j]
        indx[j] = imax
        if a[j, j] == 0.0:
            a[j, j] = TINY
        if j != n:
            dum = 1.0 / a[j, j]
            for i in range(j + 1, n + 1):
                a[i, j] *= dum
    return d


def lubksb(a, n, indx, b):
    """Forward and back substitution with the factors of ludcmp; b overwritten."""
    ii = 0
    for i in range(1, n + 1):
        ip = indx[i]
        sum = b[ip]
        b[ip] = b[i]
        if ii:
            for j in range(ii, i):
                sum -= a[i, j] * b[j]
        elif sum:
            ii = i
        b[i] = sum
    for i in range(n, 0, -1):
        sum = b[i]
        for j in range(i + 1, n + 1):
            sum -= a[i, j] * b[j]
        b[i] = sum / a[i, i]


def nr_lu_solve(a0, b0):
    """Solution and determinant through ludcmp/lubksb on 1-based copies."""
    n = a0.shape[0]
    a = np.zeros((n + 1, n + 1))
    a[1:, 1:] = a0
    b = np.zeros(n + 1)
    b[1:] = b0
    indx = np.zeros(n + 1, dtype=np.int32)
    d = ludcmp(a, n, indx)
    lubksb(a, n, indx, b)
    for j in range(1, n + 1):
        d *= a[j, j]
    return b[1:], d


def gaussj(a, n, b, m):
    """Gauss-Jordan elimination with full pivoting on 1-based matrices: a becomes its inverse,
    b the solutions."""
    indxc = np.zeros(n + 1, dtype=np.int64)
    indxr = np.zeros(n + 1, dtype=np.int64)
    ipiv = np.zeros(n + 1, dtype=np.int64)
    irow = icol = 0
    for i in range(1, n + 1):
        big = 0.0
        for j in range(1, n + 1):
            if ipiv[j] != 1:
                for k in range(1, n + 1):
                    if ipiv[k] == 0:
                        if abs(a[j, k]) >= big:
                            big = abs(a[j, k])
                            irow = j
                            icol = k
                    elif ipiv[k] > 1:
                        raise ValueError("gaussj: Singular Matrix-1")
        ipiv[icol] += 1
        if irow != icol:
            for l in range(1, n + 1):
                a[irow, l], a[icol, l] = a[icol, l], a[irow, l]
            for l in range(1, m + 1):
                b[irow, l], b[icol, l] = b[icol, l], b[irow, l]
        indxr[i] = irow
        indxc[i] = icol
        if a[icol, icol] == 0.0:
            raise ValueError("gaussj: Singular Matrix-2")
        pivinv = 1.0 / a[icol, icol]
        a[icol, icol] = 1.0
        for l in range(1, n + 1):
            a[icol, l] *= pivinv
        for l in range(1, m + 1):
            b[icol, l] *= pivinv
        for ll in range(1, n + 1):
            if ll != icol:
                dum = a[ll, icol]
                a[ll, icol] = 0.0
                for l in range(1, n + 1):
                    a[ll, l] -= a[icol, l] * dum
                for l in range(1, m + 1):
                    b[ll, l] -= b[icol, l] * dum
    for l in range(n, 0, -1):
        if indxr[l] != indxc[l]:
            for k in range(1, n + 1):
                a[k, indxr[l]], a[k, indxc[l]] = a[k, indxc[l]], a[k, indxr[l]]


def gaussj_inverse(a0, b0):
    n, m = b0.shape
    a = np.zeros((n + 1, n + 1))
    a[1:, 1:] = a0
    b = np.zeros((n + 1, m + 1))
    b[1:, 1:] = b0
    gaussj(a, n, b, m)
    return a[1:, 1:], b[1:, 1:]


def spline(x, y, n, yp1, ypn, y2):
    """Second derivatives of the interpolating cubic spline (1-based, natural for > 0.99e30)."""
    u = np.zeros(n)
    if yp1 > 0.99e30:
        y2[1] = u[1] = 0.0
    else:
        y2[1] = -0.5
        u[1] = (3.0 / (x[2] - x[1])) * ((y[2] - y[1]) / (x[2] - x[1]) - yp1)
    for i in range(2, n):
        sig = (x[i] - x[i - 1]) / (x[i + 1] - x[i - 1])
        p = sig * y2[i - 1] + 2.0
        y2[i] = (sig - 1.0) / p
        u[i] = (y[i + 1] - y[i]) / (x[i + 1] - x[i]) - (y[i] - y[i - 1]) / (x[i] - x[i - 1])
        u[i] = (6.0 * u[i] / (x[i + 1] - x[i - 1]) - sig * u[i - 1]) / p
    if ypn > 0.99e30:
        qn = un = 0.0
    else:
        qn = 0.5
        un = (3.0 / (x[n] - x[n - 1])) * (ypn - (y[n] - y[n - 1]) / (x[n] - x[n - 1]))
    y2[n] = (un - qn * u[n - 1]) / (qn * y2[n - 1] + 1.0)
    for k in range(n - 1, 0, -1):
        y2[k] = y2[k] * y2[k + 1] + u[k]


def splint(xa, ya, y2a, n, x):
    klo = 1
    khi = n
    while khi - klo > 1:
        k = (khi + klo) >> 1
        if xa[k] > x:
            khi = k
        else:
            klo = k
    h = xa[khi] - xa[klo]
    if h == 0.0:
        raise ValueError("Bad xa input to routine splint")
    a = (xa[khi] - x) / h
    b = (x - xa[klo]) / h
    return a * ya[klo] + b * ya[khi] + ((a * a * a - a) * y2a[klo]
                                        + (b * b * b - b) * y2a[khi]) * (h * h) / 6.0


def nr_spline_eval(x0, y0, xs, yp1):
    """spline + splint on 1-based copies, natural at the right end."""
    n = x0.shape[0]
    x = np.zeros(n + 1)
    y = np.zeros(n + 1)
    x[1:] = x0
    y[1:] = y0
    y2 = np.zeros(n + 1)
    spline(x, y, n, yp1, 1.0e30, y2)
    out = np.empty(xs.shape[0])
    for i in range(xs.shape[0]):
        out[i] = splint(x, y, y2, n, xs[i])
    return out


IA = 16807
IM = 2147483647
AM = 1.0 / IM
IQ = 127773
IR = 2836
NTAB = 32
NDIV = 1 + (IM - 1) // NTAB
RNMX = 1.0 - 1.2e-7


def ran1_stream(seed, n):
    """Park-Miller minimal standard with a Bays-Durham shuffle table (Schrage's method)."""
    idum = -seed
    iv = np.zeros(NTAB, dtype=np.int64)
    iy = 0
    out = np.empty(n)
    for t in range(n):
        if idum <= 0 or not iy:
            if -idum < 1:
                idum = 1
            else:
                idum = -idum
            for j in range(NTAB + 7, -1, -1):
                k = idum // IQ
                idum = IA * (idum - k * IQ) - IR * k
                if idum < 0:
                    idum += IM
                if j < NTAB:
                    iv[j] = idum
            iy = iv[0]
        k = idum // IQ
        idum = IA * (idum - k * IQ) - IR * k
        if idum < 0:
            idum += IM
        j = iy // NDIV
        iy = iv[j]
        iv[j] = idum
        temp = AM * iy
        out[t] = RNMX if temp > RNMX else temp
    return out, idum


def _damped(x):
    return math.exp(-x) * math.cos(3.0 * x)


def trapzd(a, b, n, s):
    """n-th refinement of the trapezoid rule; s is the previous refinement."""
    if n == 1:
        return 0.5 * (b - a) * (_damped(a) + _damped(b))
    it = 1 << (n - 2)
    tnm = it
    dl = (b - a) / tnm
    x = a + 0.5 * dl
    sum = 0.0
    for j in range(it):
        sum += _damped(x)
        x += dl
    return 0.5 * (s + (b - a) * sum / tnm)


def polint(xa, ya, n, x):
    """Neville interpolation on 1-based xa[1..n], ya[1..n]: value and error estimate."""
    ns = 1
    dif = abs(x - xa[1])
    c = np.zeros(n + 1)
    d = np.zeros(n + 1)
    for i in range(1, n + 1):
        dift = abs(x - xa[i])
        if dift < dif:
            ns = i
            dif = dift
        c[i] = ya[i]
        d[i] = ya[i]
    y = ya[ns]
    ns -= 1
    dy = 0.0
    for m in range(1, n):
        for i in range(1, n - m + 1):
            ho = xa[i] - x
            hp = xa[i + m] - x
            w = c[i + 1] - d[i]
            den = ho - hp
            if den == 0.0:
                raise ValueError("Error in routine polint")
            den = w / den
            d[i] = hp * den
            c[i] = ho * den
        if 2 * ns < (n - m):
            dy = c[ns + 1]
        else:
            dy = d[ns]
            ns -= 1
        y += dy
    return y, dy


def qromb_many(uppers, eps):
    """Romberg integration of exp(-x) cos(3x) over [0, b] for each b: trapzd + polint on
    1-based h and s tables, polint given views that start K entries back."""
    JMAX = 20
    K = 5
    out = np.zeros(uppers.shape[0])
    for q in range(uppers.shape[0]):
        b = uppers[q]
        s = np.zeros(JMAX + 2)
        h = np.zeros(JMAX + 2)
        h[1] = 1.0
        for j in range(1, JMAX + 1):
            s[j] = trapzd(0.0, b, j, s[j - 1])
            if j >= K:
                ss, dss = polint(h[j - K:], s[j - K:], K, 0.0)
                if abs(dss) <= eps * abs(ss):
                    out[q] = ss
                    break
            h[j + 1] = 0.25 * h[j]
        else:
            raise ValueError("Too many steps in routine qromb")
    return out
