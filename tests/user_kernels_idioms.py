"""Kernels whose Python around the NumPy is the point: module-level lookup tables (tuples,
dicts of floats), `math.*` on scalars, `itertools.product` over offsets, comprehensions and
generator expressions fed to `sum()`/`np.array()`/`max()`, `assert` and `raise ValueError`
checks, `isinstance` dispatch, `*args` with keyword-only options, `enumerate`/`zip`/
`reversed`, a `global` counter, `np.float32` scalars, integer `//` and `%` on negative
numbers, `divmod`, and `abs`/`round`/`int()` of NumPy scalars."""

import itertools
import math

import numpy as np

SG_COEFFS = {5: (-3.0, 12.0, 17.0, 12.0, -3.0),
             7: (-2.0, 3.0, 6.0, 7.0, 6.0, 3.0, -2.0),
             9: (-21.0, 14.0, 39.0, 54.0, 59.0, 54.0, 39.0, 14.0, -21.0)}
SG_NORMS = {5: 35.0, 7: 21.0, 9: 231.0}


def savgol_table_smooth(y, window=7):
    if window not in SG_COEFFS:
        raise ValueError(f"no Savitzky-Golay table for window {window}")
    coeffs = SG_COEFFS[window]
    half = window // 2
    out = y.copy()
    for i in range(half, len(y) - half):
        out[i] = sum(c * y[i + j - half] for j, c in enumerate(coeffs)) / SG_NORMS[window]
    return out


def goertzel_bank(x, fs, freqs=(697.0, 770.0, 852.0, 941.0, 1209.0, 1336.0, 1477.0)):
    n = len(x)
    powers = []
    for f in freqs:
        k = int(0.5 + n * f / fs)
        coeff = 2.0 * math.cos(2.0 * math.pi * k / n)
        s_prev = 0.0
        s_prev2 = 0.0
        for sample in x:
            s = sample + coeff * s_prev - s_prev2
            s_prev2 = s_prev
            s_prev = s
        powers.append(s_prev2 ** 2 + s_prev ** 2 - coeff * s_prev * s_prev2)
    return np.array(powers)


N_STENCIL_CALLS = 0


def stencil_27_point(u, n_iter, weights=(0.5, 0.3, 0.15, 0.05)):
    global N_STENCIL_CALLS
    N_STENCIL_CALLS = 0
    nx, ny, nz = u.shape
    for _ in range(n_iter):
        new = np.zeros_like(u)
        for dx, dy, dz in itertools.product((-1, 0, 1), repeat=3):
            w = weights[abs(dx) + abs(dy) + abs(dz)]
            new[1:-1, 1:-1, 1:-1] += w * u[1 + dx:nx - 1 + dx, 1 + dy:ny - 1 + dy,
                                           1 + dz:nz - 1 + dz]
            N_STENCIL_CALLS += 1
        u = new / sum(weights[abs(a) + abs(b) + abs(c)]
                      for a, b, c in itertools.product((-1, 0, 1), repeat=3))
    return u, N_STENCIL_CALLS


def julia_f32(width, height, c_re, c_im, max_iter=64):
    xs = np.linspace(-1.6, 1.6, width, dtype=np.float32)
    ys = np.linspace(-1.0, 1.0, height, dtype=np.float32)
    zr = np.empty((height, width), dtype=np.float32)
    zi = np.empty((height, width), dtype=np.float32)
    zr[:] = xs[None, :]
    zi[:] = ys[:, None]
    cr = np.float32(c_re)
    ci = np.float32(c_im)
    counts = np.zeros((height, width), dtype=np.int32)
    four = np.float32(4.0)
    for _ in range(max_iter):
        inside = zr * zr + zi * zi <= four
        counts += inside
        zr, zi = (np.where(inside, zr * zr - zi * zi + cr, zr),
                  np.where(inside, np.float32(2.0) * zr * zi + ci, zi))
    return counts


