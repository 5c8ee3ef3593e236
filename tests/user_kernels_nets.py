"""Recurrent and convolutional layers as loops, a recommender trained by SGD, clustering and
image filters, written as their users write them: gates by helper, `+=` into windows,
explicit stacks, two-pass sweeps."""

import numpy as np


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def lstm_forward(x, Wx, Wh, b):
    T = x.shape[0]
    H = Wh.shape[0]
    h = np.zeros(H, dtype=x.dtype)
    c = np.zeros(H, dtype=x.dtype)
    hs = np.empty((T, H), dtype=x.dtype)
    for t in range(T):
        z = x[t] @ Wx + h @ Wh + b
        i = sigmoid(z[:H])
        f = sigmoid(z[H:2 * H])
        o = sigmoid(z[2 * H:3 * H])
        g = np.tanh(z[3 * H:])
        c = f * c + i * g
        h = o * np.tanh(c)
        hs[t] = h
    return hs, c


def gru_forward(x, Wz, Uz, Wr, Ur, Wh, Uh):
    T = x.shape[0]
    H = Uz.shape[0]
    h = np.zeros(H)
    out = []
    for t in range(T):
        z = sigmoid(x[t] @ Wz + h @ Uz)
        r = sigmoid(x[t] @ Wr + h @ Ur)
        hh = np.tanh(x[t] @ Wh + (r * h) @ Uh)
        h = (1 - z) * h + z * hh
        out.append(h)
    return np.stack(out)


def rnn_backward(x, W, U, h0, dh_last):
    T = x.shape[0]
    H = h0.shape[0]
    hs = np.zeros((T + 1, H))
    hs[0] = h0
    for t in range(T):
        hs[t + 1] = np.tanh(x[t] @ W + hs[t] @ U)
    dW = np.zeros_like(W)
    dU = np.zeros_like(U)
    dh = dh_last.copy()
    for t in range(T - 1, -1, -1):
        da = dh * (1 - hs[t + 1] ** 2)
        dW += np.outer(x[t], da)
        dU += np.outer(hs[t], da)
        dh = U @ da
    return dW, dU, dh


def depthwise_conv(x, k):
    C, H, W = x.shape
    K = k.shape[1]
    out = np.zeros((C, H - K + 1, W - K + 1), dtype=x.dtype)
    for c in range(C):
        for i in range(H - K + 1):
            for j in range(W - K + 1):
                acc = 0.0
                for di in range(K):
                    for dj in range(K):
                        acc += x[c, i + di, j + dj] * k[c, di, dj]
                out[c, i, j] = acc
    return out


def conv_transpose_2d(x, k, stride):
    H, W = x.shape
    K = k.shape[0]
    out = np.zeros(((H - 1) * stride + K, (W - 1) * stride + K))
    for i in range(H):
        for j in range(W):
            out[i * stride:i * stride + K, j * stride:j * stride + K] += x[i, j] * k
    return out


def embedding_mean_pool(table, ids, W, b):
    B, L = ids.shape
    pooled = np.zeros((B, table.shape[1]), dtype=table.dtype)
    for i in range(B):
        pooled[i] = table[ids[i]].mean(axis=0)
    return np.maximum(pooled @ W + b, 0)


def dropout_dense(x, W, mask, p):
    h = x @ W
    h = np.where(mask, h / (1.0 - p), 0.0)
    return np.maximum(h, 0.0)


def avg_pool_2d(x, k):
    C, H, W = x.shape
    Ho, Wo = H // k, W // k
    out = np.empty((C, Ho, Wo), dtype=x.dtype)
    for c in range(C):
        for i in range(Ho):
            for j in range(Wo):
                out[c, i, j] = x[c, i * k:(i + 1) * k, j * k:(j + 1) * k].mean()
    return out


def mf_sgd(users, items, ratings, P, Q, lr, reg, epochs):
    P = P.copy()
    Q = Q.copy()
    for epoch in range(epochs):
        loss = 0.0
        for n in range(len(ratings)):
            u, i = users[n], items[n]
            err = ratings[n] - P[u] @ Q[i]
            loss += err * err
            pu = P[u].copy()
            P[u] += lr * (err * Q[i] - reg * P[u])
            Q[i] += lr * (err * pu - reg * Q[i])
    return P, Q, loss


