"""Linear algebra and convolution written with n-d slices whose bounds are loop values
(`A[k+1:, k+1:]`, `img[i:i+K, j:j+K]`, `data[indptr[i]:indptr[i+1]]`), as their users
write them."""

import numpy as np


def lu_outer(A):
    A = A.copy()
    n = A.shape[0]
    for k in range(n):
        A[k + 1:, k] /= A[k, k]
        A[k + 1:, k + 1:] -= np.outer(A[k + 1:, k], A[k, k + 1:])
    return A


def conv2d_window(img, k):
    H, W = img.shape
    K = k.shape[0]
    out = np.zeros((H - K + 1, W - K + 1))
    for i in range(H - K + 1):
        for j in range(W - K + 1):
            out[i, j] = np.sum(img[i:i + K, j:j + K] * k)
    return out


def conv2d_channels(x, f):
    C, H, W = x.shape
    K = f.shape[1]
    out = np.zeros((H - K + 1, W - K + 1))
    for i in range(H - K + 1):
        for j in range(W - K + 1):
            out[i, j] = np.sum(x[:, i:i + K, j:j + K] * f)
    return out


def maxpool_channels(x):
    C, H, W = x.shape
    out = np.empty((C, H // 2, W // 2))
    for c in range(C):
        for i in range(H // 2):
            for j in range(W // 2):
                out[c, i, j] = x[c, 2 * i:2 * i + 2, 2 * j:2 * j + 2].max()
    return out


def cholesky_rows(A):
    n = A.shape[0]
    L = np.zeros_like(A)
    for j in range(n):
        L[j, j] = np.sqrt(A[j, j] - L[j, :j] @ L[j, :j])
        L[j + 1:, j] = (A[j + 1:, j] - L[j + 1:, :j] @ L[j, :j]) / L[j, j]
    return L


def gauss_solve(A, b):
    A = A.copy()
    b = b.copy()
    n = A.shape[0]
    for k in range(n):
        for i in range(k + 1, n):
            f = A[i, k] / A[k, k]
            A[i, k:] -= f * A[k, k:]
            b[i] -= f * b[k]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (b[i] - A[i, i + 1:] @ x[i + 1:]) / A[i, i]
    return x


def gram_schmidt(A):
    m, n = A.shape
    Q = np.zeros((m, n))
    R = np.zeros((n, n))
    for j in range(n):
        v = A[:, j].copy()
        R[:j, j] = Q[:, :j].T @ A[:, j]
        v -= Q[:, :j] @ R[:j, j]
        R[j, j] = np.sqrt(v @ v)
        Q[:, j] = v / R[j, j]
    return Q, R


def householder_qr(A):
    m, n = A.shape
    R = A.copy()
    Q = np.eye(m)
    for k in range(n):
        x = R[k:, k]
        alpha = -np.sign(x[0]) * np.sqrt(x @ x)
        v = x.copy()
        v[0] -= alpha
        v /= np.sqrt(v @ v)
        R[k:, k:] -= 2.0 * np.outer(v, v @ R[k:, k:])
        Q[:, k:] -= 2.0 * np.outer(Q[:, k:] @ v, v)
    return Q, R


def forward_solve(L, b):
    n = L.shape[0]
    x = np.zeros(n)
    for i in range(n):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def back_solve(U, b):
    n = U.shape[0]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (b[i] - U[i, i + 1:] @ x[i + 1:]) / U[i, i]
    return x


def spmv_slices(data, indices, indptr, x):
    n = indptr.shape[0] - 1
    y = np.zeros(n)
    for i in range(n):
        y[i] = data[indptr[i]:indptr[i + 1]] @ x[indices[indptr[i]:indptr[i + 1]]]
    return y


def conv2d_im2col(x, w, b):
    # A convolution as one product: every receptive field flattened into a column.
    f, c_in, k, _ = w.shape
    _, h, wd = x.shape
    oh, ow = h - k + 1, wd - k + 1
    cols = np.empty((c_in * k * k, oh * ow))
    row = 0
    for c in range(c_in):
        for i in range(k):
            for j in range(k):
                cols[row] = x[c, i:i + oh, j:j + ow].reshape(-1)
                row += 1
    out = w.reshape(f, -1) @ cols + b[:, None]
    return np.maximum(out, 0.0).reshape(f, oh, ow)
