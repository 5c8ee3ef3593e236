# ruff: noqa -- written as users write NumPy, style included
"""More kernels written the way their users write them: polybench/npbench linear algebra
and stencils (symm, syrk, syr2k, trmm, doitgen, mvt, bicg, durbin, ludcmp, correlation,
nussinov, adi, deriche), sorting by hand, hashing bytes, cellular automata, hidden-Markov
decoding, a bounded edit distance, a particle-in-cell push, a 2-D wave equation, a softmax
and a running maximum written with loops. The tests (`test_user_kernels.py`) and
`benches/kernels.py` run them verbatim."""
import numpy as np


def syrk(alpha, beta, C, A):
    for i in range(A.shape[0]):
        C[i, :i + 1] *= beta
        for k in range(A.shape[1]):
            C[i, :i + 1] += alpha * A[i, k] * A[:i + 1, k]


def syr2k(alpha, beta, C, A, B):
    for i in range(A.shape[0]):
        C[i, :i + 1] *= beta
        for k in range(A.shape[1]):
            C[i, :i + 1] += (A[:i + 1, k] * alpha * B[i, k] +
                             B[:i + 1, k] * alpha * A[i, k])


def symm(alpha, beta, C, A, B):
    temp2 = np.empty((C.shape[1], ), dtype=C.dtype)
    C *= beta
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            C[:i, j] += alpha * B[i, j] * A[i, :i]
            temp2[j] = B[:i, j] @ A[i, :i]
        C[i, :] += alpha * B[i, :] * A[i, i] + alpha * temp2


def trmm(alpha, A, B):
    for i in range(B.shape[0]):
        for j in range(B.shape[1]):
            B[i, j] += np.dot(A[i + 1:, i], B[i + 1:, j])
    B *= alpha


def doitgen(NR, NQ, NP, A, C4):
    for r in range(NR):
        A[r, :, :] = np.reshape(np.reshape(A[r], (NQ, 1, NP)) @ C4, (NQ, NP))


def mvt_loops(x1, x2, y_1, y_2, A):
    N = A.shape[0]
    for i in range(N):
        for j in range(N):
            x1[i] = x1[i] + A[i, j] * y_1[j]
    for i in range(N):
        for j in range(N):
            x2[i] = x2[i] + A[j, i] * y_2[j]


def bicg_loops(A, p, r):
    M, N = A.shape
    s = np.zeros(N)
    q = np.zeros(M)
    for i in range(M):
        for j in range(N):
            s[j] += r[i] * A[i, j]
            q[i] += A[i, j] * p[j]
    return s, q


def durbin(r):
    y = np.empty_like(r)
    alpha = -r[0]
    beta = 1.0
    y[0] = -r[0]
    for k in range(1, r.shape[0]):
        beta *= 1.0 - alpha * alpha
        alpha = -(r[k] + np.dot(np.flip(r[:k]), y[:k])) / beta
        y[:k] += alpha * np.flip(y[:k])
        y[k] = alpha
    return y


def ludcmp(A, b):
    x = np.zeros_like(b)
    y = np.zeros_like(b)
    for i in range(A.shape[0]):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, A.shape[0]):
            A[i, j] -= A[i, :i] @ A[:i, j]
    for i in range(A.shape[0]):
        y[i] = b[i] - A[i, :i] @ y[:i]
    for i in range(A.shape[0] - 1, -1, -1):
        x[i] = (y[i] - A[i, i + 1:] @ x[i + 1:]) / A[i, i]
    return x, y


def correlation(M, float_n, data):
    mean = np.mean(data, axis=0)
    stddev = np.std(data, axis=0)
    stddev[stddev <= 0.1] = 1.0
    data -= mean
    data /= np.sqrt(float_n) * stddev
    corr = np.eye(M, dtype=data.dtype)
    for i in range(M - 1):
        corr[i + 1:M, i] = corr[i, i + 1:M] = data[:, i] @ data[:, i + 1:M]
    return corr


def match(b1, b2):
    if b1 + b2 == 3:
        return 1
    else:
        return 0


def nussinov(N, seq):
    table = np.zeros((N, N), np.int32)
    for i in range(N - 1, -1, -1):
        for j in range(i + 1, N):
            if j - 1 >= 0:
                table[i, j] = max(table[i, j], table[i, j - 1])
            if i + 1 < N:
                table[i, j] = max(table[i, j], table[i + 1, j])
            if j - 1 >= 0 and i + 1 < N:
                if i < j - 1:
                    table[i, j] = max(table[i, j], table[i + 1, j - 1] + match(seq[i], seq[j]))
                else:
                    table[i, j] = max(table[i, j], table[i + 1, j - 1])
            for k in range(i + 1, j):
                table[i, j] = max(table[i, j], table[i, k] + table[k + 1, j])
    return table


