"""Rendering, finite elements, spiking neurons, sequence codes and molecular simulation written
as their users write them: per-pixel loops, element loops over connectivity, spike masks,
dynamic programming tables with traceback, pair loops in periodic boxes."""

import math
from dataclasses import dataclass

import numpy as np


# --- rendering -------------------------------------------------------------------------------

def ray_sphere_depth(width, height, center, radius):
    img = np.zeros((height, width))
    origin = np.array([0.0, 0.0, 0.0])
    for j in range(height):
        for i in range(width):
            x = (2.0 * (i + 0.5) / width - 1.0)
            y = (1.0 - 2.0 * (j + 0.5) / height)
            d = np.array([x, y, -1.0])
            d = d / np.sqrt(np.dot(d, d))
            oc = origin - center
            b = np.dot(oc, d)
            c = np.dot(oc, oc) - radius * radius
            disc = b * b - c
            if disc > 0:
                t = -b - np.sqrt(disc)
                if t > 0:
                    img[j, i] = t
    return img


def ray_sphere_vectorized(width, height, centers, radii):
    xs = (2.0 * (np.arange(width) + 0.5) / width - 1.0)
    ys = (1.0 - 2.0 * (np.arange(height) + 0.5) / height)
    X, Y = np.meshgrid(xs, ys)
    dirs = np.stack([X, Y, -np.ones_like(X)], axis=-1)
    dirs /= np.linalg.norm(dirs, axis=-1, keepdims=True)
    depth = np.full((height, width), np.inf)
    hit = np.full((height, width), -1, dtype=np.int64)
    for k in range(len(radii)):
        oc = -centers[k]
        b = dirs @ oc
        c = oc @ oc - radii[k] ** 2
        disc = b * b - c
        t = np.where(disc > 0, -b - np.sqrt(np.maximum(disc, 0.0)), np.inf)
        t = np.where(t > 1e-6, t, np.inf)
        closer = t < depth
        depth[closer] = t[closer]
        hit[closer] = k
    return depth, hit


def ray_plane_checker(width, height, plane_y, scale):
    out = np.zeros((height, width), dtype=np.float32)
    for j in range(height):
        for i in range(width):
            dx = (i - width / 2) / width
            dy = -(j + 1) / height
            if dy >= 0:
                continue
            t = plane_y / dy
            px = dx * t
            pz = -t
            check = (int(math.floor(px * scale)) + int(math.floor(pz * scale))) % 2
            out[j, i] = 0.2 + 0.6 * check
    return out


def lambert_shade(normals, light_dir, albedo):
    l = light_dir / np.linalg.norm(light_dir)
    n = normals / np.linalg.norm(normals, axis=-1)[..., None]
    ndotl = np.einsum("hwc,c->hw", n, l)
    return albedo[None, None, :] * np.clip(ndotl, 0.0, None)[:, :, None]


def phong_shade(positions, normals, light_pos, eye, shininess):
    h, w, _ = positions.shape
    out = np.zeros((h, w))
    for y in range(h):
        for x in range(w):
            p = positions[y, x]
            n = normals[y, x]
            n = n / np.linalg.norm(n)
            l = light_pos - p
            l = l / np.linalg.norm(l)
            v = eye - p
            v = v / np.linalg.norm(v)
            diff = max(np.dot(n, l), 0.0)
            r = 2.0 * np.dot(n, l) * n - l
            spec = max(np.dot(r, v), 0.0) ** shininess
            out[y, x] = 0.1 + 0.7 * diff + 0.2 * spec
    return out


def edge(ax, ay, bx, by, px, py):
    return (px - ax) * (by - ay) - (py - ay) * (bx - ax)


