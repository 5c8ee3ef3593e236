"""Inputs for the kernels of the topic files, from `user_kernels_nets.py` to
`user_kernels_routines.py`: (name, function, make inputs(rng, scale))."""

from __future__ import annotations

import numpy as np
import user_kernels_nets as Nn
import user_kernels_bits as Bt
import user_kernels_lists as Li
import user_kernels_physics as Ph
import user_kernels_signal as Sg
import user_kernels_geometry as Ge
import user_kernels_learning as Le
import user_kernels_algorithms as Al
import user_kernels_numerics as Nu
import user_kernels_layers as Ly
import user_kernels_graphs as Gr
import user_kernels_codes as Cd
import user_kernels_stats as St
import user_kernels_solvers as Sv
import user_kernels_vision as Vi
import user_kernels_weather as Wx
import user_kernels_objects as Ob
import user_kernels_idioms as Id
import user_kernels_routines as Rt


def _spd(rng, n):
    a = rng.random((n, n))
    return a @ a.T + n * np.eye(n)


def _f32(*arrays):
    return tuple(a.astype(np.float32) for a in arrays)


def _vadv(rng, s):
    i, j, k = 4 * s + 2, 4 * s + 1, 5 * s
    fields = [rng.random((i, j, k)) for _ in range(4)]
    return (fields[0], fields[1], rng.random((i + 1, j, k)), fields[2], fields[3], 3.0 / 20.0)


def _channel(rng, s):
    n = 8 * s
    return (5, np.zeros((n, n)), np.zeros((n, n)), 8.0 / ((n - 1) * (n - 1)), 2 / (n - 1),
            2 / (n - 1), np.ones((n, n)), 1.0, 0.1, 1.0)


def _csr(rng, n):
    dense = rng.random((n, n)) * (rng.random((n, n)) < 0.2)
    indptr = np.concatenate([[0], np.cumsum((dense != 0).sum(axis=1))]).astype(np.int64)
    rows, cols = np.nonzero(dense)
    return dense[rows, cols], cols.astype(np.int64), indptr


def _dag(rng, n):
    perm = rng.permutation(n)
    adj = np.triu(rng.random((n, n)) < 0.15, 1)
    return adj[np.ix_(perm, perm)]


def _edges(rng, n):
    m = 4 * n
    return (rng.integers(0, n, m), rng.integers(0, n, m), rng.random(m) * 10.0, n, 0)


def _ratings(rng, s):
    nu, ni, m, k = 10 * s, 8 * s, 60 * s, 4
    return (rng.integers(0, nu, m), rng.integers(0, ni, m), rng.random(m) * 5.0,
            0.1 * rng.random((nu, k)), 0.1 * rng.random((ni, k)), 0.01, 0.02, 3)


def _blobs(rng, s):
    return (np.repeat(rng.random((4, 2)) * 10, 8 * s, axis=0) + rng.standard_normal((32 * s, 2)) * 0.3,
            0.5, 4)


def _distances(rng, n):
    p = rng.random((n, 2))
    return (np.sqrt(((p[:, None, :] - p[None, :, :]) ** 2).sum(-1)),)


def _regions(rng, s):
    img = (rng.random((12 * s, 12 * s)) < 0.7).astype(np.int64)
    img[6 * s, 6 * s] = 1
    return img, 6 * s, 6 * s, 2


def _lbm(rng, s):
    n = 16 * s
    f = np.ones((9, n, n)) * Ph.D2Q9_W[:, None, None]
    return f * (1 + 0.05 * rng.random((9, n, n))), 1.2, 3 * s


