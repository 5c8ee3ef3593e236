"""Machine-learning and data course assignments written the way students and course staff
write them: nearest-neighbour distances with two, one and no loops, SVM and softmax losses with
their gradients, layer forward and backward passes with dict caches, convolution and pooling
loops, recurrent steps, embeddings, mini-batch SGD, encodings, splits and folds, text features,
regressions, clustering, PCA and evaluation tables."""

import numpy as np


# ---------------------------------------------------------------- k-nearest neighbours

def compute_distances_two_loops(X, X_train):
    num_test = X.shape[0]
    num_train = X_train.shape[0]
    dists = np.zeros((num_test, num_train))
    for i in range(num_test):
        for j in range(num_train):
            dists[i, j] = np.sqrt(np.sum(np.square(X[i] - X_train[j])))
    return dists


def compute_distances_one_loop(X, X_train):
    num_test = X.shape[0]
    num_train = X_train.shape[0]
    dists = np.zeros((num_test, num_train))
    for i in range(num_test):
        dists[i, :] = np.sqrt(np.sum((X_train - X[i, :]) ** 2, axis=1))
    return dists


def compute_distances_no_loops(X, X_train):
    test_sq = np.sum(X ** 2, axis=1, keepdims=True)
    train_sq = np.sum(X_train ** 2, axis=1)
    cross = X.dot(X_train.T)
    dists = np.sqrt(np.maximum(test_sq + train_sq - 2 * cross, 0))
    return dists


def predict_labels(dists, y_train, k=1):
    num_test = dists.shape[0]
    y_pred = np.zeros(num_test, dtype=np.int64)
    for i in range(num_test):
        closest_y = y_train[np.argsort(dists[i])[:k]]
        y_pred[i] = np.bincount(closest_y).argmax()
    return y_pred


def knn_cross_validation(X, y, folds, k_choices):
    """Accuracy of each k over num_folds folds given by np.array_split of the indices."""
    idx_folds = np.array_split(np.arange(X.shape[0]), folds)
    k_to_accuracies = {}
    for k in k_choices:
        accs = []
        for f in range(folds):
            val_idx = idx_folds[f]
            train_idx = np.concatenate([idx_folds[g] for g in range(folds) if g != f])
            Xtr, ytr = X[train_idx], y[train_idx]
            Xva, yva = X[val_idx], y[val_idx]
            d = np.sqrt(np.maximum(np.sum(Xva ** 2, axis=1)[:, None]
                                   + np.sum(Xtr ** 2, axis=1)[None, :]
                                   - 2 * Xva @ Xtr.T, 0))
            pred = np.zeros(len(val_idx), dtype=np.int64)
            for i in range(len(val_idx)):
                nearest = ytr[np.argsort(d[i])[:k]]
                pred[i] = np.bincount(nearest).argmax()
            accs.append(np.mean(pred == yva))
        k_to_accuracies[k] = accs
    return k_to_accuracies


# ---------------------------------------------------------------- linear classifiers

def svm_loss_naive(W, X, y, reg):
    dW = np.zeros(W.shape)
    num_classes = W.shape[1]
    num_train = X.shape[0]
    loss = 0.0
    for i in range(num_train):
        scores = X[i].dot(W)
        correct_class_score = scores[y[i]]
        for j in range(num_classes):
            if j == y[i]:
                continue
            margin = scores[j] - correct_class_score + 1
            if margin > 0:
                loss += margin
                dW[:, j] += X[i]
                dW[:, y[i]] -= X[i]
    loss /= num_train
    dW /= num_train
    loss += reg * np.sum(W * W)
    dW += 2 * reg * W
    return loss, dW


def svm_loss_vectorized(W, X, y, reg):
    num_train = X.shape[0]
    scores = X.dot(W)
    correct = scores[np.arange(num_train), y].reshape(-1, 1)
    margins = np.maximum(0, scores - correct + 1)
    margins[np.arange(num_train), y] = 0
    loss = np.sum(margins) / num_train + reg * np.sum(W * W)
    binary = margins
    binary[margins > 0] = 1
    row_sum = np.sum(binary, axis=1)
    binary[np.arange(num_train), y] = -row_sum
    dW = X.T.dot(binary) / num_train + 2 * reg * W
    return loss, dW