def zbuffer_raster(verts, tris, colors, width, height):
    zbuf = np.full((height, width), np.inf)
    image = np.zeros((height, width, 3))
    for t in range(tris.shape[0]):
        i0, i1, i2 = tris[t]
        x0, y0, z0 = verts[i0]
        x1, y1, z1 = verts[i1]
        x2, y2, z2 = verts[i2]
        area = edge(x0, y0, x1, y1, x2, y2)
        if area == 0:
            continue
        xmin = max(int(min(x0, x1, x2)), 0)
        xmax = min(int(max(x0, x1, x2)) + 1, width)
        ymin = max(int(min(y0, y1, y2)), 0)
        ymax = min(int(max(y0, y1, y2)) + 1, height)
        for py in range(ymin, ymax):
            for px in range(xmin, xmax):
                w0 = edge(x1, y1, x2, y2, px + 0.5, py + 0.5) / area
                w1 = edge(x2, y2, x0, y0, px + 0.5, py + 0.5) / area
                w2 = edge(x0, y0, x1, y1, px + 0.5, py + 0.5) / area
                if w0 >= 0 and w1 >= 0 and w2 >= 0:
                    z = w0 * z0 + w1 * z1 + w2 * z2
                    if z < zbuf[py, px]:
                        zbuf[py, px] = z
                        image[py, px] = colors[t]
    return image, zbuf


def barycentric_grid(tri, width, height):
    ys, xs = np.mgrid[0:height, 0:width]
    px = xs + 0.5
    py = ys + 0.5
    (ax, ay), (bx, by), (cx, cy) = tri
    det = (by - cy) * (ax - cx) + (cx - bx) * (ay - cy)
    l1 = ((by - cy) * (px - cx) + (cx - bx) * (py - cy)) / det
    l2 = ((cy - ay) * (px - cx) + (ax - cx) * (py - cy)) / det
    l3 = 1.0 - l1 - l2
    inside = (l1 >= 0) & (l2 >= 0) & (l3 >= 0)
    return np.where(inside[..., None], np.stack([l1, l2, l3], axis=-1), 0.0), inside.sum()


def reflect_bounces(origins, dirs, centers, radii, max_bounces):
    n = origins.shape[0]
    energy = np.ones(n)
    bounces = np.zeros(n, dtype=np.int32)
    for r in range(n):
        o = origins[r].copy()
        d = dirs[r] / np.linalg.norm(dirs[r])
        depth = 0
        while depth < max_bounces:
            best_t = np.inf
            best_k = -1
            for k in range(radii.shape[0]):
                oc = o - centers[k]
                b = oc @ d
                c = oc @ oc - radii[k] * radii[k]
                disc = b * b - c
                if disc > 0.0:
                    t = -b - math.sqrt(disc)
                    if 1e-6 < t < best_t:
                        best_t = t
                        best_k = k
            if best_k < 0:
                break
            o = o + best_t * d
            nrm = (o - centers[best_k]) / radii[best_k]
            d = d - 2.0 * (d @ nrm) * nrm
            energy[r] *= 0.8
            depth += 1
        bounces[r] = depth
    return energy, bounces


def rgb_to_hsv(rgb):
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    maxc = rgb.max(axis=-1)
    minc = rgb.min(axis=-1)
    v = maxc
    delta = maxc - minc
    s = np.where(maxc > 0, delta / np.where(maxc > 0, maxc, 1), 0.0)
    safe = np.where(delta > 0, delta, 1.0)
    rc = (maxc - r) / safe
    gc = (maxc - g) / safe
    bc = (maxc - b) / safe
    h = np.where(r == maxc, bc - gc, np.where(g == maxc, 2.0 + rc - bc, 4.0 + gc - rc))
    h = (h / 6.0) % 1.0
    h[delta == 0] = 0.0
    return np.stack([h, s, v], axis=-1)


def srgb_to_linear_luma(img_u8):
    c = img_u8.astype(np.float32) / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    luma = lin @ np.array([0.2126, 0.7152, 0.0722], dtype=np.float32)
    return lin, luma


def reinhard_tonemap(hdr, exposure=1.0, gamma=2.2):
    lum = 0.2126 * hdr[:, :, 0] + 0.7152 * hdr[:, :, 1] + 0.0722 * hdr[:, :, 2]
    log_avg = np.exp(np.mean(np.log(1e-4 + lum)))
    scaled = exposure / log_avg * lum
    mapped = scaled / (1.0 + scaled)
    ratio = np.divide(mapped, lum, out=np.zeros_like(lum), where=lum > 0)
    out = hdr * ratio[:, :, None]
    out = np.clip(out, 0.0, 1.0) ** (1.0 / gamma)
    return (out * 255.0 + 0.5).astype(np.uint8)


