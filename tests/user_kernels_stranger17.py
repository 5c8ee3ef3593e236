"""Kernels in styles the rest of the corpus lacks: signal processing (biquad cascades, polyphase
decimation, Levinson-Durbin on `np.correlate`, zero-crossing frames, envelope followers with a
hold), image processing (morphological opening, 8-connected union-find labels with path
halving, Canny gradient quantisation and hysteresis, bilinear resizing by loops), statistics
(Welford by a tuple-returning helper, bootstrap medians, Silverman KDE, Kendall's tau), finance
(American puts on a binomial tree, barrier paths from given normals, EWMA covariance, drawdown
durations, VWAP with session resets), integer algorithms (Kernighan bit counts, Stein's gcd, lcm
loops, run-length encoding by `np.diff`), geometry (monotone chain hull, winding numbers,
segment intersection with an early return) and code styles: `while` loops with tolerances and
caps, `np.float32` scalars mixed with Python floats, `enumerate(zip(a, b))`, `a.T @ b`,
`np.linalg.solve` inside loops, `out=` arguments, `np.where` chains, `0 <= i < n`, `math.`
functions on elements."""

import math

import numpy as np


# --- signal processing ---------------------------------------------------------------------

def biquad_cascade_df2t(x, sos):
    """Second-order sections (b0 b1 b2 a0 a1 a2 per row) in direct form II transposed."""
    y = x.astype(np.float64)
    for b0, b1, b2, a0, a1, a2 in sos:
        z1 = 0.0
        z2 = 0.0
        out = np.empty_like(y)
        for n in range(len(y)):
            xn = y[n]
            yn = (b0 * xn + z1) / a0
            z1 = b1 * xn - a1 * yn + z2
            z2 = b2 * xn - a2 * yn
            out[n] = yn
        y = out
    return y


def convolve_correlate_modes(x, h):
    """The three `np.convolve` modes and a normalised `np.correlate` lag."""
    full = np.convolve(x, h)
    same = np.convolve(x, h, mode="same")
    valid = np.convolve(x, h, mode="valid")
    xc = np.correlate(x, h, mode="valid") / (np.linalg.norm(h) + 1e-12)
    return full.sum(), same, valid.max(), np.argmax(xc)


def polyphase_decimate(x, h, m):
    """FIR filter then keep every m-th sample, computing only the kept outputs."""
    nt = len(h)
    nout = (len(x) - nt) // m + 1
    y = np.zeros(nout)
    for k in range(nout):
        start = k * m
        acc = 0.0
        for j in range(nt):
            acc += h[j] * x[start + nt - 1 - j]
        y[k] = acc
    return y


def levinson_durbin_lpc(x, order):
    """LPC coefficients from the autocorrelation (np.correlate) by Levinson-Durbin."""
    n = len(x)
    r = np.correlate(x, x, mode="full")[n - 1:n + order] / n
    a = np.zeros(order + 1)
    a[0] = 1.0
    err = r[0]
    for i in range(1, order + 1):
        acc = r[i]
        for j in range(1, i):
            acc += a[j] * r[i - j]
        k = -acc / err
        a_prev = a.copy()
        for j in range(1, i):
            a[j] = a_prev[j] + k * a_prev[i - j]
        a[i] = k
        err *= 1.0 - k * k
    return a, err


def zero_crossing_frames(x, frame, hop):
    """Zero-crossing rate and RMS of overlapping frames."""
    nframes = 1 + (len(x) - frame) // hop
    zcr = np.empty(nframes)
    rms = np.empty(nframes)
    for f in range(nframes):
        seg = x[f * hop:f * hop + frame]
        zcr[f] = np.count_nonzero(np.signbit(seg[1:]) != np.signbit(seg[:-1])) / (frame - 1)
        rms[f] = np.sqrt(np.mean(seg * seg))
    return zcr, rms


def envelope_peak_hold(x, attack, release, hold):
    """Peak envelope follower that holds the peak for `hold` samples before releasing."""
    env = np.zeros_like(x)
    level = 0.0
    count = 0
    for i in range(len(x)):
        v = abs(x[i])
        if v > level:
            level = level + attack * (v - level)
            count = hold
        elif count > 0:
            count -= 1
        else:
            level = level * release
        env[i] = level
    return env


