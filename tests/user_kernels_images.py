"""Image and signal processing written as their users write them: explicit loops over
pixels and samples, small windows, helper functions, `np.empty` filled in place."""

import numpy as np


def sobel(img):
    H, W = img.shape
    out = np.zeros((H, W))
    for i in range(1, H - 1):
        for j in range(1, W - 1):
            gx = (img[i - 1, j + 1] + 2 * img[i, j + 1] + img[i + 1, j + 1]
                  - img[i - 1, j - 1] - 2 * img[i, j - 1] - img[i + 1, j - 1])
            gy = (img[i + 1, j - 1] + 2 * img[i + 1, j] + img[i + 1, j + 1]
                  - img[i - 1, j - 1] - 2 * img[i - 1, j] - img[i - 1, j + 1])
            out[i, j] = np.sqrt(gx * gx + gy * gy)
    return out


def gaussian_kernel(sigma, radius):
    x = np.arange(-radius, radius + 1)
    k = np.exp(-(x * x) / (2 * sigma * sigma))
    return k / k.sum()


def gaussian_blur(img, sigma):
    radius = 2
    k = gaussian_kernel(sigma, radius)
    H, W = img.shape
    tmp = np.zeros_like(img)
    for i in range(H):
        for j in range(radius, W - radius):
            acc = 0.0
            for t in range(2 * radius + 1):
                acc += k[t] * img[i, j + t - radius]
            tmp[i, j] = acc
    out = np.zeros_like(img)
    for i in range(radius, H - radius):
        for j in range(W):
            acc = 0.0
            for t in range(2 * radius + 1):
                acc += k[t] * tmp[i + t - radius, j]
            out[i, j] = acc
    return out


def bilinear_resize(img, new_h, new_w):
    h, w = img.shape
    out = np.empty((new_h, new_w))
    sy = (h - 1) / (new_h - 1)
    sx = (w - 1) / (new_w - 1)
    for i in range(new_h):
        y = i * sy
        y0 = int(y)
        y1 = min(y0 + 1, h - 1)
        dy = y - y0
        for j in range(new_w):
            x = j * sx
            x0 = int(x)
            x1 = min(x0 + 1, w - 1)
            dx = x - x0
            top = img[y0, x0] * (1 - dx) + img[y0, x1] * dx
            bottom = img[y1, x0] * (1 - dx) + img[y1, x1] * dx
            out[i, j] = top * (1 - dy) + bottom * dy
    return out


def equalize_histogram(img):
    hist = np.zeros(256, dtype=np.int64)
    H, W = img.shape
    for i in range(H):
        for j in range(W):
            hist[img[i, j]] += 1
    cdf = np.cumsum(hist)
    cdf_min = cdf[cdf > 0][0]
    lut = np.round((cdf - cdf_min) / (H * W - cdf_min) * 255)
    lut = np.clip(lut, 0, 255).astype(np.uint8)
    out = np.empty_like(img)
    for i in range(H):
        for j in range(W):
            out[i, j] = lut[img[i, j]]
    return out


def median3x3(img):
    H, W = img.shape
    out = img.copy()
    window = np.empty(9)
    for i in range(1, H - 1):
        for j in range(1, W - 1):
            n = 0
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    window[n] = img[i + di, j + dj]
                    n += 1
            window.sort()
            out[i, j] = window[4]
    return out


def integral_image(img):
    H, W = img.shape
    S = np.zeros((H + 1, W + 1))
    for i in range(H):
        for j in range(W):
            S[i + 1, j + 1] = img[i, j] + S[i, j + 1] + S[i + 1, j] - S[i, j]
    return S


def box_sums(S, r):
    H, W = S.shape[0] - 1, S.shape[1] - 1
    out = np.zeros((H, W))
    for i in range(r, H - r):
        for j in range(r, W - r):
            out[i, j] = (S[i + r + 1, j + r + 1] - S[i - r, j + r + 1]
                         - S[i + r + 1, j - r] + S[i - r, j - r])
    return out


def erode(mask, iterations):
    H, W = mask.shape
    cur = mask.copy()
    for _ in range(iterations):
        nxt = np.zeros_like(cur)
        for i in range(1, H - 1):
            for j in range(1, W - 1):
                v = 1
                for di in range(-1, 2):
                    for dj in range(-1, 2):
                        if cur[i + di, j + dj] == 0:
                            v = 0
                nxt[i, j] = v
        cur = nxt
    return cur


def dilate(img, size):
    H, W = img.shape
    r = size // 2
    out = np.empty_like(img)
    for i in range(H):
        for j in range(W):
            i0, i1 = max(i - r, 0), min(i + r + 1, H)
            j0, j1 = max(j - r, 0), min(j + r + 1, W)
            out[i, j] = img[i0:i1, j0:j1].max()
    return out


def fir_filter(x, b):
    n, m = len(x), len(b)
    y = np.zeros(n)
    for i in range(n):
        acc = 0.0
        for k in range(m):
            if i - k >= 0:
                acc += b[k] * x[i - k]
        y[i] = acc
    return y


def biquad(x, b0, b1, b2, a1, a2):
    y = np.empty_like(x)
    x1 = x2 = y1 = y2 = 0.0
    for n in range(len(x)):
        xn = x[n]
        yn = b0 * xn + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2, x1 = x1, xn
        y2, y1 = y1, yn
        y[n] = yn
    return y


def goertzel(x, ks):
    N = len(x)
    powers = np.empty(len(ks))
    for idx in range(len(ks)):
        w = 2.0 * np.pi * ks[idx] / N
        coeff = 2.0 * np.cos(w)
        s_prev = 0.0
        s_prev2 = 0.0
        for n in range(N):
            s = x[n] + coeff * s_prev - s_prev2
            s_prev2 = s_prev
            s_prev = s
        powers[idx] = s_prev2 ** 2 + s_prev ** 2 - coeff * s_prev * s_prev2
    return powers


def autocorrelation(x, max_lag):
    n = len(x)
    x = x - x.mean()
    denom = np.dot(x, x)
    r = np.empty(max_lag + 1)
    for lag in range(max_lag + 1):
        r[lag] = np.dot(x[:n - lag], x[lag:]) / denom
    return r


def cross_correlation(x, y, max_lag):
    n = len(x)
    out = []
    for lag in range(-max_lag, max_lag + 1):
        s = 0.0
        for i in range(n):
            j = i + lag
            if 0 <= j < n:
                s += x[i] * y[j]
        out.append(s / n)
    return np.array(out)


def zero_crossings(x):
    count = 0
    first = -1
    for i in range(1, len(x)):
        if (x[i - 1] < 0) != (x[i] < 0):
            count += 1
            if first < 0:
                first = i
    return count, first, count / (len(x) - 1)


def envelope(x, attack, release):
    env = np.empty_like(x)
    level = 0.0
    for i in range(len(x)):
        v = abs(x[i])
        if v > level:
            level = attack * level + (1 - attack) * v
        else:
            level = release * level + (1 - release) * v
        env[i] = level
    return env


def resample_linear(x, factor):
    n = len(x)
    m = (n - 1) * factor + 1
    out = np.empty(m)
    for i in range(m):
        pos = i / factor
        k = int(pos)
        if k >= n - 1:
            out[i] = x[n - 1]
        else:
            frac = pos - k
            out[i] = x[k] + frac * (x[k + 1] - x[k])
    return out


def resample_interp(t, x, rate):
    new_t = np.arange(t[0], t[-1], 1.0 / rate)
    return np.interp(new_t, t, x)
