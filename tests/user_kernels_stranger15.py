"""Kernels in styles the rest of the corpus lacks: geospatial helpers, `np.nditer` /
`np.ndenumerate` / `itertools` / `functools` loops, small classes with `@staticmethod`,
`@classmethod` and `@property`, closures and keyword arguments, scikit-style `partial_fit`,
Fortran-style 1-based `while` loops, and NumPy routines nobody had called yet (`np.select`,
`np.piecewise`, `np.isin`, `np.trapezoid`, `np.gradient`, `np.cumprod`, `np.logaddexp`,
`np.sinc`, `np.kron`, `np.choose`, `np.argwhere`, `np.indices`, `np.ogrid`, `np.packbits`,
`np.fmod`, `np.isclose`, `np.apply_along_axis`, `np.fromiter`)."""

import functools
import itertools
import math

import numpy as np

EARTH_RADIUS_KM = 6371.0088


# --- geospatial ---------------------------------------------------------------------------

def haversine_matrix(lat, lon):
    """Great-circle distances (km) between every pair of points given in degrees."""
    phi = np.radians(lat)
    lam = np.radians(lon)
    dphi = phi[:, None] - phi[None, :]
    dlam = lam[:, None] - lam[None, :]
    a = np.sin(dphi / 2) ** 2 + np.cos(phi[:, None]) * np.cos(phi[None, :]) * np.sin(dlam / 2) ** 2
    return 2 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))


def haversine_track_length(lat, lon):
    """Length of a GPS track: the sum of the haversine legs, one `math` call at a time."""
    total = 0.0
    for i in range(1, len(lat)):
        p1, p2 = math.radians(lat[i - 1]), math.radians(lat[i])
        dp = p2 - p1
        dl = math.radians(lon[i] - lon[i - 1])
        a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
        total += 2 * EARTH_RADIUS_KM * math.asin(math.sqrt(a))
    return total


def douglas_peucker(points, eps):
    """Ramer-Douglas-Peucker simplification with an explicit stack: a mask of kept points."""
    n = points.shape[0]
    keep = np.zeros(n, dtype=np.bool_)
    keep[0] = True
    keep[n - 1] = True
    stack = [(0, n - 1)]
    while stack:
        start, end = stack.pop()
        if end <= start + 1:
            continue
        x0, y0 = points[start]
        x1, y1 = points[end]
        dx, dy = x1 - x0, y1 - y0
        norm = math.sqrt(dx * dx + dy * dy)
        seg = points[start + 1:end]
        if norm == 0.0:
            d = np.hypot(seg[:, 0] - x0, seg[:, 1] - y0)
        else:
            d = np.abs(dy * (seg[:, 0] - x0) - dx * (seg[:, 1] - y0)) / norm
        k = int(np.argmax(d))
        if d[k] > eps:
            idx = start + 1 + k
            keep[idx] = True
            stack.append((start, idx))
            stack.append((idx, end))
    return keep


def points_in_polygon_edges(px, py, vx, vy):
    """Even-odd ray casting for many points at once, looping over the polygon's edges."""
    inside = np.zeros(px.shape, dtype=np.bool_)
    n = len(vx)
    j = n - 1
    for i in range(n):
        crosses = (vy[i] > py) != (vy[j] > py)
        xint = (vx[j] - vx[i]) * (py - vy[i]) / (vy[j] - vy[i] + 1e-300) + vx[i]
        inside ^= crosses & (px < xint)
        j = i
    return inside


def bearing_degrees(lat1, lon1, lat2, lon2):
    """Initial compass bearing from each first point to each second point, in [0, 360)."""
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dl = np.radians(lon2 - lon1)
    x = np.sin(dl) * np.cos(p2)
    y = np.cos(p1) * np.sin(p2) - np.sin(p1) * np.cos(p2) * np.cos(dl)
    return np.fmod(np.degrees(np.arctan2(x, y)) + 360.0, 360.0)


# --- iteration helpers ----------------------------------------------------------------------