def _gray_scott(rng, s):
    n = 24 * s
    U, V = np.ones((n, n)), np.zeros((n, n))
    U[n // 3:2 * n // 3, n // 3:2 * n // 3] = 0.5
    V[n // 3:2 * n // 3, n // 3:2 * n // 3] = 0.25 + 0.1 * rng.random((n - 2 * (n // 3), n - 2 * (n // 3)))
    return U, V, 0.16, 0.08, 0.035, 0.065, 5 * s


def _chain(rng, s):
    n = 10 * s
    pos = np.stack([np.arange(n, dtype=np.float64), np.zeros(n)], axis=1) + 0.01 * rng.random((n, 2))
    return pos, np.zeros((n, 2)), 50.0, 1.0, 0.1, 0.01, 10 * s


def _forest(rng, s):
    n, steps = 8 * s, 3 * s
    return (rng.choice(np.array([0, 1, 2], dtype=np.int32), (n, n), p=[0.4, 0.55, 0.05]),
            rng.random((steps, n, n)), rng.random((steps, n, n)), 0.05, 0.001)


def _triangles(rng, s):
    w = h = 16 * s
    tris = rng.random((6 * s, 3, 2)) * w
    return tris, rng.random((6 * s, 3)), w, h


def _som(rng, s):
    data = rng.random((30 * s, 3))
    return data, rng.random((5, 6, 3)), rng.integers(0, 30 * s, 40 * s), 0.5, 2.0


def _hopfield(rng, s):
    n = 24 * s
    pats = np.where(rng.random((3, n)) < 0.5, -1.0, 1.0)
    probe = pats[0].copy()
    probe[rng.integers(0, n, n // 8)] *= -1
    return pats, probe, 5


def _tsne(rng, s):
    n = 12 * s
    P = rng.random((n, n))
    P = P + P.T
    np.fill_diagonal(P, 0.0)
    return rng.standard_normal((n, 2)), P / P.sum()


def _gmm(rng, s):
    x = np.concatenate([rng.normal(-2, 0.5, 40 * s), rng.normal(1.5, 1.0, 60 * s)])
    return x, np.array([-1.0, 1.0]), np.array([1.0, 1.0]), np.array([0.5, 0.5]), 8


def _als(rng, s):
    nu, ni, k = 8 * s, 6 * s, 3
    mask = rng.random((nu, ni)) < 0.6
    mask[:, 0] = mask[0, :] = True
    return rng.random((nu, ni)) * 5, mask, rng.random((nu, k)), rng.random((ni, k)), 0.1


def _skipgram(rng, s):
    vocab, dim, m = 30, 8, 20 * s
    return (rng.integers(0, vocab, m), rng.integers(0, vocab, m), rng.integers(0, vocab, (m, 3)),
            0.1 * rng.standard_normal((vocab, dim)), 0.1 * rng.standard_normal((vocab, dim)), 0.05)


def _transformer(rng, s):
    T, d = 8 * s, 16
    ws = [(0.2 * rng.standard_normal(shape)).astype(np.float32)
          for shape in [(d, d)] * 4 + [(d, 4 * d), (4 * d, d)]]
    return (rng.standard_normal((T, d)).astype(np.float32), *ws, 2)


def _utf8(rng, s):
    text = "".join(chr(c) for c in rng.choice([65, 97, 233, 955, 8364, 128512], 40 * s))
    return (np.frombuffer(text.encode("utf-8"), dtype=np.uint8).copy(),)


def _bands(rng, n):
    return (rng.random(n), rng.random(n), rng.random(n) + 6.0, rng.random(n), rng.random(n),
            rng.random(n))


def _tsp(rng, s):
    n = 5 + s
    p = rng.random((n, 2))
    return (np.sqrt(((p[:, None] - p[None]) ** 2).sum(-1)),)


def _prices(rng, n):
    return 100 * np.exp(np.cumsum(0.01 * rng.standard_normal(n)))


def _f32s(rng, *shapes):
    return tuple(rng.standard_normal(shape).astype(np.float32) for shape in shapes)


def _mha(rng, s):
    return (*_f32s(rng, (8 * s, 32)), *(0.2 * w for w in _f32s(rng, *[(32, 32)] * 4)), 4)


def _mlp2(rng, s):
    return (rng.standard_normal((32 * s, 16)), rng.standard_normal((32 * s, 4)),
            0.3 * rng.standard_normal((16, 32)), np.zeros(32), 0.3 * rng.standard_normal((32, 4)),
            np.zeros(4))


def _capacity(rng, n):
    return ((rng.integers(1, 20, (n, n)) * (rng.random((n, n)) < 0.3)).astype(np.int64), 0, n - 1)


def _maze(rng, n):
    grid = rng.random((n, n)) < 0.2
    grid[0, 0] = grid[-1, -1] = False
    return grid, 0, 0, n - 1, n - 1


def _undirected(rng, n):
    a = np.triu(rng.random((n, n)) < 4.0 / n, 1)
    return (a | a.T).astype(np.int64), 3


def _csr_dd(rng, n):
    dense = rng.random((n, n)) * (rng.random((n, n)) < 0.2) + n * np.eye(n)
    rows, cols = np.nonzero(dense)
    indptr = np.concatenate([[0], np.cumsum((dense != 0).sum(axis=1))]).astype(np.int64)
    return indptr, cols.astype(np.int64), dense[rows, cols], rng.random(n)


def _spgemm(rng, n):
    a_val, a_idx, a_ptr = _csr(rng, n)
    b_val, b_idx, b_ptr = _csr(rng, n)
    return a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, n


def _simplex(rng, s):
    m, n = 2 + s, 3 + s
    return rng.random(n) + 0.1, rng.random((m, n)) + 0.1, rng.random(m) + 1.0


def _transport(rng, s):
    n = 20 * s
    x, y = np.sort(rng.random(n)), np.sort(rng.random(n))
    a, b = rng.random(n) + 0.1, rng.random(n) + 0.1
    return a / a.sum(), b / b.sum(), (x[:, None] - y[None, :]) ** 2, 0.05


def _tree(rng, depth, n_features):
    n = 2 ** (depth + 1) - 1
    internal = np.arange(n) < 2 ** depth - 1
    left = np.where(internal, 2 * np.arange(n) + 1, -1)
    right = np.where(internal, 2 * np.arange(n) + 2, -1)
    return rng.integers(0, n_features, n), rng.random(n), left, right


def _tree_predict(rng, s):
    feature, threshold, left, right = _tree(rng, 5, 4)
    return rng.random((50 * s, 4)), feature, threshold, left, right, rng.standard_normal(len(left))


def _iforest(rng, s):
    trees = [_tree(rng, 4, 3) for _ in range(5)]
    feature, threshold, left, right = (np.stack(parts) for parts in zip(*trees))
    return (rng.random((40 * s, 3)), feature, threshold, left, right,
            rng.integers(1, 20, left.shape))


def _bimodal(rng, s):
    img = np.where(rng.random((16 * s, 16 * s)) < 0.4, rng.normal(60, 15, (16 * s, 16 * s)),
                   rng.normal(180, 20, (16 * s, 16 * s)))
    return (np.clip(img, 0, 255).astype(np.uint8),)


def _particles(rng, s):
    t = 30 * s
    truth = np.cumsum(rng.standard_normal(t) * 0.3)
    return (Ob.ParticleFilter(200 * s, 0.3, 0.5), truth + 0.5 * rng.standard_normal(t),
            rng.standard_normal((t, 200 * s)), rng.random(t))


def _hmm(rng, s):
    n, m = 3 + s, 4 + s
    A = rng.random((n, n)) + np.eye(n) * n
    B = rng.random((n, m))
    pi = rng.random(n)
    model = Ob.HiddenMarkovModel(A / A.sum(1, keepdims=True), B / B.sum(1, keepdims=True),
                                 pi / pi.sum())
    return model, rng.integers(0, m, 100 * s)


def _nbody_system(rng, s):
    n = 8 * s
    return Ob.NBodySystem(rng.standard_normal((n, 3)), 0.1 * rng.standard_normal((n, 3)),
                          rng.random(n) + 0.5), 5 * s


def _logistic(rng, s):
    X = np.column_stack([np.ones(100 * s), rng.standard_normal((100 * s, 4))])
    y = (X @ np.array([0.3, 1.0, -2.0, 0.5, 0.0]) + rng.logistic(size=100 * s) > 0)
    return X, y.astype(np.float64)


def _kmeans_empty(rng, s):
    X = np.repeat(rng.random((3, 2)) * 10, 20 * s, axis=0) + 0.3 * rng.standard_normal((60 * s, 2))
    return X, np.array([0, 0, 20 * s, 40 * s])


def _mesh(rng, s):
    n = 6 * s
    gx, gy = np.meshgrid(np.arange(n), np.arange(n))
    verts = np.column_stack([gx.ravel(), gy.ravel(), 0.2 * rng.standard_normal(n * n)]).astype(float)
    cells = (gy[:-1, :-1] * n + gx[:-1, :-1]).ravel()
    faces = np.concatenate([np.column_stack([cells, cells + 1, cells + n]),
                            np.column_stack([cells + 1, cells + n + 1, cells + n])])
    return verts, faces


def _ar2(rng, s):
    e = rng.standard_normal(200 * s)
    x = np.zeros(200 * s)
    for t in range(2, 200 * s):
        x[t] = 0.6 * x[t - 1] - 0.3 * x[t - 2] + e[t]
    return x, 3, 10


def _signed_edges(rng, n):
    src, dst = rng.integers(0, n, 4 * n), rng.integers(0, n, 4 * n)
    return src, dst, rng.random(4 * n) * 10.0 - 1.0 * (src > dst), n


def _blobs_mask(rng, s):
    return (rng.random((12 * s, 12 * s)) < 0.45,)


def _base64_text(rng, s):
    import base64
    return (np.frombuffer(base64.b64encode(rng.integers(0, 256, 30 * s, dtype=np.uint8).tobytes()),
                          dtype=np.uint8).copy(),)


TOPIC_CASES = [
    ("lstm_forward", Nn.lstm_forward,
     lambda r, s: _f32(r.standard_normal((10 * s, 8)), 0.3 * r.standard_normal((8, 64)),
                       0.3 * r.standard_normal((16, 64)), r.standard_normal(64))),
    ("gru_forward", Nn.gru_forward,
     lambda r, s: (r.standard_normal((10 * s, 6)),) + tuple(0.3 * r.standard_normal(shape) for shape in
                                                           [(6, 12), (12, 12)] * 3)),
    ("rnn_backward", Nn.rnn_backward,
     lambda r, s: (r.standard_normal((10 * s, 5)), 0.3 * r.standard_normal((5, 8)),
                   0.3 * r.standard_normal((8, 8)), np.zeros(8), r.standard_normal(8))),
    ("depthwise_conv", Nn.depthwise_conv,
     lambda r, s: _f32(r.random((4, 8 * s, 8 * s)), r.random((4, 3, 3)))),
    ("conv_transpose_2d", Nn.conv_transpose_2d, lambda r, s: (r.random((6 * s, 6 * s)), r.random((3, 3)), 2)),
    ("embedding_mean_pool", Nn.embedding_mean_pool,
     lambda r, s: (*_f32(r.standard_normal((50, 16))), r.integers(0, 50, (8 * s, 6)),
                   *_f32(r.standard_normal((16, 8)), r.standard_normal(8)))),
    ("dropout_dense", Nn.dropout_dense,
     lambda r, s: (r.standard_normal((16 * s, 20)), r.standard_normal((20, 32)),
                   r.random((16 * s, 32)) > 0.2, 0.2)),
    ("avg_pool_2d", Nn.avg_pool_2d, lambda r, s: (*_f32(r.random((3, 8 * s, 8 * s))), 2)),
    ("mf_sgd", Nn.mf_sgd, _ratings),
    ("dbscan_core", Nn.dbscan_core, _blobs),
    ("single_linkage", Nn.single_linkage, lambda r, s: _distances(r, 8 * s)),
    ("flood_fill", Nn.flood_fill, lambda r, s: _regions(r, s)),
    ("distance_transform", Nn.distance_transform, lambda r, s: (r.random((10 * s, 12 * s)) < 0.05,)),
    ("hough_lines", Nn.hough_lines, lambda r, s: (r.random((10 * s, 10 * s)) < 0.05, 30)),
    ("bilateral_filter", Nn.bilateral_filter, lambda r, s: (r.random((6 * s, 6 * s)), 2, 1.5, 0.2)),
    ("unsharp_mask", Nn.unsharp_mask, lambda r, s: (r.random((20 * s, 20 * s)), 0.8, 0.05)),
    ("bellman_ford", Bt.bellman_ford, lambda r, s: _edges(r, 10 * s)),
    ("prim_mst", Bt.prim_mst, lambda r, s: _distances(r, 10 * s)),
    ("kahn_toposort", Bt.kahn_toposort, lambda r, s: (_dag(r, 12 * s),)),
    ("triangle_count", Bt.triangle_count,
     lambda r, s: (np.triu(r.random((10 * s, 10 * s)) < 0.3, 1) | np.triu(r.random((10 * s, 10 * s)) < 0.3, 1).T,)),
    ("xorshift32", Bt.xorshift32, lambda r, s: (2463534242, 100 * s)),
    ("lcg_uniform", Bt.lcg_uniform, lambda r, s: (12345, 100 * s)),
    ("fnv1a", Bt.fnv1a, lambda r, s: (r.integers(0, 256, 100 * s, dtype=np.uint8),)),
    ("murmur_keys", Bt.murmur_keys, lambda r, s: (r.integers(0, 2**40, 50 * s), 42)),
    ("n_queens", Bt.n_queens, lambda r, s: (4 + s,)),
    ("rule110", Bt.rule110, lambda r, s: ((r.random(30 * s) < 0.5).astype(np.int64), 10 * s)),
    ("smith_waterman", Bt.smith_waterman,
     lambda r, s: (r.integers(0, 4, 15 * s), r.integers(0, 4, 12 * s), 3, -3, 2)),
    ("find_peaks", Li.find_peaks, lambda r, s: (r.standard_normal(200 * s), 0.5)),
    ("row_norms", Li.row_norms, lambda r, s: (r.standard_normal((100 * s, 3)),)),
    ("window_means", Li.window_means, lambda r, s: (r.random(200 * s), 4)),
    ("trimmed_mean", Li.trimmed_mean, lambda r, s: (r.standard_normal(200 * s), 1.5)),
    ("dense_layer_rows", Li.dense_layer_rows,
     lambda r, s: (r.standard_normal((40 * s, 4)), r.standard_normal((4, 3)), r.standard_normal(3))),
    ("energy_above", Li.energy_above, lambda r, s: (r.standard_normal(200 * s), 0.25)),
    ("k_nearest_sorted", Li.k_nearest_sorted,
     lambda r, s: (r.standard_normal((100 * s, 2)), np.array([0.2, -0.1]), 5)),
    ("median_of_valid", Li.median_of_valid,
     lambda r, s: (np.where(r.random(101 * s) < 0.1, np.nan, r.standard_normal(101 * s)),)),
    ("peak_gaps", Li.peak_gaps, lambda r, s: (r.standard_normal(200 * s), 0.5)),
    ("bfs_cells_as_lists", Li.bfs_cells_as_lists,
     lambda r, s: ((r.random((15 * s, 15 * s)) < 0.25).astype(np.int64),)),
    ("small_filtered_sums", Li.small_filtered_sums, lambda r, s: (r.standard_normal((50 * s, 6)), 0.3)),
    ("lbm_d2q9", Ph.lbm_d2q9, _lbm),
    ("gray_scott", Ph.gray_scott, _gray_scott),
    ("lorenz_rk4", Ph.lorenz_rk4, lambda r, s: (np.array([1.0, 1.0, 1.0]) + r.random(3), 0.01, 100 * s)),
    ("double_pendulum", Ph.double_pendulum, lambda r, s: (1.0 + r.random(), 0.5, 0.0, 0.0, 0.005, 100 * s)),
    ("spring_chain", Ph.spring_chain, _chain),
    ("sandpile", Ph.sandpile, lambda r, s: (r.integers(0, 8, (8 * s, 8 * s)),)),
    ("langtons_ant", Ph.langtons_ant, lambda r, s: (16 * s, 200 * s)),
    ("forest_fire", Ph.forest_fire, _forest),
    ("splitmix64", Ph.splitmix64, lambda r, s: (r.integers(0, 2**62, 16 * s, dtype=np.uint64), 10 * s)),
    ("pcg32", Ph.pcg32, lambda r, s: (r.integers(0, 2**62, 16 * s, dtype=np.uint64),
                                      np.uint64(1442695040888963407), 10 * s)),
    ("box_muller", Ph.box_muller, lambda r, s: (1.0 - r.random(200 * s), r.random(200 * s))),
    ("marsaglia_polar", Ph.marsaglia_polar, lambda r, s: (r.random(100 * s), 40 * s)),
    ("fft_radix2", Sg.fft_radix2, lambda r, s: (r.standard_normal(32 * 2 ** s), r.standard_normal(32 * 2 ** s))),
    ("savgol_smooth", Sg.savgol_smooth, lambda r, s: (r.standard_normal(100 * s), 7, 2)),
    ("windowed_sinc", Sg.windowed_sinc, lambda r, s: (r.standard_normal(100 * s), 0.1, 21)),
    ("decimate", Sg.decimate, lambda r, s: (*_f32(r.standard_normal(200 * s), r.random(9)), 4)),
    ("spectrogram_loops", Sg.spectrogram_loops, lambda r, s: (r.standard_normal(64 * s), 16, 8)),
    ("filtfilt_zero_phase", Sg.filtfilt_zero_phase,
     lambda r, s: (np.array([0.0675, 0.1349, 0.0675]), np.array([1.0, -1.143, 0.4128]), r.standard_normal(100 * s))),
    ("rsi", Sg.rsi, lambda r, s: (_prices(r, 100 * s), 14)),
    ("macd", Sg.macd, lambda r, s: (_prices(r, 100 * s),)),
    ("bollinger", Sg.bollinger, lambda r, s: (_prices(r, 100 * s), 20, 2.0)),
    ("historical_var", Sg.historical_var,
     lambda r, s: (0.01 * r.standard_normal((250 * s, 5)), r.dirichlet(np.ones(5)), 0.05)),
    ("asian_option_mc", Sg.asian_option_mc,
     lambda r, s: (100.0, 0.03, 0.2, 1.0, 100.0, r.standard_normal((20 * s, 12)))),
    ("garch_filter", Sg.garch_filter, lambda r, s: (0.01 * r.standard_normal(200 * s), 1e-6, 0.08, 0.9)),
    ("ray_sphere_image", Ge.ray_sphere_image,
     lambda r, s: (8 * s, 6 * s, np.array([[0.0, 0.0, 3.0], [1.0, 0.5, 4.0], [-1.0, -0.5, 5.0]]),
                   np.array([1.0, 0.8, 1.2]))),
    ("rasterize_triangles", Ge.rasterize_triangles, _triangles),
    ("marching_squares_cases", Ge.marching_squares_cases, lambda r, s: (r.random((10 * s, 12 * s)), 0.5)),
    ("segment_intersections", Ge.segment_intersections, lambda r, s: (r.random((10 * s, 4)),)),
    ("closest_pair", Ge.closest_pair, lambda r, s: (r.random((20 * s, 2)),)),
    ("de_casteljau", Ge.de_casteljau, lambda r, s: (r.random((6, 2)), np.linspace(0, 1, 20 * s))),
    ("bspline_basis", Ge.bspline_basis,
     lambda r, s: (np.concatenate([[0, 0, 0], np.linspace(0, 1, 6), [1, 1, 1]]), 3, r.random(40 * s))),
    ("nmf_updates", Le.nmf_updates,
     lambda r, s: (r.random((12 * s, 10 * s)), r.random((12 * s, 3)), r.random((3, 10 * s)), 10)),
    ("pegasos_svm", Le.pegasos_svm,
     lambda r, s: (r.standard_normal((40 * s, 4)), np.where(r.random(40 * s) < 0.5, -1.0, 1.0), 0.1,
                   r.integers(0, 40 * s, 60 * s))),
    ("adaboost_stumps", Le.adaboost_stumps,
     lambda r, s: (r.random(30 * s), np.where(r.random(30 * s) < 0.5, -1, 1), np.linspace(0.1, 0.9, 9), 3)),
    ("som_train", Le.som_train, _som),
    ("hopfield_recall", Le.hopfield_recall, _hopfield),
    ("tsne_gradient", Le.tsne_gradient, _tsne),
    ("gmm_em_1d", Le.gmm_em_1d, _gmm),
    ("als_step", Le.als_step, _als),
    ("skipgram_sgd", Le.skipgram_sgd, _skipgram),
    ("conv1d_maxpool", Le.conv1d_maxpool,
     lambda r, s: (*_f32(r.standard_normal((3, 40 * s)), r.standard_normal((4, 3, 5)), r.standard_normal(4)), 2)),
    ("transformer_block", Le.transformer_block, _transformer),
    ("quicksort_stack", Al.quicksort_stack, lambda r, s: (r.random(40 * s),)),
    ("merge_sort_bottom_up", Al.merge_sort_bottom_up, lambda r, s: (r.integers(0, 1000, 40 * s).astype(np.int32),)),
    ("heap_sort", Al.heap_sort, lambda r, s: (r.random(40 * s).astype(np.float32),)),
    ("counting_sort", Al.counting_sort, lambda r, s: (r.integers(0, 16, 60 * s, dtype=np.uint8), 16)),
    ("radix_sort_u32", Al.radix_sort_u32, lambda r, s: (r.integers(0, 2**32, 40 * s, dtype=np.uint32),)),
    ("quickselect", Al.quickselect, lambda r, s: (r.random(40 * s), 10 * s)),
    ("binary_searches", Al.binary_searches,
     lambda r, s: (np.sort(r.random(100 * s)), r.random(50 * s))),
    ("matrix_chain_order", Al.matrix_chain_order, lambda r, s: (r.integers(5, 50, 8 * s + 1),)),
    ("rod_cutting", Al.rod_cutting, lambda r, s: (np.cumsum(r.random(10)) + r.random(10), 20 * s)),
    ("longest_palindromic_subseq", Al.longest_palindromic_subseq,
     lambda r, s: (r.integers(0, 4, 20 * s, dtype=np.uint8),)),
    ("subset_sum_table", Al.subset_sum_table, lambda r, s: (r.integers(1, 30, 10 * s), 60 * s)),
    ("word_wrap", Al.word_wrap, lambda r, s: (r.integers(1, 10, 20 * s), 24)),
    ("held_karp", Al.held_karp, _tsp),
    ("kmp_prefix", Al.kmp_prefix, lambda r, s: (r.integers(0, 2, 60 * s, dtype=np.uint8),)),
    ("rabin_karp", Al.rabin_karp,
     lambda r, s: (r.integers(0, 2, 100 * s, dtype=np.uint8), np.array([1, 0, 1], dtype=np.uint8))),
    ("horspool_count", Al.horspool_count,
     lambda r, s: (r.integers(0, 3, 200 * s, dtype=np.uint8), np.array([2, 1, 2], dtype=np.uint8))),
    ("hamming_distances", Al.hamming_distances, lambda r, s: (r.integers(0, 256, (10 * s, 8), dtype=np.uint8),)),
    ("utf8_validate", Al.utf8_validate, _utf8),
    ("base64_encode", Al.base64_encode, lambda r, s: (r.integers(0, 256, 30 * s + 1, dtype=np.uint8),)),
    ("gauss_jordan_inverse", Nu.gauss_jordan_inverse, lambda r, s: (r.random((8 * s, 8 * s)) + np.eye(8 * s),)),
    ("hessenberg", Nu.hessenberg, lambda r, s: (r.random((8 * s, 8 * s)),)),
    ("lanczos", Nu.lanczos, lambda r, s: (_spd(r, 12 * s), r.random(12 * s), 6)),
    ("inverse_iteration", Nu.inverse_iteration, lambda r, s: (_spd(r, 8 * s), 1.0, 6)),
    ("pentadiagonal_solve", Nu.pentadiagonal_solve, lambda r, s: _bands(r, 30 * s)),
    ("gmres_small", Nu.gmres_small, lambda r, s: (_spd(r, 10 * s), r.random(10 * s), 6)),
    ("tridiag_eig_bisection", Nu.tridiag_eig_bisection,
     lambda r, s: (r.random(8 * s) * 4, r.random(8 * s - 1), 1e-10)),
    ("kahan_sum", Nu.kahan_sum, lambda r, s: (r.random(500 * s) * 1e-3 + 1e3,)),
    ("golden_section_min", Nu.golden_section_min, lambda r, s: (-2.0, 3.0, np.array([1.0, -1.0, -2.0, 1.0]), 1e-8)),
    ("adaptive_simpson", Nu.adaptive_simpson, lambda r, s: (r.random(4 * s) * 3, 0.0, 4.0, 1e-7)),
    ("chebyshev_fit_exp_sin", Nu.chebyshev_fit_exp_sin, lambda r, s: (16 * s,)),
    ("lanczos_gamma", Nu.lanczos_gamma, lambda r, s: (r.random(50 * s) * 6 - 2.5,)),
    ("erf_series", Nu.erf_series, lambda r, s: (r.random(50 * s) * 2 - 1, 20)),
    ("legendre_table", Nu.legendre_table, lambda r, s: (np.linspace(-1, 1, 50 * s), 8)),
    ("group_norm", Ly.group_norm,
     lambda r, s: (*_f32s(r, (2, 8, 6 * s, 6 * s), (8,), (8,)), 4)),
    ("instance_norm_backward", Ly.instance_norm_backward,
     lambda r, s: _f32s(r, (2, 4, 8 * s, 8 * s), (2, 4, 8 * s, 8 * s))),
    ("rms_norm_fwd_bwd", Ly.rms_norm_fwd_bwd, lambda r, s: _f32s(r, (16 * s, 64), (64,), (16 * s, 64))),
    ("rotary_embedding", Ly.rotary_embedding, lambda r, s: _f32s(r, (32 * s, 64))),
    ("masked_mha", Ly.masked_mha, _mha),
    ("softmax_cross_entropy", Ly.softmax_cross_entropy,
     lambda r, s: (*_f32s(r, (32 * s, 10)), r.integers(0, 10, 32 * s).astype(np.int32))),
    ("embedding_backward", Ly.embedding_backward,
     lambda r, s: (r.integers(0, 50, (4, 8 * s)), *_f32s(r, (4, 8 * s, 16)), 50)),
    ("maxpool_backward", Ly.maxpool_backward,
     lambda r, s: (r.random((2, 3, 8 * s, 8 * s)), r.random((2, 3, 4 * s, 4 * s)))),
    ("adamw", Ly.adamw, lambda r, s: _f32s(r, (100 * s,), (10, 100 * s))),
    ("dropout_fwd_bwd", Ly.dropout_fwd_bwd,
     lambda r, s: (*_f32s(r, (64 * s, 32)), (r.random((64 * s, 32)) < 0.5).astype(np.float32),
                   *_f32s(r, (64 * s, 32)))),
    ("activations", Ly.activations, lambda r, s: _f32s(r, (1000 * s,))),
    ("mlp2_backward", Ly.mlp2_backward, _mlp2),
    ("union_find", Gr.union_find, lambda r, s: (30 * s, r.integers(0, 30 * s, (20 * s, 2)))),
    ("tarjan_scc", Gr.tarjan_scc, lambda r, s: (r.random((12 * s, 12 * s)) < 0.1,)),
    ("kosaraju_scc", Gr.kosaraju_scc, lambda r, s: (r.random((12 * s, 12 * s)) < 0.1,)),
    ("edmonds_karp", Gr.edmonds_karp, lambda r, s: _capacity(r, 10 * s)),
    ("astar_grid", Gr.astar_grid, lambda r, s: _maze(r, 10 * s)),
    ("dag_longest_path", Gr.dag_longest_path,
     lambda r, s: (np.triu(r.random((12 * s, 12 * s)) * (r.random((12 * s, 12 * s)) < 0.3), 1),)),
    ("k_core", Gr.k_core, lambda r, s: _undirected(r, 40 * s)),
    ("tea_encrypt", Cd.tea_encrypt, lambda r, s: (r.integers(0, 2**32, (50 * s, 2), dtype=np.uint32),
                                                  r.integers(0, 2**32, 4, dtype=np.uint32))),
    ("xtea_encrypt", Cd.xtea_encrypt, lambda r, s: (r.integers(0, 2**32, (50 * s, 2), dtype=np.uint32),
                                                    r.integers(0, 2**32, 4, dtype=np.uint32))),
    ("rc4_keystream", Cd.rc4_keystream, lambda r, s: (r.integers(0, 256, 16, dtype=np.uint8), 100 * s)),
    ("crc32c", Cd.crc32c, lambda r, s: (r.integers(0, 256, 100 * s, dtype=np.uint8),)),
    ("crc8_blocks", Cd.crc8_blocks, lambda r, s: (r.integers(0, 256, (10 * s, 16), dtype=np.uint8),)),
    ("lz77_matches", Cd.lz77_matches, lambda r, s: (r.integers(0, 4, 60 * s, dtype=np.uint8),)),
    ("huffman_code_lengths", Cd.huffman_code_lengths,
     lambda r, s: (np.minimum(r.geometric(0.2, 200 * s), 255).astype(np.uint8),)),
    ("xoshiro256ss", Cd.xoshiro256ss,
     lambda r, s: (r.integers(1, 2**63, (4, 8), dtype=np.uint64), 20 * s)),
    ("rle_decode", Cd.rle_decode, lambda r, s: (*_f32s(r, (20 * s,)), r.integers(1, 5, 20 * s))),
    ("kendall_tau", St.kendall_tau, lambda r, s: (r.random(50 * s), r.random(50 * s))),
    ("spearman", St.spearman, lambda r, s: (r.random(100 * s), r.random(100 * s))),
    ("ecdf", St.ecdf, lambda r, s: (r.standard_normal(100 * s), r.standard_normal(50 * s))),
    ("chi_square", St.chi_square, lambda r, s: (r.integers(5, 50, (3 + s, 4 + s)),)),
    ("theil_sen", St.theil_sen, lambda r, s: (r.random(20 * s), r.random(20 * s))),
    ("weighted_median", St.weighted_median, lambda r, s: (r.standard_normal(100 * s), r.random(100 * s))),
    ("online_covariance", St.online_covariance, lambda r, s: (r.standard_normal((50 * s, 4)),)),
    ("coo_to_csr", Sv.coo_to_csr, lambda r, s: (r.integers(0, 10 * s, 40 * s), r.integers(0, 10 * s, 40 * s),
                                                r.random(40 * s), 10 * s)),
    ("csr_transpose", Sv.csr_transpose, lambda r, s: (*_csr(r, 12 * s)[::-1], 12 * s)),
    ("csr_spgemm", Sv.csr_spgemm, lambda r, s: _spgemm(r, 10 * s)),
    ("jacobi_csr", Sv.jacobi_csr, lambda r, s: _csr_dd(r, 12 * s)),
    ("fem_1d_poisson", Sv.fem_1d_poisson,
     lambda r, s: (np.sort(np.concatenate([[0.0, 1.0], r.random(20 * s - 2)])), r.random(20 * s))),
    ("multigrid_poisson", Sv.multigrid_poisson, lambda r, s: (r.random(16 * 2 ** s + 1),)),
    ("fv_minmod", Sv.fv_limited_advection, lambda r, s: (r.random(100 * s), 0.5, 20 * s)),
    ("fv_superbee", Sv.fv_limited_advection, lambda r, s: (r.random(100 * s), 0.4, 20 * s, "superbee")),
    ("crank_nicolson", Sv.crank_nicolson, lambda r, s: (r.random(50 * s), 0.4, 10 * s)),
    ("simplex_max", Sv.simplex_max, _simplex),
    ("projected_gradient_simplex", Sv.projected_gradient_simplex,
     lambda r, s: (_spd(r, 10 * s) / (10 * s), r.standard_normal(10 * s))),
    ("fista_lasso", Sv.fista_lasso,
     lambda r, s: (r.standard_normal((30 * s, 20 * s)), r.standard_normal(30 * s), 0.1)),
    ("sinkhorn", Sv.sinkhorn, _transport),
    ("tree_predict", Vi.tree_predict, _tree_predict),
    ("best_split", Vi.best_split, lambda r, s: (np.round(r.random(50 * s), 1), r.integers(0, 3, 50 * s), 3)),
    ("isolation_path_lengths", Vi.isolation_path_lengths, _iforest),
    ("otsu_threshold", Vi.otsu_threshold, _bimodal),
    ("bicubic_resize", Vi.bicubic_resize, lambda r, s: (r.random((8 * s, 8 * s)), 12 * s, 10 * s)),
    ("rotate_nearest", Vi.rotate_nearest, lambda r, s: (r.random((10 * s, 10 * s)).astype(np.float32), 0.3)),
    ("canny_nms", Vi.canny_nms,
     lambda r, s: (r.random((10 * s, 10 * s)), r.uniform(-np.pi, np.pi, (10 * s, 10 * s)))),
    ("median_filter", Vi.median_filter, lambda r, s: (r.random((6 * s, 6 * s)),)),
    ("hog_cells", Vi.hog_cells, lambda r, s: (r.integers(0, 256, (16 * s, 16 * s), dtype=np.uint8),)),
    ("vadv", Wx.vadv, _vadv),
    ("channel_flow", Wx.channel_flow, _channel),
    ("kalman_cv_class", Ob.ConstantVelocityKalman.filter,
     lambda r, s: (Ob.ConstantVelocityKalman(0.1, 0.5, 0.8), np.cumsum(r.standard_normal(100 * s)))),
    ("particle_filter_class", Ob.ParticleFilter.run, _particles),
    ("garch_dataclass", Ob.garch_loglik,
     lambda r, s: (0.01 * r.standard_normal(250 * s), Ob.GarchParams(1e-6, 0.08, 0.9, 1e-4))),
    ("logistic_newton_tuple", Ob.logistic_newton, _logistic),
    ("ewma_var_dict", Ob.ewma_var_limits, lambda r, s: (0.01 * r.standard_t(4, 250 * s),)),
    ("lotka_volterra_closure", Ob.lotka_volterra_rk4,
     lambda r, s: (np.array([10.0, 5.0]), (1.1, 0.4, 0.4, 0.1), 0.01, 100 * s)),
    ("biquad_cascade_class", Ob.biquad_cascade_blocks,
     lambda r, s: (r.standard_normal(256 * s), 64, Ob.lowpass_sections(1000.0, 8000.0))),
    ("hmm_posterior_class", Ob.HiddenMarkovModel.posterior, _hmm),
    ("leapfrog_nbody_class", Ob.NBodySystem.leapfrog, _nbody_system),
    ("pca_power_dataclass", Ob.pca_power_deflation,
     lambda r, s: (r.standard_normal((50 * s, 8)) @ r.standard_normal((8, 8)), Ob.PCAConfig(3, 40))),
    ("kmeans_reseed_empty", Ob.kmeans_reseed_empty, _kmeans_empty),
    ("savgol_table_smooth", Id.savgol_table_smooth, lambda r, s: (r.standard_normal(100 * s), 9)),
    ("goertzel_bank", Id.goertzel_bank,
     lambda r, s: (np.sin(2 * np.pi * 770.0 * np.arange(205 * s) / 8000.0) + 0.1 * r.standard_normal(205 * s), 8000.0)),
    ("stencil_27_point", Id.stencil_27_point, lambda r, s: (r.random((6 * s, 6 * s, 6 * s)), 3)),
    ("julia_f32", Id.julia_f32, lambda r, s: (30 * s, 20 * s, -0.8, 0.156)),
    ("newton_fractal_cubic", Id.newton_fractal_cubic, lambda r, s: (20 * s,)),
    ("rule30_history", Id.rule30_history, lambda r, s: (40 * s + 1, 20 * s)),
    ("periodic_laplacian_idx", Id.periodic_laplacian_idx, lambda r, s: (r.random((6 * s, 7 * s)),)),
    ("floor_bins", Id.floor_bins, lambda r, s: (r.standard_normal(100 * s) * 3, 0.5)),
    ("quantize_round", Id.quantize_round, lambda r, s: (r.standard_normal(100 * s),)),
    ("clip_two_layers", Id.clip_two_layers,
     lambda r, s: (r.standard_normal((20 * s, 10)), r.standard_normal(10 * s), 1.0)),
    ("blend_three", Id.blend_three, lambda r, s: tuple(r.random((20 * s, 20 * s)) for _ in range(3))),
    ("moments_generator", Id.moments_generator, lambda r, s: (r.gamma(2.0, size=500 * s),)),
    ("ewma_crossover", Id.ewma_crossover, lambda r, s: (100 + np.cumsum(r.standard_normal(200 * s)),)),
    ("power_spectrum_fft", Rt.power_spectrum_fft, lambda r, s: (r.standard_normal(32 * 2 ** s),)),
    ("karatsuba", Rt.karatsuba, lambda r, s: (r.standard_normal(16 * 2 ** s), r.standard_normal(16 * 2 ** s))),
    ("median_by_quickselect", Rt.median_by_quickselect, lambda r, s: (r.standard_normal(100 * s),)),
    ("bellman_ford_checked", Rt.bellman_ford_checked, lambda r, s: _signed_edges(r, 10 * s)),
    ("pagerank_dangling", Rt.pagerank_dangling,
     lambda r, s: ((r.random((20 * s, 20 * s)) < 0.1).astype(np.float64),)),
    ("prim_total_weight", Rt.prim_total_weight,
     lambda r, s: (np.triu(r.random((15 * s, 15 * s)), 1) + np.triu(r.random((15 * s, 15 * s)), 1).T,)),
    ("label_components", Rt.label_components, _blobs_mask),
    ("chamfer_distance", Rt.chamfer_distance, lambda r, s: (r.random((10 * s, 10 * s)) < 0.05,)),
    ("box_filter_integral", Rt.box_filter_integral, lambda r, s: (r.random((10 * s, 12 * s)), 2)),
    ("bilateral_gray", Rt.bilateral_gray, lambda r, s: (r.random((16 * s, 16 * s)),)),
    ("needleman_wunsch_align", Rt.needleman_wunsch_align,
     lambda r, s: (r.integers(0, 4, 12 * s, dtype=np.uint8), r.integers(0, 4, 10 * s, dtype=np.uint8))),
    ("kmer_counts", Rt.kmer_counts, lambda r, s: (r.integers(0, 4, 500 * s, dtype=np.uint8),)),
    ("hex_encode", Rt.hex_encode, lambda r, s: (r.integers(0, 256, 200 * s, dtype=np.uint8),)),
    ("base64_decode", Rt.base64_decode, _base64_text),
    ("dbscan_labels", Rt.dbscan_labels, lambda r, s: (*_blobs(r, s)[:1], 0.8, 4)),
    ("ar_yule_walker_forecast", Rt.ar_yule_walker_forecast, _ar2),
    ("crr_american_put", Rt.crr_american_put, lambda r, s: (100.0, 105.0, 0.03, 0.25, 1.0, 50 * s)),
    ("taubin_smooth", Rt.taubin_smooth, _mesh),
    ("planar_arm_fk", Rt.planar_arm_fk,
     lambda r, s: (r.uniform(-np.pi, np.pi, (50 * s, 4)), (1.0, 0.8, 0.5, 0.3))),
    ("mm1_queue", Rt.mm1_queue, lambda r, s: (r.exponential(1.0, 200 * s), r.exponential(0.8, 200 * s))),
]
