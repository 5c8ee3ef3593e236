"""Inputs for the kernels of `user_kernels.py`: (name, function, make inputs(rng, scale))."""

from __future__ import annotations

import numpy as np
import user_kernels as K
import user_kernels_poly as P
import user_kernels_others as O
import user_kernels_scalar as S
import user_kernels_windows as Wn
import user_kernels_linalg as L
import user_kernels_images as Im
import user_kernels_finance as Fi
import user_kernels_sciences as Sc
import user_kernels_small as Sm
import user_kernels_pdes as Pd
import user_kernels_series as Ts
from kernel_cases_topics import TOPIC_CASES, _csr, _f32, _spd
from kernel_cases_fields import FIELD_CASES
from kernel_cases_render import RENDER_CASES
import user_kernels_data as Da
from kernel_cases_sims import SIM_CASES
from kernel_cases_queues import QUEUE_CASES


from kernel_cases_textbook import TEXTBOOK_CASES


from kernel_cases_puzzles import PUZZLE_CASES
from kernel_cases_ported import PORTED_CASES
from kernel_cases_lab import LAB_CASES
from kernel_cases_loops2 import LOOPS2_CASES


from kernel_cases_assignments import ASSIGNMENT_CASES
from kernel_cases_containers import CONTAINER_CASES
from kernel_cases_stranger15 import STRANGER15_CASES
from kernel_cases_stranger16 import STRANGER16_CASES
from kernel_cases_stranger17 import STRANGER17_CASES
from kernel_cases_dicts import DICT_CASES


def _lower(rng, n):
    return np.tril(rng.random((n, n))) + n * np.eye(n)


def _kalman(rng, s):
    n, m = 4 * s, 2 * s
    F = np.eye(n) + 0.1 * rng.random((n, n))
    H = rng.random((m, n))
    return (rng.random(n), np.eye(n), rng.random(m), F, H, 0.01 * np.eye(n), 0.1 * np.eye(m))


def _cavity(rng, s):
    n = 8 * s
    return (n, n, 3 * s, 5, np.zeros((n, n)), np.zeros((n, n)), 0.001, 2 / (n - 1),
            2 / (n - 1), np.zeros((n, n)), 1.0, 0.1)


def _lenet(rng, s):
    n = 2 * s
    w = [rng.random(shape).astype(np.float32) - 0.5 for shape in (
        (28, 28, 1), (5, 5, 1, 6), (6,), (5, 5, 6, 16), (16,), (256, 120), (120,), (120, 84),
        (84,), (84, 10), (10,))]
    return (rng.random((n, 28, 28, 1)).astype(np.float32), *w[1:], n, 256)


def _nbody(rng, s):
    n = 10 * s
    return (rng.random((n, 1)) + 1.0, rng.standard_normal((n, 3)), rng.standard_normal((n, 3)),
            n, 4 * s, 0.01, 1.0, 0.1)


def _csr_rows(rng, n):
    val, col, row = _csr(rng, n)
    return row, col, val, rng.random(n)


def _tridiagonal(rng, n):
    return rng.random(n), rng.random(n) + 4.0, rng.random(n), rng.random(n)


def _lbfgs(rng, s):
    n, m = 20 * s, 5
    S = rng.standard_normal((m, n))
    return rng.standard_normal(n), S, S + 0.1 * rng.standard_normal((m, n))


def _seasonal(rng, s):
    t = np.arange(48 * s)
    return (10 + 0.1 * t + 3 * np.sin(2 * np.pi * t / 12) + rng.standard_normal(48 * s),
            0.3, 0.1, 0.2, 12, 12)


# scale 1: small sizes for tests; benches use larger scales.