def nditer_sum_squares(a):
    """Sum of squares by `np.nditer`, the way the NumPy iteration tutorial shows it."""
    total = 0.0
    for x in np.nditer(a):
        total += float(x) * float(x)
    return total


def ndenumerate_weighted(a):
    """Sum of each element times its 1-based row and column numbers."""
    s = 0.0
    for (i, j), v in np.ndenumerate(a):
        s += v * (i + 1) * (j + 1)
    return s


def combinations_min_distance(pts):
    """Closest pair distance by `itertools.combinations` over the point indices."""
    best = np.inf
    for i, j in itertools.combinations(range(pts.shape[0]), 2):
        d = np.sqrt(np.sum((pts[i] - pts[j]) ** 2))
        if d < best:
            best = d
    return best


def product_grid_fill(nx, ny, h):
    """Fill a grid of `sin(x) * cos(y)` through `itertools.product` over its indices."""
    out = np.empty((nx, ny))
    for i, j in itertools.product(range(nx), range(ny)):
        out[i, j] = math.sin(i * h) * math.cos(j * h)
    return out


def accumulate_running_max(x):
    """Running maximum with `itertools.accumulate(..., max)`, back into an array."""
    return np.array(list(itertools.accumulate(x, max)))


def reduce_matrix_chain(mats):
    """Product of a list of matrices with `functools.reduce(np.matmul, ...)`."""
    return functools.reduce(np.matmul, mats)


def zip_pairwise_slopes(x, y):
    """Slopes between consecutive samples by `zip` of shifted slices (the `pairwise` idiom)."""
    out = np.empty(len(x) - 1)
    for k, ((x0, y0), (x1, y1)) in enumerate(zip(zip(x[:-1], y[:-1]), zip(x[1:], y[1:]))):
        out[k] = (y1 - y0) / (x1 - x0)
    return out


# --- small classes, closures, keyword arguments --------------------------------------------

class StandardScaler:
    """scikit-learn's scaler: running mean and variance merged batch by batch (Chan et al.)."""

    def __init__(self):
        self.n = 0
        self.mean = None
        self.m2 = None

    def partial_fit(self, X):
        nb = X.shape[0]
        mb = X.mean(axis=0)
        m2b = ((X - mb) ** 2).sum(axis=0)
        if self.n == 0:
            self.mean, self.m2 = mb, m2b
        else:
            tot = self.n + nb
            delta = mb - self.mean
            self.mean = self.mean + delta * nb / tot
            self.m2 = self.m2 + m2b + delta ** 2 * self.n * nb / tot
        self.n += nb
        return self

    def transform(self, X):
        return (X - self.mean) / np.sqrt(self.m2 / self.n)


def scaler_partial_fit(X, batch):
    """Fit the scaler in batches, then transform the whole data set."""
    sc = StandardScaler()
    for start in range(0, X.shape[0], batch):
        sc.partial_fit(X[start:start + batch])
    return sc.transform(X)


class MinMaxScaler:
    """Running per-feature minimum and maximum, updated with `partial_fit`."""

    def __init__(self, lo=0.0, hi=1.0):
        self.lo, self.hi = lo, hi
        self.data_min = None
        self.data_max = None

    def partial_fit(self, X):
        bmin, bmax = X.min(axis=0), X.max(axis=0)
        if self.data_min is None:
            self.data_min, self.data_max = bmin, bmax
        else:
            self.data_min = np.minimum(self.data_min, bmin)
            self.data_max = np.maximum(self.data_max, bmax)

    def transform(self, X):
        span = self.data_max - self.data_min
        span = np.where(span == 0, 1.0, span)
        return self.lo + (X - self.data_min) / span * (self.hi - self.lo)


def minmax_partial_fit(X, batch):
    sc = MinMaxScaler(lo=-1.0, hi=1.0)
    for start in range(0, X.shape[0], batch):
        sc.partial_fit(X[start:start + batch])
    return sc.transform(X)


