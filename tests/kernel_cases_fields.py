"""Inputs for the kernels of `user_kernels_fields.py`: (name, function, make inputs(rng, scale))."""

from __future__ import annotations

import numpy as np
import user_kernels_fields as F


def _dh(rng, s):
    params = ((0.3, 0.0, np.pi / 2), (0.0, 0.4, 0.0), (0.0, 0.35, 0.0), (0.1, 0.0, np.pi / 2),
              (0.2, 0.0, -np.pi / 2), (0.05, 0.0, 0.0))
    return rng.uniform(-np.pi, np.pi, (20 * s, 6)), params


def _ik(rng, s):
    lengths = np.array([1.0, 0.8, 0.6, 0.4])
    return rng.uniform(-0.5, 0.5, 4), np.array([1.2, 1.1]) + 0.2 * rng.random(2), lengths


def _stochastic(rng, n):
    P = rng.random((n, n)) + 0.05
    return P / P.sum(axis=1, keepdims=True)


def _mdp(rng, s):
    n_states, n_actions = 10 * s, 3
    transitions = np.stack([_stochastic(rng, n_states) for _ in range(n_actions)])
    return rng.random((n_states, n_actions)), transitions, 0.9


def _leontief(rng, s):
    n = 8 * s
    A = rng.random((n, n))
    return 0.6 * A / A.sum(axis=0, keepdims=True), rng.random(n) * 100


def _metapop(rng, s):
    n = 6 * s
    N = rng.uniform(1e4, 1e5, n)
    I = rng.uniform(1, 20, n)
    mobility = 0.05 * rng.random((n, n)) + np.eye(n)
    return N - I, I, np.zeros(n), mobility / mobility.sum(1, keepdims=True), 0.3, 0.1, 40 * s


