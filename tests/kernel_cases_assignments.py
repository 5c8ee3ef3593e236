"""Inputs for the kernels of `user_kernels_assignments.py`: (name, function, make inputs(rng, scale))."""

from __future__ import annotations

import numpy as np
import user_kernels_assignments as As


def _knn(rng, s):
    return rng.standard_normal((8 * s, 12)), rng.standard_normal((30 * s, 12))


def _cls(rng, s, n=40, d=10, c=4):
    X = rng.standard_normal((n * s, d))
    y = rng.integers(0, c, n * s)
    W = 0.01 * rng.standard_normal((d, c))
    return W, X, y


def _bn(rng, s, mode):
    x = rng.standard_normal((16 * s, 6)) * 3 + 1
    param = {"mode": mode, "momentum": 0.8}
    if mode == "test":
        param["running_mean"] = rng.standard_normal(6)
        param["running_var"] = rng.random(6) + 0.5
    return x, rng.random(6) + 0.5, rng.standard_normal(6), param


def _conv(rng, s):
    x = rng.standard_normal((2, 3, 6 + s, 6 + s))
    return x, rng.standard_normal((4, 3, 3, 3)), rng.standard_normal(4), {"stride": 1, "pad": 1}


def _pool(rng, s):
    return rng.standard_normal((2, 3, 8 * s, 8 * s)), {"pool_height": 2, "pool_width": 2,
                                                       "stride": 2}


def _rnn(rng, s):
    N, T, D, H = 3 * s, 5, 4, 6
    return (rng.standard_normal((N, T, D)), rng.standard_normal((N, H)),
            0.3 * rng.standard_normal((D, H)), 0.3 * rng.standard_normal((H, H)),
            rng.standard_normal(H))


def _rnn_back(rng, s):
    N, D, H = 4 * s, 5, 6
    x, prev_h = rng.standard_normal((N, D)), rng.standard_normal((N, H))
    Wx, Wh = rng.standard_normal((D, H)), rng.standard_normal((H, H))
    return rng.standard_normal((N, H)), x, prev_h, Wx, Wh, np.tanh(x @ Wx + prev_h @ Wh)


def _net(rng, s):
    X = rng.standard_normal((20 * s, 8))
    params = {"W1": 0.1 * rng.standard_normal((8, 10)), "b1": np.zeros(10),
              "W2": 0.1 * rng.standard_normal((10, 3)), "b2": np.zeros(3)}
    return X, rng.integers(0, 3, 20 * s), params, 0.05


def _reg(rng, s):
    X = rng.standard_normal((50 * s, 4))
    return X, X @ np.array([1.0, -2.0, 0.5, 3.0]) + 0.1 * rng.standard_normal(50 * s)


def _logreg(rng, s):
    X = rng.standard_normal((80 * s, 5))
    y = (X @ np.array([1.0, -1.0, 0.5, 0.0, 2.0]) + rng.standard_normal(80 * s) > 0) * 1.0
    return X[:60 * s], y[:60 * s], X[60 * s:], y[60 * s:], 0.5, 200, 5


def _counts(rng, s):
    c = rng.poisson(1.0, (12 * s, 30)).astype(np.float64)
    c[:, 0] += 1
    return c


def _blobs(rng, s):
    centers = np.array([[0.0, 0.0], [5.0, 5.0], [0.0, 6.0]])
    labels = rng.integers(0, 3, 30 * s)
    return centers[labels] + rng.standard_normal((30 * s, 2)), labels


def _preds(rng, s, c=5):
    y = rng.integers(0, c, 100 * s)
    pred = np.where(rng.random(100 * s) < 0.7, y, rng.integers(0, c, 100 * s))
    return y, pred, c


def _bow(rng, s):
    X = rng.poisson(2.0, (40 * s, 20)).astype(np.float64)
    y = rng.integers(0, 3, 40 * s)
    return X, y, rng.poisson(2.0, (10 * s, 20)).astype(np.float64), 3, 1.0


