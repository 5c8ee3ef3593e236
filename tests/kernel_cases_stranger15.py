"""Inputs for the kernels of `user_kernels_stranger15.py`: (name, function, make inputs(rng,
scale))."""

from __future__ import annotations

import numpy as np
import user_kernels_stranger15 as Sx


def _track(r, n):
    lat = 47.0 + np.cumsum(r.standard_normal(n)) * 0.01
    lon = 8.0 + np.cumsum(r.standard_normal(n)) * 0.01
    return lat, lon


def _polyline(r, n):
    t = np.linspace(0, 4 * np.pi, n)
    return np.stack([t, np.sin(t) + 0.05 * r.standard_normal(n)], axis=1)


def _polygon(r, n, m):
    ang = np.sort(r.random(m)) * 2 * np.pi
    rad = 0.5 + 0.5 * r.random(m)
    return (r.random(n) * 2 - 1, r.random(n) * 2 - 1, rad * np.cos(ang), rad * np.sin(ang))


def _coo(r, n, nnz, k):
    return (r.integers(0, n, nnz), r.integers(0, n, nnz), r.standard_normal(nnz),
            r.standard_normal((n, k)), n)


def _csr(r, n, per_row):
    counts = r.integers(0, per_row + 1, n)
    indptr = np.concatenate([[0], np.cumsum(counts)])
    nnz = int(indptr[-1])
    return indptr, r.integers(0, n, nnz), r.standard_normal(nnz)


def _tridiag(r, n):
    return (r.random(n), 4.0 + r.random(n), r.random(n), r.standard_normal(n))


def _boxes(r, n):
    return np.concatenate([r.random((n, 2)) * 10, 0.5 + r.random((n, 2)) * 3], axis=1)


def _rays(r, n):
    d = r.standard_normal((n, 3))
    d[np.abs(d) < 1e-3] = 1e-3
    return (r.random((n, 3)) * 4 - 2 - np.array([0.0, 0.0, 5.0]), d,
            np.array([-1.0, -1.0, -1.0]), np.array([1.0, 1.0, 1.0]))


def _tone(r, n, fs):
    t = np.arange(n) / fs
    return (np.sin(2 * np.pi * 220.0 * t) + 0.5 * np.sin(2 * np.pi * 440.0 * t)
            + 0.1 * r.standard_normal(n), fs, 80.0, 1000.0)


