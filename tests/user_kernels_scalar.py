# ruff: noqa -- written as users write NumPy, style included
"""Scalar loops written the way people write them for Numba or plain Python: dynamic
programming (edit distance, LCS, 0/1 knapsack, longest increasing subsequence, coin change),
number theory (gcd, Collatz, trial division, modular powers), escape-time fractals, root
finding (Newton, bisection, secant), integration, random walks and 1-D particles, sorting by
hand, running extrema, `math` functions, builtins of scalars (`round`, `divmod`), early
returns, `while True` with `break`, loops over `enumerate` and `zip`. The tests
(`test_user_kernels.py`) and `benches/kernels.py` run them verbatim."""
import math

import numpy as np


def mandel_real(w, h, it):
    out = np.zeros((h, w), dtype=np.int64)
    for y in range(h):
        for x in range(w):
            cr = -2 + 3*x/w; ci = -1.5 + 3*y/h
            zr = 0.0; zi = 0.0; n = 0
            while zr*zr + zi*zi <= 4.0 and n < it:
                zr, zi = zr*zr - zi*zi + cr, 2*zr*zi + ci; n += 1
            out[y, x] = n
    return out


def julia(xs, ys, c_re, c_im, maxit):
    img = np.zeros((len(ys), len(xs)))
    for i in range(len(ys)):
        for j in range(len(xs)):
            zr, zi = xs[j], ys[i]
            k = 0
            while k < maxit and not (zr * zr + zi * zi > 4.0):
                zr, zi = zr * zr - zi * zi + c_re, 2.0 * zr * zi + c_im
                k += 1
            if k == maxit:
                img[i, j] = 0.0
            else:
                # smooth colouring
                img[i, j] = k + 1 - math.log(math.log(math.sqrt(zr * zr + zi * zi))) / math.log(2.0)
    return img