def softmax_loss_naive(W, X, y, reg):
    loss = 0.0
    dW = np.zeros_like(W)
    num_train = X.shape[0]
    num_classes = W.shape[1]
    for i in range(num_train):
        scores = X[i].dot(W)
        scores -= np.max(scores)
        exp_scores = np.exp(scores)
        probs = exp_scores / np.sum(exp_scores)
        loss += -np.log(probs[y[i]])
        for j in range(num_classes):
            dW[:, j] += (probs[j] - (j == y[i])) * X[i]
    loss = loss / num_train + 0.5 * reg * np.sum(W * W)
    dW = dW / num_train + reg * W
    return loss, dW


def softmax_loss_vectorized(W, X, y, reg):
    N = X.shape[0]
    scores = X @ W
    scores -= scores.max(axis=1, keepdims=True)
    probs = np.exp(scores)
    probs /= probs.sum(axis=1, keepdims=True)
    loss = -np.sum(np.log(probs[range(N), y])) / N
    loss += 0.5 * reg * np.sum(W ** 2)
    dscores = probs.copy()
    dscores[range(N), y] -= 1
    dW = X.T @ dscores / N + reg * W
    return loss, dW


def linear_classifier_train(X, y, W, learning_rate, reg, num_iters, batch_idx):
    """Mini-batch SGD on the vectorized softmax loss; the batches are given index rows."""
    loss_history = []
    for it in range(num_iters):
        idx = batch_idx[it]
        X_batch = X[idx]
        y_batch = y[idx]
        loss, grad = softmax_loss_vectorized(W, X_batch, y_batch, reg)
        loss_history.append(loss)
        W -= learning_rate * grad
    return loss_history


# ---------------------------------------------------------------- layers

def affine_forward(x, w, b):
    out = x.reshape(x.shape[0], -1).dot(w) + b
    cache = (x, w, b)
    return out, cache


def affine_backward(dout, cache):
    x, w, b = cache
    dx = dout.dot(w.T).reshape(x.shape)
    dw = x.reshape(x.shape[0], -1).T.dot(dout)
    db = np.sum(dout, axis=0)
    return dx, dw, db


def affine_relu_roundtrip(x, w, b, dout):
    """affine_forward, relu forward, then both backward passes through their caches."""
    a, fc_cache = affine_forward(x, w, b)
    out = np.maximum(0, a)
    relu_cache = a
    da = dout.copy()
    da[relu_cache <= 0] = 0
    dx, dw, db = affine_backward(da, fc_cache)
    return out, dx, dw, db


def relu_forward_backward(x, dout):
    out = x.copy()
    out[out < 0] = 0
    cache = x
    dx = dout * (cache > 0)
    return out, dx


def batchnorm_forward(x, gamma, beta, bn_param):
    mode = bn_param["mode"]
    eps = bn_param.get("eps", 1e-5)
    momentum = bn_param.get("momentum", 0.9)
    N, D = x.shape
    running_mean = bn_param.get("running_mean", np.zeros(D, dtype=x.dtype))
    running_var = bn_param.get("running_var", np.zeros(D, dtype=x.dtype))
    cache = None
    if mode == "train":
        sample_mean = np.mean(x, axis=0)
        sample_var = np.var(x, axis=0)
        x_hat = (x - sample_mean) / np.sqrt(sample_var + eps)
        out = gamma * x_hat + beta
        running_mean = momentum * running_mean + (1 - momentum) * sample_mean
        running_var = momentum * running_var + (1 - momentum) * sample_var
        cache = {"x_hat": x_hat, "gamma": gamma, "var": sample_var, "eps": eps,
                 "xmu": x - sample_mean}
    else:
        out = gamma * (x - running_mean) / np.sqrt(running_var + eps) + beta
    bn_param["running_mean"] = running_mean
    bn_param["running_var"] = running_var
    return out, cache


def batchnorm_backward(dout, x, gamma, eps):
    N = x.shape[0]
    mu = x.mean(axis=0)
    xmu = x - mu
    var = np.sum(xmu ** 2, axis=0) / N
    ivar = 1.0 / np.sqrt(var + eps)
    xhat = xmu * ivar
    dbeta = np.sum(dout, axis=0)
    dgamma = np.sum(dout * xhat, axis=0)
    dxhat = dout * gamma
    dx = (1.0 / N) * ivar * (N * dxhat - np.sum(dxhat, axis=0)
                             - xhat * np.sum(dxhat * xhat, axis=0))
    return dx, dgamma, dbeta


def dropout_forward(x, dropout_param, mask):
    p, mode = dropout_param["p"], dropout_param["mode"]
    if mode == "train":
        mask = (mask < p) / p
        out = x * mask
    else:
        out = x
        mask = None
    cache = (dropout_param, mask)
    out = out.astype(x.dtype, copy=False)
    return out, cache