CASES = [
    ("jacobi_1d", K.jacobi_1d, lambda r, s: (10 * s, r.random(100 * s), r.random(100 * s))),
    ("jacobi_2d", K.jacobi_2d, lambda r, s: (5 * s, r.random((20 * s, 20 * s)),
                                             r.random((20 * s, 20 * s)))),
    ("seidel_2d", K.seidel_2d, lambda r, s: (3, 10 * s, r.random((10 * s, 10 * s)))),
    ("trisolv", K.trisolv, lambda r, s: (_lower(r, 20 * s), np.zeros(20 * s), r.random(20 * s))),
    ("cholesky", K.cholesky, lambda r, s: (_spd(r, 12 * s),)),
    ("lu", K.lu, lambda r, s: (_spd(r, 12 * s),)),
    ("floyd_warshall", K.floyd_warshall,
     lambda r, s: (r.integers(1, 100, (12 * s, 12 * s)).astype(np.int64),)),
    ("recurrence", K.recurrence, lambda r, s: (r.random(200 * s),)),
    ("crc16", K.crc16, lambda r, s: (r.integers(0, 256, 40 * s, dtype=np.uint8),)),
    ("edit_distance", K.edit_distance,
     lambda r, s: (r.integers(0, 4, 12 * s), r.integers(0, 4, 10 * s))),
    ("go_fast", K.go_fast, lambda r, s: (r.random((20 * s, 20 * s)),)),
    ("nbody_step", K.nbody_step,
     lambda r, s: (r.random((6 * s, 3)), r.random((6 * s, 3)), r.random(6 * s), 0.01)),
    ("softmax", K.softmax, lambda r, s: _f32(r.random((8, 16 * s, 32)))),
    ("mlp", K.mlp, lambda r, s: _f32(r.random((8, 32 * s)), r.random((32 * s, 64)),
                                     r.random(64), r.random((64, 64)), r.random(64),
                                     r.random((64, 10)), r.random(10))),
    ("gemver", K.gemver, lambda r, s: (1.5, 1.2, r.random((30 * s, 30 * s)),
                                       *[r.random(30 * s) for _ in range(8)])),
    ("atax", K.atax, lambda r, s: (r.random((40 * s, 50 * s)), r.random(50 * s))),
    ("arc_distance", K.arc_distance, lambda r, s: tuple(r.random(1000 * s) for _ in range(4))),
    ("prefix_sum", K.prefix_sum, lambda r, s: (r.random(300 * s),)),
    ("horner", K.horner, lambda r, s: (r.random(12), r.random(1000 * s))),
    ("mandelbrot_count", K.mandelbrot_count, lambda r, s: (-0.5, 0.3, 50 * s)),
    ("matmul_loops", K.matmul_loops, lambda r, s: (r.random((6 * s, 7 * s)),
                                                   r.random((7 * s, 5 * s)))),
    ("insertion_sort", K.insertion_sort, lambda r, s: (r.random(20 * s),)),
    ("histogram_loop", K.histogram_loop, lambda r, s: (r.random(200 * s), 16, 0.0, 1.0)),
    ("covariance", K.covariance, lambda r, s: (8 * s, 12.0 * s, r.random((12 * s, 8 * s)))),
    ("heat_3d", K.heat_3d, lambda r, s: (4 * s, r.random((8 * s,) * 3), r.random((8 * s,) * 3))),
    ("conv2d_loops", K.conv2d_loops, lambda r, s: (r.random((10 * s, 10 * s)), r.random((3, 3)))),
    ("batchnorm_relu", K.batchnorm_relu,
     lambda r, s: _f32(r.random((32 * s, 16)), r.random(16), r.random(16))),
    ("attention", K.attention, lambda r, s: tuple(r.random((16 * s, 8)) for _ in range(3))),
    ("wave_1d", K.wave_1d, lambda r, s: (r.random(50 * s), r.random(50 * s), 0.1, 10 * s)),
    ("pairwise_distance", K.pairwise_distance, lambda r, s: (r.random((10 * s, 3)),)),
    ("lcs_length", K.lcs_length,
     lambda r, s: (r.integers(0, 4, 16 * s), r.integers(0, 4, 14 * s))),
    ("sieve", K.sieve, lambda r, s: (200 * s,)),
    ("moving_average", K.moving_average, lambda r, s: (r.random(300 * s), 8)),
    ("logistic_map", K.logistic_map, lambda r, s: (np.float32(3.7), 0.3, 100 * s)),
    ("power_iteration", K.power_iteration, lambda r, s: (r.random((20 * s, 20 * s)), 10)),
    ("conjugate_gradient", K.conjugate_gradient, lambda r, s: (_spd(r, 20 * s), r.random(20 * s), 8)),
    ("gramschmidt", K.gramschmidt, lambda r, s: (r.random((10 * s, 8 * s)) + np.eye(10 * s, 8 * s),)),
    ("fdtd_2d", K.fdtd_2d, lambda r, s: (5 * s, r.random((12 * s, 14 * s)), r.random((12 * s, 14 * s)),
                                         r.random((12 * s, 14 * s)), r.random(5 * s))),
    ("kmeans_assign", K.kmeans_assign, lambda r, s: (r.random((40 * s, 3)), r.random((5, 3)))),
    ("floyd_loops", K.floyd_loops, lambda r, s: (r.integers(1, 100, (10 * s, 10 * s)),)),
    ("knapsack", K.knapsack, lambda r, s: (r.integers(1, 10, 10 * s), r.random(10 * s), 20 * s)),
    ("needleman_wunsch", K.needleman_wunsch,
     lambda r, s: (r.integers(0, 4, 15 * s), r.integers(0, 4, 12 * s))),
    ("lennard_jones", K.lennard_jones, lambda r, s: (r.random((8 * s, 3)) * 4,)),
    ("spmv_csr", K.spmv_csr, lambda r, s: (*_csr(r, 30 * s), r.random(30 * s))),
    ("conv_net", K.conv_net, lambda r, s: (r.random((16 * s, 16 * s)), r.random((3, 3)),
                                           r.random((3, 3)))),
    ("layernorm_gelu", K.layernorm_gelu,
     lambda r, s: _f32(r.random((16 * s, 64)), r.random(64), r.random(64))),
    ("rmsprop", K.rmsprop, lambda r, s: (r.random(100 * s), r.random((10 * s, 100 * s)))),
    ("crc32", K.crc32, lambda r, s: (r.integers(0, 256, 40 * s, dtype=np.uint8),)),
    ("mandelbrot_grid", K.mandelbrot_grid,
     lambda r, s: (np.linspace(-2, 0.5, 8 * s), np.linspace(-1, 1, 6 * s), 30)),
    ("gauss_seidel", K.gauss_seidel, lambda r, s: (_spd(r, 12 * s), r.random(12 * s), 4)),
    ("syrk", P.syrk, lambda r, s: (1.5, 1.2, r.random((12 * s, 12 * s)), r.random((12 * s, 10 * s)))),
    ("syr2k", P.syr2k, lambda r, s: (1.5, 1.2, r.random((12 * s, 12 * s)),
                                     r.random((12 * s, 10 * s)), r.random((12 * s, 10 * s)))),
    ("symm", P.symm, lambda r, s: (1.5, 1.2, r.random((10 * s, 12 * s)), r.random((10 * s, 10 * s)),
                                   r.random((10 * s, 12 * s)))),
    ("trmm", P.trmm, lambda r, s: (1.5, r.random((10 * s, 10 * s)), r.random((10 * s, 12 * s)))),
    ("doitgen", P.doitgen, lambda r, s: (5 * s, 6, 7, r.random((5 * s, 6, 7)), r.random((7, 7)))),
    ("mvt_loops", P.mvt_loops, lambda r, s: tuple(r.random(12 * s) for _ in range(4))
     + (r.random((12 * s, 12 * s)),)),
    ("bicg_loops", P.bicg_loops, lambda r, s: (r.random((12 * s, 10 * s)), r.random(10 * s),
                                               r.random(12 * s))),
    ("durbin", P.durbin, lambda r, s: (r.random(20 * s) / (20 * s),)),
    ("ludcmp", P.ludcmp, lambda r, s: (_spd(r, 12 * s), r.random(12 * s))),
    ("correlation", P.correlation, lambda r, s: (8 * s, 12.0 * s, r.random((12 * s, 8 * s)))),
    ("nussinov", P.nussinov, lambda r, s: (10 * s, r.integers(0, 4, 10 * s).astype(np.int32))),
    ("adi", P.adi, lambda r, s: (3, 8 * s, r.random((8 * s, 8 * s)))),
    ("deriche", P.deriche, lambda r, s: (0.25, r.random((10 * s, 12 * s)))),
    ("bubble_sort", P.bubble_sort, lambda r, s: (r.random(20 * s),)),
    ("selection_sort", P.selection_sort, lambda r, s: (r.random(20 * s),)),
    ("djb2", P.djb2, lambda r, s: (r.integers(0, 256, 40 * s, dtype=np.uint8),)),
    ("life_step", P.life_step, lambda r, s: ((r.random((8 * s, 9 * s)) < 0.4).astype(np.int64),)),
    ("life_roll", P.life_roll, lambda r, s: ((r.random((8 * s, 9 * s)) < 0.4).astype(np.int64), 4)),
    ("viterbi", P.viterbi, lambda r, s: (r.integers(0, 3, 12 * s), r.dirichlet(np.ones(4)),
                                         r.dirichlet(np.ones(4), 4), r.dirichlet(np.ones(3), 4))),
    ("levenshtein_bounded", P.levenshtein_bounded,
     lambda r, s: (r.integers(0, 4, 12 * s), r.integers(0, 4, 10 * s), 6 * s)),
    ("pic_push", P.pic_push, lambda r, s: (r.random(50 * s) * 8.0, r.random(50 * s) - 0.5,
                                           r.random(16) - 0.5, 0.5, 0.1, 8.0)),
    ("wave_2d", P.wave_2d, lambda r, s: (r.random((10 * s, 10 * s)), r.random((10 * s, 10 * s)),
                                         0.1, 5 * s)),
    ("softmax_loops", P.softmax_loops, lambda r, s: (r.random((6 * s, 10)),)),
    ("running_max", P.running_max, lambda r, s: (r.random(100 * s),)),
    ("bisect_roots", P.bisect_roots, lambda r, s: (r.random(10 * s) * 8.0, 0.0, 2.0, 1e-9)),
    ("azimint_naive", O.azimint_naive, lambda r, s: (r.random(400 * s), r.random(400 * s), 20)),
    ("azimint_hist", O.azimint_hist, lambda r, s: (r.random(400 * s), r.random(400 * s), 20)),
    ("cavity_flow", O.cavity_flow, lambda r, s: _cavity(r, s)),
    ("hdiff", O.hdiff, lambda r, s: (r.random((8 * s + 4, 8 * s + 4, 5)), np.zeros((8 * s, 8 * s, 5)),
                                     r.random((8 * s, 8 * s, 5)))),
    ("conv2d_bias", O.conv2d_bias, lambda r, s: _f32(r.random((2, 6 * s, 6 * s, 3)),
                                                     r.random((3, 3, 3, 4)), r.random(4))),
    ("lenet5", O.lenet5, lambda r, s: _lenet(r, s)),
    ("resnet_basicblock", O.resnet_basicblock,
     lambda r, s: _f32(r.random((2, 4 * s, 4 * s, 8)), r.random((1, 1, 8, 4)),
                       r.random((3, 3, 4, 4)), r.random((1, 1, 4, 8)))),
    ("k2mm", O.k2mm, lambda r, s: (1.5, 1.2, r.random((10 * s, 12 * s)), r.random((12 * s, 9 * s)),
                                   r.random((9 * s, 11 * s)), r.random((10 * s, 11 * s)))),
    ("k3mm", O.k3mm, lambda r, s: (r.random((10 * s, 12 * s)), r.random((12 * s, 9 * s)),
                                   r.random((9 * s, 11 * s)), r.random((11 * s, 8 * s)))),
    ("gemm", O.gemm, lambda r, s: (1.5, 1.2, r.random((10 * s, 11 * s)), r.random((10 * s, 12 * s)),
                                   r.random((12 * s, 11 * s)))),
    ("gesummv", O.gesummv, lambda r, s: (1.5, 1.2, r.random((30 * s, 30 * s)),
                                         r.random((30 * s, 30 * s)), r.random(30 * s))),
    ("bicg", O.bicg, lambda r, s: (r.random((30 * s, 25 * s)), r.random(25 * s), r.random(30 * s))),
    ("mvt", O.mvt, lambda r, s: tuple(r.random(30 * s) for _ in range(4)) + (r.random((30 * s, 30 * s)),)),
    ("spmv", O.spmv, lambda r, s: _csr_rows(r, 30 * s)),
    ("compute", O.compute, lambda r, s: (r.integers(0, 20, (30 * s, 30 * s)),
                                         r.integers(0, 20, (30 * s, 30 * s)), 4, 3, 9)),
    ("nbody", O.nbody, lambda r, s: _nbody(r, s)),
    ("cholesky2", O.cholesky2, lambda r, s: (_spd(r, 12 * s),)),
    ("dft", O.dft, lambda r, s: (r.random(16 * s),)),
    ("rk4_oscillator", O.rk4_oscillator, lambda r, s: (np.array([1.0, 0.0]), 0.0, 10.0, 100 * s, 2.0)),
    ("kmeans", O.kmeans, lambda r, s: (r.random((60 * s, 2)), r.random((4, 2)), 5)),
    ("logistic_regression", O.logistic_regression,
     lambda r, s: (r.standard_normal((50 * s, 4)), (r.random(50 * s) < 0.5).astype(np.float64), 0.1, 20)),
    ("monte_carlo_pi", O.monte_carlo_pi, lambda r, s: (r.random((1000 * s, 2)),)),
    ("bincount_cumsum", O.bincount_cumsum,
     lambda r, s: (r.integers(0, 10, 200 * s), r.random(200 * s), 12)),
    ("convolve_1d", O.convolve_1d, lambda r, s: (r.random(200 * s), r.random(7))),
    ("convolve_loops", O.convolve_loops, lambda r, s: (r.random(200 * s), r.random(7))),
    ("sor", O.sor, lambda r, s: (r.random((10 * s, 10 * s)), r.random((10 * s, 10 * s)), 0.1, 1.5, 3)),
    ("thomas", O.thomas, lambda r, s: _tridiagonal(r, 50 * s)),
    ("polyval_horner", O.polyval_horner, lambda r, s: (r.random(8), r.random(500 * s))),
    ("pic_deposit", O.pic_deposit, lambda r, s: (r.random(200 * s) * 16.0, r.random(200 * s), 16, 1.0)),
    ("box_blur", O.box_blur, lambda r, s: (r.random((16 * s, 16 * s)), 3)),
    ("maxpool_reshape", O.maxpool_reshape, lambda r, s: (r.random((3, 8 * s, 8 * s)),)),
    ("logsumexp_softmax", O.logsumexp_softmax, lambda r, s: (r.random((10 * s, 16)),)),
    ("einsum_contract", O.einsum_contract, lambda r, s: (r.random((8 * s, 8 * s)), r.random((8 * s, 6)),
                                                         r.random((3, 5, 8 * s)))),
    ("distance_matrix", O.distance_matrix, lambda r, s: (r.random((20 * s, 3)), r.random((15 * s, 3)))),
    ("where_heavy", O.where_heavy, lambda r, s: (r.random((20 * s, 20 * s)), r.random((20 * s, 20 * s)))),
    ("mandel_real", S.mandel_real, lambda r, s: (16 * s, 12 * s, 40)),
    ("julia", S.julia, lambda r, s: (np.linspace(-1.5, 1.5, 16 * s), np.linspace(-1, 1, 12 * s),
                                     -0.8, 0.156, 60)),
    ("edit_distance_dp", S.edit_distance_dp,
     lambda r, s: (r.integers(0, 4, 12 * s), r.integers(0, 4, 10 * s))),
    ("lcs_table", S.lcs_table, lambda r, s: (r.integers(0, 4, 16 * s), r.integers(0, 4, 14 * s))),
    ("knapsack_01", S.knapsack_01, lambda r, s: (r.integers(1, 10, 10 * s), r.random(10 * s), 20 * s)),
    ("longest_increasing", S.longest_increasing, lambda r, s: (r.random(30 * s),)),
    ("coin_change", S.coin_change, lambda r, s: (np.array([3, 7, 11]), 40 * s)),
    ("gcd_pairs", S.gcd_pairs, lambda r, s: (r.integers(1, 10**6, 50 * s), r.integers(1, 10**6, 50 * s))),
    ("collatz_lengths", S.collatz_lengths, lambda r, s: (60 * s,)),
    ("primes_by_trial", S.primes_by_trial, lambda r, s: (200 * s,)),
    ("modpow_all", S.modpow_all, lambda r, s: (r.integers(2, 10**4, 50 * s), 65537, 1000003)),
    ("newton_sqrt", S.newton_sqrt, lambda r, s: (r.random(50 * s) * 100.0, 1e-12, 60)),
    ("bisection_cubic", S.bisection_cubic, lambda r, s: (r.random(30 * s) * 20.0, 1e-10, 100)),
    ("secant_kepler", S.secant_kepler, lambda r, s: (r.random(40 * s) * 6.0, 0.3, 1e-12)),
    ("simpson_gauss", S.simpson_gauss, lambda r, s: (r.random(10 * s) * 3.0, 20 * s)),
    ("random_walk", S.random_walk, lambda r, s: (r.random(300 * s), 0)),
    ("particles_bounce", S.particles_bounce,
     lambda r, s: (r.random(20 * s) * 10.0, r.standard_normal(20 * s), 0.1, 5 * s, 10.0)),
    ("bubble_sort_early", S.bubble_sort_early, lambda r, s: (r.random(20 * s),)),
    ("shell_sort", S.shell_sort, lambda r, s: (r.random(40 * s),)),
    ("running_extrema", S.running_extrema,
     lambda r, s: (np.where(r.random(100 * s) < 0.1, np.nan, r.random(100 * s)), 0.98)),
    ("polar_features", S.polar_features, lambda r, s: (r.standard_normal(50 * s), r.standard_normal(50 * s))),
    ("clamp_scores", S.clamp_scores, lambda r, s: (r.standard_normal(100 * s), -1.0, 1.5)),
    ("digit_sums", S.digit_sums, lambda r, s: (r.random(50 * s) * 1e6,)),
    ("first_above", S.first_above, lambda r, s: (r.random(100 * s), 0.97)),
    ("back_substitution", S.back_substitution,
     lambda r, s: (np.triu(r.random((12 * s, 12 * s))) + 12 * s * np.eye(12 * s), r.random(12 * s))),
    ("pair_energy", S.pair_energy, lambda r, s: (r.random((20 * s, 2)) * 5.0, 2.5)),
    ("fib_mod", S.fib_mod, lambda r, s: (100 * s, 1000)),
    ("sign_runs", S.sign_runs, lambda r, s: (r.standard_normal(100 * s),)),
    ("fill_gaps", S.fill_gaps, lambda r, s: (np.where(r.random(100 * s) < 0.3, 0.0, r.random(100 * s)), 0.5)),
    ("newton_helpers", S.newton_helpers, lambda r, s: (r.random(30 * s) * 3 + 1.5, 1e-12)),
    ("rmse_zip", S.rmse_zip, lambda r, s: (r.random(100 * s), r.random(100 * s))),
    ("weighted_positions", S.weighted_positions, lambda r, s: (r.random(100 * s),)),
    ("round_histogram", S.round_histogram, lambda r, s: (r.random(200 * s), 11)),
    ("base7_checksum", S.base7_checksum, lambda r, s: (r.random(50 * s) * 1e9,)),
    ("lu_outer", Wn.lu_outer, lambda r, s: (_spd(r, 16 * s),)),
    ("conv2d_window", Wn.conv2d_window, lambda r, s: (r.random((16 * s, 16 * s)), r.random((3, 3)))),
    ("conv2d_channels", Wn.conv2d_channels,
     lambda r, s: (r.random((3, 16 * s, 16 * s)), r.random((3, 3, 3)))),
    ("maxpool_channels", Wn.maxpool_channels, lambda r, s: (r.random((3, 16 * s, 16 * s)),)),
    ("cholesky_rows", Wn.cholesky_rows, lambda r, s: (_spd(r, 16 * s),)),
    ("gauss_solve", Wn.gauss_solve, lambda r, s: (_spd(r, 16 * s), r.random(16 * s))),
    ("gram_schmidt", Wn.gram_schmidt, lambda r, s: (r.random((16 * s, 12 * s)) + np.eye(16 * s, 12 * s),)),
    ("householder_qr", Wn.householder_qr, lambda r, s: (r.random((16 * s, 12 * s)),)),
    ("forward_solve", Wn.forward_solve, lambda r, s: (_lower(r, 16 * s), r.random(16 * s))),
    ("back_solve", Wn.back_solve, lambda r, s: (_lower(r, 16 * s).T.copy(), r.random(16 * s))),
    ("spmv_slices", Wn.spmv_slices, lambda r, s: (*_csr(r, 30 * s), r.random(30 * s))),
    ("conv2d_im2col", Wn.conv2d_im2col,
     lambda r, s: (r.random((3, 10 * s, 10 * s)), r.random((8, 3, 3, 3)), r.random(8))),
    ("solve_affine", L.solve_affine, lambda r, s: (_spd(r, 8 * s), r.random(8 * s))),
    ("inv_times_det", L.inv_times_det, lambda r, s: (_spd(r, 4 * s) / (4 * s),)),
    ("ridge_regression", L.ridge_regression,
     lambda r, s: (r.standard_normal((40 * s, 5 * s)), r.standard_normal(40 * s), 0.5)),
    ("mvn_logpdf", L.mvn_logpdf,
     lambda r, s: (r.standard_normal((50 * s, 4)), r.random(4), _spd(r, 4))),
    ("kalman_step", L.kalman_step, _kalman),
    ("gp_posterior_mean", L.gp_posterior_mean,
     lambda r, s: (r.random((20 * s, 2)), r.random(20 * s), r.random((30 * s, 2)), 0.5, 0.1)),
    ("polyfit_lstsq", L.polyfit_lstsq, lambda r, s: (r.random(40 * s), r.random(40 * s))),
    ("pca_eigh", L.pca_eigh, lambda r, s: (r.standard_normal((60 * s, 6)), 2)),
    ("low_rank_approx", L.low_rank_approx, lambda r, s: (r.random((30 * s, 12)), 3)),
    ("batched_small_solves", L.batched_small_solves,
     lambda r, s: (r.random((100 * s, 3, 3)) + 3 * np.eye(3), r.random((100 * s, 3)))),
    ("sobel", Im.sobel, lambda r, s: (r.random((16 * s, 16 * s)),)),
    ("gaussian_blur", Im.gaussian_blur, lambda r, s: (r.random((16 * s, 16 * s)), 1.2)),
    ("bilinear_resize", Im.bilinear_resize, lambda r, s: (r.random((12 * s, 10 * s)), 20 * s, 17 * s)),
    ("equalize_histogram", Im.equalize_histogram,
     lambda r, s: (r.integers(40, 200, (16 * s, 16 * s)).astype(np.uint8),)),
    ("median3x3", Im.median3x3, lambda r, s: (r.random((12 * s, 12 * s)),)),
    ("integral_image", Im.integral_image, lambda r, s: (r.random((16 * s, 16 * s)),)),
    ("box_sums", Im.box_sums, lambda r, s: (Im.integral_image(r.random((16 * s, 16 * s))), 2)),
    ("erode", Im.erode, lambda r, s: ((r.random((12 * s, 12 * s)) < 0.8).astype(np.int64), 2)),
    ("dilate", Im.dilate, lambda r, s: (r.random((12 * s, 12 * s)), 3)),
    ("fir_filter", Im.fir_filter, lambda r, s: (r.standard_normal(300 * s), r.random(15))),
    ("biquad", Im.biquad, lambda r, s: (r.standard_normal(500 * s), 0.2, 0.4, 0.2, -0.5, 0.3)),
    ("goertzel", Im.goertzel, lambda r, s: (r.standard_normal(200 * s), np.array([3, 7, 11, 20]))),
    ("autocorrelation", Im.autocorrelation, lambda r, s: (r.standard_normal(300 * s), 20)),
    ("cross_correlation", Im.cross_correlation,
     lambda r, s: (r.standard_normal(100 * s), r.standard_normal(100 * s), 10)),
    ("zero_crossings", Im.zero_crossings, lambda r, s: (r.standard_normal(500 * s),)),
    ("envelope", Im.envelope, lambda r, s: (r.standard_normal(500 * s), 0.5, 0.99)),
    ("resample_linear", Im.resample_linear, lambda r, s: (r.standard_normal(200 * s), 3)),
    ("resample_interp", Im.resample_interp,
     lambda r, s: (np.linspace(0.0, 1.0, 200 * s), r.standard_normal(200 * s), 700.0 * s)),
    ("black_scholes", Fi.black_scholes,
     lambda r, s: (r.random(200 * s) * 50 + 50, r.random(200 * s) * 50 + 50, r.random(200 * s) + 0.1,
                   0.03, r.random(200 * s) * 0.4 + 0.1)),
    ("binomial_option", Fi.binomial_option, lambda r, s: (100.0, 95.0, 1.0, 0.03, 0.2, 100 * s)),
    ("american_put", Fi.american_put, lambda r, s: (100.0, 105.0, 1.0, 0.03, 0.2, 40 * s)),
    ("ewma", Fi.ewma, lambda r, s: (r.standard_normal(500 * s), 0.1)),
    ("max_drawdown", Fi.max_drawdown, lambda r, s: (np.exp(np.cumsum(0.01 * r.standard_normal(500 * s))),)),
    ("rolling_volatility", Fi.rolling_volatility,
     lambda r, s: (np.exp(np.cumsum(0.01 * r.standard_normal(200 * s))), 20)),
    ("monte_carlo_paths", Fi.monte_carlo_paths,
     lambda r, s: (100.0, 0.05, 0.2, 1 / 252, r.standard_normal((100 * s, 50)))),
    ("welford", Fi.welford, lambda r, s: (r.standard_normal(500 * s) + 3.0,)),
    ("ranks", Fi.ranks, lambda r, s: (r.random(300 * s),)),
    ("quantiles", Fi.quantiles, lambda r, s: (r.standard_normal(300 * s), np.linspace(0.0, 1.0, 11))),
    ("bootstrap_means", Fi.bootstrap_means,
     lambda r, s: (r.standard_normal(100 * s), r.integers(0, 100 * s, (50 * s, 100 * s)))),
    ("histogram2d_loop", Fi.histogram2d_loop,
     lambda r, s: (r.standard_normal(300 * s), r.standard_normal(300 * s), 8, 6)),
    ("bfs_distances", Fi.bfs_distances, lambda r, s: (r.random((20 * s, 20 * s)) < 0.1, 0)),
    ("dijkstra_dense", Fi.dijkstra_dense,
     lambda r, s: (r.random((20 * s, 20 * s)) * (r.random((20 * s, 20 * s)) < 0.3), 0)),
    ("pagerank", Fi.pagerank, lambda r, s: ((r.random((30 * s, 30 * s)) < 0.1).astype(np.float64), 0.85, 50)),
    ("connected_components", Fi.connected_components,
     lambda r, s: (r.random((20 * s, 20 * s)) < 0.03,)),
    ("transitive_closure", Fi.transitive_closure, lambda r, s: (r.random((16 * s, 16 * s)) < 0.05,)),
    ("widest_path", Fi.widest_path, lambda r, s: (r.random((10 * s, 10 * s)),)),
    ("point_in_polygon", Sc.point_in_polygon,
     lambda r, s: (r.random(100 * s) * 2 - 1, r.random(100 * s) * 2 - 1,
                   np.column_stack([np.cos(np.linspace(0, 6, 9)), np.sin(np.linspace(0, 6, 9))]))),
    ("shoelace_area", Sc.shoelace_area,
     lambda r, s: (np.cos(np.linspace(0, 6, 100 * s)), np.sin(np.linspace(0, 6, 100 * s)))),
    ("convex_hull", Sc.convex_hull, lambda r, s: (r.random((50 * s, 2)),)),
    ("nearest_neighbour", Sc.nearest_neighbour, lambda r, s: (r.random((30 * s, 3)), r.random((40 * s, 3)))),
    ("run_length_encode", Sc.run_length_encode,
     lambda r, s: (np.repeat(r.integers(0, 4, 50 * s), r.integers(1, 5, 50 * s)).astype(np.uint8),)),
    ("adler32", Sc.adler32, lambda r, s: (r.integers(0, 256, 300 * s, dtype=np.uint8),)),
    ("fletcher16", Sc.fletcher16, lambda r, s: (r.integers(0, 256, 300 * s, dtype=np.uint8),)),
    ("popcount_total", Sc.popcount_total, lambda r, s: (r.integers(0, 2**31, 100 * s),)),
    ("knn_predict", Sc.knn_predict,
     lambda r, s: (r.random((60 * s, 3)), r.integers(0, 3, 60 * s), r.random((20 * s, 3)), 5, 3)),
    ("perceptron", Sc.perceptron,
     lambda r, s: (r.standard_normal((50 * s, 4)), np.where(r.random(50 * s) < 0.5, -1.0, 1.0), 10, 0.1)),
    ("sgd_regression", Sc.sgd_regression,
     lambda r, s: (r.standard_normal((50 * s, 4)), r.standard_normal(50 * s), 0.01, 5)),
    ("gmm_e_step", Sc.gmm_e_step,
     lambda r, s: (r.standard_normal(100 * s), np.array([-1.0, 0.0, 1.5]), np.array([0.5, 1.0, 0.8]),
                   np.array([0.3, 0.4, 0.3]))),
    ("gaussian_naive_bayes", Sc.gaussian_naive_bayes,
     lambda r, s: (r.standard_normal((60 * s, 4)), np.arange(60 * s) % 3, r.standard_normal((20 * s, 4)), 3)),
    ("sph_density", Sc.sph_density, lambda r, s: (r.random((20 * s, 3)), 0.3, 0.01)),
    ("ising_metropolis", Sc.ising_metropolis,
     lambda r, s: (np.where(r.random((10 * s + 2,) * 2) < 0.5, -1, 1), r.random((3, 10 * s + 2, 10 * s + 2)),
                   0.4)),
    ("velocity_verlet", Sc.velocity_verlet,
     lambda r, s: (r.standard_normal(30 * s) * 0.1, np.zeros(30 * s), 1.0, 0.05, 20 * s)),
    ("implicit_heat", Sc.implicit_heat, lambda r, s: (r.random(50 * s), 0.5, 10 * s)),
    ("romberg", Sc.romberg, lambda r, s: (0.0, 2.0, 4 + s)),
    ("lu_pivot", Sc.lu_pivot, lambda r, s: (r.standard_normal((8 * s, 8 * s)),)),
    ("givens_qr", Sc.givens_qr, lambda r, s: (r.standard_normal((8 * s, 6 * s)),)),
    ("jacobi_eigenvalues", Sc.jacobi_eigenvalues, lambda r, s: (_spd(r, 6 * s), 10)),
    ("horner_2d", Sc.horner_2d, lambda r, s: (r.random((4, 5)), r.random(100 * s), r.random(100 * s))),
    ("projectile_drag", Sm.projectile_drag, lambda r, s: (r.random(3) * 10, 0.01, 0.01, 200 * s)),
    ("rotate_points", Sm.rotate_points, lambda r, s: (r.standard_normal((200 * s, 2)), 0.3)),
    ("kalman_track", Sm.kalman_track, lambda r, s: (np.cumsum(r.standard_normal(200 * s)), 0.01, 1.0)),
    ("quaternion_integrate", Sm.quaternion_integrate, lambda r, s: (r.standard_normal((200 * s, 3)), 0.01)),
    ("color_balance", Sm.color_balance, lambda r, s: (r.random((6 * s, 8 * s, 3)), np.array([1.2, 1.0, 0.8]))),
    ("burgers_1d", Pd.burgers_1d, lambda r, s: (np.sin(np.linspace(0, 2 * np.pi, 100 * s)) + 1.5, 0.07,
                                                 0.001, 2 * np.pi / (100 * s - 1), 20 * s)),
    ("upwind_advection", Pd.upwind_advection,
     lambda r, s: (np.exp(-((np.linspace(0, 1, 80 * s) - 0.3) / 0.05) ** 2), 1.0, 0.005, 1 / (80 * s), 10 * s)),
    ("lax_wendroff", Pd.lax_wendroff, lambda r, s: (r.random(200 * s), 0.5, 20 * s)),
    ("shallow_water_1d", Pd.shallow_water_1d,
     lambda r, s: (1.0 + 0.1 * r.random(100 * s), 0.01 * r.standard_normal(100 * s), 9.81, 0.001, 0.05, 10 * s)),
    ("poisson_redblack", Pd.poisson_redblack, lambda r, s: (r.random((10 * s, 10 * s)), 0.1, 1.5, 4)),
    ("restrict_full_weighting", Pd.restrict_full_weighting, lambda r, s: (r.random((16 * s + 1, 16 * s + 1)),)),
    ("two_grid_correction", Pd.two_grid_correction,
     lambda r, s: (r.random((16 * s + 1, 16 * s + 1)), r.random((16 * s + 1, 16 * s + 1)), 0.1)),
    ("natural_cubic_spline", Pd.natural_cubic_spline,
     lambda r, s: (np.cumsum(r.random(20 * s) + 0.1), r.standard_normal(20 * s), r.random(50 * s) * 2 * s)),
    ("lagrange_interp", Pd.lagrange_interp,
     lambda r, s: (np.linspace(-1, 1, 8), r.standard_normal(8), r.random(40 * s) * 2 - 1)),
    ("barycentric_interp", Pd.barycentric_interp,
     lambda r, s: (np.cos(np.pi * np.arange(12) / 11), r.standard_normal(12), r.random(40 * s) * 2 - 1)),
    ("expm_taylor", Pd.expm_taylor, lambda r, s: (r.standard_normal((4 * s, 4 * s)),)),
    ("rk45_adaptive", Pd.rk45_adaptive, lambda r, s: (np.array([10.0, 5.0]), 2.0 * s, 1e-6, 0.01)),
    ("newton_2d", Pd.newton_2d, lambda r, s: (1.0, -1.5, 20 * s, 1e-14)),
    ("gauss_legendre", Pd.gauss_legendre,
     lambda r, s: (np.linspace(-2, 2, 20 * s + 1)[:-1], np.linspace(-2, 2, 20 * s + 1)[1:], 8)),
    ("clenshaw_curtis", Pd.clenshaw_curtis, lambda r, s: (16 * s, 0.0, 3.0)),
    ("dtw_distance", Ts.dtw_distance, lambda r, s: (r.standard_normal(15 * s), r.standard_normal(12 * s))),
    ("holt_winters", Ts.holt_winters, _seasonal),
    ("ar_filter", Ts.ar_filter, lambda r, s: (r.standard_normal(200 * s), np.array([0.5, -0.2, 0.1]))),
    ("hampel_filter", Ts.hampel_filter,
     lambda r, s: (r.standard_normal(60 * s) + 5.0 * (r.random(60 * s) < 0.05), 3, 3.0)),
    ("rolling_median_sort", Ts.rolling_median_sort, lambda r, s: (r.standard_normal(80 * s), 7)),
    ("kde_gaussian", Ts.kde_gaussian,
     lambda r, s: (r.standard_normal(100 * s), np.linspace(-4, 4, 50 * s), 0.3)),
    ("mann_whitney_u", Ts.mann_whitney_u,
     lambda r, s: (r.standard_normal(40 * s), r.standard_normal(30 * s) + 0.5)),
    ("pearson_matrix", Ts.pearson_matrix, lambda r, s: (r.standard_normal((50 * s, 6)),)),
    ("permutation_test", Ts.permutation_test,
     lambda r, s: (r.standard_normal(20 * s), r.standard_normal(15 * s) + 0.3,
                   np.array([r.permutation(35 * s) for _ in range(30 * s)]))),
    ("gd_backtracking", Ts.gd_backtracking, lambda r, s: (_spd(r, 6 * s) / (6 * s), r.random(6 * s),
                                                          np.zeros(6 * s), 10 * s)),
    ("nelder_mead", Ts.nelder_mead, lambda r, s: (np.array([-1.2, 1.0]), 0.1, 40 * s)),
    ("lbfgs_direction", Ts.lbfgs_direction, _lbfgs),
    ("lasso_cd", Ts.lasso_cd, lambda r, s: (r.standard_normal((30 * s, 8)), r.standard_normal(30 * s),
                                            0.1, 5 * s)),
]
CASES += TOPIC_CASES
CASES += FIELD_CASES