def newton_fractal_cubic(n, max_iter=30, tol=1e-6):
    roots = ((1.0, 0.0), (-0.5, math.sqrt(3) / 2), (-0.5, -math.sqrt(3) / 2))
    x = np.linspace(-2.0, 2.0, n)
    zr = np.repeat(x[None, :], n, axis=0)
    zi = np.repeat(x[::-1, None], n, axis=1)
    for _ in range(max_iter):
        # z - (z^3 - 1) / (3 z^2), in real arithmetic
        r2 = zr * zr - zi * zi
        i2 = 2 * zr * zi
        r3 = r2 * zr - i2 * zi
        i3 = r2 * zi + i2 * zr
        den = 3 * (r2 * r2 + i2 * i2) + 1e-30
        fr = r3 - 1.0
        zr = zr - (fr * 3 * r2 + i3 * 3 * i2) / den
        zi = zi - (i3 * 3 * r2 - fr * 3 * i2) / den
    basin = np.full((n, n), -1, dtype=np.int8)
    for k, (rr, ri) in enumerate(roots):
        basin[(zr - rr) ** 2 + (zi - ri) ** 2 < tol] = k
    return basin


RULE_30 = tuple((30 >> k) & 1 for k in range(8))


def rule30_history(width, steps, seed_pos=None):
    if seed_pos is None:
        seed_pos = width // 2
    table = np.array(RULE_30, dtype=np.uint8)
    row = np.zeros(width, dtype=np.uint8)
    row[seed_pos] = 1
    history = np.empty((steps, width), dtype=np.uint8)
    for t in range(steps):
        history[t] = row
        left = np.roll(row, 1)
        right = np.roll(row, -1)
        row = table[(left << 2) | (row << 1) | right]
    centre = history[:32, seed_pos].astype(np.int64)
    bits = sum(int(b) << k for k, b in enumerate(reversed(centre)))
    return history, bits


def periodic_laplacian_idx(u, offsets=((-1, 0), (1, 0), (0, -1), (0, 1))):
    n, m = u.shape
    out = np.empty_like(u)
    for idx in range(n * m):
        i, j = divmod(idx, m)
        acc = -len(offsets) * u[i, j]
        for di, dj in offsets:
            acc += u[(i + di) % n, (j + dj) % m]
        out[i, j] = acc
    return out


def floor_bins(values, width, origin=0):
    # Python-style floor division of negative numbers: -0.5 // 1 is -1
    counts = {}
    lo = int(values.min() // width)
    hi = int(values.max() // width)
    hist = np.zeros(hi - lo + 1, dtype=np.int64)
    for v in values:
        b = int((v - origin) // width) - lo
        hist[b] += 1
    for k, c in enumerate(hist):
        if c:
            counts[(k + lo) * width] = int(c)
    return hist, lo, len(counts)


def quantize_round(x, step=0.25, clip=4):
    codes = np.empty(len(x), dtype=np.int64)
    for i, v in enumerate(x):
        q = int(round(v / step))
        if abs(q) > clip:
            q = clip if q > 0 else -clip
        codes[i] = q
    recon = codes * step
    return codes, float(np.abs(recon - x).max())


def clip_grad_norm(grads, max_norm, *, eps=1e-6):
    if isinstance(grads, np.ndarray):
        grads = (grads,)
    total = math.sqrt(sum(float(np.sum(g * g)) for g in grads))
    scale = min(1.0, max_norm / (total + eps))
    return [g * scale for g in grads], total


def clip_two_layers(w1, w2, max_norm):
    clipped, total = clip_grad_norm((w1, w2), max_norm)
    return clipped[0], clipped[1], total


def weighted_stack(*arrays, weights=None, normalize=True):
    assert len(arrays) > 0, "need at least one array"
    if weights is None:
        weights = [1.0] * len(arrays)
    if len(weights) != len(arrays):
        raise ValueError("one weight per array")
    out = np.zeros_like(arrays[0])
    for a, w in zip(arrays, weights):
        out += w * a
    if normalize:
        out /= sum(weights)
    return out


def blend_three(a, b, c):
    return weighted_stack(a, b, c, weights=(0.5, 0.3, 0.2))


def moments_generator(x, max_order=6):
    mu = x.mean()
    sd = x.std()
    z = (x - mu) / sd
    moments = np.array([np.mean(z ** k) for k in range(1, max_order + 1)])
    total = sum(abs(m) for m in moments[2:])
    peak = max(np.max(np.abs(z ** k)) for k in range(1, 4))
    return moments, total, peak


def ewma_crossover(prices, fast=12, slow=26):
    def ewma(x, span):
        alpha = 2.0 / (span + 1)
        out = np.empty_like(x)
        out[0] = x[0]
        for t in range(1, len(x)):
            out[t] = alpha * x[t] + (1 - alpha) * out[t - 1]
        return out

    f = ewma(prices, fast)
    s = ewma(prices, slow)
    signal = np.sign(f - s)
    trades = np.count_nonzero(np.diff(signal))
    return f, s, int(trades)