def adi(TSTEPS, N, u):
    v = np.zeros(u.shape, dtype=u.dtype)
    p = np.zeros(u.shape, dtype=u.dtype)
    q = np.zeros(u.shape, dtype=u.dtype)
    DX = 1.0 / N
    DY = 1.0 / N
    DT = 1.0 / TSTEPS
    B1 = 2.0
    B2 = 1.0
    mul1 = B1 * DT / (DX * DX)
    mul2 = B2 * DT / (DY * DY)
    a = -mul1 / 2.0
    b = 1.0 + mul2
    c = a
    d = -mul2 / 2.0
    e = 1.0 + mul2
    f = d
    for t in range(1, TSTEPS + 1):
        v[0, 1:N - 1] = 1.0
        p[1:N - 1, 0] = 0.0
        q[1:N - 1, 0] = v[0, 1:N - 1]
        for j in range(1, N - 1):
            p[1:N - 1, j] = -c / (a * p[1:N - 1, j - 1] + b)
            q[1:N - 1, j] = (-d * u[j, 0:N - 2] + (1.0 + 2.0 * d) * u[j, 1:N - 1] -
                             f * u[j, 2:N] - a * q[1:N - 1, j - 1]) / (a * p[1:N - 1, j - 1] + b)
        v[N - 1, 1:N - 1] = 1.0
        for j in range(N - 2, 0, -1):
            v[j, 1:N - 1] = p[1:N - 1, j] * v[j + 1, 1:N - 1] + q[1:N - 1, j]
        u[1:N - 1, 0] = 1.0
        p[1:N - 1, 0] = 0.0
        q[1:N - 1, 0] = u[1:N - 1, 0]
        for j in range(1, N - 1):
            p[1:N - 1, j] = -f / (d * p[1:N - 1, j - 1] + e)
            q[1:N - 1, j] = (-a * v[0:N - 2, j] + (1.0 + 2.0 * a) * v[1:N - 1, j] -
                             c * v[2:N, j] - d * q[1:N - 1, j - 1]) / (d * p[1:N - 1, j - 1] + e)
        u[1:N - 1, N - 1] = 1.0
        for j in range(N - 2, 0, -1):
            u[1:N - 1, j] = p[1:N - 1, j] * u[1:N - 1, j + 1] + q[1:N - 1, j]


def deriche(alpha, imgIn):
    k = (1.0 - np.exp(-alpha)) * (1.0 - np.exp(-alpha)) / (
        1.0 + alpha * np.exp(-alpha) - np.exp(2.0 * alpha))
    a1 = a5 = k
    a2 = a6 = k * np.exp(-alpha) * (alpha - 1.0)
    a3 = a7 = k * np.exp(-alpha) * (alpha + 1.0)
    a4 = a8 = -k * np.exp(-2.0 * alpha)
    b1 = 2.0**(-alpha)
    b2 = -np.exp(-2.0 * alpha)
    c1 = c2 = 1
    y1 = np.empty_like(imgIn)
    y1[:, 0] = a1 * imgIn[:, 0]
    y1[:, 1] = a1 * imgIn[:, 1] + a2 * imgIn[:, 0] + b1 * y1[:, 0]
    for j in range(2, imgIn.shape[1]):
        y1[:, j] = (a1 * imgIn[:, j] + a2 * imgIn[:, j - 1] +
                    b1 * y1[:, j - 1] + b2 * y1[:, j - 2])
    y2 = np.empty_like(imgIn)
    y2[:, -1] = 0.0
    y2[:, -2] = a3 * imgIn[:, -1]
    for j in range(imgIn.shape[1] - 3, -1, -1):
        y2[:, j] = (a3 * imgIn[:, j + 1] + a4 * imgIn[:, j + 2] +
                    b1 * y2[:, j + 1] + b2 * y2[:, j + 2])
    imgOut = c1 * (y1 + y2)
    y1[0, :] = a5 * imgOut[0, :]
    y1[1, :] = a5 * imgOut[1, :] + a6 * imgOut[0, :] + b1 * y1[0, :]
    for i in range(2, imgIn.shape[0]):
        y1[i, :] = (a5 * imgOut[i, :] + a6 * imgOut[i - 1, :] +
                    b1 * y1[i - 1, :] + b2 * y1[i - 2, :])
    y2[-1, :] = 0.0
    y2[-2, :] = a7 * imgOut[-1, :]
    for i in range(imgIn.shape[0] - 3, -1, -1):
        y2[i, :] = (a7 * imgOut[i + 1, :] + a8 * imgOut[i + 2, :] +
                    b1 * y2[i + 1, :] + b2 * y2[i + 2, :])
    imgOut[:] = c2 * (y1 + y2)
    return imgOut


