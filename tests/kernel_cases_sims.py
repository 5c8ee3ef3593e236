"""Inputs for the kernels of `user_kernels_sims.py`: (name, function, make inputs(rng, scale))."""

from __future__ import annotations

import numpy as np
import user_kernels_sims as Si
import user_kernels_quantum as Qu


def _frames(rng, s):
    n = 16 * s
    y, x = np.mgrid[0:n, 0:n] / n
    I1 = np.sin(6 * x) * np.cos(5 * y) + 0.05 * rng.random((n, n))
    I2 = np.sin(6 * (x - 0.01)) * np.cos(5 * (y - 0.02)) + 0.05 * rng.random((n, n))
    return I1, I2


def _blocks(rng, s):
    n = 16 * s
    prev = rng.integers(0, 256, (n, n), dtype=np.uint8)
    curr = np.roll(prev, (1, -2), axis=(0, 1))
    return prev, curr, 4, 2


def _targets(rng, s):
    steps, n = 20 * s, 3 * s
    v = rng.standard_normal((n, 2))
    t = np.arange(steps)[:, None, None]
    return rng.random((1, n, 2)) + v[None] * t * 0.1 + 0.05 * rng.standard_normal((steps, n, 2))


def _pf_draws(rng, s):
    steps, n = 15 * s, 100 * s
    obs = np.cumsum(rng.standard_normal(steps))
    return obs, 0.5 * rng.standard_normal((steps, n)), rng.random(steps), 0.7


def _pf_2d(rng, s):
    steps, n = 12 * s, 80 * s
    obs = np.cumsum(rng.standard_normal((steps, 2)), axis=0)
    return obs, 0.6 * rng.standard_normal((steps, n, 2)), rng.random(steps), 1.0


def _ring(rng, s):
    length, n = 100 * s, 30 * s
    pos = np.sort(rng.choice(length, n, replace=False)).astype(np.int32)
    return pos, rng.integers(0, 3, n).astype(np.int32), length, 5, 0.3, rng.random((20, n))


def _cells(rng, s):
    L = 60 * s
    road = np.where(rng.random(L) < 0.3, rng.integers(0, 4, L), -1).astype(np.int64)
    return road, 5, rng.random((15, L)), 0.25


def _forest(rng, s):
    n = 20 * s
    g = rng.choice(np.array([0, 1, 2], dtype=np.uint8), (n, n), p=[0.4, 0.55, 0.05])
    return g, 0.05, 0.001, rng.random((15, n, n)), rng.random((15, n, n))