# --- image processing ----------------------------------------------------------------------

def morph_open_3x3(img):
    """Grey-scale opening: 3x3 erosion by np.minimum of shifted slices, then dilation."""
    p = np.pad(img, 1, mode="edge")
    h, w = img.shape
    er = p[1:h + 1, 1:w + 1].copy()
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            np.minimum(er, p[1 + di:h + 1 + di, 1 + dj:w + 1 + dj], out=er)
    q = np.pad(er, 1, mode="edge")
    op = er.copy()
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            op = np.maximum(op, q[1 + di:h + 1 + di, 1 + dj:w + 1 + dj])
    return op


def _find_halving(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def label_8conn_halving(mask):
    """8-connected component labels by union-find with path halving, relabelled 1..k."""
    h, w = mask.shape
    parent = np.arange(h * w)
    for i in range(h):
        for j in range(w):
            if not mask[i, j]:
                continue
            for di, dj in ((-1, -1), (-1, 0), (-1, 1), (0, -1)):
                ni, nj = i + di, j + dj
                if 0 <= ni < h and 0 <= nj < w and mask[ni, nj]:
                    a = _find_halving(parent, i * w + j)
                    b = _find_halving(parent, ni * w + nj)
                    if a != b:
                        parent[max(a, b)] = min(a, b)
    labels = np.zeros((h, w), dtype=np.int64)
    names = {}
    for i in range(h):
        for j in range(w):
            if mask[i, j]:
                root = _find_halving(parent, i * w + j)
                if root not in names:
                    names[root] = len(names) + 1
                labels[i, j] = names[root]
    return labels, len(names)


def canny_gradient_sectors(img):
    """Sobel gradients, magnitude, and the direction quantised to 4 sectors by np.where."""
    gx = (img[:-2, 2:] + 2 * img[1:-1, 2:] + img[2:, 2:]
          - img[:-2, :-2] - 2 * img[1:-1, :-2] - img[2:, :-2])
    gy = (img[2:, :-2] + 2 * img[2:, 1:-1] + img[2:, 2:]
          - img[:-2, :-2] - 2 * img[:-2, 1:-1] - img[:-2, 2:])
    mag = np.hypot(gx, gy)
    ang = np.rad2deg(np.arctan2(gy, gx)) % 180.0
    sector = np.where((ang < 22.5) | (ang >= 157.5), 0,
                      np.where(ang < 67.5, 1, np.where(ang < 112.5, 2, 3)))
    return mag, sector


def hysteresis_tuple_stack(mag, lo, hi):
    """Canny hysteresis: strong pixels grow into weak neighbours with an explicit stack."""
    h, w = mag.shape
    out = np.zeros((h, w), dtype=bool)
    stack = []
    for i in range(h):
        for j in range(w):
            if mag[i, j] >= hi:
                out[i, j] = True
                stack.append((i, j))
    while stack:
        i, j = stack.pop()
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                ni = i + di
                nj = j + dj
                if 0 <= ni < h and 0 <= nj < w and not out[ni, nj] and mag[ni, nj] >= lo:
                    out[ni, nj] = True
                    stack.append((ni, nj))
    return out


def bilinear_resize_loops(img, oh, ow):
    """Bilinear resize with half-pixel centres, pixel by pixel, clamped with chained tests."""
    h, w = img.shape
    out = np.empty((oh, ow))
    sy = h / oh
    sx = w / ow
    for i in range(oh):
        y = (i + 0.5) * sy - 0.5
        y0 = int(math.floor(y))
        fy = y - y0
        for j in range(ow):
            x = (j + 0.5) * sx - 0.5
            x0 = int(math.floor(x))
            fx = x - x0
            acc = 0.0
            for dy, wy in ((0, 1.0 - fy), (1, fy)):
                for dx, wx in ((0, 1.0 - fx), (1, fx)):
                    yy = y0 + dy
                    xx = x0 + dx
                    yy = 0 if yy < 0 else (h - 1 if yy >= h else yy)
                    xx = 0 if xx < 0 else (w - 1 if xx >= w else xx)
                    acc += wy * wx * img[yy, xx]
            out[i, j] = acc
    return out


def integral_image_local_mean(img, r):
    """Integral image built with cumsum along both axes, then box means with clipped windows."""
    h, w = img.shape
    ii = np.zeros((h + 1, w + 1))
    np.cumsum(np.cumsum(img, axis=0), axis=1, out=ii[1:, 1:])
    out = np.empty((h, w))
    for i in range(h):
        i0, i1 = max(0, i - r), min(h, i + r + 1)
        for j in range(w):
            j0, j1 = max(0, j - r), min(w, j + r + 1)
            s = ii[i1, j1] - ii[i0, j1] - ii[i1, j0] + ii[i0, j0]
            out[i, j] = s / ((i1 - i0) * (j1 - j0))
    return out


def histogram_equalize_float(img, nbins):
    """Equalise a float image in [0, 1) through the CDF of `nbins` bins."""
    idx = np.minimum((img * nbins).astype(np.int64), nbins - 1)
    hist = np.bincount(idx.ravel(), minlength=nbins)
    cdf = np.cumsum(hist).astype(np.float64)
    cdf_min = cdf[cdf > 0].min()
    lut = (cdf - cdf_min) / max(cdf[-1] - cdf_min, 1.0)
    return np.clip(lut[idx], 0.0, 1.0)


# --- statistics ----------------------------------------------------------------------------

def _welford_step(n, mean, m2, x):
    n += 1
    delta = x - mean
    mean = mean + delta / n
    m2 = m2 + delta * (x - mean)
    return n, mean, m2


def welford_rows_helper(X):
    """Column means and variances by Welford, one row at a time through a tuple helper."""
    n = 0
    mean = np.zeros(X.shape[1])
    m2 = np.zeros(X.shape[1])
    for row in X:
        n, mean, m2 = _welford_step(n, mean, m2, row)
    return mean, m2 / (n - 1)


def bootstrap_median_ci(x, idx, alpha):
    """Bootstrap medians over given resample indices and a percentile interval."""
    meds = np.empty(idx.shape[0])
    for b in range(idx.shape[0]):
        meds[b] = np.median(x[idx[b]])
    lo, hi = np.percentile(meds, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return np.median(x), lo, hi


def kde_silverman(x, grid):
    """Gaussian KDE with Silverman's bandwidth from the standard deviation and the IQR."""
    n = len(x)
    q75, q25 = np.percentile(x, [75, 25])
    sigma = min(np.std(x, ddof=1), (q75 - q25) / 1.34)
    bw = 0.9 * sigma * n ** -0.2
    u = (grid[:, None] - x[None, :]) / bw
    return np.exp(-0.5 * u * u).sum(axis=1) / (n * bw * math.sqrt(2 * math.pi))


def kendall_tau_pairs(x, y):
    """Kendall's tau-a by counting concordant pairs with enumerate(zip(...))."""
    conc = 0
    disc = 0
    n = len(x)
    for i, (xi, yi) in enumerate(zip(x, y)):
        for j in range(i + 1, n):
            s = (xi - x[j]) * (yi - y[j])
            if s > 0:
                conc += 1
            elif s < 0:
                disc += 1
    return (conc - disc) / (n * (n - 1) / 2)


def weighted_median_early(x, w):
    """Weighted median: walk the sorted values and return as soon as half the weight is passed."""
    order = np.argsort(x)
    half = 0.5 * w.sum()
    acc = 0.0
    for k in order:
        acc += w[k]
        if acc >= half:
            return x[k]
    return x[order[-1]]


def quantiles_by_hand(x, qs):
    """Linear-interpolation quantiles of a sorted copy, as np.quantile's default."""
    s = np.sort(x)
    n = len(s)
    out = np.empty(len(qs))
    for k, q in enumerate(qs):
        pos = q * (n - 1)
        lo = int(math.floor(pos))
        hi = min(lo + 1, n - 1)
        frac = pos - lo
        out[k] = s[lo] + (s[hi] - s[lo]) * frac
    return out


# --- finance -------------------------------------------------------------------------------

def american_put_binomial(s0, k, r, sigma, t, n):
    """American put on a CRR tree, early exercise by np.maximum at every level."""
    dt = t / n
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    j = np.arange(n + 1)
    prices = s0 * u ** (n - j) * d ** j
    v = np.maximum(k - prices, 0.0)
    for step in range(n - 1, -1, -1):
        j = np.arange(step + 1)
        prices = s0 * u ** (step - j) * d ** j
        v = np.maximum(disc * (p * v[:-1] + (1 - p) * v[1:]), k - prices)
    return v[0]


def barrier_paths_given_normals(s0, mu, sigma, dt, z, barrier, strike):
    """Up-and-out call on GBM paths built from given normals; knocked-out paths pay nothing."""
    steps = mu - 0.5 * sigma * sigma
    logp = np.log(s0) + np.cumsum(steps * dt + sigma * math.sqrt(dt) * z, axis=1)
    paths = np.exp(logp)
    alive = ~(paths >= barrier).any(axis=1)
    payoff = np.where(alive, np.maximum(paths[:, -1] - strike, 0.0), 0.0)
    return payoff.mean(), alive.mean()


def ewma_covariance(returns, lam):
    """RiskMetrics EWMA covariance matrix, updated one day at a time with np.outer."""
    cov = np.cov(returns[:10].T)
    for t in range(10, returns.shape[0]):
        r = returns[t]
        cov = lam * cov + (1.0 - lam) * np.outer(r, r)
    return cov


def drawdown_durations(prices):
    """Maximum drawdown and the longest time spent below a previous peak."""
    peak = prices[0]
    max_dd = 0.0
    longest = 0
    current = 0
    for p in prices:
        if p >= peak:
            peak = p
            current = 0
        else:
            current += 1
            dd = (peak - p) / peak
            if dd > max_dd:
                max_dd = dd
            if current > longest:
                longest = current
    return max_dd, longest


def vwap_session_resets(price, volume, new_session):
    """Running VWAP that restarts where `new_session` is set (prefix sums with resets)."""
    out = np.empty_like(price)
    pv = 0.0
    vv = 0.0
    for i in range(len(price)):
        if new_session[i]:
            pv = 0.0
            vv = 0.0
        pv += price[i] * volume[i]
        vv += volume[i]
        out[i] = pv / vv
    return out


# --- integer algorithms --------------------------------------------------------------------

def popcount_kernighan(a):
    """Set bits of each non-negative integer by clearing the lowest one in a while loop."""
    out = np.zeros(len(a), dtype=np.int64)
    for i in range(len(a)):
        v = int(a[i])
        c = 0
        while v:
            v &= v - 1
            c += 1
        out[i] = c
    return out, out.sum()


def stein_gcd_pairs(a, b):
    """Binary (Stein's) gcd of each pair of positive integers."""
    out = np.empty(len(a), dtype=np.int64)
    for i in range(len(a)):
        u = int(a[i])
        v = int(b[i])
        shift = 0
        while ((u | v) & 1) == 0:
            u >>= 1
            v >>= 1
            shift += 1
        while (u & 1) == 0:
            u >>= 1
        while v:
            while (v & 1) == 0:
                v >>= 1
            if u > v:
                u, v = v, u
            v -= u
        out[i] = u << shift
    return out


def lcm_running_mod(a, m):
    """Running lcm of the array's values, reduced modulo m, with Euclid's gcd in a loop."""
    out = np.empty(len(a), dtype=np.int64)
    cur = 1
    for i in range(len(a)):
        x = int(a[i])
        g, h = cur, x
        while h:
            g, h = h, g % h
        cur = cur // g * x
        out[i] = cur % m
    return out


def rle_by_diff(a):
    """Run-length encoding with np.diff/np.flatnonzero: values, starts, lengths."""
    change = np.flatnonzero(np.diff(a)) + 1
    starts = np.concatenate(([0], change))
    lengths = np.diff(np.concatenate((starts, [len(a)])))
    return a[starts], starts, lengths


def cumsum_resets_on_zero(x):
    """Prefix sums that restart after every zero value, and the longest positive run's sum."""
    out = np.zeros(len(x), dtype=x.dtype)
    acc = 0
    best = 0
    for i, v in enumerate(x):
        if v == 0:
            acc = 0
        else:
            acc += v
        out[i] = acc
        best = max(best, acc)
    return out, best


# --- geometry ------------------------------------------------------------------------------

def _cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def monotone_chain_area(pts):
    """Andrew's monotone chain hull over lexicographically sorted points, then its area."""
    order = np.lexsort((pts[:, 1], pts[:, 0]))
    p = pts[order]
    lower = []
    for q in p:
        while len(lower) >= 2 and _cross(lower[-2], lower[-1], q) <= 0:
            lower.pop()
        lower.append(q)
    upper = []
    for q in p[::-1]:
        while len(upper) >= 2 and _cross(upper[-2], upper[-1], q) <= 0:
            upper.pop()
        upper.append(q)
    hull = np.array(lower[:-1] + upper[:-1])
    x, y = hull[:, 0], hull[:, 1]
    return len(hull), 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def winding_numbers(points, poly):
    """Winding number of each point about a closed polygon (vertices in order)."""
    n = len(poly)
    out = np.zeros(len(points), dtype=np.int64)
    for k in range(len(points)):
        px, py = points[k]
        wn = 0
        for i in range(n):
            x0, y0 = poly[i]
            x1, y1 = poly[(i + 1) % n]
            side = (x1 - x0) * (py - y0) - (px - x0) * (y1 - y0)
            if y0 <= py:
                if y1 > py and side > 0:
                    wn += 1
            elif y1 <= py and side < 0:
                wn -= 1
        out[k] = wn
    return out


def _orient(ax, ay, bx, by, cx, cy):
    v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    return 1 if v > 0 else (-1 if v < 0 else 0)


def first_crossing_segments(segs):
    """The first pair of segments (i, j) that properly cross, returned from the nested loops."""
    m = segs.shape[0]
    for i in range(m):
        ax, ay, bx, by = segs[i]
        for j in range(i + 1, m):
            cx, cy, dx, dy = segs[j]
            o1 = _orient(ax, ay, bx, by, cx, cy)
            o2 = _orient(ax, ay, bx, by, dx, dy)
            o3 = _orient(cx, cy, dx, dy, ax, ay)
            o4 = _orient(cx, cy, dx, dy, bx, by)
            if o1 != o2 and o3 != o4:
                return i, j
    return -1, -1


def nearest_neighbour_loops(P, Q):
    """For each point of P the nearest point of Q and its distance, by plain loops."""
    idx = np.empty(len(P), dtype=np.int64)
    dist = np.empty(len(P))
    for i in range(len(P)):
        best = math.inf
        bj = -1
        for j in range(len(Q)):
            dx = P[i, 0] - Q[j, 0]
            dy = P[i, 1] - Q[j, 1]
            d = dx * dx + dy * dy
            if d < best:
                best = d
                bj = j
        idx[i] = bj
        dist[i] = math.sqrt(best)
    return idx, dist


def polygon_centroid_zip(xs, ys):
    """Polygon area and centroid by the shoelace formula over enumerate(zip(xs, ys))."""
    n = len(xs)
    a = 0.0
    cx = 0.0
    cy = 0.0
    for i, (x0, y0) in enumerate(zip(xs, ys)):
        x1 = xs[(i + 1) % n]
        y1 = ys[(i + 1) % n]
        c = x0 * y1 - x1 * y0
        a += c
        cx += (x0 + x1) * c
        cy += (y0 + y1) * c
    a *= 0.5
    return a, cx / (6 * a), cy / (6 * a)


# --- code styles ---------------------------------------------------------------------------

def newton_sqrt_while(a, tol, maxit):
    """Elementwise Newton square roots until the largest step is below tol or maxit is reached."""
    x = np.maximum(a, 1.0)
    it = 0
    step = np.inf
    while step > tol and it < maxit:
        nx = 0.5 * (x + a / x)
        step = np.max(np.abs(nx - x))
        x = nx
        it += 1
    return x, it


def ridge_path_solve(X, y, lams):
    """Ridge solutions over a list of penalties: `X.T @ X` once, np.linalg.solve per penalty."""
    g = X.T @ X
    b = X.T @ y
    eye = np.eye(X.shape[1])
    coefs = np.empty((len(lams), X.shape[1]))
    for k, lam in enumerate(lams):
        coefs[k] = np.linalg.solve(g + lam * eye, b)
    return coefs, ((X @ coefs.T - y[:, None]) ** 2).mean(axis=0)


def irls_logistic(X, y, iters):
    """Logistic regression by Newton/IRLS: a weighted `X.T @ (w * X)` solve per iteration."""
    beta = np.zeros(X.shape[1])
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(X @ beta)))
        w = p * (1.0 - p)
        H = X.T @ (w[:, None] * X) + 1e-6 * np.eye(X.shape[1])
        beta = beta + np.linalg.solve(H, X.T @ (y - p))
    return beta