class Boxes:
    """Axis-aligned boxes as an (n, 4) array of x0, y0, x1, y1."""

    def __init__(self, xyxy):
        self.xyxy = xyxy

    @classmethod
    def from_centers(cls, cx, cy, w, h):
        return cls(np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1))

    @staticmethod
    def _area(b):
        return np.maximum(b[:, 2] - b[:, 0], 0) * np.maximum(b[:, 3] - b[:, 1], 0)

    @property
    def area(self):
        return self._area(self.xyxy)

    def iou(self, other):
        a, b = self.xyxy, other.xyxy
        x0 = np.maximum(a[:, None, 0], b[None, :, 0])
        y0 = np.maximum(a[:, None, 1], b[None, :, 1])
        x1 = np.minimum(a[:, None, 2], b[None, :, 2])
        y1 = np.minimum(a[:, None, 3], b[None, :, 3])
        inter = np.maximum(x1 - x0, 0) * np.maximum(y1 - y0, 0)
        return inter / (self.area[:, None] + other.area[None, :] - inter)


def box_iou_classmethod(c1, c2):
    """IoU matrix of two box sets built with a `@classmethod` from centres and sizes."""
    a = Boxes.from_centers(c1[:, 0], c1[:, 1], c1[:, 2], c1[:, 3])
    b = Boxes.from_centers(c2[:, 0], c2[:, 1], c2[:, 2], c2[:, 3])
    return a.iou(b)


def _ema(x, alpha=0.3, adjust=False):
    out = np.empty_like(x)
    acc = x[0]
    for i in range(len(x)):
        acc = alpha * x[i] + (1 - alpha) * acc if i else x[0]
        out[i] = acc
    if adjust:
        out /= 1 - (1 - alpha) ** np.arange(1, len(x) + 1)
    return out


def ema_keyword_passes(x, passes=2, *, alpha=0.2):
    """Smooth several times with a helper called by keyword and default arguments."""
    y = x
    for _ in range(passes):
        y = _ema(y, alpha=alpha)
    return y


def make_normalizer(mu, sd):
    def apply(v):
        return (v - mu) / sd
    return apply


def closure_normalize_rows(X):
    """Normalise each row with a closure made from that row's statistics."""
    out = np.empty_like(X)
    for i in range(X.shape[0]):
        f = make_normalizer(X[i].mean(), X[i].std() + 1e-12)
        out[i] = f(X[i])
    return out


def solow_growth(k0, periods, s=0.25, alpha=0.33, delta=0.05, n=0.01):
    """Capital per worker in the Solow model, Python floats with default parameters."""
    k = np.empty(periods + 1)
    k[0] = k0
    for t in range(periods):
        k[t + 1] = (s * k[t] ** alpha + (1 - delta) * k[t]) / (1 + n)
    return k


# --- Fortran and MATLAB habits ----------------------------------------------------------------