def _sir(rng, s):
    n = 12 * s
    S = np.full((n, n), 1000.0, dtype=np.float32)
    I = np.zeros((n, n), dtype=np.float32)
    I[n // 2, n // 2] = 10.0
    return S, I, np.zeros((n, n), dtype=np.float32), 0.4, 0.1, 0.2, 0.5, 30


def _sir_cells(rng, s):
    n = 15 * s
    state = np.zeros((n, n), dtype=np.int8)
    state[rng.integers(0, n, 3), rng.integers(0, n, 3)] = 1
    return state, 0.3, 0.2, rng.random((40, n, n))


def _leslie(rng, s):
    k = 5 * s
    return rng.random(k) * 1.5, rng.uniform(0.3, 0.9, k - 1), rng.random(k) * 100, 20


def _circuit(rng, s):
    n = 8 * s
    tree = np.array([[i, rng.integers(0, i)] for i in range(1, n)])
    extra = rng.integers(0, n, (2 * n, 2))
    extra = extra[extra[:, 0] != extra[:, 1]]
    branches = np.concatenate([tree, extra]).astype(np.int64)
    inj = rng.standard_normal(n)
    return branches, rng.uniform(0.5, 2.0, len(branches)), inj, n


def _grid_y(rng, n):
    G = np.zeros((n, n))
    B = np.zeros((n, n))
    for i in range(n):
        for j in ({(i + 1) % n, (i + 3) % n} - {i}):
            g, b = rng.uniform(1, 3), -rng.uniform(5, 10)
            G[i, j] -= g
            G[j, i] -= g
            B[i, j] -= b
            B[j, i] -= b
            G[i, i] += g
            G[j, j] += g
            B[i, i] += b
            B[j, j] += b
    return G, B


def _load_flow(rng, s):
    n = 6 * s
    G, B = _grid_y(rng, n)
    P = -0.05 * rng.random(n)
    Q = -0.02 * rng.random(n)
    return G, B, P, Q, 200, 1e-10


def _mismatch(rng, s):
    n = 10 * s
    G, B = _grid_y(rng, n)
    return G, B, 1 + 0.01 * rng.standard_normal(n), 0.01 * rng.standard_normal(n), \
        rng.random(n), rng.random(n)


def _dc_flow(rng, s):
    n = 6 * s
    lines = [(i, (i + 1) % n) for i in range(n)] + [(i, (i + 2) % n) for i in range(0, n, 2)]
    P = rng.standard_normal(n)
    P[0] = -P[1:].sum()
    return lines, rng.uniform(0.05, 0.2, len(lines)), P, n


def _arrivals(rng, s):
    n = 200 * s
    return np.cumsum(rng.exponential(1.0, n)), rng.exponential(2.5, n), 3


def _events(rng, s):
    n = 100 * s
    arr = np.sort(rng.random(n) * 100)
    return arr, arr + rng.exponential(2.0, n), 110.0


SIM_CASES = [
    ("haar_forward_levels", Si.haar_forward_levels, lambda r, s: (r.standard_normal(256 * s), 4)),
    ("haar_denoise_soft", Si.haar_denoise_soft,
     lambda r, s: (np.sin(np.linspace(0, 8, 256 * s)) + 0.2 * r.standard_normal(256 * s), 3, 0.3)),
    ("db4_lifting", Si.db4_lifting, lambda r, s: (r.standard_normal(128 * s),)),
    ("db4_multilevel_energy", Si.db4_multilevel_energy,
     lambda r, s: (r.standard_normal(256 * s), 4)),
    ("haar_2d", Si.haar_2d, lambda r, s: (r.random((32 * s, 32 * s)),)),
    ("haar_inplace_loop", Si.haar_inplace_loop,
     lambda r, s: (r.random(64 * s).astype(np.float32), 3)),
    ("wavelet_hard_threshold", Si.wavelet_hard_threshold,
     lambda r, s: (np.cumsum(r.standard_normal(512 * s)), 5)),
    ("lucas_kanade_windows", Si.lucas_kanade_windows, lambda r, s: (*_frames(r, s), 2)),
    ("lucas_kanade_boxes", Si.lucas_kanade_boxes, lambda r, s: (*_frames(r, s), 2)),
    ("block_matching_sad", Si.block_matching_sad, lambda r, s: _blocks(r, s)),
    ("kalman_multi_target", Si.kalman_multi_target, lambda r, s: (_targets(r, s), 0.1, 0.01, 0.05)),
    ("alpha_beta_tracker", Si.alpha_beta_tracker, lambda r, s: (_targets(r, s), 0.1, 0.5, 0.2)),
    ("systematic_resample", Si.systematic_resample,
     lambda r, s: (r.dirichlet(np.ones(100 * s)), r.random())),
    ("particle_filter_generator", Si.particle_filter_generator,
     lambda r, s: (np.random.default_rng(21), np.cumsum(r.standard_normal(15 * s)), 100 * s,
                   0.5, 0.7)),
    ("particle_filter_given_draws", Si.particle_filter_given_draws, lambda r, s: _pf_draws(r, s)),
    ("particle_filter_2d", Si.particle_filter_2d, lambda r, s: _pf_2d(r, s)),
    ("boids", Si.boids,
     lambda r, s: (r.random((30 * s, 2)), 0.01 * r.standard_normal((30 * s, 2)), Si.BoidParams(), 10)),
    ("nagel_schreckenberg", Si.nagel_schreckenberg, lambda r, s: _ring(r, s)),
    ("traffic_cells_loop", Si.traffic_cells_loop, lambda r, s: _cells(r, s)),
    ("forest_fire_uint8", Si.forest_fire, lambda r, s: _forest(r, s)),
    ("sandpile_queue", Si.sandpile_queue, lambda r, s: (r.integers(0, 6, (8 * s, 8 * s)), 4)),
    ("sandpile_vectorized", Si.sandpile_vectorized,
     lambda r, s: (r.integers(0, 7, (10 * s, 10 * s)).astype(np.int32),)),
    ("sir_grid", Si.sir_grid, lambda r, s: _sir(r, s)),
    ("sir_stochastic_cells", Si.sir_stochastic_cells, lambda r, s: _sir_cells(r, s)),
    ("wright_fisher", Si.wright_fisher, lambda r, s: (np.random.default_rng(22), 50, 0.3, 40 * s)),
    ("wright_fisher_loci", Si.wright_fisher_loci,
     lambda r, s: (np.random.default_rng(23), 20, r.random(30 * s), 0.05, 200)),
    ("leslie_matrix_projection", Si.leslie_projection, lambda r, s: _leslie(r, s)),
    ("leslie_growth_rate", Si.leslie_growth_rate, lambda r, s: _leslie(r, s)[:2]),
    ("lotka_volterra_field", Si.lotka_volterra_field,
     lambda r, s: (1 + 0.1 * r.random((16 * s, 16 * s)), 0.5 + 0.1 * r.random((16 * s, 16 * s)),
                   Si.LotkaVolterra(), 0.01, 20)),
    ("lotka_volterra_rk4", Si.lotka_volterra_rk4,
     lambda r, s: (np.array([10.0, 5.0]), (1.1, 0.4, 0.1, 0.4), 0.01, 100 * s)),
    ("nodal_analysis", Si.nodal_analysis, lambda r, s: _circuit(r, s)),
    ("nodal_add_at", Si.nodal_add_at, lambda r, s: _circuit(r, s)),
    ("gauss_seidel_load_flow", Si.gauss_seidel_load_flow, lambda r, s: _load_flow(r, s)),
    ("power_mismatch", Si.power_mismatch, lambda r, s: _mismatch(r, s)),
    ("dc_power_flow", Si.dc_power_flow, lambda r, s: _dc_flow(r, s)),
    ("lindley_waits", Si.lindley_waits,
     lambda r, s: (r.exponential(1.0, 300 * s), r.exponential(0.8, 300 * s))),
    ("multi_server_queue", Si.multi_server_queue, lambda r, s: _arrivals(r, s)),
    ("inventory_s_S", Si.inventory_s_S,
     lambda r, s: (r.poisson(4, 100 * s), 10, 30, 3, 0.5, 4.0, 20.0)),
    ("newsvendor_grid", Si.newsvendor_grid,
     lambda r, s: (r.gamma(4.0, 25.0, 500 * s), np.arange(40, 200, 5), 5.0, 3.0, 1.0)),
    ("queue_length_events", Si.queue_length_events, lambda r, s: _events(r, s)),
    ("hadamard_all_then_phase", Qu.hadamard_all_then_phase,
     lambda r, s: (5 + s, r.uniform(0, np.pi, 5 + s))),
    ("ry_layer_circuit", Qu.ry_layer_circuit, lambda r, s: (r.uniform(0, np.pi, (3, 4 + s)), 4 + s)),
    ("grover_real", Qu.grover_real, lambda r, s: (6 + s, 13, 6)),
    ("bell_pair_fidelity", Qu.bell_pair_fidelity, lambda r, s: (r.uniform(0, np.pi), 0.1)),
]