def _csr_data(rng, s):
    n = 12 * s
    dense = rng.random((n, n)) * (rng.random((n, n)) < 0.2)
    indptr = np.concatenate([[0], np.cumsum((dense != 0).sum(axis=1))]).astype(np.int64)
    indices = np.nonzero(dense)[1].astype(np.int64)
    return indptr, indices, dense[dense != 0]


def _with_nans(rng, shape, frac=0.3):
    x = rng.standard_normal(shape)
    x[rng.random(shape) < frac] = np.nan
    return x


def _sorted_keys(rng, n, hi):
    keys = np.unique(rng.integers(0, hi, n))
    return keys, rng.random(len(keys))


def _labels(rng, n, frac=0.4):
    y = (rng.random(n) < frac).astype(np.int64)
    y[:2] = [0, 1]
    return y, rng.random(n) + 0.3 * y


def _text(rng, n):
    words = [b"alpha", b"be", b"gamma", b"x", b"numpy", b"data"]
    return b" ".join(words[i] for i in rng.integers(0, len(words), n))


CASES += [
    ("group_mean_argsort", Da.group_mean_argsort,
     lambda r, s: (r.integers(0, 10, 200 * s), r.standard_normal(200 * s))),
    ("group_stats_unique", Da.group_stats_unique,
     lambda r, s: (r.integers(-5, 5, 200 * s).astype(np.int32), r.standard_normal(200 * s))),
    ("group_max_loop", Da.group_max_loop,
     lambda r, s: (r.integers(0, 8, 200 * s), r.standard_normal(200 * s), 8)),
    ("group_first_last", Da.group_first_last,
     lambda r, s: (r.integers(0, 20, 150 * s), r.random(150 * s).astype(np.float32))),
    ("rolling_mean_std", Da.rolling_mean_std, lambda r, s: (r.standard_normal(200 * s), 10)),
    ("rolling_sum_cumsum", Da.rolling_sum_cumsum, lambda r, s: (r.standard_normal(200 * s), 7)),
    ("expanding_zscore", Da.expanding_zscore, lambda r, s: (r.standard_normal(200 * s),)),
    ("rolling_max_deque", Da.rolling_max_deque, lambda r, s: (r.standard_normal(200 * s), 9)),
    ("resample_to_bins", Da.resample_to_bins,
     lambda r, s: (np.sort(r.random(200 * s)) * 10, r.standard_normal(200 * s), 30 * s)),
    ("ffill_nan", Da.ffill_nan, lambda r, s: (_with_nans(r, 200 * s),)),
    ("ffill_vectorized", Da.ffill_vectorized, lambda r, s: (_with_nans(r, 200 * s),)),
    ("bfill_2d", Da.bfill_2d, lambda r, s: (_with_nans(r, (30 * s, 4)),)),
    ("zscore_clip", Da.zscore_clip, lambda r, s: (_with_nans(r, (50 * s, 5), 0.1) * 3, 2.5)),
    ("rank_average_ties", Da.rank_average_ties, lambda r, s: (r.integers(0, 30, 100 * s).astype(np.float64),)),
    ("dense_rank_columns", Da.dense_rank_columns, lambda r, s: (r.integers(0, 9, (50 * s, 3)),)),
    ("dedupe_keep_first", Da.dedupe_keep_first,
     lambda r, s: (r.integers(0, 40, 100 * s), r.random(100 * s))),
    ("dedupe_sorted_loop", Da.dedupe_sorted_loop, lambda r, s: (r.integers(0, 50, 100 * s),)),
    ("merge_join_sorted", Da.merge_join_sorted,
     lambda r, s: (*_sorted_keys(r, 60 * s, 100 * s), *_sorted_keys(r, 60 * s, 100 * s))),
    ("asof_join", Da.asof_join,
     lambda r, s: (np.sort(r.random(80 * s)), np.sort(r.random(50 * s)), r.standard_normal(50 * s))),
    ("pivot_table_sum", Da.pivot_table_sum,
     lambda r, s: (r.integers(0, 6, 300 * s), r.integers(0, 4, 300 * s), r.random(300 * s), 6, 4)),
    ("cumcount_by_group", Da.cumcount_by_group, lambda r, s: (r.integers(0, 7, 100 * s),)),
    ("coo_to_csr_counts", Da.coo_to_csr_counts,
     lambda r, s: (r.integers(0, 10 * s, 50 * s), r.integers(0, 10 * s, 50 * s),
                   r.random(50 * s).astype(np.float32), 10 * s)),
    ("csr_matvec", Da.csr_matvec, lambda r, s: (*_csr_data(r, s), r.random(12 * s))),
    ("csr_matvec_reduceat", Da.csr_matvec_reduceat, lambda r, s: (*_csr_data(r, s), r.random(12 * s))),
    ("csr_transpose_scan", Da.csr_transpose_scan, lambda r, s: (*_csr_data(r, s), 12 * s)),
    ("adler32_int_loop", Da.adler32, lambda r, s: (r.integers(0, 256, 300 * s, dtype=np.uint8),)),
    ("fletcher16_blocks", Da.fletcher16_blocks, lambda r, s: (r.integers(0, 256, 300 * s, dtype=np.uint8),)),
    ("rle_encode_bytes", Da.rle_encode_bytes,
     lambda r, s: (np.repeat(r.integers(0, 4, 60 * s, dtype=np.uint8), r.integers(1, 5, 60 * s)),)),
    ("delta_encode_decode", Da.delta_encode_decode,
     lambda r, s: (np.cumsum(r.integers(-3, 4, 200 * s)).astype(np.int32),)),
    ("pack_bits_manual", Da.pack_bits_manual, lambda r, s: (r.random(64 * s) < 0.5,)),
    ("pack_nibbles", Da.pack_nibbles, lambda r, s: (r.integers(0, 256, 100 * s, dtype=np.uint8),)),
    ("base64_encode_bytes", Da.base64_encode_bytes, lambda r, s: (_text(r, 30 * s),)),
    ("byte_histogram_entropy", Da.byte_histogram_entropy, lambda r, s: (_text(r, 40 * s),)),
    ("word_lengths_ascii", Da.word_lengths_ascii,
     lambda r, s: (np.frombuffer(_text(r, 30 * s), dtype=np.uint8),)),
    ("to_upper_ascii", Da.to_upper_ascii,
     lambda r, s: (np.frombuffer(_text(r, 30 * s), dtype=np.uint8).copy(),)),
    ("random_walk_2d", Da.random_walk_2d, lambda r, s: (np.random.default_rng(7), 300 * s)),
    ("monte_carlo_pi_generator", Da.monte_carlo_pi, lambda r, s: (np.random.default_rng(8), 1000 * s)),
    ("gamblers_ruin", Da.gamblers_ruin, lambda r, s: (np.random.default_rng(9), 3, 8, 0.48, 20 * s)),
    ("queue_sim_generator", Da.queue_sim_generator,
     lambda r, s: (np.random.default_rng(10), 200 * s, 1.0, 1.2)),
    ("bootstrap_mean_ci", Da.bootstrap_mean_ci,
     lambda r, s: (np.random.default_rng(11), r.standard_normal(50 * s), 100 * s)),
    ("gbm_paths", Da.gbm_paths,
     lambda r, s: (np.random.default_rng(12), 100.0, 0.05, 0.2, 1 / 252, 50 * s, 20)),
    ("roc_auc_rank", Da.roc_auc_rank, lambda r, s: _labels(r, 200 * s)),
    ("roc_curve_trapz", Da.roc_curve_trapz, lambda r, s: _labels(r, 200 * s)),
    ("confusion_matrix_np", Da.confusion_matrix_np,
     lambda r, s: (r.integers(0, 4, 200 * s), r.integers(0, 4, 200 * s), 4)),
    ("precision_recall_f1", Da.precision_recall_f1, lambda r, s: (r.integers(0, 30, (4, 4)),)),
    ("precision_recall_at_k", Da.precision_recall_at_k,
     lambda r, s: (r.random((10 * s, 40)), r.random((10 * s, 40)) < 0.2, 5)),
    ("ndcg_at_k", Da.ndcg_at_k,
     lambda r, s: (r.integers(0, 4, (10 * s, 30)).astype(np.float64), r.random((10 * s, 30)), 10)),
    ("log_loss_binary", Da.log_loss_binary, lambda r, s: (r.integers(0, 2, 200 * s), r.random(200 * s))),
    ("average_precision", Da.average_precision, lambda r, s: _labels(r, 200 * s)),
]
CASES += RENDER_CASES
CASES += SIM_CASES
CASES += QUEUE_CASES


CASES += TEXTBOOK_CASES


CASES += PUZZLE_CASES
CASES += PORTED_CASES
CASES += LAB_CASES
CASES += LOOPS2_CASES


CASES += ASSIGNMENT_CASES
CASES += CONTAINER_CASES
CASES += STRANGER15_CASES
CASES += STRANGER16_CASES
CASES += STRANGER17_CASES
CASES += DICT_CASES