ASSIGNMENT_CASES = [
    ("compute_distances_two_loops", As.compute_distances_two_loops, lambda r, s: _knn(r, s)),
    ("compute_distances_one_loop", As.compute_distances_one_loop, lambda r, s: _knn(r, s)),
    ("compute_distances_no_loops", As.compute_distances_no_loops, lambda r, s: _knn(r, s)),
    ("predict_labels", As.predict_labels,
     lambda r, s: (r.random((10 * s, 40 * s)), r.integers(0, 5, 40 * s), 5)),
    ("knn_cross_validation", As.knn_cross_validation,
     lambda r, s: (r.standard_normal((25 * s, 6)), r.integers(0, 3, 25 * s), 5, (1, 3, 5))),
    ("svm_loss_naive", As.svm_loss_naive, lambda r, s: (*_cls(r, s), 0.1)),
    ("svm_loss_vectorized", As.svm_loss_vectorized, lambda r, s: (*_cls(r, s), 0.1)),
    ("softmax_loss_naive", As.softmax_loss_naive, lambda r, s: (*_cls(r, s), 0.1)),
    ("softmax_loss_vectorized", As.softmax_loss_vectorized, lambda r, s: (*_cls(r, s), 0.1)),
    ("linear_classifier_train", As.linear_classifier_train,
     lambda r, s: (*_cls(r, s, n=60)[1:], _cls(r, s)[0], 1e-1, 1e-3, 10,
                   r.integers(0, 60 * s, (10, 16)))),
    ("affine_forward", As.affine_forward,
     lambda r, s: (r.standard_normal((4 * s, 2, 3)), r.standard_normal((6, 5)),
                   r.standard_normal(5))),
    ("affine_backward", As.affine_backward,
     lambda r, s: (r.standard_normal((4 * s, 5)), (r.standard_normal((4 * s, 2, 3)),
                                                   r.standard_normal((6, 5)),
                                                   r.standard_normal(5)))),
    ("affine_relu_roundtrip", As.affine_relu_roundtrip,
     lambda r, s: (r.standard_normal((10 * s, 6)), r.standard_normal((6, 8)),
                   r.standard_normal(8), r.standard_normal((10 * s, 8)))),
    ("relu_forward_backward", As.relu_forward_backward,
     lambda r, s: (r.standard_normal((10 * s, 7)), r.standard_normal((10 * s, 7)))),
    ("batchnorm_forward_train", As.batchnorm_forward, lambda r, s: _bn(r, s, "train")),
    ("batchnorm_forward_test", As.batchnorm_forward, lambda r, s: _bn(r, s, "test")),
    ("batchnorm_backward", As.batchnorm_backward,
     lambda r, s: (r.standard_normal((16 * s, 6)), r.standard_normal((16 * s, 6)) * 2 + 1,
                   r.random(6) + 0.5, 1e-5)),
    ("dropout_forward", As.dropout_forward,
     lambda r, s: (r.standard_normal((20 * s, 10)), {"p": 0.6, "mode": "train"},
                   r.random((20 * s, 10)))),
    ("conv_forward_naive", As.conv_forward_naive, lambda r, s: _conv(r, s)),
    ("max_pool_forward_naive", As.max_pool_forward_naive, lambda r, s: _pool(r, s)),
    ("max_pool_backward_naive", As.max_pool_backward_naive,
     lambda r, s: (r.standard_normal((2, 3, 4 * s, 4 * s)), *_pool(r, s))),
    ("max_pool_backward_argmax", As.max_pool_backward_argmax,
     lambda r, s: (r.standard_normal((2, 3, 4 * s, 4 * s)), _pool(r, s)[0], 2, 2)),
    ("rnn_step_forward", As.rnn_step_forward,
     lambda r, s: (lambda a: (a[0][:, 0, :], a[1], a[2], a[3], a[4]))(_rnn(r, s))),
    ("rnn_forward", As.rnn_forward, lambda r, s: _rnn(r, s)),
    ("rnn_step_backward", As.rnn_step_backward, lambda r, s: _rnn_back(r, s)),
    ("word_embedding_forward_backward", As.word_embedding_forward_backward,
     lambda r, s: (r.integers(0, 10, (3 * s, 4)), r.standard_normal((10, 5)),
                   r.standard_normal((3 * s, 4, 5)))),
    ("two_layer_net_loss", As.two_layer_net_loss, lambda r, s: _net(r, s)),
    ("sgd_minibatch_epochs", As.sgd_minibatch_epochs,
     lambda r, s: (*_reg(r, s), np.zeros(4), 0.0, 0.05, 16, 5)),
    ("one_hot_eye", As.one_hot_eye, lambda r, s: (r.integers(0, 6, 30 * s), 6)),
    ("one_hot_loop", As.one_hot_loop, lambda r, s: (r.integers(0, 6, 30 * s), 6)),
    ("label_encode_unique", As.label_encode_unique,
     lambda r, s: (r.choice(np.array([3, 17, 42, 7, 99]), 40 * s),)),
    ("train_val_split", As.train_val_split,
     lambda r, s: (r.standard_normal((30 * s, 4)), r.integers(0, 2, 30 * s),
                   r.permutation(30 * s), 0.2)),
    ("kfold_ridge_scores", As.kfold_ridge_scores, lambda r, s: (*_reg(r, s), 5, 0.1)),
    ("standardize_features", As.standardize_features,
     lambda r, s: (r.standard_normal((30 * s, 5)) * 3 + 2, r.standard_normal((10 * s, 5)))),
    ("min_max_scale_inplace", As.min_max_scale_inplace,
     lambda r, s: (r.standard_normal((30 * s, 5)) * 3 + 2,)),
    ("polynomial_features", As.polynomial_features,
     lambda r, s: (r.standard_normal(40 * s), 4)),
    ("tfidf_counts", As.tfidf_counts, lambda r, s: (_counts(r, s),)),
    ("cosine_top_k", As.cosine_top_k,
     lambda r, s: (r.standard_normal(16), r.standard_normal((50 * s, 16)), 5)),
    ("naive_bayes_bow", As.naive_bayes_bow, lambda r, s: _bow(r, s)),
    ("normal_equation", As.normal_equation, lambda r, s: _reg(r, s)),
    ("gradient_descent_tol", As.gradient_descent_tol,
     lambda r, s: (*_reg(r, s), 0.1, 1e-9, 500)),
    ("logistic_regression_early_stop", As.logistic_regression_early_stop,
     lambda r, s: _logreg(r, s)),
    ("kmeans_converge", As.kmeans_converge,
     lambda r, s: (_blobs(r, s)[0], np.array([[1.0, 1.0], [4.0, 4.0], [1.0, 5.0]]), 50)),
    ("silhouette_score_loops", As.silhouette_score_loops, lambda r, s: (*_blobs(r, s), 3)),
    ("pca_svd", As.pca_svd, lambda r, s: (r.standard_normal((30 * s, 6)) @ r.random((6, 6)), 2)),
    ("confusion_matrix_loop", As.confusion_matrix_loop, lambda r, s: _preds(r, s)),
    ("per_class_accuracy", As.per_class_accuracy, lambda r, s: _preds(r, s)),
    ("classification_report_dict", As.classification_report_dict, lambda r, s: _preds(r, s)),
    ("perceptron_multiclass", As.perceptron_multiclass,
     lambda r, s: (r.standard_normal((40 * s, 12)), r.integers(0, 3, 40 * s), 3)),
    ("rnn_forward_small", As.rnn_forward_small,
     lambda r, s: (r.standard_normal((30 * s, 10)), r.standard_normal((6, 10)) * 0.3,
                   r.standard_normal((6, 6)) * 0.3, r.standard_normal(6) * 0.1)),
]