def edit_distance_dp(s, t):
    n = len(s)
    m = len(t)
    d = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        d[i, 0] = i
    for j in range(m + 1):
        d[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if s[i - 1] == t[j - 1]:
                cost = 0
            else:
                cost = 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
    return d[n, m]


def lcs_table(a, b):
    n, m = a.shape[0], b.shape[0]
    L = np.zeros((n + 1, m + 1), dtype=np.int32)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                L[i, j] = L[i - 1, j - 1] + 1
            elif L[i - 1, j] >= L[i, j - 1]:
                L[i, j] = L[i - 1, j]
            else:
                L[i, j] = L[i, j - 1]
    return L


def knapsack_01(weights, values, capacity):
    best = np.zeros(capacity + 1)
    for k in range(len(weights)):
        wk = weights[k]
        for c in range(capacity, wk - 1, -1):
            cand = best[c - wk] + values[k]
            if cand > best[c]:
                best[c] = cand
    return best[capacity]


def longest_increasing(x):
    n = len(x)
    dp = np.ones(n, dtype=np.int64)
    best = 1
    for i in range(1, n):
        for j in range(i):
            if x[j] < x[i] and dp[j] + 1 > dp[i]:
                dp[i] = dp[j] + 1
        best = max(best, dp[i])
    return best


def coin_change(coins, amount):
    INF = amount + 1
    dp = np.full(amount + 1, INF, dtype=np.int64)
    dp[0] = 0
    for a in range(1, amount + 1):
        for c in coins:
            if c <= a and dp[a - c] + 1 < dp[a]:
                dp[a] = dp[a - c] + 1
    return dp[amount] if dp[amount] != INF else -1


def gcd_pairs(a, b):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        x, y = a[i], b[i]
        while y:
            x, y = y, x % y
        out[i] = x
    return out


def collatz_lengths(n):
    lengths = np.zeros(n, dtype=np.int64)
    for start in range(1, n + 1):
        m = start
        steps = 0
        while m != 1:
            if m & 1:
                m = 3 * m + 1
            else:
                m >>= 1
            steps += 1
        lengths[start - 1] = steps
    return lengths


def primes_by_trial(limit):
    flags = np.zeros(limit, dtype=np.bool_)
    for k in range(2, limit):
        prime = True
        d = 2
        while d * d <= k:
            if k % d == 0:
                prime = False
                break
            d += 1
        flags[k] = prime
    return flags


def modpow_all(bases, exponent, modulus):
    out = np.zeros_like(bases)
    for i in range(bases.shape[0]):
        result = 1
        b = bases[i] % modulus
        e = exponent
        while e > 0:
            if e & 1:
                result = (result * b) % modulus
            e >>= 1
            b = (b * b) % modulus
        out[i] = result
    return out


def newton_sqrt(values, tol, maxit):
    roots = np.empty_like(values)
    iters = np.zeros(len(values), dtype=np.int64)
    for i in range(len(values)):
        a = values[i]
        x = a if a > 1.0 else 1.0
        dx = 1.0
        it = 0
        while abs(dx) > tol and it < maxit:
            dx = (x * x - a) / (2.0 * x)
            x -= dx
            it += 1
        roots[i] = x
        iters[i] = it
    return roots, iters


def bisection_cubic(targets, tol, maxit):
    out = np.empty(targets.shape[0])
    for k in range(targets.shape[0]):
        a, b = 0.0, max(1.0, targets[k])
        fa = a ** 3 - targets[k]
        it = 0
        while b - a > tol and it < maxit:
            m = (a + b) / 2
            fm = m ** 3 - targets[k]
            if fm == 0:
                a = b = m
                break
            if (fa < 0) == (fm < 0):
                a, fa = m, fm
            else:
                b = m
            it += 1
        out[k] = (a + b) / 2
    return out


def secant_kepler(M, e, tol):
    E_out = np.empty_like(M)
    for i in range(M.shape[0]):
        x0 = M[i]
        x1 = M[i] + e
        f0 = x0 - e * math.sin(x0) - M[i]
        f1 = x1 - e * math.sin(x1) - M[i]
        n = 0
        while abs(x1 - x0) > tol and n < 50:
            if f1 == f0:
                break
            x2 = x1 - f1 * (x1 - x0) / (f1 - f0)
            x0, f0 = x1, f1
            x1 = x2
            f1 = x1 - e * math.sin(x1) - M[i]
            n += 1
        E_out[i] = x1
    return E_out


def simpson_gauss(upper, n):
    res = np.zeros(upper.shape[0])
    for k in range(upper.shape[0]):
        b = upper[k]
        h = b / n
        s = 1.0 + math.exp(-b * b)
        for i in range(1, n):
            w = 4 if i % 2 == 1 else 2
            x = i * h
            s += w * math.exp(-x * x)
        res[k] = s * h / 3
    return res


def random_walk(steps, start):
    pos = start
    hi = pos
    lo = pos
    path = np.empty(len(steps), dtype=np.int64)
    for t in range(len(steps)):
        pos += 1 if steps[t] < 0.5 else -1
        hi = max(hi, pos)
        lo = min(lo, pos)
        path[t] = pos
    return path, hi - lo


def particles_bounce(x, v, dt, nsteps, L):
    x = x.copy()
    v = v.copy()
    bounces = 0
    for step in range(nsteps):
        for i in range(x.shape[0]):
            x[i] += v[i] * dt
            if x[i] < 0.0 or x[i] > L:
                v[i] = -v[i]
                x[i] = min(max(x[i], 0.0), L)
                bounces += 1
    return x, v, bounces


def bubble_sort_early(a):
    a = a.copy()
    n = len(a)
    for i in range(n - 1):
        swapped = False
        for j in range(n - 1 - i):
            if a[j] > a[j + 1]:
                a[j], a[j + 1] = a[j + 1], a[j]
                swapped = True
        if not swapped:
            break
    return a


def shell_sort(arr):
    a = arr.copy()
    n = a.shape[0]
    gap = n // 2
    while gap > 0:
        for i in range(gap, n):
            tmp = a[i]
            j = i
            while j >= gap and a[j - gap] > tmp:
                a[j] = a[j - gap]
                j -= gap
            a[j] = tmp
        gap //= 2
    return a


def running_extrema(x, limit):
    out_max = np.full(x.shape[0], np.nan)
    out_min = np.full(x.shape[0], np.nan)
    cur_max = -np.inf
    cur_min = np.inf
    for i in range(x.shape[0]):
        v = x[i]
        if math.isnan(v):
            continue
        if v > limit:
            break
        if v > cur_max:
            cur_max = v
        if v < cur_min:
            cur_min = v
        out_max[i] = cur_max
        out_min[i] = cur_min
    return out_max, out_min


def polar_features(x, y):
    out = np.empty((x.shape[0], 4))
    for i in range(x.shape[0]):
        r = math.hypot(x[i], y[i])
        out[i, 0] = r
        out[i, 1] = math.sqrt(abs(x[i]))
        out[i, 2] = math.floor(x[i] * 10.0)
        out[i, 3] = math.exp(-r) if r < 3.0 else 0.0
    return out


def clamp_scores(x, lo, hi):
    out = np.empty_like(x)
    total = 0.0
    for i in range(len(x)):
        v = min(max(x[i], lo), hi)
        out[i] = v
        total += abs(v)
    return out, total


def digit_sums(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        n = int(x[i])
        s = 0
        while n > 0:
            s += n % 10
            n //= 10
        out[i] = float(s) / 9.0
    return out


def first_above(x, thresh):
    for i in range(x.shape[0]):
        if x[i] > thresh:
            return i
    return -1


def back_substitution(U, b):
    n = b.shape[0]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= U[i, j] * x[j]
        x[i] = s / U[i, i]
    return x


def pair_energy(pos, cutoff):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            r2 = dx * dx + dy * dy
            if r2 < cutoff * cutoff and r2 > 0:
                inv6 = 1.0 / r2 ** 3
                e += 4.0 * (inv6 * inv6 - inv6)
    return e


def fib_mod(n, m):
    out = np.zeros(n, dtype=np.int64)
    a, b = 0, 1
    for i in range(n):
        out[i] = a
        a, b = b, (a + b) % m
    return out


def sign_runs(x):
    runs = np.zeros(x.shape[0], dtype=np.int64)
    length = 0
    for i in range(x.shape[0]):
        same = i > 0 and (x[i] > 0) == (x[i - 1] > 0)
        length = length + 1 if same else 1
        runs[i] = length
    return runs


def fill_gaps(x, default):
    out = np.empty_like(x)
    last = default
    for i in range(x.shape[0]):
        v = x[i] or last
        out[i] = v
        last = v
    return out


def _f(x):
    return x * x * x - 2.0 * x - 5.0


def _df(x):
    return 3.0 * x * x - 2.0


def newton_helpers(starts, tol):
    out = np.empty_like(starts)
    for i in range(len(starts)):
        x = starts[i]
        while True:
            dx = _f(x) / _df(x)
            x -= dx
            if abs(dx) < tol:
                break
        out[i] = x
    return out


def rmse_zip(pred, target):
    s = 0.0
    n = 0
    for p, t in zip(pred, target):
        err = p - t
        s += err * err
        n += 1
    return math.sqrt(s / n)


def weighted_positions(x):
    total = 0.0
    best_i = -1
    for i, v in enumerate(x, 1):
        total += i * v
        if v > 0.9 and best_i < 0:
            best_i = i
    return total, best_i


def round_histogram(x, bins):
    counts = np.zeros(bins, dtype=np.int64)
    for i in range(x.shape[0]):
        k = round(x[i] * (bins - 1))
        counts[k] += 1
    return counts


def base7_checksum(x):
    out = np.zeros(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        n = int(x[i])
        check = 0
        while n:
            n, r = divmod(n, 7)
            check = (check * 31 + r) % 1000003
        out[i] = check
    return out