def dbscan_core(X, eps, min_pts):
    n = X.shape[0]
    counts = np.zeros(n, dtype=np.int64)
    for i in range(n):
        for j in range(n):
            d = 0.0
            for k in range(X.shape[1]):
                d += (X[i, k] - X[j, k]) ** 2
            if d <= eps * eps:
                counts[i] += 1
    return counts, counts >= min_pts


def single_linkage(D):
    n = D.shape[0]
    D = D.copy()
    np.fill_diagonal(D, np.inf)
    active = np.ones(n, dtype=np.bool_)
    heights = np.zeros(n - 1)
    for step in range(n - 1):
        best = np.inf
        bi, bj = -1, -1
        for i in range(n):
            if not active[i]:
                continue
            for j in range(i + 1, n):
                if active[j] and D[i, j] < best:
                    best = D[i, j]
                    bi, bj = i, j
        heights[step] = best
        for k in range(n):
            D[bi, k] = min(D[bi, k], D[bj, k])
            D[k, bi] = D[bi, k]
        D[bi, bi] = np.inf
        active[bj] = False
    return heights


def flood_fill(img, r0, c0, new):
    img = img.copy()
    H, W = img.shape
    old = img[r0, c0]
    if old == new:
        return img, 0
    stack = np.empty((H * W * 4 + 1, 2), dtype=np.int64)
    top = 0
    stack[0, 0], stack[0, 1] = r0, c0
    top = 1
    filled = 0
    while top > 0:
        top -= 1
        r, c = stack[top, 0], stack[top, 1]
        if r < 0 or r >= H or c < 0 or c >= W or img[r, c] != old:
            continue
        img[r, c] = new
        filled += 1
        stack[top] = (r + 1, c)
        stack[top + 1] = (r - 1, c)
        stack[top + 2] = (r, c + 1)
        stack[top + 3] = (r, c - 1)
        top += 4
    return img, filled


def distance_transform(mask):
    H, W = mask.shape
    big = H + W
    d = np.where(mask, 0, big).astype(np.int64)
    for i in range(H):
        for j in range(W):
            if i > 0:
                d[i, j] = min(d[i, j], d[i - 1, j] + 1)
            if j > 0:
                d[i, j] = min(d[i, j], d[i, j - 1] + 1)
    for i in range(H - 1, -1, -1):
        for j in range(W - 1, -1, -1):
            if i < H - 1:
                d[i, j] = min(d[i, j], d[i + 1, j] + 1)
            if j < W - 1:
                d[i, j] = min(d[i, j], d[i, j + 1] + 1)
    return d


def hough_lines(edges, n_theta):
    H, W = edges.shape
    diag = int(np.ceil(np.sqrt(H * H + W * W)))
    thetas = np.linspace(0.0, np.pi, n_theta, endpoint=False)
    cos_t = np.cos(thetas)
    sin_t = np.sin(thetas)
    acc = np.zeros((2 * diag + 1, n_theta), dtype=np.int64)
    for y in range(H):
        for x in range(W):
            if edges[y, x]:
                for t in range(n_theta):
                    rho = int(round(x * cos_t[t] + y * sin_t[t])) + diag
                    acc[rho, t] += 1
    return acc


def bilateral_filter(img, radius, sigma_s, sigma_r):
    H, W = img.shape
    out = np.zeros_like(img)
    for i in range(H):
        for j in range(W):
            num = 0.0
            den = 0.0
            for di in range(-radius, radius + 1):
                for dj in range(-radius, radius + 1):
                    y, x = i + di, j + dj
                    if 0 <= y < H and 0 <= x < W:
                        w = np.exp(-(di * di + dj * dj) / (2 * sigma_s**2)
                                   - (img[y, x] - img[i, j]) ** 2 / (2 * sigma_r**2))
                        num += w * img[y, x]
                        den += w
            out[i, j] = num / den
    return out


def unsharp_mask(img, amount, threshold):
    p = np.pad(img, 1, mode="edge")
    blur = (p[:-2, :-2] + 2 * p[:-2, 1:-1] + p[:-2, 2:]
            + 2 * p[1:-1, :-2] + 4 * p[1:-1, 1:-1] + 2 * p[1:-1, 2:]
            + p[2:, :-2] + 2 * p[2:, 1:-1] + p[2:, 2:]) / 16.0
    detail = img - blur
    sharp = img + amount * detail * (np.abs(detail) > threshold)
    return np.clip(sharp, 0.0, 1.0)