STRANGER15_CASES = [
    ("haversine_matrix", Sx.haversine_matrix,
     lambda r, s: (r.random(60 * s) * 180 - 90, r.random(60 * s) * 360 - 180)),
    ("haversine_track_length", Sx.haversine_track_length, lambda r, s: _track(r, 300 * s)),
    ("douglas_peucker", Sx.douglas_peucker, lambda r, s: (_polyline(r, 200 * s), 0.05)),
    ("points_in_polygon_edges", Sx.points_in_polygon_edges,
     lambda r, s: _polygon(r, 500 * s, 12)),
    ("bearing_degrees", Sx.bearing_degrees,
     lambda r, s: tuple(r.random(300 * s) * 120 - 60 for _ in range(4))),
    ("nditer_sum_squares", Sx.nditer_sum_squares, lambda r, s: (r.standard_normal((20 * s, 15)),)),
    ("ndenumerate_weighted", Sx.ndenumerate_weighted,
     lambda r, s: (r.standard_normal((20 * s, 15)),)),
    ("combinations_min_distance", Sx.combinations_min_distance,
     lambda r, s: (r.random((40 * s, 3)),)),
    ("product_grid_fill", Sx.product_grid_fill, lambda r, s: (20 * s, 30, 0.05)),
    ("accumulate_running_max", Sx.accumulate_running_max,
     lambda r, s: (r.standard_normal(300 * s),)),
    ("reduce_matrix_chain", Sx.reduce_matrix_chain,
     lambda r, s: ([np.eye(8) + 0.1 * r.standard_normal((8, 8)) for _ in range(5 * s)],)),
    ("zip_pairwise_slopes", Sx.zip_pairwise_slopes,
     lambda r, s: (np.cumsum(0.1 + r.random(200 * s)), r.standard_normal(200 * s))),
    ("scaler_partial_fit", Sx.scaler_partial_fit,
     lambda r, s: (r.standard_normal((100 * s, 6)) * 3 + 1, 32)),
    ("minmax_partial_fit", Sx.minmax_partial_fit,
     lambda r, s: (r.standard_normal((100 * s, 6)), 25)),
    ("box_iou_classmethod", Sx.box_iou_classmethod,
     lambda r, s: (_boxes(r, 30 * s), _boxes(r, 20 * s))),
    ("ema_keyword_passes", Sx.ema_keyword_passes, lambda r, s: (r.standard_normal(200 * s), 3)),
    ("closure_normalize_rows", Sx.closure_normalize_rows,
     lambda r, s: (r.standard_normal((30 * s, 16)),)),
    ("solow_growth", Sx.solow_growth, lambda r, s: (1.0 + r.random(), 100 * s)),
    ("fortran_tridiag_1based", Sx.fortran_tridiag_1based, lambda r, s: _tridiag(r, 200 * s)),
    ("empty_then_fill_trapz", Sx.empty_then_fill_trapz,
     lambda r, s: (r.standard_normal(300 * s), 0.01)),
    ("coo_spmm", Sx.coo_spmm, lambda r, s: _coo(r, 40 * s, 200 * s, 8)),
    ("csr_row_normalize", Sx.csr_row_normalize, lambda r, s: _csr(r, 60 * s, 6)[::2]),
    ("csr_diagonal", Sx.csr_diagonal, lambda r, s: (*_csr(r, 60 * s, 6), 60 * s)),
    ("tax_brackets_select", Sx.tax_brackets_select,
     lambda r, s: (r.random(500 * s) * 150000,)),
    ("piecewise_ramp", Sx.piecewise_ramp, lambda r, s: (r.standard_normal(500 * s) * 2,)),
    ("isin_filter_sum", Sx.isin_filter_sum,
     lambda r, s: (r.integers(0, 20, 500 * s), r.random(500 * s), np.array([1, 4, 7, 11]))),
    ("trapezoid_columns", Sx.trapezoid_columns,
     lambda r, s: (r.standard_normal((100 * s, 5)), np.cumsum(r.random(100 * s)))),
    ("gradient_magnitude", Sx.gradient_magnitude,
     lambda r, s: (r.standard_normal((20 * s, 24)), 0.1)),
    ("survival_cumprod", Sx.survival_cumprod, lambda r, s: (r.random(200 * s) * 0.05,)),
    ("logistic_loss_logaddexp", Sx.logistic_loss_logaddexp,
     lambda r, s: (r.standard_normal((100 * s, 5)), np.where(r.random(100 * s) < 0.5, -1.0, 1.0),
                   r.standard_normal(5))),
    ("lanczos_resample", Sx.lanczos_resample, lambda r, s: (r.standard_normal(60 * s), 1.5)),
    ("kron_laplacian_apply", Sx.kron_laplacian_apply,
     lambda r, s: (6 + 2 * s, r.standard_normal((6 + 2 * s) ** 2))),
    ("choose_palette", Sx.choose_palette,
     lambda r, s: (r.integers(0, 3, (10 * s, 12)), r.random((10 * s, 12)), r.random((10 * s, 12)),
                   r.random((10 * s, 12)))),
    ("argwhere_local_maxima", Sx.argwhere_local_maxima,
     lambda r, s: (r.random((16 * s, 20)),)),
    ("radial_profile_indices", Sx.radial_profile_indices,
     lambda r, s: (r.random((16 * s, 16 * s)),)),
    ("gaussian_ogrid", Sx.gaussian_ogrid, lambda r, s: (3 + s, 1.0 + r.random())),
    ("packbits_jaccard", Sx.packbits_jaccard, lambda r, s: (r.random((12 * s, 40)) < 0.3,)),
    ("isclose_matches", Sx.isclose_matches,
     lambda r, s: (r.random(300 * s), r.random(300 * s) * (r.random(300 * s) < 0.9))),
    ("apply_along_rows_range", Sx.apply_along_rows_range,
     lambda r, s: (r.standard_normal((20 * s, 8)),)),
    ("fromiter_squares", Sx.fromiter_squares, lambda r, s: (100 * s + int(r.integers(0, 5)),)),
    ("pitch_autocorr", Sx.pitch_autocorr, lambda r, s: _tone(r, 800 * s, 8000.0)),
    ("ray_aabb_slab", Sx.ray_aabb_slab, lambda r, s: _rays(r, 300 * s)),
    ("cyclic_ca", Sx.cyclic_ca, lambda r, s: (r.integers(0, 6, (16 * s, 16 * s)), 6, 5 * s)),
    ("mean_shift_1d", Sx.mean_shift_1d,
     lambda r, s: (np.concatenate([r.standard_normal(30 * s), 5 + r.standard_normal(30 * s)]),
                   1.0, 5)),
]