def out_args_pipeline(x, y):
    """A pipeline written with ufunc `out=` arguments into preallocated buffers."""
    buf = np.empty_like(x)
    tmp = np.empty_like(x)
    np.multiply(x, y, out=buf)
    np.add(buf, 1.0, out=buf)
    np.abs(buf, out=tmp)
    np.sqrt(tmp, out=tmp)
    np.clip(buf, -2.0, 2.0, out=buf)
    np.subtract(buf, tmp, out=buf)
    return buf, tmp.sum()


def where_chain_tax(income):
    """Piecewise tax by np.where chains and boolean-mask updates."""
    tax = np.where(income <= 10000, 0.0,
                   np.where(income <= 40000, 0.2 * (income - 10000),
                            6000 + 0.4 * (income - 40000)))
    high = income > 100000
    tax[high] += 0.05 * (income[high] - 100000)
    tax[income < 0] = 0.0
    return tax, (tax > 0).sum()


def math_elements_loop(x, y):
    """Per-element math.* calls in a loop: atan2, log1p, exp, hypot, fabs."""
    out = np.empty(len(x))
    for i in range(len(x)):
        a = math.atan2(y[i], x[i])
        b = math.log1p(math.fabs(x[i]))
        out[i] = math.exp(-b) * a + math.hypot(x[i], y[i])
    return out