def aces_filmic_inplace(img):
    a, b, c, d, e = 2.51, 0.03, 2.43, 0.59, 0.14
    h, w, ch = img.shape
    for y in range(h):
        for x in range(w):
            for k in range(ch):
                v = img[y, x, k]
                img[y, x, k] = min(max((v * (a * v + b)) / (v * (c * v + d) + e), 0.0), 1.0)
    return img


# --- finite elements --------------------------------------------------------------------------

def fem_poisson_1d_assembly(n_elems, f_value):
    nodes = np.linspace(0.0, 1.0, n_elems + 1)
    conn = np.stack([np.arange(n_elems), np.arange(1, n_elems + 1)], axis=1)
    K = np.zeros((n_elems + 1, n_elems + 1))
    F = np.zeros(n_elems + 1)
    for e in range(n_elems):
        a, b = conn[e]
        h = nodes[b] - nodes[a]
        ke = np.array([[1.0, -1.0], [-1.0, 1.0]]) / h
        fe = f_value * h / 2.0 * np.ones(2)
        for p in range(2):
            F[conn[e, p]] += fe[p]
            for q in range(2):
                K[conn[e, p], conn[e, q]] += ke[p, q]
    for node in (0, n_elems):
        K[node, :] = 0.0
        K[node, node] = 1.0
        F[node] = 0.0
    return np.linalg.solve(K, F)


def fem_1d_mass_stiffness(x, conn, rho, ea):
    n = x.shape[0]
    M = np.zeros((n, n))
    K = np.zeros((n, n))
    for e in range(conn.shape[0]):
        idx = conn[e]
        L = x[idx[1]] - x[idx[0]]
        me = rho * L / 6.0 * np.array([[2.0, 1.0], [1.0, 2.0]])
        ke = ea / L * np.array([[1.0, -1.0], [-1.0, 1.0]])
        M[np.ix_(idx, idx)] += me
        K[np.ix_(idx, idx)] += ke
    return M, K


def tri_stiffness(xy):
    x, y = xy[:, 0], xy[:, 1]
    area = 0.5 * ((x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]))
    b = np.array([y[1] - y[2], y[2] - y[0], y[0] - y[1]])
    c = np.array([x[2] - x[1], x[0] - x[2], x[1] - x[0]])
    return (np.outer(b, b) + np.outer(c, c)) / (4.0 * area), area


def fem_2d_poisson(points, triangles, boundary, source):
    n = points.shape[0]
    K = np.zeros((n, n))
    F = np.zeros(n)
    for t in range(triangles.shape[0]):
        tri = triangles[t]
        ke, area = tri_stiffness(points[tri])
        for a in range(3):
            F[tri[a]] += source * area / 3.0
            for b in range(3):
                K[tri[a], tri[b]] += ke[a, b]
    K[boundary, :] = 0.0
    K[boundary, boundary] = 1.0
    F[boundary] = 0.0
    u = np.linalg.solve(K, F)
    return u, K


def fem_2d_mass_vectorized(points, triangles):
    n = points.shape[0]
    p = points[triangles]
    d1 = p[:, 1] - p[:, 0]
    d2 = p[:, 2] - p[:, 0]
    area = 0.5 * np.abs(d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0])
    local = (np.ones((3, 3)) + np.eye(3)) / 12.0
    me = area[:, None, None] * local[None, :, :]
    M = np.zeros((n, n))
    rows = np.repeat(triangles, 3, axis=1)
    cols = np.tile(triangles, (1, 3))
    np.add.at(M, (rows.ravel(), cols.ravel()), me.reshape(-1))
    return M, M.sum()


def fem_truss_2d(nodes, bars, E, A, fixed, loads):
    n_dof = 2 * nodes.shape[0]
    K = np.zeros((n_dof, n_dof))
    for e in range(bars.shape[0]):
        i, j = bars[e, 0], bars[e, 1]
        dx, dy = nodes[j] - nodes[i]
        L = math.hypot(dx, dy)
        c, s = dx / L, dy / L
        k = E * A / L * np.array([[c * c, c * s], [c * s, s * s]])
        dofs = [2 * i, 2 * i + 1, 2 * j, 2 * j + 1]
        ke = np.block([[k, -k], [-k, k]])
        for a in range(4):
            for b in range(4):
                K[dofs[a], dofs[b]] += ke[a, b]
    F = loads.copy()
    for d in fixed:
        K[d, :] = 0.0
        K[:, d] = 0.0
        K[d, d] = 1.0
        F[d] = 0.0
    u = np.linalg.solve(K, F)
    return u.reshape(-1, 2)