def fortran_tridiag_1based(a, b, c, d):
    """Thomas algorithm transcribed from Fortran: 1-based indices shifted by one, `while`."""
    n = len(d)
    cp = np.empty(n)
    dp = np.empty(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    i = 2
    while i <= n:
        m = b[i - 1] - a[i - 1] * cp[i - 2]
        cp[i - 1] = c[i - 1] / m
        dp[i - 1] = (d[i - 1] - a[i - 1] * dp[i - 2]) / m
        i = i + 1
    x = np.empty(n)
    x[n - 1] = dp[n - 1]
    i = n - 1
    while i >= 1:
        x[i - 1] = dp[i - 1] - cp[i - 1] * x[i]
        i = i - 1
    return x


def empty_then_fill_trapz(f, h):
    """Cumulative trapezoid rule written as `np.empty` then an explicit fill loop."""
    n = f.shape[0]
    out = np.empty(n)
    out[0] = 0.0
    k = 1
    while k < n:
        out[k] = out[k - 1] + 0.5 * h * (f[k - 1] + f[k])
        k += 1
    return out


# --- sparse by hand -------------------------------------------------------------------------

def coo_spmm(rows, cols, vals, B, n_rows):
    """Sparse (COO) times dense: one scaled row of B added per stored entry."""
    out = np.zeros((n_rows, B.shape[1]))
    for k in range(len(vals)):
        out[rows[k]] += vals[k] * B[cols[k]]
    return out


def csr_row_normalize(indptr, data):
    """Scale each CSR row to unit L1 norm, in place, and return the row sums."""
    sums = np.zeros(len(indptr) - 1)
    for r in range(len(indptr) - 1):
        s = 0.0
        for k in range(indptr[r], indptr[r + 1]):
            s += abs(data[k])
        sums[r] = s
        if s > 0:
            for k in range(indptr[r], indptr[r + 1]):
                data[k] /= s
    return sums


def csr_diagonal(indptr, indices, data, n):
    """The diagonal of a CSR matrix by scanning each row's column indices."""
    diag = np.zeros(n)
    for r in range(n):
        for k in range(indptr[r], indptr[r + 1]):
            if indices[k] == r:
                diag[r] += data[k]
    return diag


# --- NumPy routines not used elsewhere ----------------------------------------------------------

def tax_brackets_select(income):
    """Progressive tax by `np.select` over bracket conditions."""
    conds = [income <= 10000, income <= 40000, income <= 90000]
    taxes = [income * 0.1, 1000 + (income - 10000) * 0.2, 7000 + (income - 40000) * 0.3]
    return np.select(conds, taxes, default=22000 + (income - 90000) * 0.45)


def piecewise_ramp(x):
    """A clipped ramp with a quadratic knee, by `np.piecewise`."""
    return np.piecewise(x, [x < 0, (x >= 0) & (x < 1), x >= 1],
                        [0.0, lambda v: v * v / 2, lambda v: v - 0.5])


def isin_filter_sum(labels, values, keep):
    """Sum of the values whose label is one of `keep`."""
    return values[np.isin(labels, keep)].sum()


def trapezoid_columns(y, x):
    """Integral of each column of samples over uneven abscissae."""
    return np.trapezoid(y, x, axis=0)


def gradient_magnitude(field, dx):
    """Central-difference gradient magnitude of a 2-D field (`np.gradient`)."""
    gy, gx = np.gradient(field, dx)
    return np.sqrt(gx * gx + gy * gy)


def survival_cumprod(hazard):
    """Survival curve and expected lifetime from per-period hazards."""
    surv = np.cumprod(1.0 - hazard)
    return surv, surv.sum()


def logistic_loss_logaddexp(X, y, w):
    """Numerically stable logistic loss with labels in {-1, 1}."""
    z = X @ w
    return np.mean(np.logaddexp(0.0, -y * z))


def lanczos_resample(x, factor, a=3):
    """Lanczos resampling of a 1-D signal with `np.sinc` weights, one output at a time."""
    n_out = int(len(x) * factor)
    out = np.zeros(n_out)
    for i in range(n_out):
        center = i / factor
        lo = int(math.floor(center)) - a + 1
        idx = np.arange(lo, lo + 2 * a)
        w = np.sinc(center - idx) * np.sinc((center - idx) / a)
        idx = np.clip(idx, 0, len(x) - 1)
        out[i] = np.dot(w, x[idx]) / w.sum()
    return out


def kron_laplacian_apply(n, u):
    """2-D Dirichlet Laplacian assembled with `np.kron` of 1-D stencils, applied to u."""
    T = 2 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
    Id = np.eye(n)
    L = np.kron(T, Id) + np.kron(Id, T)
    return L @ u


def choose_palette(idx, r, g, b):
    """Pick one of three channels per pixel with `np.choose`."""
    return np.choose(idx, [r, g, b])


def argwhere_local_maxima(img):
    """Coordinates of strict 4-neighbour local maxima of the interior."""
    c = img[1:-1, 1:-1]
    m = (c > img[:-2, 1:-1]) & (c > img[2:, 1:-1]) & (c > img[1:-1, :-2]) & (c > img[1:-1, 2:])
    return np.argwhere(m) + 1


def radial_profile_indices(img):
    """Mean intensity by integer radius from the centre, via `np.indices` and `bincount`."""
    yy, xx = np.indices(img.shape)
    cy, cx = (img.shape[0] - 1) / 2, (img.shape[1] - 1) / 2
    r = np.sqrt((yy - cy) ** 2 + (xx - cx) ** 2).astype(np.int64)
    return np.bincount(r.ravel(), img.ravel()) / np.bincount(r.ravel())


def gaussian_ogrid(n, sigma):
    """A normalised 2-D Gaussian kernel built on an open grid."""
    y, x = np.ogrid[-n:n + 1, -n:n + 1]
    g = np.exp(-(x * x + y * y) / (2.0 * sigma * sigma))
    return g / g.sum()


def packbits_jaccard(A):
    """Jaccard similarity of boolean rows packed into bytes, popcounts by a table."""
    packed = np.packbits(A, axis=1)
    table = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)
    n = A.shape[0]
    out = np.zeros((n, n))
    for i in range(n):
        inter = table[packed[i] & packed].sum(axis=1)
        union = table[packed[i] | packed].sum(axis=1)
        out[i] = inter / np.maximum(union, 1)
    return out


