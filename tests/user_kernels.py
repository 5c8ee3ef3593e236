# ruff: noqa -- written as users write NumPy, style included
"""NumPy kernels written the way their users write them: loop-style recurrences, stencils,
solvers, dynamic programming, physics and deep-learning layers, array-style and loop-style.
The tests (`test_user_kernels.py`) and `benches/kernels.py` run them verbatim."""
import numpy as np


def jacobi_1d(TSTEPS, A, B):
    for t in range(1, TSTEPS):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])


def jacobi_2d(TSTEPS, A, B):
    for t in range(1, TSTEPS):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])


def seidel_2d(TSTEPS, N, A):
    for t in range(0, TSTEPS - 1):
        for i in range(1, N - 1):
            A[i, 1:-1] += (A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:] + A[i, 2:] +
                           A[i + 1, :-2] + A[i + 1, 1:-1] + A[i + 1, 2:])
            for j in range(1, N - 1):
                A[i, j] += A[i, j - 1]
                A[i, j] /= 9.0


def trisolv(L, x, b):
    for i in range(x.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]


def cholesky(A):
    A[0, 0] = np.sqrt(A[0, 0])
    for i in range(1, A.shape[0]):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] -= np.dot(A[i, :i], A[i, :i])
        A[i, i] = np.sqrt(A[i, i])


def lu(A):
    N = A.shape[0]
    for i in range(N):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, N):
            A[i, j] -= A[i, :i] @ A[:i, j]


def floyd_warshall(path):
    for k in range(path.shape[0]):
        path[:] = np.minimum(path[:], np.add.outer(path[:, k], path[k, :]))


def recurrence(x):
    y = np.empty_like(x)
    y[0] = x[0]
    for i in range(1, x.shape[0]):
        y[i] = 0.9 * y[i - 1] + x[i]
    return y


def crc16(data, poly=0x8408):
    crc = 0xFFFF
    for b in data:
        cur_byte = 0xFF & b
        for _ in range(0, 8):
            if (crc & 0x0001) ^ (cur_byte & 0x0001):
                crc = (crc >> 1) ^ poly
            else:
                crc >>= 1
            cur_byte >>= 1
    crc = (~crc & 0xFFFF)
    crc = (crc << 8) | ((crc >> 8) & 0xFF)
    return crc & 0xFFFF


def edit_distance(a, b):
    n, m = a.shape[0], b.shape[0]
    D = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        D[i, 0] = i
    for j in range(m + 1):
        D[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + cost)
    return D[n, m]


def go_fast(a):
    trace = 0.0
    for i in range(a.shape[0]):
        trace += np.tanh(a[i, i])
    return a + trace


def nbody_step(pos, vel, mass, dt):
    n = pos.shape[0]
    acc = np.zeros_like(pos)
    for i in range(n):
        for j in range(n):
            if i != j:
                d = pos[j] - pos[i]
                r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + 0.01
                acc[i] += mass[j] * d / (r2 * np.sqrt(r2))
    vel += dt * acc
    pos += dt * vel
    return pos, vel


def softmax(x):
    tmp_max = np.max(x, axis=-1, keepdims=True)
    tmp_out = np.exp(x - tmp_max)
    tmp_sum = np.sum(tmp_out, axis=-1, keepdims=True)
    return tmp_out / tmp_sum


def mlp(input, w1, b1, w2, b2, w3, b3):
    x = np.maximum(input @ w1 + b1, 0)
    x = np.maximum(x @ w2 + b2, 0)
    x = x @ w3 + b3
    return softmax(x)


