"""Inputs for the kernels of `user_kernels_textbook.py` and `user_kernels_textbook2.py`:
(name, function, make inputs(rng, scale))."""

from __future__ import annotations

import numpy as np
import user_kernels_textbook as Tb
import user_kernels_textbook2 as Tb2


def _spd(rng, n):
    a = rng.random((n, n))
    return a @ a.T + n * np.eye(n)


def _sym(rng, n):
    a = rng.standard_normal((n, n))
    return (a + a.T) / 2 + np.diag(np.arange(n, dtype=np.float64) * 2.0)


def _brackets(rng, s):
    # roots of x^3 - 2x - 5 + shift in [1, 4]
    n = 50 * s
    return np.full(n, 1.0), np.full(n, 4.0) + rng.random(n), np.array([1.0, 0.0, -2.0, -5.0]), 55


def _knots(rng, s):
    n = 8 + 4 * s
    x = np.sort(rng.uniform(0, 4, n))
    x[0], x[-1] = 0.0, 4.0
    return x, np.sin(x) + 0.1 * x, np.linspace(0.0, 4.0, 60 * s)


def _nodes(rng, s):
    n = 6 + s
    x = np.linspace(-1, 1, n) + 0.01 * rng.standard_normal(n)
    return x, np.cos(2 * x) + x ** 3, rng.uniform(-1, 1, 40 * s)


def _fft_split(rng, s):
    n = 64 * 2 ** s
    return rng.standard_normal(n), rng.standard_normal(n)


def _lsq(rng, s):
    m, n = 12 * s, 5 + s
    return rng.standard_normal((m, n)), rng.standard_normal(m)


