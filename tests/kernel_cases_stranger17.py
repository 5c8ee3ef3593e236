"""Inputs for the kernels of `user_kernels_stranger17.py`: (name, function, make inputs(rng,
scale))."""

from __future__ import annotations

import numpy as np
import user_kernels_stranger17 as Sz


def _sos(r):
    rows = []
    for _ in range(3):
        p1, p2 = 0.3 + 0.5 * r.random(2)
        rows.append([1.0, 2.0 * r.random() - 1.0, r.random(), 1.0, -(p1 + p2), p1 * p2])
    return np.array(rows)


def _blobs(r, s):
    return (r.random((12 * s, 14)) < 0.45,)


def _smooth(r, h, w):
    a = r.random((h, w))
    return 0.25 * (a + np.roll(a, 1, 0) + np.roll(a, 1, 1) + np.roll(a, (1, 1), (0, 1)))


def _vwap(r, s):
    n = 120 * s
    ses = r.random(n) < 0.05
    ses[0] = True
    return 100 + np.cumsum(r.standard_normal(n)), r.random(n) * 10 + 1, ses


def _logit(r, s):
    n, d = 60 * s, 4
    X = r.standard_normal((n, d))
    p = 1 / (1 + np.exp(-(X @ np.array([0.5, -1.0, 0.3, 0.8]))))
    return X, (r.random(n) < p).astype(np.float64), 6


def _segs(r, s):
    m = 12 * s
    a = r.random((m, 2)) * 10
    return (np.concatenate([a, a + 0.6 * r.standard_normal((m, 2))], axis=1),)


def _star(r, s):
    k = 9
    ang = np.sort(r.random(k)) * 2 * np.pi
    rad = 1.0 + r.random(k)
    return (rad * np.cos(ang), rad * np.sin(ang))


