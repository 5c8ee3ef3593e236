"""Inputs for the kernels of `user_kernels_ported*.py`: (name, function, make inputs(rng, scale))."""

from __future__ import annotations

import numpy as np
import user_kernels_ported as Pt
import user_kernels_ported2 as Pu


def _spd(rng, n):
    a = rng.random((n, n))
    return a @ a.T + n * np.eye(n)


def _dominant(rng, n):
    return rng.random((n, n)) + n * np.eye(n)


def _one_based(*arrays):
    return tuple(np.concatenate(([0.0], a)) for a in arrays)


def _tridag(rng, s):
    n = 50 * s
    a, c, r = rng.random(n), rng.random(n), rng.random(n)
    b = 4.0 + rng.random(n)
    return _one_based(a, b, c, r) + (n,)


def _badly_scaled(rng, s):
    n = 6 * s
    scales = 10.0 ** rng.integers(-4, 5, n)
    return (rng.random((n, n)) * scales[:, None] / scales[None, :],)


def _four1_data(rng, s):
    nn = 16 << s
    return np.concatenate(([0.0], rng.standard_normal(2 * nn))), nn, 1


def _sparse(rng, s):
    n = 200 * s
    nz = 40 * s
    return nz, rng.random(nz), rng.choice(n, nz, replace=False).astype(np.int32), rng.random(n)


def _gemm(rng, s):
    b = rng.random((10 * s, 14 * s))
    b[rng.random(b.shape) < 0.2] = 0.0
    return rng.random((12 * s, 10 * s)), b


def _surface(rng, s):
    return np.array([1.0 + rng.random(), 0.5 + 0.3 * rng.random(), 0.2 * rng.random()]), 20 * s


