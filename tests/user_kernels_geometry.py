"""Geometry and graphics written as their users write them: per-pixel ray casting, a
z-buffered rasteriser with barycentric coordinates, case tables, brute-force pair searches,
and curve evaluation by recurrences."""

import numpy as np


def ray_sphere_image(width, height, centers, radii):
    img = np.zeros((height, width))
    light = np.array([1.0, 1.0, -1.0]) / np.sqrt(3.0)
    for py in range(height):
        for px in range(width):
            d = np.array([(px + 0.5) / width * 2 - 1, 1 - (py + 0.5) / height * 2, 1.0])
            d = d / np.linalg.norm(d)
            best = np.inf
            shade = 0.0
            for s in range(len(radii)):
                oc = -centers[s]
                b = np.dot(oc, d)
                c = np.dot(oc, oc) - radii[s] * radii[s]
                disc = b * b - c
                if disc < 0:
                    continue
                t = -b - np.sqrt(disc)
                if 0 < t < best:
                    best = t
                    normal = (t * d - centers[s]) / radii[s]
                    shade = max(np.dot(normal, light), 0.0)
            img[py, px] = shade
    return img


def rasterize_triangles(tris, depths, width, height):
    zbuf = np.full((height, width), np.inf, dtype=np.float32)
    ids = np.full((height, width), -1, dtype=np.int32)
    for t in range(tris.shape[0]):
        x0, y0 = tris[t, 0]
        x1, y1 = tris[t, 1]
        x2, y2 = tris[t, 2]
        area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
        if area == 0:
            continue
        xmin = max(int(min(x0, x1, x2)), 0)
        xmax = min(int(max(x0, x1, x2)) + 1, width)
        ymin = max(int(min(y0, y1, y2)), 0)
        ymax = min(int(max(y0, y1, y2)) + 1, height)
        for y in range(ymin, ymax):
            for x in range(xmin, xmax):
                px, py = x + 0.5, y + 0.5
                w0 = ((x1 - px) * (y2 - py) - (x2 - px) * (y1 - py)) / area
                w1 = ((x2 - px) * (y0 - py) - (x0 - px) * (y2 - py)) / area
                w2 = 1.0 - w0 - w1
                if w0 >= 0 and w1 >= 0 and w2 >= 0:
                    z = w0 * depths[t, 0] + w1 * depths[t, 1] + w2 * depths[t, 2]
                    if z < zbuf[y, x]:
                        zbuf[y, x] = z
                        ids[y, x] = t
    return zbuf, ids


MS_SEGMENTS = np.array([0, 1, 1, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1, 1, 1, 0])


def marching_squares_cases(field, level):
    above = (field > level).astype(np.uint8)
    cases = (above[:-1, :-1] << 3) | (above[:-1, 1:] << 2) | (above[1:, 1:] << 1) | above[1:, :-1]
    n_segments = 0
    hist = np.zeros(16, dtype=np.int64)
    for i in range(cases.shape[0]):
        for j in range(cases.shape[1]):
            c = cases[i, j]
            hist[c] += 1
            n_segments += MS_SEGMENTS[c]
    return cases, hist, n_segments


def orient(ax, ay, bx, by, cx, cy):
    v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    if v > 0:
        return 1
    if v < 0:
        return -1
    return 0


def segment_intersections(segs):
    n = segs.shape[0]
    count = 0
    for i in range(n):
        ax, ay, bx, by = segs[i]
        for j in range(i + 1, n):
            cx, cy, dx, dy = segs[j]
            o1 = orient(ax, ay, bx, by, cx, cy)
            o2 = orient(ax, ay, bx, by, dx, dy)
            o3 = orient(cx, cy, dx, dy, ax, ay)
            o4 = orient(cx, cy, dx, dy, bx, by)
            if o1 != o2 and o3 != o4:
                count += 1
    return count


def closest_pair(points):
    n = len(points)
    best = np.inf
    pair = (-1, -1)
    for i in range(n):
        for j in range(i + 1, n):
            dx = points[i, 0] - points[j, 0]
            dy = points[i, 1] - points[j, 1]
            d = dx * dx + dy * dy
            if d < best:
                best = d
                pair = (i, j)
    return np.sqrt(best), pair


def de_casteljau(ctrl, ts):
    n = ctrl.shape[0]
    out = np.empty((len(ts), ctrl.shape[1]))
    for k, t in enumerate(ts):
        pts = ctrl.copy()
        for r in range(1, n):
            pts[:n - r] = (1 - t) * pts[:n - r] + t * pts[1:n - r + 1]
        out[k] = pts[0]
    return out


def bspline_basis(knots, degree, x):
    m = len(knots) - 1
    B = np.zeros((len(x), m))
    for i in range(m):
        B[:, i] = np.where((knots[i] <= x) & (x < knots[i + 1]), 1.0, 0.0)
    for p in range(1, degree + 1):
        for i in range(m - p):
            left = np.zeros_like(x)
            right = np.zeros_like(x)
            d1 = knots[i + p] - knots[i]
            d2 = knots[i + p + 1] - knots[i + 1]
            if d1 > 0:
                left = (x - knots[i]) / d1 * B[:, i]
            if d2 > 0:
                right = (knots[i + p + 1] - x) / d2 * B[:, i + 1]
            B[:, i] = left + right
    return B[:, :m - degree]