TEXTBOOK_CASES = [
    ("romberg_table", Tb.romberg_table,
     lambda r, s: (np.array([1.0, 2.0]) + 0.1 * r.random(2), 0.0, 2.0, 5 + s)),
    ("adaptive_simpson_stack", Tb.adaptive_simpson_stack,
     lambda r, s: (np.array([5.0, 0.3]) + r.random(2), 0.0, 3.0, 1e-9, 400 * s)),
    ("gauss_legendre_rule", Tb.gauss_legendre_rule,
     lambda r, s: (8 + 4 * s, r.standard_normal(6))),
    ("gauss_legendre_vectorized", Tb.gauss_legendre_vectorized,
     lambda r, s: (10 + 5 * s, -1.0, 2.0, np.array([0.5, 3.0]) + r.random(2))),
    ("trapezoid_simpson38_f32", Tb.trapezoid_f32,
     lambda r, s: (np.sin(np.linspace(0, 3, 100 * s + 1)).astype(np.float32)
                   + r.random(100 * s + 1, dtype=np.float32) * 0.01, 0.03 / s)),
    ("richardson_derivative", Tb.richardson_derivative,
     lambda r, s: (r.uniform(0, 5, 20 * s), 0.2, 5)),
    ("rkf45_van_der_pol", Tb.rkf45_van_der_pol,
     lambda r, s: (np.array([2.0, 0.0]) + 0.1 * r.random(2), 1.5, 4.0 * s, 1e-7, 0.05)),
    ("dormand_prince_lorenz", Tb.dormand_prince_lorenz,
     lambda r, s: (np.array([1.0, 1.0, 1.0]) + r.random(3), np.array([10.0, 28.0, 8 / 3]),
                   1.0 * s, 1e-6, 1e-9, 5000)),
    ("heun_euler_adaptive", Tb.heun_euler_adaptive,
     lambda r, s: (r.random(4 * s), 1.0 + r.random(4 * s), 5.0, 1e-5)),
    ("bisection_vectorized", Tb.bisection_vectorized, lambda r, s: _brackets(r, s)),
    ("secant_many", Tb.secant_many, lambda r, s: (r.uniform(-5, 5, 40 * s), 1e-12, 60)),
    ("brent_root", Tb.brent_root,
     lambda r, s: (np.array([1.0, 0.0, -2.0, -5.0 - r.random()]), 1.0, 4.0, 1e-13)),
    ("newton_system", Tb.newton_system,
     lambda r, s: (np.array([1.0, 1.0, 1.0]), np.array([3.0, 1.0, 1.0]) + 0.1 * r.random(3))),
    ("regula_falsi_illinois", Tb.regula_falsi_illinois,
     lambda r, s: (0.0, 1.6, 0.5 + r.random(30 * s), 1e-13)),
    ("steffensen_fixed_point", Tb.steffensen_fixed_point,
     lambda r, s: (0.2 + 0.8 * r.random(25 * s), r.random(25 * s).astype(np.float32), 1e-14)),
    ("golden_section_batch", Tb.golden_section_batch,
     lambda r, s: (r.uniform(-2, 2, 50 * s), 1.0, 1e-6)),
    ("nelder_mead_tol", Tb.nelder_mead_tol,
     lambda r, s: (r.uniform(-1, 1, 2), 0.5, 1e-12, 200 * s)),
    # tol 1e-7: at 1e-9 the stopping test sat in the rounding noise of the gradient's norm,
    # where the last bits of tanh, log and the sums (NumPy's SIMD loops and BLAS, or
    # compiled code) decide the iteration count: one stalls above it to max_iter, the other
    # stops.
    ("bfgs_backtracking", Tb.bfgs_backtracking,
     lambda r, s: (r.standard_normal((8 * s, 4 * s)), r.standard_normal(8 * s),
                   np.zeros(4 * s), 1e-7, 200)),
    ("steepest_descent_exact", Tb.steepest_descent_exact,
     lambda r, s: (_spd(r, 6 * s), r.random(6 * s), np.zeros(6 * s), 1e-8)),
    ("natural_spline_scan", Tb.natural_spline_scan, lambda r, s: _knots(r, s)),
    ("neville", Tb.neville, lambda r, s: _nodes(r, s)),
    ("newton_divided_differences", Tb.newton_divided_differences, lambda r, s: _nodes(r, s)),
    ("barycentric_cheb2", Tb.barycentric_cheb2,
     lambda r, s: (np.exp(np.cos(np.pi * np.arange(9 + 4 * s) / (8 + 4 * s))),
                   np.concatenate([r.uniform(-1, 1, 50 * s), [1.0, -1.0]]))),
    ("chebyshev_clenshaw", Tb.chebyshev_clenshaw,
     lambda r, s: (12 + 4 * s, r.uniform(-1, 2, 40 * s), -1.0, 2.0)),
    ("fft_inplace_split", Tb2.fft_inplace_split, lambda r, s: _fft_split(r, s)),
    ("fft_stages_vectorized", Tb2.fft_stages_vectorized, lambda r, s: _fft_split(r, s)[:1]),
    ("fft_complex_iterative", Tb2.fft_complex_iterative,
     lambda r, s: (r.standard_normal(32 * 2 ** s) + 1j * r.standard_normal(32 * 2 ** s),)),
    ("power_spectrum_split", Tb2.power_spectrum_split, lambda r, s: _fft_split(r, s)[:1]),
    ("erf_series_cf", Tb2.erf_series_cf, lambda r, s: (r.uniform(-4, 4, 40 * s),)),
    ("bessel_j01_series", Tb2.bessel_j01_series, lambda r, s: (r.uniform(0, 12, 30 * s),)),
    ("bessel_miller", Tb2.bessel_miller, lambda r, s: (1.0 + 9 * r.random(), 8 + 2 * s)),
    ("lgamma_lanczos", Tb2.lgamma_lanczos,
     lambda r, s: (np.concatenate([r.uniform(0.1, 30, 60 * s), r.uniform(-4.9, -0.1, 10 * s)]),)),
    ("gammainc_lower", Tb2.gammainc_lower,
     lambda r, s: (r.uniform(0.5, 10, 40 * s), r.uniform(0, 20, 40 * s))),
    ("halton", Tb2.halton, lambda r, s: (50 * s, np.array([2, 3, 5]))),
    ("van_der_corput_vec", Tb2.van_der_corput_vec, lambda r, s: (200 * s, 3)),
    ("mc_gaussian_integral", Tb2.mc_gaussian_integral,
     lambda r, s: (np.random.default_rng(31), 1000 * s, 3)),
    ("mc_hit_or_miss_batches", Tb2.mc_hit_or_miss_batches,
     lambda r, s: (np.random.default_rng(32), 10 * s, 200)),
    ("mc_antithetic", Tb2.mc_antithetic, lambda r, s: (np.random.default_rng(33), 1000 * s, 0.1, 0.4)),
    ("rayleigh_quotient_iteration", Tb2.rayleigh_quotient_iteration,
     lambda r, s: (_sym(r, 6 * s), r.standard_normal(6 * s), 20)),
    ("power_deflation_tol", Tb2.power_deflation_tol,
     lambda r, s: (_spd(r, 6 * s), 3, 1e-12, 2000)),
    ("inverse_iteration_shift", Tb2.inverse_iteration_shift,
     lambda r, s: (_sym(r, 6 * s), 2.1, 30)),
    ("householder_qr_explicit", Tb2.householder_qr_explicit,
     lambda r, s: (r.standard_normal((6 * s + 2, 4 * s)),)),
    ("givens_least_squares", Tb2.givens_least_squares, lambda r, s: _lsq(r, s)),
    ("sor_residual_history", Tb2.sor_residual_history,
     lambda r, s: (_spd(r, 6 * s), r.random(6 * s), 1.3, 1e-10, 200)),
    ("shooting_secant", Tb2.shooting_secant, lambda r, s: (0.5 + r.random(), 2.0, 0.3, 50 * s)),
    ("shooting_bisection", Tb2.shooting_bisection,
     lambda r, s: (np.array([1.0]) + 0.01 * r.random(1), 50 * s)),
    ("finite_difference_bvp", Tb2.finite_difference_bvp,
     lambda r, s: (30 * s, 2.0 + r.random(), np.float32(1.5))),
]
