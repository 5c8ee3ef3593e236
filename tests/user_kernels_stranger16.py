"""Kernels in styles the rest of the corpus lacks: deep-learning layers in plain NumPy (conv2d
by im2col, strided pooling, attention with a causal mask, LSTM/GRU cells over time steps,
cross-entropy with integer labels), linear algebra by hand (blocked matmul, Householder QR,
Givens on a vector, LU with partial pivoting, Cholesky rank-1 update, Lanczos), solvers (CG with
a preconditioner, SOR, Newton on a system, leapfrog and velocity Verlet), physics (SPH forces,
Lennard-Jones with a cutoff, Ising with given random numbers), and code styles: `np.einsum`
strings, `@` chains, `out=` arguments, `np.add.at`, `for i, row in enumerate(A)`, list
comprehensions stacked with `np.stack`, helpers called from loops."""

import numpy as np


# --- deep-learning layers -----------------------------------------------------------------

def im2col_conv2d(x, w, stride=1, pad=1):
    """conv2d (N, C, H, W) * (F, C, kh, kw) by im2col and one matrix product."""
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (wd + 2 * pad - kw) // stride + 1
    cols = np.empty((n, c, kh, kw, oh, ow))
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j] = xp[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
    cols = cols.transpose(0, 4, 5, 1, 2, 3).reshape(n * oh * ow, -1)
    out = cols @ w.reshape(f, -1).T
    return out.reshape(n, oh, ow, f).transpose(0, 3, 1, 2)


def conv2d_einsum_windows(x, w):
    """Valid 2-d convolution of one image (C, H, W) summed over shifted windows with einsum."""
    c, h, wd = x.shape
    f, _, kh, kw = w.shape
    out = np.zeros((f, h - kh + 1, wd - kw + 1))
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("fc,chw->fhw", w[:, :, i, j], x[:, i:i + h - kh + 1, j:j + wd - kw + 1])
    return out


def max_pool_strided(x, k=3, s=2):
    """Max pooling with overlapping windows (k=3, stride 2) over (C, H, W)."""
    c, h, w = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    out = np.full((c, oh, ow), -np.inf)
    for i in range(k):
        for j in range(k):
            np.maximum(out, x[:, i:i + s * oh:s, j:j + s * ow:s], out=out)
    return out


def avg_pool_loops(x, k=2):
    """Average pooling written with four loops over output cells, as in a tutorial."""
    c, h, w = x.shape
    out = np.zeros((c, h // k, w // k))
    for ch in range(c):
        for i in range(h // k):
            for j in range(w // k):
                out[ch, i, j] = x[ch, i * k:(i + 1) * k, j * k:(j + 1) * k].mean()
    return out


def batchnorm_train_running(x, gamma, beta, running_mean, running_var, momentum=0.9, eps=1e-5):
    """Batch-norm forward in training mode, updating the running statistics in place."""
    mu = x.mean(axis=0)
    var = x.var(axis=0)
    running_mean *= momentum
    running_mean += (1 - momentum) * mu
    running_var *= momentum
    running_var += (1 - momentum) * var
    xhat = (x - mu) / np.sqrt(var + eps)
    return gamma * xhat + beta


def layernorm_rows_enumerate(X, g, b, eps=1e-5):
    """Layer norm row by row with `for i, row in enumerate(X)`."""
    out = np.empty_like(X)
    for i, row in enumerate(X):
        m = row.mean()
        v = ((row - m) ** 2).mean()
        out[i] = g * (row - m) / np.sqrt(v + eps) + b
    return out


def causal_attention_heads(q, k, v):
    """Multi-head attention (H, T, D) with a causal mask, einsum for both products."""
    h, t, d = q.shape
    scores = np.einsum("htd,hsd->hts", q, k) / np.sqrt(d)
    mask = np.triu(np.ones((t, t), dtype=bool), 1)
    scores = np.where(mask, -1e9, scores)
    scores -= scores.max(axis=-1, keepdims=True)
    p = np.exp(scores)
    p /= p.sum(axis=-1, keepdims=True)
    return np.einsum("hts,hsd->htd", p, v)


def padded_attention(q, k, v, lengths):
    """Single-head attention over a batch with key padding given by sequence lengths."""
    b, t, d = q.shape
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(d)
    valid = np.arange(t)[None, None, :] < lengths[:, None, None]
    scores = np.where(valid, scores, -np.inf)
    scores = scores - scores.max(axis=2, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=2, keepdims=True)
    return w @ v


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def lstm_cell_steps(xs, h0, c0, W, U, b):
    """An LSTM over time steps, gates split from one stacked product; helper called per step."""
    h, c = h0.copy(), c0.copy()
    n = h.shape[1]
    hs = []
    for x in xs:
        z = x @ W + h @ U + b
        i = _sigmoid(z[:, :n])
        f = _sigmoid(z[:, n:2 * n])
        o = _sigmoid(z[:, 2 * n:3 * n])
        g = np.tanh(z[:, 3 * n:])
        c = f * c + i * g
        h = o * np.tanh(c)
        hs.append(h)
    return np.stack(hs), c


def gru_cell_range(X, h, Wz, Wr, Wh, Uz, Ur, Uh):
    """A GRU over the rows of X (T, B, D), indexing time with range."""
    T = X.shape[0]
    out = np.zeros((T,) + h.shape)
    for t in range(T):
        x = X[t]
        z = _sigmoid(x @ Wz + h @ Uz)
        r = _sigmoid(x @ Wr + h @ Ur)
        hh = np.tanh(x @ Wh + (r * h) @ Uh)
        h = (1 - z) * h + z * hh
        out[t] = h
    return out


def embedding_bag_sum(table, ids, offsets):
    """Sum of embeddings per bag (bags given by start offsets), like EmbeddingBag(mode='sum')."""
    out = np.zeros((len(offsets), table.shape[1]))
    ends = np.append(offsets[1:], len(ids))
    for bag in range(len(offsets)):
        out[bag] = table[ids[offsets[bag]:ends[bag]]].sum(axis=0)
    return out


def embedding_grad_add_at(ids, dout, vocab):
    """Gradient of an embedding lookup with np.add.at over repeated ids."""
    dW = np.zeros((vocab, dout.shape[-1]))
    np.add.at(dW, ids.ravel(), dout.reshape(-1, dout.shape[-1]))
    return dW


def cross_entropy_labels_grad(logits, labels):
    """Mean softmax cross-entropy with integer labels and its gradient."""
    n = logits.shape[0]
    shifted = logits - logits.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -logp[np.arange(n), labels].mean()
    grad = np.exp(logp)
    grad[np.arange(n), labels] -= 1.0
    return loss, grad / n


def dropout_mlp_forward(x, W1, b1, W2, b2, mask, keep=0.8):
    """Two-layer MLP with inverted dropout given by a fixed mask, `@` chain and out= relu."""
    h = x @ W1 + b1
    np.maximum(h, 0.0, out=h)
    h *= mask / keep
    return h @ W2 + b2


def label_smoothing_loss(logits, labels, smoothing=0.1):
    """Cross-entropy against label-smoothed one-hot targets built with fancy indexing."""
    n, k = logits.shape
    target = np.full((n, k), smoothing / (k - 1))
    target[np.arange(n), labels] = 1.0 - smoothing
    m = logits.max(axis=1, keepdims=True)
    logp = logits - m - np.log(np.sum(np.exp(logits - m), axis=1, keepdims=True))
    return -(target * logp).sum() / n


# --- linear algebra by hand ---------------------------------------------------------------

def blocked_matmul(A, B, bs=16):
    """C = A @ B by square blocks, accumulated in place with out=."""
    n, m = A.shape
    p = B.shape[1]
    C = np.zeros((n, p))
    for i in range(0, n, bs):
        for j in range(0, p, bs):
            for k in range(0, m, bs):
                C[i:i + bs, j:j + bs] += A[i:i + bs, k:k + bs] @ B[k:k + bs, j:j + bs]
    return C


def householder_qr_accumulate(A):
    """Householder QR: R in place of a copy of A, Q accumulated from the reflectors."""
    m, n = A.shape
    R = A.copy()
    Q = np.eye(m)
    for k in range(n):
        x = R[k:, k]
        v = x.copy()
        v[0] += np.copysign(np.linalg.norm(x), x[0])
        v /= np.linalg.norm(v)
        R[k:, :] -= 2.0 * np.outer(v, v @ R[k:, :])
        Q[:, k:] -= 2.0 * np.outer(Q[:, k:] @ v, v)
    return Q, R


def lu_partial_pivot_solve(A, b):
    """LU with partial pivoting (row swaps by fancy indexing), then two triangular solves."""
    n = A.shape[0]
    U = A.copy()
    L = np.eye(n)
    perm = np.arange(n)
    for k in range(n - 1):
        p = k + np.argmax(np.abs(U[k:, k]))
        if p != k:
            U[[k, p], k:] = U[[p, k], k:]
            L[[k, p], :k] = L[[p, k], :k]
            perm[[k, p]] = perm[[p, k]]
        for i in range(k + 1, n):
            L[i, k] = U[i, k] / U[k, k]
            U[i, k:] -= L[i, k] * U[k, k:]
    y = np.zeros(n)
    pb = b[perm]
    for i in range(n):
        y[i] = pb[i] - L[i, :i] @ y[:i]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - U[i, i + 1:] @ x[i + 1:]) / U[i, i]
    return x


def cholesky_rank1_update(L, x):
    """Update the Cholesky factor L of A into that of A + x x^T (the classic O(n^2) loop)."""
    L = L.copy()
    x = x.copy()
    n = x.shape[0]
    for k in range(n):
        r = np.sqrt(L[k, k] ** 2 + x[k] ** 2)
        c = r / L[k, k]
        s = x[k] / L[k, k]
        L[k, k] = r
        if k + 1 < n:
            L[k + 1:, k] = (L[k + 1:, k] + s * x[k + 1:]) / c
            x[k + 1:] = c * x[k + 1:] - s * L[k + 1:, k]
    return L


def lower_solve_columns(L, B):
    """Forward substitution for many right-hand sides, column-oriented (axpy updates)."""
    X = B.copy()
    n = L.shape[0]
    for j in range(n):
        X[j] /= L[j, j]
        X[j + 1:] -= np.outer(L[j + 1:, j], X[j])
    return X


def givens_zero_vector(v):
    """Rotate a vector onto its first axis with Givens rotations from the bottom up."""
    v = v.astype(np.float64)
    n = v.shape[0]
    cs = np.zeros(n - 1)
    sn = np.zeros(n - 1)
    for i in range(n - 1, 0, -1):
        a, b = v[i - 1], v[i]
        r = np.hypot(a, b)
        c, s = (1.0, 0.0) if r == 0 else (a / r, b / r)
        v[i - 1] = r
        v[i] = 0.0
        cs[i - 1] = c
        sn[i - 1] = s
    return v, cs, sn


def lanczos_tridiag(A, v0, m):
    """m steps of Lanczos with full reorthogonalisation; returns the tridiagonal's bands."""
    n = A.shape[0]
    V = np.zeros((m + 1, n))
    alpha = np.zeros(m)
    beta = np.zeros(m)
    V[0] = v0 / np.linalg.norm(v0)
    for j in range(m):
        w = A @ V[j]
        alpha[j] = w @ V[j]
        w -= V[:j + 1].T @ (V[:j + 1] @ w)
        beta[j] = np.linalg.norm(w)
        V[j + 1] = w / beta[j]
    return alpha, beta


def rayleigh_power_deflation(A, iters, k=2):
    """Top-k eigenpairs by power iteration with deflation, vectors collected in a list."""
    A = A.copy()
    vals = []
    vecs = []
    n = A.shape[0]
    for _ in range(k):
        v = np.ones(n) / np.sqrt(n)
        for _ in range(iters):
            w = A @ v
            v = w / np.linalg.norm(w)
        lam = v @ A @ v
        vals.append(lam)
        vecs.append(v)
        A = A - lam * np.outer(v, v)
    return np.array(vals), np.stack(vecs, axis=1)


def gram_schmidt_list(A):
    """Modified Gram-Schmidt on columns, kept as a list comprehension then np.stack."""
    cols = [A[:, j].copy() for j in range(A.shape[1])]
    for j in range(len(cols)):
        for i in range(j):
            cols[j] = cols[j] - (cols[i] @ cols[j]) * cols[i]
        cols[j] = cols[j] / np.linalg.norm(cols[j])
    return np.stack(cols, axis=1)


def einsum_bilinear_forms(X, M, Y):
    """Bilinear forms x_i^T M y_i for every row, a batched trace and an outer sum, in einsum."""
    forms = np.einsum("ni,ij,nj->n", X, M, Y)
    tr = np.einsum("ii->", M)
    outer = np.einsum("i,j->ij", X.sum(axis=0), Y.sum(axis=0))
    return forms, tr, outer


# --- solvers ------------------------------------------------------------------------------

def pcg_jacobi(A, b, iters):
    """Conjugate gradients with a Jacobi (diagonal) preconditioner, a fixed number of steps."""
    x = np.zeros_like(b)
    r = b - A @ x
    dinv = 1.0 / np.diag(A)
    z = dinv * r
    p = z.copy()
    rz = r @ z
    for _ in range(iters):
        Ap = A @ p
        alpha = rz / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        z = dinv * r
        rz_new = r @ z
        p = z + (rz_new / rz) * p
        rz = rz_new
    return x


def sor_sweeps(A, b, omega, sweeps):
    """Successive over-relaxation with element loops."""
    n = len(b)
    x = np.zeros(n)
    for _ in range(sweeps):
        for i in range(n):
            sigma = A[i] @ x - A[i, i] * x[i]
            x[i] = (1 - omega) * x[i] + omega * (b[i] - sigma) / A[i, i]
    return x


def newton_system_2d(x0, iters):
    """Newton's method on a 2x2 nonlinear system with np.linalg.solve of the Jacobian."""
    x = x0.copy()
    for _ in range(iters):
        f = np.array([x[0] ** 2 + x[1] ** 2 - 4.0, np.exp(x[0]) + x[1] - 1.0])
        J = np.array([[2 * x[0], 2 * x[1]], [np.exp(x[0]), 1.0]])
        x = x - np.linalg.solve(J, f)
    return x


def wave_leapfrog_2d(u0, c, dt, steps):
    """2-d wave equation by leapfrog, Dirichlet edges, in-place slice updates."""
    u_prev = u0.copy()
    u = u0.copy()
    for _ in range(steps):
        lap = (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])
        u_next = u.copy()
        u_next[1:-1, 1:-1] = 2 * u[1:-1, 1:-1] - u_prev[1:-1, 1:-1] + (c * dt) ** 2 * lap
        u_prev, u = u, u_next
    return u


def _accel_springs(x, k):
    a = np.zeros_like(x)
    a[1:-1] = k * (x[2:] - 2 * x[1:-1] + x[:-2])
    return a


def velocity_verlet_chain(x, v, k, dt, steps):
    """A chain of masses on springs by velocity Verlet, forces from a helper per step."""
    a = _accel_springs(x, k)
    for _ in range(steps):
        x = x + v * dt + 0.5 * a * dt * dt
        a_new = _accel_springs(x, k)
        v = v + 0.5 * (a + a_new) * dt
        a = a_new
    return x, v


def rk4_lotka_volterra(y0, params, dt, steps):
    """Lotka-Volterra by classic RK4 with a nested rhs closure, trajectory stored per step."""
    a, b, c, d = params

    def rhs(y):
        return np.array([a * y[0] - b * y[0] * y[1], d * y[0] * y[1] - c * y[1]])

    out = np.empty((steps + 1, 2))
    y = y0.copy()
    out[0] = y
    for n in range(steps):
        k1 = rhs(y)
        k2 = rhs(y + 0.5 * dt * k1)
        k3 = rhs(y + 0.5 * dt * k2)
        k4 = rhs(y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        out[n + 1] = y
    return out


def heat_implicit_thomas(u, r, steps):
    """Backward-Euler heat steps, each a tridiagonal solve by the Thomas algorithm."""
    n = len(u)
    for _ in range(steps):
        cp = np.zeros(n)
        dp = np.zeros(n)
        b0 = 1 + 2 * r
        cp[0] = -r / b0
        dp[0] = u[0] / b0
        for i in range(1, n):
            m = b0 + r * cp[i - 1]
            cp[i] = -r / m
            dp[i] = (u[i] + r * dp[i - 1]) / m
        x = np.zeros(n)
        x[-1] = dp[-1]
        for i in range(n - 2, -1, -1):
            x[i] = dp[i] - cp[i] * x[i + 1]
        u = x
    return u


# --- physics ------------------------------------------------------------------------------

def lj_forces_cutoff(pos, box, rc=2.5):
    """Lennard-Jones forces and energy with a cutoff and minimum-image periodic box."""
    d = pos[:, None, :] - pos[None, :, :]
    d -= box * np.round(d / box)
    r2 = (d ** 2).sum(axis=-1)
    np.fill_diagonal(r2, np.inf)
    inside = r2 < rc * rc
    inv2 = np.where(inside, 1.0 / r2, 0.0)
    inv6 = inv2 ** 3
    energy = 0.5 * np.sum(4.0 * (inv6 * inv6 - inv6) * inside)
    fmag = 24.0 * inv2 * (2.0 * inv6 * inv6 - inv6)
    forces = (fmag[:, :, None] * d).sum(axis=1)
    return forces, energy


def sph_pressure_forces(pos, rho, mass, h, k, rho0):
    """SPH pressure forces with the spiky kernel gradient, pairs in one broadcast."""
    d = pos[:, None, :] - pos[None, :, :]
    r = np.sqrt((d ** 2).sum(-1))
    p = k * (rho - rho0)
    near = (r > 0) & (r < h)
    coef = np.where(near, -45.0 / (np.pi * h ** 6) * (h - r) ** 2 / np.where(r > 0, r, 1.0), 0.0)
    pair = mass * (p[:, None] + p[None, :]) / (2 * rho[None, :]) * coef
    return -(pair[:, :, None] * d).sum(axis=1)


def ising_metropolis_given(spins, J, beta, sites, u):
    """Metropolis sweeps of a 2-d Ising model, sites and uniforms given as arrays."""
    s = spins.copy()
    n, m = s.shape
    for t in range(len(u)):
        i = sites[t, 0]
        j = sites[t, 1]
        nb = s[(i + 1) % n, j] + s[(i - 1) % n, j] + s[i, (j + 1) % m] + s[i, (j - 1) % m]
        dE = 2.0 * J * s[i, j] * nb
        if dE <= 0 or u[t] < np.exp(-beta * dE):
            s[i, j] = -s[i, j]
    return s


def nbody_add_at_pairs(pos, mass, pairs, soft=0.01):
    """Gravitational forces over an explicit pair list, scattered with np.add.at."""
    i, j = pairs[:, 0], pairs[:, 1]
    d = pos[j] - pos[i]
    r2 = (d ** 2).sum(axis=1) + soft
    f = (mass[i] * mass[j] / r2 ** 1.5)[:, None] * d
    F = np.zeros_like(pos)
    np.add.at(F, i, f)
    np.add.at(F, j, -f)
    return F


def spring_mesh_energy(pos, edges, rest, k):
    """Energy and gradient of a spring mesh given as an edge list."""
    a = pos[edges[:, 0]]
    b = pos[edges[:, 1]]
    d = b - a
    L = np.linalg.norm(d, axis=1)
    ext = L - rest
    energy = 0.5 * k * np.sum(ext ** 2)
    g = (k * ext / L)[:, None] * d
    grad = np.zeros_like(pos)
    np.add.at(grad, edges[:, 0], -g)
    np.add.at(grad, edges[:, 1], g)
    return energy, grad


# --- code styles --------------------------------------------------------------------------

def matmul_chain_out(A, B, C, x):
    """An `@` chain, with the intermediate written by np.matmul(out=)."""
    tmp = np.empty((A.shape[0], B.shape[1]))
    np.matmul(A, B, out=tmp)
    y = tmp @ C @ x
    return y, A @ (B @ (C @ x))


def rows_stack_comprehension(X, w):
    """Per-row features by a list comprehension, then np.stack and a weighted sum."""
    feats = np.stack([np.array([r.min(), r.max(), r.mean(), r.std()]) for r in X])
    return feats @ w


def enumerate_rows_normalize(A):
    """`for i, row in enumerate(A)` dividing each row by its own 1-norm in place."""
    A = A.copy()
    for i, row in enumerate(A):
        s = np.abs(row).sum()
        if s > 0:
            A[i] = row / s
    return A


def ufunc_out_chain(x, y):
    """A chain of ufuncs each writing into a preallocated buffer with out=."""
    buf = np.empty_like(x)
    np.multiply(x, y, out=buf)
    np.add(buf, 1.0, out=buf)
    np.sqrt(np.abs(buf, out=buf), out=buf)
    np.subtract(buf, x, out=buf)
    return buf


def bincount_scatter_mean(values, groups, k):
    """Per-group mean by np.add.at on sums and counts, then a divide guarded by where=."""
    sums = np.zeros(k)
    counts = np.zeros(k)
    np.add.at(sums, groups, values)
    np.add.at(counts, groups, 1)
    return np.divide(sums, counts, out=np.zeros(k), where=counts > 0)


def einsum_batched_gram(X):
    """Batched Gram matrices and their traces, einsum with an ellipsis."""
    G = np.einsum("...ij,...kj->...ik", X, X)
    return G, np.einsum("...ii->...", G)