# --- spiking neurons --------------------------------------------------------------------------

def lif_network(W, I_ext, steps, dt=0.1, tau=10.0, v_th=1.0, v_reset=0.0, refractory=5):
    n = W.shape[0]
    v = np.zeros(n)
    ref = np.zeros(n, dtype=np.int32)
    spikes = np.zeros((steps, n), dtype=np.bool_)
    s = np.zeros(n, dtype=np.bool_)
    for t in range(steps):
        syn = W @ s.astype(np.float64)
        active = ref == 0
        v[active] += dt / tau * (-v[active] + I_ext[active]) + syn[active]
        ref[~active] -= 1
        s = v >= v_th
        v[s] = v_reset
        ref[s] = refractory
        spikes[t] = s
    return spikes.sum(axis=0), v


@dataclass
class IzhParams:
    a: float
    b: float
    c: float
    d: float


def izhikevich_network(params, S, I_noise, steps):
    n = S.shape[0]
    v = -65.0 * np.ones(n)
    u = params.b * v
    fired_count = np.zeros(n, dtype=np.int64)
    for t in range(steps):
        I = I_noise[t % I_noise.shape[0]].copy()
        fired = v >= 30.0
        fired_count += fired
        v[fired] = params.c
        u[fired] = u[fired] + params.d
        I += S[:, fired].sum(axis=1)
        v += 0.5 * (0.04 * v * v + 5.0 * v + 140.0 - u + I)
        v += 0.5 * (0.04 * v * v + 5.0 * v + 140.0 - u + I)
        u += params.a * (params.b * v - u)
    return fired_count, np.minimum(v, 30.0)


def stdp_update(pre_spikes, post_spikes, W, a_plus, a_minus, tau_plus, tau_minus, w_max):
    steps, n_pre = pre_spikes.shape
    n_post = post_spikes.shape[1]
    x_pre = np.zeros(n_pre)
    x_post = np.zeros(n_post)
    for t in range(steps):
        x_pre *= math.exp(-1.0 / tau_plus)
        x_post *= math.exp(-1.0 / tau_minus)
        pre = pre_spikes[t]
        post = post_spikes[t]
        x_pre[pre] += 1.0
        x_post[post] += 1.0
        W += a_plus * np.outer(post, x_pre)
        W -= a_minus * np.outer(x_post, pre)
        np.clip(W, 0.0, w_max, out=W)
    return W


def lif_single_scalar(current, dt, tau, threshold):
    v = 0.0
    count = 0
    last = -1
    times = np.full(current.shape[0], -1, dtype=np.int64)
    for i in range(current.shape[0]):
        v = v + dt * (current[i] - v) / tau
        if v > threshold:
            v = 0.0
            times[count] = i
            count += 1
            last = i
    return times[:count].copy() if count > 0 else times[:0].copy(), last


def spike_rate_float32(spikes, window):
    counts = spikes.astype(np.float32)
    c = np.cumsum(counts, axis=0, dtype=np.float32)
    rate = (c[window:] - c[:-window]) / np.float32(window)
    return rate, rate.mean(axis=0)


# --- sequence codes ---------------------------------------------------------------------------

def needleman_wunsch_score(a, b, match=1, mismatch=-1, gap=-2):
    n, m = a.shape[0], b.shape[0]
    H = np.zeros((n + 1, m + 1), dtype=np.int32)
    H[:, 0] = gap * np.arange(n + 1)
    H[0, :] = gap * np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            s = match if a[i - 1] == b[j - 1] else mismatch
            H[i, j] = max(H[i - 1, j - 1] + s, H[i - 1, j] + gap, H[i, j - 1] + gap)
    return H[n, m], H