def bubble_sort(a):
    a = a.copy()
    n = a.shape[0]
    for i in range(n):
        swapped = False
        for j in range(0, n - i - 1):
            if a[j] > a[j + 1]:
                a[j], a[j + 1] = a[j + 1], a[j]
                swapped = True
        if not swapped:
            break
    return a


def selection_sort(a):
    n = len(a)
    for i in range(n):
        min_idx = i
        for j in range(i + 1, n):
            if a[j] < a[min_idx]:
                min_idx = j
        a[i], a[min_idx] = a[min_idx], a[i]
    return a


def djb2(data):
    h = 5381
    for c in data:
        h = ((h << 5) + h + int(c)) & 0xFFFFFFFF
    return h


def life_step(grid):
    n, m = grid.shape
    new = np.zeros_like(grid)
    for i in range(n):
        for j in range(m):
            count = 0
            for di in (-1, 0, 1):
                for dj in (-1, 0, 1):
                    if di == 0 and dj == 0:
                        continue
                    count += grid[(i + di) % n, (j + dj) % m]
            if grid[i, j] == 1 and (count == 2 or count == 3):
                new[i, j] = 1
            elif grid[i, j] == 0 and count == 3:
                new[i, j] = 1
    return new


def life_roll(grid, steps):
    for _ in range(steps):
        neighbours = (np.roll(grid, 1, 0) + np.roll(grid, -1, 0) + np.roll(grid, 1, 1) +
                      np.roll(grid, -1, 1) + np.roll(np.roll(grid, 1, 0), 1, 1) +
                      np.roll(np.roll(grid, 1, 0), -1, 1) + np.roll(np.roll(grid, -1, 0), 1, 1) +
                      np.roll(np.roll(grid, -1, 0), -1, 1))
        grid = ((neighbours == 3) | ((grid == 1) & (neighbours == 2))).astype(grid.dtype)
    return grid


def viterbi(obs, start_p, trans_p, emit_p):
    n_states = trans_p.shape[0]
    T = obs.shape[0]
    V = np.zeros((T, n_states))
    back = np.zeros((T, n_states), dtype=np.int64)
    V[0] = np.log(start_p) + np.log(emit_p[:, obs[0]])
    for t in range(1, T):
        for s in range(n_states):
            best = -np.inf
            arg = 0
            for r in range(n_states):
                score = V[t - 1, r] + np.log(trans_p[r, s])
                if score > best:
                    best = score
                    arg = r
            V[t, s] = best + np.log(emit_p[s, obs[t]])
            back[t, s] = arg
    path = np.zeros(T, dtype=np.int64)
    path[-1] = np.argmax(V[-1])
    for t in range(T - 1, 0, -1):
        path[t - 1] = back[t, path[t]]
    return path, V[-1].max()


def levenshtein_bounded(a, b, max_dist):
    n, m = len(a), len(b)
    prev = np.arange(m + 1)
    cur = np.zeros(m + 1, dtype=prev.dtype)
    for i in range(1, n + 1):
        cur[0] = i
        row_min = cur[0]
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if cur[j] < row_min:
                row_min = cur[j]
        if row_min > max_dist:
            return max_dist + 1
        prev, cur = cur, prev
    return prev[m]


def pic_push(x, v, E_grid, dx, dt, L):
    ng = E_grid.shape[0]
    for p in range(x.shape[0]):
        xg = x[p] / dx
        j = int(np.floor(xg))
        w = xg - j
        E = (1 - w) * E_grid[j % ng] + w * E_grid[(j + 1) % ng]
        v[p] += -E * dt
        x[p] += v[p] * dt
        x[p] = x[p] % L


def wave_2d(u, u_prev, c2, steps):
    for _ in range(steps):
        u_next = np.zeros_like(u)
        u_next[1:-1, 1:-1] = (2 * u[1:-1, 1:-1] - u_prev[1:-1, 1:-1] +
                              c2 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] +
                                    u[1:-1, :-2] - 4 * u[1:-1, 1:-1]))
        u_prev, u = u, u_next
    return u


def softmax_loops(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        m = x[i, 0]
        for j in range(1, x.shape[1]):
            if x[i, j] > m:
                m = x[i, j]
        s = 0.0
        for j in range(x.shape[1]):
            out[i, j] = np.exp(x[i, j] - m)
            s += out[i, j]
        for j in range(x.shape[1]):
            out[i, j] /= s
    return out


def running_max(x):
    out = np.empty_like(x)
    cur = x[0]
    for i in range(x.shape[0]):
        if x[i] > cur:
            cur = x[i]
        out[i] = cur
    return out


def bisect_roots(c, lo, hi, tol):
    roots = np.empty_like(c)
    for k in range(c.shape[0]):
        a, b = lo, hi
        while b - a > tol:
            mid = 0.5 * (a + b)
            if mid * mid * mid - c[k] > 0:
                b = mid
            else:
                a = mid
        roots[k] = 0.5 * (a + b)
    return roots
