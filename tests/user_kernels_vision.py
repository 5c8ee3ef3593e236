"""Decision trees and image processing written as their users write them: tree walks over
node arrays, a best-split search by sorted prefix counts, isolation-forest path lengths, Otsu's
threshold from a uint8 histogram, bicubic resampling, rotation by nearest neighbours, Canny's
non-maximum suppression, a median filter by sorting windows and oriented-gradient histograms."""

import numpy as np


def tree_predict(X, feature, threshold, left, right, value):
    out = np.empty(X.shape[0])
    for i in range(X.shape[0]):
        node = 0
        while left[node] != -1:
            if X[i, feature[node]] <= threshold[node]:
                node = left[node]
            else:
                node = right[node]
        out[i] = value[node]
    return out


def _gini(counts, total):
    if total == 0:
        return 0.0
    p = counts / total
    return 1.0 - np.sum(p * p)


def best_split(x, y, n_classes):
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y[order]
    n = len(xs)
    left = np.zeros(n_classes)
    right = np.bincount(ys, minlength=n_classes).astype(np.float64)
    best_score, best_threshold = np.inf, None
    for i in range(n - 1):
        left[ys[i]] += 1
        right[ys[i]] -= 1
        if xs[i] == xs[i + 1]:
            continue
        score = ((i + 1) * _gini(left, i + 1) + (n - i - 1) * _gini(right, n - i - 1)) / n
        if score < best_score:
            best_score = score
            best_threshold = 0.5 * (xs[i] + xs[i + 1])
    return best_threshold, best_score


def _c_factor(n):
    if n <= 1:
        return 0.0
    return 2.0 * (np.log(n - 1) + 0.5772156649) - 2.0 * (n - 1) / n


def isolation_path_lengths(X, feature, threshold, left, right, size):
    n_trees = feature.shape[0]
    depth_sum = np.zeros(X.shape[0])
    for t in range(n_trees):
        for i in range(X.shape[0]):
            node, depth = 0, 0
            while left[t, node] != -1:
                if X[i, feature[t, node]] < threshold[t, node]:
                    node = left[t, node]
                else:
                    node = right[t, node]
                depth += 1
            depth_sum[i] += depth + _c_factor(size[t, node])
    mean_depth = depth_sum / n_trees
    return 2.0 ** (-mean_depth / _c_factor(256))


def otsu_threshold(img):
    hist = np.bincount(img.ravel(), minlength=256).astype(np.float64)
    total = img.size
    sum_all = np.dot(np.arange(256), hist)
    w_b = 0.0
    sum_b = 0.0
    best, threshold = 0.0, 0
    for t in range(256):
        w_b += hist[t]
        if w_b == 0:
            continue
        w_f = total - w_b
        if w_f == 0:
            break
        sum_b += t * hist[t]
        m_b = sum_b / w_b
        m_f = (sum_all - sum_b) / w_f
        between = w_b * w_f * (m_b - m_f) ** 2
        if between > best:
            best = between
            threshold = t
    return threshold


def _cubic(t, a=-0.5):
    t = np.abs(t)
    return np.where(t <= 1, (a + 2) * t ** 3 - (a + 3) * t ** 2 + 1,
                    np.where(t < 2, a * t ** 3 - 5 * a * t ** 2 + 8 * a * t - 4 * a, 0.0))


def bicubic_resize(img, out_h, out_w):
    h, w = img.shape
    ys = (np.arange(out_h) + 0.5) * h / out_h - 0.5
    xs = (np.arange(out_w) + 0.5) * w / out_w - 0.5
    y0 = np.floor(ys).astype(np.int64)
    x0 = np.floor(xs).astype(np.int64)
    out = np.zeros((out_h, out_w))
    for m in range(-1, 3):
        wy = _cubic(ys - (y0 + m))
        yi = np.clip(y0 + m, 0, h - 1)
        for n in range(-1, 3):
            wx = _cubic(xs - (x0 + n))
            xi = np.clip(x0 + n, 0, w - 1)
            out += wy[:, None] * wx[None, :] * img[yi[:, None], xi[None, :]]
    return out


def rotate_nearest(img, angle):
    h, w = img.shape
    cy, cx = (h - 1) / 2.0, (w - 1) / 2.0
    c, s = np.cos(angle), np.sin(angle)
    out = np.zeros_like(img)
    for i in range(h):
        for j in range(w):
            y = c * (i - cy) + s * (j - cx) + cy
            x = -s * (i - cy) + c * (j - cx) + cx
            yi = int(round(y))
            xi = int(round(x))
            if 0 <= yi < h and 0 <= xi < w:
                out[i, j] = img[yi, xi]
    return out


def canny_nms(mag, angle):
    h, w = mag.shape
    out = np.zeros_like(mag)
    deg = np.rad2deg(angle) % 180
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            a = deg[i, j]
            if a < 22.5 or a >= 157.5:
                p, q = mag[i, j - 1], mag[i, j + 1]
            elif a < 67.5:
                p, q = mag[i - 1, j + 1], mag[i + 1, j - 1]
            elif a < 112.5:
                p, q = mag[i - 1, j], mag[i + 1, j]
            else:
                p, q = mag[i - 1, j - 1], mag[i + 1, j + 1]
            if mag[i, j] >= p and mag[i, j] >= q:
                out[i, j] = mag[i, j]
    return out


def median_filter(img, k=3):
    r = k // 2
    padded = np.pad(img, r, mode="edge")
    h, w = img.shape
    out = np.empty_like(img)
    for i in range(h):
        for j in range(w):
            window = np.sort(padded[i:i + k, j:j + k].ravel())
            out[i, j] = window[k * k // 2]
    return out


def hog_cells(img, cell=8, bins=9):
    img = img.astype(np.float32)
    gx = np.zeros_like(img)
    gy = np.zeros_like(img)
    gx[:, 1:-1] = img[:, 2:] - img[:, :-2]
    gy[1:-1, :] = img[2:, :] - img[:-2, :]
    mag = np.sqrt(gx * gx + gy * gy)
    ang = np.rad2deg(np.arctan2(gy, gx)) % 180
    ch, cw = img.shape[0] // cell, img.shape[1] // cell
    hist = np.zeros((ch, cw, bins), dtype=np.float32)
    width = 180.0 / bins
    for i in range(ch):
        for j in range(cw):
            m = mag[i * cell:(i + 1) * cell, j * cell:(j + 1) * cell].ravel()
            a = ang[i * cell:(i + 1) * cell, j * cell:(j + 1) * cell].ravel()
            idx = (a // width).astype(np.int64) % bins
            for b in range(bins):
                hist[i, j, b] = m[idx == b].sum()
    return hist