def _infection(rng, s):
    n = 12 * s
    state = np.zeros((n, n), dtype=np.int8)
    state[n // 2, n // 2] = 1
    state[1, 2] = 1
    return state, rng.random((15 * s, n, n))


def _nbody(rng, s):
    n = 8 * s
    return rng.standard_normal((n, 3)), 0.1 * rng.standard_normal((n, 3)), rng.uniform(0.5, 1.5, n), 0.01, 10 * s


def _wireworld(rng, s):
    n = 10 * s
    grid = np.zeros((n, n), dtype=np.int8)
    grid[2:-2, 2] = 3
    grid[2, 2:-2] = 3
    grid[2:-2, -3] = 3
    grid[-3, 2:-2] = 3
    grid[n // 2, 2] = 1
    grid[n // 2 + 1, 2] = 2
    return grid, 5 * s


def _walls(rng, s):
    walls = rng.random((10 * s, 12 * s)) < 0.25
    walls[0, 0] = False
    return (walls,)


def _connect_four(rng, s):
    board = np.zeros((6, 7), dtype=np.int64)
    heights = np.zeros(7, dtype=np.int64)
    for move in range(int(rng.integers(10, 30))):
        col = int(rng.integers(0, 7))
        if heights[col] < 6:
            board[5 - heights[col], col] = 1 + move % 2
            heights[col] += 1
    return (board,)


def _free(rng, s):
    free = rng.random((10 * s, 10 * s)) < 0.7
    free[0, 0] = True
    return free, (0, 0)


def _elo(rng, s):
    n, games = 10 * s, 200 * s
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    return a, b, n


FIELD_CASES = [
    ("dh_forward_kinematics", F.dh_forward_kinematics, _dh),
    ("planar_jacobian", F.planar_jacobian,
     lambda r, s: (r.uniform(-1, 1, 6 * s), r.uniform(0.2, 1.0, 6 * s))),
    ("ik_damped_least_squares", F.ik_damped_least_squares, _ik),
    ("attitude_integrator_class", F.AttitudeIntegrator.run,
     lambda r, s: (F.AttitudeIntegrator(0.01), r.standard_normal((100 * s, 3)))),
    ("diff_drive_odometry", F.diff_drive_odometry,
     lambda r, s: (1.0 + 0.2 * r.standard_normal(200 * s), 1.0 + 0.2 * r.standard_normal(200 * s))),
    ("pid_dataclass", F.pid_first_order_plant,
     lambda r, s: (np.repeat(r.uniform(-1, 1, 4 * s), 50), F.PIDGains(2.0, 0.5, 0.01))),
    ("biquad_df2t", F.biquad_df2t,
     lambda r, s: (r.standard_normal(400 * s), np.array([0.2, 0.4, 0.2]), np.array([1.0, -0.5, 0.3]))),
    ("adsr_envelope", F.adsr_envelope, lambda r, s: (800 * s, 0.01, 0.02, 0.6, 0.03)),
    ("feedback_delay", F.feedback_delay, lambda r, s: (r.standard_normal(400 * s), 37)),
    ("compressor_f32", F.compressor_f32,
     lambda r, s: (r.standard_normal(400 * s).astype(np.float32),)),
    ("resample_fractional", F.resample_fractional, lambda r, s: (r.standard_normal(300 * s), 1.37)),
    ("schroeder_reverb", F.schroeder_reverb, lambda r, s: (r.standard_normal(300 * s),)),
    ("frame_features", F.frame_features, lambda r, s: (r.standard_normal(640 * s),)),
    ("one_pole_smooth_f32", F.one_pole_smooth_inplace,
     lambda r, s: (r.standard_normal(300 * s).astype(np.float32), 0.9)),
    ("kepler_vectorized", F.kepler_vectorized,
     lambda r, s: (r.uniform(0, 2 * np.pi, 100 * s), r.uniform(0, 0.95, 100 * s))),
    ("kepler_positions", F.kepler_positions, lambda r, s: (r.uniform(0, 2 * np.pi, 100 * s), 0.6)),
    ("nbody_kick_drift", F.nbody_kick_drift, _nbody),
    ("two_body_rk4", F.two_body_rk4,
     lambda r, s: (np.array([1.0, 0.0, 0.0, 0.0, 1.1, 0.1]) + 0.01 * r.random(6), 1.0, 0.01, 100 * s)),
    ("sidereal_alt_az", F.sidereal_alt_az,
     lambda r, s: (2460000.5 + r.random(200 * s) * 30, r.uniform(0, 360, 200 * s), r.uniform(-60, 80, 200 * s))),
    ("hohmann_delta_v", F.hohmann_delta_v,
     lambda r, s: (r.uniform(6600, 8000, 200 * s), r.uniform(8000, 42000, 200 * s))),
    ("sir_euler", F.sir_euler, lambda r, s: (0.99, 0.01, 0.3 + 0.1 * r.random(), 0.1, 0.1, 200 * s)),
    ("seir_namedtuple", F.seir_peak,
     lambda r, s: (F.SEIRParams(0.5, 0.2, 0.1, 1e6), (1e6 - 10, 0.0, 10.0, 0.0), 30 * s)),
    ("metapopulation_sir", F.metapopulation_sir, _metapop),
    ("predator_prey_diffusion", F.predator_prey_diffusion,
     lambda r, s: (1 + r.random((12 * s, 12 * s)), 0.5 + r.random((12 * s, 12 * s)), 10 * s)),
    ("infection_grid", F.infection_grid, _infection),
    ("harvest_until_collapse", F.harvest_until_collapse,
     lambda r, s: (0.4, 1000.0, 90.0 + 20 * r.random(), 500.0)),
    ("leslie_projection", F.leslie_projection,
     lambda r, s: (np.array([0.0, 1.2, 1.5, 0.8, 0.2]), np.array([0.8, 0.7, 0.6, 0.4]), r.random(5) * 100, 20 * s)),
    ("leontief_output", F.leontief_output, _leontief),
    ("value_iteration", F.value_iteration, _mdp),
    ("markov_stationary", F.markov_stationary, lambda r, s: (_stochastic(r, 8 * s),)),
    ("cake_eating_vfi", F.cake_eating_vfi, lambda r, s: (np.linspace(1e-3, 2.0, 40 * s),)),
    ("gini_lorenz", F.gini_lorenz, lambda r, s: (r.lognormal(10, 1, 500 * s),)),
    ("amortization", F.amortization, lambda r, s: (250000.0, 0.05, 360, 500.0 * r.random())),
    ("highlife", F.highlife, lambda r, s: (r.random((16 * s, 16 * s)) < 0.35, 6 * s)),
    ("brians_brain", F.brians_brain,
     lambda r, s: (r.integers(0, 3, (16 * s, 16 * s)).astype(np.int8), 6 * s)),
    ("wireworld", F.wireworld, _wireworld),
    ("boids_step", F.boids_step,
     lambda r, s: (3 * r.random((20 * s, 2)), 0.2 * r.standard_normal((20 * s, 2)), 5 * s)),
    ("grid_bfs_distance", F.grid_bfs_distance, _walls),
    ("grid_dijkstra", F.grid_dijkstra, lambda r, s: (r.uniform(1, 9, (6 * s, 7 * s)),)),
    ("minesweeper_counts", F.minesweeper_counts, lambda r, s: (r.random((9 * s, 12 * s)) < 0.15,)),
    ("elo_ratings", F.elo_ratings, _elo),
    ("connect_four_winner", F.connect_four_winner, _connect_four),
    ("sokoban_reachable", F.sokoban_reachable, _free),
]