def gemver(alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    A += np.outer(u1, v1) + np.outer(u2, v2)
    x += beta * y @ A + z
    w += alpha * A @ x


def atax(A, x):
    return (A @ x) @ A


def arc_distance(theta_1, phi_1, theta_2, phi_2):
    temp = np.sin((theta_2 - theta_1) / 2) ** 2 + np.cos(theta_1) * np.cos(theta_2) * np.sin((phi_2 - phi_1) / 2) ** 2
    distance_matrix = 2 * (np.arctan2(np.sqrt(temp), np.sqrt(1 - temp)))
    return distance_matrix


def prefix_sum(a):
    out = np.empty_like(a)
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
        out[i] = s
    return out


def horner(coeffs, x):
    result = np.zeros_like(x)
    for c in coeffs:
        result = result * x + c
    return result


def mandelbrot_count(cr, ci, maxiter):
    n = 0
    zr = 0.0
    zi = 0.0
    while n < maxiter and zr * zr + zi * zi < 4.0:
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        n += 1
    return n


def matmul_loops(A, B):
    n, k = A.shape
    m = B.shape[1]
    C = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            s = 0.0
            for p in range(k):
                s += A[i, p] * B[p, j]
            C[i, j] = s
    return C


def insertion_sort(a):
    a = a.copy()
    for i in range(1, a.shape[0]):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


def histogram_loop(x, nbins, lo, hi):
    counts = np.zeros(nbins, dtype=np.int64)
    scale = nbins / (hi - lo)
    for v in x:
        k = int((v - lo) * scale)
        if 0 <= k < nbins:
            counts[k] += 1
    return counts


def covariance(M, float_n, data):
    mean = np.mean(data, axis=0)
    data -= mean
    cov = np.zeros((M, M), dtype=data.dtype)
    for i in range(M):
        cov[i:M, i] = cov[i, i:M] = data[:, i] @ data[:, i:M] / (float_n - 1.0)
    return cov


def heat_3d(TSTEPS, A, B):
    for t in range(1, TSTEPS):
        B[1:-1, 1:-1, 1:-1] = (0.125 * (A[2:, 1:-1, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[:-2, 1:-1, 1:-1]) +
                               0.125 * (A[1:-1, 2:, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, :-2, 1:-1]) +
                               0.125 * (A[1:-1, 1:-1, 2:] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, 1:-1, :-2]) +
                               A[1:-1, 1:-1, 1:-1])
        A[1:-1, 1:-1, 1:-1] = (0.125 * (B[2:, 1:-1, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[:-2, 1:-1, 1:-1]) +
                               0.125 * (B[1:-1, 2:, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, :-2, 1:-1]) +
                               0.125 * (B[1:-1, 1:-1, 2:] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, 1:-1, :-2]) +
                               B[1:-1, 1:-1, 1:-1])


def conv2d_loops(x, w):
    H, W = x.shape
    kh, kw = w.shape
    out = np.zeros((H - kh + 1, W - kw + 1))
    for i in range(H - kh + 1):
        for j in range(W - kw + 1):
            acc = 0.0
            for p in range(kh):
                for q in range(kw):
                    acc += x[i + p, j + q] * w[p, q]
            out[i, j] = acc
    return out


def batchnorm_relu(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=0)
    var = x.var(axis=0)
    xhat = (x - mu) / np.sqrt(var + eps)
    return np.maximum(gamma * xhat + beta, 0.0)


def attention(q, k, v):
    s = q @ k.T / np.sqrt(q.shape[-1])
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=-1, keepdims=True)
    return p @ v


def wave_1d(u0, u1, c, steps):
    u_prev = u0.copy()
    u = u1.copy()
    for _ in range(steps):
        u_next = np.empty_like(u)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_next[0] = 0.0
        u_next[-1] = 0.0
        u_prev, u = u, u_next
    return u


def pairwise_distance(X):
    n = X.shape[0]
    D = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            d = 0.0
            for k in range(X.shape[1]):
                t = X[i, k] - X[j, k]
                d += t * t
            D[i, j] = np.sqrt(d)
    return D


def lcs_length(a, b):
    n, m = len(a), len(b)
    T = np.zeros((n + 1, m + 1), dtype=np.int32)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                T[i, j] = T[i - 1, j - 1] + 1
            else:
                T[i, j] = max(T[i - 1, j], T[i, j - 1])
    return T[n, m]


def sieve(n):
    is_prime = np.ones(n + 1, dtype=np.bool_)
    is_prime[:2] = False
    i = 2
    while i * i <= n:
        if is_prime[i]:
            for j in range(i * i, n + 1, i):
                is_prime[j] = False
        i += 1
    return np.nonzero(is_prime)[0].shape[0]


def moving_average(x, w):
    out = np.empty(x.shape[0] - w + 1)
    s = x[:w].sum()
    out[0] = s / w
    for i in range(1, out.shape[0]):
        s += x[i + w - 1] - x[i - 1]
        out[i] = s / w
    return out


def logistic_map(r, x0, n):
    xs = np.empty(n, dtype=np.float32)
    x = np.float32(x0)
    for i in range(n):
        x = r * x * (1 - x)
        xs[i] = x
    return xs


def power_iteration(A, iters):
    b = np.ones(A.shape[1])
    for _ in range(iters):
        b = A @ b
        b = b / np.linalg.norm(b)
    return b


def conjugate_gradient(A, b, iters):
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs = r @ r
    for _ in range(iters):
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x = x + alpha * p
        r = r - alpha * Ap
        rs_new = r @ r
        p = r + (rs_new / rs) * p
        rs = rs_new
    return x


