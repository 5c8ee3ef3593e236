# ruff: noqa -- written as users write NumPy, style included
"""Kernels around np.linalg as statistics, filtering and regression code writes them: a solve
feeding elementwise work, inverse times determinant, ridge regression by the normal
equations, a multivariate normal log-density through Cholesky, a Kalman filter step, a
Gaussian-process posterior mean, many small systems solved at once, a polynomial fit by
least squares, principal components by a symmetric eigensolver, a low-rank approximation by
the singular value decomposition. The tests
(`test_user_kernels.py`) and `benches/kernels.py` run them verbatim."""
import numpy as np


def solve_affine(A, b):
    x = np.linalg.solve(A, b)
    return x * 2 + 1


def inv_times_det(A):
    return np.linalg.inv(A) * np.linalg.det(A)


def ridge_regression(X, y, lam):
    d = X.shape[1]
    w = np.linalg.solve(X.T @ X + lam * np.eye(d), X.T @ y)
    residual = y - X @ w
    return w, np.mean(residual ** 2)


def mvn_logpdf(X, mu, cov):
    L = np.linalg.cholesky(cov)
    diff = X - mu
    z = np.linalg.solve(L, diff.T)
    sign, logdet = np.linalg.slogdet(cov)
    d = X.shape[1]
    return -0.5 * (np.sum(z * z, axis=0) + logdet + d * np.log(2 * np.pi))


def kalman_step(x, P, z, F, H, Q, R):
    x = F @ x
    P = F @ P @ F.T + Q
    S = H @ P @ H.T + R
    K = P @ H.T @ np.linalg.inv(S)
    x = x + K @ (z - H @ x)
    P = (np.eye(P.shape[0]) - K @ H) @ P
    return x, P


def gp_posterior_mean(X, y, Xs, length, noise):
    def rbf(a, b):
        sq = np.sum(a ** 2, axis=1)[:, None] + np.sum(b ** 2, axis=1)[None, :] - 2 * a @ b.T
        return np.exp(-0.5 * sq / length ** 2)

    K = rbf(X, X) + noise * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return rbf(Xs, X) @ alpha


def batched_small_solves(A, b):
    x = np.linalg.solve(A, b[..., None])[..., 0]
    return x, np.linalg.det(A)


def polyfit_lstsq(t, y):
    X = np.column_stack([np.ones_like(t), t, t ** 2, t ** 3])
    coef, residuals, rank, sv = np.linalg.lstsq(X, y, rcond=None)
    return X @ coef, residuals


def pca_eigh(X, k):
    Xc = X - X.mean(axis=0)
    C = Xc.T @ Xc / (X.shape[0] - 1)
    w, V = np.linalg.eigh(C)
    order = np.argsort(w)[::-1]
    return Xc @ V[:, order[:k]], w[order[:k]] / np.sum(w)


def low_rank_approx(X, k):
    U, s, Vt = np.linalg.svd(X, full_matrices=False)
    approx = (U[:, :k] * s[:k]) @ Vt[:k]
    return approx, np.sum(s[k:] ** 2) / np.sum(s ** 2)
