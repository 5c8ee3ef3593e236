"""Inputs for the kernels of `user_kernels_stranger16.py`: (name, function, make inputs(rng,
scale))."""

from __future__ import annotations

import numpy as np
import user_kernels_stranger16 as Sy


def _spd(r, n):
    a = r.standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


def _chol(r, n):
    return np.linalg.cholesky(_spd(r, n))


def _lstm(r, s):
    t, b, d, n = 12 * s, 4, 8, 6
    return (r.standard_normal((t, b, d)), r.standard_normal((b, n)), r.standard_normal((b, n)),
            0.3 * r.standard_normal((d, 4 * n)), 0.3 * r.standard_normal((n, 4 * n)),
            0.1 * r.standard_normal(4 * n))


def _gru(r, s):
    t, b, d, n = 12 * s, 4, 8, 6
    return (r.standard_normal((t, b, d)), r.standard_normal((b, n)),
            *(0.3 * r.standard_normal((d, n)) for _ in range(3)),
            *(0.3 * r.standard_normal((n, n)) for _ in range(3)))


def _bags(r, s):
    nb = 10 * s
    counts = r.integers(1, 5, nb)
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
    return r.standard_normal((50, 8)), r.integers(0, 50, int(counts.sum())), offsets


def _mlp(r, s):
    n, d, h, o = 32 * s, 10, 16, 3
    return (r.standard_normal((n, d)), 0.3 * r.standard_normal((d, h)), 0.1 * r.standard_normal(h),
            0.3 * r.standard_normal((h, o)), 0.1 * r.standard_normal(o),
            (r.random((n, h)) < 0.8).astype(np.float64))


def _bn(r, s):
    n, d = 40 * s, 12
    return (r.standard_normal((n, d)) * 2 + 1, r.random(d) + 0.5, r.standard_normal(d),
            np.zeros(d), np.ones(d))


def _attn_pad(r, s):
    b, t, d = 3, 10 * s, 8
    return (r.standard_normal((b, t, d)), r.standard_normal((b, t, d)),
            r.standard_normal((b, t, d)), r.integers(1, t + 1, b))


def _lj(r, s):
    n = 30 * s
    box = 6.0
    return r.random((n, 3)) * box, box


def _sph(r, s):
    n = 40 * s
    return r.random((n, 2)), 1.0 + r.random(n), 0.02, 0.3, 2.0, 1.0


def _ising(r, s):
    n = 12
    steps = 400 * s
    spins = np.where(r.random((n, n)) < 0.5, -1.0, 1.0)
    return spins, 1.0, 0.4, r.integers(0, n, (steps, 2)), r.random(steps)


def _pairs(r, n, m):
    i = r.integers(0, n, m)
    j = (i + 1 + r.integers(0, n - 1, m)) % n
    return np.stack([i, j], axis=1)


def _mesh(r, s):
    n = 30 * s
    edges = _pairs(r, n, 3 * n)
    return r.random((n, 2)), edges, 0.2 + 0.1 * r.random(len(edges)), 3.0


