"""Sparse formats, PDE/FEM solvers and optimisation written as their users write them: COO to
CSR by counting, CSR transposes and products row by row with a dense accumulator, Jacobi on
CSR, a 1-D finite-element assembly, a recursive multigrid V-cycle, finite volumes with flux
limiters, Crank-Nicolson with a tridiagonal solve per step, simplex tableau pivots, a
projection onto the simplex, FISTA and Sinkhorn iterations."""

import numpy as np


def coo_to_csr(rows, cols, vals, n_rows):
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    for r in rows:
        indptr[r + 1] += 1
    indptr = np.cumsum(indptr)
    indices = np.empty(len(cols), dtype=np.int64)
    data = np.empty(len(vals))
    fill = indptr[:-1].copy()
    for k in range(len(rows)):
        r = rows[k]
        dst = fill[r]
        indices[dst] = cols[k]
        data[dst] = vals[k]
        fill[r] += 1
    return indptr, indices, data


def csr_transpose(indptr, indices, data, n_cols):
    n_rows = len(indptr) - 1
    counts = np.bincount(indices, minlength=n_cols)
    t_indptr = np.zeros(n_cols + 1, dtype=np.int64)
    t_indptr[1:] = np.cumsum(counts)
    t_indices = np.empty_like(indices)
    t_data = np.empty_like(data)
    nxt = t_indptr[:-1].copy()
    for i in range(n_rows):
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            dst = nxt[j]
            t_indices[dst] = i
            t_data[dst] = data[k]
            nxt[j] += 1
    return t_indptr, t_indices, t_data


def csr_spgemm(a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, n_cols):
    n_rows = len(a_ptr) - 1
    acc = np.zeros(n_cols)
    used = np.zeros(n_cols, dtype=bool)
    c_ptr = np.zeros(n_rows + 1, dtype=np.int64)
    c_idx = []
    c_val = []
    for i in range(n_rows):
        for ka in range(a_ptr[i], a_ptr[i + 1]):
            k = a_idx[ka]
            av = a_val[ka]
            for kb in range(b_ptr[k], b_ptr[k + 1]):
                j = b_idx[kb]
                acc[j] += av * b_val[kb]
                used[j] = True
        for j in range(n_cols):
            if used[j]:
                c_idx.append(j)
                c_val.append(acc[j])
                acc[j] = 0.0
                used[j] = False
        c_ptr[i + 1] = len(c_idx)
    return c_ptr, np.array(c_idx, dtype=np.int64), np.array(c_val)


def jacobi_csr(indptr, indices, data, b, iters=50):
    n = len(b)
    diag = np.zeros(n)
    for i in range(n):
        for k in range(indptr[i], indptr[i + 1]):
            if indices[k] == i:
                diag[i] = data[k]
    x = np.zeros(n)
    for _ in range(iters):
        x_new = b.copy()
        for i in range(n):
            s = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                j = indices[k]
                if j != i:
                    s += data[k] * x[j]
            x_new[i] -= s
        x = x_new / diag
    return x


def fem_1d_poisson(nodes, f):
    n = len(nodes)
    K = np.zeros((n, n))
    F = np.zeros(n)
    for e in range(n - 1):
        h = nodes[e + 1] - nodes[e]
        ke = np.array([[1.0, -1.0], [-1.0, 1.0]]) / h
        fe = 0.5 * h * np.array([f[e], f[e + 1]])
        K[e:e + 2, e:e + 2] += ke
        F[e:e + 2] += fe
    K[0, :] = 0.0
    K[0, 0] = 1.0
    F[0] = 0.0
    K[-1, :] = 0.0
    K[-1, -1] = 1.0
    F[-1] = 0.0
    return np.linalg.solve(K, F)


def _smooth(u, f, h, sweeps, omega=2.0 / 3.0):
    for _ in range(sweeps):
        u[1:-1] = (1 - omega) * u[1:-1] + omega * 0.5 * (u[:-2] + u[2:] + h * h * f[1:-1])
    return u


def _v_cycle(u, f, h, sweeps):
    u = _smooth(u, f, h, sweeps)
    if len(u) <= 5:
        return _smooth(u, f, h, 20)
    r = np.zeros_like(u)
    r[1:-1] = f[1:-1] + (u[:-2] - 2 * u[1:-1] + u[2:]) / (h * h)
    rc = r[::2].copy()
    rc[1:-1] = 0.25 * r[1:-2:2] + 0.5 * r[2:-1:2] + 0.25 * r[3::2]
    ec = _v_cycle(np.zeros_like(rc), rc, 2 * h, sweeps)
    e = np.zeros_like(u)
    e[::2] = ec
    e[1::2] = 0.5 * (ec[:-1] + ec[1:])
    u += e
    return _smooth(u, f, h, sweeps)