STRANGER17_CASES = [
    ("biquad_cascade_df2t", Sz.biquad_cascade_df2t,
     lambda r, s: (r.standard_normal(100 * s), _sos(r))),
    ("convolve_correlate_modes", Sz.convolve_correlate_modes,
     lambda r, s: (r.standard_normal(80 * s), r.standard_normal(9))),
    ("polyphase_decimate", Sz.polyphase_decimate,
     lambda r, s: (r.standard_normal(200 * s), r.standard_normal(11) / 11, 3)),
    ("levinson_durbin_lpc", Sz.levinson_durbin_lpc,
     lambda r, s: (np.cumsum(r.standard_normal(150 * s)) * 0.1 + r.standard_normal(150 * s), 6)),
    ("zero_crossing_frames", Sz.zero_crossing_frames,
     lambda r, s: (r.standard_normal(256 * s), 32, 16)),
    ("envelope_peak_hold", Sz.envelope_peak_hold,
     lambda r, s: (r.standard_normal(200 * s), 0.6, 0.95, 5)),
    ("morph_open_3x3", Sz.morph_open_3x3, lambda r, s: (r.random((12 * s, 15)),)),
    ("label_8conn_halving", Sz.label_8conn_halving, _blobs),
    ("canny_gradient_sectors", Sz.canny_gradient_sectors,
     lambda r, s: (_smooth(r, 12 * s, 14),)),
    ("hysteresis_tuple_stack", Sz.hysteresis_tuple_stack,
     lambda r, s: (r.random((10 * s, 12)), 0.5, 0.9)),
    ("bilinear_resize_loops", Sz.bilinear_resize_loops,
     lambda r, s: (r.random((7 * s, 9)), 11 * s, 6)),
    ("integral_image_local_mean", Sz.integral_image_local_mean,
     lambda r, s: (r.random((10 * s, 12)), 2)),
    ("histogram_equalize_float", Sz.histogram_equalize_float,
     lambda r, s: (r.random((12 * s, 10)) ** 2, 16)),
    ("welford_rows_helper", Sz.welford_rows_helper,
     lambda r, s: (r.standard_normal((40 * s, 5)) * 3 + 2,)),
    ("bootstrap_median_ci", Sz.bootstrap_median_ci,
     lambda r, s: (r.standard_normal(30), r.integers(0, 30, (20 * s, 30)), 0.1)),
    ("kde_silverman", Sz.kde_silverman,
     lambda r, s: (r.standard_normal(60 * s), np.linspace(-3, 3, 41))),
    ("kendall_tau_pairs", Sz.kendall_tau_pairs,
     lambda r, s: (r.standard_normal(25 * s), r.standard_normal(25 * s))),
    ("weighted_median_early", Sz.weighted_median_early,
     lambda r, s: (r.standard_normal(50 * s), r.random(50 * s))),
    ("quantiles_by_hand", Sz.quantiles_by_hand,
     lambda r, s: (r.standard_normal(70 * s), np.array([0.0, 0.1, 0.25, 0.5, 0.9, 1.0]))),
    ("american_put_binomial", Sz.american_put_binomial,
     lambda r, s: (100.0, 95.0 + 10 * r.random(), 0.03, 0.25, 1.0, 40 * s)),
    ("barrier_paths_given_normals", Sz.barrier_paths_given_normals,
     lambda r, s: (100.0, 0.05, 0.2, 1 / 52, r.standard_normal((50 * s, 26)), 130.0, 100.0)),
    ("ewma_covariance", Sz.ewma_covariance,
     lambda r, s: (0.01 * r.standard_normal((40 * s, 4)), 0.94)),
    ("drawdown_durations", Sz.drawdown_durations,
     lambda r, s: (100 * np.exp(np.cumsum(0.01 * r.standard_normal(150 * s))),)),
    ("vwap_session_resets", Sz.vwap_session_resets, _vwap),
    ("popcount_kernighan", Sz.popcount_kernighan,
     lambda r, s: (r.integers(0, 2 ** 40, 40 * s),)),
    ("stein_gcd_pairs", Sz.stein_gcd_pairs,
     lambda r, s: (r.integers(1, 10 ** 6, 30 * s), r.integers(1, 10 ** 6, 30 * s))),
    ("lcm_running_mod", Sz.lcm_running_mod,
     lambda r, s: (r.integers(1, 30, 25 * s), 1_000_003)),
    ("rle_by_diff", Sz.rle_by_diff, lambda r, s: (r.integers(0, 3, 60 * s),)),
    ("cumsum_resets_on_zero", Sz.cumsum_resets_on_zero,
     lambda r, s: (r.integers(0, 5, 80 * s),)),
    ("monotone_chain_area", Sz.monotone_chain_area, lambda r, s: (r.random((30 * s, 2)),)),
    ("winding_numbers", Sz.winding_numbers,
     lambda r, s: (r.random((25 * s, 2)) * 4 - 2, np.stack(_star(r, s), axis=1))),
    ("first_crossing_segments", Sz.first_crossing_segments, _segs),
    ("nearest_neighbour_loops", Sz.nearest_neighbour_loops,
     lambda r, s: (r.random((15 * s, 2)), r.random((20, 2)))),
    ("polygon_centroid_zip", Sz.polygon_centroid_zip, lambda r, s: _star(r, s)),
    ("newton_sqrt_while", Sz.newton_sqrt_while,
     lambda r, s: (r.random(50 * s) * 100 + 0.01, 1e-10, 60)),
    ("ridge_path_solve", Sz.ridge_path_solve,
     lambda r, s: (r.standard_normal((40 * s, 5)), r.standard_normal(40 * s),
                   [0.01, 0.1, 1.0, 10.0])),
    ("irls_logistic", Sz.irls_logistic, _logit),
    ("out_args_pipeline", Sz.out_args_pipeline,
     lambda r, s: (r.standard_normal(150 * s), r.standard_normal(150 * s))),
    ("where_chain_tax", Sz.where_chain_tax,
     lambda r, s: (r.random(100 * s) * 200000 - 5000,)),
    ("math_elements_loop", Sz.math_elements_loop,
     lambda r, s: (r.standard_normal(60 * s), r.standard_normal(60 * s))),
    ("float32_scalar_mix", Sz.float32_scalar_mix,
     lambda r, s: (r.standard_normal(90 * s).astype(np.float32),)),
    ("float32_scalar_loop", Sz.float32_scalar_loop,
     lambda r, s: (r.standard_normal(90 * s).astype(np.float32), 0.2)),
    ("transpose_matmul_gram", Sz.transpose_matmul_gram,
     lambda r, s: (r.standard_normal((30 * s, 6)), r.standard_normal((30 * s, 4)))),
    ("bisection_while_cap", Sz.bisection_while_cap,
     lambda r, s: (np.array([1.0, 0.0, -2.0, -1.0 - r.random()]), 0.0, 3.0, 1e-9, 40)),
]
