"""Machine-learning training loops written as their users write them: multiplicative and
alternating updates, stochastic steps on given sample indices, boosting with a Python list
of weak learners, and network layers by hand in float32."""

import numpy as np


def nmf_updates(V, W, H, iters):
    eps = 1e-9
    for _ in range(iters):
        H *= (W.T @ V) / (W.T @ W @ H + eps)
        W *= (V @ H.T) / (W @ H @ H.T + eps)
    err = np.linalg.norm(V - W @ H)
    return W, H, err


def pegasos_svm(X, y, lam, order):
    w = np.zeros(X.shape[1])
    for t, i in enumerate(order, start=1):
        eta = 1.0 / (lam * t)
        margin = y[i] * np.dot(w, X[i])
        w *= 1 - eta * lam
        if margin < 1:
            w += eta * y[i] * X[i]
    return w


def adaboost_stumps(x, y, thresholds, rounds):
    n = len(x)
    w = np.full(n, 1.0 / n)
    stumps = []
    for _ in range(rounds):
        best_err, best_t, best_s = np.inf, 0.0, 1
        for t in thresholds:
            for s in (1, -1):
                pred = np.where(x > t, s, -s)
                err = np.sum(w[pred != y])
                if err < best_err:
                    best_err, best_t, best_s = err, t, s
        alpha = 0.5 * np.log((1 - best_err) / max(best_err, 1e-12))
        pred = np.where(x > best_t, best_s, -best_s)
        w = w * np.exp(-alpha * y * pred)
        w /= w.sum()
        stumps.append((best_t, best_s, alpha))
    return stumps


def som_train(data, weights, order, lr0, sigma0):
    rows, cols, dim = weights.shape
    gy, gx = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    n = len(order)
    for step in range(n):
        x = data[order[step]]
        frac = step / n
        lr = lr0 * (1 - frac)
        sigma = sigma0 * (1 - frac) + 0.5
        d = np.sum((weights - x) ** 2, axis=2)
        bi, bj = np.unravel_index(np.argmin(d), d.shape)
        h = np.exp(-((gy - bi) ** 2 + (gx - bj) ** 2) / (2 * sigma * sigma))
        weights += lr * h[:, :, None] * (x - weights)
    return weights


def hopfield_recall(patterns, probe, sweeps):
    n = patterns.shape[1]
    W = patterns.T @ patterns / n
    np.fill_diagonal(W, 0.0)
    s = probe.copy()
    for _ in range(sweeps):
        changed = 0
        for i in range(n):
            h = W[i] @ s
            new = 1 if h >= 0 else -1
            if new != s[i]:
                s[i] = new
                changed += 1
        if changed == 0:
            break
    return s


def tsne_gradient(Y, P):
    diff = Y[:, None, :] - Y[None, :, :]
    num = 1.0 / (1.0 + np.sum(diff ** 2, axis=2))
    np.fill_diagonal(num, 0.0)
    Q = num / num.sum()
    PQ = (P - Q) * num
    grad = 4.0 * np.einsum("ij,ijk->ik", PQ, diff)
    kl = np.sum(P[P > 0] * np.log(P[P > 0] / np.maximum(Q[P > 0], 1e-12)))
    return grad, kl


def gmm_em_1d(x, mu, var, pi, iters):
    mu, var, pi = mu.copy(), var.copy(), pi.copy()
    k = len(mu)
    ll = 0.0
    for _ in range(iters):
        resp = np.empty((len(x), k))
        for j in range(k):
            resp[:, j] = pi[j] * np.exp(-0.5 * (x - mu[j]) ** 2 / var[j]) / np.sqrt(2 * np.pi * var[j])
        total = resp.sum(axis=1)
        ll = np.sum(np.log(total))
        resp /= total[:, None]
        nk = resp.sum(axis=0)
        for j in range(k):
            mu[j] = np.sum(resp[:, j] * x) / nk[j]
            var[j] = np.sum(resp[:, j] * (x - mu[j]) ** 2) / nk[j]
        pi = nk / len(x)
    return mu, var, pi, ll


def als_step(R, mask, U, V, lam):
    k = U.shape[1]
    I = np.eye(k)
    for u in range(R.shape[0]):
        m = mask[u]
        Vm = V[m]
        U[u] = np.linalg.solve(Vm.T @ Vm + lam * I, Vm.T @ R[u, m])
    for i in range(R.shape[1]):
        m = mask[:, i]
        Um = U[m]
        V[i] = np.linalg.solve(Um.T @ Um + lam * I, Um.T @ R[m, i])
    return U, V


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def skipgram_sgd(centers, contexts, negatives, W_in, W_out, lr):
    loss = 0.0
    for p in range(len(centers)):
        c, o = centers[p], contexts[p]
        v = W_in[c]
        grad_v = np.zeros_like(v)
        s = sigmoid(np.dot(v, W_out[o]))
        loss -= np.log(s)
        g = s - 1.0
        grad_v += g * W_out[o]
        W_out[o] -= lr * g * v
        for q in negatives[p]:
            s = sigmoid(np.dot(v, W_out[q]))
            loss -= np.log(1.0 - s)
            grad_v += s * W_out[q]
            W_out[q] -= lr * s * v
        W_in[c] -= lr * grad_v
    return loss


def conv1d_maxpool(x, w, b, pool):
    c_out, c_in, k = w.shape
    length = x.shape[1] - k + 1
    y = np.zeros((c_out, length), dtype=x.dtype)
    for o in range(c_out):
        for i in range(c_in):
            for t in range(k):
                y[o] += w[o, i, t] * x[i, t:t + length]
        y[o] += b[o]
    y = np.maximum(y, 0)
    n_pool = length // pool
    out = y[:, :n_pool * pool].reshape(c_out, n_pool, pool).max(axis=2)
    return out


def layer_norm(x, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps)


def transformer_block(x, Wq, Wk, Wv, Wo, W1, W2, n_heads):
    T, d = x.shape
    dh = d // n_heads
    h = layer_norm(x)
    q, k, v = h @ Wq, h @ Wk, h @ Wv
    att_out = np.zeros_like(x)
    mask = np.triu(np.full((T, T), -np.inf, dtype=x.dtype), 1)
    for hd in range(n_heads):
        sl = slice(hd * dh, (hd + 1) * dh)
        scores = q[:, sl] @ k[:, sl].T / np.sqrt(np.float32(dh)) + mask
        scores = scores - scores.max(axis=1, keepdims=True)
        p = np.exp(scores)
        p /= p.sum(axis=1, keepdims=True)
        att_out[:, sl] = p @ v[:, sl]
    x = x + att_out @ Wo
    h = layer_norm(x)
    ff = np.maximum(h @ W1, 0) @ W2
    return x + ff