def isclose_matches(a, b):
    """How many pairs agree within tolerance, and where the first disagreement is."""
    ok = np.isclose(a, b, rtol=1e-3, atol=1e-6)
    bad = np.flatnonzero(~ok)
    return int(ok.sum()), (int(bad[0]) if bad.size else -1)


def apply_along_rows_range(X):
    """Peak-to-peak of each row through `np.apply_along_axis` with a lambda."""
    return np.apply_along_axis(lambda r: r.max() - r.min(), 1, X)


def fromiter_squares(n):
    """Squares of 0..n-1 from a generator with `np.fromiter`."""
    return np.fromiter((i * i for i in range(n)), dtype=np.int64, count=n)


# --- audio and simulation ---------------------------------------------------------------------

def pitch_autocorr(frame, fs, fmin, fmax):
    """Fundamental frequency of a frame by the peak of its autocorrelation between lags."""
    frame = frame - frame.mean()
    lo, hi = int(fs / fmax), int(fs / fmin)
    best_lag, best = lo, -np.inf
    for lag in range(lo, hi + 1):
        r = np.dot(frame[:-lag], frame[lag:])
        if r > best:
            best, best_lag = r, lag
    return fs / best_lag


def ray_aabb_slab(origins, dirs, lo, hi):
    """Slab test of many rays against one box: entry distance, or inf on a miss."""
    inv = 1.0 / dirs
    t0 = (lo - origins) * inv
    t1 = (hi - origins) * inv
    tmin = np.minimum(t0, t1).max(axis=1)
    tmax = np.maximum(t0, t1).min(axis=1)
    hit = (tmax >= np.maximum(tmin, 0.0))
    return np.where(hit, np.maximum(tmin, 0.0), np.inf)


def cyclic_ca(grid, n_states, steps):
    """Griffeath's cyclic cellular automaton on a torus (von Neumann neighbourhood)."""
    g = grid.copy()
    for _ in range(steps):
        nxt = (g + 1) % n_states
        eaten = ((np.roll(g, 1, 0) == nxt) | (np.roll(g, -1, 0) == nxt)
                 | (np.roll(g, 1, 1) == nxt) | (np.roll(g, -1, 1) == nxt))
        g = np.where(eaten, nxt, g)
    return g


def mean_shift_1d(x, bandwidth, iters):
    """Flat-kernel mean shift of every sample towards its mode."""
    m = x.copy()
    for _ in range(iters):
        near = np.abs(m[:, None] - x[None, :]) <= bandwidth
        m = (near * x[None, :]).sum(axis=1) / near.sum(axis=1)
    return m