PORTED_CASES = [
    ("daxpy", Pt.daxpy,
     lambda r, s: (103 * s, 0.7, r.random(103 * s), 1, r.random(103 * s), 1)),
    ("daxpy_strided", Pt.daxpy,
     lambda r, s: (40 * s, -1.3, r.random(80 * s), -2, r.random(120 * s), 3)),
    ("ddot", Pt.ddot, lambda r, s: (101 * s, r.random(101 * s), 1, r.random(101 * s), 1)),
    ("ddot_strided", Pt.ddot,
     lambda r, s: (50 * s, r.random(100 * s), 2, r.random(50 * s), -1)),
    ("dscal", Pt.dscal, lambda r, s: (97 * s, 2.5, r.random(97 * s), 1)),
    ("dscal_strided", Pt.dscal, lambda r, s: (30 * s, -0.5, r.random(90 * s), 3)),
    ("idamax", Pt.idamax, lambda r, s: (80 * s, r.standard_normal(80 * s), 1)),
    ("idamax_strided", Pt.idamax, lambda r, s: (40 * s, r.standard_normal(80 * s), 2)),
    ("dnrm2", Pt.dnrm2,
     lambda r, s: (60 * s, r.standard_normal(60 * s) * 10.0 ** r.integers(-3, 4, 60 * s), 1)),
    ("drot", Pt.drot,
     lambda r, s: (70 * s, r.random(70 * s), 1, r.random(70 * s), 1, np.cos(0.3), np.sin(0.3))),
    ("drot_strided", Pt.drot,
     lambda r, s: (30 * s, r.random(30 * s), -1, r.random(60 * s), 2, 0.6, 0.8)),
    ("dasum", Pt.dasum, lambda r, s: (89 * s, r.standard_normal(89 * s), 1)),
    ("sdot_f32", Pt.sdot_f32,
     lambda r, s: (77 * s, r.random(77 * s).astype(np.float32),
                   r.random(77 * s).astype(np.float32))),
    ("daxpyi", Pt.daxpyi, lambda r, s: (lambda nz, x, ix, y: (nz, 1.5, x, ix, y))(*_sparse(r, s))),
    ("ddoti", Pt.ddoti, lambda r, s: _sparse(r, s)),
    ("dgefa", Pt.dgefa,
     lambda r, s: (np.asfortranarray(r.random((8 * s, 8 * s))), 8 * s,
                   np.zeros(8 * s, dtype=np.int32))),
    ("linpack_solve", Pt.linpack_solve, lambda r, s: (r.random((8 * s, 8 * s)), r.random(8 * s))),
    ("tqli_eigen", Pt.tqli_eigen, lambda r, s: (r.random(8 * s), r.random(8 * s - 1))),
    ("balanc", Pt.balanc, lambda r, s: _badly_scaled(r, s)),
    ("tridag", Pt.tridag, lambda r, s: _tridag(r, s)),
    ("nr_lu_solve", Pt.nr_lu_solve, lambda r, s: (r.random((6 * s, 6 * s)), r.random(6 * s))),
    ("gaussj_inverse", Pt.gaussj_inverse,
     lambda r, s: (r.random((6 * s, 6 * s)), r.random((6 * s, 2)))),
    ("nr_spline_eval", Pt.nr_spline_eval,
     lambda r, s: (np.cumsum(0.1 + r.random(20 * s)), r.standard_normal(20 * s),
                   0.2 + r.random(40 * s) * 2.0 * s, 0.5)),
    ("ran1_stream", Pt.ran1_stream, lambda r, s: (17 + s, 100 * s)),
    ("qromb_many", Pt.qromb_many, lambda r, s: (0.5 + 2.5 * r.random(4 * s), 1e-8)),
    ("rkqs_integrate", Pu.rkqs_integrate,
     lambda r, s: (np.array([2.0, 0.0]) + 0.1 * r.random(2), 0.0, 3.0 * s, 1e-6, 0.1)),
    ("zbrent_kepler", Pu.zbrent_kepler, lambda r, s: (r.random(20 * s) * 6.0, 0.6)),
    ("four1", Pu.four1, lambda r, s: _four1_data(r, s)),
    ("four1_power", Pu.four1_power, lambda r, s: (r.standard_normal(16 << s),)),
    ("fortran_matvec", Pu.fortran_matvec,
     lambda r, s: (np.asfortranarray(r.random((30 * s, 20 * s))), r.random(20 * s))),
    ("gemm_jki", Pu.gemm_jki, lambda r, s: _gemm(r, s)),
    ("dpofa", Pu.dpofa, lambda r, s: (np.asfortranarray(_spd(r, 8 * s)),)),
    ("fortran_heat_steps", Pu.fortran_heat_steps,
     lambda r, s: (r.random((20 * s, 16 * s)), 5, 0.2)),
    ("vec_add_out", Pu.vec_add_out,
     lambda r, s: (r.random(100 * s), r.random(100 * s), np.zeros(100 * s))),
    ("laplace_out", Pu.laplace_out,
     lambda r, s: (r.random((20 * s, 18 * s)), np.zeros((20 * s, 18 * s)))),
    ("matvec_out_f32", Pu.matvec_out_f32,
     lambda r, s: (r.random((20 * s, 16 * s)).astype(np.float32),
                   r.random(16 * s).astype(np.float32), np.zeros(20 * s, dtype=np.float32))),
    ("scale_rows_out", Pu.scale_rows_out,
     lambda r, s: (r.random((20 * s, 8)), r.random(20 * s), np.zeros((20 * s, 8)))),
    ("newton_flags", Pu.newton_flags, lambda r, s: (r.uniform(-3.0, 3.0, 30 * s), 1e-12, 40)),
    ("fixed_point_goto", Pu.fixed_point_goto, lambda r, s: (r.uniform(0.1, 1.5, 20 * s), 1e-12)),
    ("bisect_goto", Pu.bisect_goto,
     lambda r, s: (r.uniform(0.5, 2.0, 20 * s), r.uniform(4.0, 6.0, 20 * s), 1e-10)),
    ("mgs_matlab", Pu.mgs_matlab, lambda r, s: (r.random((12 * s, 6 * s)),)),
    ("matlab_surface", Pu.matlab_surface, lambda r, s: _surface(r, s)),
    ("matlab_newton_system", Pu.matlab_newton_system,
     lambda r, s: (np.array([2.0, 0.5]) + 0.1 * r.random(2), 1e-12, 30)),
    ("matlab_jacobi", Pu.matlab_jacobi,
     lambda r, s: (_dominant(r, 10 * s), r.random(10 * s), 1e-10, 200)),
    ("matlab_cumtrapz_find", Pu.matlab_cumtrapz_find,
     lambda r, s: (np.sort(r.random(100 * s)) * 5.0, r.random(100 * s))),
    ("matlab_lu_nopivot", Pu.matlab_lu_nopivot, lambda r, s: (_dominant(r, 10 * s),)),
    ("matlab_power_method", Pu.matlab_power_method,
     lambda r, s: (r.random((10 * s, 10 * s)), 500, 1e-12)),
    ("hailstone_longest", Pu.hailstone_longest, lambda r, s: (200 * s,)),
    ("perfect_numbers", Pu.perfect_numbers, lambda r, s: (1000 * s,)),
    ("digital_roots", Pu.digital_roots, lambda r, s: (r.integers(0, 10 ** 12, 50 * s),)),
    ("amicable_pairs", Pu.amicable_pairs, lambda r, s: (1500 * s,)),
    ("luhn_valid", Pu.luhn_valid,
     lambda r, s: (r.integers(0, 10, (30 * s, 16)).astype(np.int8),)),
    ("hanoi_moves", Pu.hanoi_moves, lambda r, s: (6 + s,)),
    ("happy_numbers", Pu.happy_numbers, lambda r, s: (20 * s,)),
]