def conv_forward_naive(x, w, b, conv_param):
    stride, pad = conv_param["stride"], conv_param["pad"]
    N, C, H, W = x.shape
    F, _, HH, WW = w.shape
    H_out = 1 + (H + 2 * pad - HH) // stride
    W_out = 1 + (W + 2 * pad - WW) // stride
    x_pad = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), mode="constant")
    out = np.zeros((N, F, H_out, W_out))
    for n in range(N):
        for f in range(F):
            for i in range(H_out):
                for j in range(W_out):
                    window = x_pad[n, :, i * stride:i * stride + HH, j * stride:j * stride + WW]
                    out[n, f, i, j] = np.sum(window * w[f]) + b[f]
    return out


def max_pool_forward_naive(x, pool_param):
    N, C, H, W = x.shape
    ph, pw, s = pool_param["pool_height"], pool_param["pool_width"], pool_param["stride"]
    H_out = 1 + (H - ph) // s
    W_out = 1 + (W - pw) // s
    out = np.zeros((N, C, H_out, W_out))
    for n in range(N):
        for c in range(C):
            for i in range(H_out):
                for j in range(W_out):
                    out[n, c, i, j] = np.max(x[n, c, i * s:i * s + ph, j * s:j * s + pw])
    return out


def max_pool_backward_naive(dout, x, pool_param):
    N, C, H, W = x.shape
    ph, pw, s = pool_param["pool_height"], pool_param["pool_width"], pool_param["stride"]
    H_out = 1 + (H - ph) // s
    W_out = 1 + (W - pw) // s
    dx = np.zeros_like(x)
    for n in range(N):
        for c in range(C):
            for i in range(H_out):
                for j in range(W_out):
                    window = x[n, c, i * s:i * s + ph, j * s:j * s + pw]
                    mask = window == np.max(window)
                    dx[n, c, i * s:i * s + ph, j * s:j * s + pw] += mask * dout[n, c, i, j]
    return dx