def gramschmidt(A):
    m, n = A.shape
    Q = np.zeros((m, n))
    R = np.zeros((n, n))
    for k in range(n):
        nrm = 0.0
        for i in range(m):
            nrm += A[i, k] * A[i, k]
        R[k, k] = np.sqrt(nrm)
        for i in range(m):
            Q[i, k] = A[i, k] / R[k, k]
        for j in range(k + 1, n):
            s = 0.0
            for i in range(m):
                s += Q[i, k] * A[i, j]
            R[k, j] = s
            for i in range(m):
                A[i, j] = A[i, j] - Q[i, k] * R[k, j]
    return Q, R


def fdtd_2d(TMAX, ex, ey, hz, fict):
    for t in range(TMAX):
        ey[0, :] = fict[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])


def kmeans_assign(X, C):
    n, k = X.shape[0], C.shape[0]
    labels = np.zeros(n, dtype=np.int64)
    for i in range(n):
        best = np.inf
        for j in range(k):
            d = np.sum((X[i] - C[j]) ** 2)
            if d < best:
                best = d
                labels[i] = j
    return labels


def floyd_loops(dist):
    n = dist.shape[0]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if dist[i, k] + dist[k, j] < dist[i, j]:
                    dist[i, j] = dist[i, k] + dist[k, j]
    return dist


def knapsack(weights, values, capacity):
    best = np.zeros(capacity + 1)
    for i in range(weights.shape[0]):
        w = weights[i]
        for c in range(capacity, w - 1, -1):
            if best[c - w] + values[i] > best[c]:
                best[c] = best[c - w] + values[i]
    return best[capacity]


def needleman_wunsch(a, b, gap=-1.0, match=1.0, mismatch=-1.0):
    n, m = a.shape[0], b.shape[0]
    F = np.zeros((n + 1, m + 1))
    for i in range(n + 1):
        F[i, 0] = gap * i
    for j in range(m + 1):
        F[0, j] = gap * j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            s = match if a[i - 1] == b[j - 1] else mismatch
            F[i, j] = max(F[i - 1, j - 1] + s, F[i - 1, j] + gap, F[i, j - 1] + gap)
    return F


def lennard_jones(pos, eps=1.0, sigma=0.5):
    n = pos.shape[0]
    forces = np.zeros_like(pos)
    energy = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            r2 = np.sum(d * d)
            sr6 = (sigma * sigma / r2) ** 3
            energy += 4.0 * eps * (sr6 * sr6 - sr6)
            f = 24.0 * eps * (2.0 * sr6 * sr6 - sr6) / r2 * d
            forces[i] += f
            forces[j] -= f
    return energy, forces


def spmv_csr(data, indices, indptr, x):
    n = indptr.shape[0] - 1
    y = np.zeros(n)
    for i in range(n):
        s = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            s += data[k] * x[indices[k]]
        y[i] = s
    return y


def conv_net(x, w1, w2):
    def conv(img, w):
        kh, kw = w.shape
        H, W = img.shape[0] - kh + 1, img.shape[1] - kw + 1
        out = np.zeros((H, W))
        for p in range(kh):
            for q in range(kw):
                out += w[p, q] * img[p:p + H, q:q + W]
        return out
    h = np.maximum(conv(x, w1), 0.0)
    return np.tanh(conv(h, w2))


def layernorm_gelu(x, g, b):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    y = (x - mu) / np.sqrt(var + 1e-5) * g + b
    return 0.5 * y * (1.0 + np.tanh(0.7978845608 * (y + 0.044715 * y ** 3)))


def rmsprop(w, grads, lr=0.01, decay=0.9, eps=1e-8):
    cache = np.zeros_like(w)
    for t in range(grads.shape[0]):
        g = grads[t]
        cache = decay * cache + (1 - decay) * g * g
        w = w - lr * g / (np.sqrt(cache) + eps)
    return w


def crc32(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= int(byte)
        for _ in range(8):
            if crc & 1:
                crc = (crc >> 1) ^ 0xEDB88320
            else:
                crc >>= 1
    return crc ^ 0xFFFFFFFF


def mandelbrot_grid(xs, ys, maxiter):
    counts = np.zeros((ys.shape[0], xs.shape[0]), dtype=np.int64)
    for i in range(ys.shape[0]):
        for j in range(xs.shape[0]):
            zr, zi = 0.0, 0.0
            n = 0
            while n < maxiter and zr * zr + zi * zi <= 4.0:
                zr, zi = zr * zr - zi * zi + xs[j], 2.0 * zr * zi + ys[i]
                n += 1
            counts[i, j] = n
    return counts


def gauss_seidel(A, b, sweeps):
    n = b.shape[0]
    x = np.zeros(n)
    for _ in range(sweeps):
        for i in range(n):
            s = b[i]
            for j in range(n):
                if j != i:
                    s -= A[i, j] * x[j]
            x[i] = s / A[i, i]
    return x