def multigrid_poisson(f, cycles=4, sweeps=3):
    n = len(f)
    h = 1.0 / (n - 1)
    u = np.zeros(n)
    for _ in range(cycles):
        u = _v_cycle(u, f, h, sweeps)
    return u


def _minmod(a, b):
    return np.where(a * b > 0, np.sign(a) * np.minimum(np.abs(a), np.abs(b)), 0.0)


def _superbee(r):
    return np.maximum(0.0, np.maximum(np.minimum(2 * r, 1.0), np.minimum(r, 2.0)))


def fv_limited_advection(u0, c, steps, limiter="minmod"):
    u = u0.copy()
    for _ in range(steps):
        du_l = u - np.roll(u, 1)
        du_r = np.roll(u, -1) - u
        if limiter == "minmod":
            slope = _minmod(du_l, du_r)
        else:
            r = du_l / np.where(np.abs(du_r) > 1e-12, du_r, 1e-12)
            slope = _superbee(r) * du_r
        flux = c * (u + 0.5 * (1 - c) * slope)
        u = u - (flux - np.roll(flux, 1))
    return u


def _thomas(a, b, c, d):
    n = len(d)
    cp = np.empty(n)
    dp = np.empty(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.empty(n)
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def crank_nicolson(u0, alpha, steps):
    n = len(u0)
    u = u0.copy()
    a = np.full(n, -alpha / 2)
    b = np.full(n, 1 + alpha)
    c = np.full(n, -alpha / 2)
    a[0] = c[-1] = 0.0
    for _ in range(steps):
        rhs = np.empty(n)
        rhs[1:-1] = alpha / 2 * u[:-2] + (1 - alpha) * u[1:-1] + alpha / 2 * u[2:]
        rhs[0] = (1 - alpha) * u[0] + alpha / 2 * u[1]
        rhs[-1] = (1 - alpha) * u[-1] + alpha / 2 * u[-2]
        u = _thomas(a, b, c, rhs)
    return u


def simplex_max(c, A, b, max_iter=50):
    m, n = A.shape
    T = np.zeros((m + 1, n + m + 1))
    T[:m, :n] = A
    T[:m, n:n + m] = np.eye(m)
    T[:m, -1] = b
    T[-1, :n] = -c
    basis = list(range(n, n + m))
    for _ in range(max_iter):
        col = np.argmin(T[-1, :-1])
        if T[-1, col] >= -1e-12:
            break
        ratios = np.full(m, np.inf)
        for i in range(m):
            if T[i, col] > 1e-12:
                ratios[i] = T[i, -1] / T[i, col]
        row = np.argmin(ratios)
        if ratios[row] == np.inf:
            return None
        T[row] /= T[row, col]
        for i in range(m + 1):
            if i != row:
                T[i] -= T[i, col] * T[row]
        basis[row] = col
    x = np.zeros(n)
    for i, bi in enumerate(basis):
        if bi < n:
            x[bi] = T[i, -1]
    return x, T[-1, -1]


def _project_simplex(v):
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    ind = np.arange(1, len(v) + 1)
    rho = np.nonzero(u - css / ind > 0)[0][-1]
    theta = css[rho] / (rho + 1.0)
    return np.maximum(v - theta, 0.0)


def projected_gradient_simplex(Q, c, steps=100, lr=0.05):
    x = np.full(len(c), 1.0 / len(c))
    for _ in range(steps):
        grad = Q @ x + c
        x = _project_simplex(x - lr * grad)
    return x, 0.5 * x @ Q @ x + c @ x


def fista_lasso(A, b, lam, iters=100):
    L = np.linalg.norm(A, 2) ** 2
    x = np.zeros(A.shape[1])
    y = x.copy()
    t = 1.0
    for _ in range(iters):
        g = A.T @ (A @ y - b)
        z = y - g / L
        x_new = np.sign(z) * np.maximum(np.abs(z) - lam / L, 0.0)
        t_new = (1 + np.sqrt(1 + 4 * t * t)) / 2
        y = x_new + (t - 1) / t_new * (x_new - x)
        x, t = x_new, t_new
    return x


def sinkhorn(a, b, C, reg=0.1, iters=100):
    K = np.exp(-C / reg)
    u = np.ones_like(a)
    v = np.ones_like(b)
    for _ in range(iters):
        u = a / (K @ v)
        v = b / (K.T @ u)
    P = u[:, None] * K * v[None, :]
    return P, np.sum(P * C)