def smith_waterman_traceback(a, b, match=2, mismatch=-1, gap=-1):
    n, m = len(a), len(b)
    H = np.zeros((n + 1, m + 1), dtype=np.int64)
    best, bi, bj = 0, 0, 0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            diag = H[i - 1, j - 1] + (match if a[i - 1] == b[j - 1] else mismatch)
            h = max(0, diag, H[i - 1, j] + gap, H[i, j - 1] + gap)
            H[i, j] = h
            if h > best:
                best, bi, bj = h, i, j
    i, j = bi, bj
    length = 0
    while i > 0 and j > 0 and H[i, j] > 0:
        if H[i, j] == H[i - 1, j - 1] + (match if a[i - 1] == b[j - 1] else mismatch):
            i -= 1
            j -= 1
        elif H[i, j] == H[i - 1, j] + gap:
            i -= 1
        else:
            j -= 1
        length += 1
    return best, length, i, j


def kmer_counts_rolling(seq, k):
    n_kmers = 4 ** k
    counts = np.zeros(n_kmers, dtype=np.int64)
    mask = n_kmers - 1
    h = 0
    for i in range(seq.shape[0]):
        h = ((h << 2) | int(seq[i])) & mask
        if i >= k - 1:
            counts[h] += 1
    return counts


def kmer_codes_vectorized(seq, k):
    n = seq.shape[0] - k + 1
    codes = np.zeros(n, dtype=np.int64)
    for j in range(k):
        codes = codes * 4 + seq[j:j + n].astype(np.int64)
    return np.bincount(codes, minlength=4 ** k)


def gc_content_windows(seq, window, step):
    is_gc = (seq == 1) | (seq == 2)
    n_windows = (seq.shape[0] - window) // step + 1
    out = np.empty(n_windows, dtype=np.float32)
    for w in range(n_windows):
        out[w] = is_gc[w * step:w * step + window].sum() / window
    return out


def gc_skew_cumulative(seq):
    g = (seq == 2).astype(np.int32)
    c = (seq == 1).astype(np.int32)
    skew = np.cumsum(g - c)
    return skew, int(np.argmin(skew)), int(np.argmax(skew))


def hamming_all_pairs(reads):
    n = reads.shape[0]
    d = np.zeros((n, n), dtype=np.int32)
    for i in range(n):
        d[i] = (reads != reads[i][None, :]).sum(axis=1)
    return d


def hamming_broadcast(reads):
    return (reads[:, None, :] != reads[None, :, :]).sum(axis=-1)


def edit_distance_rows(a, b):
    n, m = a.shape[0], b.shape[0]
    prev = np.arange(m + 1, dtype=np.int64)
    cur = np.zeros(m + 1, dtype=np.int64)
    for i in range(1, n + 1):
        cur[0] = i
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
        prev, cur = cur, prev
    return int(prev[m])


def reverse_complement_int8(seq):
    comp = np.array([3, 2, 1, 0], dtype=np.int8)
    out = comp[seq[::-1]]
    same = 0
    for i in range(seq.shape[0]):
        if out[i] == seq[i]:
            same += 1
    return out, same


def translate_codons(seq, table):
    n = seq.shape[0] // 3
    idx = seq[:3 * n].reshape(n, 3).astype(np.int32)
    codes = idx[:, 0] * 16 + idx[:, 1] * 4 + idx[:, 2]
    protein = table[codes]
    stop = np.flatnonzero(protein == 0)
    length = stop[0] if stop.size > 0 else n
    return protein, length


def first_mismatch(read, ref, offset):
    i = 0
    while i < read.shape[0]:
        if read[i] != ref[offset + i]:
            return i
        i += 1
    return -1


def best_offsets(reads, ref):
    out = np.zeros(reads.shape[0], dtype=np.int64)
    span = ref.shape[0] - reads.shape[1] + 1
    for r in range(reads.shape[0]):
        best = -1
        best_len = -1
        for off in range(span):
            mm = first_mismatch(reads[r], ref, off)
            run = reads.shape[1] if mm < 0 else mm
            if run > best_len:
                best_len = run
                best = off
        out[r] = best
    return out


# --- molecular simulation ---------------------------------------------------------------------

def lj_energy_forces(pos, box, rc, eps=1.0, sigma=1.0):
    n = pos.shape[0]
    forces = np.zeros_like(pos)
    energy = 0.0
    rc2 = rc * rc
    for i in range(n - 1):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            d -= box * np.round(d / box)
            r2 = d @ d
            if r2 < rc2:
                s6 = (sigma * sigma / r2) ** 3
                energy += 4.0 * eps * (s6 * s6 - s6)
                f = 24.0 * eps * (2.0 * s6 * s6 - s6) / r2 * d
                forces[i] += f
                forces[j] -= f
    return energy, forces