def max_pool_backward_argmax(dout, x, ph, pw):
    """Backward through np.unravel_index of each window's argmax (stride = pool size)."""
    N, C, H, W = x.shape
    dx = np.zeros_like(x)
    for n in range(N):
        for c in range(C):
            for i in range(H // ph):
                for j in range(W // pw):
                    window = x[n, c, i * ph:(i + 1) * ph, j * pw:(j + 1) * pw]
                    a, bb = np.unravel_index(np.argmax(window), window.shape)
                    dx[n, c, i * ph + a, j * pw + bb] += dout[n, c, i, j]
    return dx


# ---------------------------------------------------------------- recurrent nets, embeddings

def rnn_step_forward(x, prev_h, Wx, Wh, b):
    next_h = np.tanh(x.dot(Wx) + prev_h.dot(Wh) + b)
    cache = (x, prev_h, Wx, Wh, next_h)
    return next_h, cache


def rnn_forward(x, h0, Wx, Wh, b):
    N, T, D = x.shape
    H = h0.shape[1]
    h = np.zeros((N, T, H))
    prev_h = h0
    for t in range(T):
        prev_h, _ = rnn_step_forward(x[:, t, :], prev_h, Wx, Wh, b)
        h[:, t, :] = prev_h
    return h


def rnn_step_backward(dnext_h, x, prev_h, Wx, Wh, next_h):
    dtanh = dnext_h * (1 - next_h ** 2)
    dx = dtanh.dot(Wx.T)
    dprev_h = dtanh.dot(Wh.T)
    dWx = x.T.dot(dtanh)
    dWh = prev_h.T.dot(dtanh)
    db = dtanh.sum(axis=0)
    return dx, dprev_h, dWx, dWh, db


def word_embedding_forward_backward(x, W, dout):
    out = W[x, :]
    dW = np.zeros_like(W)
    np.add.at(dW, x, dout)
    return out, dW


# ---------------------------------------------------------------- nets and training

def two_layer_net_loss(X, y, params, reg):
    W1, b1 = params["W1"], params["b1"]
    W2, b2 = params["W2"], params["b2"]
    N = X.shape[0]
    h1 = np.maximum(0, X.dot(W1) + b1)
    scores = h1.dot(W2) + b2
    shifted = scores - np.max(scores, axis=1, keepdims=True)
    probs = np.exp(shifted) / np.sum(np.exp(shifted), axis=1, keepdims=True)
    loss = -np.sum(np.log(probs[np.arange(N), y])) / N
    loss += reg * (np.sum(W1 * W1) + np.sum(W2 * W2))
    grads = {}
    dscores = probs
    dscores[np.arange(N), y] -= 1
    dscores /= N
    grads["W2"] = h1.T.dot(dscores) + 2 * reg * W2
    grads["b2"] = np.sum(dscores, axis=0)
    dh1 = dscores.dot(W2.T)
    dh1[h1 <= 0] = 0
    grads["W1"] = X.T.dot(dh1) + 2 * reg * W1
    grads["b1"] = np.sum(dh1, axis=0)
    return loss, grads


def sgd_minibatch_epochs(X, y, w, b, lr, batch_size, epochs):
    """Least squares by mini-batch SGD over consecutive X[i:i + batch_size] slices."""
    n = X.shape[0]
    losses = []
    for epoch in range(epochs):
        for i in range(0, n, batch_size):
            xb = X[i:i + batch_size]
            yb = y[i:i + batch_size]
            err = xb @ w + b - yb
            w -= lr * (xb.T @ err) / len(yb)
            b -= lr * np.mean(err)
        losses.append(np.mean((X @ w + b - y) ** 2))
    return w, b, losses


# ---------------------------------------------------------------- data preparation

def one_hot_eye(y, k):
    return np.eye(k)[y]


def one_hot_loop(labels, num_classes):
    Y = np.zeros((labels.shape[0], num_classes))
    for i in range(labels.shape[0]):
        Y[i, labels[i]] = 1
    return Y


def label_encode_unique(labels):
    classes, encoded = np.unique(labels, return_inverse=True)
    counts = np.bincount(encoded)
    return classes, encoded, counts


def train_val_split(X, y, perm, val_fraction):
    n = X.shape[0]
    n_val = int(n * val_fraction)
    val_idx, train_idx = perm[:n_val], perm[n_val:]
    return X[train_idx], X[val_idx], y[train_idx], y[val_idx]


def kfold_ridge_scores(X, y, k, lam):
    """k-fold CV of ridge regression by the normal equations; the fold ids come from i % k."""
    n, d = X.shape
    fold_of = np.arange(n) % k
    scores = np.zeros(k)
    for f in range(k):
        tr = fold_of != f
        te = fold_of == f
        A = X[tr].T @ X[tr] + lam * np.eye(d)
        w = np.linalg.solve(A, X[tr].T @ y[tr])
        scores[f] = np.mean((X[te] @ w - y[te]) ** 2)
    return scores


def standardize_features(X_train, X_test):
    mean = X_train.mean(axis=0)
    std = X_train.std(axis=0)
    std[std == 0] = 1.0
    return (X_train - mean) / std, (X_test - mean) / std


def min_max_scale_inplace(X):
    for j in range(X.shape[1]):
        col_min = X[:, j].min()
        col_max = X[:, j].max()
        X[:, j] = (X[:, j] - col_min) / (col_max - col_min)
    return X


def polynomial_features(x, degree):
    cols = [np.ones_like(x)]
    for p in range(1, degree + 1):
        cols.append(x ** p)
    return np.column_stack(cols)


# ---------------------------------------------------------------- text

def tfidf_counts(counts):
    n_docs = counts.shape[0]
    tf = counts / counts.sum(axis=1, keepdims=True)
    df = np.sum(counts > 0, axis=0)
    idf = np.log((1 + n_docs) / (1 + df)) + 1
    tfidf = tf * idf
    norms = np.linalg.norm(tfidf, axis=1, keepdims=True)
    return tfidf / norms


def cosine_top_k(query, docs, k):
    sims = docs @ query / (np.linalg.norm(docs, axis=1) * np.linalg.norm(query))
    top = np.argsort(-sims)[:k]
    return top, sims[top]


def naive_bayes_bow(X_train, y_train, X_test, n_classes, alpha):
    n_features = X_train.shape[1]
    log_prior = np.zeros(n_classes)
    log_lik = np.zeros((n_classes, n_features))
    for c in range(n_classes):
        Xc = X_train[y_train == c]
        log_prior[c] = np.log(Xc.shape[0] / X_train.shape[0])
        word_counts = Xc.sum(axis=0) + alpha
        log_lik[c] = np.log(word_counts / word_counts.sum())
    joint = X_test @ log_lik.T + log_prior
    return np.argmax(joint, axis=1)


# ---------------------------------------------------------------- regression

def normal_equation(X, y):
    Xb = np.hstack([np.ones((X.shape[0], 1)), X])
    theta = np.linalg.inv(Xb.T.dot(Xb)).dot(Xb.T).dot(y)
    return theta


def gradient_descent_tol(X, y, alpha, tol, max_iters):
    m = len(y)
    theta = np.zeros(X.shape[1])
    J_history = []
    cost = np.sum((X @ theta - y) ** 2) / (2 * m)
    i = 0
    while i < max_iters:
        grad = X.T @ (X @ theta - y) / m
        theta = theta - alpha * grad
        new_cost = np.sum((X @ theta - y) ** 2) / (2 * m)
        J_history.append(new_cost)
        if abs(cost - new_cost) < tol:
            break
        cost = new_cost
        i += 1
    return theta, J_history


def logistic_regression_early_stop(X_tr, y_tr, X_va, y_va, lr, epochs, patience):
    w = np.zeros(X_tr.shape[1])
    best_w = w.copy()
    best_loss = np.inf
    bad = 0
    for epoch in range(epochs):
        p = 1 / (1 + np.exp(-X_tr @ w))
        w -= lr * X_tr.T @ (p - y_tr) / len(y_tr)
        pv = np.clip(1 / (1 + np.exp(-X_va @ w)), 1e-12, 1 - 1e-12)
        val_loss = -np.mean(y_va * np.log(pv) + (1 - y_va) * np.log(1 - pv))
        if val_loss < best_loss - 1e-6:
            best_loss = val_loss
            best_w = w.copy()
            bad = 0
        else:
            bad += 1
            if bad >= patience:
                break
    return best_w, best_loss, epoch


# ---------------------------------------------------------------- clustering, PCA

def kmeans_converge(X, centroids, max_iters):
    for it in range(max_iters):
        d = np.linalg.norm(X[:, np.newaxis, :] - centroids[np.newaxis, :, :], axis=2)
        labels = np.argmin(d, axis=1)
        new_centroids = np.array([X[labels == k].mean(axis=0) if np.any(labels == k)
                                  else centroids[k] for k in range(centroids.shape[0])])
        if np.allclose(new_centroids, centroids):
            break
        centroids = new_centroids
    return centroids, labels


def silhouette_score_loops(X, labels, n_clusters):
    n = X.shape[0]
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    s = np.zeros(n)
    for i in range(n):
        same = labels == labels[i]
        same[i] = False
        if same.sum() == 0:
            continue
        a = D[i, same].mean()
        b = np.inf
        for c in range(n_clusters):
            if c == labels[i]:
                continue
            other = labels == c
            if other.any():
                b = min(b, D[i, other].mean())
        s[i] = (b - a) / max(a, b)
    return s.mean()


def pca_svd(X, n_components):
    X_centered = X - X.mean(axis=0)
    U, S, Vt = np.linalg.svd(X_centered, full_matrices=False)
    components = Vt[:n_components]
    explained_variance = (S ** 2) / (X.shape[0] - 1)
    ratio = explained_variance[:n_components] / explained_variance.sum()
    projected = X_centered @ components.T
    return projected, ratio


# ---------------------------------------------------------------- evaluation

def confusion_matrix_loop(y_true, y_pred, num_classes):
    cm = np.zeros((num_classes, num_classes), dtype=int)
    for t, p in zip(y_true, y_pred):
        cm[t, p] += 1
    return cm


def per_class_accuracy(y_true, y_pred, num_classes):
    accs = []
    for c in range(num_classes):
        idx = np.where(y_true == c)[0]
        if len(idx) == 0:
            accs.append(0.0)
        else:
            accs.append(np.mean(y_pred[idx] == c))
    return np.array(accs)


def classification_report_dict(y_true, y_pred, n_classes):
    report = {}
    for c in range(n_classes):
        tp = np.sum((y_pred == c) & (y_true == c))
        fp = np.sum((y_pred == c) & (y_true != c))
        fn = np.sum((y_pred != c) & (y_true == c))
        precision = tp / (tp + fp) if tp + fp > 0 else 0.0
        recall = tp / (tp + fn) if tp + fn > 0 else 0.0
        report[c] = (precision, recall)
    return report


def perceptron_multiclass(X, y, epochs):
    W = np.zeros((X.shape[1], 3))
    mistakes = 0
    for _ in range(epochs):
        for i in range(X.shape[0]):
            pred = np.argmax(X[i] @ W)
            if pred != y[i]:
                W[:, y[i]] += X[i]
                W[:, pred] -= X[i]
                mistakes += 1
    return W, mistakes


def rnn_forward_small(xs, Wx, Wh, b):
    h = np.zeros(Wh.shape[0])
    hs = np.zeros((xs.shape[0], Wh.shape[0]))
    for t in range(xs.shape[0]):
        h = np.tanh(np.dot(Wx, xs[t]) + Wh.dot(h) + b)
        hs[t] = h
    return hs