def float32_scalar_mix(x):
    """float32 arrays with np.float32 scalars and Python floats mixed (NEP 50 promotion)."""
    gain = np.float32(0.5)
    bias = np.float32(0.1)
    y = gain * x + bias
    z = y * 2.5 - 1.0
    w = z / np.float32(3.0) + np.float64(0.25)
    return y, z, w.astype(np.float32), float(y.sum())


def float32_scalar_loop(x, alpha):
    """One-pole smoother on float32 data with np.float32 state and a Python float alpha."""
    out = np.empty_like(x)
    s = np.float32(0.0)
    for i in range(len(x)):
        s = s + alpha * (x[i] - s)
        out[i] = s
    return out


def transpose_matmul_gram(A, B):
    """Cross-Gram `A.T @ B`, its column norms and a `B.T @ A @ v` product."""
    g = A.T @ B
    norms = np.sqrt((g * g).sum(axis=0))
    v = np.ones(A.shape[1])
    return g, norms, B.T @ A @ v


def bisection_while_cap(coeffs, lo, hi, tol, cap):
    """Root of a polynomial by bisection with a tolerance and an iteration cap."""
    flo = np.polyval(coeffs, lo)
    it = 0
    while hi - lo > tol and it < cap:
        mid = 0.5 * (lo + hi)
        fm = np.polyval(coeffs, mid)
        if (fm < 0) == (flo < 0):
            lo, flo = mid, fm
        else:
            hi = mid
        it += 1
    return 0.5 * (lo + hi), it