def lj_vectorized(pos, box, rc):
    d = pos[:, None, :] - pos[None, :, :]
    d -= box * np.rint(d / box)
    r2 = np.einsum("ijk,ijk->ij", d, d)
    np.fill_diagonal(r2, np.inf)
    mask = r2 < rc * rc
    inv6 = np.where(mask, 1.0 / r2 ** 3, 0.0)
    e = 0.5 * np.sum(4.0 * (inv6 * inv6 - inv6))
    fmag = np.where(mask, 24.0 * (2.0 * inv6 * inv6 - inv6) / r2, 0.0)
    f = np.sum(fmag[:, :, None] * d, axis=1)
    return e, f


def cell_list_pairs(pos, box, rc):
    n_cells = int(box // rc)
    size = box / n_cells
    cell = (pos // size).astype(np.int64) % n_cells
    flat = cell[:, 0] * n_cells + cell[:, 1]
    order = np.argsort(flat, kind="stable")
    counts = np.bincount(flat, minlength=n_cells * n_cells)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    n_pairs = 0
    for p in range(pos.shape[0]):
        cx, cy = cell[p]
        for ox in (-1, 0, 1):
            for oy in (-1, 0, 1):
                c = ((cx + ox) % n_cells) * n_cells + (cy + oy) % n_cells
                for q in order[starts[c]:starts[c] + counts[c]]:
                    if q > p:
                        d = pos[p] - pos[q]
                        d = d - box * np.round(d / box)
                        if d[0] * d[0] + d[1] * d[1] < rc * rc:
                            n_pairs += 1
    return n_pairs


def bond_angles(pos, triples):
    a = pos[triples[:, 0]] - pos[triples[:, 1]]
    b = pos[triples[:, 2]] - pos[triples[:, 1]]
    cos = np.einsum("ij,ij->i", a, b) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))


def dihedral(p0, p1, p2, p3):
    b0 = p0 - p1
    b1 = p2 - p1
    b2 = p3 - p2
    b1 = b1 / np.linalg.norm(b1)
    v = b0 - np.dot(b0, b1) * b1
    w = b2 - np.dot(b2, b1) * b1
    x = np.dot(v, w)
    y = np.dot(np.cross(b1, v), w)
    return math.degrees(math.atan2(y, x))


def dihedrals_loop(pos, quads):
    out = np.empty(quads.shape[0])
    for q in range(quads.shape[0]):
        i, j, k, l = quads[q]
        out[q] = dihedral(pos[i], pos[j], pos[k], pos[l])
    return out


class Thermostat:
    def __init__(self, target, tau):
        self.target = target
        self.tau = tau


def harmonic_forces(x, k):
    return -k * x


def velocity_verlet_berendsen(x, v, masses, k, dt, steps, thermo):
    n = x.shape[0]
    f = harmonic_forces(x, k)
    temps = np.empty(steps)
    for s in range(steps):
        v += 0.5 * dt * f / masses[:, None]
        x += dt * v
        f = harmonic_forces(x, k)
        v += 0.5 * dt * f / masses[:, None]
        kin = 0.5 * np.sum(masses[:, None] * v * v)
        temp = 2.0 * kin / (3.0 * n)
        lam = np.sqrt(1.0 + dt / thermo.tau * (thermo.target / temp - 1.0))
        v *= lam
        temps[s] = temp
    return temps


def radial_distribution(pos, box, n_bins, r_max):
    n = pos.shape[0]
    hist = np.zeros(n_bins, dtype=np.int64)
    dr = r_max / n_bins
    for i in range(n):
        d = pos[i + 1:] - pos[i]
        d = d - box * np.round(d / box)
        r = np.sqrt((d * d).sum(axis=1))
        r = r[r < r_max]
        idx = (r / dr).astype(np.int64)
        np.add.at(hist, idx, 1)
    shells = 4.0 / 3.0 * np.pi * ((np.arange(1, n_bins + 1) * dr) ** 3 - (np.arange(n_bins) * dr) ** 3)
    rho = n / box ** 3
    return hist / (shells * rho * n / 2.0)


def wrap_positions_f32(pos, box):
    pos -= box * np.floor(pos / box)
    com = pos.mean(axis=0)
    return com, pos.dtype