STRANGER16_CASES = [
    ("im2col_conv2d", Sy.im2col_conv2d,
     lambda r, s: (r.standard_normal((2, 3, 8 * s, 8)), r.standard_normal((4, 3, 3, 3)))),
    ("conv2d_einsum_windows", Sy.conv2d_einsum_windows,
     lambda r, s: (r.standard_normal((3, 10 * s, 10)), r.standard_normal((4, 3, 3, 3)))),
    ("max_pool_strided", Sy.max_pool_strided, lambda r, s: (r.standard_normal((3, 11 * s, 11)),)),
    ("avg_pool_loops", Sy.avg_pool_loops, lambda r, s: (r.standard_normal((2, 8 * s, 8)),)),
    ("batchnorm_train_running", Sy.batchnorm_train_running, _bn),
    ("layernorm_rows_enumerate", Sy.layernorm_rows_enumerate,
     lambda r, s: (r.standard_normal((20 * s, 16)), r.random(16) + 0.5, r.standard_normal(16))),
    ("causal_attention_heads", Sy.causal_attention_heads,
     lambda r, s: tuple(r.standard_normal((2, 10 * s, 8)) for _ in range(3))),
    ("padded_attention", Sy.padded_attention, _attn_pad),
    ("lstm_cell_steps", Sy.lstm_cell_steps, _lstm),
    ("gru_cell_range", Sy.gru_cell_range, _gru),
    ("embedding_bag_sum", Sy.embedding_bag_sum, _bags),
    ("embedding_grad_add_at", Sy.embedding_grad_add_at,
     lambda r, s: (r.integers(0, 20, (4 * s, 6)), r.standard_normal((4 * s, 6, 5)), 20)),
    ("cross_entropy_labels_grad", Sy.cross_entropy_labels_grad,
     lambda r, s: (r.standard_normal((30 * s, 5)), r.integers(0, 5, 30 * s))),
    ("dropout_mlp_forward", Sy.dropout_mlp_forward, _mlp),
    ("label_smoothing_loss", Sy.label_smoothing_loss,
     lambda r, s: (r.standard_normal((30 * s, 6)), r.integers(0, 6, 30 * s))),
    ("blocked_matmul", Sy.blocked_matmul,
     lambda r, s: (r.standard_normal((32 * s, 48)), r.standard_normal((48, 32)))),
    ("householder_qr_accumulate", Sy.householder_qr_accumulate,
     lambda r, s: (r.standard_normal((10 * s, 6)),)),
    ("lu_partial_pivot_solve", Sy.lu_partial_pivot_solve,
     lambda r, s: (r.standard_normal((10 * s, 10 * s)), r.standard_normal(10 * s))),
    ("cholesky_rank1_update", Sy.cholesky_rank1_update,
     lambda r, s: (_chol(r, 10 * s), r.standard_normal(10 * s))),
    ("lower_solve_columns", Sy.lower_solve_columns,
     lambda r, s: (_chol(r, 10 * s), r.standard_normal((10 * s, 4)))),
    ("givens_zero_vector", Sy.givens_zero_vector, lambda r, s: (r.standard_normal(12 * s),)),
    ("lanczos_tridiag", Sy.lanczos_tridiag,
     lambda r, s: (_spd(r, 20 * s), r.standard_normal(20 * s), 8)),
    ("rayleigh_power_deflation", Sy.rayleigh_power_deflation,
     lambda r, s: (_spd(r, 12 * s), 30)),
    ("gram_schmidt_list", Sy.gram_schmidt_list, lambda r, s: (r.standard_normal((12 * s, 5)),)),
    ("einsum_bilinear_forms", Sy.einsum_bilinear_forms,
     lambda r, s: (r.standard_normal((40 * s, 6)), r.standard_normal((6, 6)),
                   r.standard_normal((40 * s, 6)))),
    ("pcg_jacobi", Sy.pcg_jacobi, lambda r, s: (_spd(r, 20 * s), r.standard_normal(20 * s), 10)),
    ("sor_sweeps", Sy.sor_sweeps, lambda r, s: (_spd(r, 10 * s), r.standard_normal(10 * s), 1.2, 5)),
    ("newton_system_2d", Sy.newton_system_2d,
     lambda r, s: (np.array([1.0, -1.5]) + 0.1 * r.standard_normal(2), 6)),
    ("wave_leapfrog_2d", Sy.wave_leapfrog_2d,
     lambda r, s: (np.pad(r.random((12 * s, 12)), 1), 1.0, 0.2, 20)),
    ("velocity_verlet_chain", Sy.velocity_verlet_chain,
     lambda r, s: (r.standard_normal(20 * s), np.zeros(20 * s), 2.0, 0.05, 30)),
    ("rk4_lotka_volterra", Sy.rk4_lotka_volterra,
     lambda r, s: (np.array([10.0, 5.0]) + r.random(2), (1.1, 0.4, 0.4, 0.1), 0.01, 50 * s)),
    ("heat_implicit_thomas", Sy.heat_implicit_thomas,
     lambda r, s: (r.random(20 * s), 0.5, 5)),
    ("lj_forces_cutoff", Sy.lj_forces_cutoff, _lj),
    ("sph_pressure_forces", Sy.sph_pressure_forces, _sph),
    ("ising_metropolis_given", Sy.ising_metropolis_given, _ising),
    ("nbody_add_at_pairs", Sy.nbody_add_at_pairs,
     lambda r, s: (r.standard_normal((20 * s, 3)), r.random(20 * s) + 0.5,
                   _pairs(r, 20 * s, 60 * s))),
    ("spring_mesh_energy", Sy.spring_mesh_energy, _mesh),
    ("matmul_chain_out", Sy.matmul_chain_out,
     lambda r, s: (r.standard_normal((8 * s, 6)), r.standard_normal((6, 7)),
                   r.standard_normal((7, 5)), r.standard_normal(5))),
    ("rows_stack_comprehension", Sy.rows_stack_comprehension,
     lambda r, s: (r.standard_normal((15 * s, 9)), r.standard_normal(4))),
    ("enumerate_rows_normalize", Sy.enumerate_rows_normalize,
     lambda r, s: (r.standard_normal((15 * s, 7)),)),
    ("ufunc_out_chain", Sy.ufunc_out_chain,
     lambda r, s: (r.standard_normal(200 * s), r.standard_normal(200 * s))),
    ("bincount_scatter_mean", Sy.bincount_scatter_mean,
     lambda r, s: (r.standard_normal(100 * s), r.integers(0, 12, 100 * s), 12)),
    ("einsum_batched_gram", Sy.einsum_batched_gram,
     lambda r, s: (r.standard_normal((5 * s, 4, 6)),)),
]
